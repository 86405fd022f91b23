//! Restock ("back in stock") sign-ups, grouped by variant, with cursor pagination.

use serde::{Deserialize, Serialize};

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id, now_ms};
use crate::params;
use crate::sql::{Row, Tx};
use crate::store::Store;

/// A visitor's sign-up for one variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestockSignup {
    /// 24-hex id.
    pub id: String,
    /// The product item.
    pub item_id: String,
    /// The variant.
    pub sku: String,
    /// Lower-cased email.
    pub email: String,
    /// Also join the mailing list.
    pub join_mailing_list: bool,
    /// Language for the notification, when multilingual emails are on.
    pub language: Option<String>,
    /// Epoch ms.
    pub created_ms: i64,
    /// When the notification was sent.
    pub notified_ms: Option<i64>,
}

/// Sign-ups waiting for one variant.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestockGroup {
    /// The product item.
    pub item_id: String,
    /// The variant.
    pub sku: String,
    /// Sign-ups not yet notified.
    pub pending: i64,
}

/// One page of a cursor-paginated list (SPEC: hasNextPage, nextPageCursor).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CursorPage<T> {
    /// The rows.
    pub rows: Vec<T>,
    /// More rows follow.
    pub has_next_page: bool,
    /// Pass back to get the next page.
    pub next_page_cursor: Option<String>,
}

fn signup_from_row(r: &Row) -> Result<RestockSignup> {
    Ok(RestockSignup {
        id: r.text(0)?,
        item_id: r.text(1)?,
        sku: r.text(2)?,
        email: r.text(3)?,
        join_mailing_list: r.bool(4)?,
        language: r.opt_text(5)?,
        created_ms: r.i64(6)?,
        notified_ms: r.opt_i64(7)?,
    })
}

const SIGNUP_COLUMNS: &str =
    "id, item_id, sku, email, join_mailing_list, language, created_ms, notified_ms";

fn page_of<T>(mut rows: Vec<T>, limit: usize, cursor: impl Fn(&T) -> String) -> CursorPage<T> {
    let has_next_page = rows.len() > limit;
    rows.truncate(limit);
    let next_page_cursor = if has_next_page {
        rows.last().map(cursor)
    } else {
        None
    };
    CursorPage {
        rows,
        has_next_page,
        next_page_cursor,
    }
}

/// A variant's back-in-stock notice, written by the caller (the server, with the site's
/// templates) for `(item id, sku)`: one email for all its waiting signers, the store
/// addressing a copy to each. `None` sends nothing (the sign-ups are still marked told).
pub type RestockNotice<'a> = dyn Fn(&str, &str) -> Option<crate::Email> + Send + Sync + 'a;

/// Whether stock at `qty` (`unlimited` or not) is sold out: what a sign-up waits on.
pub(crate) fn sold_out(qty: i64, unlimited: bool) -> bool {
    !unlimited && qty <= 0
}

/// Marks every waiting sign-up of a variant notified and returns them (oldest first), in
/// `tx`. The mark is one conditional `UPDATE`, so of two transactions that take the same
/// sign-ups at once (two nodes, two raises), the second finds them marked and takes none:
/// each sign-up is taken once, and its notice goes in the outbox in the same transaction.
pub(crate) async fn take_waiting_in(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    sku: &str,
) -> Result<Vec<RestockSignup>> {
    let mut taken = tx
        .query(
            &format!(
                "UPDATE restock_signup SET notified_ms = $4 WHERE tenant_id = $1 AND item_id = $2 \
                 AND sku = $3 AND notified_ms IS NULL RETURNING {SIGNUP_COLUMNS}"
            ),
            params![tenant, item_id, sku, now_ms()],
        )
        .await?
        .iter()
        .map(signup_from_row)
        .collect::<Result<Vec<_>>>()?;
    taken.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(taken)
}

/// Sends the notices of a variant that came back in stock, in `tx`: its waiting sign-ups
/// taken ([`take_waiting_in`]) and a copy of `notice`'s email addressed to each put in the
/// outbox. How many were told.
pub(crate) async fn notify_restocked_in(
    tx: &mut Tx,
    tenant: TenantId,
    item_id: &str,
    sku: &str,
    notice: &RestockNotice<'_>,
) -> Result<u64> {
    let taken = take_waiting_in(tx, tenant, item_id, sku).await?;
    if taken.is_empty() {
        return Ok(0);
    }
    if let Some(mail) = notice(item_id, sku) {
        for s in &taken {
            let to_one = crate::Email {
                to: s.email.clone(),
                ..mail.clone()
            };
            super::outbox::enqueue_in(tx, tenant, &to_one).await?;
        }
    }
    Ok(taken.len() as u64)
}

impl Store {
    /// Records a sign-up for a variant (idempotent per email and variant), and puts the
    /// address on the site's mailing list when asked to. `NotFound` for an unknown variant.
    /// Email validation (SPEC messages) belongs to the API layer.
    pub async fn restock_signup(
        &self,
        tenant: TenantId,
        item_id: &str,
        sku: &str,
        email: &str,
        join_mailing_list: bool,
        language: Option<&str>,
    ) -> Result<RestockSignup> {
        let wish = (item_id, sku, email, join_mailing_list, language);
        self.take_signup(tenant, wish, false).await
    }

