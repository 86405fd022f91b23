//! URL path to route, and each route's page type (the numeric table in SPEC.md §2).

use crate::request_text::RequestText;
use crate::site::SiteContent;

/// Page types (SPEC.md §2, "Page types (numeric)").
pub mod page_type {
    pub const MAIN_CONTENT: u16 = 1;
    pub const PAGE: u16 = 2;
    pub const CONTENT_ITEM: u16 = 50;
    pub const NOT_FOUND: u16 = 100;
    pub const ERROR: u16 = 101;
    pub const SEARCH: u16 = 102;
    pub const LOCK_SCREEN: u16 = 103;
    pub const PROTECTED_CONTENT: u16 = 105;
    pub const MEMBER_AREA_DENIED: u16 = 106;
    pub const SHOW_CART: u16 = 200;
    pub const CHECKOUT: u16 = 201;
    pub const ORDER_CONFIRMED: u16 = 202;
    pub const SUBSCRIPTION_CONFIRMED: u16 = 206;
    pub const ORDER_RECEIVED: u16 = 207;
    pub const ORDER_STATUS: u16 = 211;
}

/// Folder behaviours (SPEC.md §3): what a folder's own URL does.
pub mod folder_behavior {
    pub const INDEX: i64 = 1;
    pub const REDIRECT: i64 = 2;
    pub const NONE: i64 = 3;
}

/// Filters and paging of a collection list, from the query string (the visitor's text:
/// [`RequestText`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListQuery {
    pub category: Option<RequestText>,
    pub tag: Option<RequestText>,
    pub author: Option<RequestText>,
    pub month: Option<RequestText>,
    /// Items already shown on earlier pages (the `offset` parameter of next-page links).
    pub offset: usize,
    /// `?view=calendar` on events.
    pub calendar: bool,
}

/// What a checkout with a cart of its own buys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purchase {
    Subscription,
    GiftCard,
}

impl Purchase {
    /// As the page context names it (`checkoutKind`).
    pub fn as_str(self) -> &'static str {
        match self {
            Purchase::Subscription => "subscription",
            Purchase::GiftCard => "gift-card",
        }
    }
}

/// What a request path is.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// A collection's own URL: a regular page, a static page, a list, an index or a folder.
    Collection {
        index: usize,
        query: ListQuery,
    },
    /// An item's permalink.
    Item {
        collection: usize,
        item: usize,
    },
    /// A collection, or an item of one, that a password keeps locked (SPEC.md page type 103):
    /// `requested` is the collection asked for (or the item's collection), `locked` the one
    /// whose password unlocks it (itself, or a folder or index above it).
    LockScreen {
        requested: usize,
        locked: usize,
        /// The path (and query) to return to after unlocking.
        redirect: RequestText,
        /// The previous attempt had a wrong password (`?lock-error=1`).
        error: bool,
    },
    /// A collection, or an item of one, in a member area the visitor does not belong to
    /// (page type 106): `requested` as above, `restricted` the collection that names the
    /// area (itself, or a folder or index above it).
    MemberAreaDenied {
        requested: usize,
        restricted: usize,
        area: String,
        /// The path (and query) to return to after joining or signing in.
        redirect: RequestText,
    },
    /// A folder without its own page: redirect to its first child.
    Redirect {
        location: String,
    },
    Search {
        query: RequestText,
    },
    Cart,
    Checkout,
    /// The checkout of one purchase with a cart of its own, named by its token: a
    /// subscription product (`/checkout/subscription`) or a gift card in its chosen
    /// denomination (`/checkout/gift-card`, the gift-card page).
    TokenCheckout {
        purchase: Purchase,
        cart_token: RequestText,
    },
    /// Where a buyer lands after checkout: order confirmed (202), order received (207, a
    /// pay-later order) or subscription confirmed (206), by the order.
    OrderConfirmed {
        order_id: String,
    },
    /// An order's status page (211).
    OrderStatus {
        order_id: String,
    },
    /// The site stylesheet.
    SiteCss,
    /// A file of the template folder (`assets/...`, `scripts/...`).
    Public {
        path: String,
    },
    /// `/config/...`: the owner's configuration area, which is not a page.
    Config,
    NotFound,
}

