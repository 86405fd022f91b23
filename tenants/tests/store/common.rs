//! Test environments: a fresh store on each backend, and the macro that runs one test
//! function on both.

use std::path::PathBuf;

use tenants::testing::PgServer;
use tenants::{Backend, Store, StoreConfig, TenantId, WebsiteStatus};

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "tessera-test-{tag}-{}-{}",
            std::process::id(),
            tenants::new_id()
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A store on a fresh, empty, migrated database.
pub struct Env {
    pub store: Store,
    pub config: StoreConfig,
    _dir: Option<TempDir>,
}

impl Env {
    pub async fn sqlite() -> Env {
        let dir = TempDir::new("sqlite");
        let config = StoreConfig::Embedded {
            data_dir: dir.0.clone(),
        };
        let store = Store::open(&config).await.expect("open embedded store");
        assert_eq!(store.backend(), Backend::Sqlite);
        Env {
            store,
            config,
            _dir: Some(dir),
        }
    }

    pub async fn postgres() -> Env {
        let url = PgServer::shared().create_database();
        let config = StoreConfig::Postgres { url };
        let store = Store::open(&config).await.expect("open postgres store");
        assert_eq!(store.backend(), Backend::Postgres);
        Env {
            store,
            config,
            _dir: None,
        }
    }

    /// A second, independent store handle on the same database (another "node").
    pub async fn another_node(&self) -> Store {
        Store::open(&self.config).await.expect("open second handle")
    }

    /// A tenant with one domain `<identifier>.example`.
    pub async fn tenant(&self, identifier: &str) -> TenantId {
        let t = self
            .store
            .create_tenant(
                identifier,
                &format!("Site {identifier}"),
                WebsiteStatus::Paid,
            )
            .await
            .unwrap();
        self.store
            .add_domain(t.id, &format!("{identifier}.example"), true)
            .await
            .unwrap();
        t.id
    }
}

/// Declares `sqlite::<name>` and `postgres::<name>` tests for each async fn
/// `<name>(env: Env)` in the calling module.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    super::$name($crate::common::Env::sqlite().await).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    super::$name($crate::common::Env::postgres().await).await
                }
            )*
        }
    };
}
