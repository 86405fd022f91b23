//! Sign-up with email confirmation, and the member areas a member belongs to (migration 7).
//! Area definitions live in the site's settings ([`crate::member_areas`]); here are who
//! joined them and the pending confirmations.

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::repo::outbox::{Email, enqueue_in};
use crate::repo::site_users::{
    SiteUser, USER_COLUMNS, insert_site_user_in, user_from_row, user_here_in,
};
use crate::sql::Tx;
use crate::store::Store;

/// A member as the owner's list shows them: the account and the areas they belong to.
#[derive(Clone, Debug)]
pub struct MemberRow {
    /// The account.
    pub user: SiteUser,
    /// The ids of the areas they joined, in id order.
    pub areas: Vec<String>,
}

/// What the owner changes of a member area; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct AreaChange {
    /// Shown on the join page; not empty.
    pub title: Option<String>,
    /// Shown under the title; may be empty.
    pub description: Option<String>,
    /// The join button's label; empty for the join page's default.
    pub join_button_text: Option<String>,
}

/// A visitor's sign-up, as the API checked it.
#[derive(Clone, Debug)]
pub struct SignUp {
    /// Lower-cased.
    pub email: String,
    /// Argon2id PHC string.
    pub password_hash: String,
    /// May be empty.
    pub display_name: String,
    /// The area they asked to join, if any (joined when they confirm).
    pub member_area: Option<String>,
    /// The site path to land on once confirmed.
    pub redirect: String,
    /// The SHA-256 (hex) of the token the emailed link carries.
    pub token_hash: String,
    /// How long the link works.
    pub ttl_ms: i64,
}

/// What a sign-up did. The API answers all three the same way, so the answer does not tell
/// whether an address has an account; only the email to that address differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignedUp {
    /// A new account waiting for its link.
    Created(SiteUser),
    /// An unconfirmed account signed up again: its password and name are the new ones and
    /// only the newest link works.
    Renewed(SiteUser),
    /// The address already has a confirmed account: nothing changed.
    AlreadyMember(SiteUser),
}

/// A confirmed sign-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmed {
    /// The member, now confirmed.
    pub user: SiteUser,
    /// The area they joined with it, if any.
    pub member_area: Option<String>,
    /// The site path the sign-up asked to land on.
    pub redirect: String,
}

async fn grant_in(tx: &mut Tx, tenant: TenantId, user: &str, area: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO site_user_area (tenant_id, site_user_id, member_area_id, granted_ms) \
         VALUES ($1, $2, $3, $4) ON CONFLICT (tenant_id, site_user_id, member_area_id) DO NOTHING",
        params![tenant, user, area, now_ms()],
    )
    .await?;
    Ok(())
}

/// Puts a member in areas inside the caller's transaction (import).
pub(crate) async fn grant_all_in(
    tx: &mut Tx,
    tenant: TenantId,
    user: &str,
    areas: &[String],
) -> Result<()> {
    for area in areas {
        grant_in(tx, tenant, user, area).await?;
    }
    Ok(())
}

impl Store {
    /// Records a sign-up and puts `mail(&outcome)` in the outbox in the same transaction
    /// (the confirmation link, or a note to a confirmed member).
    pub async fn sign_up(
        &self,
        tenant: TenantId,
        s: &SignUp,
        mail: impl FnOnce(&SignedUp) -> Email,
    ) -> Result<SignedUp> {
        let mut tx = self.write().await?;
        let found = tx
            .query_opt(
                &format!(
                    "SELECT {USER_COLUMNS} FROM site_user u WHERE u.tenant_id = $1 AND u.email = $2"
                ),
                params![tenant, s.email.as_str()],
            )
            .await?;
        let outcome = match found.as_ref().map(|r| user_from_row(r, 0)).transpose()? {
            Some(user) if user.verified_ms.is_some() => SignedUp::AlreadyMember(user),
            Some(mut user) => {
                tx.execute(
                    "UPDATE site_user SET password_hash = $3, display_name = $4 WHERE tenant_id = $1 AND id = $2",
                    params![tenant, user.id.as_str(), s.password_hash.as_str(), s.display_name.as_str()],
                )
                .await?;
                tx.execute(
                    "DELETE FROM site_user_verification WHERE tenant_id = $1 AND site_user_id = $2",
                    params![tenant, user.id.as_str()],
                )
                .await?;
                user.password_hash = s.password_hash.clone();
                user.display_name = s.display_name.clone();
                SignedUp::Renewed(user)
            }
            None => {
                let user = SiteUser {
                    id: new_id(),
                    email: s.email.clone(),
                    display_name: s.display_name.clone(),
                    password_hash: s.password_hash.clone(),
                    created_ms: now_ms(),
                    locale: None,
                    verified_ms: None,
                };
                insert_site_user_in(&mut tx, tenant, &user).await?;
                SignedUp::Created(user)
            }
        };
        if let SignedUp::Created(user) | SignedUp::Renewed(user) = &outcome {
            tx.execute(
                "INSERT INTO site_user_verification (tenant_id, token_hash, site_user_id, member_area_id, redirect, expires_ms) \
                 VALUES ($1, $2, $3, $4, $5, $6)",
                params![tenant, s.token_hash.as_str(), user.id.as_str(), s.member_area.as_deref(), s.redirect.as_str(), now_ms() + s.ttl_ms],
            )
            .await?;
        }
        enqueue_in(&mut tx, tenant, &mail(&outcome)).await?;
        tx.commit().await?;
        Ok(outcome)
    }