impl Route {
    /// The page type of an HTML route; `None` for routes that are not pages.
    pub fn page_type(&self, site: &SiteContent) -> Option<u16> {
        use page_type::*;
        Some(match self {
            // A member area's own pages, shown to its members.
            Route::Collection { index, .. }
            | Route::Item {
                collection: index, ..
            } if site.member_area_of(*index).is_some() => PROTECTED_CONTENT,
            Route::Collection { index, .. } => {
                let c = &site.collections[*index];
                match c.type_name.as_str() {
                    "page" => PAGE,
                    _ if c.number("type") == Some(10.0) || c.number("type") == Some(7.0) => PAGE,
                    _ => MAIN_CONTENT,
                }
            }
            Route::Item { .. } => CONTENT_ITEM,
            Route::LockScreen { .. } => LOCK_SCREEN,
            Route::MemberAreaDenied { .. } => MEMBER_AREA_DENIED,
            Route::Search { .. } => SEARCH,
            Route::Cart => SHOW_CART,
            Route::Checkout | Route::TokenCheckout { .. } => CHECKOUT,
            Route::OrderConfirmed { .. } => ORDER_CONFIRMED,
            Route::OrderStatus { .. } => ORDER_STATUS,
            Route::NotFound => NOT_FOUND,
            Route::Redirect { .. } | Route::SiteCss | Route::Public { .. } | Route::Config => {
                return None;
            }
        })
    }
}

/// Parses an `application/x-www-form-urlencoded` query string into pairs.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    form_urlencoded::parse(query.as_bytes())
        .take(1000)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// Maps a request to a route.
pub fn route(site: &SiteContent, path: &str, query: &str) -> Route {
    let params = query_pairs(query);
    let param = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| RequestText::new(v.as_str()))
    };
    let path = path.split('?').next().unwrap_or("/");
    if path.starts_with("/config/") || path == "/config" {
        return Route::Config;
    }
    match path {
        "/site.css" => return Route::SiteCss,
        "/search" | "/search/" => {
            return Route::Search {
                query: param("q").unwrap_or_default(),
            };
        }
        "/cart" | "/cart/" => return Route::Cart,
        "/checkout" | "/checkout/" => return Route::Checkout,
        "/checkout/subscription" | "/checkout/subscription/" => {
            return Route::TokenCheckout {
                purchase: Purchase::Subscription,
                cart_token: param("cartToken").unwrap_or_default(),
            };
        }
        "/checkout/gift-card" | "/checkout/gift-card/" => {
            return Route::TokenCheckout {
                purchase: Purchase::GiftCard,
                cart_token: param("cartToken").unwrap_or_default(),
            };
        }
        _ => {}
    }
    if let Some((page, id)) = order_page(path) {
        let order_id = id.to_string();
        return match page {
            OrderPage::Confirmation => Route::OrderConfirmed { order_id },
            OrderPage::Status => Route::OrderStatus { order_id },
        };
    }
    if path.starts_with("/assets/") || path.starts_with("/scripts/") {
        return Route::Public {
            path: path[1..].to_string(),
        };
    }
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let list_query = || ListQuery {
        category: param("category"),
        tag: param("tag"),
        author: param("author"),
        month: param("month"),
        offset: param("offset")
            .and_then(|o| o.raw().parse().ok())
            .unwrap_or(0),
        calendar: param("view").is_some_and(|v| v.raw() == "calendar"),
    };
    match segments.as_slice() {
        [] => match site.homepage {
            Some(index) => collection_route(site, index, list_query()),
            None => Route::NotFound,
        },
        [slug] => match site.collection(slug) {
            Some((index, _)) => collection_route(site, index, list_query()),
            None => Route::NotFound,
        },
        [slug, item] => match site.collection(slug) {
            Some((collection, c)) => match c.item(item) {
                Some((item, _)) => Route::Item { collection, item },
                None => Route::NotFound,
            },
            None => Route::NotFound,
        },
        _ => Route::NotFound,
    }
}

