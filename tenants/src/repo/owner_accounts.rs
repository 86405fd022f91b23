//! The owner app's accounts, sessions and one-time links (migration 15).
//!
//! An owner account is a person (an email, unique per site) with a role: SPEC.md §3's
//! number, as the API tokens have (what each role may do is the API's business). Its
//! password is an Argon2id PHC string the API hashed, `None` until it is set through a
//! one-time link. Sessions and links are bearer secrets: the store keeps only their
//! SHA-256 ([`secret_digest`]), so a copy of the tables signs no one in.
//!
//! Sessions end on sign-out, when their account's password changes (but the session that
//! changed it), its role changes or it is removed, and after their idle time or their
//! maximum age ([`SessionLife`]). A site always keeps one admin account once it has one:
//! removing or demoting the last is refused (`Conflict`).

use serde::Serialize;

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms, secret_digest};
use crate::params;
use crate::repo::outbox::{Email, enqueue_in};
use crate::repo::site_users::secret_token;
use crate::sql::{Row, Tx};
use crate::store::Store;

/// SPEC.md §3's admin role.
pub const ADMIN_ROLE: i64 = 1;

/// How often a session's last use is written: a session used again within this time
/// slides at the next use after it (so reads do not each cost a write).
const TOUCH_MS: i64 = 60_000;

/// An owner of a site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerAccount {
    /// 24-hex id.
    pub id: String,
    /// Lower-cased, unique per site.
    pub email: String,
    /// SPEC.md §3's role number.
    pub role: i64,
    /// The Argon2id PHC string; `None` until the owner sets a password.
    #[serde(skip)]
    pub password_hash: Option<String>,
    /// Epoch ms.
    pub created_ms: i64,
    /// Epoch ms of the last change (password, role).
    pub updated_ms: i64,
}

impl OwnerAccount {
    /// Whether a password is set (an account without one cannot sign in yet).
    pub fn has_password(&self) -> bool {
        self.password_hash.is_some()
    }
}

/// How long owner sessions last: `idle_ms` from their last use, and never more than
/// `max_ms` from sign-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionLife {
    /// From the last use.
    pub idle_ms: i64,
    /// From sign-in.
    pub max_ms: i64,
}

/// A signed-in owner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerSession {
    /// The cookie's value: made by [`Store::create_owner_session`], or the one presented to
    /// [`Store::owner_session`]. Never stored.
    pub token: String,
    /// The account signed in.
    pub account_id: String,
    /// What writes carry in `X-CSRF-Token`.
    pub csrf: String,
    /// Sign-in, epoch ms.
    pub created_ms: i64,
    /// Last use (written at most once a minute).
    pub last_seen_ms: i64,
    /// When it ends unless used before.
    pub expires_ms: i64,
}

/// What a one-time link is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkPurpose {
    /// A new account's first password (`tessera owner add` without a password).
    SetPassword,
    /// A forgotten password.
    Reset,
    /// An invitation: the account is made when the link is used.
    Invite,
}

impl LinkPurpose {
    /// As stored (never rename).
    pub fn as_str(self) -> &'static str {
        match self {
            LinkPurpose::SetPassword => "set-password",
            LinkPurpose::Reset => "reset",
            LinkPurpose::Invite => "invite",
        }
    }

    fn parse(s: &str) -> Result<LinkPurpose> {
        match s {
            "set-password" => Ok(LinkPurpose::SetPassword),
            "reset" => Ok(LinkPurpose::Reset),
            "invite" => Ok(LinkPurpose::Invite),
            other => Err(StoreError::Invalid(format!("link purpose {other:?}"))),
        }
    }
}

/// A one-time link to make.
#[derive(Clone, Debug)]
pub struct NewOwnerLink {
    /// What it is for.
    pub purpose: LinkPurpose,
    /// The SHA-256 (hex) of the token the link carries.
    pub token_hash: String,
    /// For an invite: the address and role of the account to make. For the others, the
    /// account's address (its account is looked up by it).
    pub email: String,
    /// For an invite, the role it grants (ignored otherwise).
    pub role: i64,
    /// How long it works.
    pub ttl_ms: i64,
}

/// An unused invitation, as the Access screen lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerInvite {
    /// Who is invited.
    pub email: String,
    /// The role their account will have.
    pub role: i64,
    /// When it was sent, epoch ms.
    pub created_ms: i64,
    /// When its link stops working.
    pub expires_ms: i64,
}

/// A link used: the account (made, for an invite) with its new password, signed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkUsed {
    /// What the link was for.
    pub purpose: LinkPurpose,
    /// The account, with its new password.
    pub account: OwnerAccount,
    /// Its new session.
    pub session: OwnerSession,
}

