//! The page pipeline: the request's site (resolved by the server's layer) → its compiled
//! template folder ([`folders`]) → the visitor's unlocks, crumb, cart and order
//! ([`commerce`]) → the render → the page view ([`crate::routes::analytics`]) → the cart's
//! forms ([`cart_forms`]) → the islands' data ([`islands`]) → the announcement bar and
//! cookie banner ([`notices`]) → headers. A site password
//! ([`renderer::site::SiteContent::site_lock`]) makes every page its lock screen for a
//! visitor without the site's unlock cookie who is not its owner. A template's own files
//! are [`crate::files`].

pub mod cart_forms;
pub mod commerce;
pub mod folders;
pub mod islands;
pub mod kept;
pub mod notices;
pub mod site_bridge;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{ConnectInfo, FromRequestParts, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::Response;

use crate::http::site::{NoSite, Resolved, Site};
use crate::http::small_page::{error_page, no_site, plain, unavailable_page};
use crate::server::state::App;
use folders::{FolderError, Moved};

/// What the page pipeline reads of a request: its site (as the server's layer found it),
/// its URI and headers, the connection's peer and the `Host` it came in on. Taken out of
/// the request rather than copied: the page route is its only reader.
pub(crate) struct PageRequest {
    site: Result<Site, NoSite>,
    uri: Uri,
    headers: HeaderMap,
    peer: Option<IpAddr>,
    host: Option<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for PageRequest {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        let site = parts
            .extensions
            .remove::<Resolved>()
            .map_or(Err(NoSite::UnknownHost), |r| r.0);
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        let host = crate::http::site::host_of_parts(&parts.headers, &parts.uri);
        Ok(PageRequest {
            site,
            uri: std::mem::take(&mut parts.uri),
            headers: std::mem::take(&mut parts.headers),
            peer,
            host,
        })
    }
}

pub(crate) async fn page(State(app): State<App>, req: PageRequest) -> Response {
    let found = match req.site {
        Ok(found) => found,
        Err(why) => return no_site(why),
    };
    let tenant = found.tenant.clone();
    let site = found.content.render.clone();
    let loaded = match app.caches.folder(&app.store, &found).await {
        Ok(Some(f)) => f,
        Ok(None) => {
            return plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "This site has no template yet.",
            );
        }
        Err(e) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "loading the template failed");
            return match e {
                FolderError::Store(_) => unavailable_page(),
                FolderError::Compile(_) => error_page(),
            };
        }
    };
    let path = req.uri.path().to_string();
    let query = req.uri.query().unwrap_or("").to_string();
    if path == "/scripts/combo/" {
        return crate::files::combo_scripts(&loaded, &query, &req.headers);
    }
    if let Some(rel) = path.strip_prefix('/')
        && (rel.starts_with("assets/") || rel.starts_with("scripts/"))
    {
        return crate::files::public_file(&loaded, rel, &req.headers);
    }
    // Password-protected collections this visitor has opened (unlock cookies checked), and
    // the member areas of a signed-in member.
    let unlocked = crate::http::member::visitor_keys(&app, tenant.id, &site, &req.headers).await;
    let signed_in = crate::http::cookies::values(&req.headers, crate::http::member::SESSION_COOKIE)
        .next()
        .is_some();
    let unlocked_any = !unlocked.is_empty();
    // A signed-in user of the site is a request with an owner token or an owner's session
    // (a store failure here takes it for a visitor's: the view is counted, no owner banner
    // shows and a locked site shows its lock screen).
    let role = crate::http::extract::role_of(&app, &tenant, &req.headers)
        .await
        .ok()
        .flatten();
    // A site password: the site's own unlock cookie, its owner (the editor's frame), or
    // `tessera dev`, whose author works on a copy of the site as its owner.
    let site_locked = site.site_lock.is_some();
    let site_unlocked = role.is_some()
        || app.dev.is_some()
        || crate::routes::lock_screen::site_unlocked(&req.headers, &site, tenant.id);
    let https = crate::http::client::client_of(req.peer, &req.headers, &app.trusted_proxies).https;
    // The crumb cookie, the visitor's cart and, on an order's page, the order.
    let commerce =
        crate::pages::commerce::for_page(&app, &found, &req.headers, https, &path, &query).await;
    let mut set_cookies = commerce.set_cookies;
    let crumb = commerce.crumb;
    let (cart, order, page_cart) = (commerce.cart, commerce.order, commerce.page_cart);
    let personal_commerce = cart.is_some() || order.is_some();
    // Node clones share their data: the islands read the cart after the render took it.
    let cart_summary = cart.clone();
    // What this folder's pages can read of the visitor's cart, when that is only a few of
    // its summary values (`renderer::cart_reads`): the same for every cart with them, so
    // not the visitor's own, and the key a page rendered with it is kept under (worked out
    // once per cart revision, with the cart: `commerce::PageCart`).
    let cart_key = page_cart
        .as_ref()
        .filter(|_| order.is_none())
        .and_then(|c| c.key(&loaded.folder.cart_reads));
    // A visitor with nothing of their own on a page: the render may come from, or go to,
    // the kept renders ([`kept`]).
    let anonymous = kept::Visitor {
        unlocked: unlocked_any,
        member_session: signed_in,
        site_user: role.is_some(),
        commerce: order.is_some() || (cart.is_some() && cart_key.is_none()),
        site_locked,
    }
    .is_anonymous();
    let keeping = app.kept_pages.as_ref().filter(|_| anonymous);
    let render_inputs = (site.clone(), loaded.folder.clone());
    let from_kept = keeping.and_then(|k| {
        k.get(
            tenant.id,
            &render_inputs.0,
            &render_inputs.1,
            &path,
            &query,
            cart_key.as_deref(),
            kept::now_ms(),
        )
    });
    let page_path = path.clone();
    let page_query = query.clone();
    let hit = from_kept.is_some();
    let render = {
        let folder = loaded.folder.clone();
        move || {
            let started = Instant::now();
            let request = renderer::render::Request {
                path: &path,
                query: &query,
                unlocked: &unlocked,
                cart: cart.as_ref(),
                order: order.as_ref(),
                site_unlocked,
            };
            // A panic becomes the generic error page, on either path below.
            let page = std::panic::catch_unwind(AssertUnwindSafe(|| {
                renderer::render::render(&site, &folder, &request)
            }));
            (page.ok(), started.elapsed())
        }
    };
    // Most pages render in tens of microseconds: on the async worker, where handing them to
    // the blocking pool would cost more than the render (see benches/load.sh). A template
    // that keeps taking longer renders on the blocking pool, so a slow template cannot stall
    // other requests' I/O, until it keeps being fast again ([`SlowRenders`]).
    let mut kept_now = false;
    // A kept page's body is copied only where the finished parts cannot serve (below).
    let mut page = if let Some(k) = &from_kept {
        k.head()
    } else {
        let (page, took) = if loaded.is_slow() {
            tokio::task::spawn_blocking(render)
                .await
                .unwrap_or((None, Duration::ZERO))
        } else {
            render()
        };
        match loaded.slow_renders.record(took > app.inline_render_limit) {
            Some(Moved::ToPool) => {
                tracing::info!(tenant = %tenant.identifier, ?took, "slow renders: this template renders on the blocking pool");
            }
            Some(Moved::Back) => {
                tracing::info!(tenant = %tenant.identifier, "fast renders: this template renders on the async workers again");
            }
            None => {}
        }
        let Some(page) = page else {
            tracing::error!(tenant = %tenant.identifier, "rendering panicked");
            return error_page();
        };
        if let Some(k) = keeping
            && kept::keepable(&page)
        {
            let (site, folder) = &render_inputs;
            k.keep(
                tenant.id,
                site,
                folder,
                &page_path,
                &page_query,
                cart_key.as_deref(),
                &page,
            );
            kept_now = true;
        }
        page
    };
    // The page view, by the tracking rules (crate::analytics::page_views), off the page's
    // path: a queue push.
    let mut tracked = false;
    if let Some(queue) = &app.analytics
        && page.status == 200
        && page.content_type.starts_with("text/html")
    {
        use crate::analytics::page_views;
        tracked = page_views::tracked(page.page_type, &page_path, role);
        if tracked {
            let now = tenants::now_ms();
            let (who, cookies) =
                page_views::visitor(&req.headers, found.content.restrictive, https, now);
            set_cookies.extend(cookies);
            let host = req.host.as_deref().unwrap_or_default();
            page_views::record(queue, tenant.id, host, &page_path, now, who, &req.headers);
        }
    }
    // The cart's forms (Add To Cart, the cart page's quantity and remove) carry the crumb.
    let mut carries_crumb = false;
    // A kept page's finished parts with the crumb: sent as they are, not copied into one.
    let mut chunks: Option<Vec<axum::body::Bytes>> = None;
    let html = page.content_type.starts_with("text/html");
    if let Some(k) = &from_kept
        && !html
    {
        page.body = k.page().body.clone();
    }
    if html {
        use crate::pages::cart_forms;
        let message = cart_forms::message_of(&found.secret, &page_query);
        let back = cart_forms::back_path(&page_path, &page_query);
        let settings = &found.content.render.website_settings;
        let facts = crate::pages::islands::PageFacts {
            currency: found.content.commerce.currency.as_str(),
            locale: &found.content.language,
            express_checkout: matches!(
                settings.pointer(&["storeSettings", "expressCheckout"]),
                Some(template_lang::value::Node::Bool(true))
            ),
            cart: cart_summary.as_ref(),
            products: &found.content.products,
            restock_success_text: found.content.restock_success_text.as_deref(),
            signed_in,
            analytics: app
                .analytics
                .is_some()
                .then_some(crate::pages::islands::AnalyticsFacts {
                    tracked,
                    page_type: page.page_type,
                }),
            website_status: tenant.status.code(),
            owner: role.is_some(),
        };
        let passes = |body: &mut String, crumb: &str| {
            let carries = cart_forms::add_forms(
                body,
                &cart_forms::FormFacts {
                    crumb,
                    back: &back,
                    message: message.as_ref(),
                },
            );
            crate::pages::islands::finish_page(body, &facts);
            carries
        };
        // A kept page for an anonymous visitor: the passes' result made once, the crumb put
        // in (a message in the query, or `tessera dev`'s additions, run them here).
        let shape = kept::Shape {
            website_status: facts.website_status,
            tracked: facts.analytics.as_ref().map(|a| a.tracked),
            cart: page_cart.as_ref().map(|c| c.summary()),
        };
        let finished = from_kept
            .as_ref()
            .filter(|_| message.is_none() && app.dev.is_none())
            .and_then(|k| k.finished(&shape, &crumb, &passes));
        if let Some((parts, carries)) = finished {
            chunks = Some(parts);
            carries_crumb = carries;
        } else {
            if let Some(k) = &from_kept {
                page.body = k.page().body.clone();
            }
            carries_crumb = passes(&mut page.body, &crumb);
        }
        if let (Some(dev), Some(version)) = (&app.dev, found.template_version) {
            // A page that could not render at all says why instead of the generic words.
            let failed = page.body == renderer::render::ERROR_PAGE;
            let problems = dev.page_problems(&page_path, &page.errors, failed);
            if failed {
                page.body = crate::dev::failed_page(&problems);
            }
            crate::dev::inject(&mut page.body, version.0, &problems);
        }
    }
    // The announcement bar and the cookie banner, built with the content; never on the
    // site's own lock screen, which shows nothing of the site.
    let notices = &found.content.notices;
    if !notices.is_empty()
        && page.content_type.starts_with("text/html")
        && (!site_locked || site_unlocked)
    {
        // A kept page's parts are put together only when a notice may go in (loam-lantern's
        // template places the bar itself: its pages stay in parts).
        if let Some(parts) = chunks.take_if(|parts| notices.may_change(parts, &req.headers)) {
            page.body = kept::concat(&parts);
        }
        if chunks.is_none() {
            let back = if page_query.is_empty() {
                page_path.clone()
            } else {
                format!("{page_path}?{page_query}")
            };
            notices.add_to(&mut page.body, &req.headers, &back);
        }
    }
    for e in &page.errors {
        tracing::warn!(tenant = %tenant.identifier, "template: {e}");
    }
    // A lock screen, any page of a site with a site password, a member area's join page,
    // any page for a visitor who unlocked something or is in a member area (protected content may show anywhere: the page
    // itself, queries, search), a page showing the visitor's cart, an order's page and a
    // page for the site's owner (their plan banner) are never stored by any cache; a page that
    // sets a cookie or carries the visitor's crumb is never stored by a shared one.
    use renderer::route::page_type::{LOCK_SCREEN, MEMBER_AREA_DENIED};
    let personal = matches!(page.page_type, Some(LOCK_SCREEN | MEMBER_AREA_DENIED))
        || site_locked
        || unlocked_any
        || personal_commerce
        || role.is_some();
    let cache = if personal {
        "private, no-store"
    } else if !set_cookies.is_empty() || carries_crumb {
        "private, no-cache"
    } else {
        "no-cache"
    };
    let kept_said = app.kept_header.then_some(match (hit, kept_now) {
        (true, _) => "hit",
        (false, true) => "kept",
        (false, false) => "fresh",
    });
    let body = match chunks {
        Some(parts) => Body::new(kept::ChunksBody::new(parts)),
        None => Body::from(page.body),
    };
    respond(
        page.status,
        page.content_type,
        cache,
        set_cookies,
        page.location.as_deref(),
        page.page_type,
        kept_said,
        body,
    )
    .unwrap_or_else(error_page)
}

