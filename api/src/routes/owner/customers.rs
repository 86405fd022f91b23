//! The owner's customers: everyone who ordered, became a member or subscribed to the
//! mailing list, one row per email.
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/customers?q&after&limit` | orders, read | `{customers, next}`: the latest buyers first, then the others by email |
//! | `GET /api/owner/customers/{email}` | orders, read | `{customer, orders, subscriptions, giftCards}` |
//! | `POST /api/owner/subscriptions/{id}/cancel` | orders, change | the subscription, cancelled |
//! | `GET /api/owner/subscriptions?status&q&after&limit` | orders, read | `{subscriptions, next}`, the newest first |
//! | `GET /api/owner/gift-cards?q&after&limit` | orders, read | `{giftCards, next}`, the newest first, each with what it paid for |
//! | `GET /api/owner/gift-cards/{id}` | orders, read | `{giftCard, events}`: the card and its history |
//!
//! Orders are the orders placed (not expired), spent the grand totals of the paid ones not
//! cancelled less what was refunded of them; a store in test mode counts its test orders, a
//! live one only live ones (as the dashboard).

use axum::extract::{Path, State};
use serde::Serialize;
use tenants::{CustomerQuery, CustomerRow, GiftCardQuery, GiftCardRow, SubscriptionQuery};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::paging;
use crate::http::call::Call;
use crate::http::commerce::money::{OwnerMoney, owner_money};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

/// The most orders a customer's page lists (the latest).
pub const MAX_ORDERS: usize = 100;
/// The longest email read.
const MAX_EMAIL: usize = 254;

pub const NO_CUSTOMER: &str = "No customer of this site has that email.";
pub const NO_SUBSCRIPTION: &str = "That subscription does not exist.";
pub const ALREADY_CANCELLED: &str = "This subscription is already cancelled.";
pub const ENDED: &str = "This subscription has ended.";
pub const NO_GIFT_CARD: &str = "That gift card does not exist.";
pub const BAD_STATUS: &str = "status must be active, cancelled or completed.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(customers))
        .routes(routes!(customer))
        .routes(routes!(cancel_subscription))
        .routes(routes!(subscriptions))
        .routes(routes!(gift_cards))
        .routes(routes!(gift_card))
}

/// A customer.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerCustomer)]
struct Customer {
    /// Lower-cased.
    email: String,
    /// The member's display name, else the name on their latest order, else "".
    name: String,
    /// Orders placed (not expired).
    orders: i64,
    /// What their paid orders came to, less cancelled ones and refunds.
    spent: OwnerMoney,
    /// When they last ordered, epoch ms; `null` if never.
    last_order_ms: Option<i64>,
    /// They have a member account.
    member: bool,
    /// They are on the mailing list.
    subscriber: bool,
}

fn customer_view(c: CustomerRow, call: &Call) -> Customer {
    Customer {
        spent: owner_money(
            c.spent_minor,
            &call.settings().currency,
            &call.site.content.locale,
        ),
        email: c.email,
        name: c.name,
        orders: c.orders,
        last_order_ms: c.last_order_ms,
        member: c.member,
        subscriber: c.subscriber,
    }
}

/// A page of customers.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerCustomers)]
struct Customers {
    customers: Vec<Customer>,
    /// The next page's `after`; `null` on the last page.
    next: Option<String>,
}

/// Whether the store counts its test orders (while it is in test mode).
fn test_orders(call: &Call) -> bool {
    call.settings().payments.test_mode
}

/// `GET /api/owner/customers`: everyone who ordered, is a member or subscribed.
#[utoipa::path(get, path = "/api/owner/customers", tag = OWNER,
    params(
        ("q" = Option<String>, Query, max_length = 100, description = "Words the email, the member's name, or the names and addresses of their orders contain."),
        ("after" = Option<String>, Query, description = "The `next` of the page before."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Rows a page (50 unless given)."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = Customers), OwnerErrors))]
async fn customers(
    State(app): State<App>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<Customers>, ApiError> {
    let query = CustomerQuery {
        q: paging::search(&owner)?,
        after: paging::after::<(i64, String)>(&owner)?,
        limit: paging::limit(&owner)?,
        test_orders: test_orders(&owner),
    };
    let (rows, next) = app
        .store
        .customers(owner.site.tenant.id, &query)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(Customers {
        customers: rows.into_iter().map(|c| customer_view(c, &owner)).collect(),
        next: paging::next(next),
    }))
}

/// One of a customer's orders.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerCustomerOrder)]
struct CustomerOrder {
    id: String,
    number: i64,
    placed_ms: i64,
    total: OwnerMoney,
    /// Its payment: `paid`, `awaiting-payment`, `partially-refunded`, `refunded` or
    /// `expired`.
    status: String,
    /// Units over its lines.
    item_count: i64,
    test_mode: bool,
    /// It was cancelled.
    cancelled: bool,
    /// What was refunded of it.
    refunded: OwnerMoney,
}

/// A subscription one of their orders started.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerCustomerSubscription)]
struct CustomerSubscription {
    id: String,
    order_id: String,
    item_id: String,
    sku: String,
    /// The product's name on the order.
    product_name: String,
    quantity: i64,
    /// Each billing's amount.
    price: OwnerMoney,
    /// "every 1 month".
    interval: String,
    /// 0 when it never ends.
    num_billing_cycles: i64,
    cycles_billed: i64,
    next_billing_ms: Option<i64>,
    status: String,
}

fn subscription_view(
    s: &tenants::Subscription,
    product_name: String,
    locale: &icu_locale::Locale,
) -> CustomerSubscription {
    CustomerSubscription {
        id: s.id.clone(),
        order_id: s.order_id.clone(),
        item_id: s.item_id.clone(),
        sku: s.sku.clone(),
        product_name,
        quantity: s.quantity,
        price: owner_money(s.unit_price_minor * s.quantity, &s.currency, locale),
        interval: format!("every {} {}", s.period_value, s.period_unit.to_lowercase()),
        num_billing_cycles: s.num_billing_cycles,
        cycles_billed: s.cycles_billed,
        next_billing_ms: s.next_billing_ms,
        status: s.status.clone(),
    }
}

/// A gift card one of their orders bought.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerCustomerGiftCard)]
struct CustomerGiftCard {
    /// Its id (`GET /api/owner/gift-cards/{id}`).
    id: String,
    /// The code's last 4 characters (the whole code is the buyer's).
    code_end: String,
    order_id: String,
    initial: OwnerMoney,
    balance: OwnerMoney,
    created_ms: i64,
}

/// `GET /api/owner/customers/{email}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerCustomerDetail)]
struct Detail {
    customer: Customer,
    /// Their latest orders (at most 100), newest first.
    orders: Vec<CustomerOrder>,
    /// What those orders subscribed to.
    subscriptions: Vec<CustomerSubscription>,
    /// The gift cards those orders bought.
    gift_cards: Vec<CustomerGiftCard>,
}

