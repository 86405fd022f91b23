//! The store's money and roles (issue 40, findings 5, 6, 8, 10, 14): who may put things on
//! sale and in what currency, pay-later orders that expire and are rate limited, commerce
//! preferences that cannot take the store down, bounded prices and amounts, and
//! additional-fields answers that keep their own cart lines.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Backend, Response, Server, Visitor, item_id, poll_until};

const LOAM: &str = "loam-lantern.localhost";
const ENTRIES: &str = "/api/commerce/shopping-cart/entries";
const CHECKOUT: &str = "/api/commerce/checkout";

/// A server whose per-minute limits are out of the way (pay-later orders keep theirs).
fn start(backend: Backend, extra: &[&str]) -> Server {
    let mut args = extra.to_vec();
    for flag in ["--cart-writes-per-minute", "--checkouts-per-minute"] {
        args.extend([flag, "100000"]);
    }
    Server::start(backend, &args)
}

/// The id of loam-lantern's collection with this URL id.
fn collection(server: &Server, token: &str, url_id: &str) -> String {
    let r = server.owner_call(LOAM, token, "GET", "/api/owner/collections", &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["urlId"] == url_id)
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A product as the owner API (and the store) take it.
fn product(url_id: &str, currency: &str, price_minor: i64) -> Value {
    json!({"urlId": url_id, "title": url_id, "recordType": 11, "productType": 1,
        "variants": [{"sku": format!("{url_id}-1"), "currency": currency,
            "priceMinor": price_minor, "qtyInStock": 0, "unlimited": true}]})
}

/// Writes an item straight into the store, past the owner API's checks: what a site
/// imported or edited before they existed may hold. Returns its id.
fn put_raw(server: &Server, collection_id: &str, mut item: Value) -> String {
    item["collectionId"] = json!(collection_id);
    let item: tenants::Item = serde_json::from_value(item).unwrap();
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s
                .tenant_by_identifier("loam-lantern")
                .await
                .unwrap()
                .unwrap();
            s.put_item(t.id, &item).await.unwrap()
        })
    })
}

fn add(v: &mut Visitor, item: &str, sku: &str, quantity: i64, fields: Option<Value>) -> Response {
    let mut body = json!({"itemId": item, "sku": sku, "quantity": quantity});
    if let Some(f) = fields {
        body["additionalFields"] = f;
    }
    v.post(ENTRIES, body)
}

fn address() -> Value {
    json!({ "firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
            "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL" })
}

fn pay_later(v: &mut Visitor) -> Response {
    v.post(
        CHECKOUT,
        json!({"email": "ada@example.com", "shippingAddress": address(),
            "payment": {"method": "manual"}}),
    )
}

/// Finding 5: an editor cannot put a product anywhere (a store's items are the store
/// role's, and no other collection holds products), and visitors cannot buy what is not a
/// store's product in the store's currency, whoever wrote it.
fn only_store_products_in_the_store_currency_sell(backend: Backend) {
    let server = start(backend, &[]);
    let editor = server.owner_token("loam-lantern", "editor");
    let admin = server.owner_token("loam-lantern", "admin");
    let about = collection(&server, &editor, "about");
    let shop = collection(&server, &admin, "shop");

    // Through the owner API: refused field by field, even for an admin.
    for t in [&editor, &admin] {
        let r = server.owner_call(
            LOAM,
            t,
            "POST",
            &format!("/api/owner/collections/{about}/items"),
            &product("sneaky-bowl", "USD", 1),
        );
        assert_eq!(r.status, 400, "{}", r.body);
        let errors = &r.json()["errors"];
        assert!(
            errors["productType"].is_string() && errors["variants"].is_string(),
            "{}",
            r.body
        );
    }
    let r = server.owner_call(
        LOAM,
        &admin,
        "POST",
        &format!("/api/owner/collections/{shop}/items"),
        &product("dollar-bowl", "USD", 100),
    );
    assert_eq!(
        r.json()["errors"]["variants[0].currency"],
        "Prices are in the store's currency.",
        "{}",
        r.body
    );

    // Written before these checks: not for sale.
    let blog_product = put_raw(&server, &about, product("old-bowl", "EUR", 100));
    let dollar_product = put_raw(&server, &shop, product("old-dollar-bowl", "USD", 100));
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.51");
    for (item, sku) in [
        (&blog_product, "old-bowl-1"),
        (&dollar_product, "old-dollar-bowl-1"),
    ] {
        let r = add(&mut v, item, sku, 1, None);
        assert_eq!(r.status, 404, "{}", r.body);
    }
    // The store's own products still sell.
    let pot = item_id("loam-lantern", "fern-terracotta-pot");
    assert_eq!(add(&mut v, &pot, "FTP-S", 1, None).status, 200);
}

