//! Sign-up with email confirmation, and the member areas a member belongs to (migration 7;
//! the order that granted a paid area, migration 21). Area definitions live in the site's
//! settings ([`crate::member_areas`]); here are who joined them, the pending confirmations,
//! and the grants and ends of paid areas that orders make ([`grant_paid_in`],
//! [`revoke_order_in`]).

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
    /// The areas they joined, in id order.
    pub areas: Vec<Joined>,
}

/// An area a member belongs to, and the order that granted it when they paid for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Joined {
    /// The area's id.
    pub area: String,
    /// The paid order that opened it; `None` when it was joined for free.
    pub order_id: Option<String>,
    /// That order's number.
    pub order_number: Option<i64>,
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
    /// The product that is its price; empty to make it free.
    pub plan_product_id: Option<String>,
}

/// A product that can be a member area's price, as the owner's picker lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanProduct {
    /// The product item.
    pub item_id: String,
    /// Its title.
    pub title: String,
    /// `product_type` (digital, service, paywall; or physical for a subscription).
    pub product_type: i64,
    /// Its one variant's price (the sale price when on sale), minor units.
    pub price_minor: i64,
    /// ISO currency code.
    pub currency: String,
    /// For a subscription: every `value` `unit`s (`WEEK`, `MONTH`, `YEAR`).
    pub period: Option<(i64, String)>,
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
    /// The area they joined with it, if any (never a paid one).
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

/// Puts a member in a paid area inside the caller's transaction (an order placed or marked
/// paid), recording the order that granted it (an earlier free membership becomes this
/// order's).
pub(crate) async fn grant_paid_in(
    tx: &mut Tx,
    tenant: TenantId,
    user: &str,
    area: &str,
    order_id: &str,
) -> Result<()> {
    tx.execute(
        "INSERT INTO site_user_area (tenant_id, site_user_id, member_area_id, granted_ms, order_id) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (tenant_id, site_user_id, member_area_id) \
         DO UPDATE SET order_id = $5, granted_ms = $4",
        params![tenant, user, area, now_ms(), order_id],
    )
    .await?;
    Ok(())
}

/// Ends the memberships order `order_id` granted (it was cancelled, refunded in full, or
/// its subscription ended), inside the caller's transaction; how many.
pub(crate) async fn revoke_order_in(tx: &mut Tx, tenant: TenantId, order_id: &str) -> Result<u64> {
    tx.execute(
        "DELETE FROM site_user_area WHERE tenant_id = $1 AND order_id = $2",
        params![tenant, order_id],
    )
    .await
}

/// The site's member areas as its settings declare them, read in the caller's transaction
/// (none when the list does not read: the import checked it).
pub(crate) async fn declared_in(
    tx: &mut Tx,
    tenant: TenantId,
) -> Result<Vec<crate::member_areas::MemberArea>> {
    let settings = crate::repo::content::settings_in(tx, tenant).await?;
    Ok(crate::member_areas::member_areas(&settings.website_settings).unwrap_or_default())
}

