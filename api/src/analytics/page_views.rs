//! Page views, recorded by the server as it answers a page: no script is needed for them
//! (a page without islands still loads none), and the record goes to the analytics queue,
//! never to storage on the page's path. The tracking rules of SPEC.md §6:
//!
//! - nothing when analytics is off (`serve --no-analytics`, and under `tessera dev`);
//! - nothing on not-found (100), lock-screen (103) and member-area-denied (106) pages, nor
//!   for anything that is not an HTML page answered 200 (JSON views, redirects, errors);
//! - nothing for a signed-in user of the site (today the owner, whose token a request may
//!   carry) except the viewer role, and never on `/config` pages;
//! - a restrictive cookie policy (`websiteSettings.cookiePolicy: "restrictive"`) or a
//!   cloneable site (`website.cloneable: true`) clears the visitor cookies and records the
//!   view without a visitor.
//!
//! Visitor cookies (SPEC.md §9): `ss_cvr` names the visitor for two years, `ss_cvt` the
//! session for 30 minutes; both are set on the first page that lacks them. The crumb is
//! ours a browser-session cookie already, so it is never a visitor cookie to clear.

use std::time::Duration;

use axum::http::{HeaderMap, header};
use renderer::route::page_type::{LOCK_SCREEN, MEMBER_AREA_DENIED, NOT_FOUND};
use renderer::site::SiteContent;
use template_lang::value::Node;
use tenants::{PageView, TenantId};

use super::queue::{Queue, Record};
use crate::http::cookies;

/// The event a page view is stored as (one of `tenants::VISIT_EVENTS`).
pub const PAGE_VIEW: &str = "pageview";
/// Page types that are never tracked.
pub const UNTRACKED: [u16; 3] = [NOT_FOUND, LOCK_SCREEN, MEMBER_AREA_DENIED];
/// SPEC.md §3 user roles: the one signed-in role whose views count.
pub const VIEWER_ROLE: u8 = crate::http::owner::VIEWER;
/// SPEC.md §3 user roles: what the owner's token is.
pub const ADMIN_ROLE: u8 = crate::http::owner::ADMIN;
/// The visitor cookie, kept two years.
pub const VISITOR_COOKIE: &str = super::VISITOR_COOKIE;
pub const VISITOR_TTL: Duration = Duration::from_secs(730 * 24 * 3600);
/// The session cookie, kept 30 minutes.
pub const SESSION_COOKIE: &str = "ss_cvt";
pub const SESSION_TTL: Duration = Duration::from_secs(30 * 60);
/// The visitor cookies a restrictive policy clears (SPEC.md §3 cookies, less the crumb).
pub const VISITOR_COOKIES: [&str; 5] = ["ss_cid", "ss_cpvisit", "ss_cvisit", "ss_cvr", "ss_cvt"];

/// Whether a page of `page_type` at `path`, seen by someone signed in with `role` (none
/// for a visitor), is tracked.
pub fn tracked(page_type: Option<u16>, path: &str, role: Option<u8>) -> bool {
    let Some(t) = page_type else { return false };
    let config = path == "/config" || path.starts_with("/config/");
    !UNTRACKED.contains(&t) && !config && role.is_none_or(|r| r == VIEWER_ROLE)
}

/// Whether the site keeps visitors unnamed: a restrictive cookie policy, or a cloneable site.
pub fn restrictive(site: &SiteContent) -> bool {
    matches!(
        site.website_settings
            .pointer(&["cookiePolicy"])
            .and_then(Node::as_str),
        Some("restrictive")
    ) || matches!(site.website.pointer(&["cloneable"]), Some(Node::Bool(true)))
}

fn cookie_ok(v: &str) -> bool {
    (1..=128).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// A visitor or session cookie's value, when it is one we could have set.
fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    cookies::values(headers, name)
        .find(|v| cookie_ok(v))
        .map(str::to_owned)
}

/// The visitor the `ss_cvr` cookie names (none where visitors stay unnamed).
pub fn named_visitor(headers: &HeaderMap) -> Option<String> {
    cookie_value(headers, VISITOR_COOKIE)
}