const ACCOUNT_COLUMNS: &str = "a.id, a.email, a.role, a.password_hash, a.created_ms, a.updated_ms";

fn account_from_row(r: &Row, at: usize) -> Result<OwnerAccount> {
    Ok(OwnerAccount {
        id: r.text(at)?,
        email: r.text(at + 1)?,
        role: r.i64(at + 2)?,
        password_hash: r.opt_text(at + 3)?,
        created_ms: r.i64(at + 4)?,
        updated_ms: r.i64(at + 5)?,
    })
}

/// The address as accounts keep it: trimmed, lower-cased, deliverable.
fn owner_email(raw: &str) -> Result<String> {
    crate::email_address::deliverable(raw)
        .map(str::to_lowercase)
        .ok_or_else(|| StoreError::Invalid(format!("{:?} is not an email address", raw.trim())))
}

async fn account_in(tx: &mut Tx, tenant: TenantId, id: &str) -> Result<Option<OwnerAccount>> {
    let row = tx
        .query_opt(
            &format!(
                "SELECT {ACCOUNT_COLUMNS} FROM owner_account a WHERE a.tenant_id = $1 AND a.id = $2"
            ),
            params![tenant, id],
        )
        .await?;
    row.as_ref().map(|r| account_from_row(r, 0)).transpose()
}

async fn account_by_email_in(
    tx: &mut Tx,
    tenant: TenantId,
    email: &str,
) -> Result<Option<OwnerAccount>> {
    let row = tx
        .query_opt(
            &format!(
                "SELECT {ACCOUNT_COLUMNS} FROM owner_account a WHERE a.tenant_id = $1 AND a.email = $2"
            ),
            params![tenant, email],
        )
        .await?;
    row.as_ref().map(|r| account_from_row(r, 0)).transpose()
}

async fn insert_account_in(
    tx: &mut Tx,
    tenant: TenantId,
    email: &str,
    role: i64,
    password_hash: Option<&str>,
) -> Result<OwnerAccount> {
    let now = now_ms();
    let account = OwnerAccount {
        id: new_id(),
        email: email.to_owned(),
        role,
        password_hash: password_hash.map(str::to_owned),
        created_ms: now,
        updated_ms: now,
    };
    tx.execute(
        "INSERT INTO owner_account (tenant_id, id, email, password_hash, role, created_ms, updated_ms) \
         VALUES ($1, $2, $3, $4, $5, $6, $6)",
        params![
            tenant,
            account.id.as_str(),
            email,
            password_hash,
            role,
            now
        ],
    )
    .await
    .map_err(|e| match e {
        StoreError::Conflict(_) => {
            StoreError::Conflict(format!("{email} already has an owner account"))
        }
        e => e,
    })?;
    Ok(account)
}

/// `Conflict` when `account` is the site's last admin.
async fn keep_an_admin_in(tx: &mut Tx, tenant: TenantId, account: &OwnerAccount) -> Result<()> {
    if account.role != ADMIN_ROLE {
        return Ok(());
    }
    let others = tx
        .query_opt(
            "SELECT COUNT(*) FROM owner_account WHERE tenant_id = $1 AND role = $2 AND id <> $3",
            params![tenant, ADMIN_ROLE, account.id.as_str()],
        )
        .await?
        .map(|r| r.i64(0))
        .transpose()?
        .unwrap_or(0);
    if others == 0 {
        return Err(StoreError::Conflict(format!(
            "{} is the site's last admin",
            account.email
        )));
    }
    Ok(())
}

async fn insert_session_in(
    tx: &mut Tx,
    tenant: TenantId,
    account_id: &str,
    life: SessionLife,
) -> Result<OwnerSession> {
    let now = now_ms();
    let s = OwnerSession {
        token: secret_token(),
        account_id: account_id.to_owned(),
        csrf: secret_token(),
        created_ms: now,
        last_seen_ms: now,
        expires_ms: now + life.idle_ms.min(life.max_ms),
    };
    tx.execute(
        "INSERT INTO owner_session (tenant_id, token_hash, account_id, csrf, created_ms, last_seen_ms, expires_ms) \
         VALUES ($1, $2, $3, $4, $5, $5, $6)",
        params![
            tenant,
            secret_digest(&s.token),
            account_id,
            s.csrf.as_str(),
            now,
            s.expires_ms
        ],
    )
    .await?;
    Ok(s)
}

