//! `tessera migrate`: applies pending schema migrations (also done on every start).

use std::process::ExitCode;

use clap::Args;
use tenants::{Store, StoreOptions};

use super::store_args::{StoreArgs, run_command};

/// Apply pending schema migrations to the store. Idempotent.
#[derive(Args, Debug)]
pub struct MigrateArgs {
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Runs the migrations and prints what was applied.
pub fn run(args: MigrateArgs) -> ExitCode {
    run_command(async {
        let options = StoreOptions {
            migrate: false,
            ..StoreOptions::default()
        };
        let store = Store::open_with(&args.store.config(), options)
            .await
            .map_err(|e| anyhow::anyhow!("opening the {}: {e}", args.store.describe()))?;
        let report = store.migrate().await?;
        if report.applied.is_empty() {
            println!(
                "{}: schema is current (version {})",
                args.store.describe(),
                report.current
            );
        } else {
            println!(
                "{}: applied migrations {:?}; schema version {}",
                args.store.describe(),
                report.applied,
                report.current
            );
        }
        store.close().await?;
        Ok(())
    })
}
