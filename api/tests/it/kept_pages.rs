//! Kept renders of public pages (issue 46) over HTTP against the real binary, on both
//! backends: a page the same for every visitor is rendered once and then answered from the
//! kept render with the same bytes; an owner's edit (a page's title, a product's price), a
//! template switch and a scheduled product coming due show on the very next page; two
//! tenants never share one; unlocked content, a member's session, the owner and a cart the
//! templates may print more of than its summary are never answered from, nor stored into,
//! the kept renders. A page with a cart whose templates read only its quantity and subtotal
//! (the demo store's header) is kept under those: two visitors with different carts of the
//! same quantity and subtotal get the bytes a fresh render gives each, and a cart changed
//! by add-to-cart shows on the very next page. The server runs with
//! `--kept-pages-header`, which says in `x-tessera-kept` whether a page was a `hit`, `kept`
//! or `fresh`. (The cache's policy, query variants and its caps: `api::pages::kept`'s unit
//! tests.)

use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::{
    Backend, Response, Server, Visitor, cookie_header, folder_upload, item_id, poll_until, request,
};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const SKY: &str = "skyward.localhost";
const QUILL: &str = "quillback.localhost";
const QUILL_TOKEN: &str = "owner-token-of-quill-001";
const LOAM_TOKEN: &str = "owner-token-of-loam-0001";

on_both_backends!(
    a_kept_page_is_the_fresh_bytes,
    edits_switches_and_schedules_show_at_once,
    private_pages_never_meet_the_kept_renders,
    pages_with_a_cart_are_kept_by_what_they_read_of_it,
);

fn start(backend: Backend) -> Server {
    Server::start(
        backend,
        &[
            "--kept-pages-header",
            "--owner-token",
            &format!("quillback={QUILL_TOKEN}"),
            "--owner-token",
            &format!("loam-lantern={LOAM_TOKEN}"),
            "--cart-writes-per-minute",
            "100000",
        ],
    )
}

fn kept(r: &Response) -> &str {
    r.header("x-tessera-kept").unwrap_or("(none)")
}

/// A GET with these cookies.
fn get_with(server: &Server, host: &str, path: &str, jar: &BTreeMap<String, String>) -> Response {
    let cookie = cookie_header(jar);
    let headers: Vec<(&str, &str)> = if cookie.is_empty() {
        Vec::new()
    } else {
        vec![("Cookie", &cookie)]
    };
    request(server.port, "GET", host, path, &headers, "")
}

fn a_kept_page_is_the_fresh_bytes(backend: Backend) {
    let server = start(backend);
    let product = format!("/shop/{}", first_product());
    for (host, path) in [
        (LOAM, "/shop"),
        (LOAM, product.as_str()),
        (SKY, "/notes"),
        (SKY, "/"),
        (LOAM, "/shop?format=json"),
        (LOAM, "/shop?category=Planters"),
    ] {
        // A visitor with a crumb (their own on every cart form), and analytics' cookies.
        let mut v = Visitor::new(&server, host, "10.46.0.1");
        let first = v.get(path);
        assert_eq!(first.status, 200, "{host}{path}");
        assert_eq!(kept(&first), "kept", "{host}{path}: {}", first.head);
        // The same visitor again: the kept render, the same bytes as the fresh one.
        let jar = v.cookies.clone();
        let again = get_with(&server, host, path, &jar);
        let second = get_with(&server, host, path, &jar);
        assert_eq!(kept(&again), "hit", "{host}{path}");
        assert_eq!(kept(&second), "hit", "{host}{path}");
        assert_eq!(second.body, again.body, "{host}{path}");
        assert_eq!(
            second.header("cache-control"),
            again.header("cache-control")
        );
        assert_eq!(second.header("x-page-type"), first.header("x-page-type"));
        // Sent with its length, as a fresh page is (not chunked).
        let length = second.body.len().to_string();
        assert_eq!(second.header("content-length"), Some(length.as_str()));
        assert_eq!(first.header("transfer-encoding"), None);
        assert_eq!(second.header("transfer-encoding"), None);
    }
    // The same path on two tenants: each its own render.
    let loam = request(server.port, "GET", LOAM, "/", &[], "");
    let sky = request(server.port, "GET", SKY, "/about", &[], "");
    assert_eq!((loam.status, sky.status), (200, 200));
    let sky_home = request(server.port, "GET", SKY, "/", &[], "");
    let loam_home = request(server.port, "GET", LOAM, "/", &[], "");
    assert_eq!(kept(&loam_home), "hit");
    assert_ne!(
        strip_crumbs(&sky_home.body),
        strip_crumbs(&loam_home.body),
        "two tenants' home pages"
    );
    // A page that is not found is never kept (any path makes one).
    for _ in 0..2 {
        let r = request(server.port, "GET", LOAM, "/no-such-page-46", &[], "");
        assert_eq!((r.status, kept(&r)), (404, "fresh"));
    }
    // Bytes against a server that keeps nothing: the same page, crumbs aside.
    let plain = Server::start(server.backend.clone(), &["--no-kept-pages"]);
    for (host, path) in [(LOAM, "/shop"), (LOAM, product.as_str()), (SKY, "/notes")] {
        let a = request(server.port, "GET", host, path, &[], "");
        let b = request(plain.port, "GET", host, path, &[], "");
        assert_eq!(kept(&a), "hit", "{host}{path}");
        assert_eq!(b.header("x-tessera-kept"), None);
        assert_eq!(strip_crumbs(&a.body), strip_crumbs(&b.body), "{host}{path}");
    }
}

