//! A product's visibility over HTTP on both backends: a hidden product (a draft) is on no
//! page, list, `?format=json`, search or stock call of its site and cannot be added to a
//! cart; one hidden after a visitor added it is refused at checkout; a scheduled product
//! shows from its `publishOn` on (one due a moment later appears without any content
//! change); the owner routes say it by field, the owner list shows it; a role without the
//! store's write, another site and a session without its CSRF token are refused.

use std::time::Duration;

use crate::support::{Backend, Server, Visitor, poll_until, request};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";

on_both_backends!(
    hidden_and_scheduled_products_are_not_on_the_site,
    visibility_by_field_roles_sites_and_sessions,
);

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// The shop's item collection path.
fn shop(server: &Server, token: &str) -> String {
    let r = server.owner_call(LOAM, token, "GET", "/api/owner/product-form", &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let id = r.json()["stores"][0]["id"].as_str().unwrap().to_owned();
    format!("/api/owner/collections/{id}/items")
}

/// Makes a product with `extra` keys; its id.
fn product(server: &Server, token: &str, url_id: &str, title: &str, extra: Value) -> String {
    let items = shop(server, token);
    let mut body = json!({"urlId": url_id, "title": title,
        "variants": [{"sku": format!("{url_id}-1"), "price": "19.00", "stock": 5}]});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = server.owner_call(LOAM, token, "POST", &items, &body);
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_owned()
}

/// The owner list's row of the product titled `title`.
fn row(server: &Server, token: &str, q: &str) -> Value {
    let r = server.owner_call(
        LOAM,
        token,
        "GET",
        &format!("/api/owner/products?q={q}"),
        &Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["products"][0].clone()
}

fn status(server: &Server, path: &str) -> u16 {
    request(server.port, "GET", LOAM, path, &[], "").status
}

fn body(server: &Server, path: &str) -> String {
    let r = request(server.port, "GET", LOAM, path, &[], "");
    assert_eq!(r.status, 200, "{path}: {}", r.head);
    r.body
}

fn hidden_and_scheduled_products_are_not_on_the_site(backend: Backend) {
    let server = Server::start(backend, &["--checkouts-per-minute", "100000"]);
    let manager = server.owner_token("loam-lantern", "store-manager");
    let now = now_ms();

    // Hidden: a draft the owner sees and the site does not.
    let hidden = product(
        &server,
        &manager,
        "zephyr-vase",
        "Zephyr Vase",
        json!({"visibility": "hidden"}),
    );
    let r = server.owner_call(
        LOAM,
        &manager,
        "GET",
        &format!("/api/owner/items/{hidden}"),
        &Value::Null,
    );
    assert_eq!(r.json()["visibility"], "hidden", "{}", r.body);
    let listed = row(&server, &manager, "zephyr");
    assert_eq!(
        (&listed["visibility"], &listed["visible"]),
        (&json!("hidden"), &json!(false))
    );
    assert!(listed.get("publishOnMs").is_none(), "{listed}");
    assert_eq!(status(&server, "/shop/zephyr-vase"), 404);
    assert_eq!(status(&server, "/shop/zephyr-vase?format=json"), 404);
    for path in ["/shop", "/shop?format=json", "/search?q=Zephyr", "/"] {
        let page = body(&server, path);
        assert!(!page.contains("zephyr-vase"), "{path} shows the draft");
        assert!(!page.contains(&hidden), "{path} names the draft");
    }
    let mut visitor = Visitor::arrive(&server, LOAM, "10.9.0.1");
    let r = visitor.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": hidden, "sku": "zephyr-vase-1", "quantity": 1}),
    );
    assert_eq!(
        (r.status, r.message()),
        (404, "This product does not exist.".to_owned())
    );
    let r = visitor.get(&format!("/api/commerce/inventory/stock?itemId={hidden}"));
    assert_eq!(r.status, 404, "{}", r.body);

    // Scheduled in the past: shown; in an hour: not yet, and the list says when.
    product(
        &server,
        &manager,
        "past-vase",
        "Past Vase",
        json!({"visibility": "scheduled", "publishOn": now - 60_000}),
    );
    assert_eq!(status(&server, "/shop/past-vase"), 200);
    assert!(body(&server, "/shop?format=json").contains("past-vase"));
    let later = now + 3_600_000;
    product(
        &server,
        &manager,
        "later-vase",
        "Later Vase",
        json!({"visibility": "scheduled", "publishOn": later}),
    );
    assert_eq!(status(&server, "/shop/later-vase"), 404);
    assert!(!body(&server, "/shop?format=json").contains("later-vase"));
    let listed = row(&server, &manager, "later");
    assert_eq!(
        (
            &listed["visibility"],
            &listed["visible"],
            &listed["publishOnMs"]
        ),
        (&json!("scheduled"), &json!(false), &json!(later))
    );

    // Due in a moment: it appears then by itself, with no change to the content.
    let soon = now_ms() + 3_000;
    let due = product(
        &server,
        &manager,
        "soon-vase",
        "Soon Vase",
        json!({"visibility": "scheduled", "publishOn": soon}),
    );
    assert_eq!(status(&server, "/shop/soon-vase"), 404);
    assert!(!body(&server, "/shop").contains("soon-vase"));
    poll_until(
        Duration::from_secs(20),
        "the scheduled product's page",
        || status(&server, "/shop/soon-vase"),
        |s| *s == 200,
    );
    assert!(now_ms() >= soon);
    assert!(body(&server, "/shop").contains("soon-vase"));
    let r = visitor.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": due, "sku": "soon-vase-1", "quantity": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);

    // Visible, in a cart, then hidden: refused at checkout, sold again once shown.
    let late = product(&server, &manager, "late-vase", "Late Vase", json!({}));
    let mut buyer = Visitor::arrive(&server, LOAM, "10.9.0.2");
    let r = buyer.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": late, "sku": "late-vase-1", "quantity": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let item = format!("/api/owner/items/{late}");
    let r = server.owner_call(
        LOAM,
        &manager,
        "PATCH",
        &item,
        &json!({"visibility": "hidden"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["visibility"], "hidden");
    assert_eq!(status(&server, "/shop/late-vase"), 404);
    let checkout = json!({
        "email": "ada@example.com",
        "shippingAddress": {"firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
            "city": "Amsterdam", "postalCode": "1015 KB", "country": "NL", "region": "NH"},
        "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242",
            "expMonth": 12, "expYear": 2099, "cvc": "123"}}});
    let r = buyer.post("/api/commerce/checkout", checkout.clone());
    assert_eq!(
        (r.status, r.message()),
        (
            409,
            "Sorry, Late Vase is no longer for sale. Please remove it from your cart.".to_owned()
        ),
        "{}",
        r.body
    );
    assert_eq!(r.json()["itemId"], json!(late));
    let r = server.owner_call(
        LOAM,
        &manager,
        "PATCH",
        &item,
        &json!({"visibility": "visible"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = buyer.post("/api/commerce/checkout", checkout);
    assert_eq!(r.status, 201, "{}", r.body);
}

fn visibility_by_field_roles_sites_and_sessions(backend: Backend) {
    let server = Server::start(backend, &[]);
    let manager = server.owner_token("loam-lantern", "store-manager");
    let viewer = server.owner_token("loam-lantern", "viewer");
    let editor = server.owner_token("loam-lantern", "editor");
    let harbor = server.owner_token("harbor-lane", "admin");
    let items = shop(&server, &manager);

    // Errors by field, nothing stored.
    let r = server.owner_call(
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({"urlId": "bad-vase", "title": "Bad Vase", "visibility": "secret",
            "publishOn": "tomorrow", "variants": [{"sku": "BV-1", "price": "1.00"}]}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "visibility": "Visibility is visible, hidden or scheduled.",
            "publishOn": "publishOn is a date and time as a number: milliseconds since 1970-01-01 UTC.",
        })
    );
    let r = server.owner_call(
        LOAM,
        &manager,
        "POST",
        &items,
        &json!({"urlId": "bad-vase", "title": "Bad Vase", "visibility": "scheduled",
            "variants": [{"sku": "BV-1", "price": "1.00"}]}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({"publishOn": "A scheduled item needs the date and time it shows from."})
    );
    assert_eq!(status(&server, "/shop/bad-vase"), 404);

    let id = product(&server, &manager, "role-vase", "Role Vase", json!({}));
    let item = format!("/api/owner/items/{id}");
    let hide = json!({"visibility": "hidden"});
    // A role that may not write the store, another site, no token.
    assert_eq!(
        server
            .owner_call(LOAM, &viewer, "PATCH", &item, &hide)
            .status,
        403
    );
    assert_eq!(
        server
            .owner_call(LOAM, &editor, "PATCH", &item, &hide)
            .status,
        403
    );
    assert_eq!(
        server
            .owner_call(HARBOR, &harbor, "PATCH", &item, &hide)
            .status,
        404
    );
    assert_eq!(
        server.owner_call(LOAM, "", "PATCH", &item, &hide).status,
        401
    );
    assert_eq!(status(&server, "/shop/role-vase"), 200);

    // A session changes it only with its CSRF token.
    let cookie = crate::owner_accounts::owner_session(&server, "loam-lantern", LOAM);
    let csrf = request(
        server.port,
        "GET",
        LOAM,
        "/api/owner/session",
        &[("Cookie", &cookie)],
        "",
    )
    .json()["csrf"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let patch = |headers: &[(&str, &str)]| {
        let mut h = vec![
            ("Cookie", cookie.as_str()),
            ("Content-Type", "application/json"),
        ];
        h.extend_from_slice(headers);
        request(server.port, "PATCH", LOAM, &item, &h, &hide.to_string())
    };
    assert_eq!(patch(&[]).status, 403);
    assert_eq!(status(&server, "/shop/role-vase"), 200);
    let r = patch(&[("X-CSRF-Token", &csrf)]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(status(&server, "/shop/role-vase"), 404);
}
