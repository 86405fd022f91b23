//! The owner's orders: the list, its CSV export, an order's page and the moves on it.
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/orders` | orders, read | `{orders: OrderSummary[], next}` newest first, filtered and paged |
//! | `GET /api/owner/orders.csv` | orders, read | the same orders as CSV (every page, at most [`MAX_CSV_ROWS`]) |
//! | `GET /api/owner/orders/{id}` | orders, read | `OrderDetail` |
//! | `POST /api/owner/orders/{id}/mark-paid` | orders, write | `OrderDetail` |
//! | `POST /api/owner/orders/{id}/fulfilments` | orders, write | `OrderDetail` |
//! | `POST /api/owner/orders/{id}/cancel` | orders, write | `OrderDetail` |
//! | `POST /api/owner/orders/{id}/refunds` | orders, write | `OrderDetail` |
//! | `POST /api/owner/orders/{id}/resend-confirmation` | orders, write | `OrderDetail` |
//!
//! A move the order's state does not allow is 409 with the state machine's message
//! ([`tenants::commerce::order_state`]); another site's order is 404. Store managers read
//! orders but do not act on them (every move emails the buyer, and most move stock or
//! money): the moves are for admins and website managers ([`crate::http::owner::allows`]).

use std::collections::BTreeMap;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tenants::commerce::order_state::{Action, Fulfilment, Illegal, Payment, RefundRequest};
use tenants::{Order, OrderPage, OrderQuery, OrderRecord, OrderSummary, PaymentMethod, Store};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::commerce::money::{OwnerMoney, money_text, owner_money};
use crate::http::commerce::session::DOWNLOAD_LINK_LIFETIME;
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::owner::{Access, Area, allows};
use crate::http::site::Site;
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;
use crate::services::owner::orders::{self as flow, Mover, OrderMoveError};

/// The answer for an order that is not this site's.
pub const NO_ORDER: &str = "That order does not exist.";
/// The most rows one CSV export holds.
pub const MAX_CSV_ROWS: usize = 100_000;
/// The orders one page of the list holds unless `limit` says otherwise.
pub const DEFAULT_LIMIT: i64 = 50;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(csv))
        .routes(routes!(detail))
        .routes(routes!(mark_paid))
        .routes(routes!(fulfil))
        .routes(routes!(cancel))
        .routes(routes!(refund))
        .routes(routes!(resend_confirmation))
}

fn money(minor: i64, currency: &str, site: &Site) -> OwnerMoney {
    owner_money(minor, currency, &site.content.locale)
}

/// An order in the owner's list.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerOrderSummary)]
pub struct SummaryJson {
    id: String,
    number: i64,
    /// When it was placed (epoch ms).
    placed_ms: i64,
    email: String,
    /// The billing (else shipping) name, "" when checkout asked none.
    name: String,
    total: OwnerMoney,
    /// `awaiting-payment`, `paid`, `partially-refunded`, `refunded` or `expired`.
    payment: String,
    /// `unfulfilled`, `partially-fulfilled`, `fulfilled` or `not-required`.
    fulfilment: String,
    cancelled: bool,
    /// Units ordered.
    item_count: i64,
    test_mode: bool,
}

fn summary_json(o: &OrderSummary, site: &Site) -> SummaryJson {
    SummaryJson {
        id: o.id.clone(),
        number: o.number,
        placed_ms: o.placed_ms,
        email: o.email.clone(),
        name: o.name.clone(),
        total: money(o.total_minor, &o.currency, site),
        payment: o.payment.as_str().to_owned(),
        fulfilment: o.fulfilment.as_str().to_owned(),
        cancelled: o.cancelled,
        item_count: o.item_count,
        test_mode: o.test_mode,
    }
}

fn summary_of_order(o: &Order, site: &Site) -> SummaryJson {
    SummaryJson {
        id: o.id.clone(),
        number: o.order_number,
        placed_ms: o.created_ms,
        email: o.customer_email.clone(),
        name: o.customer_name.clone(),
        total: money(o.grand_total_minor, &o.currency, site),
        payment: o.status.as_str().to_owned(),
        fulfilment: o.fulfilment.as_str().to_owned(),
        cancelled: o.cancelled_ms.is_some(),
        item_count: o.lines.iter().map(|l| l.quantity).sum(),
        test_mode: o.test_mode,
    }
}

/// A page of the owner's list.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerOrderList)]
struct ListJson {
    /// Newest first.
    orders: Vec<SummaryJson>,
    /// `after` for the next page; null on the last.
    next: Option<String>,
}

/// The list's filters (the CSV export takes the same, without paging).
#[derive(Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
#[allow(dead_code)] // read through `Call::query`, documented here
struct ListParams {
    /// An order number (`12` or `#12`), or part of the buyer's email or name; at most 200
    /// characters.
    q: Option<String>,
    /// `awaiting-payment`, `paid`, `partially-refunded`, `refunded` or `expired`.
    payment: Option<String>,
    /// `unfulfilled`, `partially-fulfilled`, `fulfilled` or `not-required`.
    fulfilment: Option<String>,
    /// `true`: only cancelled orders; `false`: only the others.
    cancelled: Option<bool>,
    /// Placed at or after (epoch ms).
    from_ms: Option<i64>,
    /// Placed before (epoch ms).
    to_ms: Option<i64>,
    /// The previous page's `next`.
    after: Option<String>,
    /// Orders per page, 1 to 200 (50 when not given).
    limit: Option<i64>,
}