/// Who a page view counts for: the visitor (`ss_cvr`) and their visit (`ss_cvt`, a session
/// of 30 minutes from its first page), and whether this page named them (then the id is
/// only in the cookie: nothing counts it by id).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// The visitor the request's cookie named, if any.
    pub visitor: Option<String>,
    /// The visit the request's cookie named, if any.
    pub session: Option<String>,
    /// The page set the visitor cookie: a visitor never counted before.
    pub new_visitor: bool,
    /// The page set the session cookie: the visit starts here.
    pub new_session: bool,
}

/// The visit a request belongs to (its `ss_cvt` cookie), if it names one.
pub fn session_of(headers: &HeaderMap) -> Option<String> {
    cookie_value(headers, SESSION_COOKIE)
}

/// Who a page view at `now_ms` counts for, and the cookies the page sets for it: the
/// visitor and session cookies when missing (a page without a session cookie starts a
/// visit), or, where visitors stay unnamed, the clearing of those the browser has (and
/// nobody: such a site counts page views, never visitors or visits).
///
/// The ids it makes carry the day and quarter hour they were made in
/// ([`tenants::minted_visitor`], [`tenants::minted_session`]): the page view that makes one
/// counts it as a new visitor or visit, and later page views need no row for it (see
/// docs/src/store-owners.md#analytics).
pub fn visitor(
    headers: &HeaderMap,
    restrictive: bool,
    https: bool,
    now_ms: i64,
) -> (Counted, Vec<String>) {
    if restrictive {
        let clear = VISITOR_COOKIES
            .iter()
            .filter(|c| cookies::values(headers, c).next().is_some())
            .map(|c| cookies::clear(c, https))
            .collect();
        return (Counted::default(), clear);
    }
    let mut set = Vec::new();
    // Only the server reads them (the analytics island keeps its own ids in storage). A new
    // id is made in its cookie's line and not kept: the tally counts the view that named a
    // visitor or visit as new and never reads its id (later views bring it back).
    let mut name_new = |cookie: &str, tag: char, bucket: i64, ttl: Duration| {
        let options = cookies::Options {
            http_only: true,
            https,
            max_age: Some(ttl),
        };
        let id = |out: &mut String| mint(out, tag, bucket);
        set.push(cookies::set_writing(cookie, id, options));
    };
    let visitor = named_visitor(headers);
    if visitor.is_none() {
        name_new(VISITOR_COOKIE, 'v', tenants::day_of(now_ms), VISITOR_TTL);
    }
    let session = session_of(headers);
    if session.is_none() {
        name_new(SESSION_COOKIE, 's', tenants::slot_of(now_ms), SESSION_TTL);
    }
    (
        Counted {
            new_visitor: visitor.is_none(),
            new_session: session.is_none(),
            visitor,
            session,
        },
        set,
    )
}

/// A new id as [`tenants::minted_visitor`] (`tag` `v`, a day) and
/// [`tenants::minted_session`] (`s`, a quarter hour) write it, `{tag}{bucket}-{32 hex}`,
/// at the end of `out`.
fn mint(out: &mut String, tag: char, bucket: i64) {
    out.push(tag);
    cookies::push_int(out, bucket);
    out.push('-');
    crate::http::signing::push_random_hex(out, 16);
}

/// The page a visitor came from, from the `Referer` header.
fn referer(headers: &HeaderMap) -> Option<&str> {
    headers.get(header::REFERER)?.to_str().ok()
}

