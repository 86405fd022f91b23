//! Rendering one request: route → page context → main-content template → layout
//! (TEMPLATE-PLATFORM.md §1.9).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock};

use template_lang::error::Pos;
use template_lang::value::{Node, View};
use template_lang::{Diagnostic, Env, Injects, Template, execute};

use crate::folder::TemplateFolder;
use crate::request_text::RequestText;
use crate::route::{ListQuery, Route, folder_behavior, guard, page_type, route};
use crate::site::{Collection, SiteContent};
use crate::tags::Tags;

/// Items per list page when the collection type sets no `pageSize`.
pub const DEFAULT_PAGE_SIZE: usize = 20;

/// The most output buffer a render reserves up front (see [`run`]).
const OUTPUT_RESERVE_MAX: usize = 256 * 1024;

/// A rendered response.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    /// The page type (SPEC.md §2) of HTML pages.
    pub page_type: Option<u16>,
    /// For redirects.
    pub location: Option<String>,
    /// Execution errors met while rendering (for the log; visitors never see them).
    pub errors: Vec<String>,
    /// Whether what was printed depends on the clock, for a server that keeps renders
    /// ([`Clock`]).
    pub clock: Clock,
    /// The request had a cart and the page printed of it only what its folder's
    /// [`CartReads`](crate::cart_reads::CartReads) says (a list, item or search page of a
    /// folder whose templates read only a few of the cart's summary values, in HTML): the
    /// page is the same for every cart with the same [`key`](crate::cart_reads::CartReads::key).
    /// False for a page without a cart, the cart, checkout and order pages and `?format=json`.
    pub cart_keyed: bool,
}

/// What a render read of the clock, besides the site's content (whose own time-dependent
/// parts, the zone's offset and scheduled items, its builder rebuilds when they change).
///
/// The clock reaches a page in two ways: an events list (or a calendar-ordered one) splits
/// its items into `upcoming` and `past` at now, and the `timesince` and `relative-time`
/// formatters print the time from now to a date. Nothing else a render reads changes with
/// time alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Clock {
    /// The page prints the same whenever it renders.
    Unread,
    /// The page prints the same until this instant (epoch milliseconds), exclusive: the
    /// first event of the list to move from upcoming to past.
    Until(f64),
    /// The page may print something else at any moment: its template folder uses a
    /// formatter of the time from now (see [`TemplateFolder::reads_clock`]).
    Read,
}

impl Page {
    fn new(status: u16, content_type: &'static str, body: String) -> Page {
        Page {
            status,
            content_type,
            body,
            page_type: None,
            location: None,
            errors: Vec::new(),
            clock: Clock::Unread,
            cart_keyed: false,
        }
    }
}

/// What was asked: path and query string (which carries the `format` parameter), and what
/// this visitor may see.
#[derive(Clone, Copy, Debug, Default)]
pub struct Request<'r> {
    pub path: &'r str,
    pub query: &'r str,
    /// The keys this visitor holds: ids of the password-protected collections they unlocked
    /// (the server verifies their unlock cookies) and, for a signed-in member,
    /// [`member_area_key`](crate::site::member_area_key)s of the areas they belong to. Any
    /// other collection with a [`lock`](crate::site::Collection::lock) or a member area, with
    /// its items and child collections, renders the lock screen or the member area's join
    /// page, and queries and search leave its items out.
    pub unlocked: &'r [String],
    /// The visitor's cart, the page context's `shoppingCart` (the SPEC "Shopping cart"
    /// entity); `None`: an empty cart. Pages with one are the visitor's own.
    pub cart: Option<&'r Node>,
    /// On an order's page ([`crate::route::order_page`]): the order, which the server loaded
    /// after checking the link's token. Missing, or another order: the page is not found.
    pub order: Option<&'r Node>,
    /// The visitor unlocked the site's password ([`SiteContent::site_lock`]; the server
    /// verifies their site unlock cookie), or is a signed-in user of the site. Without it,
    /// a locked site answers every page with its lock screen.
    pub site_unlocked: bool,
}

/// Built-in templates for system pages, ours (a tenant's template folder may override them
/// with a `pages/<name>.page` of the same name).
struct System {
    not_found: Template,
    search: Template,
    cart: Template,
    checkout: Template,
    /// Order confirmed, order received, subscription confirmed and order status: one
    /// template, told which by `orderPage`.
    order: Template,
    lock_screen: Template,
    site_lock_screen: Template,
    member_area_denied: Template,
    default_list: Template,
    default_item: Template,
    page: Template,
}

static SYSTEM: LazyLock<System> = LazyLock::new(|| {
    let compile = |src: &str| Template::parse_strict(src).expect("built-in templates compile");
    System {
        not_found: compile(include_str!("../templates/not-found.html")),
        search: compile(include_str!("../templates/search.html")),
        cart: compile(include_str!("../templates/cart.html")),
        checkout: compile(include_str!("../templates/checkout.html")),
        order: compile(include_str!("../templates/order.html")),
        lock_screen: compile(include_str!("../templates/lock-screen.html")),
        site_lock_screen: compile(
            &include_str!("../templates/site-lock-screen.html")
                .replace("/*style*/", SITE_LOCK_STYLE),
        ),
        member_area_denied: compile(include_str!("../templates/member-area-denied.html")),
        default_list: compile(include_str!("../templates/list.html")),
        default_item: compile(include_str!("../templates/item.html")),
        page: compile("{collection.mainContent}"),
    }
});

/// Where `{squarespace-headers}` ends: the server puts the browser islands' tags here, or
/// takes it out (a comment, so a page rendered without a server reads the same).
pub const ISLANDS_PLACEHOLDER: &str = "<!--tessera:islands-->";

