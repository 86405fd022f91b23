//! The owner's customers beyond the list, over HTTP on both backends (issue 43): the
//! subscriptions list, a gift card's page with its history, revenue and what a customer
//! spent without cancelled orders and less refunds, and what cancelling an order does to
//! the rest (its subscriptions cancelled, restock sign-ups told of the units put back).
//! Another site's ids are 404, a role without the orders area 403, and a session's change
//! without the CSRF token is refused.

use crate::support::{
    Backend, HARBOR_TOKEN, LOAM_TOKEN, Response, Server, Visitor, item_id, request,
};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";

crate::on_both_backends!(
    subscriptions_list_and_cancel,
    a_gift_cards_page_has_its_history,
    revenue_leaves_out_cancelled_orders_and_refunds,
    cancelling_an_order_tells_restock_sign_ups,
);

fn start(backend: Backend) -> Server {
    Server::with_owners(
        backend,
        &[
            "--cart-writes-per-minute",
            "100000",
            "--checkouts-per-minute",
            "100000",
        ],
    )
}

fn call(server: &Server, host: &str, token: &str, method: &str, path: &str) -> Response {
    server.owner_call(host, token, method, path, &Value::Null)
}

fn get(server: &Server, path: &str) -> Value {
    let r = call(server, LOAM, LOAM_TOKEN, "GET", path);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    r.json()
}

