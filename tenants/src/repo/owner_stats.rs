//! What the owner's dashboard and analytics count: visits, page views, the funnel, orders
//! and revenue per day of the site's own calendar (the caller turns its days into instants
//! in the site's time zone), read from the quarter-hour roll-ups (`analytics_slot`) and the
//! orders; and the to-do counts.

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::repo::analytics::{ADD_TO_CART_EVENT, PURCHASE_EVENT, SLOT_MS, VISIT_EVENTS, metric};
use crate::sql::SqlValue;
use crate::store::Store;

/// The most days one call counts (a year, leap day included).
pub const MAX_SPANS: usize = 400;

/// A stretch of time, `[start_ms, end_ms)`: a day of the site's calendar, or a period.
/// Analytics count by quarter hour, so the bounds are taken to the quarter hour they fall
/// in (every time zone's offset from UTC is a whole number of quarter hours).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first instant, epoch ms.
    pub start_ms: i64,
    /// The first instant after it, epoch ms.
    pub end_ms: i64,
}

/// What a span counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpanCounts {
    /// Distinct visits (sessions) with a page view in the span.
    pub visits: i64,
    /// Page views.
    pub page_views: i64,
    /// Successful cart adds.
    pub add_to_carts: i64,
    /// Page views of the checkout pages (`/checkout`, `/checkout/…`).
    pub checkouts: i64,
    /// Purchase events (orders placed by visitors' browsers).
    pub purchases: i64,
    /// Orders placed in the span (not expired; test orders only when asked).
    pub orders: i64,
    /// The grand totals of those orders that are paid and not cancelled, less what was
    /// refunded of them (whenever that was: a refund counts on the order's day), minor
    /// units.
    pub revenue_minor: i64,
}

/// What needs doing in a store.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerTodo {
    /// Paid orders (not gift-card purchases) waiting to be sent: no order can be marked
    /// fulfilled yet, so every paid one counts.
    pub to_fulfil: i64,
    /// Orders awaiting a pay-later payment.
    pub unpaid: i64,
    /// Variants with counted stock at or under the threshold.
    pub low_stock: i64,
    /// Restock sign-ups not yet notified.
    pub restock_waiting: i64,
}

/// `WITH d(i, lo, hi) AS (VALUES …)`: the spans as a table, their parameters from `$first`.
fn spans_table(spans: &[Span], first: usize, values: &mut Vec<SqlValue>) -> String {
    let mut sql = String::from("WITH d(i, lo, hi) AS (VALUES ");
    for (k, s) in spans.iter().enumerate() {
        let p = first + k * 3;
        if k > 0 {
            sql.push_str(", ");
        }
        sql.push_str(&format!(
            "(CAST(${p} AS BIGINT), CAST(${} AS BIGINT), CAST(${} AS BIGINT))",
            p + 1,
            p + 2
        ));
        values.extend(params![k as i64, s.start_ms, s.end_ms]);
    }
    sql.push_str(") ");
    sql
}

impl Store {
    /// What each span counts, in the order given (spans may overlap: a period's visits are
    /// its distinct visits, not the sum of its days'). At most [`MAX_SPANS`]; more are an
    /// `Invalid` error. Test orders count only with `test_orders`.
    pub async fn span_counts(
        &self,
        tenant: TenantId,
        spans: &[Span],
        test_orders: bool,
    ) -> Result<Vec<SpanCounts>> {
        if spans.len() > MAX_SPANS {
            return Err(crate::StoreError::Invalid(format!(
                "at most {MAX_SPANS} days at once"
            )));
        }
        let mut out = vec![SpanCounts::default(); spans.len()];
        if spans.is_empty() {
            return Ok(out);
        }
        let slot = SLOT_MS;
        let join = format!(
            "FROM d JOIN analytics_slot s ON s.tenant_id = $1 AND s.metric = $2 \
             AND s.slot >= d.lo / {slot} AND s.slot < d.hi / {slot}"
        );
        let mut tx = self.read().await?;

        // Events: page views, cart adds, purchases.
        let mut values = params![tenant, "event"];
        let with = spans_table(spans, 7, &mut values);
        values.splice(
            2..2,
            params![
                VISIT_EVENTS[0],
                VISIT_EVENTS[1],
                ADD_TO_CART_EVENT,
                PURCHASE_EVENT
            ],
        );
        let sql = format!(
            "{with}SELECT d.i, s.label, CAST(SUM(s.n) AS BIGINT) {join} \
             AND s.label IN ($3, $4, $5, $6) GROUP BY d.i, s.label"
        );
        for r in tx.query(&sql, values).await? {
            let (i, label, n) = (r.i64(0)? as usize, r.text(1)?, r.i64(2)?);
            let Some(c) = out.get_mut(i) else { continue };
            match label.as_str() {
                ADD_TO_CART_EVENT => c.add_to_carts += n,
                PURCHASE_EVENT => c.purchases += n,
                _ => c.page_views += n,
            }
        }

        // Checkout page views.
        let mut values = params![tenant, "page", "/checkout", "/checkout/%"];
        let with = spans_table(spans, 5, &mut values);
        let sql = format!(
            "{with}SELECT d.i, CAST(SUM(s.n) AS BIGINT) {join} \
             AND (s.label = $3 OR s.label LIKE $4) GROUP BY d.i"
        );
        for r in tx.query(&sql, values).await? {
            if let Some(c) = out.get_mut(r.i64(0)? as usize) {
                c.checkouts = r.i64(1)?;
            }
        }

        // Visits: those the server started in the span, counted once when it started them
        // (`new-session`), and the distinct others: ids it did not make, and ids it made
        // before the span began (`session-later`, n = the quarter hour it made them in).
        let mut values = params![tenant, metric::NEW_SESSION];
        let with = spans_table(spans, 3, &mut values);
        let sql = format!("{with}SELECT d.i, CAST(SUM(s.n) AS BIGINT) {join} GROUP BY d.i");
        for r in tx.query(&sql, values).await? {
            if let Some(c) = out.get_mut(r.i64(0)? as usize) {
                c.visits += r.i64(1)?;
            }
        }
        let mut values = params![tenant, metric::SESSION, metric::SESSION_LATER];
        let with = spans_table(spans, 4, &mut values);
        let sql = format!(
            "{with}SELECT d.i, COUNT(DISTINCT s.label) FROM d JOIN analytics_slot s \
             ON s.tenant_id = $1 AND s.slot >= d.lo / {slot} AND s.slot < d.hi / {slot} \
             AND (s.metric = $2 OR (s.metric = $3 AND s.n < d.lo / {slot})) GROUP BY d.i"
        );
        for r in tx.query(&sql, values).await? {
            if let Some(c) = out.get_mut(r.i64(0)? as usize) {
                c.visits += r.i64(1)?;
            }
        }

        // Orders and revenue.
        let mut values = params![tenant, "expired", test_orders];
        let with = spans_table(spans, 4, &mut values);
        // A subquery per span, so each reads its own range of the orders by placed time
        // (a join of the spans with the orders was planned on PostgreSQL as a scan of every
        // order compared with every span).
        let orders_of_span = "FROM customer_order o WHERE o.tenant_id = $1 AND o.created_ms >= d.lo \
             AND o.created_ms < d.hi AND o.status <> $2 AND (o.test_mode = FALSE OR $3)";
        let sql = format!(
            "{with}SELECT d.i, (SELECT COUNT(*) {orders_of_span}), \
             (SELECT CAST(COALESCE(SUM(CASE WHEN o.paid_ms IS NOT NULL AND o.cancelled_ms IS NULL \
             THEN o.grand_total_minor - o.refunded_minor ELSE 0 END), 0) AS BIGINT) {orders_of_span}) FROM d"
        );
        for r in tx.query(&sql, values).await? {
            if let Some(c) = out.get_mut(r.i64(0)? as usize) {
                c.orders = r.i64(1)?;
                c.revenue_minor = r.i64(2)?;
            }
        }
        tx.commit().await?;
        Ok(out)
    }