/// The generic page shown when rendering fails; details go to the log only.
pub const ERROR_PAGE: &str = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Something went wrong</title></head><body><main><h1>Something went wrong</h1><p>Please try again in a moment.</p></main></body></html>";

fn obj(entries: Vec<(&str, Node)>) -> Node {
    Node::object(
        entries
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect(),
    )
}

/// Renders a request against a site and its compiled template folder.
pub fn render(site: &SiteContent, folder: &TemplateFolder, req: &Request<'_>) -> Page {
    let route = route(site, req.path, req.query);
    let format = crate::route::query_pairs(req.query)
        .into_iter()
        .find(|(k, _)| k == "format")
        .map(|(_, v)| v);
    // A locked site shows its lock screen in place of everything but its stylesheet:
    // before folder redirects, pages, the store, search and `?format=json`.
    if let Some(lock) = &site.site_lock
        && !req.site_unlocked
        && route != Route::SiteCss
    {
        return site_lock_screen(site, lock, req, format.as_deref());
    }
    match &route {
        Route::SiteCss => return Page::new(200, "text/css; charset=utf-8", folder.css.clone()),
        Route::Public { .. } | Route::Config => {
            // Served by the HTTP layer (bytes, caching); not pages.
            return Page::new(404, "text/plain; charset=utf-8", "Not Found".into());
        }
        Route::Collection { index, .. } => {
            if let Some(location) = folder_redirect(site, folder, *index) {
                let mut p = Page::new(302, "text/plain; charset=utf-8", String::new());
                p.location = Some(location);
                return p;
            }
        }
        _ => {}
    }
    let route = guard(site, route, req.path, req.query, req.unlocked);
    // An order's page shows the order the server loaded for it, or nothing.
    let route = match &route {
        Route::OrderConfirmed { order_id } | Route::OrderStatus { order_id }
            if req
                .order
                .and_then(|o| o.pointer(&["id"]))
                .and_then(Node::as_str)
                != Some(order_id.as_str()) =>
        {
            Route::NotFound
        }
        _ => route,
    };
    let page_type = match (&route, req.order) {
        (Route::OrderConfirmed { .. }, Some(order)) => Some(confirmation_page_type(order)),
        _ => route.page_type(site),
    };
    let status = match route {
        Route::NotFound => 404,
        _ => 200,
    };
    // Read before the context splits any events list, so the kept bound is never later than
    // the split the page shows.
    let now = now_ms();
    let clock = clock_of(site, folder, &route, now);
    // What the templates can read of the cart is their folder's on these pages; the cart,
    // checkout and order pages print the cart's entries.
    let cart_keyed = req.cart.is_some()
        && matches!(
            route,
            Route::Collection { .. } | Route::Item { .. } | Route::Search { .. }
        )
        && folder.cart_reads != crate::cart_reads::CartReads::Any;
    let context = page_context(site, folder, &route, req);
    match format.as_deref() {
        Some("json") | Some("json-pretty") => {
            let mut body = String::new();
            let indent = (format.as_deref() == Some("json-pretty")).then_some(2);
            template_lang::value::json::stringify(View::of(&context), indent, &mut body);
            let mut p = Page::new(status, "application/json; charset=utf-8", body);
            p.page_type = page_type;
            p.clock = events_clock(site, &route, now);
            return p;
        }
        _ => {}
    }
    let tags = Tags {
        site,
        current_collection: current_collection(&route),
        current_category: match &route {
            Route::Collection { query, .. } => query.category.as_ref().map(|c| c.raw().to_owned()),
            _ => None,
        },
        unlocked: req.unlocked,
        last_combo: Default::default(),
    };
    let mut errors: Vec<String> = Vec::new();
    let (main_template, main_file) = main_template(site, folder, &route, page_type);
    let mut diagnostics = Vec::new();
    let main = run(
        main_template,
        &context,
        folder,
        &tags,
        &mut diagnostics,
        &folder.main_size,
    );
    errors.extend(
        diagnostics
            .drain(..)
            .map(|d| describe(&d, folder, &|pos| (main_file.clone(), pos))),
    );
    if format.as_deref() == Some("main-content") {
        let mut p = Page::new(status, "text/html; charset=utf-8", main);
        p.page_type = page_type;
        p.errors = errors;
        p.clock = clock;
        p.cart_keyed = cart_keyed;
        return p;
    }
    let layout_key = match &route {
        Route::Collection { index, .. }
        | Route::Item {
            collection: index, ..
        }
        | Route::LockScreen {
            requested: index, ..
        }
        | Route::MemberAreaDenied {
            requested: index, ..
        } => site.collections[*index]
            .field("regionName")
            .map(str::to_string),
        _ => None,
    };
    let Some(layout) = folder.layout(layout_key.as_deref()) else {
        let mut p = Page::new(500, "text/html; charset=utf-8", ERROR_PAGE.into());
        p.page_type = Some(page_type::ERROR);
        p.errors.push("the template folder has no layout".into());
        return p;
    };
    let full = with_render_keys(context, site, folder, &route, page_type, &main, &layout.key);
    let body = run(
        &layout.template,
        &full,
        folder,
        &tags,
        &mut diagnostics,
        &folder.page_size,
    );
    let file_of = |pos| {
        layout.locate(pos).map_or_else(
            || (format!("layout '{}'", layout.key), pos),
            |(f, p)| (f.to_string(), p),
        )
    };
    errors.extend(diagnostics.iter().map(|d| describe(d, folder, &file_of)));
    Page {
        status,
        content_type: "text/html; charset=utf-8",
        body,
        page_type,
        location: None,
        errors,
        clock,
        cart_keyed,
    }
}

