//! The owner API's tokens (migration 9): created by `tessera token create`, kept as their
//! SHA-256 only, revocable. Roles and what they may do are the API's business; here a role
//! is its number.

use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::Row;
use crate::store::Store;

/// One token of a site, as the owner lists it (never the token itself).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiToken {
    /// The token's id (what `tessera token revoke` takes), not the token.
    pub id: String,
    /// SPEC.md §3's role number.
    pub role: i64,
    /// What the owner called it (may be empty).
    pub name: String,
    /// When it was made, epoch ms.
    pub created_ms: i64,
    /// When it was revoked, if it was.
    pub revoked_ms: Option<i64>,
}

const COLUMNS: &str = "id, role, name, created_ms, revoked_ms";

fn token_from_row(r: &Row) -> Result<ApiToken> {
    Ok(ApiToken {
        id: r.text(0)?,
        role: r.i64(1)?,
        name: r.text(2)?,
        created_ms: r.i64(3)?,
        revoked_ms: r.opt_i64(4)?,
    })
}

impl Store {
    /// Stores a new token (`token_hash`: the SHA-256 of the token, hex) with `role`.
    pub async fn create_api_token(
        &self,
        tenant: TenantId,
        role: i64,
        name: &str,
        token_hash: &str,
    ) -> Result<ApiToken> {
        let token = ApiToken {
            id: new_id(),
            role,
            name: name.to_owned(),
            created_ms: now_ms(),
            revoked_ms: None,
        };
        let mut tx = self.write().await?;
        tx.execute(
            "INSERT INTO api_token (tenant_id, id, token_hash, role, name, created_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            params![
                tenant,
                token.id.as_str(),
                token_hash,
                role,
                name,
                token.created_ms
            ],
        )
        .await?;
        tx.commit().await?;
        Ok(token)
    }

    /// The site's tokens, newest first (revoked ones too).
    pub async fn api_tokens(&self, tenant: TenantId) -> Result<Vec<ApiToken>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                &format!("SELECT {COLUMNS} FROM api_token WHERE tenant_id = $1 ORDER BY created_ms DESC, id"),
                params![tenant],
            )
            .await?;
        tx.commit().await?;
        rows.iter().map(token_from_row).collect()
    }

    /// The site's live (not revoked) token with this digest.
    pub async fn api_token_by_hash(
        &self,
        tenant: TenantId,
        token_hash: &str,
    ) -> Result<Option<ApiToken>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!(
                    "SELECT {COLUMNS} FROM api_token \
                     WHERE tenant_id = $1 AND token_hash = $2 AND revoked_ms IS NULL"
                ),
                params![tenant, token_hash],
            )
            .await?;
        tx.commit().await?;
        row.as_ref().map(token_from_row).transpose()
    }

    /// Revokes a token of this site at once; `NotFound` for another site's or an unknown
    /// id. Revoking twice keeps the first time.
    pub async fn revoke_api_token(&self, tenant: TenantId, id: &str) -> Result<ApiToken> {
        let mut tx = self.write().await?;
        tx.execute(
            "UPDATE api_token SET revoked_ms = $3 \
             WHERE tenant_id = $1 AND id = $2 AND revoked_ms IS NULL",
            params![tenant, id, now_ms()],
        )
        .await?;
        let row = tx
            .query_opt(
                &format!("SELECT {COLUMNS} FROM api_token WHERE tenant_id = $1 AND id = $2"),
                params![tenant, id],
            )
            .await?;
        let Some(row) = row else {
            return Err(StoreError::NotFound(format!("token {id}")));
        };
        let token = token_from_row(&row)?;
        tx.commit().await?;
        Ok(token)
    }
}
