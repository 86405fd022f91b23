//! Kept renders of public pages: the renderer's output for a page that is the same for
//! every visitor, kept so the next request for it skips the render. Only the render is
//! kept; everything a request adds of its own (the crumb in the cart forms, the islands'
//! data, the notices, the visitor's cookies) is still done per request, so the bytes a
//! visitor gets are those a fresh render and the same passes give. The cart forms and the
//! islands' data, the same for every anonymous visitor but for the crumb, are worked out
//! once per kept page with a stand-in crumb and kept as the parts between the crumbs
//! ([`Kept::finished`]): a request then sends the parts with its crumb between them, as
//! the chunks of one body ([`ChunksBody`]).
//!
//! # What a render reads
//!
//! `renderer::render::render(site, folder, request)` reads:
//!
//! * the site's content as the renderer sees it (`SiteBundle::render`, one `Arc` per
//!   content version and bundle build) and the compiled template folder (one `Arc` per
//!   distinct set of template files): a kept render holds weak references to both and is
//!   answered only while they are the very ones the request resolved, so an owner's edit
//!   (a new content version), a template switch or upload (a new folder), a rebuilt bundle
//!   (a scheduled item that comes due, the zone's offset changing: `SiteBundle::stale_after`)
//!   or either evicted and loaded again all miss, and the next render replaces the entry;
//! * the request's path and query (the key);
//! * the visitor's state: the keys they unlocked (password-protected collections and, for
//!   a signed-in member, their member areas), their cart, an order (on its page) and
//!   whether they may see a locked site. A request with any of these but the cart, or a
//!   signed-in member's session cookie, or a signed-in user of the site (the owner's banner
//!   and editor frame), or on a site with a site password, neither reads nor writes the
//!   kept renders (see [`Visitor::is_anonymous`]); nor are lock screens, member areas' join
//!   pages, errors and not-found pages kept (see [`keepable`]);
//! * of the cart (the page context's `shoppingCart`), what the compiled folder's templates
//!   can read of it, decided once per folder from its files
//!   ([`renderer::cart_reads::CartReads`]): when that is only its total quantity
//!   (`{shoppingCart|cart-quantity}`) and a few plain members inside `{.section
//!   shoppingCart}` (the demo store prints its subtotal), a list, item or search page
//!   rendered with a cart prints the same bytes for every cart with the same of those
//!   ([`renderer::cart_reads::CartReads::key`]), and the render reports that it read no
//!   more (`Page::cart_keyed`: not the cart, checkout or order pages, not `?format=json`).
//!   Such a page is kept under its path, query and that key, in the site's budget for
//!   variants. It holds nothing of any visitor's own (no entries, ids or names: a total
//!   quantity and a subtotal), so it is not a page private to a visitor, and it is answered
//!   to every visitor whose cart has the same key. The cart is still read per request
//!   (through the page-cart cache keyed by the revision its cookie names, so a cart changed
//!   by any request on any node shows on the next page), and so is the islands' part of it
//!   ([`Shape::cart`]). A folder whose templates could print more of a cart
//!   ([`renderer::cart_reads::CartReads::Any`]) has its pages with a cart rendered fresh;
//! * the clock, in two places only ([`renderer::render::Clock`]): an events list splits its
//!   items into upcoming and past at now (kept until the first upcoming event ends), and the
//!   `timesince` and `relative-time` formatters print the time from now (a folder that
//!   names them has none of its pages kept). Scheduled items and the zone's offset are the
//!   bundle's (above);
//! * nothing else: no request header, no locale of the request's, no randomness (the
//!   output buffer's starting size, which the render also reads, does not change bytes).
//!
//! `tessera dev` keeps nothing: its saves change the folder under the same files.
//!
//! # Bounds
//!
//! Entries are weighed by their bytes, twice (the render and its finished parts). Each site's pages are in a cache of their own, under
//! a per-site cap, inside a global cache of sites weighed by what their pages weigh, under
//! the global cap (`--cache-mb`'s share, `crate::cache::split`). A page asked for with a
//! query string goes to a second, smaller budget of the site's: a visitor can make
//! unlimited query strings, and those can then only evict other query variants, never a
//! site's query-less pages. Entries not asked for in [`IDLE`] go.

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use axum::body::Bytes;
use moka::sync::Cache;
use renderer::folder::TemplateFolder;
use renderer::render::{Clock, Page};
use renderer::route::page_type::{LOCK_SCREEN, MEMBER_AREA_DENIED};
use renderer::site::SiteContent;
use tenants::TenantId;

