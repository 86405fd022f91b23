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

impl Store {
    /// Appends analytics events.
    pub async fn record_events(&self, tenant: TenantId, events: &[AnalyticsEvent]) -> Result<()> {
        let mut tx = self.write().await?;
        for e in events {
            tx.execute(
                "INSERT INTO analytics_event (tenant_id, occurred_ms, name, page_path, visitor_id, data) VALUES ($1, $2, $3, $4, $5, $6)",
                params![tenant, e.occurred_ms, e.name.as_str(), e.page_path.as_str(), e.visitor_id.clone(), &e.data],
            )
            .await?;
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
                "SELECT occurred_ms, name, page_path, visitor_id, data FROM analytics_event \
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