/// The page's response: its status and headers in this order, as `Response::builder()`
/// would make it (`None` where the builder would fail: a status or header value that is
/// not one), built straight into one header map of its size.
#[allow(clippy::too_many_arguments)]
fn respond(
    status: u16,
    content_type: &'static str,
    cache: &'static str,
    set_cookies: Vec<String>,
    location: Option<&str>,
    page_type: Option<u16>,
    kept: Option<&'static str>,
    body: Body,
) -> Option<Response> {
    use axum::http::{HeaderName, HeaderValue};
    let mut headers = HeaderMap::with_capacity(6 + set_cookies.len());
    headers.append(
        header::CONTENT_TYPE,
        HeaderValue::from_str(content_type).ok()?,
    );
    headers.append(header::CACHE_CONTROL, HeaderValue::from_str(cache).ok()?);
    headers.append(header::VARY, HeaderValue::from_static("Cookie"));
    // Each line handed over as it is (a `String` becomes the header's bytes without a copy).
    for c in set_cookies {
        headers.append(header::SET_COOKIE, HeaderValue::try_from(c).ok()?);
    }
    if let Some(location) = location {
        headers.append(header::LOCATION, HeaderValue::from_str(location).ok()?);
    }
    if let Some(t) = page_type {
        headers.append(HeaderName::from_static("x-page-type"), HeaderValue::from(t));
    }
    if let Some(said) = kept {
        headers.append(
            HeaderName::from_static("x-tessera-kept"),
            HeaderValue::from_static(said),
        );
    }
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::from_u16(status).ok()?;
    *response.headers_mut() = headers;
    Some(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The response as `Response::builder()` made it before [`respond`].
    #[allow(clippy::too_many_arguments)]
    fn by_the_builder(
        status: u16,
        content_type: &'static str,
        cache: &'static str,
        set_cookies: Vec<String>,
        location: Option<&str>,
        page_type: Option<u16>,
        kept: Option<&'static str>,
    ) -> Option<Response> {
        let mut r = Response::builder()
            .status(status)
            .header(header::CONTENT_TYPE, content_type)
            .header(header::CACHE_CONTROL, cache)
            .header(header::VARY, "Cookie");
        for c in set_cookies {
            r = r.header(header::SET_COOKIE, c);
        }
        if let Some(l) = location {
            r = r.header(header::LOCATION, l);
        }
        if let Some(t) = page_type {
            r = r.header("x-page-type", t.to_string());
        }
        if let Some(k) = kept {
            r = r.header("x-tessera-kept", k);
        }
        r.body(Body::empty()).ok()
    }

    /// A response's status and headers, in order.
    type Head = (StatusCode, Vec<(String, Vec<u8>)>);

    fn head(r: Option<Response>) -> Option<Head> {
        r.map(|r| {
            let h = r
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), v.as_bytes().to_vec()))
                .collect();
            (r.status(), h)
        })
    }

    #[test]
    fn a_pages_response_has_the_builders_status_and_headers_in_its_order() {
        let cookies = || {
            vec![
                "crumb=ab; SameSite=Lax; Path=/".to_string(),
                "ss_cvr=v1-ff".into(),
            ]
        };
        for (status, location, page_type, kept, cookies) in [
            (200, None, Some(2), None, cookies()),
            (200, None, None, Some("hit"), Vec::new()),
            (302, Some("/first?a=1"), Some(1), Some("kept"), cookies()),
            (404, None, Some(100), Some("fresh"), Vec::new()),
            (65535, None, Some(0), None, Vec::new()),
            (200, Some("/bad\nline"), Some(1), None, Vec::new()),
            (200, None, Some(1), None, vec!["a=b\r\nx: y".to_string()]),
        ] {
            let cache = "private, no-cache";
            let got = respond(
                status,
                "text/html; charset=utf-8",
                cache,
                cookies.clone(),
                location,
                page_type,
                kept,
                Body::empty(),
            );
            let want = by_the_builder(
                status,
                "text/html; charset=utf-8",
                cache,
                cookies,
                location,
                page_type,
                kept,
            );
            assert_eq!(head(got), head(want), "{status} {location:?}");
        }
    }
}
