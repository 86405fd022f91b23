//! The owner's app (`client/src/admin/`): `GET /config` and every path under it answer the
//! same HTML shell, and the app's router (in the browser) reads the path. The shell names
//! the app's entry module and stylesheet, which `build.rs` built and embedded with the
//! islands and which are served, with their content hash in their names, from
//! [`crate::pages::islands::PREFIX`] (`admin/…`).
//!
//! The shell is never cached (`no-store`) and never indexed (`noindex`, in the markup and
//! `X-Robots-Tag`); its policy is stricter than a page's ([`POLICY`]): scripts, styles and
//! connections from the site's own origin only, nothing inline, frames of the site's own
//! pages only (the editor's live-site frame, which the pages allow: `frame-ancestors
//! 'self'`), not framed itself. It has no analytics and no islands (it does not go through
//! the page pipeline, so no view is counted: SPEC.md §2, `/config/` is configuration). The site's title is its `<title>`
//! (and `data-site-title`, which the app reads before anyone signs in).

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use crate::http::site::Resolved;
use crate::http::small_page::{escape, no_site, page};
use crate::pages::islands::{PREFIX, built};

/// Where the app is.
pub const PATH: &str = "/config";

/// The shell's `Content-Security-Policy`.
pub const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; manifest-src 'self'; \
     frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `/config/`, which the router's `/config/{*path}` does not take.
pub const SLASH: &str = "/config/";
/// Every path under `/config/`: the app's own routes.
pub const ANY: &str = "/config/{*path}";

/// The shell's HTML for a site titled `title`, loading `entry` and `styles` (names under
/// [`PREFIX`]).
pub fn html(title: &str, entry: &str, styles: Option<&str>) -> String {
    let title = escape(title);
    let styles = styles
        .map(|s| format!("<link rel=\"stylesheet\" href=\"{PREFIX}{}\">", escape(s)))
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex, nofollow\"><link rel=\"icon\" href=\"data:,\">\
         <title>{title}</title>{styles}\
         <script type=\"module\" src=\"{PREFIX}{}\"></script></head>\
         <body><div id=\"app\" data-site-title=\"{title}\"><noscript>The owner's app \
         needs JavaScript.</noscript></div></body></html>\n",
        escape(entry)
    )
}

/// `GET /config…`: the shell, for a host of a site (a plain 404 for any other).
pub async fn shell(Resolved(found): Resolved) -> Response {
    let site = match found {
        Ok(site) => site,
        Err(why) => return no_site(why),
    };
    let mut r = match built::ADMIN_ENTRY {
        Some(entry) => {
            let title = crate::email::site_title_of(&site);
            let mut r = Response::new(Body::from(html(title, entry, built::ADMIN_STYLES)));
            r.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            r
        }
        // Built without Node (or with TESSERA_NO_ISLANDS): there is no app to load.
        None => page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Owner app unavailable",
            "<h1>Owner app unavailable</h1><p>This server was built without its browser \
             code (Node was missing when it was built), so the owner's app is not here.</p>",
        ),
    };
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        "x-robots-tag",
        HeaderValue::from_static("noindex, nofollow"),
    );
    // Links into the app carry one-time tokens in their query: no other site sees them.
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if built::ADMIN_ENTRY.is_some() {
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(POLICY),
        );
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_escapes_the_title_and_loads_the_app() {
        let html = html(
            "Loam & <Lantern>",
            "admin/main-AB12.js",
            Some("admin/main-CD34.css"),
        );
        assert!(html.contains("<title>Loam &amp; &lt;Lantern&gt;</title>"));
        assert!(html.contains("data-site-title=\"Loam &amp; &lt;Lantern&gt;\""));
        assert!(html.contains(
            "<script type=\"module\" src=\"/_tessera/islands/admin/main-AB12.js\"></script>"
        ));
        assert!(html.contains("href=\"/_tessera/islands/admin/main-CD34.css\""));
        assert!(html.contains("<meta name=\"robots\" content=\"noindex, nofollow\">"));
        assert!(!html.contains("<script>"), "nothing inline");
    }
}
