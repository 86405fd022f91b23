//! Each tenant's signing secret: 32 random bytes, made on first use and kept in the
//! database so that every node signs and checks with the same key (cart cookies, crumbs,
//! cart tokens, order and download links). Cached per node; it never changes.

use std::sync::Arc;

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, now_ms};
use crate::params;
use crate::store::Store;

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
    /// The tenant's signing secret (made on first use).
    pub async fn tenant_secret(&self, tenant: TenantId) -> Result<Arc<[u8; 32]>> {
        if let Some(s) = self.inner.caches.secrets.get(&tenant) {
            return Ok(s);
        }
        let read = "SELECT secret FROM tenant_secret WHERE tenant_id = $1";
        let mut tx = self.read().await?;
        let mut row = tx.query_opt(read, params![tenant]).await?;
        drop(tx);
        if row.is_none() {
            let mut fresh = [0u8; 32];
            getrandom::fill(&mut fresh)
                .map_err(|e| StoreError::Io(format!("random source: {e}")))?;
            let hex = hex::encode(fresh);
            let mut tx = self.write().await?;
            // Another node may have made one meanwhile: keep whichever was first.
            tx.execute(
                "INSERT INTO tenant_secret (tenant_id, secret, created_ms) VALUES ($1, $2, $3) ON CONFLICT (tenant_id) DO NOTHING",
                params![tenant, hex, now_ms()],
            )
            .await?;
            row = tx.query_opt(read, params![tenant]).await?;
            tx.commit().await?;
        }
        let row = row.ok_or_else(|| StoreError::NotFound(format!("tenant {tenant}")))?;
        let secret = Arc::new(parse(&row.text(0)?)?);
        self.inner.caches.secrets.insert(tenant, secret.clone());
        Ok(secret)
    }
}