/// What the page for `route` reads of the clock ([`Clock`]) when its templates run: the
/// folder's time formatters, else an events list's next split.
fn clock_of(site: &SiteContent, folder: &TemplateFolder, route: &Route, now: f64) -> Clock {
    if folder.reads_clock {
        return Clock::Read;
    }
    events_clock(site, route, now)
}

/// An events (or calendar-ordered) list's [`Clock`]: until the first of its items still
/// upcoming at `now` ends ([`split_events`]).
fn events_clock(site: &SiteContent, route: &Route, now: f64) -> Clock {
    let Route::Collection { index, .. } = route else {
        return Clock::Unread;
    };
    let c = &site.collections[*index];
    if !(c.type_name == "events" || c.field("ordering") == Some("calendar")) {
        return Clock::Unread;
    }
    let next = c
        .items
        .iter()
        .map(event_end)
        .filter(|end| *end >= now)
        .min_by(f64::total_cmp);
    match next {
        // Upcoming while `end >= now`: past from the next millisecond on.
        Some(end) => Clock::Until(end + 1.0),
        None => Clock::Unread,
    }
}

/// When an event stops being upcoming: its `endDate`, else its `startDate` (NaN without
/// either: never upcoming).
fn event_end(item: &Node) -> f64 {
    let time = |k: &str| match item.pointer(&[k]) {
        Some(Node::Number(t)) => *t,
        _ => f64::NAN,
    };
    let end = time("endDate");
    if end.is_nan() { time("startDate") } else { end }
}

fn run(
    template: &Template,
    data: &Node,
    folder: &TemplateFolder,
    tags: &Tags<'_>,
    errors: &mut Vec<Diagnostic>,
    largest: &AtomicUsize,
) -> String {
    static NO_INJECTS: LazyLock<Injects> = LazyLock::new(Injects::default);
    let env = Env {
        partials: &folder.blocks,
        injects: &NO_INJECTS,
        host: Some(tags),
        // The site's items live as long as its content version: what a list's partial
        // printed over each is kept with it.
        keep_applied: true,
        ..Env::default()
    };
    // Sized like the largest output so far (capped, so one huge page does not make every
    // later render reserve as much).
    let mut out = String::with_capacity(largest.load(Ordering::Relaxed));
    errors.extend(execute(template, data, &env, &mut out));
    largest.fetch_max(out.len().min(OUTPUT_RESERVE_MAX), Ordering::Relaxed);
    out
}

fn current_collection(route: &Route) -> Option<usize> {
    match route {
        Route::Collection { index, .. } => Some(*index),
        Route::Item { collection, .. } => Some(*collection),
        Route::LockScreen { requested, .. } | Route::MemberAreaDenied { requested, .. } => {
            Some(*requested)
        }
        _ => None,
    }
}

/// A folder without its own template redirects to its first child (behaviour "redirect",
/// the default); behaviour "none" has no page, so its URL is not found.
fn folder_redirect(site: &SiteContent, folder: &TemplateFolder, index: usize) -> Option<String> {
    let c = &site.collections[index];
    if !c.is_folder() {
        return None;
    }
    let has_template = folder
        .collections
        .get(&c.type_name)
        .is_some_and(|t| t.list.is_some());
    let behavior = c
        .number("folderBehavior")
        .map_or(folder_behavior::REDIRECT, |b| b as i64);
    if has_template || behavior == folder_behavior::INDEX {
        return None;
    }
    let first = c.children.first()?;
    let child = &site.collections[*first];
    Some(child.full_url())
}

/// The name of an order page (`pages/<name>.page` overrides the built-in one; the context
/// carries it as `orderPage`).
fn order_page_name(route: &Route, page_type: Option<u16>) -> &'static str {
    match (route, page_type) {
        (Route::OrderStatus { .. }, _) => "order-status",
        (_, Some(page_type::SUBSCRIPTION_CONFIRMED)) => "subscription-confirmed",
        (_, Some(page_type::ORDER_RECEIVED)) => "order-received",
        _ => "order-confirmed",
    }
}

/// Which page an order lands on after checkout: subscription confirmed for a subscription,
/// order received while it waits for payment (or expired unpaid), else order confirmed.
fn confirmation_page_type(order: &Node) -> u16 {
    let field = |k: &str| order.pointer(&[k]).and_then(Node::as_str);
    if field("kind") == Some("subscription") {
        page_type::SUBSCRIPTION_CONFIRMED
    } else if matches!(field("status"), Some("awaiting-payment" | "expired")) {
        page_type::ORDER_RECEIVED
    } else {
        page_type::ORDER_CONFIRMED
    }
}

/// The template whose output is the page's main content, with the file it comes from (for
/// error messages).
fn main_template<'f>(
    site: &SiteContent,
    folder: &'f TemplateFolder,
    route: &Route,
    page_type: Option<u16>,
) -> (&'f Template, String) {
    let system = &*SYSTEM;
    let page = |name: &str| {
        folder
            .pages
            .get(name)
            .map(|p| (&p.template, format!("pages/{name}.page")))
    };
    let builtin = |t: &'static Template, name: &str| (t, format!("built-in {name} page"));
    match route {
        Route::Collection { index, .. } => {
            let c = &site.collections[*index];
            let t = &c.type_name;
            if let Some(p) = page(t).filter(|_| c.number("type") == Some(7.0)) {
                return p;
            }
            let types = folder.collections.get(t);
            match types.and_then(|t| t.list.as_ref()) {
                Some(list) => (list, format!("collections/{t}.list")),
                None if t == "page" || c.number("type") == Some(10.0) => {
                    builtin(&system.page, "page")
                }
                None => match types.and_then(|t| t.item.as_ref()) {
                    // A type with an item template but no list shows its first item.
                    Some(item) if !c.items.is_empty() => (item, format!("collections/{t}.item")),
                    _ => builtin(&system.default_list, "list"),
                },
            }
        }
        Route::Item { collection, .. } => {
            let t = &site.collections[*collection].type_name;
            match folder.collections.get(t).and_then(|c| c.item.as_ref()) {
                Some(item) => (item, format!("collections/{t}.item")),
                None => builtin(&system.default_item, "item"),
            }
        }
        Route::Search { .. } => page("search").unwrap_or_else(|| builtin(&system.search, "search")),
        Route::Cart => page("cart").unwrap_or_else(|| builtin(&system.cart, "cart")),
        Route::Checkout | Route::TokenCheckout { .. } => {
            page("checkout").unwrap_or_else(|| builtin(&system.checkout, "checkout"))
        }
        Route::OrderConfirmed { .. } | Route::OrderStatus { .. } => {
            let name = order_page_name(route, page_type);
            page(name).unwrap_or_else(|| builtin(&system.order, name))
        }
        Route::LockScreen { .. } => {
            page("lock-screen").unwrap_or_else(|| builtin(&system.lock_screen, "lock-screen"))
        }
        Route::MemberAreaDenied { .. } => page("member-area-denied")
            .unwrap_or_else(|| builtin(&system.member_area_denied, "member-area-denied")),
        _ => page("not-found").unwrap_or_else(|| builtin(&system.not_found, "not-found")),
    }
}

