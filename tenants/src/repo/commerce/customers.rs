//! The owner's customers: everyone who ordered, became a member or subscribed, joined by
//! email (lower-cased), with their orders counted.

use serde::{Deserialize, Serialize};

use super::orders::load_orders;
use super::subscriptions::{COLUMNS as SUBSCRIPTION_COLUMNS, from_row as subscription_from_row};
use crate::StoreError;
use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::repo::commerce::{Order, OrderDetails, Subscription};
use crate::repo::inventory::{MAX_PAGE, contains_pattern};
use crate::sql::SqlValue;
use crate::store::Store;

/// A customer as the owner's list shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CustomerRow {
    /// Lower-cased.
    pub email: String,
    /// The member's display name, else the name on their latest order's billing (else
    /// shipping) address, else "".
    pub name: String,
    /// Orders placed (not expired).
    pub orders: i64,
    /// The grand totals of their paid orders not cancelled, less what was refunded of
    /// them, minor units.
    pub spent_minor: i64,
    /// When they last ordered, epoch ms.
    pub last_order_ms: Option<i64>,
    /// They have a member account.
    pub member: bool,
    /// They are on the mailing list.
    pub subscriber: bool,
}

/// Which customers, and how many: the latest buyers first, then the others by email.
#[derive(Clone, Debug, Default)]
pub struct CustomerQuery {
    /// Words the email, the member's name or an order's names and addresses contain.
    pub q: Option<String>,
    /// After this customer: (last order ms or 0, email).
    pub after: Option<(i64, String)>,
    /// At most this many (1-[`MAX_PAGE`]).
    pub limit: usize,
    /// Count test orders too.
    pub test_orders: bool,
}

/// The summary's columns a list counts from: (orders, spent, last order) with or without
/// test orders.
fn summary_columns(test_orders: bool) -> (&'static str, &'static str, &'static str) {
    if test_orders {
        ("all_orders", "all_spent", "all_last")
    } else {
        ("live_orders", "live_spent", "live_last")
    }
}

/// `AND (…)`: the search `$p` in the email `{email}`, the member's name or an order's
/// names and addresses. The email is compared as `({email} || '')`: SQLite uses an index on
/// `LOWER(…)` only against a value without a column's text affinity (otherwise it scans
/// every order for each customer).
fn search_filter(email: &str, p: usize) -> String {
    let key = format!("({email} || '')");
    format!(
        " AND ({email} LIKE ${p} ESCAPE '\\' \
         OR LOWER(COALESCE((SELECT MIN(u.display_name) FROM site_user u WHERE u.tenant_id = $1 \
         AND LOWER(u.email) = {key}), '')) LIKE ${p} ESCAPE '\\' \
         OR EXISTS (SELECT 1 FROM customer_order x WHERE x.tenant_id = $1 \
         AND LOWER(x.customer_email) = {key} AND LOWER(x.details) LIKE ${p} ESCAPE '\\'))"
    )
}

/// `IN ($n, …)` for `emails`, their values pushed.
fn in_list(values: &mut Vec<SqlValue>, emails: &[&str]) -> String {
    let mut s = String::from("IN (");
    for (i, e) in emails.iter().enumerate() {
        values.push((*e).into());
        if i > 0 {
            s.push_str(", ");
        }
        s.push_str(&format!("${}", values.len()));
    }
    s.push(')');
    s
}

