//! How the server knows a visitor's cart, and the links it hands out: the cart cookie, the
//! subscription cart token, the order link token and download links, each signed with the
//! tenant's secret (see [`crate::http::signing`]), so none works on another tenant's host.
//!
//! * `tessera-cart=<cart id>.<revision>.<signature>`: `HttpOnly; SameSite=Lax; Path=/`, kept
//!   90 days, `Secure` behind a trusted HTTPS proxy. The revision changes with every change
//!   to the cart, so a page can use a cached copy of the cart for exactly that revision.
//! * cart token `<cart id>.<signature>`: names a subscription cart in the subscription
//!   checkout URL.
//! * order token: the signature of the order id; the order confirmation and status pages
//!   and `GET /api/commerce/orders/{id}` need it.
//! * download link: `/api/commerce/downloads/{order}/{line}?expires=<ms>&signature=...`,
//!   good for [`DOWNLOAD_LINK_LIFETIME`].

use std::time::Duration;

use axum::http::HeaderMap;
use tenants::{Cart, now_ms};

use crate::http::cookies;
use crate::http::signing::{sign, verify};
use crate::http::site::Site;

/// The cart cookie's name.
pub const CART_COOKIE: &str = "tessera-cart";

/// How long a cart cookie is kept.
pub const CART_COOKIE_LIFETIME: Duration = Duration::from_secs(90 * 24 * 3600);

/// How long a download link works.
pub const DOWNLOAD_LINK_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// A verified cart cookie.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CartCookie {
    pub id: String,
    pub revision: i64,
}

/// The visitor's cart, from a cart cookie signed for this tenant.
pub fn cart_cookie(site: &Site, headers: &HeaderMap) -> Option<CartCookie> {
    cookies::values(headers, CART_COOKIE).find_map(|v| {
        let mut parts = v.splitn(3, '.');
        let (id, revision, sig) = (parts.next()?, parts.next()?, parts.next()?);
        let revision = revision.parse().ok()?;
        verify(&site.secret, "cart", id, sig).then(|| CartCookie {
            id: id.to_owned(),
            revision,
        })
    })
}

/// The `Set-Cookie` line naming `cart` at its current revision.
pub fn set_cart_cookie(site: &Site, cart: &Cart, https: bool) -> String {
    let value = format!(
        "{}.{}.{}",
        cart.id,
        cart.revision,
        sign(&site.secret, "cart", &cart.id)
    );
    cookies::set(
        CART_COOKIE,
        &value,
        cookies::Options {
            http_only: true,
            https,
            max_age: Some(CART_COOKIE_LIFETIME),
        },
    )
}

/// A subscription cart's token.
pub fn cart_token(site: &Site, cart_id: &str) -> String {
    format!("{cart_id}.{}", sign(&site.secret, "cart-token", cart_id))
}

/// The cart a token names, if it was made for this tenant.
pub fn cart_of_token(site: &Site, token: &str) -> Option<String> {
    let (id, sig) = token.split_once('.')?;
    verify(&site.secret, "cart-token", id, sig).then(|| id.to_owned())
}

/// The token an order's links carry.
pub fn order_token(site: &Site, order_id: &str) -> String {
    sign(&site.secret, "order", order_id)
}

/// Whether `token` opens this order.
pub fn order_token_valid(site: &Site, order_id: &str, token: &str) -> bool {
    verify(&site.secret, "order", order_id, token)
}

/// The order status page (SPEC page type 211).
pub fn status_url(site: &Site, order_id: &str) -> String {
    format!(
        "/commerce/orders/{order_id}?token={}",
        order_token(site, order_id)
    )
}

/// The page a buyer lands on after checkout (page type 202, 206 or 207).
pub fn confirmation_url(site: &Site, order_id: &str) -> String {
    format!(
        "/commerce/order-confirmed/{order_id}?token={}",
        order_token(site, order_id)
    )
}

fn download_message(order_id: &str, line: i64, expires_ms: i64) -> String {
    format!("{order_id}:{line}:{expires_ms}")
}

/// A download link for a digital line of an order, working until now + the link lifetime.
pub fn download_url(site: &Site, order_id: &str, line: i64) -> String {
    let expires = now_ms() + DOWNLOAD_LINK_LIFETIME.as_millis() as i64;
    let sig = sign(
        &site.secret,
        "download",
        &download_message(order_id, line, expires),
    );
    format!("/api/commerce/downloads/{order_id}/{line}?expires={expires}&signature={sig}")
}

/// Whether a download link's signature holds (its expiry is checked separately, so an
/// expired link can be told apart from a forged one).
pub fn download_signed(site: &Site, order_id: &str, line: i64, expires_ms: i64, sig: &str) -> bool {
    verify(
        &site.secret,
        "download",
        &download_message(order_id, line, expires_ms),
        sig,
    )
}