/// An execution error as `file:line:col: message`: the file is the block for errors inside
/// a block partial, else the template's own file (`file_of` maps a position of the
/// executed source to its file and position, for layouts assembled from regions).
fn describe(
    d: &Diagnostic,
    folder: &TemplateFolder,
    file_of: &dyn Fn(Pos) -> (String, Pos),
) -> String {
    let pos = d.pos.unwrap_or_default();
    let (file, pos) = match &d.partial {
        Some(p) if folder.blocks.get(p).is_some() => (format!("blocks/{p}"), pos),
        Some(p) => (format!("built-in partial '{p}'"), pos),
        None => file_of(pos),
    };
    format!("{file}:{}:{}: {}", pos.line, pos.col, d.message)
}

/// The join page's `memberArea`: the area as `websiteSettings.memberAreas` declares it
/// (`id`, `title`, `description`, `joinButtonText`; an area the settings do not declare
/// shows the collection's title and "Join"), `redirect`, where joining leads back to, and
/// for a paid area `plan`, what its join button sells ([`member_area_plan`]).
fn member_area_context(
    site: &SiteContent,
    c: &Collection,
    area: &str,
    redirect: &RequestText,
) -> Node {
    let declared = site.member_area(area);
    let text = |key: &str| {
        declared
            .and_then(|a| a.pointer(&[key]))
            .and_then(Node::as_str)
            .filter(|t| !t.trim().is_empty())
    };
    obj(vec![
        ("id", Node::from(area)),
        (
            "title",
            Node::from(text("title").or(c.field("title")).unwrap_or(area)),
        ),
        ("description", Node::from(text("description").unwrap_or(""))),
        (
            "joinButtonText",
            Node::from(text("joinButtonText").unwrap_or(DEFAULT_JOIN_TEXT)),
        ),
        ("redirect", redirect.to_node()),
        (
            "plan",
            member_area_plan(site, declared).unwrap_or(Node::Null),
        ),
    ])
}

/// A paid area's `plan` on its join page: the product its join button sells (`itemId`),
/// `kind` (`one-time`, or `subscription` bought through subscription checkout), `price` (the
/// variant's money object, its sale price when on sale, for the `money` formatter) and, for
/// a subscription, `period` ("month", "2 weeks"). `None` for a free area, or one whose
/// product is gone or has no price.
fn member_area_plan(site: &SiteContent, declared: Option<&Node>) -> Option<Node> {
    let id = declared?
        .pointer(&["planProductId"])
        .and_then(Node::as_str)
        .filter(|p| !p.trim().is_empty())?;
    let (_, item) = site.item_by_id(id)?;
    let structured = item.pointer(&["structuredContent"])?;
    let variant = structured
        .pointer(&["variants"])
        .and_then(Node::as_array)?
        .first()?;
    let on_sale = matches!(variant.pointer(&["onSale"]), Some(Node::Bool(true)));
    let price = if on_sale {
        variant.pointer(&["salePriceMoney"])
    } else {
        None
    }
    .or_else(|| variant.pointer(&["priceMoney"]))?
    .clone();
    let subscription = matches!(
        structured.pointer(&["isSubscribable"]),
        Some(Node::Bool(true))
    );
    let mut entries = vec![
        ("itemId", Node::from(id)),
        (
            "kind",
            Node::from(if subscription {
                "subscription"
            } else {
                "one-time"
            }),
        ),
        ("price", price),
    ];
    if subscription {
        let plan = structured.pointer(&["subscriptionPlan", "billingPeriod"]);
        let value = match plan.and_then(|p| p.pointer(&["value"])) {
            Some(Node::Number(n)) if *n >= 1.0 => *n as i64,
            _ => 1,
        };
        let unit = plan
            .and_then(|p| p.pointer(&["unit"]))
            .and_then(Node::as_str)
            .unwrap_or("MONTH")
            .to_ascii_lowercase();
        let period = if value == 1 {
            unit
        } else {
            format!("{value} {unit}s")
        };
        entries.push(("period", Node::from(period.as_str())));
    }
    Some(obj(entries))
}

/// The join button's label when the area does not name one.
pub const DEFAULT_JOIN_TEXT: &str = "Join";