use crate::http::signing::random_hex;
use crate::http::small_page::escape;

/// How long a kept render stays without being asked for.
pub const IDLE: Duration = Duration::from_secs(600);

/// A kept entry's fixed cost besides its bytes (the entry, its key's and page's headers).
const ENTRY_WEIGHT: u64 = 256;

/// A site's share of the kept renders: at most this fraction of each budget.
const SITE_SHARE: u64 = 8;

/// The kept renders of every site on the node.
pub struct KeptPages {
    sites: Cache<TenantId, Arc<SitePages>>,
    per_site: u64,
    per_site_variants: u64,
}

/// One site's kept renders: query-less paths, and query variants on their own budget.
struct SitePages {
    pages: Cache<String, Arc<Kept>>,
    variants: Cache<String, Arc<Kept>>,
}

/// A render and what it was rendered from; and, made once, the page as the per-request
/// passes leave it for an anonymous visitor, but for the crumb ([`Finished`]).
pub struct Kept {
    site: Weak<SiteContent>,
    folder: Weak<TemplateFolder>,
    /// Answered while the clock is before this (epoch ms), when the page read the clock.
    until: Option<f64>,
    page: Page,
    finished: OnceLock<Option<Finished>>,
}

/// What the per-request passes read besides the page, the site's content and the crumb,
/// for an anonymous visitor: a finished page is used only for a request that has the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The site's status (the islands show some to visitors).
    pub website_status: i64,
    /// Analytics is on and counts this page (the islands' data says so).
    pub tracked: Option<bool>,
    /// What the islands' data says of the visitor's cart (its summary: total quantity,
    /// subtotal in cents, currency: `islands::cart_summary_key`), for a page kept under its
    /// cart's key.
    pub cart: Option<Arc<str>>,
}

/// The page after the per-request passes (the cart forms, the islands' data) as parts, each
/// crumb field's value between two of them: a request puts its crumb between them, one copy
/// of the page instead of searching and splicing it.
struct Finished {
    shape: Shape,
    parts: Vec<Bytes>,
    carries_crumb: bool,
}

impl Finished {
    /// Runs `passes` over `body` with a random stand-in for the crumb and cuts the result
    /// at it; `None` unless the parts, given another stand-in, are exactly what the passes
    /// make with that one (so the parts hold no stand-in that was not a crumb).
    fn prepare(
        body: &str,
        shape: Shape,
        passes: &dyn Fn(&mut String, &str) -> bool,
    ) -> Option<Finished> {
        let (a, b) = (random_hex(32), random_hex(32));
        let mut out = body.to_string();
        let carries_crumb = passes(&mut out, &a);
        let finished = Finished {
            shape: shape.clone(),
            parts: out
                .split(a.as_str())
                .map(|p| Bytes::copy_from_slice(p.as_bytes()))
                .collect(),
            carries_crumb,
        };
        let mut check = body.to_string();
        let carries = passes(&mut check, &b);
        (carries == carries_crumb && finished.with_crumb(&b) == check).then_some(finished)
    }

    /// The page with `crumb` in each crumb field, as the chunks of a body: the kept parts
    /// (shared, not copied) with the crumb (escaped, as the passes print it) between them.
    fn chunks(&self, crumb: &str) -> Vec<Bytes> {
        // A crumb is hex: nothing in it to escape, unless it is not one.
        let plain = !crumb
            .bytes()
            .any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\''));
        let crumb = if plain {
            Bytes::copy_from_slice(crumb.as_bytes())
        } else {
            Bytes::from(escape(crumb))
        };
        let mut out = Vec::with_capacity(2 * self.parts.len());
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push(crumb.clone());
            }
            out.push(part.clone());
        }
        out
    }

    /// The same as one text.
    fn with_crumb(&self, crumb: &str) -> String {
        concat(&self.chunks(crumb))
    }
}

