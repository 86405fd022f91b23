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
//! Order of work: price the cart as it will be placed (refusing an empty cart, a subtotal
//! below the minimum, an address nothing ships to, an unusable gift card), authorize the
//! amount left after the gift card, place the order in one transaction (which refuses if the
//! total moved), then capture, or void when placing failed.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tenants::commerce::Refusal;
use tenants::{
    Address, Cart, CartKind, Checkout, CheckoutTerms, PaymentMethod, StoreError, now_ms,
};
use utoipa::ToSchema;

use super::cart::NO_CART;
use super::json::{OrderView, order_view};
use super::messages::store_error;
use super::payment::{Card, Charge, PaymentError};
use super::session::{CART_COOKIE, cart_of_token, confirmation_url, status_url};
use super::{Call, respond, with_cookies};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::cookies;
use crate::http::error::{FIELDS_INVALID, json_response, store_failure};
use crate::http::limits::Family;
use crate::openapi::{COMMERCE, ErrorBody, WriteErrors};
use crate::server::App;

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

/// SPEC §5's email message, with an example address.
pub const EMAIL_INVALID: &str =
    "Email is not valid. Email addresses should follow the format user@domain.com.";

/// An address the mailer can send the order confirmation to
/// ([`tenants::email_address::deliverable`]).
pub fn email_valid(email: &str) -> bool {
    tenants::email_address::deliverable(email).is_some()
}

/// Checks an address's fields into `errors` under `prefix` (`shippingAddress.city`).
fn check_address(prefix: &str, a: &Address, errors: &mut Map<String, Value>) {
    let mut need = |field: &str, value: &str| {
        let value = value.trim();
        if value.is_empty() {
            errors.insert(format!("{prefix}.{field}"), json!("Required"));
        } else if value.chars().count() > 200 {
            errors.insert(
                format!("{prefix}.{field}"),
                json!("At most 200 characters."),
            );
        }
    };
    need("firstName", &a.first_name);
    need("lastName", &a.last_name);
    need("line1", &a.line1);
    need("city", &a.city);
    need("postalCode", &a.postal_code);
    need("country", &a.country);
    let c = a.country.trim();
    let two_letters = c.len() == 2 && c.chars().all(|ch| ch.is_ascii_alphabetic());
    if !c.is_empty() && !two_letters {
        errors.insert(
            format!("{prefix}.country"),
            json!("Use the two-letter country code (US, NL, GB ...)."),
        );
    }
    for (field, v) in [
        ("line2", &a.line2),
        ("region", &a.region),
        ("phone", &a.phone),
    ] {
        if v.as_deref().is_some_and(|v| v.chars().count() > 200) {
            errors.insert(
                format!("{prefix}.{field}"),
                json!("At most 200 characters."),
            );
        }
    }
}

/// The cart this checkout is for, and whether it came from the cookie.
async fn the_cart(app: &App, call: &Call, token: Option<&str>) -> Result<(Cart, bool), ApiError> {
    let t = call.site.tenant.id;
    let (id, from_cookie) = match token {
        Some(token) => (
            cart_of_token(&call.site, token).ok_or_else(|| ApiError::not_found(NO_CART))?,
            false,
        ),
        None => (
            call.cart_cookie()
                .ok_or_else(|| ApiError::bad_request("Your cart is empty."))?
                .id,
            true,
        ),
    };
    // A token names a purchase's own cart (subscription, gift card); the cookie the
    // visitor's shopping cart.
    let cart = app
        .store
        .cart(t, &id)
        .await
        .map_err(|e| store_failure(&e))?
        .filter(|c| (c.kind == CartKind::Cart) == from_cookie)
        .ok_or_else(|| ApiError::not_found(NO_CART))?;
    Ok((cart, from_cookie))
}