/// The list's query from the call's parameters; 400 naming the parameter otherwise.
fn list_query(owner: &Owner<area::Orders, Read>) -> Result<OrderQuery, ApiError> {
    let int = |name: &str| -> Result<Option<i64>, ApiError> {
        owner
            .query(name)
            .filter(|v| !v.is_empty())
            .map(|v| {
                v.parse::<i64>()
                    .map_err(|_| ApiError::field(name, "Must be a whole number."))
            })
            .transpose()
    };
    let payment = match owner.query("payment").filter(|v| !v.is_empty()) {
        None => None,
        Some(v) => Some(Payment::parse(&v).ok_or_else(|| {
            ApiError::field(
                "payment",
                "One of awaiting-payment, paid, partially-refunded, refunded, expired.",
            )
        })?),
    };
    let fulfilment = match owner.query("fulfilment").filter(|v| !v.is_empty()) {
        None => None,
        Some(v) => Some(Fulfilment::parse(&v).ok_or_else(|| {
            ApiError::field(
                "fulfilment",
                "One of unfulfilled, partially-fulfilled, fulfilled, not-required.",
            )
        })?),
    };
    let cancelled = match owner.query("cancelled").as_deref() {
        None | Some("") => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(_) => return Err(ApiError::field("cancelled", "true or false.")),
    };
    let limit = int("limit")?.unwrap_or(DEFAULT_LIMIT);
    if !(1..=tenants::MAX_ORDER_PAGE).contains(&limit) {
        return Err(ApiError::field(
            "limit",
            format!("From 1 to {}.", tenants::MAX_ORDER_PAGE),
        ));
    }
    let q = owner.query("q");
    if q.as_ref()
        .is_some_and(|q| q.trim().chars().count() > tenants::MAX_ORDER_SEARCH_CHARS)
    {
        return Err(ApiError::field(
            "q",
            format!("At most {} characters.", tenants::MAX_ORDER_SEARCH_CHARS),
        ));
    }
    Ok(OrderQuery {
        q,
        payment,
        fulfilment,
        cancelled,
        from_ms: int("fromMs")?,
        to_ms: int("toMs")?,
        after: owner.query("after").filter(|v| !v.is_empty()),
        limit,
    })
}

fn list_failure(e: &tenants::StoreError) -> ApiError {
    match e {
        tenants::StoreError::Invalid(m) => {
            let field = m.split(':').next().unwrap_or("q");
            ApiError::field(field, m.clone())
        }
        e => store_failure(e),
    }
}

/// `GET /api/owner/orders`: the site's orders, newest first, filtered, a page at a time.
#[utoipa::path(get, path = "/api/owner/orders", tag = OWNER,
    params(ListParams),
    security(("ownerToken" = [])),
    responses((status = 200, body = ListJson), OwnerErrors))]
async fn list(
    State(store): State<Store>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<ListJson>, ApiError> {
    let q = list_query(&owner)?;
    let OrderPage { orders, next } = store
        .order_page(owner.site.tenant.id, &q)
        .await
        .map_err(|e| list_failure(&e))?;
    Ok(Json(ListJson {
        orders: orders
            .iter()
            .map(|o| summary_json(o, &owner.site))
            .collect(),
        next,
    }))
}

/// A CSV field: quoted when it needs to be, and a value a spreadsheet would read as a
/// formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) led by `'`.
pub fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_owned()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

const CSV_HEADER: &str =
    "number,placed,email,name,total,currency,payment,fulfilment,cancelled,items,test\r\n";

fn csv_row(o: &OrderSummary) -> String {
    let placed = jiff::Timestamp::from_millisecond(o.placed_ms)
        .map(|t| t.to_string())
        .unwrap_or_default();
    let total = crate::http::commerce::money::money_of(o.total_minor, &o.currency).value;
    [
        o.number.to_string(),
        placed,
        o.email.clone(),
        o.name.clone(),
        total,
        o.currency.clone(),
        o.payment.as_str().to_owned(),
        o.fulfilment.as_str().to_owned(),
        o.cancelled.to_string(),
        o.item_count.to_string(),
        o.test_mode.to_string(),
    ]
    .iter()
    .map(|f| csv_field(f))
    .collect::<Vec<_>>()
    .join(",")
        + "\r\n"
}

/// `GET /api/owner/orders.csv`: the orders the list's filters select, every page, as CSV
/// (a header row, then one row per order, newest first; at most 100,000 rows). Streamed a
/// page at a time.
#[utoipa::path(get, path = "/api/owner/orders.csv", tag = OWNER,
    params(ListParams),
    security(("ownerToken" = [])),
    responses((status = 200, content_type = "text/csv", body = String,
        description = "`number,placed,email,name,total,currency,payment,fulfilment,cancelled,items,test`, \
                       then a row per order; a value starting with = + - @ is led by '."),
        OwnerErrors))]