fn add(v: &mut Visitor, url: &str, sku: &str, quantity: i64) {
    let r = v.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": item_id("loam-lantern", url), "sku": sku, "quantity": quantity}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

/// A card checkout of what is in `v`'s cart (`extra` merged in): the order.
fn check_out(v: &mut Visitor, email: &str, extra: Value) -> Value {
    let mut body = json!({
        "email": email,
        "shippingAddress": {"firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
                            "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL"},
        "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12, "expYear": 2099, "cvc": "123"}},
    });
    for (k, x) in extra.as_object().unwrap() {
        body[k] = x.clone();
    }
    let r = v.post("/api/commerce/checkout", body);
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["order"].clone()
}

/// A subscription bought by `email`: the order.
fn subscribe(server: &Server, email: &str, ip: &str) -> Value {
    let mut v = Visitor::arrive(server, LOAM, ip);
    let r = v.post(
        "/api/3/commerce/cart/subscription",
        json!({"itemId": item_id("loam-lantern", "monthly-plant-box"), "sku": "SUB-PB-S", "qty": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let token = r.json()["cartToken"].as_str().unwrap().to_owned();
    check_out(&mut v, email, json!({"cartToken": token}))
}

fn subscriptions_list_and_cancel(backend: Backend) {
    let server = start(backend);
    let first = subscribe(&server, "sam@example.com", "10.8.1.1");
    let second = subscribe(&server, "kim@example.com", "10.8.1.2");
    let page = get(&server, "/api/owner/subscriptions");
    let subs = page["subscriptions"].as_array().unwrap();
    assert_eq!(subs.len(), 2, "{page}");
    // The newest first, with its customer, order and plan.
    let s = &subs[0];
    assert_eq!(s["id"], second["subscriptions"][0]["id"]);
    assert_eq!(
        (&s["customerEmail"], &s["orderNumber"], &s["status"]),
        (
            &json!("kim@example.com"),
            &second["orderNumber"],
            &json!("active")
        ),
        "{s}"
    );
    assert_eq!(s["productName"], json!("Monthly Plant Box"));
    assert_eq!(s["interval"], json!("every 1 month"));
    assert!(s["nextBillingMs"].as_i64().is_some());
    // Pages of one, and a search.
    let one = get(&server, "/api/owner/subscriptions?limit=1");
    assert_eq!(one["subscriptions"].as_array().unwrap().len(), 1);
    let next = one["next"].as_str().unwrap();
    let rest = get(
        &server,
        &format!("/api/owner/subscriptions?limit=1&after={next}"),
    );
    assert_eq!(
        rest["subscriptions"][0]["id"],
        first["subscriptions"][0]["id"]
    );
    assert_eq!(rest["next"], Value::Null);
    let found = get(&server, "/api/owner/subscriptions?q=SAM%40");
    assert_eq!(found["subscriptions"].as_array().unwrap().len(), 1);
    assert_eq!(
        get(&server, "/api/owner/subscriptions?q=plant+box")["subscriptions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // Cancelling one: by a session without the CSRF token it is refused; with a token it
    // goes, and the status filter sees it.
    let id = first["subscriptions"][0]["id"].as_str().unwrap();
    let path = format!("/api/owner/subscriptions/{id}/cancel");
    let cookie = crate::owner_accounts::owner_session(&server, "loam-lantern", LOAM);
    let r = request(
        server.port,
        "GET",
        LOAM,
        "/api/owner/subscriptions",
        &[("Cookie", &cookie)],
        "",
    );
    assert_eq!(r.status, 200, "a session reads");
    let r = request(server.port, "POST", LOAM, &path, &[("Cookie", &cookie)], "");
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        r.json()["message"],
        json!("This needs the owner app's CSRF token.")
    );
    assert_eq!(call(&server, LOAM, LOAM_TOKEN, "POST", &path).status, 200);
    let active = get(&server, "/api/owner/subscriptions?status=active");
    assert_eq!(active["subscriptions"].as_array().unwrap().len(), 1);
    assert_eq!(
        active["subscriptions"][0]["customerEmail"],
        json!("kim@example.com")
    );
    let cancelled = get(&server, "/api/owner/subscriptions?status=cancelled");
    assert_eq!(cancelled["subscriptions"][0]["id"], json!(id));

    // Bad input, by field.
    let long = format!("/api/owner/subscriptions?q={}", "a".repeat(101));
    for (path, field) in [
        ("/api/owner/subscriptions?status=paused", "status"),
        ("/api/owner/subscriptions?limit=201", "limit"),
        ("/api/owner/subscriptions?after=nope", "after"),
        (long.as_str(), "q"),
    ] {
        let r = call(&server, LOAM, LOAM_TOKEN, "GET", path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{path}: {}", r.body);
    }
    // Another site has none of them; a role without orders may not look.
    let h = call(
        &server,
        HARBOR,
        HARBOR_TOKEN,
        "GET",
        "/api/owner/subscriptions",
    )
    .json();
    assert_eq!(h["subscriptions"], json!([]));
    for role in ["viewer", "editor"] {
        let token = server.owner_token("loam-lantern", role);
        let r = call(&server, LOAM, &token, "GET", "/api/owner/subscriptions");
        assert_eq!(r.status, 403, "{role}");
    }
}

fn a_gift_cards_page_has_its_history(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::arrive(&server, LOAM, "10.8.2.1");
    add(&mut v, "loam-lantern-gift-card", "GC-50", 1);
    let bought = check_out(&mut v, "giver@example.com", json!({}));
    let code = bought["giftCards"][0]["code"].as_str().unwrap().to_owned();
    let mut friend = Visitor::arrive(&server, LOAM, "10.8.2.2");
    add(&mut friend, "fern-terracotta-pot", "FTP-S", 1);
    let spent = check_out(
        &mut friend,
        "friend@example.com",
        json!({"giftCardCode": code}),
    );
    let paid = spent["giftCardTotalCents"].as_i64().unwrap();
    assert!(paid > 0);

    let list = get(&server, "/api/owner/gift-cards");
    let id = list["giftCards"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 24, "{list}");
    assert!(!code.contains(&id) && !id.contains(&code[15..]));
    let path = format!("/api/owner/gift-cards/{id}");
    let d = get(&server, &path);
    assert!(
        !d.to_string().contains(&code),
        "the whole code is the buyer's"
    );
    assert_eq!(d["giftCard"]["balance"]["minor"], json!(5000 - paid));
    let kinds = |d: &Value| -> Vec<(String, i64, Value)> {
        d["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["kind"].as_str().unwrap().to_owned(),
                    e["amount"]["minor"].as_i64().unwrap(),
                    e["orderNumber"].clone(),
                )
            })
            .collect()
    };
    assert_eq!(
        kinds(&d),
        [
            ("issued".to_owned(), 5000, bought["orderNumber"].clone()),
            ("redeemed".to_owned(), paid, spent["orderNumber"].clone()),
        ]
    );
    // The order it paid is cancelled: what it paid goes back on the card, and the history
    // keeps both.
    let cancel = format!("/api/owner/orders/{}/cancel", spent["id"].as_str().unwrap());
    let r = call(&server, LOAM, LOAM_TOKEN, "POST", &cancel);
    assert_eq!(r.status, 200, "{}", r.body);
    let d = get(&server, &path);
    assert_eq!(d["giftCard"]["balance"]["minor"], json!(5000));
    assert_eq!(
        kinds(&d),
        [
            ("issued".to_owned(), 5000, bought["orderNumber"].clone()),
            ("redeemed".to_owned(), paid, spent["orderNumber"].clone()),
            ("refunded".to_owned(), paid, spent["orderNumber"].clone()),
        ]
    );
    assert!(d["giftCard"]["history"][0]["refundedMs"].as_i64().is_some());
    // The customer's page names it by the same id.
    let c = get(&server, "/api/owner/customers/giver%40example.com");
    assert_eq!(c["giftCards"][0]["id"], json!(id));

    // Another site's host, an unknown id: 404; a role without orders: 403.
    let r = call(&server, HARBOR, HARBOR_TOKEN, "GET", &path);
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(r.json()["message"], json!("That gift card does not exist."));
    assert_eq!(
        call(
            &server,
            LOAM,
            LOAM_TOKEN,
            "GET",
            "/api/owner/gift-cards/nope"
        )
        .status,
        404
    );
    let editor = server.owner_token("loam-lantern", "editor");
    assert_eq!(call(&server, LOAM, &editor, "GET", &path).status, 403);
}

/// Today's revenue on the dashboard and in the analytics, and what ada spent.
fn revenue(server: &Server) -> (i64, i64, i64) {
    let d = get(server, "/api/owner/dashboard");
    let now = d["periods"]["today"]["revenue"]["minor"].as_i64().unwrap();
    let a = get(server, "/api/owner/analytics");
    let total = a["totals"]["revenue"]["minor"].as_i64().unwrap();
    let c = get(server, "/api/owner/customers/ada%40example.com");
    (
        now,
        total,
        c["customer"]["spent"]["minor"].as_i64().unwrap(),
    )
}

fn revenue_leaves_out_cancelled_orders_and_refunds(backend: Backend) {
    let server = start(backend);
    let mut totals = Vec::new();
    let mut ids = Vec::new();
    for i in 1..=3 {
        let mut v = Visitor::arrive(&server, LOAM, &format!("10.8.3.{i}"));
        add(&mut v, "house-potting-mix", "HPM-5", i + 1);
        let o = check_out(&mut v, "ada@example.com", json!({}));
        totals.push(o["grandTotalCents"].as_i64().unwrap());
        ids.push(o["id"].as_str().unwrap().to_owned());
    }
    let all: i64 = totals.iter().sum();
    assert_eq!(revenue(&server), (all, all, all));

    // Cancelled (its charge given back first): it no longer counts.
    let r = call(
        &server,
        LOAM,
        LOAM_TOKEN,
        "POST",
        &format!("/api/owner/orders/{}/cancel", ids[0]),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let left = all - totals[0];
    assert_eq!(revenue(&server), (left, left, left));
    // Partly refunded: less the refund, on the order's day.
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "POST",
        &format!("/api/owner/orders/{}/refunds", ids[1]),
        &json!({"amount": 100, "reason": "scratched"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let left = left - 100;
    assert_eq!(revenue(&server), (left, left, left));
    // Orders placed still count all three (a cancelled order was placed).
    let d = get(&server, "/api/owner/dashboard");
    assert_eq!(d["periods"]["today"]["orders"], json!(3));
    let c = get(&server, "/api/owner/customers/ada%40example.com");
    assert_eq!(c["customer"]["orders"], json!(3));
    let cancelled: Vec<bool> = c["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["cancelled"].as_bool().unwrap())
        .collect();
    assert_eq!(cancelled.iter().filter(|c| **c).count(), 1, "{c}");
}

fn outbox_to(server: &Server, kind: &'static str, to: &'static str) -> usize {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap();
            s.outbox(t.id)
                .await
                .unwrap()
                .into_iter()
                .filter(|m| m.email.kind == kind && m.email.to == to)
                .count()
        })
    })
}

fn set_stock_and_sign_up(server: &Server, qty: i64, signer: &'static str) {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap();
            let item = item_id("loam-lantern", "fern-terracotta-pot");
            s.set_stock(t.id, &item, "FTP-S", qty, false).await.unwrap();
            s.restock_signup(t.id, &item, "FTP-S", signer, false, None)
                .await
                .unwrap();
        })
    })
}