/// Each row's member name and flag and subscriber flag, by its email.
async fn members_and_subscribers(
    tx: &mut crate::sql::Tx,
    tenant: TenantId,
    rows: &mut [CustomerRow],
) -> Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let emails: Vec<&str> = rows.iter().map(|c| c.email.as_str()).collect();
    let mut values: Vec<SqlValue> = params![tenant];
    let list = in_list(&mut values, &emails);
    let members = tx
        .query(
            &format!(
                "SELECT LOWER(email), MIN(display_name) FROM site_user WHERE tenant_id = $1 \
                 AND LOWER(email) {list} GROUP BY LOWER(email)"
            ),
            values.clone(),
        )
        .await?;
    let subscribers = tx
        .query(
            &format!(
                "SELECT DISTINCT LOWER(email) FROM mailing_list_subscriber WHERE tenant_id = $1 \
                 AND LOWER(email) {list}"
            ),
            values,
        )
        .await?;
    let mut names = std::collections::HashMap::new();
    for r in &members {
        names.insert(r.text(0)?, r.text(1)?);
    }
    let mut subscribed = std::collections::HashSet::new();
    for r in &subscribers {
        subscribed.insert(r.text(0)?);
    }
    for c in rows.iter_mut() {
        if let Some(name) = names.get(&c.email) {
            c.member = true;
            c.name = name.clone();
        }
        c.subscriber = subscribed.contains(&c.email);
    }
    Ok(())
}

impl Store {
    /// A page of the site's customers ([`CustomerQuery`]) and where the next starts.
    ///
    /// The buyers come from `customer_summary` by its index on (last order, email), a page
    /// at a time; then, once they run out, the members and subscribers who have not
    /// ordered (their last order counts as 0), by email. Names and flags are read for the
    /// page's rows only.
    pub async fn customers(
        &self,
        tenant: TenantId,
        q: &CustomerQuery,
    ) -> Result<(Vec<CustomerRow>, Option<(i64, String)>)> {
        fn next(values: &mut Vec<SqlValue>, v: SqlValue) -> usize {
            values.push(v);
            values.len()
        }
        let limit = q.limit.clamp(1, MAX_PAGE);
        let (n_col, spent_col, last_col) = summary_columns(q.test_orders);
        let pattern =
            q.q.as_deref()
                .filter(|t| !t.trim().is_empty())
                .map(contains_pattern);
        let mut tx = self.read().await?;
        let mut out: Vec<CustomerRow> = Vec::with_capacity(limit + 1);
        // Buyers, the latest first (none left after a cursor among those who never ordered).
        if q.after.as_ref().is_none_or(|(k, _)| *k != 0) {
            let mut values: Vec<SqlValue> = params![tenant];
            let mut sql = format!(
                "SELECT c.email, c.{n_col}, c.{spent_col}, c.{last_col} FROM customer_summary c \
                 WHERE c.tenant_id = $1 AND c.{last_col} IS NOT NULL"
            );
            if let Some(p) = &pattern {
                let n = next(&mut values, p.as_str().into());
                sql.push_str(&search_filter("c.email", n));
            }
            if let Some((k, email)) = &q.after {
                let a = next(&mut values, (*k).into());
                let b = next(&mut values, email.as_str().into());
                sql.push_str(&format!(
                    " AND c.{last_col} <= ${a} AND (c.{last_col} < ${a} OR c.email > ${b})"
                ));
            }
            let n = next(&mut values, (limit as i64 + 1).into());
            sql.push_str(&format!(" ORDER BY c.{last_col} DESC, c.email LIMIT ${n}"));
            for r in &tx.query(&sql, values).await? {
                out.push(CustomerRow {
                    email: r.text(0)?,
                    orders: r.i64(1)?,
                    spent_minor: r.i64(2)?,
                    last_order_ms: r.opt_i64(3)?,
                    name: String::new(),
                    member: false,
                    subscriber: false,
                });
            }
        }
        // Then members and subscribers who have not ordered, by email.
        if out.len() <= limit {
            let mut values: Vec<SqlValue> = params![tenant];
            let mut sql = format!(
                "SELECT e.email FROM (SELECT LOWER(email) AS email FROM site_user WHERE tenant_id = $1 \
                 UNION SELECT LOWER(email) FROM mailing_list_subscriber WHERE tenant_id = $1) e \
                 WHERE NOT EXISTS (SELECT 1 FROM customer_summary c WHERE c.tenant_id = $1 \
                 AND c.email = e.email AND c.{last_col} IS NOT NULL)"
            );
            if let Some(p) = &pattern {
                let n = next(&mut values, p.as_str().into());
                sql.push_str(&search_filter("e.email", n));
            }
            if let Some((0, email)) = &q.after {
                let b = next(&mut values, email.as_str().into());
                sql.push_str(&format!(" AND e.email > ${b}"));
            }
            let n = next(&mut values, ((limit + 1 - out.len()) as i64).into());
            sql.push_str(&format!(" ORDER BY e.email LIMIT ${n}"));
            for r in &tx.query(&sql, values).await? {
                out.push(CustomerRow {
                    email: r.text(0)?,
                    orders: 0,
                    spent_minor: 0,
                    last_order_ms: None,
                    name: String::new(),
                    member: false,
                    subscriber: false,
                });
            }
        }
        let next = if out.len() > limit {
            out.truncate(limit);
            out.last()
                .map(|c| (c.last_order_ms.unwrap_or(0), c.email.clone()))
        } else {
            None
        };
        members_and_subscribers(&mut tx, tenant, &mut out).await?;
        // Names from the latest order of those who are not members.
        for c in out.iter_mut().filter(|c| !c.member && c.orders > 0) {
            let details = tx
                .query_opt(
                    "SELECT details FROM customer_order WHERE tenant_id = $1 \
                     AND LOWER(customer_email) = $2 ORDER BY created_ms DESC LIMIT 1",
                    params![tenant, c.email.as_str()],
                )
                .await?;
            if let Some(r) = details {
                let d: Option<OrderDetails> = serde_json::from_str(&r.text(0)?).ok();
                c.name = d.and_then(|d| name_of(&d)).unwrap_or_default();
            }
        }
        tx.commit().await?;
        Ok((out, next))
    }

