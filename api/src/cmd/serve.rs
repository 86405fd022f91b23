//! `tessera serve`: serves every tenant's site over HTTP.
//!
//! With no database URL it uses the embedded store in `--data-dir` (default `./data`); on a
//! store with no tenants yet (first start) it imports every tenant folder under
//! `--fixtures` (default `./fixtures`). It prints one line per tenant with the URL to open.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::store_args::StoreArgs;
use crate::server::{App, serve};

/// Serve the demo tenants (or whatever the store holds) over HTTP.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Tenant folders imported on first start, when the store holds no tenant yet.
    #[arg(long, value_name = "DIR", default_value = "./fixtures")]
    pub fixtures: PathBuf,
    /// A reverse proxy in front of the server (repeatable): its `X-Forwarded-For` names the
    /// client and its `X-Forwarded-Proto: https` makes cookies `Secure`. From any other
    /// peer those headers are ignored.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    pub trusted_proxies: Vec<IpAddr>,
}

pub fn run(args: ServeArgs) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tower_http=warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    // Rendering recurses through nested blocks and partials: give threads room.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build();
    let result = runtime
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(run_async(args)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run_async(args: ServeArgs) -> anyhow::Result<()> {
    let store = args.store.open().await?;
    if store.tenants().await?.is_empty() {
        import_fixtures(&store, &args.fixtures).await?;
    }
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let port = listener.local_addr()?.port();
    eprintln!(
        "tessera: serving from the {} on http://{}",
        args.store.describe(),
        listener.local_addr()?
    );
    for tenant in store.tenants().await? {
        let domains = store.domains(tenant.id).await?;
        if let Some(d) = domains.iter().find(|d| d.primary).or(domains.first()) {
            println!("{}: http://{}:{port}/", tenant.identifier, d.host);
        }
    }
    let app = App::new(store.clone()).with_trusted_proxies(args.trusted_proxies);
    serve(listener, app).await?;
    store.close().await?;
    Ok(())
}

/// Imports every folder under `dir` that holds a `tenant.json`, in name order.
async fn import_fixtures(store: &tenants::Store, dir: &Path) -> anyhow::Result<()> {
    let mut folders: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("tenant.json").is_file())
            .collect(),
        Err(e) => {
            eprintln!("tessera: no fixtures imported ({}: {e})", dir.display());
            return Ok(());
        }
    };
    folders.sort();
    for folder in folders {
        let report =
            tenants::import::import_dir(store, &folder, &mut |m| tracing::debug!("import: {m}"))
                .await
                .map_err(|e| anyhow::anyhow!("importing {}: {e}", folder.display()))?;
        eprintln!(
            "tessera: imported {} from {}",
            report.tenant.identifier,
            folder.display()
        );
    }
    Ok(())
}
