//! The per-site, per-buyer summary behind the owner's customers list (migration 20): each
//! buyer's orders counted, what they spent and when they last ordered, with and without
//! test orders. A write to an order rewrites its buyer's row from their orders, in the
//! write's transaction ([`refresh`]); the list reads a page of rows by index instead of
//! aggregating every order of the site.

use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::sql::Tx;

/// One buyer's aggregates over `customer_order` rows, in the summary's column order
/// (`live_orders, live_spent, live_last, all_orders, all_spent, all_last`): orders placed
/// (not expired), the grand totals of the paid ones not cancelled less their refunds, the
/// last placed; `live_*` without test orders. Migration 20 computes the same for all.
const AGGREGATES: &str = "\
    CAST(COALESCE(SUM(CASE WHEN status <> 'expired' AND test_mode = FALSE THEN 1 ELSE 0 END), 0) AS BIGINT), \
    CAST(COALESCE(SUM(CASE WHEN status <> 'expired' AND test_mode = FALSE AND paid_ms IS NOT NULL \
      AND cancelled_ms IS NULL THEN grand_total_minor - refunded_minor ELSE 0 END), 0) AS BIGINT), \
    MAX(CASE WHEN status <> 'expired' AND test_mode = FALSE THEN created_ms END), \
    CAST(COALESCE(SUM(CASE WHEN status <> 'expired' THEN 1 ELSE 0 END), 0) AS BIGINT), \
    CAST(COALESCE(SUM(CASE WHEN status <> 'expired' AND paid_ms IS NOT NULL AND cancelled_ms IS NULL \
      THEN grand_total_minor - refunded_minor ELSE 0 END), 0) AS BIGINT), \
    MAX(CASE WHEN status <> 'expired' THEN created_ms END)";

const COLUMNS: &str = "live_orders, live_spent, live_last, all_orders, all_spent, all_last";

/// Rewrites the row of the buyer `email` (as an order holds it; keyed by SQL's `LOWER`)
/// from their orders. Call it in the transaction of every write to an order, after the
/// write. The row is locked first (an upsert) and only then counted, by a statement of
/// its own: on PostgreSQL a concurrent write for the same buyer waits for this one's
/// commit and then counts what it left, so neither count misses the other's order.
pub(crate) async fn refresh(tx: &mut Tx, tenant: TenantId, email: &str) -> Result<()> {
    tx.execute(
        "INSERT INTO customer_summary (tenant_id, email) VALUES ($1, LOWER(CAST($2 AS TEXT))) \
         ON CONFLICT (tenant_id, email) DO UPDATE SET email = excluded.email",
        params![tenant, email],
    )
    .await?;
    tx.execute(
        &format!(
            "UPDATE customer_summary SET ({COLUMNS}) = (SELECT {AGGREGATES} FROM customer_order \
             WHERE tenant_id = $1 AND LOWER(customer_email) = LOWER(CAST($2 AS TEXT))) \
             WHERE tenant_id = $1 AND email = LOWER(CAST($2 AS TEXT))"
        ),
        params![tenant, email],
    )
    .await?;
    Ok(())
}

/// Rewrites every row of the site from its orders (after orders were written in bulk).
pub(crate) async fn rebuild(tx: &mut Tx, tenant: TenantId) -> Result<()> {
    tx.execute(
        "DELETE FROM customer_summary WHERE tenant_id = $1",
        params![tenant],
    )
    .await?;
    tx.execute(
        &format!(
            "INSERT INTO customer_summary (tenant_id, email, {COLUMNS}) \
             SELECT tenant_id, LOWER(customer_email), {AGGREGATES} FROM customer_order \
             WHERE tenant_id = $1 GROUP BY tenant_id, LOWER(customer_email)"
        ),
        params![tenant],
    )
    .await?;
    Ok(())
}

/// [`refresh`] for the buyer of order `order_id` (after a write to it).
pub(crate) async fn refresh_order(tx: &mut Tx, tenant: TenantId, order_id: &str) -> Result<()> {
    let row = tx
        .query_opt(
            "SELECT customer_email FROM customer_order WHERE tenant_id = $1 AND id = $2",
            params![tenant, order_id],
        )
        .await?;
    match row {
        Some(r) => refresh(tx, tenant, &r.text(0)?).await,
        None => Ok(()),
    }
}

impl crate::store::Store {
    /// The buyers of the site whose `customer_summary` row differs from what their orders
    /// add up to now (lower-cased emails; a row missing or left over counts): empty when
    /// the summary is right. For the tests.
    #[doc(hidden)]
    pub async fn customer_summary_drift(&self, tenant: TenantId) -> Result<Vec<String>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                &format!(
                    "WITH fresh AS (SELECT LOWER(customer_email) AS email, {AGGREGATES} \
                     FROM customer_order WHERE tenant_id = $1 GROUP BY LOWER(customer_email)), \
                     kept AS (SELECT email, {COLUMNS} FROM customer_summary WHERE tenant_id = $1), \
                     missing AS (SELECT * FROM fresh EXCEPT SELECT * FROM kept), \
                     stale AS (SELECT * FROM kept EXCEPT SELECT * FROM fresh) \
                     SELECT email FROM missing UNION SELECT email FROM stale ORDER BY email"
                ),
                params![tenant],
            )
            .await?;
        tx.commit().await?;
        rows.iter().map(|r| r.text(0)).collect()
    }
}
