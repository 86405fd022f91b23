//! What commerce adds to a page view: the crumb cookie (set when the visitor has none valid
//! for this tenant), the visitor's cart as the page context's `shoppingCart`, and, on an
//! order's page, the order (when the link's token opens it).
//!
//! A page view with a cart cookie reads the cart through the page-cart cache ([`crate::cache::Caches::page_carts`]), keyed by the
//! revision the cookie names: every change to a cart makes a new revision and the changing
//! call sets the cookie to it, so a cached cart is never an old one, on any node, and no
//! visitor's cart is keyed by anything another visitor holds.
//!
//! The cart is read on every page view with one, even when the page comes from the kept
//! renders: those are keyed by what the page can read of the cart (its quantity, its
//! subtotal: [`crate::pages::kept`], `renderer::cart_reads`), which is worked out from this
//! cart, so a changed cart shows on the very next page.

use axum::http::HeaderMap;
use renderer::route::order_page;
use template_lang::value::Node;
use tenants::{CartKind, now_ms};

use crate::http::commerce::json::{cart_json, order_json};
use crate::http::commerce::session::{cart_cookie, order_token_valid};
use crate::http::cookies;
use crate::http::crumb;
use crate::http::site::Site;
use crate::server::state::App;

/// What commerce gives a page view.
#[derive(Default)]
pub struct PageCommerce {
    /// `Set-Cookie` lines for the response.
    pub set_cookies: Vec<String>,
    /// The visitor's crumb: their cookie's, or the one this page view sets (the cart's
    /// forms carry it, [`crate::pages::cart_forms`]).
    pub crumb: String,
    /// The visitor's open cart, as `shoppingCart`.
    pub cart: Option<Node>,
    /// The order an order page shows.
    pub order: Option<Node>,
}

/// The crumb, cart and order of a page view.
pub async fn for_page(
    app: &App,
    site: &Site,
    headers: &HeaderMap,
    https: bool,
    path: &str,
    query: &str,
) -> PageCommerce {
    let mut out = PageCommerce::default();
    match crumb::of_visitor(headers, &site.secret) {
        Some(c) => out.crumb = c.to_owned(),
        None => {
            out.crumb = crumb::new(&site.secret);
            out.set_cookies.push(cookies::set(
                crumb::COOKIE,
                &out.crumb,
                cookies::Options {
                    http_only: false,
                    https,
                    max_age: None,
                },
            ));
        }
    }
    let settings = &site.content.commerce;
    if let Some(cookie) = cart_cookie(site, headers) {
        let key = (site.tenant.id, cookie.id.clone(), cookie.revision);
        out.cart = match app.caches.page_carts.get(&key) {
            Some(node) => Some(node),
            None => match app.store.cart(site.tenant.id, &cookie.id).await {
                Ok(Some(cart)) if !cart.purchased && cart.kind == CartKind::Cart => {
                    let totals = cart.price(settings, None, now_ms());
                    let node = Node::from_json(&cart_json(Some(&cart), &totals, settings, site));
                    app.caches.page_carts.insert(key, node.clone());
                    Some(node)
                }
                Ok(_) => None,
                Err(e) => {
                    tracing::warn!(tenant = %site.tenant.identifier, error = %e, "loading a page's cart failed");
                    None
                }
            },
        };
    }
    if let Some((_, order_id)) = order_page(path) {
        let token = form_urlencoded::parse(query.as_bytes())
            .find(|(k, _)| k == "token")
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default();
        if order_token_valid(site, order_id, &token) {
            match app.store.order(site.tenant.id, order_id).await {
                Ok(Some(order)) => out.order = Some(Node::from_json(&order_json(&order, site))),
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(tenant = %site.tenant.identifier, error = %e, "loading an order page failed");
                }
            }
        }
    }
    out
}