/// Queues one page view at `now_ms` (the instant [`visitor`] was given): counted, not kept
/// as a row ([`super::queue`]).
pub fn record(
    queue: &Queue,
    tenant: TenantId,
    host: &str,
    path: &str,
    now_ms: i64,
    who: Counted,
    headers: &HeaderMap,
) {
    // As a tracking call's `referrer` was read: its first 1024 characters.
    let referrer = referer(headers).and_then(|r| {
        let end = r.char_indices().nth(1024).map_or(r.len(), |(i, _)| i);
        super::referrer_host(&r[..end], host)
    });
    let view = PageView {
        occurred_ms: now_ms,
        page_path: super::page_path_of(path),
        referrer,
        visitor_id: who.visitor,
        session: who.session,
        new_visitor: who.new_visitor,
        new_session: who.new_session,
    };
    queue.push(Record::PageView(tenant, view));
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn what_is_tracked() {
        assert!(tracked(Some(1), "/", None));
        assert!(tracked(Some(105), "/course/x", None));
        for t in UNTRACKED {
            assert!(!tracked(Some(t), "/x", None), "{t}");
        }
        assert!(!tracked(None, "/site.css", None));
        assert!(!tracked(Some(2), "/", Some(ADMIN_ROLE)));
        assert!(tracked(Some(2), "/", Some(VIEWER_ROLE)));
        assert!(!tracked(Some(2), "/config/pages", Some(VIEWER_ROLE)));
        assert!(!tracked(Some(2), "/config", None));
    }

    /// 2025-11-28 10:07 UTC: day 20 420, quarter hour 1 960 360.
    const NOW: i64 = 1_764_324_420_000;

    fn with_cookie(c: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_str(c).unwrap());
        h
    }

    #[test]
    fn visitor_cookies_are_set_kept_or_cleared() {
        let (who, set) = visitor(&HeaderMap::new(), false, false, NOW);
        assert!(who.new_visitor && who.new_session);
        // The new ids are in the cookies only: nothing counts them by id.
        assert_eq!((who.visitor, who.session), (None, None));
        assert_eq!(set.len(), 2);
        let value = |line: &str, name: &str| {
            let (v, rest) = line.strip_prefix(name).unwrap().split_once(';').unwrap();
            (v.to_owned(), rest.to_owned())
        };
        let (id, visitor_rest) = value(&set[0], "ss_cvr=");
        let (session, session_rest) = value(&set[1], "ss_cvt=");
        assert_eq!(
            visitor_rest,
            " HttpOnly; SameSite=Lax; Path=/; Max-Age=63072000"
        );
        assert_eq!(
            session_rest,
            " HttpOnly; SameSite=Lax; Path=/; Max-Age=1800"
        );
        // Made now: they carry the day and quarter hour (counted once, then).
        assert_eq!(tenants::visitor_minted_day(&id), Some(20_420), "{id}");
        assert_eq!(
            tenants::session_minted_slot(&session),
            Some(1_960_360),
            "{session}"
        );
        // Written as the store's functions write them, and read back as ours.
        let random = |id: &str| id.split_once('-').unwrap().1.to_owned();
        assert_eq!(random(&id).len(), 32);
        assert_eq!(id, tenants::minted_visitor(20_420, &random(&id)));
        assert_eq!(
            session,
            tenants::minted_session(1_960_360, &random(&session))
        );
        assert_ne!(random(&id), random(&session));
        // The next page of the visit: the same visitor and visit, no cookie set.
        let (again, set) = visitor(
            &with_cookie(&format!("ss_cvr={id}; ss_cvt=s1")),
            false,
            false,
            NOW,
        );
        assert_eq!(again.visitor.as_deref(), Some(id.as_str()));
        assert_eq!((again.session.as_deref(), set.len()), (Some("s1"), 0));
        assert!(!again.new_visitor && !again.new_session);
        // A visitor whose visit ran out starts a new one.
        let (back, set) = visitor(&with_cookie(&format!("ss_cvr={id}")), false, false, NOW);
        assert_eq!(back.visitor.as_deref(), Some(id.as_str()));
        assert_eq!(back.session, None);
        assert_eq!(set.len(), 1);
        let (next, _) = value(&set[0], "ss_cvt=");
        assert!(next != session && tenants::session_minted_slot(&next).is_some());
        assert!(!back.new_visitor && back.new_session);
        // A made-up value is not a visitor.
        let (other, _) = visitor(&with_cookie("ss_cvr=<script>"), false, false, NOW);
        assert_ne!(other.visitor.as_deref(), Some("<script>"));
        // Unnamed visitors: the cookies they have are cleared, nothing is set.
        let (none, clear) = visitor(
            &with_cookie("ss_cvr=a; ss_cid=b; crumb=c"),
            true,
            false,
            NOW,
        );
        assert_eq!(none, Counted::default());
        assert_eq!(clear.len(), 2);
        assert!(clear.iter().all(|c| c.contains("Max-Age=0")), "{clear:?}");
    }
}
