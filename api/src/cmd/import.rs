//! `tessera import DIR`: loads a tenant from a folder (format: `fixtures/README.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::store_args::{StoreArgs, run_command};

/// Load a tenant (template folder and content files) from DIR, in one transaction.
#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The tenant folder (see fixtures/README.md).
    pub dir: PathBuf,
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Runs the import; progress on stderr, a summary on stdout.
pub fn run(args: ImportArgs) -> ExitCode {
    run_command(async {
        let store = args.store.open().await?;
        let report = tenants::import::import_dir_with(
            &store,
            &args.dir,
            &mut |msg| eprintln!("import: {msg}"),
            &crate::styles::import_build,
        )
        .await
        .map_err(|e| anyhow::anyhow!("import failed, nothing was written: {e}"))?;
        println!(
            "imported tenant {} (id {}) into the {}: {} collections, {} items, {} variants, {} template files (template version {})",
            report.tenant.identifier,
            report.tenant.id,
            args.store.describe(),
            report.collections,
            report.items,
            report.variants,
            report.template_files,
            report.template_version
        );
        store.close().await?;
        Ok(())
    })
}
