//! The commerce API (SPEC.md §7 and what a store needs beyond it): carts, stock,
//! subscription carts, checkout, orders, downloads and gift-card balances, per tenant by
//! `Host`. Every state-changing call checks the crumb and a rate limit first; answers are
//! JSON, errors `{"message": ...}` (see [`crate::http`]). The routes and shapes are listed
//! in README.md ("Commerce API").

pub mod cart;
pub mod cart_form;
pub mod checkout;
pub mod orders;
pub mod places;
pub use crate::services::commerce::payment;
pub use crate::services::commerce::{CommerceState, DEFAULT_CART_HOLD, DEFAULT_PAY_LATER_EXPIRY};
pub mod stock;

use std::sync::Arc;

use tenants::commerce::CommerceSettings;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::call::Call;
use crate::http::commerce::session::{self, CartCookie};
use crate::server::state::App;

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
        .routes(routes!(cart_form::form_add))
        .routes(routes!(cart_form::form_entry))
        .routes(routes!(stock::stock))
        .routes(routes!(stock::stock_slash))
        .routes(routes!(checkout::checkout))
        .routes(routes!(orders::order))
        .routes(routes!(orders::download))
        .routes(routes!(orders::gift_card_balance))
        .routes(routes!(places::countries))
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
