//! Each tenant's signing secret: 32 random bytes, made with the tenant (or, for a tenant
//! stored before that, on first use) and kept in the database so that every node signs and
//! checks with the same key (cart cookies, crumbs, cart tokens, order and download links).
//! Cached per node; it never changes. A site's content load reads it in the same batch
//! (`repo/content.rs`), so a cold first page costs no trip of its own for it, and no write.

use std::sync::Arc;

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, now_ms};
use crate::params;
use crate::sql::Tx;
use crate::store::Store;

/// The statement that reads a tenant's secret (one row, or none).
pub(crate) const READ: &str = "SELECT secret FROM tenant_secret WHERE tenant_id = $1";

/// 32 fresh random bytes as 64 hex digits.
fn fresh_hex() -> Result<String> {
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh).map_err(|e| StoreError::Io(format!("random source: {e}")))?;
    Ok(hex::encode(fresh))
}

/// Makes `tenant`'s secret in `tx` (a new tenant's: see [`crate::repo::tenants`]). One
/// made meanwhile (another node's first use) is kept.
pub(crate) async fn insert_in(tx: &mut Tx, tenant: TenantId) -> Result<()> {
    tx.execute(
        "INSERT INTO tenant_secret (tenant_id, secret, created_ms) VALUES ($1, $2, $3) ON CONFLICT (tenant_id) DO NOTHING",
        params![tenant, fresh_hex()?, now_ms()],
    )
    .await?;
    Ok(())
}

impl Store {
    /// Keeps a secret read with a tenant's content (a row of [`READ`]) in the node's cache.
    pub(crate) fn remember_secret(&self, tenant: TenantId, hex: &str) -> Result<()> {
        if self.inner.caches.secrets.get(&tenant).is_none() {
            self.inner
                .caches
                .secrets
                .insert(tenant, Arc::new(parse(hex)?));
        }
        Ok(())
    }
}

fn parse(hex: &str) -> Result<[u8; 32]> {
    let mut out = [0u8; 32];
    if hex.len() != 64 {
        return Err(StoreError::decode("a tenant secret is not 64 hex digits"));
    }
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)
            .map_err(|_| StoreError::decode("a tenant secret is not hex"))?;
    }
    Ok(out)
}

impl Store {
    /// The tenant's signing secret (made now if it has none: a tenant stored before
    /// secrets were made with the tenant).
    pub async fn tenant_secret(&self, tenant: TenantId) -> Result<Arc<[u8; 32]>> {
        if let Some(s) = self.inner.caches.secrets.get(&tenant) {
            return Ok(s);
        }
        let mut tx = self.read().await?;
        let mut row = tx.query_opt(READ, params![tenant]).await?;
        drop(tx);
        if row.is_none() {
            let mut tx = self.write().await?;
            // Another node may have made one meanwhile: keep whichever was first.
            insert_in(&mut tx, tenant).await?;
            row = tx.query_opt(READ, params![tenant]).await?;
            tx.commit().await?;
        }
        let row = row.ok_or_else(|| StoreError::NotFound(format!("tenant {tenant}")))?;
        let secret = Arc::new(parse(&row.text(0)?)?);
        self.inner.caches.secrets.insert(tenant, secret.clone());
        Ok(secret)
    }
}

#[cfg(test)]
mod tests {
    use crate::model::WebsiteStatus;
    use crate::params;
    use crate::store::{Store, StoreConfig};

    /// A new tenant has its secret from the start (no page view writes one), and loading
    /// its content on another node brings that node the same secret.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_tenant_is_made_with_its_secret_and_its_content_brings_it() {
        let dir = std::env::temp_dir().join(format!("tessera-secret-{}", crate::ids::new_id()));
        let config = StoreConfig::Embedded {
            data_dir: dir.clone(),
        };
        let store = Store::open(&config).await.unwrap();
        let t = store
            .create_tenant("secret-test", "Secret", WebsiteStatus::Trial)
            .await
            .unwrap()
            .id;
        let mut tx = store.read().await.unwrap();
        let stored = tx.query_opt(super::READ, params![t]).await.unwrap();
        drop(tx);
        let stored = stored.expect("made with the tenant").text(0).unwrap();
        assert_eq!(stored.len(), 64);

        let other = Store::open(&config).await.unwrap();
        assert!(other.inner.caches.secrets.get(&t).is_none());
        other.site_content(t).await.unwrap();
        let kept = other
            .inner
            .caches
            .secrets
            .get(&t)
            .expect("read with the content");
        assert_eq!(*kept, super::parse(&stored).unwrap());
        assert_eq!(store.tenant_secret(t).await.unwrap(), kept);
        drop((store, other));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