async fn csv(
    State(store): State<Store>,
    owner: Owner<area::Orders, Read>,
) -> Result<Response, ApiError> {
    let mut q = list_query(&owner)?;
    q.limit = tenants::MAX_ORDER_PAGE;
    q.after = None;
    let tenant = owner.site.tenant.id;
    // The first page now, so a bad filter is a 400 rather than a broken download.
    let first = store
        .order_page(tenant, &q)
        .await
        .map_err(|e| list_failure(&e))?;
    struct Walk {
        store: Store,
        q: OrderQuery,
        page: Option<OrderPage>,
        rows: usize,
        header: bool,
    }
    let walk = Walk {
        store,
        q,
        page: Some(first),
        rows: 0,
        header: true,
    };
    let stream = futures_util::stream::unfold(walk, move |mut w| async move {
        if w.header {
            w.header = false;
            return Some((Ok::<_, std::io::Error>(CSV_HEADER.to_owned()), w));
        }
        let page = match w.page.take() {
            Some(p) => p,
            None => return None,
        };
        let mut chunk = String::new();
        for o in &page.orders {
            if w.rows >= MAX_CSV_ROWS {
                return Some((Ok(chunk), w));
            }
            chunk.push_str(&csv_row(o));
            w.rows += 1;
        }
        if let Some(next) = page.next.filter(|_| w.rows < MAX_CSV_ROWS) {
            w.q.after = Some(next);
            match w.store.order_page(tenant, &w.q).await {
                Ok(p) => w.page = Some(p),
                Err(e) => {
                    tracing::warn!("orders.csv stopped: {e}");
                    return Some((Err(std::io::Error::other(e.to_string())), w));
                }
            }
        }
        if chunk.is_empty() && w.page.is_none() {
            return None;
        }
        Some((Ok(chunk), w))
    });
    // Fused: a layer that polls the body again after its end gets the end again.
    let mut r = Body::from_stream(futures_util::StreamExt::fuse(stream)).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_static("attachment; filename=\"orders.csv\""),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(r)
}

/// An order's line on the owner's order page.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerOrderLine)]
struct LineJson {
    position: i64,
    item_id: String,
    sku: String,
    product_name: String,
    /// 1 physical, 2 digital, 3 service, 4 gift card.
    product_type: i64,
    attributes: BTreeMap<String, String>,
    quantity: i64,
    fulfilled_quantity: i64,
    refunded_quantity: i64,
    unit_price: OwnerMoney,
    line_total: OwnerMoney,
    additional_fields: Vec<LabelValue>,
}

/// An additional-fields answer.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerFieldAnswer)]
struct LabelValue {
    label: String,
    value: String,
}

fn answers(v: Option<&Value>) -> Vec<LabelValue> {
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    };
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| LabelValue {
                label: k.clone(),
                value: text(v),
            })
            .collect(),
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| LabelValue {
                label: x
                    .get("label")
                    .or_else(|| x.get("title"))
                    .map(text)
                    .unwrap_or_default(),
                value: x.get("value").map(text).unwrap_or_else(|| text(x)),
            })
            .collect(),
        Some(v) => vec![LabelValue {
            label: String::new(),
            value: text(v),
        }],
    }
}

#[derive(Serialize, ToSchema)]
#[schema(as = OwnerShippingOption)]
struct NameJson {
    name: String,
}

#[derive(Serialize, ToSchema)]
#[schema(as = OwnerOrderNotes)]
struct NotesJson {
    label: String,
    text: String,
}

/// A gift card the order bought.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerOrderGiftCard)]
struct GiftCardJson {
    /// The code's last four characters.
    code: String,
    balance: OwnerMoney,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerOrderDownload)]
struct DownloadJson {
    product_name: String,
    /// When a link made now stops working (epoch ms).
    expires_ms: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerOrderFulfilment)]
struct FulfilmentJson {
    id: String,
    created_ms: i64,
    carrier: String,
    tracking_number: String,
    lines: Vec<PositionQuantity>,
}

#[derive(Serialize, ToSchema)]
#[schema(as = OwnerLineUnits)]
struct PositionQuantity {
    position: i64,
    quantity: i64,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerOrderEvent)]
