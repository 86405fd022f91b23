//! The options that choose the store, shared by every subcommand that opens it
//! (`import`, `migrate`, `serve`, `analytics`, `token`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use tenants::{Store, StoreConfig};

/// Where the data lives: PostgreSQL when a database URL is given, else the embedded file.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// Directory of the embedded database (used when no database URL is given).
    #[arg(long, value_name = "DIR", default_value = "./data")]
    pub data_dir: PathBuf,
    /// PostgreSQL URL (postgres://user@host:port/db); defaults to $DATABASE_URL.
    #[arg(long, value_name = "URL")]
    pub database_url: Option<String>,
}

impl StoreArgs {
    /// The store configuration these options select.
    pub fn config(&self) -> StoreConfig {
        let url = self
            .database_url
            .clone()
            .or_else(|| std::env::var("DATABASE_URL").ok());
        StoreConfig::from_cli(&self.data_dir, url.as_deref())
    }

    /// A readable name of the store, for messages.
    pub fn describe(&self) -> String {
        match self.config() {
            StoreConfig::Embedded { data_dir } => {
                format!("embedded store in {}", data_dir.display())
            }
            StoreConfig::Postgres { .. } => "PostgreSQL database".to_owned(),
        }
    }

    /// Opens the store and finds the site `name` (identifier or domain) in it.
    pub async fn open_site(&self, name: &str) -> anyhow::Result<(Store, tenants::Tenant)> {
        let store = self.open().await?;
        match store.tenant_by_name(name).await {
            Ok(Some(t)) => Ok((store, t)),
            found => {
                store.close().await?;
                found?;
                anyhow::bail!("the {} has no site {name:?}", self.describe())
            }
        }
    }

    /// Opens the store (applying pending migrations) with caches of this budget.
    pub async fn open_with_budget(&self, budget: tenants::CacheBudget) -> anyhow::Result<Store> {
        let options = tenants::StoreOptions {
            cache_budget: budget,
            ..Default::default()
        };
        Store::open_with(&self.config(), options)
            .await
            .map_err(|e| anyhow::anyhow!("opening the {}: {e}", self.describe()))
    }

    /// Opens the store (applying pending migrations).
    pub async fn open(&self) -> anyhow::Result<Store> {
        Store::open(&self.config())
            .await
            .map_err(|e| anyhow::anyhow!("opening the {}: {e}", self.describe()))
    }
}

/// Runs one store command's async body on a fresh runtime; an error is printed on stderr
/// and becomes a failing exit status.
pub fn run_command(body: impl std::future::Future<Output = anyhow::Result<()>>) -> ExitCode {
    let result = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(body));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
