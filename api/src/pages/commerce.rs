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
//!
//! What a page works out from a cart (that key, and the islands' summary of it) is worked
//! out once per cached cart and kept beside it ([`PageCart`]): it is a function of the
//! cart's value alone (and, for the key, of the folder's [`CartReads`], compared whole), and
//! the cached value is never changed, only replaced under a new revision, so what is kept
//! beside it is exactly as fresh as the cart itself, on either backend.

use std::sync::{Arc, OnceLock};

use axum::http::HeaderMap;
use renderer::cart_reads::CartReads;
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
    /// The same cart with what pages work out from it, kept with it in the page-cart cache.
    pub page_cart: Option<Arc<PageCart>>,
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
        out.page_cart = match app.caches.page_carts.get(&key) {
            Some(cart) => Some(cart),
            None => match app.store.cart(site.tenant.id, &cookie.id).await {
                Ok(Some(cart)) if !cart.purchased && cart.kind == CartKind::Cart => {
                    let totals = cart.price(settings, None, now_ms());
                    let node = Node::from_json(&cart_json(Some(&cart), &totals, settings, site));
                    let cart = Arc::new(PageCart::new(node));
                    app.caches.page_carts.insert(key, cart.clone());
                    Some(cart)
                }
                Ok(_) => None,
                Err(e) => {
                    tracing::warn!(tenant = %site.tenant.identifier, error = %e, "loading a page's cart failed");
                    None
                }
            },
        };
    }
    out.cart = out.page_cart.as_ref().map(|c| c.node.clone());
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

/// A cart as pages show it (the page context's `shoppingCart`), and what pages work out
/// from it, each worked out the first time a page asks. Never changed once made: a changed
/// cart is a new revision, and a new `PageCart`.
#[derive(Debug)]
pub struct PageCart {
    pub node: Node,
    /// What a folder's pages can read of the cart ([`CartReads::key`]), for the `CartReads`
    /// it was worked out for.
    key: OnceLock<(CartReads, Option<Arc<str>>)>,
    /// What the islands' data says of it ([`crate::pages::islands::cart_summary_key`]).
    summary: OnceLock<Arc<str>>,
}

impl PageCart {
    pub fn new(node: Node) -> PageCart {
        PageCart {
            node,
            key: OnceLock::new(),
            summary: OnceLock::new(),
        }
    }

    /// `reads.key(&self.node)`, worked out once (for the first `CartReads` asked; another
    /// folder's is worked out each time).
    pub fn key(&self, reads: &CartReads) -> Option<Arc<str>> {
        let (first, key) = self
            .key
            .get_or_init(|| (reads.clone(), reads.key(&self.node).map(Arc::from)));
        if first == reads {
            key.clone()
        } else {
            reads.key(&self.node).map(Arc::from)
        }
    }

    /// `islands::cart_summary_key(&self.node)`, worked out once.
    pub fn summary(&self) -> Arc<str> {
        self.summary
            .get_or_init(|| crate::pages::islands::cart_summary_key(&self.node).into())
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pages::islands::cart_summary_key;

    fn cart(quantity: f64, subtotal: f64) -> Node {
        Node::from_json(&serde_json::json!({
            "totalQuantity": quantity,
            "subtotalCents": subtotal,
            "subtotal": {"value": subtotal / 100.0, "currency": "USD"},
            "currency": "USD",
            "entries": [{"quantity": quantity, "itemId": "a"}],
        }))
    }

    #[test]
    fn what_a_page_cart_keeps_is_what_is_worked_out_from_it() {
        let reads = |members: &[&str]| CartReads::Parts {
            quantity: true,
            members: members.iter().map(|m| m.to_string()).collect(),
        };
        let (a, b) = (reads(&["subtotal"]), reads(&["subtotal", "totalQuantity"]));
        for node in [cart(1.0, 1200.0), cart(3.0, 99.0), Node::Null] {
            let kept = PageCart::new(node.clone());
            // Asked again and again, with the first folder's reads and another's, and
            // with a folder whose pages read the whole cart.
            for _ in 0..3 {
                for r in [&a, &b, &CartReads::Any] {
                    assert_eq!(kept.key(r).as_deref(), r.key(&node).as_deref(), "{r:?}");
                }
                assert_eq!(&*kept.summary(), cart_summary_key(&node));
            }
        }
        // Two carts never share what was worked out for one.
        let (one, two) = (
            PageCart::new(cart(1.0, 100.0)),
            PageCart::new(cart(2.0, 100.0)),
        );
        assert_ne!(one.key(&a), two.key(&a));
        assert_ne!(one.summary(), two.summary());
    }
}