/// `GET /api/owner/customers/{email}`: a customer, their latest orders, the subscriptions
/// and gift cards those orders bought.
#[utoipa::path(get, path = "/api/owner/customers/{email}", tag = OWNER,
    params(("email" = String, Path, description = "The customer's email (any case).")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Detail), OwnerErrors))]
async fn customer(
    State(app): State<App>,
    Path(email): Path<String>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<Detail>, ApiError> {
    if email.len() > MAX_EMAIL || email.trim().is_empty() {
        return Err(ApiError::not_found(NO_CUSTOMER));
    }
    let tenant = owner.site.tenant.id;
    let test = test_orders(&owner);
    let found = app
        .store
        .customer(tenant, &email, test)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NO_CUSTOMER))?;
    let orders = app
        .store
        .orders_of_customer(tenant, &found.email, MAX_ORDERS, test)
        .await
        .map_err(|e| store_failure(&e))?;
    let locale = &owner.site.content.locale;
    let money = |minor: i64, currency: &str| owner_money(minor, currency, locale);
    let mut subscriptions = Vec::new();
    let mut gift_cards = Vec::new();
    let mut rows = Vec::with_capacity(orders.len());
    for o in &orders {
        for s in &o.subscriptions {
            let product_name = o
                .lines
                .iter()
                .find(|l| l.item_id == s.item_id && l.sku == s.sku)
                .map(|l| l.product_name.clone())
                .unwrap_or_default();
            subscriptions.push(subscription_view(s, product_name, locale));
        }
        for g in &o.gift_cards {
            gift_cards.push(CustomerGiftCard {
                id: g.id.clone(),
                code_end: code_end(&g.code),
                order_id: g.order_id.clone(),
                initial: money(g.initial_minor, &g.currency),
                balance: money(g.balance_minor, &g.currency),
                created_ms: g.created_ms,
            });
        }
        rows.push(CustomerOrder {
            id: o.id.clone(),
            number: o.order_number,
            placed_ms: o.created_ms,
            total: money(o.grand_total_minor, &o.currency),
            status: serde_json::to_value(o.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            item_count: o.lines.iter().map(|l| l.quantity).sum(),
            test_mode: o.test_mode,
            cancelled: o.cancelled_ms.is_some(),
            refunded: money(o.refunded_minor, &o.currency),
        });
    }
    Ok(Json(Detail {
        customer: customer_view(found, &owner),
        orders: rows,
        subscriptions,
        gift_cards,
    }))
}

