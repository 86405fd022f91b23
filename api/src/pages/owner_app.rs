//! The owner app's HTML shell at `/config` and every path under it (SPEC.md §2: `/config/`
//! marks configuration areas), on every site's own host. It is the same page whatever the
//! path (the app routes in the browser), never cached, never indexed, with a policy that
//! runs the server's own scripts only, and nothing of the site's: no template, no islands,
//! no analytics (a `/config` page is never tracked, `crate::analytics::page_views`).
//!
//! The app itself (its scripts and styles under `/config/assets/`) is embedded by the
//! client's build; until then the shell is a placeholder that names the site.

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::http::site::Resolved;
use crate::http::small_page::{escape, no_site};

/// The app's route, and the pattern of every path under it.
pub const PATH: &str = "/config";
pub const PATHS: &str = "/config/{*rest}";

/// Whether `path` is the app's (`/config` or under it).
pub fn is_app_path(path: &str) -> bool {
    path == PATH || path.starts_with("/config/")
}

/// The shell's own policy (stricter than a site page's): scripts, styles, images, fonts
/// and calls from the site itself; no inline code, no plugins, no framing, forms and
/// `<base>` kept home.
pub const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; manifest-src 'self'; \
     form-action 'self'; base-uri 'none'; frame-ancestors 'none'; object-src 'none'";

/// `GET /config…`: the shell, for a host of a site (a plain 404 for any other).
pub async fn shell(found: Resolved) -> Response {
    let site = match found.0 {
        Ok(site) => site,
        Err(why) => return no_site(why),
    };
    let title = escape(crate::email::site_title_of(&site));
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex, nofollow\"><link rel=\"icon\" href=\"data:,\">\
         <title>{title} · Owner</title></head>\
         <body><div id=\"owner-app\" data-site=\"{title}\"><main><h1>{title}</h1>\
         <p>The owner app is on its way. Until it is here, sign in with \
         <code>POST /api/owner/session</code>.</p></main></div></body></html>\n"
    );
    let mut r = Response::new(Body::from(html));
    *r.status_mut() = StatusCode::OK;
    let h = r.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::X_FRAME_OPTIONS, "DENY"),
        // Links into the app carry one-time tokens in their query: no other site sees them.
        (header::REFERRER_POLICY, "no-referrer"),
        (
            header::HeaderName::from_static("x-robots-tag"),
            "noindex, nofollow",
        ),
    ] {
        h.insert(name, HeaderValue::from_static(value));
    }
    r
}