    /// One customer by email (any case): `None` when no order, member or subscriber of
    /// this site has it.
    pub async fn customer(
        &self,
        tenant: TenantId,
        email: &str,
        test_orders: bool,
    ) -> Result<Option<CustomerRow>> {
        let email = email.trim().to_lowercase();
        let (n_col, spent_col, last_col) = summary_columns(test_orders);
        let mut tx = self.read().await?;
        let summary = tx
            .query_opt(
                &format!(
                    "SELECT {n_col}, {spent_col}, {last_col} FROM customer_summary \
                     WHERE tenant_id = $1 AND email = $2 AND {last_col} IS NOT NULL"
                ),
                params![tenant, email.as_str()],
            )
            .await?;
        let mut c = CustomerRow {
            email: email.clone(),
            name: String::new(),
            orders: 0,
            spent_minor: 0,
            last_order_ms: None,
            member: false,
            subscriber: false,
        };
        if let Some(r) = &summary {
            c.orders = r.i64(0)?;
            c.spent_minor = r.i64(1)?;
            c.last_order_ms = r.opt_i64(2)?;
        }
        members_and_subscribers(&mut tx, tenant, std::slice::from_mut(&mut c)).await?;
        tx.commit().await?;
        if summary.is_none() && !c.member && !c.subscriber {
            return Ok(None);
        }
        if !c.member && c.orders > 0 {
            let latest = self
                .orders_of_customer(tenant, &c.email, 1, test_orders)
                .await?;
            c.name = latest
                .first()
                .and_then(|o| name_of(&o.details))
                .unwrap_or_default();
        }
        Ok(Some(c))
    }
}

impl Store {
    /// A customer's latest `limit` orders (any case of their email), newest first, test
    /// orders only with `test_orders`.
    pub async fn orders_of_customer(
        &self,
        tenant: TenantId,
        email: &str,
        limit: usize,
        test_orders: bool,
    ) -> Result<Vec<Order>> {
        let mut tx = self.snapshot().await?;
        let orders = load_orders(
            &mut tx,
            tenant,
            "AND id IN (SELECT id FROM customer_order WHERE tenant_id = $1 \
             AND LOWER(customer_email) = $2 AND (test_mode = FALSE OR $3) \
             ORDER BY created_ms DESC, id LIMIT $4)",
            params![
                email.trim().to_lowercase(),
                test_orders,
                limit.clamp(1, MAX_PAGE) as i64
            ],
        )
        .await?;
        tx.commit().await?;
        Ok(orders)
    }
}