/// The site lock screen's own stylesheet, inline: the server's Content-Security-Policy
/// allows it by its hash.
pub const SITE_LOCK_STYLE: &str = "body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#f6f6f4}main{max-width:26rem;padding:2rem;text-align:center}h1{font-size:1.75rem;margin:0 0 .5rem}form{display:flex;flex-direction:column;gap:.5rem;margin-top:1.5rem;text-align:left}input[type=password]{font:inherit;padding:.6rem .75rem;border:1px solid #767676;border-radius:4px}button{font:inherit;padding:.6rem .75rem;border:0;border-radius:4px;background:#1a1a1a;color:#fff;cursor:pointer}.lock-screen-error{color:#b00020;margin:0}";

/// What a locked site's lock screen says when the owner wrote nothing.
pub const SITE_LOCK_MESSAGE: &str =
    "This site is password protected. Enter the password to view it.";

/// The context of a locked site's lock screen: its `lockScreen` only (`site: true`, the
/// heading, the message, where to return, the error after a wrong password, the site's
/// language), nothing else of the site: no `website`, no collection, no navigation.
pub fn site_lock_context(
    site: &SiteContent,
    lock: &crate::site::SiteLock,
    req: &Request<'_>,
) -> Node {
    let (redirect, error) = crate::route::return_to(req.path, req.query);
    let website = |k: &str| {
        site.website
            .pointer(&[k])
            .and_then(Node::as_str)
            .unwrap_or_default()
    };
    let title = if lock.title.is_empty() {
        website("siteTitle")
    } else {
        &lock.title
    };
    let message = if lock.message.is_empty() {
        SITE_LOCK_MESSAGE
    } else {
        &lock.message
    };
    let mut entries = vec![
        ("site", Node::Bool(true)),
        ("title", Node::from(title)),
        ("message", Node::from(message)),
        ("redirect", redirect.to_node()),
        ("language", Node::from(site.locale.as_str())),
    ];
    if error {
        entries.push(("error", Node::from(LOCK_SCREEN_ERROR)));
    }
    obj(vec![("lockScreen", obj(entries))])
}

/// A locked site's lock screen (page type 103): a page of its own, not dressed in the
/// template's layout (which would show the navigation), or its context as JSON.
fn site_lock_screen(
    site: &SiteContent,
    lock: &crate::site::SiteLock,
    req: &Request<'_>,
    format: Option<&str>,
) -> Page {
    let context = site_lock_context(site, lock, req);
    let mut page = match format {
        Some("json") | Some("json-pretty") => {
            let mut body = String::new();
            let indent = (format == Some("json-pretty")).then_some(2);
            template_lang::value::json::stringify(View::of(&context), indent, &mut body);
            Page::new(200, "application/json; charset=utf-8", body)
        }
        _ => {
            let mut body = String::new();
            let errors = execute(
                &SYSTEM.site_lock_screen,
                &context,
                &Env::default(),
                &mut body,
            );
            let mut p = Page::new(200, "text/html; charset=utf-8", body);
            p.errors = errors
                .iter()
                .map(|d| format!("site lock screen: {d:?}"))
                .collect();
            p
        }
    };
    page.page_type = Some(page_type::LOCK_SCREEN);
    page
}

/// The message a lock screen shows after a wrong password.
pub const LOCK_SCREEN_ERROR: &str = "Incorrect password. Please try again.";