/// The page with each crumb (signed by each server's own secret) and visitor id written
/// the same.
fn strip_crumbs(page: &str) -> String {
    let mut out = String::new();
    let mut rest = page;
    let key = "name=\"crumb\" value=\"";
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        rest = &rest[at + key.len()..];
        let end = rest.find('"').unwrap_or(0);
        out.push_str("CRUMB");
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn first_product() -> String {
    let path = crate::support::root().join("fixtures/loam-lantern/collections/shop.json");
    let shop: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    shop["items"][0]["urlId"].as_str().unwrap().to_owned()
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Twice, so the second is the kept render; its body.
fn page_twice(server: &Server, host: &str, path: &str) -> String {
    request(server.port, "GET", host, path, &[], "");
    let r = request(server.port, "GET", host, path, &[], "");
    assert_eq!(r.status, 200, "{host}{path}");
    assert_eq!(kept(&r), "hit", "{host}{path}");
    r.body
}

fn edits_switches_and_schedules_show_at_once(backend: Backend) {
    let server = start(backend);
    let quill = |method: &str, path: &str, body: Value| {
        server.owner_call(QUILL, QUILL_TOKEN, method, path, &body)
    };
    let loam = |method: &str, path: &str, body: Value| {
        server.owner_call(LOAM, LOAM_TOKEN, method, path, &body)
    };

    // A page's title.
    let before = page_twice(&server, QUILL, "/about");
    assert!(!before.contains("Kept Pages Story"));
    let all = quill("GET", "/api/owner/pages", Value::Null).json();
    let about = all["pages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["urlId"] == "about")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = quill(
        "PATCH",
        &format!("/api/owner/collections/{about}"),
        json!({"title": "Kept Pages Story"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let after = request(server.port, "GET", QUILL, "/about", &[], "");
    assert!(after.body.contains("Kept Pages Story"), "{}", after.body);
    assert_eq!(kept(&after), "kept");

    // A product's price.
    let r = loam("GET", "/api/owner/product-form", Value::Null);
    let store = r.json()["stores"][0]["id"].as_str().unwrap().to_owned();
    let r = loam(
        "POST",
        &format!("/api/owner/collections/{store}/items"),
        json!({"urlId": "kept-vase", "title": "Kept Vase",
               "variants": [{"sku": "kept-vase-1", "price": "19.00", "stock": 5}]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let vase = r.json()["id"].as_str().unwrap().to_owned();
    let before = page_twice(&server, LOAM, "/shop/kept-vase");
    assert!(!before.contains("123.45") && !before.contains("123,45"));
    let shop_before = page_twice(&server, LOAM, "/shop");
    assert!(shop_before.contains("kept-vase"));
    let r = loam(
        "PATCH",
        &format!("/api/owner/items/{vase}"),
        json!({"variants": [{"sku": "kept-vase-1", "price": "123.45", "stock": 5}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    for path in ["/shop/kept-vase", "/shop"] {
        let r = request(server.port, "GET", LOAM, path, &[], "");
        assert!(
            r.body.contains("123.45") || r.body.contains("123,45"),
            "{path}: {}",
            r.body
        );
    }

    // A template switch.
    let about_before = page_twice(&server, LOAM, "/shop");
    assert!(!about_before.contains("kept-pages-mark"));
    let folder = crate::support::root().join("fixtures/loam-lantern/template");
    let mut files = folder_upload(&folder);
    let footer = files
        .iter_mut()
        .find(|f| f["path"] == "regions/footer.region")
        .unwrap();
    let text = footer["text"].as_str().unwrap().to_owned();
    footer["text"] = json!(format!("{text}<p class=\"kept-pages-mark\">v2</p>"));
    let r = loam(
        "POST",
        "/api/owner/template/versions",
        json!({ "files": files }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let two = r.json()["templateVersion"].as_i64().unwrap();
    let r = loam(
        "POST",
        &format!("/api/owner/template/versions/{two}/switch"),
        Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = request(server.port, "GET", LOAM, "/shop", &[], "");
    assert!(r.body.contains("kept-pages-mark"), "{}", r.body);

    // A scheduled product, due in a moment: on the kept list once due.
    let soon = now_ms() + 3_000;
    let r = loam(
        "POST",
        &format!("/api/owner/collections/{store}/items"),
        json!({"urlId": "soon-kept-vase", "title": "Soon Kept Vase",
               "visibility": "scheduled", "publishOn": soon,
               "variants": [{"sku": "soon-kept-vase-1", "price": "19.00", "stock": 5}]}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let listed = page_twice(&server, LOAM, "/shop");
    assert!(!listed.contains("soon-kept-vase"));
    let shown = poll_until(
        Duration::from_secs(20),
        "the scheduled product on the list",
        || request(server.port, "GET", LOAM, "/shop", &[], "").body,
        |b| b.contains("soon-kept-vase"),
    );
    assert!(now_ms() >= soon, "shown before it was due");
    assert!(shown.0.contains("Soon Kept Vase"));
}

fn private_pages_never_meet_the_kept_renders(backend: Backend) {
    let server = start(backend);
    let product = format!("/shop/{}", first_product());

    // A visitor with a cart: their pages are kept under what the page shows of the cart
    // (below), never answered to a visitor without one.
    let mut buyer = Visitor::arrive(&server, LOAM, "10.46.0.2");
    let apron = item_id("loam-lantern", "linen-potting-apron");
    let r = buyer.post(
        "/api/commerce/shopping-cart/entries",
        json!({ "itemId": apron, "sku": "LPA-L-OAT", "quantity": 1 }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    for (path, said) in [
        (product.as_str(), "kept"),
        ("/shop", "kept"),
        (product.as_str(), "hit"),
        ("/shop", "hit"),
    ] {
        let r = buyer.get(path);
        assert_eq!((r.status, kept(&r)), (200, said), "{path}");
        assert_eq!(r.header("cache-control"), Some("private, no-store"));
    }
    let anyone = request(server.port, "GET", LOAM, &product, &[], "");
    assert_eq!(kept(&anyone), "kept", "the cart's page is not anyone's");
    let r = buyer.get(&product);
    assert_eq!(kept(&r), "hit");
    assert_ne!(strip_crumbs(&r.body), strip_crumbs(&anyone.body));
    // With a member's session or as the owner, a cart's page is theirs: fresh.
    let mut jar = buyer.cookies.clone();
    jar.insert("tessera-member".into(), "anything".into());
    for _ in 0..2 {
        let r = get_with(&server, LOAM, &product, &jar);
        assert_eq!((r.status, kept(&r)), (200, "fresh"));
    }
    let auth = format!("Bearer {LOAM_TOKEN}");
    let cookie = cookie_header(&buyer.cookies);
    for _ in 0..2 {
        let r = request(
            server.port,
            "GET",
            LOAM,
            &product,
            &[
                ("Authorization", auth.as_str()),
                ("Cookie", cookie.as_str()),
            ],
            "",
        );
        assert_eq!((r.status, kept(&r)), (200, "fresh"));
    }

    // Unlocked content: skyward's members page and every other page for that visitor.
    let locked = request(server.port, "GET", SKY, "/members", &[], "");
    assert_eq!(locked.header("x-page-type"), Some("103"));
    assert_eq!(kept(&locked), "fresh", "a lock screen is not kept");
    let r = request(
        server.port,
        "POST",
        SKY,
        "/api/lock-screen/unlock",
        &[("Content-Type", "application/x-www-form-urlencoded")],
        "collectionId=af2a18ab75a8ac13727dabef&password=orion&redirect=%2Fmembers",
    );
    assert_eq!(r.status, 303, "{}", r.head);
    let cookie = r
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    for path in ["/members", "/notes", "/members", "/notes"] {
        let r = request(server.port, "GET", SKY, path, &[("Cookie", &cookie)], "");
        assert_eq!((r.status, kept(&r)), (200, "fresh"), "{path}");
    }
    let r = request(server.port, "GET", SKY, "/members", &[], "");
    assert_eq!(
        r.header("x-page-type"),
        Some("103"),
        "the unlocked page was not stored"
    );
    let r = request(server.port, "GET", SKY, "/notes", &[], "");
    assert_eq!(
        kept(&r),
        "kept",
        "the unlocked visitor's page was not stored"
    );

    // A member's session (signed in or not): fresh.
    for _ in 0..2 {
        let r = request(
            server.port,
            "GET",
            SKY,
            "/",
            &[("Cookie", "tessera-member=anything")],
            "",
        );
        assert_eq!((r.status, kept(&r)), (200, "fresh"));
    }
    let r = request(server.port, "GET", SKY, "/", &[], "");
    assert_eq!(kept(&r), "kept", "the member's page was not stored");

    // The owner (their banner, the editor's frame): fresh, and their page is not stored.
    let auth = format!("Bearer {QUILL_TOKEN}");
    for _ in 0..2 {
        let r = request(
            server.port,
            "GET",
            QUILL,
            "/",
            &[("Authorization", auth.as_str())],
            "",
        );
        assert_eq!((r.status, kept(&r)), (200, "fresh"));
    }
    let r = request(server.port, "GET", QUILL, "/", &[], "");
    assert_eq!(kept(&r), "kept", "the owner's page was not stored");
    let r = request(
        server.port,
        "GET",
        QUILL,
        "/",
        &[("Authorization", auth.as_str())],
        "",
    );
    assert_eq!(kept(&r), "fresh", "the owner never gets the kept page");
}

/// A visitor of `server` whose cart holds these (sku, quantity) of the apron and the pot.
fn with_cart(server: &Server, ip: &str, lines: &[(&str, i64)]) -> Visitor {
    let mut v = Visitor::arrive(server, LOAM, ip);
    for (sku, quantity) in lines {
        let item = if sku.starts_with("LPA") {
            item_id("loam-lantern", "linen-potting-apron")
        } else {
            item_id("loam-lantern", "fern-terracotta-pot")
        };
        let r = v.post(
            "/api/commerce/shopping-cart/entries",
            json!({ "itemId": item, "sku": sku, "quantity": quantity }),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    v
}

fn pages_with_a_cart_are_kept_by_what_they_read_of_it(backend: Backend) {
    // The server that keeps nothing on a store of its own: the carts below hold stock,
    // which the product pages show.
    let own = match &backend {
        Backend::Embedded => Backend::Embedded,
        Backend::Postgres(_) => Backend::postgres(),
    };
    let server = start(backend);
    let plain = Server::start(
        own,
        &["--no-kept-pages", "--cart-writes-per-minute", "100000"],
    );
    let product = format!("/shop/{}", first_product());
    // Two carts of two aprons at 42.00: other variants, other entries, the same quantity
    // and subtotal, which is all the demo header prints of a cart; a third of two pots.
    let a_lines: &[(&str, i64)] = &[("LPA-L-OAT", 2)];
    let b_lines: &[(&str, i64)] = &[("LPA-S-OAT", 1), ("LPA-L-OAT", 1)];
    let c_lines: &[(&str, i64)] = &[("FTP-S", 2)];
    let mut a = with_cart(&server, "10.46.1.1", a_lines);
    let mut b = with_cart(&server, "10.46.1.2", b_lines);
    let mut c = with_cart(&server, "10.46.1.3", c_lines);
    for path in [product.as_str(), "/shop"] {
        let pa = a.get(path);
        assert_eq!((pa.status, kept(&pa)), (200, "kept"), "{path}");
        assert!(
            pa.body
                .contains("<span class=\"sqs-cart-quantity\">2</span>"),
            "{}",
            pa.body
        );
        // The other visitor with the same quantity and subtotal: the kept render.
        let pb = b.get(path);
        assert_eq!((pb.status, kept(&pb)), (200, "hit"), "{path}");
        // Two pots: another subtotal, another render.
        let pc = c.get(path);
        assert_eq!((pc.status, kept(&pc)), (200, "kept"), "{path}");
        assert_ne!(strip_crumbs(&pc.body), strip_crumbs(&pa.body), "{path}");
        // Each is what a server that keeps nothing renders for the same cart.
        for (page, lines, ip) in [
            (&pa, a_lines, "10.46.2.1"),
            (&pb, b_lines, "10.46.2.2"),
            (&pc, c_lines, "10.46.2.3"),
        ] {
            let mut fresh = with_cart(&plain, ip, lines);
            let want = fresh.get(path);
            assert_eq!(want.header("x-tessera-kept"), None);
            assert_eq!(strip_crumbs(&page.body), strip_crumbs(&want.body), "{path}");
            assert_eq!(page.header("cache-control"), want.header("cache-control"));
        }
    }
    // A cart changed by add-to-cart shows on the very next page.
    let r = b.post(
        "/api/commerce/shopping-cart/entries",
        json!({ "itemId": item_id("loam-lantern", "linen-potting-apron"), "sku": "LPA-S-OAT", "quantity": 1 }),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let pb = b.get(&product);
    assert!(
        pb.body
            .contains("<span class=\"sqs-cart-quantity\">3</span>"),
        "{}",
        pb.body
    );
    assert_eq!(kept(&pb), "kept");
    let again = b.get(&product);
    assert_eq!(kept(&again), "hit");
    assert_eq!(strip_crumbs(&again.body), strip_crumbs(&pb.body));
    let pa = a.get(&product);
    assert!(
        pa.body
            .contains("<span class=\"sqs-cart-quantity\">2</span>")
    );

    // A template whose header prints the cart's entries: a page with a cart is never kept.
    let folder = crate::support::root().join("fixtures/loam-lantern/template");
    let mut files = folder_upload(&folder);
    let header = files
        .iter_mut()
        .find(|f| f["path"] == "regions/header.region")
        .unwrap();
    let text = header["text"].as_str().unwrap().to_owned();
    let lines = "{.section shoppingCart}{.repeated section entries}<i class=\"cart-line\">{chosenVariant.sku}</i>{.end}{.end}";
    header["text"] = json!(text.replacen("</header>", &format!("{lines}</header>"), 1));
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "POST",
        "/api/owner/template/versions",
        &json!({ "files": files }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let version = r.json()["templateVersion"].as_i64().unwrap();
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "POST",
        &format!("/api/owner/template/versions/{version}/switch"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // Each visitor their own lines, every time (a and b had the same page before).
    for (v, sku) in [(&mut a, "LPA-L-OAT"), (&mut b, "LPA-S-OAT")] {
        for _ in 0..2 {
            let r = v.get(&product);
            assert_eq!((r.status, kept(&r)), (200, "fresh"));
            assert!(
                r.body
                    .contains(&format!("<i class=\"cart-line\">{sku}</i>")),
                "{}",
                r.body
            );
        }
    }
    let r = a.get(&product);
    assert!(
        !r.body.contains("<i class=\"cart-line\">LPA-S-OAT</i>"),
        "{}",
        r.body
    );
    // A visitor without a cart still gets the kept page, without anyone's lines.
    request(server.port, "GET", LOAM, &product, &[], "");
    let anyone = request(server.port, "GET", LOAM, &product, &[], "");
    assert_eq!(kept(&anyone), "hit");
    assert!(!anyone.body.contains("cart-line\">L"), "{}", anyone.body);
}