/// What a cancelled subscription's status becomes.
pub const SUBSCRIPTION_CANCELLED: &str = "cancelled";

impl Store {
    /// Cancels an active subscription: it bills no more, and the member area it paid for
    /// (if its product is an area's plan) closes for its member. `NotFound` when this site has no
    /// subscription `id`; `Conflict` naming its status when it is not active (already
    /// cancelled, or completed). One conditional write, so of two cancels one wins.
    pub async fn cancel_subscription(&self, tenant: TenantId, id: &str) -> Result<Subscription> {
        let mut tx = self.write().await?;
        let row = tx
            .query_opt(
                &format!(
                    "SELECT {SUBSCRIPTION_COLUMNS} FROM subscription WHERE tenant_id = $1 AND id = $2"
                ),
                params![tenant, id],
            )
            .await?;
        let Some(row) = row else {
            return Err(StoreError::NotFound(format!("subscription {id}")));
        };
        let mut sub = subscription_from_row(&row)?;
        let n = tx
            .execute(
                "UPDATE subscription SET status = $3, next_billing_ms = NULL \
                 WHERE tenant_id = $1 AND id = $2 AND status = $4",
                params![tenant, id, SUBSCRIPTION_CANCELLED, "active"],
            )
            .await?;
        if n == 0 {
            // Not active: what it is now (a cancel at the same moment may have just won).
            let now = tx
                .query_one(
                    "SELECT status FROM subscription WHERE tenant_id = $1 AND id = $2",
                    params![tenant, id],
                )
                .await?
                .text(0)?;
            return Err(StoreError::Conflict(now));
        }
        // The member area the subscription paid for closes with it.
        crate::repo::member_areas::revoke_order_in(&mut tx, tenant, &sub.order_id).await?;
        tx.commit().await?;
        sub.status = SUBSCRIPTION_CANCELLED.to_owned();
        sub.next_billing_ms = None;
        Ok(sub)
    }
}

/// What a gift card paid for: one order's use of it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardUse {
    /// The order it paid.
    pub order_id: String,
    /// That order's number.
    pub order_number: i64,
    /// What it paid, minor units.
    pub amount_minor: i64,
    /// When, epoch ms.
    pub at_ms: i64,
    /// When that went back on the card (the order cancelled, or expired unpaid), epoch ms.
    pub refunded_ms: Option<i64>,
}

/// A gift card as the owner's list shows it, with what it paid for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardRow {
    /// Its id (24 hex characters): what names it to the owner, not its code.
    pub id: String,
    /// The whole code (the API shows its last 4 characters).
    pub code: String,
    /// Its currency.
    pub currency: String,
    /// What it was worth when bought, minor units.
    pub initial_minor: i64,
    /// What is left on it, minor units.
    pub balance_minor: i64,
    /// The order that bought it.
    pub order_id: String,
    /// That order's number.
    pub order_number: i64,
    /// That order's email.
    pub buyer_email: String,
    /// When it was bought, epoch ms.
    pub created_ms: i64,
    /// What it paid, oldest first.
    pub uses: Vec<GiftCardUse>,
}

/// Which gift cards: the newest first.
#[derive(Clone, Debug, Default)]
pub struct GiftCardQuery {
    /// Words the buyer's email or the code contains.
    pub q: Option<String>,
    /// After this card: (created ms, code).
    pub after: Option<(i64, String)>,
    /// At most this many (1-[`MAX_PAGE`]).
    pub limit: usize,
}

const GIFT_CARD_ROWS: &str = "SELECT g.code, g.currency, g.initial_minor, g.balance_minor, g.order_id, \
     g.created_ms, o.customer_email, o.order_number, g.id FROM gift_card g \
     JOIN customer_order o ON o.tenant_id = $1 AND o.id = g.order_id AND o.order_number > 0 WHERE g.tenant_id = $1";

fn gift_card_from_row(r: &crate::sql::Row) -> Result<GiftCardRow> {
    Ok(GiftCardRow {
        code: r.text(0)?,
        currency: r.text(1)?,
        initial_minor: r.i64(2)?,
        balance_minor: r.i64(3)?,
        order_id: r.text(4)?,
        created_ms: r.i64(5)?,
        buyer_email: r.text(6)?,
        order_number: r.i64(7)?,
        id: r.text(8)?,
        uses: Vec::new(),
    })
}