struct EventJson {
    at_ms: i64,
    /// `placed`, `paid`, `fulfilled`, `cancelled`, `refunded`, `refund-failed`,
    /// `confirmation-resent`, `expired`.
    kind: String,
    /// The owner's email or the token's name; "" for the store itself.
    actor: String,
    /// What happened, in words.
    text: String,
}

/// An order as the owner's order page shows it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerOrderDetail)]
pub struct DetailJson {
    #[serde(flatten)]
    summary: SummaryJson,
    lines: Vec<LineJson>,
    subtotal: OwnerMoney,
    discount: OwnerMoney,
    shipping: OwnerMoney,
    tax: OwnerMoney,
    tax_included: bool,
    gift_card_paid: OwnerMoney,
    /// What the payment method was charged.
    charged: OwnerMoney,
    refunded: OwnerMoney,
    coupons: Vec<String>,
    #[schema(value_type = Option<crate::http::commerce::json::AddressSchema>)]
    shipping_address: Option<tenants::Address>,
    #[schema(value_type = Option<crate::http::commerce::json::AddressSchema>)]
    billing_address: Option<tenants::Address>,
    shipping_option: Option<NameJson>,
    /// "Visa •••• 4242", the pay-later method's name, or "" when nothing was left to pay.
    payment_method: String,
    notes: Option<NotesJson>,
    gift_cards: Vec<GiftCardJson>,
    downloads: Vec<DownloadJson>,
    fulfilments: Vec<FulfilmentJson>,
    history: Vec<EventJson>,
    /// The moves the order's state allows now and the caller's role may make:
    /// `mark-paid`, `fulfil`, `cancel`, `refund`, `resend-confirmation`.
    actions: Vec<String>,
    /// The paid member areas the order opened for its member and that are still open
    /// (absent when none: see the owner's guide, "Paid member areas").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    member_areas: Vec<OpenedArea>,
}

/// A member area an order opened.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerOrderMemberArea)]
struct OpenedArea {
    id: String,
    /// As the site declares it (the id for an area it no longer declares).
    title: String,
}

fn event_text(kind: &str, data: &Value, currency: &str, site: &Site) -> String {
    let amount = |v: &Value| {
        v.get("amountMinor")
            .and_then(Value::as_i64)
            .map(|m| money_text(m, currency, &site.content.locale))
            .unwrap_or_default()
    };
    let s = |k: &str| data.get(k).and_then(Value::as_str).unwrap_or("");
    match kind {
        "placed" => "Order placed.".into(),
        "paid" => "Marked as paid.".into(),
        "fulfilled" => {
            let units: i64 = data["lines"]
                .as_array()
                .map(|a| a.iter().filter_map(|l| l["quantity"].as_i64()).sum())
                .unwrap_or(0);
            let mut t = format!(
                "Fulfilled {units} {}",
                if units == 1 { "item" } else { "items" }
            );
            match (s("carrier"), s("trackingNumber")) {
                ("", "") => {}
                (c, "") => t.push_str(&format!(" via {c}")),
                ("", n) => t.push_str(&format!(", tracking number {n}")),
                (c, n) => t.push_str(&format!(" via {c}, tracking number {n}")),
            }
            t + "."
        }
        "cancelled" => "Order cancelled.".into(),
        "refunded" => match s("reason") {
            "" => format!("Refunded {}.", amount(data)),
            r => format!("Refunded {}: {r}", amount(data)),
        },
        "refund-failed" => format!("Refund of {} failed: {}", amount(data), s("message")),
        "confirmation-resent" => "Confirmation resent.".into(),
        "expired" => "Expired unpaid.".into(),
        other => other.to_owned(),
    }
}

