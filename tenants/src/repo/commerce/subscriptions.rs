//! Subscriptions: started by an order for a subscription product, with the product's plan
//! (SPEC.md §3 "Subscription": billing period and number of cycles, 0 = never ends).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Result, StoreError};
use crate::ids::{TenantId, new_id};
use crate::params;
use crate::sql::{Row, Tx};

/// A subscription bought by an order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// 24-hex id.
    pub id: String,
    /// The order that started it.
    pub order_id: String,
    /// The product.
    pub item_id: String,
    /// The variant.
    pub sku: String,
    /// Units per period.
    pub quantity: i64,
    /// ISO currency code.
    pub currency: String,
    /// Price of one unit per period, minor units.
    pub unit_price_minor: i64,
    /// Billing period: how many units of `period_unit`.
    pub period_value: i64,
    /// `WEEK`, `MONTH` or `YEAR`.
    pub period_unit: String,
    /// Cycles in all; 0 = it never ends.
    pub num_billing_cycles: i64,
    /// Cycles paid so far (the order paid the first).
    pub cycles_billed: i64,
    /// When it bills next (epoch ms); `None` once every cycle is paid.
    pub next_billing_ms: Option<i64>,
    /// `active`, or `completed` once every cycle is paid.
    pub status: String,
    /// Epoch ms.
    pub created_ms: i64,
}

/// A product's plan (`structuredContent.subscriptionPlan`): `(value, unit, cycles)`.
pub(crate) fn plan(structured: &serde_json::Map<String, Value>) -> Result<(i64, String, i64)> {
    let p = structured.get("subscriptionPlan").ok_or_else(|| {
        StoreError::Invalid("a subscription product without subscriptionPlan".into())
    })?;
    let value = p
        .pointer("/billingPeriod/value")
        .and_then(Value::as_i64)
        .unwrap_or(1);
    let unit = p
        .pointer("/billingPeriod/unit")
        .and_then(Value::as_str)
        .unwrap_or("MONTH")
        .to_ascii_uppercase();
    let cycles = p
        .get("numBillingCycles")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    if value < 1 || cycles < 0 || !matches!(unit.as_str(), "WEEK" | "MONTH" | "YEAR") {
        return Err(StoreError::Invalid(format!(
            "subscription plan {p}: the period must be 1 or more WEEK, MONTH or YEAR and the cycles 0 or more"
        )));
    }
    Ok((value, unit, cycles))
}

/// `from` plus `value` periods of `unit`, in the store's time zone (so a monthly plan bought
/// on the 31st bills on the last day of shorter months, and daylight-saving changes keep the
/// local time).
pub(super) fn after_period(from_ms: i64, value: i64, unit: &str, time_zone: &str) -> Result<i64> {
    let tz = jiff::tz::TimeZone::get(time_zone).unwrap_or(jiff::tz::TimeZone::UTC);
    let start = jiff::Timestamp::from_millisecond(from_ms)
        .map_err(|e| StoreError::Invalid(e.to_string()))?
        .to_zoned(tz);
    let span = match unit {
        "WEEK" => jiff::Span::new().try_weeks(value),
        "YEAR" => jiff::Span::new().try_years(value),
        _ => jiff::Span::new().try_months(value),
    }
    .map_err(|e| StoreError::Invalid(e.to_string()))?;
    let next = start
        .checked_add(span)
        .map_err(|e| StoreError::Invalid(e.to_string()))?;
    Ok(next.timestamp().as_millisecond())
}

/// Starts the subscription an order line bought; the order paid the first cycle.
#[allow(clippy::too_many_arguments)]
pub(super) async fn start(
    tx: &mut Tx,
    tenant: TenantId,
    order_id: &str,
    line: &super::OrderLine,
    currency: &str,
    structured: &serde_json::Map<String, Value>,
    time_zone: &str,
    now_ms: i64,
) -> Result<()> {
    let (value, unit, cycles) = plan(structured)?;
    let done = cycles == 1;
    let next = if done {
        None
    } else {
        Some(after_period(now_ms, value, &unit, time_zone)?)
    };
    tx.execute(
        "INSERT INTO subscription (tenant_id, id, order_id, item_id, sku, quantity, currency, unit_price_minor, \
         period_value, period_unit, num_billing_cycles, cycles_billed, next_billing_ms, status, created_ms) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 1, $12, $13, $14)",
        params![
            tenant,
            new_id(),
            order_id,
            line.item_id.as_str(),
            line.sku.as_str(),
            line.quantity,
            currency,
            line.unit_price_minor,
            value,
            unit.as_str(),
            cycles,
            next,
            if done { "completed" } else { "active" },
            now_ms
        ],
    )
    .await?;
    Ok(())
}