/// `POST /api/owner/subscriptions/{id}/cancel`: cancels an active subscription; it bills no
/// more. 404 for a subscription this site does not have, 409 for one already cancelled or
/// ended.
#[utoipa::path(post, path = "/api/owner/subscriptions/{id}/cancel", tag = OWNER,
    params(("id" = String, Path, description = "The subscription's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = CustomerSubscription),
        (status = 409, description = "The subscription is not active.", body = crate::openapi::ErrorBody),
        OwnerErrors))]
async fn cancel_subscription(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Change>,
) -> Result<Json<CustomerSubscription>, ApiError> {
    let tenant = owner.site.tenant.id;
    let s = app
        .store
        .cancel_subscription(tenant, &id)
        .await
        .map_err(|e| match e {
            tenants::StoreError::NotFound(_) => ApiError::not_found(NO_SUBSCRIPTION),
            tenants::StoreError::Conflict(status) => ApiError::new(
                axum::http::StatusCode::CONFLICT,
                if status == tenants::SUBSCRIPTION_CANCELLED {
                    ALREADY_CANCELLED
                } else {
                    ENDED
                },
            ),
            e => store_failure(&e),
        })?;
    let title = app
        .store
        .item(tenant, &s.item_id)
        .await
        .map_err(|e| store_failure(&e))?
        .map(|i| i.title)
        .unwrap_or_default();
    Ok(Json(subscription_view(
        &s,
        title,
        &owner.site.content.locale,
    )))
}

/// A page of subscriptions.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerSubscriptions)]
struct Subscriptions {
    subscriptions: Vec<SubscriptionView>,
    /// The next page's `after`; `null` on the last page.
    next: Option<String>,
}

/// A subscription with the customer and order that started it.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerSubscription)]
struct SubscriptionView {
    #[serde(flatten)]
    subscription: CustomerSubscription,
    /// The email of the order that started it.
    customer_email: String,
    order_number: i64,
    created_ms: i64,
}

/// `GET /api/owner/subscriptions`: the site's subscriptions, the newest first.
#[utoipa::path(get, path = "/api/owner/subscriptions", tag = OWNER,
    params(
        ("status" = Option<String>, Query, description = "Only `active`, `cancelled` or `completed` ones."),
        ("q" = Option<String>, Query, max_length = 100, description = "Words the customer's email or the product's name contains."),
        ("after" = Option<String>, Query, description = "The `next` of the page before."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Rows a page (50 unless given)."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = Subscriptions), OwnerErrors))]
async fn subscriptions(
    State(app): State<App>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<Subscriptions>, ApiError> {
    let status = match owner.query("status").as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s @ ("active" | "cancelled" | "completed")) => Some(s.to_owned()),
        Some(_) => return Err(ApiError::field("status", BAD_STATUS)),
    };
    let query = SubscriptionQuery {
        status,
        q: paging::search(&owner)?,
        after: paging::after::<(i64, String)>(&owner)?,
        limit: paging::limit(&owner)?,
    };
    let (rows, next) = app
        .store
        .subscription_rows(owner.site.tenant.id, &query)
        .await
        .map_err(|e| store_failure(&e))?;
    let locale = &owner.site.content.locale;
    Ok(Json(Subscriptions {
        subscriptions: rows
            .into_iter()
            .map(|r| SubscriptionView {
                subscription: subscription_view(&r.subscription, r.product_name, locale),
                customer_email: r.customer_email,
                order_number: r.order_number,
                created_ms: r.subscription.created_ms,
            })
            .collect(),
        next: paging::next(next),
    }))
}

/// What a gift card paid for.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerGiftCardUse)]
struct GiftCardUseView {
    /// The order it paid.
    order_id: String,
    order_number: i64,
    amount: OwnerMoney,
    at_ms: i64,
    /// When it went back on the card (the order cancelled, or expired unpaid); `null` if
    /// it did not.
    refunded_ms: Option<i64>,
}

/// A gift card of the site.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerGiftCard)]
struct GiftCardView {
    /// Its id (`GET /api/owner/gift-cards/{id}`).
    id: String,
    /// The code's last 4 characters (the whole code is the buyer's).
    code_end: String,
    /// The order that bought it.
    order_id: String,
    order_number: i64,
    /// That order's email.
    buyer_email: String,
    initial: OwnerMoney,
    balance: OwnerMoney,
    created_ms: i64,
    /// What it paid for, oldest first.
    history: Vec<GiftCardUseView>,
}

/// A page of gift cards.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerGiftCards)]
struct GiftCards {
    gift_cards: Vec<GiftCardView>,
    /// The next page's `after`; `null` on the last page.
    next: Option<String>,
}

/// The last 4 characters of a code.
fn code_end(code: &str) -> String {
    let chars: Vec<char> = code.chars().collect();
    chars[chars.len().saturating_sub(4)..].iter().collect()
}

fn gift_card_view(g: GiftCardRow, locale: &icu_locale::Locale) -> GiftCardView {
    let money = |minor: i64| owner_money(minor, &g.currency, locale);
    GiftCardView {
        id: g.id.clone(),
        code_end: code_end(&g.code),
        initial: money(g.initial_minor),
        balance: money(g.balance_minor),
        history: g
            .uses
            .iter()
            .map(|u| GiftCardUseView {
                order_id: u.order_id.clone(),
                order_number: u.order_number,
                amount: money(u.amount_minor),
                at_ms: u.at_ms,
                refunded_ms: u.refunded_ms,
            })
            .collect(),
        order_id: g.order_id,
        order_number: g.order_number,
        buyer_email: g.buyer_email,
        created_ms: g.created_ms,
    }
}

/// `GET /api/owner/gift-cards`: the site's gift cards, the newest first, with their balance
/// and what each paid for.
#[utoipa::path(get, path = "/api/owner/gift-cards", tag = OWNER,
    params(
        ("q" = Option<String>, Query, max_length = 100, description = "Words the buyer's email or the code contains (the whole code finds its card)."),
        ("after" = Option<String>, Query, description = "The `next` of the page before."),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Rows a page (50 unless given)."),
    ),
    security(("ownerToken" = [])),
    responses((status = 200, body = GiftCards), OwnerErrors))]