fn detail_json(r: &OrderRecord, site: &Site, role: u8) -> DetailJson {
    let o = &r.order;
    let cur = o.currency.as_str();
    let m = |minor: i64| money(minor, cur, site);
    let may_act = allows(role, Area::Orders, Access::Write);
    let downloads_open = o.paid_and_standing();
    let expires_ms = tenants::now_ms() + DOWNLOAD_LINK_LIFETIME.as_millis() as i64;
    DetailJson {
        summary: summary_of_order(o, site),
        lines: o
            .lines
            .iter()
            .map(|l| LineJson {
                position: l.position,
                item_id: l.item_id.clone(),
                sku: l.sku.clone(),
                product_name: l.product_name.clone(),
                product_type: l.product_type,
                attributes: l.attributes.clone(),
                quantity: l.quantity,
                fulfilled_quantity: l.fulfilled_quantity,
                refunded_quantity: l.refunded_quantity,
                unit_price: m(l.unit_price_minor),
                line_total: m(l.unit_price_minor.saturating_mul(l.quantity)),
                additional_fields: answers(l.additional_fields.as_ref()),
            })
            .collect(),
        subtotal: m(o.subtotal_minor),
        discount: m(o.discount_minor),
        shipping: m(o.shipping_minor),
        tax: m(o.tax_minor),
        tax_included: o.details.prices_include_tax,
        gift_card_paid: m(o.gift_card_minor),
        charged: m(o.charged_minor()),
        refunded: m(o.refunded_minor),
        coupons: o.details.coupons.iter().map(|c| c.code.clone()).collect(),
        shipping_address: o.details.shipping_address.clone(),
        billing_address: o.details.billing_address.clone(),
        shipping_option: o.details.shipping_option.as_ref().map(|s| NameJson {
            name: s.name.clone(),
        }),
        payment_method: match &o.details.payment {
            PaymentMethod::None => String::new(),
            PaymentMethod::Card { brand, last4, .. } => format!("{brand} •••• {last4}"),
            PaymentMethod::Manual { label } => label.clone(),
        },
        notes: o.details.notes.as_ref().map(|n| NotesJson {
            label: n.label.clone(),
            text: n.text.clone(),
        }),
        gift_cards: o
            .gift_cards
            .iter()
            .map(|g| GiftCardJson {
                code: g
                    .code
                    .chars()
                    .rev()
                    .take(4)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect(),
                balance: money(g.balance_minor, &g.currency, site),
            })
            .collect(),
        downloads: o
            .lines
            .iter()
            .filter(|l| {
                downloads_open && l.product_type == tenants::commerce::product_type::DIGITAL
            })
            .map(|l| DownloadJson {
                product_name: l.product_name.clone(),
                expires_ms,
            })
            .collect(),
        fulfilments: r
            .fulfilments
            .iter()
            .map(|f| FulfilmentJson {
                id: f.id.clone(),
                created_ms: f.created_ms,
                carrier: f.carrier.clone(),
                tracking_number: f.tracking_number.clone(),
                lines: f
                    .lines
                    .iter()
                    .map(|l| PositionQuantity {
                        position: l.position,
                        quantity: l.quantity,
                    })
                    .collect(),
            })
            .collect(),
        history: r
            .history
            .iter()
            .map(|e| EventJson {
                at_ms: e.at_ms,
                kind: e.kind.clone(),
                actor: e.actor.clone(),
                text: event_text(&e.kind, &e.data, cur, site),
            })
            .collect(),
        actions: o
            .actions()
            .into_iter()
            .filter(|_| may_act)
            .map(|a| a.as_str().to_owned())
            .collect(),
        member_areas: Vec::new(),
    }
}

async fn detail_of(
    store: &Store,
    site: &Site,
    role: u8,
    id: &str,
) -> Result<Json<DetailJson>, ApiError> {
    let record = store
        .order_record(site.tenant.id, id)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NO_ORDER))?;
    let mut detail = detail_json(&record, site, role);
    detail.member_areas = store
        .areas_opened_by(site.tenant.id, id)
        .await
        .map_err(|e| store_failure(&e))?
        .into_iter()
        .map(|id| OpenedArea {
            title: site
                .content
                .render
                .member_area(&id)
                .and_then(|a| a.pointer(&["title"]))
                .and_then(template_lang::value::Node::as_str)
                .map_or_else(|| id.clone(), str::to_owned),
            id,
        })
        .collect();
    Ok(Json(detail))
}

/// `GET /api/owner/orders/{id}`: an order with its lines, payment, shipments and history,
/// and the moves the caller may make on it now.
#[utoipa::path(get, path = "/api/owner/orders/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The order's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = DetailJson), OwnerErrors))]
async fn detail(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<DetailJson>, ApiError> {
    detail_of(&store, &owner.site, owner.role, &id).await
}

fn move_failure(e: OrderMoveError) -> ApiError {
    match e {
        OrderMoveError::NotFound => ApiError::not_found(NO_ORDER),
        // What the request says wrong is the caller's: 400 by field.
        OrderMoveError::Illegal(i @ (Illegal::BadQuantity | Illegal::NoLines)) => {
            ApiError::field("lines", i.to_string())
        }
        OrderMoveError::Illegal(i @ Illegal::BadAmount) => ApiError::field("amount", i.to_string()),
        OrderMoveError::Illegal(i) => ApiError::new(StatusCode::CONFLICT, i.to_string()),
        OrderMoveError::Invalid(m) => {
            let field = m.split(':').next().unwrap_or("").to_owned();
            ApiError::field(&field, m)
        }
        OrderMoveError::Provider(m) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            format!("The payment provider did not refund: {m}"),
        ),
        OrderMoveError::Store(e) => store_failure(&e),
    }
}

/// The buyer's email for a move, written from the order as the move left it.
struct Mailer {
    composer: crate::email::Composer,
    title: String,
    origin: String,
    site: Site,
}

