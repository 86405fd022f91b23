//! Visitor analytics events and page performance records: append-only, per tenant.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::store::Store;

/// One analytics event (SPEC "Analytics payloads"; the full payload stays in `data`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsEvent {
    /// Epoch ms when it happened.
    pub occurred_ms: i64,
    /// Event name.
    pub name: String,
    /// Page path.
    pub page_path: String,
    /// The visitor cookie, if any.
    pub visitor_id: Option<String>,
    /// The host of the page the visitor came from, if another site.
    #[serde(default)]
    pub referrer: Option<String>,
    /// The rest of the payload.
    pub data: Value,
}

/// One performance record (SPEC: app, data, event, pageLoadId, ts).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PerformanceRecord {
    /// The page load it belongs to.
    pub page_load_id: String,
    /// Reporting app.
    pub app: String,
    /// Event name.
    pub event: String,
    /// Epoch ms.
    pub ts_ms: i64,
    /// Measurements.
    pub data: Value,
}

/// Event names that count as a page visit.
pub const VISIT_EVENTS: [&str; 2] = ["pageview", "page_view"];
/// The event the server records itself when a cart add succeeds.
pub const ADD_TO_CART_EVENT: &str = "add-to-cart";
/// The event the server records itself when an order is placed.
pub const PURCHASE_EVENT: &str = "purchase";

/// What an owner sees of a period: visits, visitors, the pages and referrers they came by,
/// carts and orders.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsSummary {
    /// The start of the period, epoch ms.
    pub since_ms: i64,
    /// Page visits.
    pub visits: i64,
    /// Distinct visitor cookies among the visits.
    pub unique_visitors: i64,
    /// (path, visits), most first, at most 10.
    pub top_pages: Vec<(String, i64)>,
    /// (host, visits), most first, at most 10.
    pub top_referrers: Vec<(String, i64)>,
    /// Successful cart adds.
    pub add_to_carts: i64,
    /// Orders placed.
    pub purchases: i64,
    /// Purchases per unique visitor (0 without visitors).
    pub conversion_rate: f64,
}