pub(super) const COLUMNS: &str = "id, order_id, item_id, sku, quantity, currency, unit_price_minor, period_value, period_unit, \
                       num_billing_cycles, cycles_billed, next_billing_ms, status, created_ms";

pub(super) fn from_row(r: &Row) -> Result<Subscription> {
    Ok(Subscription {
        id: r.text(0)?,
        order_id: r.text(1)?,
        item_id: r.text(2)?,
        sku: r.text(3)?,
        quantity: r.i64(4)?,
        currency: r.text(5)?,
        unit_price_minor: r.i64(6)?,
        period_value: r.i64(7)?,
        period_unit: r.text(8)?,
        num_billing_cycles: r.i64(9)?,
        cycles_billed: r.i64(10)?,
        next_billing_ms: r.opt_i64(11)?,
        status: r.text(12)?,
        created_ms: r.i64(13)?,
    })
}

/// The statement reading an order's subscriptions, for a batch ([`Tx::query_all`]).
pub(super) fn of_order_statement(
    tenant: TenantId,
    order_id: &str,
) -> (String, Vec<crate::sql::SqlValue>) {
    (
        format!(
            "SELECT {COLUMNS} FROM subscription WHERE tenant_id = $1 AND order_id = $2 ORDER BY created_ms, id"
        ),
        params![tenant, order_id],
    )
}

/// The subscriptions in [`of_order_statement`]'s rows.
pub(super) fn of_order_rows(rows: &[Row]) -> Result<Vec<Subscription>> {
    rows.iter().map(from_row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(s: &str) -> i64 {
        s.parse::<jiff::Timestamp>().unwrap().as_millisecond()
    }

    #[test]
    fn periods_count_in_the_store_time_zone() {
        // Monthly from 31 January: the last day of February.
        let jan31 = ms("2026-01-31T10:00:00Z");
        assert_eq!(
            after_period(jan31, 1, "MONTH", "UTC").unwrap(),
            ms("2026-02-28T10:00:00Z")
        );
        assert_eq!(
            after_period(jan31, 2, "WEEK", "UTC").unwrap(),
            ms("2026-02-14T10:00:00Z")
        );
        assert_eq!(
            after_period(jan31, 1, "YEAR", "UTC").unwrap(),
            ms("2027-01-31T10:00:00Z")
        );
        // Across the spring change in Amsterdam, 09:00 local stays 09:00 local.
        let before = ms("2026-03-20T08:00:00Z"); // 09:00 CET
        assert_eq!(
            after_period(before, 1, "WEEK", "Europe/Amsterdam").unwrap(),
            ms("2026-03-27T08:00:00Z") // still CET (the change is on the 29th)
        );
        assert_eq!(
            after_period(before, 2, "WEEK", "Europe/Amsterdam").unwrap(),
            ms("2026-04-03T07:00:00Z") // 09:00 CEST
        );
    }

    #[test]
    fn plans_are_read_and_checked() {
        let sc = |v: Value| v.as_object().unwrap().clone();
        let p = plan(&sc(serde_json::json!({"subscriptionPlan": {"billingPeriod": {"value": 3, "unit": "month"}, "numBillingCycles": 4}}))).unwrap();
        assert_eq!(p, (3, "MONTH".to_string(), 4));
        assert!(plan(&sc(serde_json::json!({}))).is_err());
        assert!(plan(&sc(serde_json::json!({"subscriptionPlan": {"billingPeriod": {"value": 1, "unit": "DAY"}}}))).is_err());
    }
}