impl Kept {
    fn weight(&self, key: &str) -> u32 {
        let p = &self.page;
        // The body twice: as rendered and, once asked for, finished.
        let bytes = ENTRY_WEIGHT
            + key.len() as u64
            + 2 * p.body.len() as u64
            + p.location.as_ref().map_or(0, |l| l.len() as u64)
            + p.errors.iter().map(|e| e.len() as u64 + 24).sum::<u64>();
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }

    /// The kept render.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// The kept render without its body (for a request that builds the body itself).
    pub fn head(&self) -> Page {
        Page {
            status: self.page.status,
            content_type: self.page.content_type,
            body: String::new(),
            page_type: self.page.page_type,
            location: self.page.location.clone(),
            errors: self.page.errors.clone(),
            clock: self.page.clock,
            cart_keyed: self.page.cart_keyed,
        }
    }

    /// The page as `passes` (the cart forms and the islands, given the crumb; whether the
    /// page now carries it) leave it with `crumb`, from the finished parts made by the first
    /// request to ask (with its `passes`); `None` when they were made for another [`Shape`]
    /// or could not be made, and the request runs its passes itself.
    pub fn finished(
        &self,
        shape: &Shape,
        crumb: &str,
        passes: &dyn Fn(&mut String, &str) -> bool,
    ) -> Option<(Vec<Bytes>, bool)> {
        let f = self
            .finished
            .get_or_init(|| Finished::prepare(&self.page.body, shape.clone(), passes))
            .as_ref()
            .filter(|f| f.shape == *shape)?;
        Some((f.chunks(crumb), f.carries_crumb))
    }

    fn is_for(&self, site: &Arc<SiteContent>, folder: &Arc<TemplateFolder>) -> bool {
        std::ptr::eq(self.site.as_ptr(), Arc::as_ptr(site))
            && std::ptr::eq(self.folder.as_ptr(), Arc::as_ptr(folder))
    }
}

impl SitePages {
    fn new(per_site: u64, per_site_variants: u64) -> SitePages {
        let cache = |cap: u64| {
            Cache::builder()
                .max_capacity(cap)
                .weigher(|k: &String, v: &Arc<Kept>| v.weight(k))
                .time_to_idle(IDLE)
                .build()
        };
        SitePages {
            pages: cache(per_site),
            variants: cache(per_site_variants),
        }
    }

    fn weight(&self) -> u32 {
        let bytes = ENTRY_WEIGHT + self.pages.weighted_size() + self.variants.weighted_size();
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }

    /// Query-less pages for a visitor without a cart in one budget; query strings and
    /// carts' keys, which a visitor can make as many of as they like, in the other.
    fn of(&self, query: &str, cart: Option<&str>) -> &Cache<String, Arc<Kept>> {
        if query.is_empty() && cart.is_none() {
            &self.pages
        } else {
            &self.variants
        }
    }
}

/// The key of a page in its site's cache: its path and query and, for a visitor with a
/// cart, what the page can read of the cart (`renderer::cart_reads::CartReads::key`),
/// after a NUL (which no URI has).
fn key(path: &str, query: &str, cart: Option<&str>) -> String {
    if cart.is_none() && query.is_empty() {
        return path.to_string();
    }
    // Written into one buffer of its size (`format!` cost a page with a cart 0.5% of its
    // samples).
    let cart_len = cart.map_or(0, |c| 1 + c.len());
    let mut out = String::with_capacity(path.len() + 1 + query.len() + cart_len);
    out.push_str(path);
    out.push('?');
    out.push_str(query);
    if let Some(cart) = cart {
        out.push('\u{0}');
        out.push_str(cart);
    }
    out
}

/// What the page handler knows of a request's visitor, for [`Visitor::is_anonymous`].
pub struct Visitor {
    /// Keys from unlock cookies or a member's areas.
    pub unlocked: bool,
    /// A member's session cookie is sent (signed in or not, the page may differ).
    pub member_session: bool,
    /// A signed-in user of the site (owner token or session): the banner, the frame.
    pub site_user: bool,
    /// An order is shown, or the visitor's cart and the page may read more of it than a
    /// kept render can be keyed by (`renderer::cart_reads`): a cart the page reads only a
    /// few summary values of is not the visitor's own ([`KeptPages::get`]'s `cart`).
    pub commerce: bool,
    /// The site has a site password.
    pub site_locked: bool,
}