impl Mailer {
    async fn new(app: &App, call: &crate::http::call::Call) -> Mailer {
        Mailer {
            composer: crate::routes::composer(app, call).await,
            title: crate::email::site_title(call).to_owned(),
            origin: call.base_url(),
            site: call.site.clone(),
        }
    }

    fn data(&self, order: &Order, extra: Value) -> Value {
        let mut data = crate::services::commerce::confirmation::confirmation_data(
            order,
            &self.site,
            &self.title,
            &self.origin,
        );
        if let (Some(o), Value::Object(extra)) = (data["order"].as_object_mut(), extra) {
            o.extend(extra);
        }
        data
    }

    /// One email of `kind` to the buyer.
    fn buyer(&self, kind: &str, order: &Order, extra: Value) -> tenants::Email {
        self.composer
            .email(kind, &self.data(order, extra), &order.customer_email, None)
    }
}

/// What a move on an order has at hand: the order, who acts and how the buyer is written to.
struct Move<'a> {
    app: &'a App,
    id: &'a str,
    /// The owner's email or the token's name, for the order's history.
    who: String,
    mailer: Mailer,
}

impl Move<'_> {
    /// Who acts, and where, for the flows that ask the payment provider.
    fn mover(&self) -> Mover<'_> {
        Mover {
            store: &self.app.store,
            tenant: self.mailer.site.tenant.id,
            actor: &self.who,
        }
    }

    /// The order as it stands before the move.
    async fn order(&self) -> Result<Order, OrderMoveError> {
        self.app
            .store
            .order(self.mailer.site.tenant.id, self.id)
            .await?
            .ok_or(OrderMoveError::NotFound)
    }

    /// The payment provider of the order's payment (the test provider for a test-mode order).
    async fn payments(
        &self,
    ) -> Result<&dyn crate::services::commerce::payment::PaymentProvider, OrderMoveError> {
        let test_mode = self.order().await?.test_mode;
        Ok(self.app.commerce.payments(test_mode))
    }

    /// One email of `kind` to the buyer, from the order as the move left it.
    fn buyer(&self, kind: &str, order: &Order, extra: Value) -> Vec<tenants::Email> {
        vec![self.mailer.buyer(kind, order, extra)]
    }
}

/// Every move's shape: the owner (their role checked by the extractor) makes `step` on
/// order `id` of their site, a refusal is answered as [`move_failure`] says, and the answer
/// is the order's page as the move left it.
async fn act(
    app: &App,
    owner: &Owner<area::Orders, Change>,
    id: &str,
    step: impl AsyncFnOnce(&Move<'_>) -> Result<(), OrderMoveError>,
) -> Result<Json<DetailJson>, ApiError> {
    let m = Move {
        app,
        id,
        who: owner.principal.actor(),
        mailer: Mailer::new(app, &owner.call).await,
    };
    step(&m).await.map_err(move_failure)?;
    detail_of(&app.store, &owner.site, owner.role, id).await
}

/// `POST /api/owner/orders/{id}/mark-paid`: "Mark as paid", for an order awaiting a
/// pay-later payment: it is delivered (gift cards issued, downloads opened, subscriptions
/// started) and the buyer is sent what that opens (`order-paid`: gift card codes and
/// download links), and a gift card's named recipient their code (`gift-card`).
#[utoipa::path(post, path = "/api/owner/orders/{id}/mark-paid", tag = OWNER,
    params(("id" = String, Path, description = "The order's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = DetailJson),
        (status = 409, body = crate::openapi::ErrorBody, description = "The order is not awaiting payment."),
        OwnerErrors))]
async fn mark_paid(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Change>,
) -> Result<Json<DetailJson>, ApiError> {
    act(&app, &owner, &id, async |m| {
        let mailer = &m.mailer;
        let mail = |o: &Order| {
            let mut out = m.buyer(crate::email::compose::ORDER_PAID, o, json!({}));
            if let Some(to) = o
                .details
                .gift_card_recipient
                .as_ref()
                .filter(|_| !o.gift_cards.is_empty())
            {
                let gift = crate::services::commerce::confirmation::gift_card_data(
                    o,
                    &mailer.site,
                    &mailer.title,
                    &mailer.origin,
                );
                out.push(mailer.composer.email(
                    crate::email::compose::GIFT_CARD,
                    &gift,
                    &to.email,
                    Some(o.customer_email.clone()),
                ));
            }
            out
        };
        let site = &owner.site;
        app.store
            .mark_paid(site.tenant.id, m.id, &site.content.time_zone, &m.who, &mail)
            .await?;
        Ok(())
    })
    .await
}

/// Units of one line.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = OwnerFulfilLine)]
struct LineRequest {
    /// The line's `position`.
    #[serde(alias = "position")]
    line_id: i64,
    quantity: i64,
}

