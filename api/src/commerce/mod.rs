//! The commerce API (SPEC.md §7 and what a store needs beyond it): carts, stock,
//! subscription carts, checkout, orders, downloads and gift-card balances, per tenant by
//! `Host`. Every state-changing call checks the crumb and a rate limit first; answers are
//! JSON, errors `{"message": ...}` (see [`crate::http`]). The routes and shapes are listed
//! in README.md ("Commerce API").

pub mod cart;
pub mod checkout;
pub mod instalments;
pub mod json;
pub mod messages;
pub mod money;
pub mod orders;
pub mod pages;
pub mod payment;
pub mod session;
pub mod stock;
pub mod sweeper;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::http::{HeaderMap, HeaderValue, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use tenants::commerce::CommerceSettings;

use crate::client::{Client, client_of};
use crate::http::limits::{Family, Limits, Rates};
use crate::http::site::{NoSite, Site, resolve};
use crate::http::{ApiError, crumb};
use crate::server::App;
use payment::{NoLiveProvider, PaymentProvider, TestProvider};
use session::CartCookie;

/// How long a cart holds its stock after its last change, unless `serve` is told otherwise.
pub const DEFAULT_CART_HOLD: Duration = Duration::from_secs(60 * 60);

/// The commerce part of the server's state.
pub struct CommerceState {
    pub limits: Limits,
    /// Cards of stores in test mode.
    pub test_payments: Arc<dyn PaymentProvider>,
    /// Cards of stores not in test mode.
    pub live_payments: Arc<dyn PaymentProvider>,
    /// How long an idle cart holds its stock.
    pub cart_hold: Duration,
    /// Carts as pages show them, by (tenant, cart id, revision): a page view with a cart
    /// cookie reads its cart from here, and a change makes a new revision (and key).
    pub page_carts: pages::PageCarts,
}

impl CommerceState {
    pub fn new(rates: Rates, cart_hold: Duration) -> CommerceState {
        CommerceState {
            limits: Limits::new(rates),
            test_payments: Arc::new(TestProvider),
            live_payments: Arc::new(NoLiveProvider),
            cart_hold,
            page_carts: pages::PageCarts::default(),
        }
    }
}

impl Default for CommerceState {
    fn default() -> Self {
        CommerceState::new(Rates::default(), DEFAULT_CART_HOLD)
    }
}

/// The commerce routes.
pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/commerce/shopping-cart", get(cart::get_cart))
        .route("/api/commerce/shopping-cart/entries", post(cart::add_entry))
        .route(
            "/api/commerce/shopping-cart/entries/{entry_id}",
            put(cart::set_quantity).delete(cart::remove_entry),
        )
        .route(
            "/api/commerce/shopping-cart/entries/{entry_id}/additionalFields",
            put(cart::set_fields),
        )
        .route(
            "/api/commerce/shopping-cart/coupons",
            post(cart::add_coupon),
        )
        .route(
            "/api/commerce/shopping-cart/coupons/{code}",
            axum::routing::delete(cart::remove_coupon),
        )
        .route(
            "/api/commerce/shopping-cart/shipping-location",
            put(cart::set_location).delete(cart::clear_location),
        )
        .route(
            "/api/commerce/shopping-cart/shipping-option",
            put(cart::set_shipping_option),
        )
        .route(
            "/api/3/commerce/cart/subscription",
            post(cart::subscription_cart),
        )
        .route("/api/3/commerce/cart/gift-card", post(cart::gift_card_cart))
        .route("/api/commerce/inventory/stock", get(stock::stock))
        .route("/api/commerce/inventory/stock/", get(stock::stock))
        .route("/api/commerce/checkout", post(checkout::checkout))
        .route("/api/commerce/orders/{order_id}", get(orders::order))
        .route(
            "/api/commerce/downloads/{order_id}/{line}",
            get(orders::download),
        )
        .route(
            "/api/commerce/gift-cards/balance",
            post(orders::gift_card_balance),
        )
}

/// One API call's context: its site, client, headers and URI.
pub struct Call {
    pub site: Site,
    pub client: Client,
    pub headers: HeaderMap,
    pub uri: Uri,
}

impl Call {
    /// The call's site (404 JSON for an unknown host, 503 when the store fails), and its
    /// body to read.
    pub async fn begin(app: &App, req: Request) -> Result<(Call, Body), ApiError> {
        let site = match resolve(app, crate::http::site::host_of(&req)).await {
            Ok(s) => s,
            Err(NoSite::UnknownHost) => return Err(ApiError::not_found("Not Found")),
            Err(NoSite::Unavailable) => return Err(ApiError::unavailable()),
        };
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        let client = client_of(peer, req.headers(), &app.trusted_proxies);
        let (parts, body) = req.into_parts();
        Ok((
            Call {
                site,
                client,
                headers: parts.headers,
                uri: parts.uri,
            },
            body,
        ))
    }

    /// The store's commerce settings (503 when they do not read; the cause is logged).
    pub fn settings(&self) -> Result<Arc<CommerceSettings>, ApiError> {
        self.site.content.commerce.clone().map_err(|_| {
            ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                "This store's checkout is not set up correctly.",
            )
        })
    }

    /// A state-changing call: the crumb must match, then the client must be within its rate.
    pub fn write(&self, app: &App, family: Family) -> Result<(), ApiError> {
        crumb::check(&self.headers, None, &self.site.secret)?;
        app.commerce
            .limits
            .check(family, self.site.tenant.id, self.client.ip)
    }

    /// The visitor's cart cookie, when signed for this tenant.
    pub fn cart_cookie(&self) -> Option<CartCookie> {
        session::cart_cookie(&self.site, &self.headers)
    }

    /// A query parameter.
    pub fn query(&self, name: &str) -> Option<String> {
        form_urlencoded::parse(self.uri.query().unwrap_or("").as_bytes())
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.into_owned())
    }
}

/// The response of a handler's body.
pub fn respond(r: Result<Response, ApiError>) -> Response {
    r.unwrap_or_else(IntoResponse::into_response)
}

/// Adds `Set-Cookie` lines to a response.
pub fn with_cookies(mut r: Response, cookies: impl IntoIterator<Item = String>) -> Response {
    for c in cookies {
        if let Ok(v) = HeaderValue::from_str(&c) {
            r.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    r
}