/// Why product `item_id` cannot be a member area's price, if it cannot: it must be a
/// product of this site's store with one variant, not a gift card, and not physical unless
/// it is sold as a subscription.
async fn plan_problem(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
) -> Result<Option<crate::commerce::PlanProblem>> {
    use crate::commerce::PlanProblem;
    use crate::commerce::pricing::product_type;
    let rows = tx
        .query(
            "SELECT i.product_type, i.structured_content, c.kind, \
             (SELECT COUNT(*) FROM product_variant v WHERE v.tenant_id = i.tenant_id AND v.item_id = i.id) \
             FROM item i LEFT JOIN collection c ON c.tenant_id = i.tenant_id AND c.id = i.collection_id \
             WHERE i.tenant_id = $1 AND i.id = $2",
            params![tenant, item_id],
        )
        .await?;
    let Some(r) = rows.first() else {
        return Ok(Some(PlanProblem::NotAProduct));
    };
    let variants = r.i64(3)?;
    if variants == 0 || r.opt_i64(2)? != Some(crate::store_setup::PRODUCTS_TYPE) {
        return Ok(Some(PlanProblem::NotAProduct));
    }
    let kind = r.opt_i64(0)?.unwrap_or(product_type::PHYSICAL);
    let structured: serde_json::Map<String, serde_json::Value> = r.json(1)?;
    let subscribable = structured
        .get("isSubscribable")
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    Ok(if kind == product_type::GIFT_CARD {
        Some(PlanProblem::GiftCard)
    } else if kind == product_type::PHYSICAL && !subscribable {
        Some(PlanProblem::Physical)
    } else if variants > 1 {
        Some(PlanProblem::Variants)
    } else {
        None
    })
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
        // A paid area is joined by buying it, never by confirming a sign-up (the link leads
        // back to its join page, signed in).
        let area = match area {
            Some(a) => {
                let declared = declared_in(&mut tx, tenant).await?;
                let paid = declared
                    .iter()
                    .any(|d| d.id == a && d.plan_product_id.is_some());
                (!paid).then_some(a)
            }
            None => None,
        };
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

    /// Puts a member in a free area (joining while signed in). `NotFound` for no such
    /// member; `Invalid` for a paid area (joined by buying its plan product, never here).
    pub async fn join_member_area(&self, tenant: TenantId, user: &str, area: &str) -> Result<()> {
        let mut tx = self.write().await?;
        user_here_in(&mut tx, tenant, user).await?;
        let declared = declared_in(&mut tx, tenant).await?;
        if declared
            .iter()
            .any(|d| d.id == area && d.plan_product_id.is_some())
        {
            tx.rollback().await?;
            return Err(StoreError::Invalid(format!(
                "member area {area} is paid: it is joined by buying its plan"
            )));
        }
        grant_in(&mut tx, tenant, user, area).await?;
        tx.commit().await
    }

    /// The paid member areas order `order_id` opened and that are still open (its member
    /// has not lost them by a refund, a cancel or the subscription's end), by id.
    pub async fn areas_opened_by(&self, tenant: TenantId, order_id: &str) -> Result<Vec<String>> {
        self.area_ids(
            "SELECT member_area_id FROM site_user_area WHERE tenant_id = $1 AND order_id = $2 \
             ORDER BY member_area_id",
            tenant,
            order_id,
        )
        .await
    }

    /// The areas a member belongs to, by id.
    pub async fn member_areas_of(&self, tenant: TenantId, user: &str) -> Result<Vec<String>> {
        self.area_ids(
            "SELECT member_area_id FROM site_user_area WHERE tenant_id = $1 AND site_user_id = $2 \
             ORDER BY member_area_id",
            tenant,
            user,
        )
        .await
    }

    /// The area ids `sql` selects for the tenant and one text parameter.
    async fn area_ids(&self, sql: &str, tenant: TenantId, value: &str) -> Result<Vec<String>> {
        let mut tx = self.read().await?;
        tx.query(sql, params![tenant, value])
            .await?
            .iter()
            .map(|r| r.text(0))
            .collect()
    }

    /// The products that can be a member area's price ([`plan_problem`] finds none), in
    /// title order: products of the store with one variant that are digital, service or
    /// paywall products, or subscriptions.
    pub async fn plan_products(&self, tenant: TenantId) -> Result<Vec<PlanProduct>> {
        use crate::commerce::pricing::product_type;
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT i.id, i.title, i.product_type, i.structured_content, v.currency, v.price_minor, \
                 v.sale_price_minor, v.on_sale FROM item i \
                 JOIN collection c ON c.tenant_id = i.tenant_id AND c.id = i.collection_id AND c.kind = $2 \
                 JOIN product_variant v ON v.tenant_id = i.tenant_id AND v.item_id = i.id \
                 WHERE i.tenant_id = $1 AND (SELECT COUNT(*) FROM product_variant w \
                   WHERE w.tenant_id = i.tenant_id AND w.item_id = i.id) = 1 \
                 ORDER BY i.title, i.id",
                params![tenant, crate::store_setup::PRODUCTS_TYPE],
            )
            .await?;
        let mut out = Vec::new();
        for r in &rows {
            let kind = r.opt_i64(2)?.unwrap_or(product_type::PHYSICAL);
            let structured: serde_json::Map<String, serde_json::Value> = r.json(3)?;
            let subscribable = structured
                .get("isSubscribable")
                .and_then(serde_json::Value::as_bool)
                == Some(true);
            if kind == product_type::GIFT_CARD || (kind == product_type::PHYSICAL && !subscribable)
            {
                continue;
            }
            let period = if subscribable {
                crate::repo::commerce::plan_of(&structured)
                    .ok()
                    .map(|(value, unit, _)| (value, unit))
            } else {
                None
            };
            let on_sale = r.bool(7)?;
            out.push(PlanProduct {
                item_id: r.text(0)?,
                title: r.text(1)?,
                product_type: kind,
                price_minor: if on_sale { r.i64(6)? } else { r.i64(5)? },
                currency: r.text(4)?,
                period,
            });
        }
        tx.commit().await?;
        Ok(out)
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
                    "SELECT a.member_area_id, a.order_id, o.order_number FROM site_user_area a \
                     LEFT JOIN customer_order o ON o.tenant_id = a.tenant_id AND o.id = a.order_id \
                     WHERE a.tenant_id = $1 AND a.site_user_id = $2 ORDER BY a.member_area_id",
                    params![tenant, user.id.as_str()],
                )
                .await?
                .iter()
                .map(|r| {
                    Ok(Joined {
                        area: r.text(0)?,
                        order_id: r.opt_text(1)?,
                        order_number: r.opt_i64(2)?,
                    })
                })
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
    /// title); `Refused(PlanProduct)` for a plan product that cannot be its price (not a
    /// product of this store, a gift card, a physical product that is no subscription, one
    /// with several variants, or one another area is sold by). The join page shows it from
    /// the next page on (a content change).
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
        match change.plan_product_id.as_deref() {
            None => {}
            Some("") => {
                area.remove("planProductId");
            }
            Some(p) => {
                area.insert("planProductId".into(), p.into());
                if let Some(problem) = plan_problem(&mut tx, tenant, p).await? {
                    tx.rollback().await?;
                    return Err(StoreError::Refused(crate::commerce::Refusal::PlanProduct(
                        problem,
                    )));
                }
            }
        }
        let areas = match crate::member_areas::member_areas(&settings.website_settings) {
            Ok(a) => a,
            Err((at, _)) if at.ends_with(".planProductId") => {
                tx.rollback().await?;
                return Err(StoreError::Refused(crate::commerce::Refusal::PlanProduct(
                    crate::commerce::PlanProblem::Taken,
                )));
            }
            Err((at, why)) => return Err(StoreError::Invalid(format!("{at} {why}"))),
        };
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