/// The page context (TEMPLATE-PLATFORM.md §3), without the render-only keys, for a visitor
/// who unlocked the password-protected collections `unlocked`.
///
/// A lock screen's context holds only the site-wide keys, the locked collection's id, urlId,
/// URL and titles, and `lockScreen`: no items, no `mainContent`, nothing of the protected
/// collection's content.
pub fn page_context(
    site: &SiteContent,
    folder: &TemplateFolder,
    route: &Route,
    req: &Request<'_>,
) -> Node {
    let unlocked = req.unlocked;
    let mut entries: Vec<(&str, Node)> = vec![
        ("website", site.website.clone()),
        ("websiteSettings", site.website_settings.clone()),
        ("template", TEMPLATE.clone()),
        ("featureFlags", FEATURE_FLAGS.clone()),
        ("localizedStrings", localized_strings(site, folder)),
        (
            "showCart",
            Node::Bool(site.collections.iter().any(|c| c.type_name == "products")),
        ),
        (
            "shoppingCart",
            req.cart.cloned().unwrap_or_else(|| EMPTY_CART.clone()),
        ),
        ("calendarView", Node::Bool(false)),
    ];
    if !matches!(site.merchandising, Node::Null) {
        entries.push(("productMerchandisingContext", site.merchandising.clone()));
    }
    // The owner's header and footer settings (`PUT /api/site-header-footer`).
    for (key, node) in [("header", &site.header), ("footer", &site.footer)] {
        if !matches!(node, Node::Null) {
            entries.push((key, node.clone()));
        }
    }
    match route {
        Route::Collection { index, query } => {
            let c = &site.collections[*index];
            let mut collection = c.node.clone();
            if !c.children.is_empty() {
                collection = with_children(&collection, site, &c.children, unlocked);
            }
            entries.push(("collection", collection));
            let page_size = folder
                .collections
                .get(&c.type_name)
                .and_then(|t| t.conf.get("pageSize"))
                .and_then(serde_json::Value::as_u64)
                .map_or(DEFAULT_PAGE_SIZE, |n| n.max(1) as usize);
            let filtered: Vec<&Node> = c
                .items
                .iter()
                .filter(|i| matches_filters(i, query))
                .collect();
            let shown: Vec<Node> = filtered
                .iter()
                .skip(query.offset)
                .take(page_size)
                .map(|n| (*n).clone())
                .collect();
            let next = query.offset + page_size < filtered.len();
            let prev = query.offset > 0;
            entries.push(("empty", Node::Bool(c.items.is_empty())));
            entries.push((
                "emptyFolder",
                Node::Bool(c.is_folder() && c.children.is_empty()),
            ));
            if next || prev {
                let base = c.full_url();
                let mut p = vec![
                    ("nextPage", Node::Bool(next)),
                    ("prevPage", Node::Bool(prev)),
                ];
                if next {
                    p.push((
                        "nextPageUrl",
                        Node::from(page_url(&base, query, query.offset + page_size)),
                    ));
                }
                if prev {
                    p.push((
                        "prevPageUrl",
                        Node::from(page_url(
                            &base,
                            query,
                            query.offset.saturating_sub(page_size),
                        )),
                    ));
                }
                entries.push(("pagination", obj(p)));
            }
            entries.push(("items", Node::array(shown)));
            if c.type_name == "events" || c.field("ordering") == Some("calendar") {
                let (upcoming, past) = split_events(&c.items, now_ms());
                entries.push(("upcoming", Node::array(upcoming)));
                entries.push(("past", Node::array(past)));
            }
            for (key, value) in [
                ("categoryFilter", &query.category),
                ("tagFilter", &query.tag),
                ("monthFilter", &query.month),
                ("authorFilter", &query.author),
            ] {
                if let Some(v) = value {
                    entries.push((key, v.to_node()));
                }
            }
            if query.calendar
                && let Some(e) = entries.iter_mut().find(|e| e.0 == "calendarView")
            {
                e.1 = Node::Bool(true);
            }
        }
        Route::Item { collection, item } => {
            let c = &site.collections[*collection];
            entries.push(("collection", c.node.clone()));
            entries.push(("item", c.items[*item].clone()));
            let neighbour = |i: Option<usize>| i.and_then(|i| c.items.get(i)).cloned();
            let mut p = Vec::new();
            if let Some(prev) = neighbour(item.checked_sub(1)) {
                p.push(("prevItem", prev));
            }
            if let Some(next) = neighbour(Some(item + 1)) {
                p.push(("nextItem", next));
            }
            entries.push(("pagination", obj(p)));
        }
        Route::Search { query } => {
            entries.push(("searchQuery", query.to_node()));
            entries.push((
                "searchResults",
                Node::array(search(site, query.raw(), unlocked)),
            ));
        }
        Route::MemberAreaDenied {
            restricted,
            area,
            redirect,
            ..
        } => {
            // Like the lock screen: who the area is, how to join, none of its content.
            let c = &site.collections[*restricted];
            entries.push(("collection", c.public_node()));
            entries.push(("memberArea", member_area_context(site, c, area, redirect)));
        }
        Route::LockScreen {
            locked,
            redirect,
            error,
            ..
        } => {
            // Who is asking for the password, and nothing more: not even the type, so
            // layouts do not dress the lock screen as the protected page.
            let c = &site.collections[*locked];
            let field = |k: &str| c.node.pointer(&[k]).cloned().unwrap_or(Node::Null);
            entries.push((
                "collection",
                obj(vec![
                    ("id", Node::from(c.id())),
                    ("urlId", Node::from(c.url_id.as_str())),
                    ("fullUrl", field("fullUrl")),
                    ("title", field("title")),
                    ("navigationTitle", field("navigationTitle")),
                    ("passwordProtected", Node::Bool(true)),
                ]),
            ));
            let mut lock = vec![
                ("collectionId", Node::from(c.id())),
                ("redirect", redirect.to_node()),
            ];
            if *error {
                lock.push(("error", Node::from(LOCK_SCREEN_ERROR)));
            }
            entries.push(("lockScreen", obj(lock)));
        }
        Route::OrderConfirmed { order_id } | Route::OrderStatus { order_id } => {
            entries.push(("orderId", Node::from(order_id.as_str())));
            if let Some(order) = req.order {
                entries.push(("order", order.clone()));
                let page = match route {
                    Route::OrderConfirmed { .. } => Some(confirmation_page_type(order)),
                    _ => None,
                };
                entries.push(("orderPage", Node::from(order_page_name(route, page))));
            }
        }
        Route::TokenCheckout {
            purchase,
            cart_token,
        } => {
            entries.push(("cartToken", cart_token.to_node()));
            entries.push(("checkoutKind", Node::from(purchase.as_str())));
        }
        _ => {}
    }
    obj(entries)
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

/// Events split at `now`: upcoming soonest first (by `startDate`), past most recent first
/// (an event counts as upcoming until it ends).
fn split_events(items: &[Node], now: f64) -> (Vec<Node>, Vec<Node>) {
    let time = |n: &Node, k: &str| match n.pointer(&[k]) {
        Some(Node::Number(t)) => *t,
        _ => f64::NAN,
    };
    let (mut upcoming, mut past): (Vec<Node>, Vec<Node>) = items.iter().cloned().partition(|i| {
        let end = time(i, "endDate");
        let end = if end.is_nan() {
            time(i, "startDate")
        } else {
            end
        };
        end >= now
    });
    upcoming.sort_by(|a, b| time(a, "startDate").total_cmp(&time(b, "startDate")));
    past.sort_by(|a, b| time(b, "startDate").total_cmp(&time(a, "startDate")));
    (upcoming, past)
}

/// A folder or index object with `collections`: its children's objects (the public fields
/// only of children still locked).
fn with_children(
    collection: &Node,
    site: &SiteContent,
    children: &[usize],
    unlocked: &[String],
) -> Node {
    let Some(o) = collection.as_object() else {
        return collection.clone();
    };
    let mut entries: Vec<(Arc<str>, Node)> =
        o.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let kids: Vec<Node> = children
        .iter()
        .map(|&i| site.visible_node(i, unlocked))
        .collect();
    entries.push((Arc::from("collections"), Node::array(kids)));
    Node::object(entries)
}

fn page_url(base: &str, query: &ListQuery, offset: usize) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in [
        ("category", &query.category),
        ("tag", &query.tag),
        ("author", &query.author),
        ("month", &query.month),
    ] {
        if let Some(v) = v {
            q.append_pair(k, v.raw());
        }
    }
    if offset > 0 {
        q.append_pair("offset", &offset.to_string());
    }
    let q = q.finish();
    if q.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{q}")
    }
}

