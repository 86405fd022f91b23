//! The browser islands (`client/`), built by `build.rs` and embedded in the binary: served
//! under [`PREFIX`] with names that carry their content hash (so browsers keep them for
//! good), and added to pages that need them.
//!
//! The renderer ends `{squarespace-headers}` with [`PLACEHOLDER`]. After a page renders,
//! [`finish_page`] replaces it with the islands' stylesheet, the page data the islands read
//! (the store's currency and locale, express checkout, the visitor's cart summary, the
//! instalment pills of the products on the page, the owner's restock success text, what the
//! analytics island reports and the site's plan status when it shows) and the
//! loader as a module script (never render-blocking) — only when the page has island markup,
//! the visitor has a cart or is a signed-in member, or the site's plan status shows;
//! otherwise it only takes the placeholder out, and the page loads no script at all (its
//! view is counted by the server all the same).

use axum::body::Body;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::json;
use template_lang::value::Node;

use crate::http::site::ProductLink;
use memchr::memmem::Finder;
use std::collections::HashMap;
use std::sync::LazyLock;

/// What `build.rs` built: the islands, and the LESS compiler ([`crate::styles`]).
pub(crate) mod built {
    include!(concat!(env!("OUT_DIR"), "/islands.rs"));
}

/// Where the islands are served.
pub const PREFIX: &str = "/_tessera/islands/";

/// What the renderer leaves in `{squarespace-headers}` for this module.
pub use renderer::render::ISLANDS_PLACEHOLDER as PLACEHOLDER;

/// Markup an island mounts on; a page with none of it gets no script.
const MARKERS: [&str; 13] = [
    "sqs-add-to-cart-button",
    "sqs-product-quick-view-button",
    "product-variants",
    "product-quantity-input",
    "sqs-custom-cart",
    "sqs-cart-quantity",
    "sqs-cart-root",
    "sqs-checkout-root",
    "data-island=",
    "data-form-id=",
    "product-restock-notification",
    // The `comments` formatter's mount point (not its Disqus one) and the like button.
    "data-comment-state=",
    "sqs-simple-like",
];

/// The searchers of what [`finish_page`] looks for in every page, built once (see
/// `cart_forms`'s: `str::find` builds one per call).
struct Needles {
    placeholder: Finder<'static>,
    markers: Vec<Finder<'static>>,
    item_id: Finder<'static>,
    restock: Finder<'static>,
}

static NEEDLES: LazyLock<Needles> = LazyLock::new(|| Needles {
    placeholder: Finder::new(PLACEHOLDER),
    markers: MARKERS.iter().map(Finder::new).collect(),
    item_id: Finder::new(ITEM_ID),
    restock: Finder::new("product-restock-notification"),
});

const ITEM_ID: &str = "data-item-id=\"";

/// Whether this binary carries the islands (it does when Node was there at build time).
pub fn available() -> bool {
    built::LOADER.is_some()
}

/// `GET /_tessera/islands/{file}`.
pub async fn serve(Path(file): Path<String>) -> Response {
    let Some((_, bytes)) = built::FILES.iter().find(|(name, _)| *name == file) else {
        return crate::http::small_page::plain(StatusCode::NOT_FOUND, "Not Found");
    };
    let kind = if file.ends_with(".css") {
        "text/css; charset=utf-8"
    } else {
        "text/javascript; charset=utf-8"
    };
    let mut r = Response::new(Body::from(*bytes));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=31536000, immutable"),
    );
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    r
}

/// What a page's islands read about it.
pub struct PageFacts<'a> {
    pub currency: &'a str,
    pub locale: &'a str,
    pub express_checkout: bool,
    /// The visitor's cart (the page context's `shoppingCart`), if they have one.
    pub cart: Option<&'a Node>,
    /// The site's products, for the instalment pills of those on the page.
    pub products: &'a HashMap<String, ProductLink>,
    /// The owner's text for a restock sign-up that worked.
    pub restock_success_text: Option<&'a str>,
    /// The visitor is a signed-in member (their bar, with sign-out, is an island).
    pub signed_in: bool,
    /// What the analytics island needs, when analytics is on.
    pub analytics: Option<AnalyticsFacts>,
    /// The site's plan status (SPEC.md website status): a parking-page (12) site shows it
    /// to everyone; trial (3) and expired (1) sites only to their owner ([`Self::owner`]),
    /// through the analytics island.
    pub website_status: i64,
    /// The request is the site's owner's (an owner token of the site, with any role): the
    /// trial and expired banners, which link to billing, are for them, never for visitors.
    pub owner: bool,
}

/// The analytics island's part of the page data (the page view itself the server counted).
pub struct AnalyticsFacts {
    /// The page was counted: its errors and performance are reported too.
    pub tracked: bool,
    pub page_type: Option<u16>,
}

/// Website statuses whose pages show something (SPEC.md §3: expired, trial, parking page).
pub const STATUSES_SHOWN: [i64; 3] = [1, 3, 12];
/// Of those, the ones shown only to the site's owner: the trial and expired banners.
pub const OWNER_ONLY_STATUSES: [i64; 2] = [1, 3];

/// Whether a page shows its site's plan status to this request.
pub fn status_shown(status: i64, owner: bool) -> bool {
    STATUSES_SHOWN.contains(&status) && (owner || !OWNER_ONLY_STATUSES.contains(&status))
}

/// The instalment pills of the products whose add-to-cart buttons are on the page
/// (`data-item-id`), by item id; the pill island shows them and follows the chosen variant's
/// price with the limits they carry.
fn page_instalments(
    body: &str,
    products: &HashMap<String, ProductLink>,
) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    let mut rest = body;
    while let Some(at) = NEEDLES.item_id.find(rest.as_bytes()) {
        rest = &rest[at + ITEM_ID.len()..];
        let Some(end) = memchr::memchr(b'"', rest.as_bytes()) else {
            break;
        };
        let id = &rest[..end];
        if !out.contains_key(id)
            && let Some(pill) = products.get(id).and_then(|p| p.instalments.as_ref())
        {
            out.insert(id.to_owned(), pill.clone());
        }
    }
    out
}

