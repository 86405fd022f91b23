//! `POST /api/commerce/checkout`: places the order for the visitor's cart (or, with
//! `cartToken`, a purchase's own cart: a subscription, a gift card bought on its page) and answers 201 `{"order": ..., "statusUrl",
//! "confirmationUrl"}`.
//!
//! The body: `{ cartToken?, email, shippingAddress?, billingAddress?, shippingOptionId?,
//! giftCardCode?, expectedGrandTotalCents?, payment?: { method: "card", card: { number,
//! expMonth, expYear, cvc } } | { method: "manual" } }`. An address is `{ firstName,
//! lastName, line1, line2?, city, region?, postalCode, country, phone? }`; the shipping
//! address is required when something ships. Field problems answer 400 with `errors`
//! (field → message).
//!
//! The flow (price, authorise, place, capture or void) is
//! [`crate::services::commerce::checkout::place`]; this handler reads the request into it and
//! its [`CheckoutError`] back into the answer.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, json};
use tenants::commerce::Refusal;
use tenants::{Address, StoreError};
use utoipa::ToSchema;

use super::cart::NO_CART;
use super::payment::{Card, PaymentError};
use crate::http::call::Call;
use crate::http::commerce::json::{OrderView, order_view};
use crate::http::commerce::messages::store_error;
use crate::http::commerce::session::{CART_COOKIE, cart_of_token, confirmation_url, status_url};
use crate::http::cookies;
use crate::http::error::{FIELDS_INVALID, store_failure};
use crate::http::extract::family::Checkout;
use crate::http::{ApiError, Created, Json, SetCookies, Write};
use crate::openapi::{COMMERCE, ErrorBody, WriteErrors};
use crate::server::state::App;
use crate::services::commerce::checkout::{self as flow, CartRef, CheckoutError};
pub use crate::services::commerce::checkout::{EMAIL_INVALID, email_valid};
use crate::services::commerce::waiting::order_mail;

/// What a checkout sends: the cart (the cookie's, or `cartToken`'s), the buyer's email,
/// the addresses, the shipping choice, a gift card, the total the buyer saw, and how they
/// pay (needed unless a gift card or coupons cover it all).
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CheckoutBody)]
pub(crate) struct Body {
    /// A purchase's own cart (subscription, gift card) instead of the cookie's.
    #[serde(default)]
    cart_token: Option<String>,
    #[serde(default)]
    #[schema(value_type = String, required = true, min_length = 1, max_length = 256)]
    email: Option<String>,
    /// Required when something in the cart ships.
    #[serde(default)]
    #[schema(value_type = Option<AddressInput>)]
    shipping_address: Option<Address>,
    /// The shipping address when left out.
    #[serde(default)]
    #[schema(value_type = Option<AddressInput>)]
    billing_address: Option<Address>,
    /// One of the cart's `shippingOptions` (the cheapest offered when left out).
    #[serde(default)]
    shipping_option_id: Option<String>,
    #[serde(default)]
    gift_card_code: Option<String>,
    /// The grand total the buyer saw: 409 when the order would cost something else.
    #[serde(default)]
    expected_grand_total_cents: Option<i64>,
    #[serde(default)]
    payment: Option<PaymentBody>,
    /// Order notes, kept when the store asks for them (`checkout.orderNotes` in the cart's
    /// `checkout`); at most 1000 characters.
    #[serde(default)]
    #[schema(max_length = 1000)]
    order_notes: Option<String>,
    /// Who the gift cards bought are for (a gift card purchase only): they get their own
    /// email with the code and the message.
    #[serde(default)]
    gift_card_recipient: Option<RecipientBody>,
}

/// A gift card's recipient.
#[derive(Deserialize, ToSchema)]
#[schema(as = GiftCardRecipientInput)]
pub(crate) struct RecipientBody {
    /// Their email address; blank or left out: the buyer's own.
    #[serde(default)]
    #[schema(max_length = 256)]
    email: Option<String>,
    /// A message to them, in their email.
    #[serde(default)]
    #[schema(max_length = 500)]
    message: Option<String>,
}

