//! The commerce API (SPEC.md §7 and what a store needs beyond it): carts, stock,
//! subscription carts, checkout, orders, downloads and gift-card balances, per tenant by
//! `Host`. Every state-changing call checks the crumb and a rate limit first; answers are
//! JSON, errors `{"message": ...}` (see [`crate::http`]). The routes and shapes are listed
//! in README.md ("Commerce API").

pub mod cart;
pub mod checkout;
pub mod confirmation;
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

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post, put};
use tenants::commerce::CommerceSettings;

use crate::http::ApiError;
pub use crate::http::call::{Call, respond, with_cookies};
use crate::server::App;
use payment::{NoLiveProvider, PaymentProvider, TestProvider};
use session::CartCookie;

/// How long a cart holds its stock after its last change, unless `serve` is told otherwise.
pub const DEFAULT_CART_HOLD: Duration = Duration::from_secs(60 * 60);

/// The commerce part of the server's state.
pub struct CommerceState {
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
    pub fn new(cart_hold: Duration) -> CommerceState {
        CommerceState {
            test_payments: Arc::new(TestProvider),
            live_payments: Arc::new(NoLiveProvider),
            cart_hold,
            page_carts: pages::PageCarts::default(),
        }
    }
}

impl Default for CommerceState {
    fn default() -> Self {
        CommerceState::new(DEFAULT_CART_HOLD)
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

/// What the commerce routes read of a call.
impl Call {
    /// The store's commerce settings (503 when they do not read; the cause is logged).
    pub fn settings(&self) -> Result<Arc<CommerceSettings>, ApiError> {
        self.site.content.commerce.clone().map_err(|_| {
            ApiError::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                "This store's checkout is not set up correctly.",
            )
        })
    }

    /// The visitor's cart cookie, when signed for this tenant.
    pub fn cart_cookie(&self) -> Option<CartCookie> {
        session::cart_cookie(&self.site, &self.headers)
    }
}