/// A shipment.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = OwnerFulfilmentRequest)]
struct FulfilRequest {
    /// The lines and units shipped (a line is named by its `position`). Empty or absent:
    /// everything left to ship.
    #[serde(default)]
    lines: Vec<LineRequest>,
    /// At most 200 characters.
    #[serde(default)]
    carrier: String,
    /// At most 200 characters.
    #[serde(default)]
    tracking_number: String,
}

/// `POST /api/owner/orders/{id}/fulfilments`: "Mark as fulfilled": ships units of physical
/// lines (all that is left when `lines` is empty), with an optional carrier and tracking
/// number, and emails the buyer (`order-shipped`, with both).
#[utoipa::path(post, path = "/api/owner/orders/{id}/fulfilments", tag = OWNER,
    params(("id" = String, Path, description = "The order's id.")),
    request_body = FulfilRequest,
    security(("ownerToken" = [])),
    responses((status = 200, body = DetailJson),
        (status = 409, body = crate::openapi::ErrorBody, description = "The order cannot be fulfilled now, or not these units."),
        OwnerErrors))]
async fn fulfil(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Change>,
    Json(body): Json<FulfilRequest>,
) -> Result<Json<DetailJson>, ApiError> {
    for (field, v) in [
        ("carrier", &body.carrier),
        ("trackingNumber", &body.tracking_number),
    ] {
        if v.trim().chars().count() > tenants::MAX_TRACKING_CHARS {
            return Err(ApiError::field(
                field,
                format!("At most {} characters.", tenants::MAX_TRACKING_CHARS),
            ));
        }
    }
    if body.lines.len() > 1000 {
        return Err(ApiError::field("lines", "Too many lines."));
    }
    act(&app, &owner, &id, async |m| {
        let mut lines: Vec<(i64, i64)> =
            body.lines.iter().map(|l| (l.line_id, l.quantity)).collect();
        if lines.is_empty() {
            lines = m
                .order()
                .await?
                .line_states()
                .iter()
                .filter(|l| l.left_to_ship() > 0)
                .map(|l| (l.position, l.left_to_ship()))
                .collect();
            if lines.is_empty() {
                // Let the state machine say why (fulfilled already, nothing ships ...).
                lines = vec![(0, 1)];
            }
        }
        let shipped: Vec<Value> = lines
            .iter()
            .map(|(p, q)| json!({"position": p, "quantity": q}))
            .collect();
        let (carrier, tracking) = (body.carrier.trim(), body.tracking_number.trim());
        let mail = |o: &Order| {
            let items: Vec<Value> = lines
                .iter()
                .filter_map(|(p, q)| {
                    o.lines
                        .iter()
                        .find(|l| l.position == *p)
                        .map(|l| json!({"quantity": q, "title": l.product_name}))
                })
                .collect();
            m.buyer(
                crate::email::compose::ORDER_SHIPPED,
                o,
                json!({
                    "carrier": (!carrier.is_empty()).then_some(carrier),
                    "trackingNumber": (!tracking.is_empty()).then_some(tracking),
                    "shipped": items,
                    "shippedLines": shipped,
                    "complete": o.fulfilment == Fulfilment::Fulfilled,
                }),
            )
        };
        let tenant = owner.site.tenant.id;
        app.store
            .fulfil_order(tenant, m.id, &lines, carrier, tracking, &m.who, &mail)
            .await?;
        Ok(())
    })
    .await
}

/// `POST /api/owner/orders/{id}/cancel`: "Cancel order", for an order not delivered yet:
/// a paid one is first refunded what is left of its charge (through the payment provider;
/// `order-refunded`), then its units not shipped go back to stock (a variant they bring
/// back from sold out tells its waiting restock sign-ups, unless `restock.autoNotify` is
/// off), what a gift card paid goes back on the card, the subscriptions it started are
/// cancelled, and the buyer is told (`order-cancelled`).
#[utoipa::path(post, path = "/api/owner/orders/{id}/cancel", tag = OWNER,
    params(("id" = String, Path, description = "The order's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = DetailJson),
        (status = 409, body = crate::openapi::ErrorBody, description = "The order is cancelled, expired or delivered."),
        (status = 502, body = crate::openapi::ErrorBody, description = "The payment provider did not refund; nothing was cancelled."),
        OwnerErrors))]