/// Each card's uses, oldest first.
async fn load_uses(
    tx: &mut crate::sql::Tx,
    tenant: TenantId,
    cards: &mut [GiftCardRow],
) -> Result<()> {
    for g in cards {
        let uses = tx
            .query(
                "SELECT u.order_id, o.order_number, u.amount_minor, u.created_ms, u.refunded_ms \
                 FROM gift_card_use u JOIN customer_order o ON o.tenant_id = $1 AND o.id = u.order_id AND o.order_number > 0 \
                 WHERE u.tenant_id = $1 AND u.code = $2 ORDER BY u.created_ms, u.order_id",
                params![tenant, g.code.as_str()],
            )
            .await?;
        g.uses = uses
            .iter()
            .map(|u| {
                Ok(GiftCardUse {
                    order_id: u.text(0)?,
                    order_number: u.i64(1)?,
                    amount_minor: u.i64(2)?,
                    at_ms: u.i64(3)?,
                    refunded_ms: u.opt_i64(4)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
    }
    Ok(())
}

impl Store {
    /// A page of the site's gift cards ([`GiftCardQuery`]), each with its uses, and where
    /// the next page starts.
    pub async fn gift_card_rows(
        &self,
        tenant: TenantId,
        q: &GiftCardQuery,
    ) -> Result<(Vec<GiftCardRow>, Option<(i64, String)>)> {
        fn next(values: &mut Vec<SqlValue>, v: SqlValue) -> usize {
            values.push(v);
            values.len()
        }
        let limit = q.limit.clamp(1, MAX_PAGE);
        let mut values: Vec<SqlValue> = params![tenant];
        let mut sql = String::from(GIFT_CARD_ROWS);
        if let Some(text) = q.q.as_deref().filter(|t| !t.trim().is_empty()) {
            let n = next(&mut values, contains_pattern(text).into());
            sql.push_str(&format!(
                " AND (LOWER(o.customer_email) LIKE ${n} ESCAPE '\\' OR LOWER(g.code) LIKE ${n} ESCAPE '\\')"
            ));
        }
        if let Some((at, code)) = &q.after {
            let a = next(&mut values, (*at).into());
            let b = next(&mut values, code.as_str().into());
            sql.push_str(&format!(
                " AND (g.created_ms < ${a} OR (g.created_ms = ${a} AND g.code > ${b}))"
            ));
        }
        let n = next(&mut values, (limit as i64 + 1).into());
        sql.push_str(&format!(" ORDER BY g.created_ms DESC, g.code LIMIT ${n}"));
        let mut tx = self.read().await?;
        let rows = tx.query(&sql, values).await?;
        let mut out = rows
            .iter()
            .map(gift_card_from_row)
            .collect::<Result<Vec<_>>>()?;
        let next = if out.len() > limit {
            out.truncate(limit);
            out.last().map(|g| (g.created_ms, g.code.clone()))
        } else {
            None
        };
        load_uses(&mut tx, tenant, &mut out).await?;
        tx.commit().await?;
        Ok((out, next))
    }

    /// One gift card of the site by its id, with its uses; `None` when this site has none.
    pub async fn gift_card_row(&self, tenant: TenantId, id: &str) -> Result<Option<GiftCardRow>> {
        let mut tx = self.read().await?;
        let row = tx
            .query_opt(
                &format!("{GIFT_CARD_ROWS} AND g.id = $2"),
                params![tenant, id],
            )
            .await?;
        let mut out = row
            .iter()
            .map(gift_card_from_row)
            .collect::<Result<Vec<_>>>()?;
        load_uses(&mut tx, tenant, &mut out).await?;
        tx.commit().await?;
        Ok(out.pop())
    }
}

/// A subscription as the owner's list shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionRow {
    /// The subscription.
    pub subscription: Subscription,
    /// The product's name on the order that started it.
    pub product_name: String,
    /// That order's email.
    pub customer_email: String,
    /// That order's number.
    pub order_number: i64,
}

/// Which subscriptions: the newest first.
#[derive(Clone, Debug, Default)]
pub struct SubscriptionQuery {
    /// Only those with this status (`active`, `cancelled`, `completed`).
    pub status: Option<String>,
    /// Words the customer's email or the product's name contains.
    pub q: Option<String>,
    /// After this one: (created ms, id).
    pub after: Option<(i64, String)>,
    /// At most this many (1-[`MAX_PAGE`]).
    pub limit: usize,
}

impl Store {
    /// A page of the site's subscriptions ([`SubscriptionQuery`]) and where the next starts.
    pub async fn subscription_rows(
        &self,
        tenant: TenantId,
        q: &SubscriptionQuery,
    ) -> Result<(Vec<SubscriptionRow>, Option<(i64, String)>)> {
        fn next(values: &mut Vec<SqlValue>, v: SqlValue) -> usize {
            values.push(v);
            values.len()
        }
        let limit = q.limit.clamp(1, MAX_PAGE);
        let columns: Vec<String> = SUBSCRIPTION_COLUMNS
            .split(',')
            .map(|c| format!("s.{}", c.trim()))
            .collect();
        let mut values: Vec<SqlValue> = params![tenant];
        let mut sql = format!(
            "SELECT {}, o.customer_email, o.order_number, COALESCE((SELECT l.product_name FROM order_line l \
             WHERE l.tenant_id = $1 AND l.order_id = s.order_id AND l.item_id = s.item_id AND l.sku = s.sku \
             ORDER BY l.position LIMIT 1), '') AS product_name \
             FROM subscription s JOIN customer_order o ON o.tenant_id = $1 AND o.id = s.order_id AND o.order_number > 0 \
             WHERE s.tenant_id = $1",
            columns.join(", ")
        );
        if let Some(status) = &q.status {
            let n = next(&mut values, status.as_str().into());
            sql.push_str(&format!(" AND s.status = ${n}"));
        }
        if let Some(text) = q.q.as_deref().filter(|t| !t.trim().is_empty()) {
            let n = next(&mut values, contains_pattern(text).into());
            sql.push_str(&format!(
                " AND (LOWER(o.customer_email) LIKE ${n} ESCAPE '\\' OR EXISTS (SELECT 1 FROM order_line l \
                 WHERE l.tenant_id = $1 AND l.order_id = s.order_id AND l.item_id = s.item_id \
                 AND LOWER(l.product_name) LIKE ${n} ESCAPE '\\'))"
            ));
        }
        if let Some((at, id)) = &q.after {
            let a = next(&mut values, (*at).into());
            let b = next(&mut values, id.as_str().into());
            sql.push_str(&format!(
                " AND (s.created_ms < ${a} OR (s.created_ms = ${a} AND s.id > ${b}))"
            ));
        }
        let n = next(&mut values, (limit as i64 + 1).into());
        sql.push_str(&format!(" ORDER BY s.created_ms DESC, s.id LIMIT ${n}"));
        let mut tx = self.read().await?;
        let rows = tx.query(&sql, values).await?;
        tx.commit().await?;
        let k = columns.len();
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(SubscriptionRow {
                subscription: subscription_from_row(r)?,
                customer_email: r.text(k)?,
                order_number: r.i64(k + 1)?,
                product_name: r.text(k + 2)?,
            });
        }
        let next = if out.len() > limit {
            out.truncate(limit);
            out.last()
                .map(|s| (s.subscription.created_ms, s.subscription.id.clone()))
        } else {
            None
        };
        Ok((out, next))
    }
}

/// The name on an order's billing address, else its shipping address.
fn name_of(d: &OrderDetails) -> Option<String> {
    [&d.billing_address, &d.shipping_address]
        .into_iter()
        .flatten()
        .map(|a| {
            format!("{} {}", a.first_name.trim(), a.last_name.trim())
                .trim()
                .to_owned()
        })
        .find(|n| !n.is_empty())
}
