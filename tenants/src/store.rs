//! [`Store`]: the storage interface the rest of Tessera uses, over either backend.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cache::{CacheBudget, Caches, Change};
use crate::error::{Result, StoreError};
use crate::ids::TenantId;
use crate::migrate::{self, MigrationReport};
use crate::notify;
use crate::params;
use crate::sql::{Backend, Db, LiteDb, Mode, PgDb, Tx};

/// The file name of the embedded database inside the data directory.
pub const EMBEDDED_FILE: &str = "tessera.sqlite3";

/// Where the data lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreConfig {
    /// The embedded default: one SQLite file `tessera.sqlite3` in this directory (created if
    /// missing).
    Embedded {
        /// The data directory (`--data-dir`, default `./data`).
        data_dir: PathBuf,
    },
    /// A PostgreSQL server (`--database-url` / `DATABASE_URL`), shared by many nodes.
    Postgres {
        /// `postgres://user@host:port/db` or key=value form.
        url: String,
    },
}

impl StoreConfig {
    /// The CLI rule: a database URL selects PostgreSQL, otherwise the embedded file in
    /// `data_dir`.
    pub fn from_cli(data_dir: &Path, database_url: Option<&str>) -> Self {
        match database_url.filter(|u| !u.trim().is_empty()) {
            Some(url) => StoreConfig::Postgres {
                url: url.to_owned(),
            },
            None => StoreConfig::Embedded {
                data_dir: data_dir.to_owned(),
            },
        }
    }
}

/// Tuning knobs with sensible defaults.
#[derive(Clone, Debug)]
pub struct StoreOptions {
    /// Pooled connections (PostgreSQL) or SQLite connections (readers run in parallel;
    /// writers take turns).
    pub pool_size: usize,
    /// Upper bound on how long a cached entry may be served without any invalidation.
    pub cache_ttl: Duration,
    /// Apply pending migrations on open (the default; `tessera migrate` does it explicitly).
    pub migrate: bool,
    /// Bytes the host and content caches may hold.
    pub cache_budget: CacheBudget,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            pool_size: 16,
            cache_ttl: Duration::from_secs(300),
            migrate: true,
            cache_budget: CacheBudget::default(),
        }
    }
}

/// The storage interface: tenants and domains, content, commerce state and visitor data,
/// on PostgreSQL or the embedded SQLite file, with caches for what rendering reads.
///
/// Cheap to clone (an `Arc`); clones share pools and caches. Every method that touches
/// tenant data takes a [`TenantId`] and scopes every statement by it.
///
/// Drop (or [`Store::close`]) it inside the Tokio runtime: the embedded backend closes its
/// SQLite connections on the runtime's blocking threads.
#[derive(Clone)]
pub struct Store {
    pub(crate) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    pub(crate) db: Db,
    pub(crate) caches: Arc<Caches>,
    listener: Option<tokio::task::JoinHandle<()>>,
    /// Embedded only: when the tenant table was last checked for writes by another process
    /// or handle, and what it looked like (sum of content versions, tenant count).
    embedded_check: tokio::sync::Mutex<(Option<Instant>, (i64, i64))>,
}

/// How often the embedded backend looks for writes made by another handle or process
/// (there is no NOTIFY in SQLite).
const EMBEDDED_RECHECK: Duration = Duration::from_millis(250);

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(h) = self.listener.take() {
            h.abort();
        }
    }
}

impl Store {
    /// Opens the store with default options (migrating on open).
    pub async fn open(config: &StoreConfig) -> Result<Store> {
        Store::open_with(config, StoreOptions::default()).await
    }

