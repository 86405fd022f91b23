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
pub use crate::services::commerce::payment;
pub mod session;
pub mod stock;
pub mod sweeper;

use std::sync::Arc;
use std::time::Duration;

use tenants::commerce::CommerceSettings;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::call::Call;
use crate::server::App;
use payment::{NoLiveProvider, PaymentProvider, TestProvider};
use session::CartCookie;

/// How long a cart holds its stock after its last change, unless `serve` is told otherwise.
pub const DEFAULT_CART_HOLD: Duration = Duration::from_secs(60 * 60);

/// How long a pay-later order waits for payment before it expires and gives its stock
/// back, unless `serve` is told otherwise (`--pay-later-expiry`): a week.
pub const DEFAULT_PAY_LATER_EXPIRY: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The commerce part of the server's state.
pub struct CommerceState {
    /// Cards of stores in test mode.
    pub test_payments: Arc<dyn PaymentProvider>,
    /// Cards of stores not in test mode.
    pub live_payments: Arc<dyn PaymentProvider>,
    /// How long an idle cart holds its stock.
    pub cart_hold: Duration,
    /// How long a pay-later order waits for payment.
    pub pay_later_expiry: Duration,
    /// Carts as pages show them, by (tenant, cart id, revision): a page view with a cart
    /// cookie reads its cart from here, and a change makes a new revision (and key).
    pub page_carts: crate::pages::commerce::PageCarts,
}

impl CommerceState {
    pub fn new(cart_hold: Duration) -> CommerceState {
        CommerceState {
            test_payments: Arc::new(TestProvider),
            live_payments: Arc::new(NoLiveProvider),
            cart_hold,
            pay_later_expiry: DEFAULT_PAY_LATER_EXPIRY,
            page_carts: crate::pages::commerce::PageCarts::default(),
        }
    }

    /// The card provider of a store in test mode (`test_mode`) or not.
    pub fn payments(&self, test_mode: bool) -> &dyn PaymentProvider {
        if test_mode {
            self.test_payments.as_ref()
        } else {
            self.live_payments.as_ref()
        }
    }

    /// With pay-later orders expiring after `expiry` unpaid.
    pub fn with_pay_later_expiry(mut self, expiry: Duration) -> CommerceState {
        self.pay_later_expiry = expiry;
        self
    }
}

impl Default for CommerceState {
    fn default() -> Self {
        CommerceState::new(DEFAULT_CART_HOLD)
    }
}

/// The commerce routes, each registered from its handler's `#[utoipa::path]`.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(cart::get_cart))
        .routes(routes!(cart::add_entry))
        .routes(routes!(cart::set_quantity, cart::remove_entry))
        .routes(routes!(cart::set_fields))
        .routes(routes!(cart::add_coupon))
        .routes(routes!(cart::remove_coupon))
        .routes(routes!(cart::set_location, cart::clear_location))
        .routes(routes!(cart::set_shipping_option))
        .routes(routes!(cart::subscription_cart))
        .routes(routes!(cart::gift_card_cart))
        .routes(routes!(stock::stock))
        .routes(routes!(stock::stock_slash))
        .routes(routes!(checkout::checkout))
        .routes(routes!(orders::order))
        .routes(routes!(orders::download))
        .routes(routes!(orders::gift_card_balance))
}

/// What the commerce routes read of a call.
impl Call {
    /// The store's commerce settings.
    pub fn settings(&self) -> Arc<CommerceSettings> {
        self.site.content.commerce.clone()
    }

    /// The visitor's cart cookie, when signed for this tenant.
    pub fn cart_cookie(&self) -> Option<CartCookie> {
        session::cart_cookie(&self.site, &self.headers)
    }
}