impl Visitor {
    /// Whether this request's render reads nothing of its visitor: only then are kept
    /// renders read or written.
    pub fn is_anonymous(&self) -> bool {
        !(self.unlocked
            || self.member_session
            || self.site_user
            || self.commerce
            || self.site_locked)
    }
}

/// Whether a render may be kept: a page (200) or a redirect, not a lock screen or a member
/// area's join page (which are not for every visitor), not an error or a not-found page
/// (any path gives one: a flood of made-up paths must not fill the budget), and not one
/// that reads the clock throughout.
pub fn keepable(page: &Page) -> bool {
    let status = page.status == 200 || (page.status == 302 && page.location.is_some());
    status
        && !matches!(page.page_type, Some(LOCK_SCREEN | MEMBER_AREA_DENIED))
        && page.clock != Clock::Read
}

/// The current time in epoch milliseconds, as the renderer reads it.
pub fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_millis() as f64)
}

/// Chunks as one text (they are UTF-8 pieces of one page).
pub fn concat(chunks: &[Bytes]) -> String {
    let mut out = Vec::with_capacity(chunks.iter().map(Bytes::len).sum());
    for c in chunks {
        out.extend_from_slice(c);
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A response body sent as these chunks, its length known up front (so it goes out with a
/// `Content-Length`, as a body of one piece does).
pub struct ChunksBody {
    chunks: std::collections::VecDeque<Bytes>,
    left: u64,
}

impl ChunksBody {
    pub fn new(chunks: Vec<Bytes>) -> ChunksBody {
        let left = chunks.iter().map(|c| c.len() as u64).sum();
        ChunksBody {
            chunks: chunks.into(),
            left,
        }
    }
}

impl http_body::Body for ChunksBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        let next = this.chunks.pop_front().map(|c| {
            this.left -= c.len() as u64;
            Ok(http_body::Frame::data(c))
        });
        std::task::Poll::Ready(next)
    }

    fn is_end_stream(&self) -> bool {
        self.chunks.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.left)
    }
}

impl KeptPages {
    /// Kept renders of at most `pages` bytes of query-less pages and `variants` bytes of
    /// query variants in all, each site at most an eighth of each.
    pub fn new(pages: u64, variants: u64) -> KeptPages {
        KeptPages {
            sites: Cache::builder()
                .max_capacity(pages + variants)
                .weigher(|_, s: &Arc<SitePages>| s.weight())
                .time_to_idle(IDLE)
                .build(),
            per_site: pages / SITE_SHARE,
            per_site_variants: variants / SITE_SHARE,
        }
    }

    /// The kept render of `path?query` for `tenant` (for a visitor with a cart, under the
    /// cart's key `cart`), if one was rendered from exactly this content and folder and its
    /// clock bound (if any) is after `now`.
    #[allow(clippy::too_many_arguments)]
    pub fn get(
        &self,
        tenant: TenantId,
        site: &Arc<SiteContent>,
        folder: &Arc<TemplateFolder>,
        path: &str,
        query: &str,
        cart: Option<&str>,
        now: f64,
    ) -> Option<Arc<Kept>> {
        let pages = self.sites.get(&tenant)?;
        let cache = pages.of(query, cart);
        let kept = if query.is_empty() && cart.is_none() {
            cache.get(path)?
        } else {
            cache.get(&key(path, query, cart))?
        };
        if !kept.is_for(site, folder) {
            return None;
        }
        if kept.until.is_some_and(|t| now >= t) {
            cache.invalidate(&key(path, query, cart));
            return None;
        }
        Some(kept)
    }

    /// Keeps `page`, the render of `path?query` from `site` and `folder` for an anonymous
    /// visitor, or one whose cart's key is `cart`, if it is [`keepable`] (and, with a cart,
    /// printed of it only what the key holds: `Page::cart_keyed`).
    #[allow(clippy::too_many_arguments)]
    pub fn keep(
        &self,
        tenant: TenantId,
        site: &Arc<SiteContent>,
        folder: &Arc<TemplateFolder>,
        path: &str,
        query: &str,
        cart: Option<&str>,
        page: &Page,
    ) {
        if !keepable(page) || (cart.is_some() && !page.cart_keyed) {
            return;
        }
        let until = match page.clock {
            Clock::Until(t) => Some(t),
            _ => None,
        };
        let kept = Arc::new(Kept {
            site: Arc::downgrade(site),
            folder: Arc::downgrade(folder),
            until,
            page: page.clone(),
            finished: OnceLock::new(),
        });
        let pages = self.sites.get_with(tenant, || {
            Arc::new(SitePages::new(self.per_site, self.per_site_variants))
        });
        let cache = pages.of(query, cart);
        cache.insert(key(path, query, cart), kept);
        cache.run_pending_tasks();
        // The site's weight in the global cache is what its pages weigh now.
        self.sites.insert(tenant, pages);
    }

