//! Site users (visitor accounts) and their sessions. Password hashing belongs to the API
//! layer; the store keeps the hash string it is given. A session's token is a bearer
//! secret (the `tessera-member` cookie), so the store keeps only its SHA-256 (migration
//! 13), like the owner API's tokens: a copy of the table cannot sign anyone in.

use std::hash::{BuildHasher, Hasher};

use serde::{Deserialize, Serialize};

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms, secret_digest};
use crate::params;
use crate::sql::Row;
use crate::store::Store;

/// A site user account.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteUser {
    /// 24-hex id.
    pub id: String,
    /// Lower-cased email, unique per tenant.
    pub email: String,
    /// Shown name.
    pub display_name: String,
    /// Password hash (never sent to clients).
    #[serde(skip_serializing)]
    pub password_hash: String,
    /// Epoch ms.
    pub created_ms: i64,
    /// The language the member chose (`POST /api/site-users/account/locale`), if any.
    #[serde(default)]
    pub locale: Option<String>,
    /// When they confirmed their email (epoch ms); `None`: a sign-up waiting for its link,
    /// who cannot sign in yet.
    #[serde(default)]
    pub verified_ms: Option<i64>,
}

/// A signed-in session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteSession {
    /// The session cookie value: made by [`Store::create_session`], and the one the caller
    /// presented to [`Store::session`]. Never stored (the store keeps its SHA-256).
    pub token: String,
    /// The user.
    pub user_id: String,
    /// SPEC: "xsrfToken, sent in an XSRF header on later calls".
    pub xsrf_token: String,
    /// Epoch ms.
    pub created_ms: i64,
    /// Epoch ms after which the session is void.
    pub expires_ms: i64,
}