impl Store {
    /// The summary of the events at or after `since_ms`.
    pub async fn analytics_summary(
        &self,
        tenant: TenantId,
        since_ms: i64,
    ) -> Result<AnalyticsSummary> {
        let mut tx = self.read().await?;
        let visits = tx
            .query_one(
                "SELECT COUNT(*), COUNT(DISTINCT visitor_id) FROM analytics_event \
                 WHERE tenant_id = $1 AND occurred_ms >= $2 AND name IN ($3, $4)",
                params![tenant, since_ms, VISIT_EVENTS[0], VISIT_EVENTS[1]],
            )
            .await?;
        let ranked = |column: &str| {
            format!(
                "SELECT {column}, COUNT(*) AS n FROM analytics_event \
                 WHERE tenant_id = $1 AND occurred_ms >= $2 AND name IN ($3, $4) AND {column} IS NOT NULL AND {column} <> '' \
                 GROUP BY {column} ORDER BY n DESC, {column} LIMIT 10"
            )
        };
        let mut top = Vec::new();
        for column in ["page_path", "referrer"] {
            let rows = tx
                .query(
                    &ranked(column),
                    params![tenant, since_ms, VISIT_EVENTS[0], VISIT_EVENTS[1]],
                )
                .await?;
            top.push(
                rows.iter()
                    .map(|r| Ok((r.text(0)?, r.i64(1)?)))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        let count = |name: &'static str| {
            (
                "SELECT COUNT(*) FROM analytics_event WHERE tenant_id = $1 AND occurred_ms >= $2 AND name = $3",
                name,
            )
        };
        let mut counted = Vec::new();
        for (sql, name) in [count(ADD_TO_CART_EVENT), count(PURCHASE_EVENT)] {
            counted.push(
                tx.query_one(sql, params![tenant, since_ms, name])
                    .await?
                    .i64(0)?,
            );
        }
        tx.commit().await?;
        let unique_visitors = visits.i64(1)?;
        let referrers = top.pop().unwrap_or_default();
        let pages = top.pop().unwrap_or_default();
        Ok(AnalyticsSummary {
            since_ms,
            visits: visits.i64(0)?,
            unique_visitors,
            top_pages: pages,
            top_referrers: referrers,
            add_to_carts: counted[0],
            purchases: counted[1],
            conversion_rate: if unique_visitors > 0 {
                counted[1] as f64 / unique_visitors as f64
            } else {
                0.0
            },
        })
    }

    /// Appends analytics events.
    pub async fn record_events(&self, tenant: TenantId, events: &[AnalyticsEvent]) -> Result<()> {
        // Many rows a statement: a batch costs a few statements, not one per event (each a
        // trip to the database, or to SQLite's thread), so the writer takes little of the
        // CPU the pages need.
        const ROWS_PER_INSERT: usize = 100;
        const COLUMNS: usize = 7;
        let mut tx = self.write().await?;
        for chunk in events.chunks(ROWS_PER_INSERT) {
            let mut sql = String::from(
                "INSERT INTO analytics_event (tenant_id, occurred_ms, name, page_path, visitor_id, data, referrer) VALUES ",
            );
            let mut values = Vec::with_capacity(chunk.len() * COLUMNS);
            for (i, e) in chunk.iter().enumerate() {
                if i > 0 {
                    sql.push_str(", ");
                }
                sql.push('(');
                for c in 1..=COLUMNS {
                    if c > 1 {
                        sql.push_str(", ");
                    }
                    sql.push_str(&format!("${}", i * COLUMNS + c));
                }
                sql.push(')');
                values.extend(params![
                    tenant,
                    e.occurred_ms,
                    e.name.as_str(),
                    e.page_path.as_str(),
                    e.visitor_id.clone(),
                    &e.data,
                    e.referrer.clone()
                ]);
            }
            tx.execute(&sql, values).await?;
        }
        tx.commit().await
    }

    /// Events at or after `since_ms`, oldest first, at most `limit`.
    pub async fn events(
        &self,
        tenant: TenantId,
        since_ms: i64,
        limit: usize,
    ) -> Result<Vec<AnalyticsEvent>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT occurred_ms, name, page_path, visitor_id, data, referrer FROM analytics_event \
                 WHERE tenant_id = $1 AND occurred_ms >= $2 ORDER BY occurred_ms, id LIMIT $3",
                params![tenant, since_ms, limit as i64],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(AnalyticsEvent {
                    occurred_ms: r.i64(0)?,
                    name: r.text(1)?,
                    page_path: r.text(2)?,
                    visitor_id: r.opt_text(3)?,
                    data: r.json(4)?,
                    referrer: r.opt_text(5)?,
                })
            })
            .collect()
    }

    /// Appends performance records.
    pub async fn record_performance(
        &self,
        tenant: TenantId,
        records: &[PerformanceRecord],
    ) -> Result<()> {
        let mut tx = self.write().await?;
        for p in records {
            tx.execute(
                "INSERT INTO performance_record (tenant_id, page_load_id, app, event, ts_ms, data) VALUES ($1, $2, $3, $4, $5, $6)",
                params![tenant, p.page_load_id.as_str(), p.app.as_str(), p.event.as_str(), p.ts_ms, &p.data],
            )
            .await?;
        }
        tx.commit().await
    }

    /// Performance records of one page load, by time.
    pub async fn performance_records(
        &self,
        tenant: TenantId,
        page_load_id: &str,
    ) -> Result<Vec<PerformanceRecord>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT page_load_id, app, event, ts_ms, data FROM performance_record \
                 WHERE tenant_id = $1 AND page_load_id = $2 ORDER BY ts_ms, id",
                params![tenant, page_load_id],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(PerformanceRecord {
                    page_load_id: r.text(0)?,
                    app: r.text(1)?,
                    event: r.text(2)?,
                    ts_ms: r.i64(3)?,
                    data: r.json(4)?,
                })
            })
            .collect()
    }
}