fn cancelling_an_order_tells_restock_sign_ups(backend: Backend) {
    let server = start(backend);
    // The last pot sold: someone waits for it.
    set_stock_and_sign_up(&server, 1, "waiting@example.com");
    let mut v = Visitor::arrive(&server, LOAM, "10.8.4.1");
    add(&mut v, "fern-terracotta-pot", "FTP-S", 1);
    let o = check_out(&mut v, "ada@example.com", json!({}));
    assert_eq!(
        v.stock(&item_id("loam-lantern", "fern-terracotta-pot"), "FTP-S"),
        0
    );
    assert_eq!(outbox_to(&server, "restock", "waiting@example.com"), 0);
    let r = call(
        &server,
        LOAM,
        LOAM_TOKEN,
        "POST",
        &format!("/api/owner/orders/{}/cancel", o["id"].as_str().unwrap()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        v.stock(&item_id("loam-lantern", "fern-terracotta-pot"), "FTP-S"),
        1
    );
    assert_eq!(outbox_to(&server, "restock", "waiting@example.com"), 1);

    // Units put back into stock that was not sold out tell nobody.
    set_stock_and_sign_up(&server, 2, "also-waiting@example.com");
    let mut v = Visitor::arrive(&server, LOAM, "10.8.4.2");
    add(&mut v, "fern-terracotta-pot", "FTP-S", 1);
    let o = check_out(&mut v, "ada@example.com", json!({}));
    let r = call(
        &server,
        LOAM,
        LOAM_TOKEN,
        "POST",
        &format!("/api/owner/orders/{}/cancel", o["id"].as_str().unwrap()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(outbox_to(&server, "restock", "also-waiting@example.com"), 0);

    // A subscription's order cancelled: the subscription bills no more.
    let sub = subscribe(&server, "sam@example.com", "10.8.4.3");
    let r = call(
        &server,
        LOAM,
        LOAM_TOKEN,
        "POST",
        &format!("/api/owner/orders/{}/cancel", sub["id"].as_str().unwrap()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let page = get(&server, "/api/owner/subscriptions");
    let s = &page["subscriptions"][0];
    assert_eq!(
        (&s["status"], &s["nextBillingMs"]),
        (&json!("cancelled"), &Value::Null),
        "{s}"
    );
}