/// 256 bits from std's randomly keyed SipHash (keys from the OS), hex-encoded.
pub(crate) fn secret_token() -> String {
    let mut out = String::with_capacity(64);
    for i in 0..4u64 {
        let mut h = std::hash::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write(new_id().as_bytes());
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}

pub(crate) const USER_COLUMNS: &str =
    "u.id, u.email, u.display_name, u.password_hash, u.created_ms, u.locale, u.verified_ms";

/// The user whose [`USER_COLUMNS`] start at column `at` of `r`.
pub(crate) fn user_from_row(r: &Row, at: usize) -> Result<SiteUser> {
    Ok(SiteUser {
        id: r.text(at)?,
        email: r.text(at + 1)?,
        display_name: r.text(at + 2)?,
        password_hash: r.text(at + 3)?,
        created_ms: r.i64(at + 4)?,
        locale: r.opt_text(at + 5)?,
        verified_ms: r.opt_i64(at + 6)?,
    })
}

/// Writes a new site user; `Conflict` if the email is taken on this site.
pub(crate) async fn insert_site_user_in(
    tx: &mut crate::sql::Tx,
    tenant: TenantId,
    user: &SiteUser,
) -> Result<()> {
    tx.execute(
        "INSERT INTO site_user (tenant_id, id, email, password_hash, display_name, created_ms, locale, verified_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        params![tenant, user.id.as_str(), user.email.as_str(), user.password_hash.as_str(), user.display_name.as_str(), user.created_ms, user.locale.as_deref(), user.verified_ms],
    )
    .await
    .map_err(|e| match e {
        StoreError::Conflict(_) => StoreError::Conflict(format!("{} already has an account", user.email)),
        e => e,
    })?;
    Ok(())
}

/// `NotFound` unless `user_id` is a site user of this tenant.
pub(crate) async fn user_here_in(
    tx: &mut crate::sql::Tx,
    tenant: TenantId,
    user_id: &str,
) -> Result<()> {
    let found = tx
        .query_opt(
            "SELECT 1 FROM site_user WHERE tenant_id = $1 AND id = $2",
            params![tenant, user_id],
        )
        .await?;
    match found {
        Some(_) => Ok(()),
        None => Err(StoreError::NotFound(format!("site user {user_id}"))),
    }
}

impl Store {
    /// Creates a confirmed site user (an owner's or a test's doing; visitors sign up
    /// through [`Store::sign_up`]); `Conflict` if the email is taken on this site.
    pub async fn create_site_user(
        &self,
        tenant: TenantId,
        email: &str,
        password_hash: &str,
        display_name: &str,
    ) -> Result<SiteUser> {
        let email = email.trim().to_lowercase();
        if crate::email_address::deliverable(&email).is_none() {
            return Err(StoreError::Invalid(format!(
                "{email:?} is not an email address"
            )));
        }
        let user = SiteUser {
            id: new_id(),
            email,
            display_name: display_name.to_owned(),
            password_hash: password_hash.to_owned(),
            created_ms: now_ms(),
            locale: None,
            verified_ms: Some(now_ms()),
        };
        let mut tx = self.write().await?;
        insert_site_user_in(&mut tx, tenant, &user).await?;
        tx.commit().await?;
        Ok(user)
    }

    /// The user with this email (any case), for sign-in.
    pub async fn site_user_by_email(
        &self,
        tenant: TenantId,
        email: &str,
    ) -> Result<Option<SiteUser>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!(
                    "SELECT {USER_COLUMNS} FROM site_user u WHERE u.tenant_id = $1 AND u.email = $2"
                ),
                params![tenant, email.trim().to_lowercase()],
            )
            .await?;
        row.as_ref().map(|r| user_from_row(r, 0)).transpose()
    }

    /// Opens a session for a user of this tenant, valid for `ttl_ms`.
    pub async fn create_session(
        &self,
        tenant: TenantId,
        user_id: &str,
        ttl_ms: i64,
    ) -> Result<SiteSession> {
        let now = now_ms();
        let s = SiteSession {
            token: secret_token(),
            user_id: user_id.to_owned(),
            xsrf_token: secret_token(),
            created_ms: now,
            expires_ms: now + ttl_ms,
        };
        let mut tx = self.write().await?;
        user_here_in(&mut tx, tenant, user_id).await?;
        tx.execute(
            "INSERT INTO site_session (tenant_id, token_hash, user_id, xsrf_token, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6)",
            params![tenant, secret_digest(&s.token), user_id, s.xsrf_token.as_str(), now, s.expires_ms],
        )
        .await?;
        tx.commit().await?;
        Ok(s)
    }

    /// The live session with this token and its user (`None` if unknown or expired).
    pub async fn session(
        &self,
        tenant: TenantId,
        token: &str,
    ) -> Result<Option<(SiteSession, SiteUser)>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!(
                    "SELECT s.user_id, s.xsrf_token, s.created_ms, s.expires_ms, {USER_COLUMNS} \
                 FROM site_session s JOIN site_user u ON u.tenant_id = s.tenant_id AND u.id = s.user_id \
                 WHERE s.tenant_id = $1 AND s.token_hash = $2 AND s.expires_ms > $3"
                ),
                params![tenant, secret_digest(token), now_ms()],
            )
            .await?;
        let Some(r) = row else { return Ok(None) };
        let session = SiteSession {
            token: token.to_owned(),
            user_id: r.text(0)?,
            xsrf_token: r.text(1)?,
            created_ms: r.i64(2)?,
            expires_ms: r.i64(3)?,
        };
        Ok(Some((session, user_from_row(&r, 4)?)))
    }

    /// Ends the session with this token (sign-out). Returns whether it existed.
    pub async fn delete_session(&self, tenant: TenantId, token: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "DELETE FROM site_session WHERE tenant_id = $1 AND token_hash = $2",
                params![tenant, secret_digest(token)],
            )
            .await?;
        tx.commit().await?;
        Ok(n > 0)
    }

    /// Sets the language a member chose. `NotFound` for no such user.
    pub async fn set_site_user_locale(
        &self,
        tenant: TenantId,
        user_id: &str,
        locale: &str,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "UPDATE site_user SET locale = $3 WHERE tenant_id = $1 AND id = $2",
                params![tenant, user_id, locale],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("site user {user_id}")));
        }
        tx.commit().await?;
        Ok(())
    }

    /// Removes sessions that have expired, site by site; returns how many.
    pub async fn sweep_expired_sessions(&self) -> Result<u64> {
        self.sweep_expired("site_session", "expires_ms", now_ms())
            .await
    }
}