async fn gift_cards(
    State(app): State<App>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<GiftCards>, ApiError> {
    let query = GiftCardQuery {
        q: paging::search(&owner)?,
        after: paging::after::<(i64, String)>(&owner)?,
        limit: paging::limit(&owner)?,
    };
    let (rows, next) = app
        .store
        .gift_card_rows(owner.site.tenant.id, &query)
        .await
        .map_err(|e| store_failure(&e))?;
    let locale = &owner.site.content.locale;
    Ok(Json(GiftCards {
        gift_cards: rows
            .into_iter()
            .map(|g| gift_card_view(g, locale))
            .collect(),
        next: paging::next(next),
    }))
}

/// One moment of a gift card's history.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerGiftCardEvent)]
struct GiftCardEvent {
    /// `issued` (bought by the order), `redeemed` (paid part of the order) or `refunded`
    /// (what it paid of the order went back on the card).
    kind: String,
    order_id: String,
    order_number: i64,
    /// Added to the card (`issued`, `refunded`) or taken from it (`redeemed`).
    amount: OwnerMoney,
    at_ms: i64,
}

/// `GET /api/owner/gift-cards/{id}`.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = OwnerGiftCardDetail)]
struct GiftCardDetail {
    gift_card: GiftCardView,
    /// Its history, oldest first.
    events: Vec<GiftCardEvent>,
}

/// `GET /api/owner/gift-cards/{id}`: a gift card and its history (issued, redeemed on
/// orders, given back when such an order was cancelled).
#[utoipa::path(get, path = "/api/owner/gift-cards/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The gift card's id (not its code).")),
    security(("ownerToken" = [])),
    responses((status = 200, body = GiftCardDetail), OwnerErrors))]
async fn gift_card(
    State(app): State<App>,
    Path(id): Path<String>,
    owner: Owner<area::Orders, Read>,
) -> Result<Json<GiftCardDetail>, ApiError> {
    let g = app
        .store
        .gift_card_row(owner.site.tenant.id, &id)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NO_GIFT_CARD))?;
    let locale = &owner.site.content.locale;
    let money = |minor: i64| owner_money(minor, &g.currency, locale);
    let event =
        |kind: &str, order_id: &str, order_number: i64, minor: i64, at_ms: i64| GiftCardEvent {
            kind: kind.to_owned(),
            order_id: order_id.to_owned(),
            order_number,
            amount: money(minor),
            at_ms,
        };
    let mut events = vec![event(
        "issued",
        &g.order_id,
        g.order_number,
        g.initial_minor,
        g.created_ms,
    )];
    for u in &g.uses {
        events.push(event(
            "redeemed",
            &u.order_id,
            u.order_number,
            u.amount_minor,
            u.at_ms,
        ));
        if let Some(at) = u.refunded_ms {
            events.push(event(
                "refunded",
                &u.order_id,
                u.order_number,
                u.amount_minor,
                at,
            ));
        }
    }
    events.sort_by_key(|e| e.at_ms);
    Ok(Json(GiftCardDetail {
        gift_card: gift_card_view(g, locale),
        events,
    }))
}