/// A refusal of a purchased cart carries where its order is.
fn already_placed(call: &Call, cart: &Cart, mut e: ApiError) -> ApiError {
    if let Some(order) = &cart.order_id {
        e.body["statusUrl"] = json!(status_url(&call.site, order));
    }
    e
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
pub async fn checkout(State(app): State<App>, req: Request) -> Response {
    respond(run(&app, req).await)
}

async fn run(app: &App, req: Request) -> Result<Response, ApiError> {
    let (call, body) = Call::begin(app, req).await?;
    call.write(app, Family::Checkout).await?;
    let settings = call.settings();
    let b: Body = read_json(body, MAX_JSON_BODY).await?;
    let (cart, from_cookie) = the_cart(app, &call, b.cart_token.as_deref()).await?;
    let currency = cart
        .currency
        .clone()
        .unwrap_or_else(|| settings.currency.clone());
    let refused = |e: &StoreError| store_error(e, &call.site.content, &currency, NO_CART);
    if cart.purchased {
        return Err(already_placed(
            &call,
            &cart,
            refused(&StoreError::Refused(Refusal::CartPurchased)),
        ));
    }

    let mut errors = Map::new();
    let email = b.email.as_deref().map(str::trim).unwrap_or("");
    if email.is_empty() {
        errors.insert("email".into(), json!("Required"));
    } else if !email_valid(email) {
        errors.insert("email".into(), json!(EMAIL_INVALID));
    }
    let ships = cart
        .entries
        .iter()
        .any(|e| e.product_type == tenants::commerce::product_type::PHYSICAL);
    match &b.shipping_address {
        Some(a) => check_address("shippingAddress", a, &mut errors),
        None if ships => {
            errors.insert("shippingAddress".into(), json!("Required"));
        }
        None => {}
    }
    if let Some(a) = &b.billing_address {
        check_address("billingAddress", a, &mut errors);
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }

    let terms = CheckoutTerms {
        shipping_address: b.shipping_address.clone().filter(|_| ships),
        billing_address: b
            .billing_address
            .clone()
            .or_else(|| b.shipping_address.clone()),
        shipping_option_id: b.shipping_option_id.clone().filter(|s| !s.is_empty()),
        gift_card_code: b.gift_card_code.clone().filter(|s| !s.trim().is_empty()),
        now_ms: now_ms(),
    };
    let t = call.site.tenant.id;
    let quote = app
        .store
        .quote_checkout(t, &cart.id, &settings, &terms)
        .await
        .map_err(|e| refused(&e))?;
    if let Some(expected) = b.expected_grand_total_cents
        && expected != quote.totals.grand_total_minor
    {
        return Err(refused(&StoreError::Refused(Refusal::TotalChanged {
            grand_total_minor: quote.totals.grand_total_minor,
        })));
    }

    // Payment for what the gift card does not cover.
    let provider = if settings.payments.test_mode {
        app.commerce.test_payments.clone()
    } else {
        app.commerce.live_payments.clone()
    };
    let mut authorization = None;
    let payment = if quote.charge_minor == 0 {
        PaymentMethod::None
    } else {
        match b.payment {
            None => return Err(refused(&StoreError::Refused(Refusal::PaymentRequired))),
            Some(p) if p.method == "manual" => match &settings.payments.manual {
                Some(m) => {
                    // An order nobody pays still holds stock until it expires, and mails
                    // the address typed: a budget of its own, per client.
                    app.limits
                        .check(Family::PayLater, call.site.tenant.id, call.client.ip)
                        .await?;
                    PaymentMethod::Manual {
                        label: m.label.clone(),
                    }
                }
                None => {
                    return Err(refused(&StoreError::Refused(
                        Refusal::ManualPaymentUnavailable,
                    )));
                }
            },
            Some(p) if p.method == "card" => {
                let card = p
                    .card
                    .ok_or_else(|| ApiError::field("payment.card", "Required"))?;
                let charge = Charge {
                    amount_minor: quote.charge_minor,
                    currency: currency.clone(),
                    card,
                    description: format!("Order at {}", call.site.tenant.identifier),
                };
                let auth = provider.authorize(&charge).await.map_err(payment_error)?;
                let method = PaymentMethod::Card {
                    brand: auth.brand.clone(),
                    last4: auth.last4.clone(),
                    reference: auth.reference.clone(),
                };
                authorization = Some(auth);
                method
            }
            Some(_) => {
                return Err(ApiError::field(
                    "payment.method",
                    "Choose \"card\" or \"manual\".",
                ));
            }
        }
    };

    // The confirmation is written in the order's own transaction (never lost, never sent
    // for a refused checkout).
    let composer = crate::email::Composer::for_call(app, &call).await;
    let title = crate::email::site_title(&call).to_owned();
    let confirmation = |order: &tenants::Order| {
        let data = super::confirmation::confirmation_data(order, &call.site, &title);
        Some(composer.email(
            crate::email::compose::ORDER_CONFIRMATION,
            &data,
            &order.customer_email,
            None,
        ))
    };
    let placed = app
        .store
        .place_order_with_mail(
            t,
            &cart.id,
            &Checkout {
                settings: &settings,
                terms,
                customer_email: email.to_owned(),
                expected_total_minor: Some(quote.totals.grand_total_minor),
                charge_minor: quote.charge_minor,
                payment,
                test_mode: settings.payments.test_mode,
                time_zone: &call.site.content.time_zone,
            },
            confirmation,
        )
        .await;
    let order = match placed {
        Ok(order) => {
            app.outbox.nudge();
            order
        }
        Err(e) => {
            if let Some(auth) = &authorization {
                provider.void(auth).await;
            }
            return Err(match &e {
                StoreError::Refused(Refusal::CartPurchased) => {
                    let fresh = app.store.cart(t, &cart.id).await.ok().flatten();
                    already_placed(&call, fresh.as_ref().unwrap_or(&cart), refused(&e))
                }
                _ => refused(&e),
            });
        }
    };
    if let Some(auth) = &authorization
        && let Err(e) = provider.capture(auth).await
    {
        // The order stands; the owner sees the payment reference and settles it.
        tracing::error!(tenant = %call.site.tenant.identifier, order = %order.id, ?e, "capturing a payment failed");
    }
    crate::routes::analytics::record(
        app,
        &call,
        tenants::PURCHASE_EVENT,
        json!({"orderId": order.id, "grandTotalCents": order.grand_total_minor}),
    );
    let body = json!(Placed {
        order: order_view(&order, &call.site),
        status_url: status_url(&call.site, &order.id),
        confirmation_url: confirmation_url(&call.site, &order.id),
    });
    let response = json_response(StatusCode::CREATED, &body);
    Ok(if from_cookie {
        // The cart is closed: the next add starts a new one.
        with_cookies(response, [cookies::clear(CART_COOKIE, call.client.https)])
    } else {
        response
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_name_each_missing_field() {
        let mut errors = Map::new();
        check_address(
            "shippingAddress",
            &Address {
                country: "Netherlands".into(),
                ..Default::default()
            },
            &mut errors,
        );
        for f in ["firstName", "lastName", "line1", "city", "postalCode"] {
            assert_eq!(errors[&format!("shippingAddress.{f}")], "Required");
        }
        assert!(
            errors["shippingAddress.country"]
                .as_str()
                .unwrap()
                .contains("two-letter")
        );
    }
}