    /// Spends a confirmation link: the member is confirmed and joins the area they signed
    /// up for. `None` for a link that is unknown, used or expired (or another site's).
    pub async fn confirm_sign_up(
        &self,
        tenant: TenantId,
        token_hash: &str,
    ) -> Result<Option<Confirmed>> {
        let mut tx = self.write().await?;
        let row = tx
            .query_opt(
                "SELECT site_user_id, member_area_id, redirect FROM site_user_verification \
                 WHERE tenant_id = $1 AND token_hash = $2 AND expires_ms > $3",
                params![tenant, token_hash, now_ms()],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        let (user_id, area, redirect) = (row.text(0)?, row.opt_text(1)?, row.text(2)?);
        tx.execute(
            "DELETE FROM site_user_verification WHERE tenant_id = $1 AND token_hash = $2",
            params![tenant, token_hash],
        )
        .await?;
        tx.execute(
            "UPDATE site_user SET verified_ms = COALESCE(verified_ms, $3) WHERE tenant_id = $1 AND id = $2",
            params![tenant, user_id.as_str(), now_ms()],
        )
        .await?;
        if let Some(area) = &area {
            grant_in(&mut tx, tenant, &user_id, area).await?;
        }
        let user = tx
            .query_opt(
                &format!(
                    "SELECT {USER_COLUMNS} FROM site_user u WHERE u.tenant_id = $1 AND u.id = $2"
                ),
                params![tenant, user_id.as_str()],
            )
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("site user {user_id}")))?;
        let user = user_from_row(&user, 0)?;
        tx.commit().await?;
        Ok(Some(Confirmed {
            user,
            member_area: area,
            redirect,
        }))
    }

    /// Puts a member in an area (joining while signed in). `NotFound` for no such member.
    pub async fn join_member_area(&self, tenant: TenantId, user: &str, area: &str) -> Result<()> {
        let mut tx = self.write().await?;
        user_here_in(&mut tx, tenant, user).await?;
        grant_in(&mut tx, tenant, user, area).await?;
        tx.commit().await
    }

    /// The areas a member belongs to, by id.
    pub async fn member_areas_of(&self, tenant: TenantId, user: &str) -> Result<Vec<String>> {
        let mut tx = self.read().await?;
        tx.query(
            "SELECT member_area_id FROM site_user_area WHERE tenant_id = $1 AND site_user_id = $2 \
             ORDER BY member_area_id",
            params![tenant, user],
        )
        .await?
        .iter()
        .map(|r| r.text(0))
        .collect()
    }

    /// Removes confirmation links that have expired, site by site; returns how many.
    pub async fn sweep_expired_sign_ups(&self) -> Result<u64> {
        self.sweep_expired("site_user_verification", "expires_ms", now_ms())
            .await
    }

    /// A page of the site's members, the newest first: at most `limit`, those whose email or
    /// name contains `q` (any case), those after `after` (the `(created_ms, id)` of the last
    /// of the page before), and the cursor of the next page when there is one.
    pub async fn members_page(
        &self,
        tenant: TenantId,
        q: Option<&str>,
        after: Option<(i64, String)>,
        limit: usize,
    ) -> Result<(Vec<MemberRow>, Option<(i64, String)>)> {
        let mut tx = self.read().await?;
        let (at, id) = after.unwrap_or((i64::MAX, String::new()));
        let pattern = crate::repo::inventory::contains_pattern(q.unwrap_or_default());
        let rows = tx
            .query(
                &format!(
                    "SELECT {USER_COLUMNS} FROM site_user u WHERE u.tenant_id = $1 \
                     AND (u.created_ms < $2 OR (u.created_ms = $2 AND u.id < $3)) \
                     AND (LOWER(u.email) LIKE $4 ESCAPE '\\' OR LOWER(u.display_name) LIKE $4 ESCAPE '\\') \
                     ORDER BY u.created_ms DESC, u.id DESC LIMIT $5"
                ),
                params![tenant, at, id.as_str(), pattern.as_str(), (limit + 1) as i64],
            )
            .await?;
        let mut users = rows
            .iter()
            .map(|r| user_from_row(r, 0))
            .collect::<Result<Vec<_>>>()?;
        let next = if users.len() > limit {
            users.truncate(limit);
            users.last().map(|u| (u.created_ms, u.id.clone()))
        } else {
            None
        };
        let mut out = Vec::with_capacity(users.len());
        for user in users {
            let areas = tx
                .query(
                    "SELECT member_area_id FROM site_user_area WHERE tenant_id = $1 AND site_user_id = $2 \
                     ORDER BY member_area_id",
                    params![tenant, user.id.as_str()],
                )
                .await?
                .iter()
                .map(|r| r.text(0))
                .collect::<Result<Vec<_>>>()?;
            out.push(MemberRow { user, areas });
        }
        Ok((out, next))
    }

    /// How many members each area has, by area id (areas nobody joined are absent), and how
    /// many members the site has in all.
    pub async fn member_counts(
        &self,
        tenant: TenantId,
    ) -> Result<(std::collections::BTreeMap<String, i64>, i64)> {
        let mut tx = self.read().await?;
        let by_area = tx
            .query(
                "SELECT member_area_id, COUNT(*) FROM site_user_area WHERE tenant_id = $1 \
                 GROUP BY member_area_id",
                params![tenant],
            )
            .await?
            .iter()
            .map(|r| Ok((r.text(0)?, r.i64(1)?)))
            .collect::<Result<_>>()?;
        let all = tx
            .query_one(
                "SELECT COUNT(*) FROM site_user WHERE tenant_id = $1",
                params![tenant],
            )
            .await?
            .i64(0)?;
        Ok((by_area, all))
    }

    /// Changes one member area the site declares (`websiteSettings.memberAreas`), in one
    /// transaction with the read of the list, so two owners' changes to different areas
    /// both stay: the area as it now is. `NotFound` for an area the site does not declare;
    /// `Invalid` when the change leaves the list one the import would refuse (an empty
    /// title). The join page shows it from the next page on (a content change).
    pub async fn update_member_area(
        &self,
        tenant: TenantId,
        id: &str,
        change: AreaChange,
    ) -> Result<crate::member_areas::MemberArea> {
        let mut tx = self.write().await?;
        // Takes the tenant row's lock first, as every settings write does.
        tx.execute(
            "UPDATE tenant SET content_version = content_version WHERE id = $1",
            params![tenant],
        )
        .await?;
        let mut settings = crate::repo::content::settings_in(&mut tx, tenant).await?;
        let list = settings
            .website_settings
            .get_mut("memberAreas")
            .and_then(serde_json::Value::as_array_mut)
            .ok_or_else(|| StoreError::NotFound(format!("member area {id}")))?;
        let area = list
            .iter_mut()
            .find(|a| a.get("id").and_then(serde_json::Value::as_str) == Some(id))
            .and_then(serde_json::Value::as_object_mut)
            .ok_or_else(|| StoreError::NotFound(format!("member area {id}")))?;
        if let Some(t) = change.title {
            area.insert("title".into(), t.into());
        }
        if let Some(d) = change.description {
            area.insert("description".into(), d.into());
        }
        if let Some(j) = change.join_button_text {
            if j.is_empty() {
                area.remove("joinButtonText");
            } else {
                area.insert("joinButtonText".into(), j.into());
            }
        }
        let areas = crate::member_areas::member_areas(&settings.website_settings)
            .map_err(|(at, why)| StoreError::Invalid(format!("{at} {why}")))?;
        let area = areas
            .into_iter()
            .find(|a| a.id == id)
            .ok_or_else(|| StoreError::NotFound(format!("member area {id}")))?;
        crate::repo::content::put_settings_in(&mut tx, tenant, &settings).await?;
        self.commit_change(tx, tenant, crate::cache::Change::Content)
            .await?;
        Ok(area)
    }
}
