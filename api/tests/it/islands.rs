//! The browser islands over HTTP against the real `tessera serve`, on the embedded store and
//! on PostgreSQL: which pages get the loader (island markup or a cart, and nothing else), the
//! page data the islands read, and how the built files are served. (What the islands do in a
//! browser is tested in Chromium: client/e2e/store.mjs.)

use crate::support::{Backend, Server, Visitor, get, item_id};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const SKYWARD: &str = "skyward.localhost";
const PREFIX: &str = "/_tessera/islands/";

/// The `src` of the page's loader module script, if it has one.
fn loader_src(body: &str) -> Option<String> {
    let at = body.find(r#"<script type="module" src=""#)?;
    let rest = &body[at + r#"<script type="module" src=""#.len()..];
    Some(rest[..rest.find('"')?].to_string())
}

/// The page data (`<script type="application/json" id="tessera-data">`).
fn page_data(body: &str) -> Option<Value> {
    let open = r#"<script type="application/json" id="tessera-data">"#;
    let at = body.find(open)? + open.len();
    let end = body[at..].find("</script>")?;
    Some(serde_json::from_str(&body[at..at + end]).expect("the page data is JSON"))
}

fn islands(backend: Backend) {
    let server = Server::start(backend, &[]);
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.80");

    // A product page has island markup: the loader, as a module (never render-blocking), in
    // the head, with the stylesheet and the page data; no placeholder is left behind.
    let page = v.get("/shop/linen-potting-apron");
    assert_eq!(page.status, 200);
    let head = &page.body[..page.body.find("</head>").expect("a head")];
    let loader = loader_src(head).expect("the product page loads the islands in its head");
    assert!(loader.starts_with(PREFIX), "{loader}");
    assert!(head.contains(&format!(r#"<link rel="stylesheet" href="{PREFIX}styles-"#)));
    assert!(!page.body.contains("tessera:islands"));
    // The page data: the store's terms, no cart, the product's instalment pill (at its
    // price, €42, in 4 payments, within the store's €1-€1,000), and, since one of its
    // variants is sold out and so has a restock sign-up, the owner's success text; and, with
    // analytics on, that the server counted the page (the island reports its errors and
    // performance).
    let apron = item_id("loam-lantern", "linen-potting-apron");
    assert_eq!(
        page_data(head).unwrap(),
        json!({ "currency": "EUR", "locale": "en-US", "expressCheckout": false, "cart": null,
                "instalments": { apron.clone(): {
                    "provider": "afterpay", "brand": "Afterpay", "eligible": true, "payments": 4,
                    "minimumCents": 100, "maximumCents": 100000, "inRange": true,
                    "installmentCents": 1050, "text": "or €10.50 with" } },
                "analytics": { "track": true, "pageType": 50 },
                "restockSuccessText": "Thanks! We'll email you once, when it's back." })
    );
    // Digital goods get no pill, and nothing of them is sold out.
    let guide = v.get("/shop/houseplant-care-guide");
    let data = page_data(&guide.body).unwrap();
    assert!(data.get("instalments").is_none() && data.get("restockSuccessText").is_none());
    // A product list has Quick View links: it gets the islands too, without pills.
    let list = v.get("/shop");
    assert!(list.body.contains("sqs-product-quick-view-button"));
    assert!(loader_src(&list.body).is_some());
    assert!(page_data(&list.body).unwrap().get("instalments").is_none());

    // A page with no island markup and no cart gets no script and no page data.
    let plain = get(server.port, SKYWARD, "/");
    assert_eq!(plain.status, 200);
    assert_eq!(loader_src(&plain.body), None);
    assert!(!plain.body.contains(PREFIX) && !plain.body.contains("tessera:islands"));

    // With something in the cart, the page data carries its summary (the pill shows without
    // a call), on product pages and pages without island markup alike.
    let r = v.post(
        "/api/commerce/shopping-cart/entries",
        json!({ "itemId": apron, "sku": "LPA-L-OAT", "quantity": 2 }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let cart = json!({ "totalQuantity": 2.0, "subtotalCents": 8400.0, "currency": "EUR" });
    let page = v.get("/shop/linen-potting-apron");
    assert_eq!(page_data(&page.body).unwrap()["cart"], cart);
    // Another tenant's pages know nothing of it.
    let mut elsewhere = Visitor::arrive(&server, SKYWARD, "203.0.113.80");
    elsewhere.cookies.extend(v.cookies.clone());
    assert_eq!(loader_src(&elsewhere.get("/").body), None);

    // The built files: JavaScript and CSS with their types, kept by browsers for good (the
    // names carry their content's hash), compressed when asked; anything else is a 404.
    let js = get(server.port, LOAM, &loader);
    assert_eq!(js.status, 200);
    assert_eq!(
        js.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(
        js.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert!(
        js.body.contains("import("),
        "the loader imports islands on demand"
    );
    let gz = crate::support::request(
        server.port,
        "GET",
        LOAM,
        &loader,
        &[("Accept-Encoding", "gzip")],
        "",
    );
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    for missing in ["nope.js", "../Cargo.toml", "loader.js"] {
        let r = get(server.port, LOAM, &format!("{PREFIX}{missing}"));
        assert_eq!(r.status, 404, "{missing}");
    }
}

/// A trial site (quillback) shows its plan status to its owner (a request with one of its
/// owner tokens) on every page, through the islands, and the banner's upgrade link answers;
/// its visitors never get the banner, and a paid site's page without islands has no script.
fn plan_status(backend: Backend) {
    let server = Server::start(backend, &[]);
    let mut q = Visitor::arrive(&server, "quillback.localhost", "203.0.113.81");
    let page = q.get("/visit");
    assert_eq!(page.status, 200);
    let data = page_data(&page.body);
    assert!(
        data.as_ref()
            .is_none_or(|d| d.get("websiteStatus").is_none()),
        "a visitor gets no trial banner: {data:?}"
    );
    let token = server.owner_token("quillback", "viewer");
    let owner = crate::support::request(
        server.port,
        "GET",
        "quillback.localhost",
        "/visit",
        &[("Authorization", &format!("Bearer {token}"))],
        "",
    );
    assert_eq!(owner.status, 200);
    assert!(
        loader_src(&owner.body).is_some(),
        "a trial site's page loads the islands for its owner"
    );
    assert_eq!(page_data(&owner.body).unwrap()["websiteStatus"], 3);
    assert_eq!(owner.header("cache-control"), Some("private, no-store"));
    let stranger = crate::support::request(
        server.port,
        "GET",
        "quillback.localhost",
        "/visit",
        &[("Authorization", "Bearer not-a-token")],
        "",
    );
    assert!(
        page_data(&stranger.body).is_none_or(|d| d.get("websiteStatus").is_none()),
        "an unknown token is a visitor"
    );
    for path in [
        "/settings/billing/upgrade",
        "/settings/billing/subscriptions/website",
    ] {
        let r = q.get(path);
        assert_eq!(r.status, 200, "{path}");
        assert!(
            r.body
                .contains("Plans and billing for this site are handled by whoever hosts it."),
            "{path}"
        );
    }
    let mut s = Visitor::arrive(&server, "skyward.localhost", "203.0.113.82");
    let plain = s.get("/");
    assert!(loader_src(&plain.body).is_none() && page_data(&plain.body).is_none());
}

on_both_backends!(islands, plan_status);
