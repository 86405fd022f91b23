//! The owner's app at `/config` over HTTP against the real `tessera serve`, on the embedded
//! store and on PostgreSQL: the shell's headers and markup on every path under `/config`, and
//! the app's built files (entry, stylesheet, a screen's chunk) served like the islands'.
//! (What the app does in a browser is tested by client/test/admin-*.test.tsx.)

use crate::support::{Backend, Server, get};

const LOAM: &str = "loam-lantern.localhost";
const PREFIX: &str = "/_tessera/islands/";

/// The value of the first `attr="…"` after `after` in `html`.
fn attr_after<'a>(html: &'a str, after: &str, attr: &str) -> Option<&'a str> {
    let at = html.find(after)?;
    let rest = &html[at..];
    let open = format!("{attr}=\"");
    let start = rest.find(&open)? + open.len();
    Some(&rest[start..start + rest[start..].find('"')?])
}

fn config(backend: Backend) {
    let server = Server::start(backend, &[]);
    let mut entry = None;
    for path in [
        "/config",
        "/config/",
        "/config/orders/4f2a?payment=paid",
        "/config/set-password?token=abc",
    ] {
        let r = get(server.port, LOAM, path);
        assert_eq!(r.status, 200, "{path}: {}", r.body);
        assert_eq!(
            r.header("content-type"),
            Some("text/html; charset=utf-8"),
            "{path}"
        );
        assert_eq!(r.header("cache-control"), Some("no-store"), "{path}");
        assert_eq!(
            r.header("x-robots-tag"),
            Some("noindex, nofollow"),
            "{path}"
        );
        // Links into the app carry one-time tokens: the shell sends no referrer.
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"), "{path}");
        // No visitor, crumb or analytics cookie: the shell is not a site page.
        assert!(r.header("set-cookie").is_none(), "{path}");
        assert_eq!(r.header("x-frame-options"), Some("DENY"), "{path}");
        let csp = r.header("content-security-policy").expect("a policy");
        assert!(csp.contains("script-src 'self';"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        // The editor frames the site's own pages, and nothing from anywhere else.
        assert!(csp.contains("frame-src 'self';"), "{csp}");
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("sha256-"),
            "{csp}"
        );
        assert!(
            r.body
                .contains(r#"<meta name="robots" content="noindex, nofollow">"#)
        );
        // The site's title, escaped.
        assert!(
            r.body.contains("<title>Loam &amp; Lantern</title>"),
            "{}",
            r.body
        );
        // No islands, no page data, no analytics, nothing inline.
        assert!(!r.body.contains("/_tessera/islands/loader-") && !r.body.contains("tessera-data"));
        assert!(!r.body.contains("<script>") && !r.body.contains("<style>"));
        let src = attr_after(&r.body, "<script type=\"module\"", "src").expect("the app's entry");
        assert!(
            src.starts_with(&format!("{PREFIX}admin/main-")) && src.ends_with(".js"),
            "{src}"
        );
        entry = Some((
            src.to_owned(),
            attr_after(&r.body, "rel=\"stylesheet\"", "href")
                .unwrap()
                .to_owned(),
        ));
    }
    // Not under /config: not the shell.
    let other = get(server.port, LOAM, "/configuration");
    assert!(!other.body.contains("data-site-title"), "{}", other.status);
    // Another site's shell has its own title; an unknown host has none.
    let sky = get(server.port, "skyward.localhost", "/config");
    assert_eq!(sky.status, 200);
    assert!(!sky.body.contains("Loam"));
    assert_eq!(get(server.port, "nobody.localhost", "/config").status, 404);

    // The app's files: the entry and its stylesheet, kept for good, and a screen's chunk
    // that the entry imports on demand.
    let (js, css) = entry.unwrap();
    let main = get(server.port, LOAM, &js);
    assert_eq!(main.status, 200);
    assert_eq!(
        main.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(
        main.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    let style = get(server.port, LOAM, &css);
    assert_eq!(style.status, 200);
    assert!(
        css.starts_with(&format!("{PREFIX}admin/main-")) && css.ends_with(".css"),
        "{css}"
    );
    assert_eq!(
        style.header("content-type"),
        Some("text/css; charset=utf-8")
    );
    let at = main.body.find("chunks/").expect("the entry imports chunks");
    let end = at + main.body[at..].find(".js").expect("a chunk's name") + 3;
    let chunk = get(
        server.port,
        LOAM,
        &format!("{PREFIX}admin/{}", &main.body[at..end]),
    );
    assert_eq!(chunk.status, 200, "{}", &main.body[at..end]);
    assert_eq!(
        chunk.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
}

on_both_backends!(config);