/// The two pages of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderPage {
    /// `/commerce/order-confirmed/{id}`.
    Confirmation,
    /// `/commerce/orders/{id}`.
    Status,
}

/// Whether `path` is an order's page, and the order id it names: the server loads that
/// order (checking the link's token) and passes it in [`crate::render::Request::order`].
pub fn order_page(path: &str) -> Option<(OrderPage, &str)> {
    let path = path.split('?').next().unwrap_or(path);
    let (page, rest) = if let Some(r) = path.strip_prefix("/commerce/order-confirmed/") {
        (OrderPage::Confirmation, r)
    } else if let Some(r) = path.strip_prefix("/commerce/orders/") {
        (OrderPage::Status, r)
    } else {
        return None;
    };
    let id = rest.trim_end_matches('/');
    let ok = !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric());
    ok.then_some((page, id))
}

/// The query parameter the unlock endpoint adds when the password was wrong.
pub const LOCK_ERROR_PARAM: &str = "lock-error";

/// Where a lock screen's form returns to after unlocking: the request's path (empty
/// segments dropped) and its query without `format` and [`LOCK_ERROR_PARAM`]; and whether
/// that parameter said the previous attempt had a wrong password.
pub fn return_to(path: &str, query: &str) -> (RequestText, bool) {
    let params = query_pairs(query);
    let error = params.iter().any(|(k, _)| k == LOCK_ERROR_PARAM);
    let kept: Vec<&(String, String)> = params
        .iter()
        .filter(|(k, _)| k != LOCK_ERROR_PARAM && k != "format")
        .collect();
    // The path with empty segments dropped: `//members` routes like `/members`, and must
    // not come back as a protocol-relative redirect.
    let segments: Vec<&str> = path
        .split('?')
        .next()
        .unwrap_or("/")
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    let mut redirect = format!("/{}", segments.join("/"));
    if !kept.is_empty() {
        let mut q = form_urlencoded::Serializer::new(String::new());
        for (k, v) in kept {
            q.append_pair(k, v);
        }
        redirect.push('?');
        redirect.push_str(&q.finish());
    }
    (RequestText::new(redirect), error)
}

/// `route` as a visitor holding the keys `unlocked` may see it (see
/// [`crate::site::Collection::is_locked_for`]): a collection or item behind a password they
/// have not given becomes [`Route::LockScreen`], one in a member area they do not belong to
/// [`Route::MemberAreaDenied`].
pub fn guard(
    site: &SiteContent,
    route: Route,
    path: &str,
    query: &str,
    unlocked: &[String],
) -> Route {
    let requested = match &route {
        Route::Collection { index, .. } => *index,
        Route::Item { collection, .. } => *collection,
        _ => return route,
    };
    let Some(locked) = site.lock_of(requested, unlocked) else {
        return route;
    };
    let (redirect, error) = return_to(path, query);
    let c = &site.collections[locked];
    if !c.is_password_locked_for(unlocked)
        && let Some(area) = c.member_area()
    {
        return Route::MemberAreaDenied {
            requested,
            restricted: locked,
            area: area.to_string(),
            redirect,
        };
    }
    Route::LockScreen {
        requested,
        locked,
        redirect,
        error,
    }
}

/// A collection's own URL. Whether a folder renders a page or redirects depends on the
/// template folder too, so the renderer decides that.
fn collection_route(_site: &SiteContent, index: usize, query: ListQuery) -> Route {
    Route::Collection { index, query }
}
