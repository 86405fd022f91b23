//! Visitor analytics events and page performance records: append-only, per tenant.

use std::collections::BTreeMap;

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

/// The key of a page view's data that names its visit (a session of the site's
/// visitor): the visits of a period are the distinct visits among its page views.
pub const SESSION_KEY: &str = "session";
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
    /// Visits: sessions of 30 minutes from a visitor's first page (distinct sessions among
    /// the page views; a site that keeps visitors unnamed has none).
    pub visits: i64,
    /// Pages seen.
    pub page_views: i64,
    /// Distinct visitor cookies among the visits.
    pub unique_visitors: i64,
    /// (path, page views), most first, at most 10.
    pub top_pages: Vec<(String, i64)>,
    /// (host, page views), most first, at most 10.
    pub top_referrers: Vec<(String, i64)>,
    /// Successful cart adds.
    pub add_to_carts: i64,
    /// Orders placed.
    pub purchases: i64,
    /// Purchases per unique visitor (0 without visitors).
    pub conversion_rate: f64,
}

/// Milliseconds in a roll-up day.
pub const DAY_MS: i64 = 86_400_000;

/// The roll-up day (UTC, days since the Unix epoch) of an instant in epoch milliseconds.
pub fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// The roll-up metrics (`analytics_day.metric`, see migration 8).
mod metric {
    pub const EVENT: &str = "event";
    pub const PAGE: &str = "page";
    pub const REFERRER: &str = "referrer";
    pub const VISITOR: &str = "visitor";
    pub const SESSION: &str = "session";
}

/// A roll-up row's key: (metric, day or slot, label).
type DayKey<'e> = (&'static str, i64, &'e str);

/// Milliseconds in a quarter-hour roll-up slot (`analytics_slot`, migration 15).
pub const SLOT_MS: i64 = 900_000;

/// The quarter-hour slot of an instant in epoch milliseconds.
pub fn slot_of(ms: i64) -> i64 {
    ms.div_euclid(SLOT_MS)
}

/// What a batch of events adds to the roll-ups of one granularity: (metric, bucket, label)
/// → count. The daily roll-ups count visitors, the quarter-hour ones do not.
fn roll_up(
    events: &[AnalyticsEvent],
    bucket: fn(i64) -> i64,
    visitors: bool,
) -> BTreeMap<DayKey<'_>, i64> {
    fn add<'e>(days: &mut BTreeMap<DayKey<'e>, i64>, key: DayKey<'e>) {
        if !key.2.is_empty() {
            *days.entry(key).or_insert(0) += 1;
        }
    }
    let mut days = BTreeMap::new();
    for e in events {
        let day = bucket(e.occurred_ms);
        add(&mut days, (metric::EVENT, day, &e.name));
        if VISIT_EVENTS.contains(&e.name.as_str()) {
            add(&mut days, (metric::PAGE, day, &e.page_path));
            let referrer = e.referrer.as_deref().unwrap_or("");
            add(&mut days, (metric::REFERRER, day, referrer));
            if visitors {
                let visitor = e.visitor_id.as_deref().unwrap_or("");
                add(&mut days, (metric::VISITOR, day, visitor));
            }
            let session = e.data.get(SESSION_KEY).and_then(|s| s.as_str());
            add(&mut days, (metric::SESSION, day, session.unwrap_or("")));
        }
    }
    days
}

/// `INSERT … VALUES ($1, $2, …), (…)` for `rows` rows of `columns` columns.
fn insert_rows(head: &str, rows: usize, columns: usize) -> String {
    let mut sql = format!("{head} VALUES ");
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for c in 1..=columns {
            if c > 1 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("${}", r * columns + c));
        }
        sql.push(')');
    }
    sql
}

/// Many rows a statement: a batch costs a few statements, not one per event (each a trip to
/// the database, or to SQLite's thread), so the writer takes little of the CPU pages need.
const ROWS_PER_INSERT: usize = 100;