/// What [`finish_page`] reads of a cart (its total quantity, subtotal in cents and
/// currency), as one text: a kept page's finished parts made for one cart serve another
/// only when this is the same ([`crate::pages::kept::Shape`]). Kept beside `finish_page` so
/// the two change together.
pub(crate) fn cart_summary_key(cart: &Node) -> String {
    let part = |k: &str| match cart.pointer(&[k]) {
        Some(Node::Number(x)) => format!("{x}"),
        Some(Node::String(s)) => format!("\"{s}"),
        Some(_) => "?".to_string(),
        None => "-".to_string(),
    };
    format!(
        "{}/{}/{}",
        part("totalQuantity"),
        part("subtotalCents"),
        part("currency")
    )
}

/// Puts the islands into a rendered page (or takes the placeholder out).
pub fn finish_page(body: &mut String, facts: &PageFacts<'_>) {
    let needles = &*NEEDLES;
    let Some(at) = needles.placeholder.find(body.as_bytes()) else {
        return;
    };
    let count = |k: &str| {
        facts
            .cart
            .and_then(|c| c.pointer(&[k]))
            .and_then(|n| match n {
                Node::Number(x) => Some(*x),
                _ => None,
            })
            .unwrap_or(0.0)
    };
    let has_cart = count("totalQuantity") > 0.0;
    let status_shown = status_shown(facts.website_status, facts.owner);
    let wanted = available()
        && (has_cart
            || facts.signed_in
            || status_shown
            || needles
                .markers
                .iter()
                .any(|m| m.find(body.as_bytes()).is_some()));
    let mut tags = String::new();
    if wanted {
        let cart = has_cart.then(|| {
            json!({
                "totalQuantity": count("totalQuantity"),
                "subtotalCents": count("subtotalCents"),
                "currency": facts
                    .cart
                    .and_then(|c| c.pointer(&["currency"]))
                    .and_then(Node::as_str)
                    .unwrap_or(facts.currency),
            })
        });
        let mut data = json!({
            "currency": facts.currency,
            "locale": facts.locale,
            "expressCheckout": facts.express_checkout,
            "cart": cart,
        });
        let pills = page_instalments(body, facts.products);
        if !pills.is_empty() {
            data["instalments"] = serde_json::Value::Object(pills);
        }
        if let Some(a) = &facts.analytics {
            data["analytics"] = json!({"track": a.tracked, "pageType": a.page_type});
        }
        if status_shown {
            data["websiteStatus"] = json!(facts.website_status);
        }
        if let Some(text) = facts.restock_success_text
            && needles.restock.find(body.as_bytes()).is_some()
        {
            data["restockSuccessText"] = json!(text);
        }
        // JSON in a script element: no `<` may close it early.
        let data = data.to_string().replace('<', "\\u003c");
        if let Some(css) = built::STYLES {
            tags.push_str(&format!(
                "<link rel=\"stylesheet\" href=\"{PREFIX}{css}\">\n"
            ));
        }
        tags.push_str(&format!(
            "<script type=\"application/json\" id=\"tessera-data\">{data}</script>\n"
        ));
        if let Some(loader) = built::LOADER {
            tags.push_str(&format!(
                "<script type=\"module\" src=\"{PREFIX}{loader}\"></script>\n"
            ));
        }
    }
    body.replace_range(at..at + PLACEHOLDER.len(), &tags);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(products: &HashMap<String, ProductLink>, status: i64, owner: bool) -> PageFacts<'_> {
        PageFacts {
            currency: "USD",
            locale: "en-US",
            express_checkout: false,
            cart: None,
            products,
            restock_success_text: None,
            signed_in: false,
            analytics: Some(AnalyticsFacts {
                tracked: true,
                page_type: Some(2),
            }),
            website_status: status,
            owner,
        }
    }

    fn finished_for(status: i64, owner: bool) -> String {
        let products = HashMap::new();
        let mut body = format!("<head>{PLACEHOLDER}</head><body><p>No islands here</p></body>");
        finish_page(&mut body, &facts(&products, status, owner));
        body
    }

    fn finished(status: i64) -> String {
        finished_for(status, true)
    }

    #[test]
    fn visitors_see_no_trial_or_expired_banner_only_the_parking_page() {
        for status in OWNER_ONLY_STATUSES {
            let page = finished_for(status, false);
            assert!(
                !page.contains("websiteStatus") && !page.contains(PREFIX),
                "{status}: {page}"
            );
        }
        let parked = finished_for(12, false);
        assert!(parked.contains("\"websiteStatus\":12"), "{parked}");
    }

    #[test]
    fn a_plan_status_that_shows_brings_the_islands_and_says_which() {
        assert!(
            available(),
            "the test build has the islands (README: Node at build time)"
        );
        // A paid site's page without island markup stays without script.
        let paid = finished(8);
        assert!(
            !paid.contains(PREFIX) && !paid.contains(PLACEHOLDER),
            "{paid}"
        );
        for status in STATUSES_SHOWN {
            let page = finished(status);
            assert!(page.contains(PREFIX), "{status}: {page}");
            assert!(
                page.contains(&format!("\"websiteStatus\":{status}")),
                "{page}"
            );
            assert!(
                page.contains("\"analytics\":{\"pageType\":2,\"track\":true}")
                    || page.contains("\"analytics\":{\"track\":true,\"pageType\":2}"),
                "{page}"
            );
        }
    }
}