    /// The `limit` most viewed pages and the `limit` referring hosts with the most page
    /// views in `span`: `(label, count)`, most first, then by label.
    pub async fn span_top(
        &self,
        tenant: TenantId,
        span: Span,
        limit: usize,
    ) -> Result<(Vec<(String, i64)>, Vec<(String, i64)>)> {
        let mut tx = self.read().await?;
        let mut top = Vec::new();
        for metric in ["page", "referrer"] {
            let rows = tx
                .query(
                    "SELECT label, CAST(SUM(n) AS BIGINT) AS total FROM analytics_slot \
                     WHERE tenant_id = $1 AND metric = $2 AND slot >= $3 AND slot < $4 \
                     GROUP BY label ORDER BY total DESC, label LIMIT $5",
                    params![
                        tenant,
                        metric,
                        span.start_ms.div_euclid(SLOT_MS),
                        span.end_ms.div_euclid(SLOT_MS),
                        limit as i64
                    ],
                )
                .await?;
            top.push(
                rows.iter()
                    .map(|r| Ok((r.text(0)?, r.i64(1)?)))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        tx.commit().await?;
        let referrers = top.pop().unwrap_or_default();
        Ok((top.pop().unwrap_or_default(), referrers))
    }

    /// The store's to-do counts: low stock is counted stock at or under `low_stock`; test
    /// orders count only with `test_orders`.
    pub async fn owner_todo(
        &self,
        tenant: TenantId,
        low_stock: i64,
        test_orders: bool,
    ) -> Result<OwnerTodo> {
        let mut tx = self.read().await?;
        let to_fulfil = tx
            .query_one(
                "SELECT COUNT(*) FROM customer_order WHERE tenant_id = $1 AND status IN ($2, $3) \
                 AND cancelled_ms IS NULL AND fulfilment IN ($4, $5) AND (test_mode = FALSE OR $6)",
                params![
                    tenant,
                    "paid",
                    "partially-refunded",
                    "unfulfilled",
                    "partially-fulfilled",
                    test_orders
                ],
            )
            .await?
            .i64(0)?;
        let unpaid = tx
            .query_one(
                "SELECT COUNT(*) FROM customer_order WHERE tenant_id = $1 AND status = $2 \
                 AND cancelled_ms IS NULL AND (test_mode = FALSE OR $3)",
                params![tenant, "awaiting-payment", test_orders],
            )
            .await?
            .i64(0)?;
        let low = tx
            .query_one(
                "SELECT COUNT(*) FROM product_variant WHERE tenant_id = $1 AND NOT unlimited \
                 AND qty_in_stock <= $2",
                params![tenant, low_stock],
            )
            .await?
            .i64(0)?;
        let restock_waiting = tx
            .query_one(
                "SELECT COUNT(*) FROM restock_signup WHERE tenant_id = $1 AND notified_ms IS NULL",
                params![tenant],
            )
            .await?
            .i64(0)?;
        tx.commit().await?;
        Ok(OwnerTodo {
            to_fulfil,
            unpaid,
            low_stock: low,
            restock_waiting,
        })
    }
}