/// How the buyer pays: `card` (with the card) or the store's pay-later method (`manual`).
#[derive(Deserialize, ToSchema)]
#[schema(as = CheckoutPayment)]
pub(crate) struct PaymentBody {
    #[schema(value_type = PayWith)]
    method: String,
    /// Required for `card`.
    #[serde(default)]
    card: Option<Card>,
}

/// A way to pay.
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)] // the methods `PaymentBody::method` takes
pub enum PayWith {
    Card,
    Manual,
}

/// A postal address as checkout takes it (each part at most 200 characters).
#[derive(ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)] // the fields `check_address` requires of a `tenants::Address`
pub struct AddressInput {
    #[schema(min_length = 1, max_length = 200)]
    first_name: String,
    #[schema(min_length = 1, max_length = 200)]
    last_name: String,
    #[schema(min_length = 1, max_length = 200)]
    line1: String,
    #[schema(max_length = 200)]
    line2: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    city: String,
    #[schema(max_length = 200)]
    region: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    postal_code: String,
    /// Two-letter ISO country code.
    #[schema(pattern = "^[A-Za-z]{2}$")]
    country: String,
    #[schema(max_length = 200)]
    phone: Option<String>,
}

/// The placed order, and the pages its buyer goes to.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Placed {
    pub order: OrderView,
    /// The order status page.
    pub status_url: String,
    /// The confirmation page.
    pub confirmation_url: String,
}

/// A checkout that cannot go ahead as asked.
#[derive(ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(dead_code)] // the shape of the 409 errors checkout builds
pub struct CheckoutConflict {
    message: String,
    /// The cart was already checked out: its order's status page.
    status_url: Option<String>,
    /// The total changed: the order's grand total now.
    grand_total_cents: Option<i64>,
}

/// The cart this checkout is for: `cartToken`'s (404 when it is not this site's), else
/// the cookie's (400 without one).
fn cart_ref(call: &Call, token: Option<&str>) -> Result<CartRef, ApiError> {
    Ok(match token {
        Some(token) => CartRef {
            id: cart_of_token(&call.site, token).ok_or_else(|| ApiError::not_found(NO_CART))?,
            from_cookie: false,
        },
        None => CartRef {
            id: call
                .cart_cookie()
                .ok_or_else(|| ApiError::bad_request("Your cart is empty."))?
                .id,
            from_cookie: true,
        },
    })
}

/// `POST /api/commerce/checkout`: places the order for the cart.
///
/// Prices the cart as it will be placed, takes payment for what a gift card does not cover,
/// and answers 201 with the order and its pages; the cart cookie is cleared (the next add
/// starts a new cart). Field problems answer 400 with `errors` (field → message).
#[utoipa::path(post, path = "/api/commerce/checkout", tag = COMMERCE,
    request_body = Body, security(("crumb" = [])),
    responses((status = 201, body = Placed, description = "The order was placed.",
            headers(("Set-Cookie" = String,
                description = "Clears the cart cookie (a `cartToken` checkout sets none)."))),
        (status = 402, body = ErrorBody, description = "The card was declined."),
        (status = 409, body = CheckoutConflict, description = "The cart was already checked \
            out, the total changed, or there is not enough of an item in stock."),
        WriteErrors))]
