//! The owner's dashboard and analytics, each screen's data in one call. Days are the site's
//! own (`website.timeZone`, [`crate::analytics::calendar`]); visits are sessions and page
//! views pages seen, as `tessera analytics` counts them, read from the quarter-hour
//! roll-ups; orders are the orders placed (not expired) and revenue the grand totals of
//! those that are paid and not cancelled, less what was refunded of them (on the order's
//! day). While the store is in test mode (`payments.testMode`) its test
//! orders count, once it is live only live ones.
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/dashboard` | any owner; each part needs its area | today, 7 and 30 days; 30 daily rows; what needs doing |
//! | `GET /api/owner/analytics?fromMs&toMs` | analytics, read | the period's daily rows, top pages, referrers, funnel, totals |
//!
//! A part the role may not read is `null`: visits and page views need analytics read;
//! orders, revenue and the order to-dos orders read; conversion both; low stock and waiting
//! restock sign-ups store read.

use std::collections::BTreeMap;

use axum::extract::State;
use serde::Serialize;
use tenants::{Span, SpanCounts};
use utoipa::ToSchema;
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::analytics::calendar::{self, MAX_DAYS};
use crate::http::call::Call;
use crate::http::commerce::money::{OwnerMoney, owner_money};
use crate::http::error::store_failure;
use crate::http::extract::{OwnerToken, Read, area};
use crate::http::owner::{Access, Area, allows};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

/// Days the dashboard's daily rows cover, today included.
pub const DASHBOARD_DAYS: usize = 30;
/// Top pages and referrers the analytics name.
pub const TOP: usize = 10;
/// The latest instant a period may name: 2100-01-01T00:00:00Z.
pub const LATEST_MS: i64 = 4_102_444_800_000;

pub const BAD_FROM: &str = "fromMs must be a time in epoch milliseconds.";
pub const BAD_TO: &str = "toMs must be a time in epoch milliseconds after fromMs.";
pub const TOO_LONG: &str = "The period is at most 366 days.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(dashboard))
        .routes(routes!(analytics))
}

/// An owner's read: 400 (analytics' period), 401, 403, 404, 503.
struct ReadErrors;

impl utoipa::IntoResponses for ReadErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = OwnerErrors::responses();
        r.remove("413");
        r
    }
}

/// What a period adds up to.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerPeriod)]
struct Period {
    /// Visits (sessions); `null` without analytics read.
    visits: Option<i64>,
    /// Page views; `null` without analytics read.
    page_views: Option<i64>,
    /// Orders placed; `null` without orders read.
    orders: Option<i64>,
    /// The paid orders' grand totals; `null` without orders read.
    revenue: Option<OwnerMoney>,
    /// Orders per visit, 0 to 1 (0 without visits); `null` unless the role reads both.
    conversion: Option<f64>,
}

/// The dashboard's three periods, each ending now.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerPeriods)]
struct Periods {
    /// Today, in the site's time zone.
    today: Period,
    /// The last 7 days, today included.
    days7: Period,
    /// The last 30 days, today included.
    days30: Period,
}

/// One day of the site's calendar.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerDay)]
struct Day {
    /// The day's first instant (its local midnight), epoch ms.
    day_ms: i64,
    /// `null` without analytics read.
    visits: Option<i64>,
    /// `null` without analytics read.
    page_views: Option<i64>,
    /// `null` without orders read.
    orders: Option<i64>,
    /// The paid orders' grand totals, minor units; `null` without orders read.
    revenue_minor: Option<i64>,
}

/// What needs doing.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerTodo)]
struct Todo {
    /// Paid orders to send (every paid order that is not a gift card purchase, until orders
    /// can be marked fulfilled); `null` without orders read.
    to_fulfil: Option<i64>,
    /// Orders awaiting a pay-later payment; `null` without orders read.
    unpaid: Option<i64>,
    /// Variants with counted stock at or under `restock.lowStockAt` (default 5); `null`
    /// without store read.
    low_stock: Option<i64>,
    /// Restock sign-ups not yet sent their notice; `null` without store read.
    restock_waiting: Option<i64>,
}

/// `GET /api/owner/dashboard`.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerDashboard)]
struct Dashboard {
    periods: Periods,
    /// The last 30 days, oldest first, today last.
    daily: Vec<Day>,
    todo: Todo,
}

/// The funnel of a period.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerFunnel)]
struct Funnel {
    /// Pages seen.
    page_views: i64,
    /// Successful cart adds.
    add_to_cart: i64,
    /// Views of the checkout pages.
    checkout: i64,
    /// Orders placed by visitors (the purchase events).
    purchase: i64,
}

/// A page and its views.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerTopPage)]
struct TopPage {
    path: String,
    views: i64,
}

/// A referring site and the visits it sent (page views that came from it).
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerReferrer)]
struct Referrer {
    host: String,
    visits: i64,
}

/// `GET /api/owner/analytics`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerAnalytics)]
struct Analytics {
    /// The period's first instant (the first day's local midnight), epoch ms.
    from_ms: i64,
    /// The instant after the period (the day after's local midnight), epoch ms.
    to_ms: i64,
    /// The time zone the days are counted in.
    time_zone: String,
    /// Each day of the period, oldest first.
    daily: Vec<Day>,
    /// The most viewed pages, most first, at most 10.
    top_pages: Vec<TopPage>,
    /// The referring hosts, most first, at most 10.
    referrers: Vec<Referrer>,
    funnel: Funnel,
    /// The whole period.
    totals: Period,
}

/// Which parts a role may read.
#[derive(Clone, Copy)]
struct Sees {
    analytics: bool,
    orders: bool,
}

impl Sees {
    fn of(role: u8) -> Sees {
        Sees {
            analytics: allows(role, Area::Analytics, Access::Read),
            orders: allows(role, Area::Orders, Access::Read),
        }
    }

    fn day(self, span: &Span, c: &SpanCounts) -> Day {
        Day {
            day_ms: span.start_ms,
            visits: self.analytics.then_some(c.visits),
            page_views: self.analytics.then_some(c.page_views),
            orders: self.orders.then_some(c.orders),
            revenue_minor: self.orders.then_some(c.revenue_minor),
        }
    }

    fn period(self, c: &SpanCounts, call: &Call) -> Period {
        let site = &call.site.content;
        let conversion = if c.visits > 0 {
            (c.orders as f64 / c.visits as f64).min(1.0)
        } else {
            0.0
        };
        Period {
            visits: self.analytics.then_some(c.visits),
            page_views: self.analytics.then_some(c.page_views),
            orders: self.orders.then_some(c.orders),
            revenue: self
                .orders
                .then(|| owner_money(c.revenue_minor, &call.settings().currency, &site.locale)),
            conversion: (self.analytics && self.orders).then_some(conversion),
        }
    }
}

/// Test orders count while the store is in test mode.
fn test_orders(call: &Call) -> bool {
    call.settings().payments.test_mode
}

/// `GET /api/owner/dashboard`: today, the last 7 and 30 days (visits, page views, orders,
/// revenue, conversion), the last 30 days one by one, and what needs doing.
///
/// Any owner may call it; each part the role may not read is `null`.
#[utoipa::path(get, path = "/api/owner/dashboard", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = Dashboard), ReadErrors))]
async fn dashboard(State(app): State<App>, owner: OwnerToken) -> Result<Json<Dashboard>, ApiError> {
    // Any owner may ask; what the role reads is decided part by part.
    let Some(role) = owner.role else {
        // No live token of this site: the owner routes' 401.
        return Err(owner
            .may(Area::Content, Access::Read)
            .err()
            .unwrap_or_else(ApiError::unavailable));
    };
    let sees = Sees::of(role);
    let tz = calendar::zone(&owner.site.content.time_zone);
    let today = calendar::date_of(tenants::now_ms(), &tz).ok_or_else(ApiError::unavailable)?;
    let first = today
        .checked_sub(jiff::Span::new().days(DASHBOARD_DAYS as i64 - 1))
        .map_err(|_| ApiError::unavailable())?;
    let days =
        calendar::days(first, today, &tz, DASHBOARD_DAYS).ok_or_else(ApiError::unavailable)?;
    let n = days.len();
    let mut spans = days.clone();
    for back in [1, 7, DASHBOARD_DAYS] {
        spans.push(calendar::whole(&days[n - back..]).ok_or_else(ApiError::unavailable)?);
    }
    let tenant = owner.site.tenant.id;
    let counts = app
        .store
        .span_counts(tenant, &spans, test_orders(&owner))
        .await
        .map_err(|e| store_failure(&e))?;
    let store_read = allows(role, Area::Store, Access::Read);
    let todo = if sees.orders || store_read {
        let low = owner.call.settings().restock.low_stock_at;
        let t = app
            .store
            .owner_todo(tenant, low, test_orders(&owner))
            .await
            .map_err(|e| store_failure(&e))?;
        Todo {
            to_fulfil: sees.orders.then_some(t.to_fulfil),
            unpaid: sees.orders.then_some(t.unpaid),
            low_stock: store_read.then_some(t.low_stock),
            restock_waiting: store_read.then_some(t.restock_waiting),
        }
    } else {
        Todo {
            to_fulfil: None,
            unpaid: None,
            low_stock: None,
            restock_waiting: None,
        }
    };
    let daily = days
        .iter()
        .zip(&counts)
        .map(|(s, c)| sees.day(s, c))
        .collect();
    Ok(Json(Dashboard {
        periods: Periods {
            today: sees.period(&counts[n], &owner),
            days7: sees.period(&counts[n + 1], &owner),
            days30: sees.period(&counts[n + 2], &owner),
        },
        daily,
        todo,
    }))
}

/// An instant parameter: `None` when absent, a field error when not a time in range.
fn instant(call: &Call, name: &str, message: &str) -> Result<Option<i64>, ApiError> {
    match call.query(name) {
        None => Ok(None),
        Some(v) => v
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|ms| (0..=LATEST_MS).contains(ms))
            .map(Some)
            .ok_or_else(|| ApiError::field(name, message)),
    }
}

/// `GET /api/owner/analytics?fromMs&toMs`: the days of a period in the site's time zone
/// (from the day holding `fromMs` to the day holding the instant before `toMs`; the last
/// 30 days unless given; at most 366 days): visits, page views, orders and revenue per day,
/// the top pages and referrers, the funnel page view → add to cart → checkout → purchase,
/// and the totals.
#[utoipa::path(get, path = "/api/owner/analytics", tag = OWNER,
    params(
        ("fromMs" = Option<i64>, Query, minimum = 0, maximum = 4_102_444_800_000_i64,
            description = "An instant of the first day, epoch ms (29 days before toMs's day unless given)."),
        ("toMs" = Option<i64>, Query, minimum = 0, maximum = 4_102_444_800_000_i64,
            description = "The instant after the period, epoch ms (now unless given); after fromMs, at most 366 days on."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = Analytics), ReadErrors))]
async fn analytics(
    State(app): State<App>,
    owner: Owner<area::Analytics, Read>,
) -> Result<Json<Analytics>, ApiError> {
    let from = instant(&owner, "fromMs", BAD_FROM)?;
    let to = instant(&owner, "toMs", BAD_TO)?;
    if let (Some(from), Some(to)) = (from, to)
        && to <= from
    {
        return Err(ApiError::field("toMs", BAD_TO));
    }
    let tz = calendar::zone(&owner.site.content.time_zone);
    let to = to.unwrap_or_else(tenants::now_ms);
    let last = calendar::date_of(to.saturating_sub(1).max(0), &tz)
        .ok_or_else(|| ApiError::field("toMs", BAD_TO))?;
    let first = match from {
        Some(from) => {
            calendar::date_of(from, &tz).ok_or_else(|| ApiError::field("fromMs", BAD_FROM))?
        }
        None => last
            .checked_sub(jiff::Span::new().days(DASHBOARD_DAYS as i64 - 1))
            .map_err(|_| ApiError::field("toMs", BAD_TO))?,
    };
    let days = calendar::days(first, last, &tz, MAX_DAYS)
        .ok_or_else(|| ApiError::field("toMs", TOO_LONG))?;
    let period = calendar::whole(&days).ok_or_else(|| ApiError::field("toMs", BAD_TO))?;
    let mut spans = days.clone();
    spans.push(period);
    let tenant = owner.site.tenant.id;
    let counts = app
        .store
        .span_counts(tenant, &spans, test_orders(&owner))
        .await
        .map_err(|e| store_failure(&e))?;
    let (pages, referrers) = app
        .store
        .span_top(tenant, period, TOP)
        .await
        .map_err(|e| store_failure(&e))?;
    let sees = Sees::of(owner.role);
    let total = &counts[days.len()];
    Ok(Json(Analytics {
        from_ms: period.start_ms,
        to_ms: period.end_ms,
        time_zone: tz.iana_name().unwrap_or("UTC").to_owned(),
        daily: days
            .iter()
            .zip(&counts)
            .map(|(s, c)| sees.day(s, c))
            .collect(),
        top_pages: pages
            .into_iter()
            .map(|(path, views)| TopPage { path, views })
            .collect(),
        referrers: referrers
            .into_iter()
            .map(|(host, visits)| Referrer { host, visits })
            .collect(),
        funnel: Funnel {
            page_views: total.page_views,
            add_to_cart: total.add_to_carts,
            checkout: total.checkouts,
            purchase: total.purchases,
        },
        totals: sees.period(total, &owner),
    }))
}