async fn cancel(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Change>,
) -> Result<Json<DetailJson>, ApiError> {
    let composer = crate::routes::restock::auto_composer(&app, &owner).await;
    let notice = crate::routes::restock::auto_notice(composer.as_ref(), &owner);
    act(&app, &owner, &id, async |m| {
        let refund_mail = |o: &Order| {
            let extra = refund_extra(o, &m.mailer.site);
            m.buyer(crate::email::compose::ORDER_REFUNDED, o, extra)
        };
        let cancel_mail = |o: &Order| {
            let extra = refund_extra(o, &m.mailer.site);
            m.buyer(crate::email::compose::ORDER_CANCELLED, o, extra)
        };
        let notice = notice.as_ref().map(|n| n as &tenants::RestockNotice);
        let payments = m.payments().await?;
        flow::cancel(
            &m.mover(),
            payments,
            m.id,
            &refund_mail,
            &cancel_mail,
            notice,
        )
        .await?;
        app.outbox.nudge();
        Ok(())
    })
    .await
}

/// What the refund and cancellation emails add: `refunded` (what was given back in all).
fn refund_extra(o: &Order, site: &Site) -> Value {
    json!({
        "refunded": (o.refunded_minor > 0)
            .then(|| money_text(o.refunded_minor, &o.currency, &site.content.locale)),
    })
}

/// A refund: an amount, or units of lines (at their unit prices), with a reason.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = OwnerRefundRequest)]
struct RefundBody {
    /// Minor units; give this or `lines`.
    amount: Option<i64>,
    /// Units of lines (each line named by its `position`); give this or `amount`.
    lines: Option<Vec<LineRequest>>,
    /// Shown to the buyer; at most 500 characters.
    #[serde(default)]
    reason: String,
}

/// `POST /api/owner/orders/{id}/refunds`: "Refund", full or partial, through the payment
/// provider of the order's payment (the test provider for test-mode orders; a pay-later
/// payment is recorded as given back, the owner pays it back outside the store), never
/// more than was charged; the buyer is told (`order-refunded`).
#[utoipa::path(post, path = "/api/owner/orders/{id}/refunds", tag = OWNER,
    params(("id" = String, Path, description = "The order's id.")),
    request_body = RefundBody,
    security(("ownerToken" = [])),
    responses((status = 200, body = DetailJson),
        (status = 409, body = crate::openapi::ErrorBody, description = "The order cannot be refunded now, or not that much."),
        (status = 502, body = crate::openapi::ErrorBody, description = "The payment provider did not refund; nothing was refunded."),
        OwnerErrors))]
async fn refund(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Change>,
    Json(body): Json<RefundBody>,
) -> Result<Json<DetailJson>, ApiError> {
    if body.reason.trim().chars().count() > tenants::MAX_REASON_CHARS {
        return Err(ApiError::field(
            "reason",
            format!("At most {} characters.", tenants::MAX_REASON_CHARS),
        ));
    }
    let request = match (body.amount, body.lines) {
        (Some(a), None) => RefundRequest::Amount(a),
        (None, Some(lines)) if lines.len() <= 1000 => {
            RefundRequest::Lines(lines.iter().map(|l| (l.line_id, l.quantity)).collect())
        }
        (None, Some(_)) => return Err(ApiError::field("lines", "Too many lines.")),
        _ => return Err(ApiError::field("amount", "Give an amount or lines.")),
    };
    let reason = body.reason.trim().to_owned();
    act(&app, &owner, &id, async |m| {
        let mail = |o: &Order| {
            let mut extra = refund_extra(o, &m.mailer.site);
            extra["reason"] = json!((!reason.is_empty()).then_some(&reason));
            m.buyer(crate::email::compose::ORDER_REFUNDED, o, extra)
        };
        let payments = m.payments().await?;
        flow::refund(&m.mover(), payments, m.id, &request, &reason, &mail).await?;
        Ok(())
    })
    .await
}

/// `POST /api/owner/orders/{id}/resend-confirmation`: sends the buyer their order
/// confirmation again (`order-confirmation`, as it reads now).
#[utoipa::path(post, path = "/api/owner/orders/{id}/resend-confirmation", tag = OWNER,
    params(("id" = String, Path, description = "The order's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = DetailJson),
        (status = 409, body = crate::openapi::ErrorBody, description = "The order is cancelled or expired."),
        OwnerErrors))]
async fn resend_confirmation(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Change>,
) -> Result<Json<DetailJson>, ApiError> {
    act(&app, &owner, &id, async |m| {
        let mail = |o: &Order| m.buyer(crate::email::compose::ORDER_CONFIRMATION, o, json!({}));
        let (tenant, kind) = (owner.site.tenant.id, "confirmation-resent");
        let resend = Some(Action::ResendConfirmation);
        app.store
            .record_order_event(tenant, m.id, resend, kind, &m.who, json!({}), &mail)
            .await?;
        Ok(())
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_fields_are_quoted_and_formulas_neutralised() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        for f in ["+1", "-1", "@SUM(A1)", "\tx", "\rx"] {
            assert!(
                csv_field(f).trim_start_matches('"').starts_with('\''),
                "{f}"
            );
        }
        assert_eq!(csv_field("a-b@c"), "a-b@c");
    }
}