    /// Opens the store; on PostgreSQL also starts the invalidation listener.
    pub async fn open_with(config: &StoreConfig, options: StoreOptions) -> Result<Store> {
        let caches = Arc::new(Caches::with_budget(options.cache_ttl, options.cache_budget));
        let (db, listener) = match config {
            StoreConfig::Embedded { data_dir } => {
                std::fs::create_dir_all(data_dir)
                    .map_err(|e| StoreError::Io(format!("creating {}: {e}", data_dir.display())))?;
                (
                    Db::Lite(LiteDb::open(
                        &data_dir.join(EMBEDDED_FILE),
                        options.pool_size,
                    )?),
                    None,
                )
            }
            StoreConfig::Postgres { url } => {
                let pg = PgDb::open(url, options.pool_size)?;
                let cfg = pg.config.clone();
                let db = Db::Pg(Box::new(pg));
                if options.migrate {
                    migrate::run(&db).await?;
                }
                let h = notify::spawn_listener(cfg, caches.clone()).await?;
                (db, Some(h))
            }
        };
        if options.migrate && db.backend() == Backend::Sqlite {
            migrate::run(&db).await?;
        }
        Ok(Store {
            inner: Arc::new(Inner {
                db,
                caches,
                listener,
                embedded_check: tokio::sync::Mutex::new((None, (0, 0))),
            }),
        })
    }

    /// Shuts the store down cleanly: on the embedded backend, checkpoints the WAL into the
    /// main file (so the data directory holds one file again) and closes the connections;
    /// on PostgreSQL, closes the pool and stops the invalidation listener. Other clones of
    /// this handle fail afterwards.
    pub async fn close(self) -> Result<()> {
        if self.backend() == Backend::Sqlite {
            let mut tx = self.read().await?;
            tx.query("PRAGMA wal_checkpoint(TRUNCATE)", params![])
                .await?;
        }
        match &self.inner.db {
            Db::Pg(pg) => pg.pool.close(),
            Db::Lite(lite) => lite.pool.close(),
        }
        if let Some(h) = &self.inner.listener {
            h.abort();
        }
        Ok(())
    }

    /// Applies pending migrations (what `tessera migrate` runs). Idempotent.
    pub async fn migrate(&self) -> Result<MigrationReport> {
        migrate::run(&self.inner.db).await
    }

    /// Which backend this store uses.
    pub fn backend(&self) -> Backend {
        self.inner.db.backend()
    }

    /// Embedded backend: drops the caches if another handle or process has written since the
    /// last look (checked at most every 250 ms with one small query). PostgreSQL learns of
    /// writes through LISTEN/NOTIFY instead, so this is a no-op there.
    pub(crate) async fn revalidate_caches(&self) -> Result<()> {
        if self.backend() != Backend::Sqlite {
            return Ok(());
        }
        let Ok(mut check) = self.inner.embedded_check.try_lock() else {
            return Ok(()); // another task is checking right now
        };
        if check.0.is_some_and(|at| at.elapsed() < EMBEDDED_RECHECK) {
            return Ok(());
        }
        let mut tx = self.read().await?;
        let row = tx
            .query_one(
                "SELECT COALESCE(SUM(content_version), 0), COUNT(*) FROM tenant",
                params![],
            )
            .await?;
        let seen = (row.i64(0)?, row.i64(1)?);
        if check.0.is_some() && seen != check.1 {
            self.inner.caches.flush();
        }
        *check = (Some(Instant::now()), seen);
        Ok(())
    }

    pub(crate) async fn read(&self) -> Result<Tx> {
        self.inner.db.begin(Mode::Auto).await
    }

    pub(crate) async fn snapshot(&self) -> Result<Tx> {
        self.inner.db.begin(Mode::Snapshot).await
    }

    pub(crate) async fn write(&self) -> Result<Tx> {
        self.inner.db.begin(Mode::Write).await
    }

    /// Commits a write that changed `tenant`: bumps its content version and (PostgreSQL)
    /// notifies other nodes in the same transaction, then drops this node's stale entries.
    pub(crate) async fn commit_change(
        &self,
        mut tx: Tx,
        tenant: TenantId,
        change: Change,
    ) -> Result<i64> {
        let row = tx
            .query_opt(
                "UPDATE tenant SET content_version = content_version + 1 WHERE id = $1 RETURNING content_version",
                params![tenant],
            )
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("tenant {tenant}")))?;
        let version = row.i64(0)?;
        if tx.backend() == Backend::Postgres {
            let payload = format!("{tenant}:{}:{version}", change.as_str());
            tx.query(
                "SELECT pg_notify($1, $2)",
                params![notify::CHANNEL, payload],
            )
            .await?;
        }
        tx.commit().await?;
        self.inner.caches.changed(tenant, change, version).await;
        Ok(version)
    }
}