    /// How many renders are kept for `tenant`: (query-less pages, query variants).
    pub fn counts(&self, tenant: TenantId) -> (u64, u64) {
        self.sites.get(&tenant).map_or((0, 0), |s| {
            s.pages.run_pending_tasks();
            s.variants.run_pending_tasks();
            (s.pages.entry_count(), s.variants.entry_count())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(body: &str) -> Page {
        Page {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: body.to_string(),
            page_type: Some(1),
            location: None,
            errors: Vec::new(),
            clock: Clock::Unread,
            cart_keyed: false,
        }
    }

    fn inputs() -> (Arc<SiteContent>, Arc<TemplateFolder>) {
        let folder = renderer::folder::load(&renderer::folder::template_files([(
            "site.region",
            "<html><body>{squarespace.main-content}</body></html>",
        )]));
        let site = SiteContent::from_json(&serde_json::json!({"website": {}, "collections": []}))
            .expect("a site");
        (Arc::new(site), Arc::new(folder))
    }

    #[test]
    fn a_kept_page_is_answered_only_for_the_content_and_folder_it_was_rendered_from() {
        let kept = KeptPages::new(1 << 20, 1 << 18);
        let (site, folder) = inputs();
        let t = TenantId(1);
        assert!(kept.get(t, &site, &folder, "/a", "", None, 0.0).is_none());
        kept.keep(t, &site, &folder, "/a", "", None, &page("A"));
        let got = |site: &Arc<SiteContent>| {
            kept.get(t, site, &folder, "/a", "", None, 0.0)
                .map(|k| k.page().clone())
        };
        assert_eq!(got(&site), Some(page("A")));
        // Another tenant, another path, another query: nothing.
        assert!(
            kept.get(TenantId(2), &site, &folder, "/a", "", None, 0.0)
                .is_none()
        );
        assert!(kept.get(t, &site, &folder, "/b", "", None, 0.0).is_none());
        assert!(
            kept.get(t, &site, &folder, "/a", "x=1", None, 0.0)
                .is_none()
        );
        // New content (an owner's edit builds a new view), a new folder: nothing.
        let (site2, folder2) = inputs();
        assert!(kept.get(t, &site2, &folder, "/a", "", None, 0.0).is_none());
        assert!(kept.get(t, &site, &folder2, "/a", "", None, 0.0).is_none());
        // The new render replaces the old one.
        kept.keep(t, &site2, &folder, "/a", "", None, &page("A2"));
        assert_eq!(got(&site2), Some(page("A2")));
        assert!(kept.get(t, &site, &folder, "/a", "", None, 0.0).is_none());
    }

    /// Passes like the server's: a crumb field in each form, a note at the placeholder.
    fn passes(body: &mut String, crumb: &str) -> bool {
        let field = format!("<input name=\"crumb\" value=\"{}\">", escape(crumb));
        let n = body.matches("<form>").count();
        *body = body
            .replace("<form>", &format!("<form>{field}"))
            .replace("<!--here-->", "<script>{\"page\":1}</script>");
        n > 0
    }

    #[test]
    fn a_finished_page_with_a_crumb_is_what_the_passes_make() {
        let shape = Shape {
            website_status: 2,
            tracked: Some(true),
            cart: None,
        };
        let (site, folder) = inputs();
        let kept = KeptPages::new(1 << 20, 1 << 18);
        let t = TenantId(1);
        let body = "<head><!--here--></head><form></form><p>a</p><form></form>";
        kept.keep(t, &site, &folder, "/", "", None, &page(body));
        let k = kept.get(t, &site, &folder, "/", "", None, 0.0).unwrap();
        // Hex (copied as it is), and with every character the passes escape.
        for crumb in ["1234abcd", "ab<&>\"cd", "it's", ""] {
            let mut want = body.to_string();
            let carries = passes(&mut want, crumb);
            let got = k
                .finished(&shape, crumb, &passes)
                .map(|(c, n)| (concat(&c), n));
            assert_eq!(got, Some((want, carries)));
        }
        // Another shape (the site's status changed): the request runs its passes.
        let other = Shape {
            website_status: 12,
            ..shape.clone()
        };
        assert_eq!(k.finished(&other, "1234", &passes), None);
        // A page without forms carries no crumb and is one part.
        kept.keep(t, &site, &folder, "/plain", "", None, &page("<p>b</p>"));
        let k = kept
            .get(t, &site, &folder, "/plain", "", None, 0.0)
            .unwrap();
        let got = k
            .finished(&shape, "1234", &passes)
            .map(|(c, n)| (concat(&c), n));
        assert_eq!(got, Some(("<p>b</p>".to_string(), false)));
    }

    #[test]
    fn what_is_never_kept() {
        let kept = KeptPages::new(1 << 20, 1 << 18);
        let (site, folder) = inputs();
        let t = TenantId(1);
        let mut not_found = page("nope");
        not_found.status = 404;
        let mut lock = page("lock");
        lock.page_type = Some(LOCK_SCREEN);
        let mut join = page("join");
        join.page_type = Some(MEMBER_AREA_DENIED);
        let mut clock = page("3 minutes ago");
        clock.clock = Clock::Read;
        let mut error = page("error");
        error.status = 500;
        for (path, p) in [
            ("/n", &not_found),
            ("/l", &lock),
            ("/j", &join),
            ("/c", &clock),
            ("/e", &error),
        ] {
            assert!(!keepable(p), "{path}");
            kept.keep(t, &site, &folder, path, "", None, p);
            assert!(
                kept.get(t, &site, &folder, path, "", None, 0.0).is_none(),
                "{path}"
            );
        }
        let mut redirect = page("");
        redirect.status = 302;
        redirect.location = Some("/first".into());
        assert!(keepable(&redirect));
    }

    #[test]
    fn a_page_kept_with_a_cart_is_answered_only_for_the_same_cart_key() {
        let kept = KeptPages::new(1 << 20, 1 << 18);
        let (site, folder) = inputs();
        let t = TenantId(1);
        let mut with_cart = page("<span>2</span>");
        // A render that printed more of the cart than its key holds is never kept.
        kept.keep(t, &site, &folder, "/p", "", Some("q2"), &with_cart);
        assert!(
            kept.get(t, &site, &folder, "/p", "", Some("q2"), 0.0)
                .is_none()
        );
        with_cart.cart_keyed = true;
        kept.keep(t, &site, &folder, "/p", "", Some("q2"), &with_cart);
        let got = |cart: Option<&str>, query: &str| {
            kept.get(t, &site, &folder, "/p", query, cart, 0.0)
                .map(|k| k.page().body.clone())
        };
        assert_eq!(got(Some("q2"), ""), Some("<span>2</span>".into()));
        // Another cart's key, no cart, another query: nothing.
        assert_eq!(got(Some("q3"), ""), None);
        assert_eq!(got(None, ""), None);
        assert_eq!(got(Some("q2"), "x=1"), None);
        // A visitor without a cart's page is not a cart's.
        kept.keep(t, &site, &folder, "/p", "", None, &page("<span>0</span>"));
        assert_eq!(got(None, ""), Some("<span>0</span>".into()));
        assert_eq!(got(Some("q2"), ""), Some("<span>2</span>".into()));
        assert_ne!(key("/p", "", Some("")), key("/p", "", None));
        assert_ne!(key("/p", "a", Some("")), key("/p", "a", None));
        // The keys as they were written with `format!`.
        for (path, query, cart) in [
            ("/p", "", None),
            ("/p", "a=1", None),
            ("/p", "", Some("Tq1")),
            ("/shop/x", "b=2&c", Some("Tq2\u{0}subtotal={}")),
        ] {
            let old = match cart {
                None if query.is_empty() => path.to_string(),
                None => format!("{path}?{query}"),
                Some(cart) => format!("{path}?{query}\u{0}{cart}"),
            };
            assert_eq!(key(path, query, cart), old);
        }
    }

    #[test]
    fn carts_keys_never_evict_a_sites_pages() {
        let body = "x".repeat(10_000);
        let kept = KeptPages::new(8 * 8 * 21_000, 8 * 8 * 21_000);
        let (site, folder) = inputs();
        let t = TenantId(1);
        kept.keep(t, &site, &folder, "/", "", None, &page(&body));
        let mut p = page(&body);
        p.cart_keyed = true;
        for i in 0..2_000 {
            let cart = format!("q{i}");
            kept.keep(t, &site, &folder, "/", "", Some(&cart), &p);
            kept.get(t, &site, &folder, "/", "", Some(&cart), 0.0);
        }
        assert!(kept.get(t, &site, &folder, "/", "", None, 0.0).is_some());
        let (pages, variants) = kept.counts(t);
        assert_eq!(pages, 1);
        assert!(variants <= 8, "{variants}");
    }

    #[test]
    fn a_page_that_read_the_clock_goes_at_its_bound() {
        let kept = KeptPages::new(1 << 20, 1 << 18);
        let (site, folder) = inputs();
        let t = TenantId(1);
        let mut events = page("upcoming: the fair");
        events.clock = Clock::Until(1_000.0);
        kept.keep(t, &site, &folder, "/events", "", None, &events);
        assert!(
            kept.get(t, &site, &folder, "/events", "", None, 999.0)
                .is_some()
        );
        assert!(
            kept.get(t, &site, &folder, "/events", "", None, 1_000.0)
                .is_none()
        );
        assert!(
            kept.get(t, &site, &folder, "/events", "", None, 0.0)
                .is_none()
        );
    }

    #[test]
    fn visitors_with_anything_of_their_own_are_not_anonymous() {
        let none = Visitor {
            unlocked: false,
            member_session: false,
            site_user: false,
            commerce: false,
            site_locked: false,
        };
        assert!(none.is_anonymous());
        for set in 0..5 {
            let v = Visitor {
                unlocked: set == 0,
                member_session: set == 1,
                site_user: set == 2,
                commerce: set == 3,
                site_locked: set == 4,
            };
            assert!(!v.is_anonymous(), "{set}");
        }
    }

    #[test]
    fn query_strings_never_evict_a_sites_pages() {
        // A site's share holds about eight pages of 10 kB, and as many query variants.
        let body = "x".repeat(10_000);
        let kept = KeptPages::new(8 * 8 * 21_000, 8 * 8 * 21_000);
        let (site, folder) = inputs();
        let t = TenantId(1);
        let paths: Vec<String> = (0..6).map(|i| format!("/page-{i}")).collect();
        for p in &paths {
            kept.keep(t, &site, &folder, p, "", None, &page(&body));
            // Asked for again and again: these are the site's real pages.
            for _ in 0..5 {
                kept.get(t, &site, &folder, p, "", None, 0.0);
            }
        }
        for i in 0..2_000 {
            let q = format!("utm={i}");
            kept.keep(t, &site, &folder, "/page-0", &q, None, &page(&body));
            kept.get(t, &site, &folder, "/page-0", &q, None, 0.0);
        }
        for p in &paths {
            assert!(
                kept.get(t, &site, &folder, p, "", None, 0.0).is_some(),
                "{p}"
            );
        }
        let (pages, variants) = kept.counts(t);
        assert_eq!(pages, 6);
        assert!(variants <= 8, "{variants}");
    }

    #[test]
    fn one_site_holds_at_most_its_share() {
        let body = "x".repeat(10_000);
        let kept = KeptPages::new(8 * 4 * 21_000, 0);
        let (site, folder) = inputs();
        for i in 0..200 {
            let p = format!("/p{i}");
            kept.keep(TenantId(1), &site, &folder, &p, "", None, &page(&body));
            kept.get(TenantId(1), &site, &folder, &p, "", None, 0.0);
        }
        let (pages, _) = kept.counts(TenantId(1));
        assert!(pages <= 4, "{pages}");
        // Another site still gets its pages in.
        kept.keep(TenantId(2), &site, &folder, "/", "", None, &page(&body));
        assert!(
            kept.get(TenantId(2), &site, &folder, "/", "", None, 0.0)
                .is_some()
        );
    }
}