impl Store {
    /// The summary of the roll-up days from `since_day` ([`day_of`]) on, read from the daily
    /// roll-ups: a few rows a day whatever the traffic.
    pub async fn analytics_summary(
        &self,
        tenant: TenantId,
        since_day: i64,
    ) -> Result<AnalyticsSummary> {
        let mut tx = self.read().await?;
        let sum = |filter: &str| {
            format!(
                "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM analytics_day \
                 WHERE tenant_id = $1 AND metric = $2 AND day >= $3 AND {filter}"
            )
        };
        let page_views = tx
            .query_one(
                &sum("label IN ($4, $5)"),
                params![
                    tenant,
                    metric::EVENT,
                    since_day,
                    VISIT_EVENTS[0],
                    VISIT_EVENTS[1]
                ],
            )
            .await?
            .i64(0)?;
        let mut counted = Vec::new();
        for name in [ADD_TO_CART_EVENT, PURCHASE_EVENT] {
            counted.push(
                tx.query_one(
                    &sum("label = $4"),
                    params![tenant, metric::EVENT, since_day, name],
                )
                .await?
                .i64(0)?,
            );
        }
        let mut distinct = Vec::new();
        for m in [metric::VISITOR, metric::SESSION] {
            distinct.push(
                tx.query_one(
                    "SELECT COUNT(DISTINCT label) FROM analytics_day \
                     WHERE tenant_id = $1 AND metric = $2 AND day >= $3",
                    params![tenant, m, since_day],
                )
                .await?
                .i64(0)?,
            );
        }
        let (unique_visitors, visits) = (distinct[0], distinct[1]);
        let mut top = Vec::new();
        for m in [metric::PAGE, metric::REFERRER] {
            let rows = tx
                .query(
                    "SELECT label, CAST(SUM(n) AS BIGINT) AS total FROM analytics_day \
                     WHERE tenant_id = $1 AND metric = $2 AND day >= $3 \
                     GROUP BY label ORDER BY total DESC, label LIMIT 10",
                    params![tenant, m, since_day],
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
        let pages = top.pop().unwrap_or_default();
        Ok(AnalyticsSummary {
            since_ms: since_day * DAY_MS,
            visits,
            page_views,
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

    /// Appends analytics events and counts them into the daily roll-ups, in one transaction.
    pub async fn record_events(&self, tenant: TenantId, events: &[AnalyticsEvent]) -> Result<()> {
        const COLUMNS: usize = 7;
        let mut tx = self.write().await?;
        for chunk in events.chunks(ROWS_PER_INSERT) {
            let mut values = Vec::with_capacity(chunk.len() * COLUMNS);
            for e in chunk {
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
            let sql = insert_rows(
                "INSERT INTO analytics_event (tenant_id, occurred_ms, name, page_path, visitor_id, data, referrer)",
                chunk.len(),
                COLUMNS,
            );
            tx.execute(&sql, values).await?;
        }
        // Counted up, not recounted: each (metric, day, label) appears once a statement, so
        // PostgreSQL's ON CONFLICT never meets the same row twice.
        let days: Vec<_> = roll_up(events, day_of, true).into_iter().collect();
        for chunk in days.chunks(ROWS_PER_INSERT) {
            let mut values = Vec::with_capacity(chunk.len() * 5);
            for ((m, day, label), n) in chunk {
                values.extend(params![tenant, *m, *day, *label, *n]);
            }
            let sql = insert_rows(
                "INSERT INTO analytics_day (tenant_id, metric, day, label, n)",
                chunk.len(),
                5,
            ) + " ON CONFLICT (tenant_id, metric, day, label) DO UPDATE SET n = analytics_day.n + EXCLUDED.n";
            tx.execute(&sql, values).await?;
        }
        let slots: Vec<_> = roll_up(events, slot_of, false).into_iter().collect();
        for chunk in slots.chunks(ROWS_PER_INSERT) {
            let mut values = Vec::with_capacity(chunk.len() * 5);
            for ((m, slot, label), n) in chunk {
                values.extend(params![tenant, *m, *slot, *label, *n]);
            }
            let sql = insert_rows(
                "INSERT INTO analytics_slot (tenant_id, metric, slot, label, n)",
                chunk.len(),
                5,
            ) + " ON CONFLICT (tenant_id, metric, slot, label) DO UPDATE SET n = analytics_slot.n + EXCLUDED.n";
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