fn matches_filters(item: &Node, q: &ListQuery) -> bool {
    let has = |field: &str, want: &Option<RequestText>| match want {
        None => true,
        Some(w) => item
            .pointer(&[field])
            .and_then(Node::as_array)
            .is_some_and(|vals| vals.iter().filter_map(Node::as_str).any(|v| v == w.raw())),
    };
    let author_ok = q
        .author
        .as_ref()
        .is_none_or(|a| item.pointer(&["author", "id"]).and_then(Node::as_str) == Some(a.raw()));
    has("categories", &q.category) && has("tags", &q.tag) && author_ok
}

/// Items whose title, excerpt or body contain every word of the query (case-insensitive),
/// from collections the visitor may see (none behind a lock they have not opened).
fn search(site: &SiteContent, query: &str, unlocked: &[String]) -> Vec<Node> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    if words.is_empty() {
        return Vec::new();
    }
    let text = |n: &Node, k: &str| {
        n.pointer(&[k])
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_lowercase()
    };
    site.collections
        .iter()
        .enumerate()
        .filter(|(i, _)| site.lock_of(*i, unlocked).is_none())
        .flat_map(|(_, c)| c.items.iter())
        .filter(|item| {
            let hay = format!(
                "{} {} {}",
                text(item, "title"),
                text(item, "excerpt"),
                text(item, "body")
            );
            words.iter().all(|w| hay.contains(w))
        })
        .take(50)
        .cloned()
        .collect()
}

/// The page context's `template`, the same for every page (shared, not rebuilt).
static TEMPLATE: LazyLock<Node> =
    LazyLock::new(|| obj(vec![("mobileStylesEnabled", Node::Bool(true))]));

/// The page context's `featureFlags`, the same for every page: `useCLDRMoneyFormat`, so
/// that every price a page prints (`product-price`, `subscription-price`, …) is written as
/// the site's locale writes money in its currency ("from €14.00", "14,00 €"), never the
/// legacy bare amount that needed the platform's script to add the currency.
static FEATURE_FLAGS: LazyLock<Node> =
    LazyLock::new(|| obj(vec![("useCLDRMoneyFormat", Node::Bool(true))]));

/// The page context's `shoppingCart` of a visitor without a cart: the same empty cart on
/// every page (shared, not rebuilt).
static EMPTY_CART: LazyLock<Node> = LazyLock::new(|| {
    obj(vec![
        ("entries", Node::array(Vec::new())),
        ("totalQuantity", Node::Number(0.0)),
        ("subtotalCents", Node::Number(0.0)),
        ("grandTotalCents", Node::Number(0.0)),
        ("purelyDigital", Node::Bool(false)),
        ("hasDigital", Node::Bool(false)),
        ("requiresShipping", Node::Bool(false)),
    ])
});

fn localized_strings(site: &SiteContent, folder: &TemplateFolder) -> Node {
    folder
        .strings
        .get(&site.locale)
        .or_else(|| folder.strings.get("en-US"))
        .cloned()
        .unwrap_or_else(|| Node::object(Vec::new()))
}

/// Adds the render-only keys: `squarespace`, `squarespace-headers`, `squarespace-footers`.
/// The context is taken, so that its entries move into the layout's context rather than
/// being copied (and their keys hashed again) on every page.
fn with_render_keys(
    context: Node,
    site: &SiteContent,
    folder: &TemplateFolder,
    route: &Route,
    page_type: Option<u16>,
    main: &str,
    layout: &str,
) -> Node {
    let title = page_title(site, route, page_type, &context);
    let (page_id, classes) = match route {
        Route::Collection { index, .. } => {
            let c = &site.collections[*index];
            let id = c.field("id").unwrap_or(&c.url_id).to_string();
            let mut classes = format!(
                "collection-{id} collection-type-{} collection-layout-{layout} view-list",
                c.type_name
            );
            if site.homepage == Some(*index) {
                classes.push_str(" homepage");
            }
            (format!("collection-{id}"), classes)
        }
        Route::LockScreen { locked, .. } => {
            let c = &site.collections[*locked];
            (
                "lock-screen".to_string(),
                format!(
                    "collection-{} collection-layout-{layout} system-page lock-screen",
                    c.id()
                ),
            )
        }
        Route::MemberAreaDenied { restricted, .. } => {
            let c = &site.collections[*restricted];
            (
                "member-area-denied".to_string(),
                format!(
                    "collection-{} collection-layout-{layout} system-page member-area-denied",
                    c.id()
                ),
            )
        }
        Route::Item { collection, item } => {
            let c = &site.collections[*collection];
            let id = c.field("id").unwrap_or(&c.url_id).to_string();
            let item_id = c.items[*item]
                .pointer(&["id"])
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string();
            (
                format!("item-{item_id}"),
                format!(
                    "collection-{id} collection-type-{} collection-layout-{layout} view-item",
                    c.type_name
                ),
            )
        }
        _ => (
            "system-page".to_string(),
            format!("collection-layout-{layout} system-page"),
        ),
    };
    // The site's tweak values (`websiteSettings.tweaks`): dropdowns are strings, checkboxes
    // booleans.
    let tweak_value = |title: &str| match site.website_settings.pointer(&["tweaks", title]) {
        Some(Node::Bool(b)) => Some(serde_json::Value::Bool(*b)),
        Some(n) => n.as_str().map(|s| serde_json::Value::String(s.to_owned())),
        None => None,
    };
    let mut classes = classes;
    for c in folder.tweak_classes(&tweak_value) {
        classes.push(' ');
        classes.push_str(&c);
    }
    let mut headers = String::from("<meta charset=\"utf-8\">\n<title>");
    html_escape::encode_text_to_string(&title, &mut headers);
    headers.push_str("</title>\n");
    if let Some(description) = seo_field(site, route, "seoDescription") {
        headers.push_str("<meta name=\"description\" content=\"");
        html_escape::encode_double_quoted_attribute_to_string(description, &mut headers);
        headers.push_str("\">\n");
    }
    headers.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<link rel=\"icon\" href=\"");
    // The site's own icon (`website.faviconUrl`, set in the owner app), else the template's.
    match site
        .website
        .pointer(&["faviconUrl"])
        .and_then(|n| n.as_str())
    {
        Some(url) if url.starts_with('/') && !url.starts_with("//") => {
            html_escape::encode_double_quoted_attribute_to_string(url, &mut headers);
        }
        _ => headers.push_str(&folder.icon),
    }
    headers.push_str("\">\n<link rel=\"stylesheet\" href=\"/site.css\">\n");
    headers.push_str(ISLANDS_PLACEHOLDER);
    let squarespace = obj(vec![
        ("main-content", Node::from(main)),
        ("page-id", Node::from(page_id)),
        ("page-classes", Node::from(classes)),
        ("page-title", Node::from(title)),
        ("template-revision", Node::Number(1.0)),
        ("cart-classes", Node::from("sqs-custom-cart")),
    ]);
    let Node::Object(o) = context else {
        return context;
    };
    let extra = vec![
        (Arc::from("squarespace"), squarespace),
        (Arc::from("squarespace-headers"), Node::from(headers)),
        (Arc::from("squarespace-footers"), Node::from("")),
    ];
    // Nothing else holds the context once the main template has run; should something
    // still share it, its entries are copied.
    let o = Arc::try_unwrap(o).unwrap_or_else(|shared| {
        template_lang::value::Object::from_entries(
            shared.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        )
    });
    Node::Object(Arc::new(o.extended(extra)))
}