    /// [`Store::restock_signup`] for a variant that is sold out at that moment: `Conflict`
    /// when it is in stock. The variant's row is locked first, so a sign-up and an owner's
    /// raise ([`Store::set_stock_notifying`]) at the same moment go one after the other:
    /// the sign-up is refused, or stored before the raise takes the waiting sign-ups,
    /// never left waiting for a variant already back.
    pub async fn restock_signup_if_sold_out(
        &self,
        tenant: TenantId,
        item_id: &str,
        sku: &str,
        email: &str,
        join_mailing_list: bool,
        language: Option<&str>,
    ) -> Result<RestockSignup> {
        let wish = (item_id, sku, email, join_mailing_list, language);
        self.take_signup(tenant, wish, true).await
    }

    async fn take_signup(
        &self,
        tenant: TenantId,
        (item_id, sku, email, join_mailing_list, language): (&str, &str, &str, bool, Option<&str>),
        only_sold_out: bool,
    ) -> Result<RestockSignup> {
        let email = email.trim().to_lowercase();
        let mut tx = self.write().await?;
        let level =
            super::commerce::stock::old_levels_in(&mut tx, tenant, item_id, Some(sku)).await?;
        let Some(&(_, qty, unlimited)) = level.first() else {
            return Err(StoreError::NotFound(format!(
                "variant {sku} of item {item_id}"
            )));
        };
        if only_sold_out && !sold_out(qty, unlimited) {
            return Err(StoreError::Conflict(format!(
                "variant {sku} of item {item_id} is in stock"
            )));
        }
        tx.execute(
            "INSERT INTO restock_signup (tenant_id, id, item_id, sku, email, join_mailing_list, language, created_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (tenant_id, item_id, sku, email) DO NOTHING",
            params![tenant, new_id(), item_id, sku, email.as_str(), join_mailing_list, language, now_ms()],
        )
        .await?;
        if join_mailing_list {
            tx.execute(
                "INSERT INTO mailing_list_subscriber (tenant_id, email, source, created_ms) VALUES ($1, $2, 'restock', $3) \
                 ON CONFLICT (tenant_id, email) DO NOTHING",
                params![tenant, email.as_str(), now_ms()],
            )
            .await?;
        }
        let row = tx
            .query_one(
                &format!(
                    "SELECT {SIGNUP_COLUMNS} FROM restock_signup WHERE tenant_id = $1 AND item_id = $2 AND sku = $3 AND email = $4"
                ),
                params![tenant, item_id, sku, email.as_str()],
            )
            .await?;
        tx.commit().await?;
        signup_from_row(&row)
    }

    /// Variants with pending sign-ups, `limit` per page, ordered by item and sku.
    pub async fn restock_groups(
        &self,
        tenant: TenantId,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<CursorPage<RestockGroup>> {
        let (after_item, after_sku) = match cursor {
            Some(c) => c
                .split_once(':')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .ok_or_else(|| StoreError::Invalid("bad cursor".into()))?,
            None => (String::new(), String::new()),
        };
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT item_id, sku, COUNT(*) FROM restock_signup WHERE tenant_id = $1 AND notified_ms IS NULL \
                 AND (item_id > $2 OR (item_id = $2 AND sku > $3)) GROUP BY item_id, sku ORDER BY item_id, sku LIMIT $4",
                params![tenant, after_item, after_sku, limit as i64 + 1],
            )
            .await?
            .iter()
            .map(|r| Ok(RestockGroup { item_id: r.text(0)?, sku: r.text(1)?, pending: r.i64(2)? }))
            .collect::<Result<Vec<_>>>()?;
        Ok(page_of(rows, limit, |g| format!("{}:{}", g.item_id, g.sku)))
    }

    /// Sign-ups of one variant, `limit` per page, oldest first.
    pub async fn restock_signups(
        &self,
        tenant: TenantId,
        item_id: &str,
        sku: &str,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<CursorPage<RestockSignup>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                &format!(
                    "SELECT {SIGNUP_COLUMNS} FROM restock_signup WHERE tenant_id = $1 AND item_id = $2 AND sku = $3 \
                     AND id > $4 ORDER BY id LIMIT $5"
                ),
                params![tenant, item_id, sku, cursor.unwrap_or(""), limit as i64 + 1],
            )
            .await?
            .iter()
            .map(signup_from_row)
            .collect::<Result<Vec<_>>>()?;
        Ok(page_of(rows, limit, |s| s.id.clone()))
    }

    /// Sends a variant's back-in-stock notices: every pending sign-up gets the message
    /// `compose` makes for it (none when it gives `None`), put in the outbox in the same
    /// transaction that marks the sign-ups notified, so each signer is told once. Returns
    /// how many were notified.
    pub async fn send_restock_notices(
        &self,
        tenant: TenantId,
        item_id: &str,
        sku: &str,
        compose: impl Fn(&RestockSignup) -> Option<crate::Email>,
    ) -> Result<u64> {
        let mut tx = self.write().await?;
        let pending = take_waiting_in(&mut tx, tenant, item_id, sku).await?;
        for s in &pending {
            if let Some(mail) = compose(s) {
                super::outbox::enqueue_in(&mut tx, tenant, &mail).await?;
            }
        }
        tx.commit().await?;
        Ok(pending.len() as u64)
    }
}