pub(crate) async fn checkout(
    State(app): State<App>,
    call: Call,
    _: Write<Checkout>,
    Json(b): Json<Body>,
) -> Result<(SetCookies, Created<Placed>), ApiError> {
    let settings = call.settings();
    let cart = cart_ref(&call, b.cart_token.as_deref())?;
    let from_cookie = cart.from_cookie;
    let deps = flow::Deps {
        store: &app.store,
        outbox: &app.outbox,
        limits: &app.limits,
        payments: app.commerce.payments_shared(settings.payments.test_mode),
        numbering: &app.commerce.numbering,
    };
    let (site, ip) = (&call.site, call.client.ip);
    let (host, origin) = (call.host(), call.base_url());
    let mail = async || order_mail(&app, &call.site, &host, &origin).await;
    let mut request: flow::Request = b.into();
    request.placed_from = Some(tenants::PlacedFrom {
        host: host.clone(),
        origin: origin.clone(),
    });
    // A signed-in member's order: the paid member areas it buys are theirs.
    request.member = crate::http::member::member(&app, &call)
        .await?
        .map(|(_, user)| user.id);
    let order = flow::place(deps, site, &settings, ip, cart, request, mail)
        .await
        .map_err(|e| refused(&call, &settings.currency, e))?;
    crate::analytics::record(
        &app,
        &call,
        tenants::PURCHASE_EVENT,
        json!({"orderId": order.id, "grandTotalCents": order.grand_total_minor}),
    );
    // The cart is closed: the next add starts a new one.
    let cookies = if from_cookie {
        vec![cookies::clear(CART_COOKIE, call.client.https)]
    } else {
        Vec::new()
    };
    Ok((
        SetCookies(cookies),
        Created(Placed {
            order: order_view(&order, &call.site),
            status_url: status_url(&call.site, &order.id),
            confirmation_url: confirmation_url(&call.site, &order.id),
        }),
    ))
}

impl From<Body> for flow::Request {
    fn from(b: Body) -> flow::Request {
        flow::Request {
            email: b.email,
            shipping_address: b.shipping_address,
            billing_address: b.billing_address,
            shipping_option_id: b.shipping_option_id,
            gift_card_code: b.gift_card_code,
            expected_grand_total_cents: b.expected_grand_total_cents,
            payment: b.payment.map(|p| flow::Payment {
                method: p.method,
                card: p.card,
            }),
            order_notes: b.order_notes,
            gift_card_recipient: b.gift_card_recipient.map(|g| flow::Recipient {
                email: g.email,
                message: g.message,
            }),
            member: None,
            placed_from: None,
        }
    }
}

/// Why checkout placed no order, as the buyer reads it (`currency`: the store's, for a
/// refusal that names no amount).
fn refused(call: &Call, currency: &str, e: CheckoutError) -> ApiError {
    let site = &call.site;
    match e {
        CheckoutError::NoCart => ApiError::not_found(NO_CART),
        CheckoutError::Unavailable(e) => store_failure(&e),
        CheckoutError::AlreadyPlaced { order_id } => {
            let refusal = StoreError::Refused(Refusal::CartPurchased);
            let mut e = store_error(&refusal, &site.content, currency, NO_CART);
            // A refusal of a purchased cart carries where its order is.
            if let Some(order) = &order_id {
                e.body["statusUrl"] = json!(status_url(site, order));
            }
            e
        }
        CheckoutError::Fields(errors) => ApiError::fields(errors),
        CheckoutError::Store { error, currency } => {
            store_error(&error, &site.content, &currency, NO_CART)
        }
        CheckoutError::CardRequired => ApiError::field("payment.card", "Required"),
        CheckoutError::UnknownMethod => {
            ApiError::field("payment.method", "Choose \"card\" or \"manual\".")
        }
        CheckoutError::Payment(e) => payment_error(e),
        CheckoutError::PayLaterLimited(e) => e,
    }
}

fn payment_error(e: PaymentError) -> ApiError {
    match e {
        PaymentError::Invalid { field, message } => {
            let mut errors = Map::new();
            errors.insert(field.to_owned(), json!(message.clone()));
            let mut err = ApiError::fields(errors);
            err.body["message"] = json!(if message.is_empty() {
                FIELDS_INVALID.to_owned()
            } else {
                message
            });
            err
        }
        PaymentError::Declined(message) => ApiError::new(StatusCode::PAYMENT_REQUIRED, message),
        PaymentError::Unavailable(message) => {
            let mut e = ApiError::new(StatusCode::SERVICE_UNAVAILABLE, message);
            e.retry_after = Some(crate::http::error::RETRY_AFTER_UNAVAILABLE);
            e
        }
    }
}