impl Store {
    /// Makes an owner account (`password_hash` `None`: one that sets its password through a
    /// link). `Invalid` for an address mail cannot go to, `Conflict` if the site already has
    /// an account with this address.
    pub async fn create_owner_account(
        &self,
        tenant: TenantId,
        email: &str,
        role: i64,
        password_hash: Option<&str>,
    ) -> Result<OwnerAccount> {
        let email = owner_email(email)?;
        let mut tx = self.write().await?;
        let account = insert_account_in(&mut tx, tenant, &email, role, password_hash).await?;
        tx.commit().await?;
        Ok(account)
    }

    /// The site's owner accounts, by address.
    pub async fn owner_accounts(&self, tenant: TenantId) -> Result<Vec<OwnerAccount>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                &format!(
                    "SELECT {ACCOUNT_COLUMNS} FROM owner_account a WHERE a.tenant_id = $1 ORDER BY a.email"
                ),
                params![tenant],
            )
            .await?;
        tx.commit().await?;
        rows.iter().map(|r| account_from_row(r, 0)).collect()
    }

    /// The site's account with this id.
    pub async fn owner_account(&self, tenant: TenantId, id: &str) -> Result<Option<OwnerAccount>> {
        let mut tx = self.read().await?;
        let found = account_in(&mut tx, tenant, id).await?;
        tx.commit().await?;
        Ok(found)
    }

    /// The site's account with this address (any case), for signing in.
    pub async fn owner_account_by_email(
        &self,
        tenant: TenantId,
        email: &str,
    ) -> Result<Option<OwnerAccount>> {
        let mut tx = self.read().await?;
        let found = account_by_email_in(&mut tx, tenant, &email.trim().to_lowercase()).await?;
        tx.commit().await?;
        Ok(found)
    }

    /// Gives an account another role; its sessions end (it signs in again with the new
    /// role). `NotFound` for another site's or an unknown id; `Conflict` when it would
    /// leave the site without an admin.
    pub async fn set_owner_role(
        &self,
        tenant: TenantId,
        id: &str,
        role: i64,
    ) -> Result<OwnerAccount> {
        let mut tx = self.write().await?;
        let Some(mut account) = account_in(&mut tx, tenant, id).await? else {
            return Err(StoreError::NotFound(format!("owner account {id}")));
        };
        if account.role == role {
            return Ok(account);
        }
        keep_an_admin_in(&mut tx, tenant, &account).await?;
        account.role = role;
        account.updated_ms = now_ms();
        tx.execute(
            "UPDATE owner_account SET role = $3, updated_ms = $4 WHERE tenant_id = $1 AND id = $2",
            params![tenant, id, role, account.updated_ms],
        )
        .await?;
        tx.execute(
            "DELETE FROM owner_session WHERE tenant_id = $1 AND account_id = $2",
            params![tenant, id],
        )
        .await?;
        tx.commit().await?;
        Ok(account)
    }

    /// Removes an account with its sessions and links. `NotFound` for another site's or an
    /// unknown id; `Conflict` for the site's last admin.
    pub async fn remove_owner_account(&self, tenant: TenantId, id: &str) -> Result<OwnerAccount> {
        let mut tx = self.write().await?;
        let Some(account) = account_in(&mut tx, tenant, id).await? else {
            return Err(StoreError::NotFound(format!("owner account {id}")));
        };
        keep_an_admin_in(&mut tx, tenant, &account).await?;
        // Sessions and links go with it (ON DELETE CASCADE); links by address too, so a
        // reset asked for before does not outlive it.
        tx.execute(
            "DELETE FROM owner_link WHERE tenant_id = $1 AND email = $2 AND purpose <> $3",
            params![tenant, account.email.as_str(), LinkPurpose::Invite.as_str()],
        )
        .await?;
        tx.execute(
            "DELETE FROM owner_account WHERE tenant_id = $1 AND id = $2",
            params![tenant, id],
        )
        .await?;
        tx.commit().await?;
        Ok(account)
    }

    /// Sets an account's password (`password_hash`: the API's Argon2id PHC string). Every
    /// session of the account ends but `keep` (the token of the session that changed it).
    pub async fn set_owner_password(
        &self,
        tenant: TenantId,
        id: &str,
        password_hash: &str,
        keep: Option<&str>,
    ) -> Result<()> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "UPDATE owner_account SET password_hash = $3, updated_ms = $4 WHERE tenant_id = $1 AND id = $2",
                params![tenant, id, password_hash, now_ms()],
            )
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!("owner account {id}")));
        }
        let kept = keep.map(secret_digest).unwrap_or_default();
        tx.execute(
            "DELETE FROM owner_session WHERE tenant_id = $1 AND account_id = $2 AND token_hash <> $3",
            params![tenant, id, kept],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Signs an account of this site in. `NotFound` for another site's or an unknown id.
    pub async fn create_owner_session(
        &self,
        tenant: TenantId,
        account_id: &str,
        life: SessionLife,
    ) -> Result<OwnerSession> {
        let mut tx = self.write().await?;
        if account_in(&mut tx, tenant, account_id).await?.is_none() {
            return Err(StoreError::NotFound(format!("owner account {account_id}")));
        }
        let s = insert_session_in(&mut tx, tenant, account_id, life).await?;
        tx.commit().await?;
        Ok(s)
    }

    /// The live session of this site with this token, and its account (`None` if unknown,
    /// ended, idle too long or too old). Using it moves its idle end on (written at most
    /// once a minute), never past `life.max_ms` from sign-in.
    pub async fn owner_session(
        &self,
        tenant: TenantId,
        token: &str,
        life: SessionLife,
    ) -> Result<Option<(OwnerSession, OwnerAccount)>> {
        let now = now_ms();
        let digest = secret_digest(token);
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!(
                    "SELECT s.account_id, s.csrf, s.created_ms, s.last_seen_ms, s.expires_ms, {ACCOUNT_COLUMNS} \
                     FROM owner_session s JOIN owner_account a ON a.tenant_id = s.tenant_id AND a.id = s.account_id \
                     WHERE s.tenant_id = $1 AND s.token_hash = $2 AND s.expires_ms > $3 AND s.created_ms + $4 > $3"
                ),
                params![tenant, digest.as_str(), now, life.max_ms],
            )
            .await?;
        tx.commit().await?;
        let Some(r) = row else { return Ok(None) };
        let mut session = OwnerSession {
            token: token.to_owned(),
            account_id: r.text(0)?,
            csrf: r.text(1)?,
            created_ms: r.i64(2)?,
            last_seen_ms: r.i64(3)?,
            expires_ms: r.i64(4)?,
        };
        let account = account_from_row(&r, 5)?;
        if now - session.last_seen_ms >= TOUCH_MS {
            session.last_seen_ms = now;
            session.expires_ms = (now + life.idle_ms).min(session.created_ms + life.max_ms);
            let mut tx = self.write().await?;
            tx.execute(
                "UPDATE owner_session SET last_seen_ms = $3, expires_ms = $4 WHERE tenant_id = $1 AND token_hash = $2",
                params![tenant, digest.as_str(), now, session.expires_ms],
            )
            .await?;
            tx.commit().await?;
        }
        Ok(Some((session, account)))
    }

    /// Ends the session with this token (sign-out). Whether it existed.
    pub async fn delete_owner_session(&self, tenant: TenantId, token: &str) -> Result<bool> {
        let mut tx = self.write().await?;
        let n = tx
            .execute(
                "DELETE FROM owner_session WHERE tenant_id = $1 AND token_hash = $2",
                params![tenant, secret_digest(token)],
            )
            .await?;
        tx.commit().await?;
        Ok(n > 0)
    }

    /// Makes a one-time link, with its email (`email`, made from the account when there
    /// is one) put in the outbox in the same transaction. An earlier unused link of the
    /// same purpose for the same address stops working.
    ///
    /// For a set-password or reset link: `Ok(false)` when the site has no account with the
    /// address (nothing is stored or sent). For an invite: `Conflict` when it already has
    /// one. `Invalid` for an address mail cannot go to.
    pub async fn create_owner_link<F>(
        &self,
        tenant: TenantId,
        link: &NewOwnerLink,
        email: F,
    ) -> Result<bool>
    where
        F: FnOnce(Option<&OwnerAccount>, &str) -> Option<Email>,
    {
        let address = owner_email(&link.email)?;
        let now = now_ms();
        let mut tx = self.write().await?;
        let account = account_by_email_in(&mut tx, tenant, &address).await?;
        let (account_id, role) = match (link.purpose, &account) {
            (LinkPurpose::Invite, Some(_)) => {
                return Err(StoreError::Conflict(format!(
                    "{address} already has an owner account"
                )));
            }
            (LinkPurpose::Invite, None) => (None, link.role),
            (_, Some(a)) => (Some(a.id.clone()), a.role),
            (_, None) => return Ok(false),
        };
        tx.execute(
            "DELETE FROM owner_link WHERE tenant_id = $1 AND email = $2 AND purpose = $3 AND used_ms IS NULL",
            params![tenant, address.as_str(), link.purpose.as_str()],
        )
        .await?;
        tx.execute(
            "INSERT INTO owner_link (tenant_id, token_hash, purpose, account_id, email, role, created_ms, expires_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            params![
                tenant,
                link.token_hash.as_str(),
                link.purpose.as_str(),
                account_id.as_deref(),
                address.as_str(),
                role,
                now,
                now + link.ttl_ms
            ],
        )
        .await?;
        if let Some(mail) = email(account.as_ref(), &address) {
            enqueue_in(&mut tx, tenant, &mail).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// The site's invitations not used yet and not expired, newest first.
    pub async fn owner_invites(&self, tenant: TenantId) -> Result<Vec<OwnerInvite>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT email, role, created_ms, expires_ms FROM owner_link \
                 WHERE tenant_id = $1 AND purpose = $2 AND used_ms IS NULL AND expires_ms > $3 \
                 ORDER BY created_ms DESC, email",
                params![tenant, LinkPurpose::Invite.as_str(), now_ms()],
            )
            .await?;
        tx.commit().await?;
        rows.iter()
            .map(|r| {
                Ok(OwnerInvite {
                    email: r.text(0)?,
                    role: r.i64(1)?,
                    created_ms: r.i64(2)?,
                    expires_ms: r.i64(3)?,
                })
            })
            .collect()
    }

    /// What a live, unused link is for, and the address it is for (so the app can say
    /// whose password it sets). `None` for a spent, expired or unknown one.
    pub async fn owner_link(
        &self,
        tenant: TenantId,
        token_hash: &str,
    ) -> Result<Option<(LinkPurpose, String)>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                "SELECT purpose, email FROM owner_link \
                 WHERE tenant_id = $1 AND token_hash = $2 AND used_ms IS NULL AND expires_ms > $3",
                params![tenant, token_hash, now_ms()],
            )
            .await?;
        tx.commit().await?;
        row.map(|r| Ok((LinkPurpose::parse(&r.text(0)?)?, r.text(1)?)))
            .transpose()
    }

    /// Spends a link (`token_hash`: its token's SHA-256) with the password it sets: the
    /// account gets it (an invite makes the account), every other session of the account
    /// ends, and it is signed in with a new session, all in one transaction. `None` when
    /// the link is spent, expired, unknown or another site's; `Conflict` for an invite
    /// whose address got an account meanwhile.
    pub async fn use_owner_link(
        &self,
        tenant: TenantId,
        token_hash: &str,
        password_hash: &str,
        life: SessionLife,
    ) -> Result<Option<LinkUsed>> {
        let now = now_ms();
        let mut tx = self.write().await?;
        let row = tx
            .query_opt(
                "UPDATE owner_link SET used_ms = $3 \
                 WHERE tenant_id = $1 AND token_hash = $2 AND used_ms IS NULL AND expires_ms > $3 \
                 RETURNING purpose, account_id, email, role",
                params![tenant, token_hash, now],
            )
            .await?;
        let Some(r) = row else { return Ok(None) };
        let purpose = LinkPurpose::parse(&r.text(0)?)?;
        let (account_id, email, role) = (r.opt_text(1)?, r.text(2)?, r.i64(3)?);
        let account = match (purpose, account_id) {
            (LinkPurpose::Invite, _) => {
                insert_account_in(&mut tx, tenant, &email, role, Some(password_hash)).await?
            }
            (_, Some(id)) => {
                let Some(mut account) = account_in(&mut tx, tenant, &id).await? else {
                    return Ok(None);
                };
                tx.execute(
                    "UPDATE owner_account SET password_hash = $3, updated_ms = $4 WHERE tenant_id = $1 AND id = $2",
                    params![tenant, id.as_str(), password_hash, now],
                )
                .await?;
                tx.execute(
                    "DELETE FROM owner_session WHERE tenant_id = $1 AND account_id = $2",
                    params![tenant, id.as_str()],
                )
                .await?;
                account.password_hash = Some(password_hash.to_owned());
                account.updated_ms = now;
                account
            }
            (_, None) => return Ok(None),
        };
        let session = insert_session_in(&mut tx, tenant, &account.id, life).await?;
        tx.commit().await?;
        Ok(Some(LinkUsed {
            purpose,
            account,
            session,
        }))
    }

    /// Removes ended owner sessions and spent or expired links, site by site; how many.
    pub async fn sweep_owner_sessions(&self) -> Result<u64> {
        let now = now_ms();
        let sessions = self
            .sweep_expired("owner_session", "expires_ms", now)
            .await?;
        let links = self.sweep_expired("owner_link", "expires_ms", now).await?;
        Ok(sessions + links)
    }
}
