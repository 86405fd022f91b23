//! What the library's own unit tests share: a store in a fresh directory with a fixture site
//! imported (the HTTP suites in `tests/it` start the real binary instead).

use std::path::{Path, PathBuf};

use tenants::{Store, TenantId};

/// An embedded store in a directory of its own, with one fixture site imported.
pub struct EmbeddedSite {
    pub store: Store,
    /// The fixture site's tenant.
    pub tenant: TenantId,
    /// The test's directory: the store is in `data/` under it, the rest is the test's.
    pub dir: PathBuf,
}

impl EmbeddedSite {
    /// `fixtures/<fixture>` imported into an embedded store under the temp directory, in a
    /// directory named for `test` and this process (emptied first).
    pub async fn open(fixture: &str, test: &str) -> EmbeddedSite {
        let dir = std::env::temp_dir().join(format!("tessera-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&tenants::StoreConfig::Embedded {
            data_dir: dir.join("data"),
        })
        .await
        .unwrap();
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(fixture);
        tenants::import::import_dir(&store, &folder, &mut |_| {})
            .await
            .unwrap();
        let tenant = store
            .tenant_by_identifier(fixture)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{fixture} is imported"))
            .id;
        EmbeddedSite { store, tenant, dir }
    }

    /// Closes the store and removes the directory.
    pub async fn close(self) {
        self.store.close().await.unwrap();
        let _ = std::fs::remove_dir_all(self.dir);
    }
}
