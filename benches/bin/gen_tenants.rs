//! `gen-tenants`: writes tenants `t{FROM}` ..= `t{TO}` (hosts `t00042.scale.test`) into a
//! store, each a varied copy of one demo folder (see `tenants::generate`), in batched
//! transactions through one store handle. Used by `benches/tenant-scale.sh`.
//!
//! ```text
//! gen-tenants --to 10000 --data-dir /tmp/scale            # embedded
//! gen-tenants --from 101 --to 1000 --database-url postgres://…
//! ```

use std::path::PathBuf;
use std::time::Instant;

use api::cmd::store_args::StoreArgs;
use clap::Parser;
use tenants::generate::{Design, generate};
use tessera_benches::SCALE_DESIGNS;

#[derive(Parser)]
#[command(about = "Generate many tenants from the demo fixtures")]
struct Args {
    /// The first tenant number.
    #[arg(long, default_value_t = 1)]
    from: usize,
    /// The last tenant number.
    #[arg(long)]
    to: usize,
    /// Tenants per transaction.
    #[arg(long, default_value_t = 100)]
    batch: usize,
    /// The folder holding the demo tenants.
    #[arg(long, default_value = "fixtures")]
    fixtures: PathBuf,
    #[command(flatten)]
    store: StoreArgs,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(async {
        let designs = SCALE_DESIGNS
            .iter()
            .map(|d| Design::load(&args.fixtures.join(d), &api::styles::import_build))
            .collect::<Result<Vec<_>, _>>()?;
        let store = args.store.open().await?;
        let started = Instant::now();
        let mut report = |last: usize| {
            if last.is_multiple_of(1000) || last == args.to {
                eprintln!("gen-tenants: t{last:05} ({:.1?})", started.elapsed());
            }
        };
        generate(
            &store,
            &designs,
            args.from..=args.to,
            args.batch,
            &mut report,
        )
        .await?;
        println!(
            "gen-tenants: {} tenants into the {} in {:.1?}",
            (args.to + 1).saturating_sub(args.from),
            args.store.describe(),
            started.elapsed()
        );
        store.close().await?;
        Ok(())
    })
}