/// The owner's SEO `key` (`seoTitle`, `seoDescription`) of the collection a collection
/// route shows (`collection.seoData`), when set.
fn seo_field<'a>(site: &'a SiteContent, route: &Route, key: &str) -> Option<&'a str> {
    let Route::Collection { index, .. } = route else {
        return None;
    };
    site.collections[*index]
        .node
        .pointer(&["seoData", key])
        .and_then(Node::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// `{squarespace.page-title}` from the `websiteSettings` title formats (`%s` site title,
/// `%c` collection title, `%i` item title).
fn page_title(site: &SiteContent, route: &Route, page_type: Option<u16>, context: &Node) -> String {
    let setting = |k: &str| {
        site.website_settings
            .pointer(&[k])
            .and_then(Node::as_str)
            .map(str::to_string)
    };
    let site_title = site
        .website
        .pointer(&["siteTitle"])
        .and_then(Node::as_str)
        .unwrap_or_default();
    // The owner's SEO title stands for the page's title (the homepage's, for the whole).
    let seo_title = seo_field(site, route, "seoTitle");
    if let (Some(seo), Route::Collection { index, .. }) = (seo_title, route)
        && site.homepage == Some(*index)
    {
        return seo.to_owned();
    }
    let collection_title = seo_title.unwrap_or_else(|| {
        context
            .pointer(&["collection", "title"])
            .and_then(Node::as_str)
            .unwrap_or_default()
    });
    let item_title = context
        .pointer(&["item", "title"])
        .and_then(Node::as_str)
        .unwrap_or_default();
    let format = match route {
        Route::Item { .. } => setting("itemTitleFormat").unwrap_or_else(|| "%i — %s".into()),
        Route::Collection { index, .. } if site.homepage == Some(*index) => {
            setting("homepageTitleFormat").unwrap_or_else(|| "%s".into())
        }
        Route::Collection { .. } | Route::LockScreen { .. } | Route::MemberAreaDenied { .. } => {
            setting("collectionTitleFormat").unwrap_or_else(|| "%c — %s".into())
        }
        Route::Search { .. } => "Search — %s".into(),
        Route::Cart => "Cart — %s".into(),
        Route::Checkout | Route::TokenCheckout { .. } => "Checkout — %s".into(),
        Route::OrderConfirmed { .. } => match page_type {
            Some(page_type::SUBSCRIPTION_CONFIRMED) => "Subscription confirmed — %s".into(),
            Some(page_type::ORDER_RECEIVED) => "Order received — %s".into(),
            _ => "Order confirmed — %s".into(),
        },
        Route::OrderStatus { .. } => "Order status — %s".into(),
        _ => "Page not found — %s".into(),
    };
    format
        .replace("%s", site_title)
        .replace("%c", collection_title)
        .replace("%i", item_title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_into_upcoming_and_past() {
        let ev = |id: &str, start: f64, end: f64| {
            obj(vec![
                ("id", Node::from(id)),
                ("startDate", Node::Number(start)),
                ("endDate", Node::Number(end)),
            ])
        };
        let items = [
            ev("a", 10.0, 20.0),
            ev("b", 30.0, 40.0),
            ev("c", 1.0, 2.0),
            ev("d", 15.0, 16.0),
            ev("e", 50.0, 60.0),
        ];
        let (up, past) = split_events(&items, 18.0);
        let ids = |v: &[Node]| {
            v.iter()
                .map(|n| {
                    n.pointer(&["id"])
                        .and_then(Node::as_str)
                        .unwrap()
                        .to_string()
                })
                .collect::<Vec<_>>()
        };
        // "a" is under way at 18 (it ends at 20): still upcoming.
        assert_eq!(ids(&up), ["a", "b", "e"]);
        assert_eq!(ids(&past), ["d", "c"]);
    }
}