/// Finding 6: a pay-later order nobody pays gives its stock back after the expiry and can
/// no longer be paid; one client places a few pay-later orders an hour, not hundreds.
fn unpaid_pay_later_orders_expire_and_are_rate_limited(backend: Backend) {
    let server = start(backend, &["--pay-later-expiry", "2s"]);
    let can = item_id("loam-lantern", "brass-watering-can");
    let twine = item_id("loam-lantern", "jute-garden-twine");
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.61");
    let before = v.stock(&can, "BWC-1");
    assert!(before >= 1);
    assert_eq!(add(&mut v, &can, "BWC-1", before, None).status, 200);
    let r = pay_later(&mut v);
    assert_eq!(r.status, 201, "{}", r.body);
    assert_eq!(r.json()["order"]["status"], "awaiting-payment");
    let order = r.json()["order"]["id"].as_str().unwrap().to_owned();
    let status_url = r.json()["statusUrl"]
        .as_str()
        .unwrap_or_else(|| panic!("an order status link: {}", r.body))
        .to_owned();
    assert_eq!(v.stock(&can, "BWC-1"), 0, "the order holds it");
    poll_until(
        Duration::from_secs(20),
        "the unpaid order's units back on sale",
        || v.stock(&can, "BWC-1"),
        |n| *n == before,
    );
    let status = server.with_store(move |s| {
        Box::pin(async move {
            let t = s
                .tenant_by_identifier("loam-lantern")
                .await
                .unwrap()
                .unwrap();
            let o = s.order(t.id, &order).await.unwrap().unwrap();
            let after = s.mark_order_paid(t.id, &order, "UTC").await.unwrap();
            json!([o.status, after.status])
        })
    });
    assert_eq!(
        status,
        json!(["expired", "expired"]),
        "expired, and stays so"
    );
    // The buyer's order page says so, rather than "waiting for payment".
    let page = v.get(&status_url);
    assert_eq!(page.status, 200, "{status_url}");
    assert!(
        page.body.contains("Expired: it was not paid in time"),
        "{}",
        page.body
    );

    // Ten an hour, three at once: two more now, then 429; others and cards are not held up.
    for _ in 0..2 {
        assert_eq!(add(&mut v, &twine, "JGT-NAT", 1, None).status, 200);
        let r = pay_later(&mut v);
        assert_eq!(r.status, 201, "{}", r.body);
    }
    assert_eq!(add(&mut v, &twine, "JGT-NAT", 1, None).status, 200);
    let r = pay_later(&mut v);
    assert_eq!(r.status, 429, "{}", r.body);
    assert!(r.header("retry-after").is_some());
    let r = v.post(
        CHECKOUT,
        json!({"email": "ada@example.com", "shippingAddress": address(),
            "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242",
                "expMonth": 12, "expYear": 2099, "cvc": "123"}}}),
    );
    assert_eq!(
        r.status, 201,
        "a card checkout is not a pay-later order: {}",
        r.body
    );
    let mut other = Visitor::arrive(&server, LOAM, "203.0.113.62");
    assert_eq!(add(&mut other, &twine, "JGT-NAT", 1, None).status, 200);
    assert_eq!(pay_later(&mut other).status, 201);
}

