//! Files an owner uploads (migration 10). The API decides what may be uploaded; here they
//! are kept and found, per site.

use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::Row;
use crate::store::Store;

/// An uploaded file, without its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Asset {
    /// Its id (part of its URL).
    pub id: String,
    /// The name it was uploaded with.
    pub file_name: String,
    /// What it is (`image/png` …), as the API found from its bytes.
    pub content_type: String,
    /// Bytes.
    pub size: i64,
    /// When it was uploaded, epoch ms.
    pub created_ms: i64,
}

const COLUMNS: &str = "id, file_name, content_type, size, created_ms";

fn asset_from_row(r: &Row) -> Result<Asset> {
    Ok(Asset {
        id: r.text(0)?,
        file_name: r.text(1)?,
        content_type: r.text(2)?,
        size: r.i64(3)?,
        created_ms: r.i64(4)?,
    })
}

impl Store {
    /// Keeps an uploaded file.
    pub async fn put_asset(
        &self,
        tenant: TenantId,
        file_name: &str,
        content_type: &str,
        content: Vec<u8>,
    ) -> Result<Asset> {
        let asset = Asset {
            id: new_id(),
            file_name: file_name.to_owned(),
            content_type: content_type.to_owned(),
            size: content.len() as i64,
            created_ms: now_ms(),
        };
        let mut tx = self.write().await?;
        tx.execute(
            "INSERT INTO site_asset (tenant_id, id, file_name, content_type, size, content, created_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            params![
                tenant,
                asset.id.as_str(),
                file_name,
                content_type,
                asset.size,
                content,
                asset.created_ms
            ],
        )
        .await?;
        tx.commit().await?;
        Ok(asset)
    }

    /// The site's files, newest first.
    pub async fn assets(&self, tenant: TenantId) -> Result<Vec<Asset>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                &format!("SELECT {COLUMNS} FROM site_asset WHERE tenant_id = $1 ORDER BY created_ms DESC, id"),
                params![tenant],
            )
            .await?;
        tx.commit().await?;
        rows.iter().map(asset_from_row).collect()
    }

    /// One file of the site with its bytes.
    pub async fn asset(&self, tenant: TenantId, id: &str) -> Result<Option<(Asset, Vec<u8>)>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!(
                    "SELECT {COLUMNS}, content FROM site_asset WHERE tenant_id = $1 AND id = $2"
                ),
                params![tenant, id],
            )
            .await?;
        tx.commit().await?;
        row.map(|r| Ok((asset_from_row(&r)?, r.bytes(5)?)))
            .transpose()
    }

    /// Deletes a file of the site; `NotFound` for another site's or an unknown id.
    pub async fn delete_asset(&self, tenant: TenantId, id: &str) -> Result<()> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "DELETE FROM site_asset WHERE tenant_id = $1 AND id = $2",
                params![tenant, id],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("asset {id}")));
        }
        tx.commit().await
    }
}