/// Finding 8: preferences the store cannot read are refused with errors by path, as the
/// import refuses them; one stored before (an older version) is left out, and carts work.
fn bad_commerce_preferences_never_break_the_store(backend: Backend) {
    let server = start(backend, &[]);
    let manager = server.owner_token("loam-lantern", "store-manager");
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.81");
    let pot = item_id("loam-lantern", "fern-terracotta-pot");
    let put = |ns: &str, body: Value| {
        server.owner_call(
            LOAM,
            &manager,
            "PUT",
            &format!("/api/v1/commerce-preferences/{ns}"),
            &body,
        )
    };
    let coupon = |c: Value| json!({"codes": [c]});
    for (ns, body, path) in [
        (
            "coupons",
            coupon(json!({"code": "BOGO", "kind": "bogo"})),
            "coupons.codes[0].kind",
        ),
        (
            "coupons",
            coupon(json!({"code": "HUGE", "kind": "percent", "percent": "150"})),
            "coupons.codes[0].percent",
        ),
        (
            "coupons",
            coupon(json!({"code": "MINUS", "kind": "percent", "percent": "-50"})),
            "coupons.codes[0].percent",
        ),
        (
            "shipping",
            json!({"options": [{"id": "a", "name": "A", "kind": "flat", "price": "-4.95"}]}),
            "shipping.options[0].price",
        ),
        (
            "checkout",
            json!({"minimumSubtotal": "abc"}),
            "checkout.minimumSubtotal",
        ),
        ("bogus", json!({"anything": 1}), "bogus"),
    ] {
        let r = put(ns, body.clone());
        assert_eq!(r.status, 400, "{ns} {body}: {}", r.body);
        assert!(r.json()["errors"][path].is_string(), "{path}: {}", r.body);
        let r = add(&mut v, &pot, "FTP-S", 1, None);
        assert_eq!(r.status, 200, "after {ns} {body}: {}", r.body);
    }
    // What passes is stored and applies.
    let r = put(
        "coupons",
        coupon(json!({"code": "TENOFF", "kind": "percent", "percent": "10"})),
    );
    assert_eq!(r.status, 200, "{}", r.body);

    // A bad namespace from an older version: left out (its coupon is unknown), carts work,
    // and the owner is told.
    let bad = coupon(json!({"code": "HUGE", "kind": "percent", "percent": "150"}));
    let stored = bad.as_object().unwrap().clone();
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s
                .tenant_by_identifier("loam-lantern")
                .await
                .unwrap()
                .unwrap();
            s.put_commerce_preferences(t.id, "coupons", &stored)
                .await
                .unwrap();
        })
    });
    poll_until(
        Duration::from_secs(10),
        "the old coupons read",
        || {
            server
                .owner_call(
                    LOAM,
                    &manager,
                    "GET",
                    "/api/v1/commerce-preferences/coupons",
                    &Value::Null,
                )
                .json()
        },
        |r| r["preferences"] == bad,
    );
    let r = server.owner_call(
        LOAM,
        &manager,
        "GET",
        "/api/v1/commerce-preferences/coupons",
        &Value::Null,
    );
    assert!(
        r.json()["errors"]["coupons.codes[0].percent"].is_string(),
        "{}",
        r.body
    );
    let r = add(&mut v, &pot, "FTP-S", 1, None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(v.get("/api/commerce/shopping-cart").status, 200);
    let r = v.post(
        "/api/commerce/shopping-cart/coupons",
        json!({"code": "HUGE"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
}

/// Finding 10: prices and carts have documented bounds, amounts are checked, and nothing
/// wraps around into a negative line.
fn prices_and_cart_amounts_are_bounded(backend: Backend) {
    let server = start(backend, &[]);
    let admin = server.owner_token("loam-lantern", "admin");
    let shop = collection(&server, &admin, "shop");
    let items = format!("/api/owner/collections/{shop}/items");
    let r = server.owner_call(
        LOAM,
        &admin,
        "POST",
        &items,
        &product("max-bowl", "EUR", i64::MAX),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.json()["errors"]["variants[0].priceMinor"].is_string(),
        "{}",
        r.body
    );

    // The largest price sells, up to the largest cart.
    const MAX_PRICE: i64 = 100_000_000_000;
    let mut ids = Vec::new();
    for url in ["dear-bowl", "dearer-bowl"] {
        let r = server.owner_call(
            LOAM,
            &admin,
            "POST",
            &items,
            &product(url, "EUR", MAX_PRICE),
        );
        assert_eq!(r.status, 201, "{}", r.body);
        ids.push(r.json()["id"].as_str().unwrap().to_owned());
    }
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.101");
    let r = add(&mut v, &ids[0], "dear-bowl-1", 9999, None);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["shoppingCart"]["subtotalCents"], 9999 * MAX_PRICE);
    let r = add(&mut v, &ids[1], "dearer-bowl-1", 9999, None);
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        v.cart()["subtotalCents"],
        9999 * MAX_PRICE,
        "nothing changed"
    );

    // A price stored before the bound is not for sale: no line of −0.02.
    let old = put_raw(&server, &shop, product("old-max-bowl", "EUR", i64::MAX));
    let mut w = Visitor::arrive(&server, LOAM, "203.0.113.102");
    let r = add(&mut w, &old, "old-max-bowl-1", 2, None);
    assert_eq!(r.status, 404, "{}", r.body);
    assert!(w.cart()["entries"].as_array().is_none_or(Vec::is_empty));
}

/// Finding 14: the same SKU with other answers is a line of its own; answers only for a
/// product with an additional-fields form.
fn additional_fields_keep_their_own_lines(backend: Backend) {
    let server = start(backend, &[]);
    let trimmer = item_id("loam-lantern", "copper-wick-trimmer");
    let pot = item_id("loam-lantern", "fern-terracotta-pot");
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.141");
    let ada = json!({"engraving": "Ada"});
    let bo = json!({"engraving": "Bo"});
    for fields in [&ada, &bo, &ada] {
        let r = add(&mut v, &trimmer, "CWT-1", 1, Some(fields.clone()));
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let cart = v.cart();
    let lines: Vec<(Value, Value)> = cart["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["additionalFields"].clone(), e["quantity"].clone()))
        .collect();
    assert_eq!(lines, vec![(ada.clone(), json!(2)), (bo.clone(), json!(1))]);

    // A product without a form takes no answers, on adding or after.
    let r = add(&mut v, &pot, "FTP-S", 1, Some(json!({"note": "x"})));
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(
        r.json()["errors"]["additionalFields"].is_string(),
        "{}",
        r.body
    );
    let r = add(&mut v, &pot, "FTP-S", 1, None);
    let entry = r.json()["newlyAdded"]["id"].as_str().unwrap().to_owned();
    let r = v.put(
        &format!("{ENTRIES}/{entry}/additionalFields"),
        json!({"additionalFields": "{\"note\":\"x\"}"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(v.cart()["entries"][2]["additionalFields"].is_null());
}

crate::on_both_backends!(
    only_store_products_in_the_store_currency_sell,
    unpaid_pay_later_orders_expire_and_are_rate_limited,
    bad_commerce_preferences_never_break_the_store,
    prices_and_cart_amounts_are_bounded,
    additional_fields_keep_their_own_lines,
);
