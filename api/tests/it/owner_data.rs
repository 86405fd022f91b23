//! The owner app's data routes over HTTP, on both backends: the dashboard and the analytics
//! of a period (days in the site's time zone, each part only for a role that reads it),
//! bad periods, another site's host and data, roles without the area.

use std::time::{Duration, Instant};

use crate::support::{Backend, HARBOR_TOKEN, LOAM_TOKEN, Server, Visitor, item_id};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const HOUR: i64 = 3_600_000;

on_both_backends!(
    dashboard_and_analytics_count_the_sites_own_days,
    each_role_sees_its_parts,
    inventory_lists_and_changes_stock,
    products_list_with_search_type_and_pages,
    customers_and_one_customer,
    subscriptions_are_cancelled,
    gift_cards_with_balance_and_history,
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

fn owner_get(server: &Server, host: &str, token: &str, path: &str) -> crate::support::Response {
    server.owner_call(host, token, "GET", path, &Value::Null)
}

fn view(v: &mut Visitor, path: &str, referrer: Option<&str>) {
    let headers: Vec<(&str, &str)> = referrer.map(|r| ("Referer", r)).into_iter().collect();
    let r = v.send("GET", path, &headers, "");
    assert_eq!(r.status, 200, "{path}");
}

/// How many events loam-lantern has counted (they are written in batches): the page views
/// (the server counts them without a row each) and the other events (raw rows).
fn stored(server: &Server) -> usize {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s
                .tenant_by_identifier("loam-lantern")
                .await
                .unwrap()
                .unwrap();
            let views = s.analytics_summary(t.id, 0).await.unwrap().page_views as usize;
            let events = s.events(t.id, 0, 1000).await.unwrap();
            views + events.iter().filter(|e| e.name != "pageview").count()
        })
    })
}

fn wait_for(server: &Server, n: usize) {
    let start = Instant::now();
    while stored(server) < n {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "events not stored"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Two visits today with a cart add, a checkout page and an order; returns the order's total.
fn visit_and_buy(server: &Server) -> i64 {
    let mut a = Visitor::new(server, LOAM, "10.8.0.1");
    view(&mut a, "/", Some("https://search.example/?q=lanterns"));
    view(&mut a, "/shop", None);
    let mut b = Visitor::new(server, LOAM, "10.8.0.2");
    view(&mut b, "/shop", Some("https://friend.example/post"));
    let r = a.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": item_id("loam-lantern", "fern-terracotta-pot"), "sku": "FTP-S", "quantity": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    view(&mut a, "/checkout", None);
    let r = a.post(
        "/api/commerce/checkout",
        json!({
            "email": "ada@example.com",
            "shippingAddress": {"firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
                                "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL"},
            "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12, "expYear": 2099, "cvc": "123"}},
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    // 4 page views, the cart add and the purchase.
    wait_for(server, 6);
    r.json()["order"]["grandTotalCents"]
        .as_i64()
        .unwrap_or_else(|| panic!("no grand total in {}", r.body))
}

/// Page views stored straight into the store at given instants (another day's traffic).
fn record_at(server: &Server, views: Vec<(i64, &'static str, &'static str)>) {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s
                .tenant_by_identifier("loam-lantern")
                .await
                .unwrap()
                .unwrap();
            let events: Vec<_> = views
                .into_iter()
                .map(|(at, path, session)| tenants::AnalyticsEvent {
                    occurred_ms: at,
                    name: "pageview".into(),
                    page_path: path.into(),
                    visitor_id: Some("old".into()),
                    referrer: None,
                    data: json!({ "session": session }),
                })
                .collect();
            s.record_events(t.id, &events).await.unwrap();
        })
    });
}

fn dashboard_and_analytics_count_the_sites_own_days(backend: Backend) {
    let server = start(backend);
    let total = visit_and_buy(&server);
    assert!(total > 0);

    let r = owner_get(&server, LOAM, LOAM_TOKEN, "/api/owner/dashboard");
    assert_eq!(r.status, 200, "{}", r.body);
    let d = r.json();
    let today = &d["periods"]["today"];
    assert_eq!(
        (&today["visits"], &today["pageViews"], &today["orders"]),
        (&json!(2), &json!(4), &json!(1))
    );
    assert_eq!(today["revenue"]["minor"], json!(total));
    assert_eq!(today["revenue"]["currency"], json!("EUR"));
    assert!(
        today["revenue"]["formatted"]
            .as_str()
            .unwrap()
            .contains('€'),
        "{today}"
    );
    assert_eq!(today["conversion"], json!(0.5));
    for period in ["days7", "days30"] {
        assert_eq!(d["periods"][period]["visits"], json!(2), "{period}");
        assert_eq!(d["periods"][period]["orders"], json!(1), "{period}");
    }
    // 30 days of Amsterdam, today last.
    let daily = d["daily"].as_array().unwrap();
    assert_eq!(daily.len(), 30);
    let starts: Vec<i64> = daily.iter().map(|r| r["dayMs"].as_i64().unwrap()).collect();
    for w in starts.windows(2) {
        assert!([23, 24, 25].contains(&((w[1] - w[0]) / HOUR)), "{starts:?}");
    }
    let now = tenants::now_ms();
    assert!(starts[29] <= now && now < starts[29] + 25 * HOUR);
    let midnight = jiff::Timestamp::from_millisecond(starts[29])
        .unwrap()
        .to_zoned(jiff::tz::TimeZone::get("Europe/Amsterdam").unwrap());
    assert_eq!((midnight.hour(), midnight.minute()), (0, 0));
    assert_eq!(
        daily[29],
        json!({"dayMs": starts[29], "visits": 2, "pageViews": 4, "orders": 1, "revenueMinor": total})
    );
    assert_eq!(daily[0]["pageViews"], json!(0));
    let todo = &d["todo"];
    assert_eq!((&todo["toFulfil"], &todo["unpaid"]), (&json!(1), &json!(0)));
    assert!(todo["lowStock"].as_i64().unwrap() >= 0);
    assert_eq!(todo["restockWaiting"], json!(0));

    // Another site sees none of it.
    let r = owner_get(&server, HARBOR, HARBOR_TOKEN, "/api/owner/dashboard");
    assert_eq!(r.status, 200, "{}", r.body);
    let h = r.json();
    assert_eq!(h["periods"]["days30"]["visits"], json!(0));
    assert_eq!(h["periods"]["days30"]["orders"], json!(0));
    assert_eq!(h["todo"]["toFulfil"], json!(0));
    // One site's token on another's host: 401.
    assert_eq!(
        owner_get(&server, HARBOR, LOAM_TOKEN, "/api/owner/dashboard").status,
        401
    );
    let mut anyone = Visitor::new(&server, LOAM, "10.8.0.9");
    for path in ["/api/owner/dashboard", "/api/owner/analytics"] {
        assert_eq!(anyone.get(path).status, 401, "{path}");
    }

    // Today's analytics: the pages, referrers and funnel.
    let r = owner_get(&server, LOAM, LOAM_TOKEN, "/api/owner/analytics");
    assert_eq!(r.status, 200, "{}", r.body);
    let a = r.json();
    assert_eq!(a["timeZone"], json!("Europe/Amsterdam"));
    assert_eq!(a["daily"].as_array().unwrap().len(), 30);
    assert_eq!(
        a["topPages"],
        json!([{"path": "/shop", "views": 2}, {"path": "/", "views": 1}, {"path": "/checkout", "views": 1}])
    );
    assert_eq!(
        a["referrers"],
        json!([{"host": "friend.example", "visits": 1}, {"host": "search.example", "visits": 1}])
    );
    assert_eq!(
        a["funnel"],
        json!({"pageViews": 4, "addToCart": 1, "checkout": 1, "purchase": 1})
    );
    assert_eq!(a["totals"]["orders"], json!(1));
    assert_eq!(a["totals"]["revenue"]["minor"], json!(total));

    // Days are Amsterdam's: 23:30 UTC on 10 January is half past midnight on the 11th.
    let jan_10 = 1_768_003_200_000; // 2026-01-10T00:00:00Z
    record_at(
        &server,
        vec![
            (jan_10 + 23 * HOUR + HOUR / 2, "/late", "s1"),
            (jan_10 + 22 * HOUR + HOUR / 2, "/evening", "s2"),
            (jan_10 + 22 * HOUR + HOUR / 2 + 60_000, "/evening", "s2"),
        ],
    );
    let local_midnight_11 = jan_10 + 23 * HOUR;
    let path = format!(
        "/api/owner/analytics?fromMs={}&toMs={}",
        local_midnight_11 - 24 * HOUR,
        local_midnight_11 + 24 * HOUR
    );
    let r = owner_get(&server, LOAM, LOAM_TOKEN, &path);
    assert_eq!(r.status, 200, "{}", r.body);
    let a = r.json();
    assert_eq!(a["fromMs"], json!(local_midnight_11 - 24 * HOUR));
    assert_eq!(a["toMs"], json!(local_midnight_11 + 24 * HOUR));
    let rows: Vec<_> = a["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["dayMs"].clone(),
                r["visits"].clone(),
                r["pageViews"].clone(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (json!(local_midnight_11 - 24 * HOUR), json!(1), json!(2)),
            (json!(local_midnight_11), json!(1), json!(1)),
        ]
    );
    assert_eq!(a["totals"]["visits"], json!(2));
    assert_eq!(a["totals"]["orders"], json!(0));
    assert_eq!(a["topPages"][0], json!({"path": "/evening", "views": 2}));
    // Any instant of a day names it: the last day is the one before toMs.
    let path = format!(
        "/api/owner/analytics?fromMs={}&toMs={}",
        local_midnight_11 + 5 * HOUR,
        local_midnight_11 + 6 * HOUR
    );
    let a = owner_get(&server, LOAM, LOAM_TOKEN, &path).json();
    assert_eq!(a["daily"].as_array().unwrap().len(), 1);
    assert_eq!(a["daily"][0]["pageViews"], json!(1));

    // Bad periods.
    let year = 366 * 24 * HOUR;
    for (query, field) in [
        ("fromMs=soon".to_owned(), "fromMs"),
        ("fromMs=-5".to_owned(), "fromMs"),
        ("toMs=99999999999999999".to_owned(), "toMs"),
        (format!("fromMs={jan_10}&toMs={jan_10}"), "toMs"),
        (format!("fromMs={jan_10}&toMs={}", jan_10 - 1), "toMs"),
        (
            format!("fromMs={jan_10}&toMs={}", jan_10 + year + 2 * HOUR),
            "toMs",
        ),
    ] {
        let r = owner_get(
            &server,
            LOAM,
            LOAM_TOKEN,
            &format!("/api/owner/analytics?{query}"),
        );
        assert_eq!(r.status, 400, "{query}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{query}: {}", r.body);
    }
    // A whole year is fine.
    let r = owner_get(
        &server,
        LOAM,
        LOAM_TOKEN,
        &format!(
            "/api/owner/analytics?fromMs={}&toMs={}",
            jan_10 + HOUR,
            jan_10 + HOUR + 365 * 24 * HOUR
        ),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["daily"].as_array().unwrap().len(), 366);
}

fn each_role_sees_its_parts(backend: Backend) {
    let server = start(backend);
    visit_and_buy(&server);
    let dashboard = |role: &str| {
        let token = server.owner_token("loam-lantern", role);
        let r = owner_get(&server, LOAM, &token, "/api/owner/dashboard");
        assert_eq!(r.status, 200, "{role}: {}", r.body);
        let analytics = owner_get(&server, LOAM, &token, "/api/owner/analytics").status;
        (r.json(), analytics)
    };
    // The viewer reads analytics and the store, not orders.
    let (d, analytics) = dashboard("viewer");
    assert_eq!(analytics, 200);
    let today = &d["periods"]["today"];
    assert_eq!(today["visits"], json!(2));
    for part in ["orders", "revenue", "conversion"] {
        assert!(today[part].is_null(), "viewer {part}: {today}");
    }
    assert!(d["daily"][29]["orders"].is_null() && d["daily"][29]["revenueMinor"].is_null());
    assert!(d["todo"]["toFulfil"].is_null() && d["todo"]["unpaid"].is_null());
    assert!(d["todo"]["lowStock"].is_i64() && d["todo"]["restockWaiting"].is_i64());

    // Billing reads orders only: no analytics.
    let (d, analytics) = dashboard("billing");
    assert_eq!(analytics, 403);
    let today = &d["periods"]["today"];
    assert_eq!(today["orders"], json!(1));
    assert!(today["visits"].is_null() && today["conversion"].is_null());
    assert!(d["daily"][29]["visits"].is_null());
    assert_eq!(d["todo"]["toFulfil"], json!(1));
    assert!(d["todo"]["lowStock"].is_null());

    // A role without any of it still has a dashboard, all empty.
    let (d, analytics) = dashboard("moderator");
    assert_eq!(analytics, 403);
    assert!(
        d["periods"]["days30"]["visits"].is_null() && d["periods"]["days30"]["orders"].is_null()
    );
    assert!(
        d["todo"].as_object().unwrap().values().all(Value::is_null),
        "{d}"
    );
    // The reporting role reads both.
    let (d, analytics) = dashboard("reporting");
    assert_eq!(analytics, 200);
    assert_eq!(d["periods"]["today"]["conversion"], json!(0.5));
}

fn inventory(server: &Server, token: &str, query: &str) -> crate::support::Response {
    owner_get(server, LOAM, token, &format!("/api/owner/inventory{query}"))
}

fn patch(server: &Server, host: &str, token: &str, body: Value) -> crate::support::Response {
    server.owner_call(host, token, "PATCH", "/api/owner/inventory", &body)
}

/// Every variant of loam-lantern, following the pages of `limit` rows.
fn every_variant(server: &Server, limit: usize) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut query = format!("?limit={limit}");
    for _ in 0..100 {
        let r = inventory(server, LOAM_TOKEN, &query);
        assert_eq!(r.status, 200, "{}", r.body);
        let page = r.json();
        let got = page["variants"].as_array().unwrap();
        assert!(got.len() <= limit);
        rows.extend(got.iter().cloned());
        match page["next"].as_str() {
            Some(next) => query = format!("?limit={limit}&after={next}"),
            None => return rows,
        }
    }
    panic!("more than 100 pages");
}

fn variant<'a>(rows: &'a [Value], sku: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["sku"] == json!(sku))
        .unwrap_or_else(|| panic!("no {sku}"))
}

fn outbox_restock(server: &Server) -> Vec<String> {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap();
            s.outbox(t.id)
                .await
                .unwrap()
                .into_iter()
                .filter(|m| m.email.kind == "restock")
                .map(|m| m.email.to)
                .collect()
        })
    })
}

fn inventory_lists_and_changes_stock(backend: Backend) {
    let server = start(backend);
    let all = every_variant(&server, 200);
    assert!(all.len() >= 3, "{all:?}");
    // Pages of 2 give the same rows, each once.
    assert_eq!(every_variant(&server, 2), all);
    let pot = variant(&all, "FTP-S").clone();
    assert_eq!(
        pot["itemId"],
        json!(item_id("loam-lantern", "fern-terracotta-pot"))
    );
    for key in ["productTitle", "attributes", "stock", "restockWaiting"] {
        assert!(pot.get(key).is_some(), "{key} in {pot}");
    }

    // Search and the low-stock filter.
    let r = inventory(&server, LOAM_TOKEN, "?q=ftp-");
    let found = r.json()["variants"].as_array().unwrap().clone();
    assert!(
        !found.is_empty()
            && found
                .iter()
                .all(|v| v["sku"].as_str().unwrap().starts_with("FTP-"))
    );
    let r = patch(
        &server,
        LOAM,
        LOAM_TOKEN,
        json!({"updates": [{"itemId": pot["itemId"], "sku": "FTP-S", "stock": 0}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["variants"][0]["stock"], json!(0));
    let low = inventory(&server, LOAM_TOKEN, "?lowStock=true").json();
    let low = low["variants"].as_array().unwrap();
    assert!(low.iter().any(|v| v["sku"] == json!("FTP-S")));
    assert!(
        low.iter()
            .all(|v| v["stock"].as_i64().is_some_and(|n| n <= 5)),
        "{low:?}"
    );

    // Two people wait for the pot; raising it tells them, in the same write as the rest.
    let item = pot["itemId"].as_str().unwrap().to_owned();
    let waiting_item = item.clone();
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap();
            for email in ["ada@example.com", "grace@example.com"] {
                s.restock_signup(t.id, &waiting_item, "FTP-S", email, false, None)
                    .await
                    .unwrap();
            }
        })
    });
    let before = every_variant(&server, 200);
    assert_eq!(variant(&before, "FTP-S")["restockWaiting"], json!(2));
    let other = before
        .iter()
        .find(|v| v["itemId"] != json!(item))
        .unwrap()
        .clone();
    let r = patch(
        &server,
        LOAM,
        LOAM_TOKEN,
        json!({"updates": [
            {"itemId": item, "sku": "FTP-S", "stock": 4},
            {"itemId": other["itemId"], "sku": other["sku"], "stock": null},
        ]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let changed = r.json()["variants"].as_array().unwrap().clone();
    assert_eq!(changed.len(), 2);
    assert_eq!(
        (&changed[0]["stock"], &changed[0]["restockWaiting"]),
        (&json!(4), &json!(0))
    );
    assert_eq!(
        (&changed[1]["sku"], &changed[1]["stock"]),
        (&other["sku"], &Value::Null)
    );
    let mut told = outbox_restock(&server);
    told.sort();
    assert_eq!(told, ["ada@example.com", "grace@example.com"]);
    // The storefront's stock follows.
    let mut v = Visitor::new(&server, LOAM, "10.8.0.20");
    assert_eq!(v.stock(&item, "FTP-S"), 4);

    // Bad bodies: errors by field, nothing changed.
    let one = |stock: Value| json!({"updates": [{"itemId": item, "sku": "FTP-S", "stock": stock}]});
    let many: Vec<Value> = (0..201)
        .map(|_| json!({"itemId": item, "sku": "FTP-S", "stock": 1}))
        .collect();
    for (body, field) in [
        (json!({}), "updates"),
        (json!({"updates": []}), "updates"),
        (json!({"updates": many}), "updates"),
        (one(json!(-1)), "updates.0.stock"),
        (one(json!(1.5)), "updates.0.stock"),
        (one(json!("3")), "updates.0.stock"),
        (
            json!({"updates": [{"itemId": item, "sku": "FTP-S"}]}),
            "updates.0.stock",
        ),
        (
            json!({"updates": [{"sku": "FTP-S", "stock": 1}]}),
            "updates.0.itemId",
        ),
        (json!({"updates": [7]}), "updates.0"),
        (
            json!({"updates": [{"itemId": item, "sku": "FTP-S", "stock": 1}, {"itemId": item, "sku": "FTP-S", "stock": 2}]}),
            "updates.1.sku",
        ),
    ] {
        let r = patch(&server, LOAM, LOAM_TOKEN, body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{field}: {}", r.body);
    }
    // Another site's variant (or none) is 404 naming it, and the batch changes nothing.
    let harbor_item = every_harbor_item(&server);
    for (bad_item, bad_sku) in [
        (harbor_item.0.as_str(), harbor_item.1.as_str()),
        (item.as_str(), "NOPE"),
    ] {
        let r = patch(
            &server,
            LOAM,
            LOAM_TOKEN,
            json!({"updates": [
                {"itemId": item, "sku": "FTP-S", "stock": 9},
                {"itemId": bad_item, "sku": bad_sku, "stock": 1},
            ]}),
        );
        assert_eq!(r.status, 404, "{}", r.body);
        assert!(
            r.json()["errors"]["updates.1.sku"].is_string(),
            "{}",
            r.body
        );
    }
    assert_eq!(v.stock(&item, "FTP-S"), 4);
    // Bad queries.
    for (query, field) in [
        ("?limit=0", "limit"),
        ("?limit=201", "limit"),
        ("?after=not-a-cursor", "after"),
        ("?lowStock=maybe", "lowStock"),
    ] {
        let r = inventory(&server, LOAM_TOKEN, query);
        assert_eq!(r.status, 400, "{query}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{query}: {}", r.body);
    }
    let long = format!("?q={}", "a".repeat(101));
    assert!(inventory(&server, LOAM_TOKEN, &long).json()["errors"]["q"].is_string());

    // Roles, tokens and hosts.
    let viewer = server.owner_token("loam-lantern", "viewer");
    assert_eq!(inventory(&server, &viewer, "").status, 200);
    assert_eq!(patch(&server, LOAM, &viewer, one(json!(1))).status, 403);
    let editor = server.owner_token("loam-lantern", "editor");
    assert_eq!(inventory(&server, &editor, "").status, 403);
    let manager = server.owner_token("loam-lantern", "store-manager");
    assert_eq!(patch(&server, LOAM, &manager, one(json!(6))).status, 200);
    assert_eq!(
        patch(&server, HARBOR, LOAM_TOKEN, one(json!(1))).status,
        401
    );
    assert_eq!(
        owner_get(&server, HARBOR, LOAM_TOKEN, "/api/owner/inventory").status,
        401
    );
    // Harbor's inventory holds none of loam's variants.
    let h = owner_get(
        &server,
        HARBOR,
        HARBOR_TOKEN,
        "/api/owner/inventory?limit=200",
    )
    .json();
    assert!(
        h["variants"]
            .as_array()
            .unwrap()
            .iter()
            .all(|v| v["itemId"] != json!(item))
    );
}

/// A variant of harbor-lane: (item id, sku).
fn every_harbor_item(server: &Server) -> (String, String) {
    let r = owner_get(server, HARBOR, HARBOR_TOKEN, "/api/owner/inventory?limit=1");
    assert_eq!(r.status, 200, "{}", r.body);
    let v = &r.json()["variants"][0];
    (
        v["itemId"]
            .as_str()
            .expect("harbor has a product")
            .to_owned(),
        v["sku"].as_str().unwrap().to_owned(),
    )
}

/// Every product of loam-lantern with `query`, following the pages of `limit`.
fn every_product(server: &Server, token: &str, query: &str, limit: usize) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut path = format!("/api/owner/products?limit={limit}{query}");
    for _ in 0..100 {
        let r = owner_get(server, LOAM, token, &path);
        assert_eq!(r.status, 200, "{}", r.body);
        let page = r.json();
        rows.extend(page["products"].as_array().unwrap().iter().cloned());
        match page["next"].as_str() {
            Some(next) => path = format!("/api/owner/products?limit={limit}{query}&after={next}"),
            None => return rows,
        }
    }
    panic!("more than 100 pages");
}

fn products_list_with_search_type_and_pages(backend: Backend) {
    let server = start(backend);
    let all = every_product(&server, LOAM_TOKEN, "", 200);
    assert!(all.len() >= 3, "{all:?}");
    assert_eq!(every_product(&server, LOAM_TOKEN, "", 2), all);
    let titles: Vec<&str> = all.iter().map(|p| p["title"].as_str().unwrap()).collect();
    let mut sorted = titles.clone();
    sorted.sort();
    assert_eq!(titles, sorted);
    let pot_id = item_id("loam-lantern", "fern-terracotta-pot");
    let pot = all
        .iter()
        .find(|p| p["id"] == json!(pot_id))
        .expect("the pot");
    assert_eq!(pot["price"]["currency"], json!("EUR"));
    assert!(pot["price"]["minor"].as_i64().unwrap() > 0);
    assert!(pot["price"]["formatted"].as_str().unwrap().contains('€'));
    assert_eq!(pot["visible"], json!(true));
    assert!(pot["stock"].is_i64() || pot["stock"].is_null());
    assert!(pot.get("image").is_some() && pot.get("onSale").is_some());
    let kinds = [
        "physical",
        "digital",
        "service",
        "gift-card",
        "subscription",
    ];
    assert!(
        all.iter()
            .all(|p| kinds.contains(&p["type"].as_str().unwrap()))
    );

    // Each kind's filter gives exactly its rows; together they are the whole list.
    let mut by_kind = 0;
    for kind in kinds {
        let rows = every_product(&server, LOAM_TOKEN, &format!("&type={kind}"), 200);
        assert!(rows.iter().all(|p| p["type"] == json!(kind)), "{kind}");
        by_kind += rows.len();
    }
    assert_eq!(by_kind, all.len());
    // Search by title, any case.
    let word = pot["title"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_uppercase();
    let found = every_product(&server, LOAM_TOKEN, &format!("&q={word}"), 200);
    assert!(found.iter().any(|p| p["id"] == json!(pot_id)), "{word}");
    assert!(found.len() < all.len() || all.len() == 1);
    assert!(every_product(&server, LOAM_TOKEN, "&q=zzzz-nothing", 200).is_empty());

    // Bad queries.
    for (query, field) in [
        ("?type=boat", "type"),
        ("?limit=500", "limit"),
        ("?limit=x", "limit"),
        ("?after=%7B%7D", "after"),
    ] {
        let r = owner_get(
            &server,
            LOAM,
            LOAM_TOKEN,
            &format!("/api/owner/products{query}"),
        );
        assert_eq!(r.status, 400, "{query}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{query}: {}", r.body);
    }
    // Roles, other sites.
    let viewer = server.owner_token("loam-lantern", "viewer");
    assert_eq!(every_product(&server, &viewer, "", 200), all);
    for role in ["editor", "billing"] {
        let token = server.owner_token("loam-lantern", role);
        assert_eq!(
            owner_get(&server, LOAM, &token, "/api/owner/products").status,
            403,
            "{role}"
        );
    }
    assert_eq!(
        owner_get(&server, HARBOR, LOAM_TOKEN, "/api/owner/products").status,
        401
    );
    let h = owner_get(
        &server,
        HARBOR,
        HARBOR_TOKEN,
        "/api/owner/products?limit=200",
    )
    .json();
    assert!(
        h["products"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["id"] != json!(pot_id))
    );
}

/// Every customer of loam-lantern with `query`, following the pages of `limit`.
fn every_customer(server: &Server, token: &str, query: &str, limit: usize) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut path = format!("/api/owner/customers?limit={limit}{query}");
    for _ in 0..200 {
        let r = owner_get(server, LOAM, token, &path);
        assert_eq!(r.status, 200, "{}", r.body);
        let page = r.json();
        rows.extend(page["customers"].as_array().unwrap().iter().cloned());
        match page["next"].as_str() {
            Some(next) => path = format!("/api/owner/customers?limit={limit}{query}&after={next}"),
            None => return rows,
        }
    }
    panic!("more than 200 pages");
}

fn customers_and_one_customer(backend: Backend) {
    let server = start(backend);
    let total = visit_and_buy(&server);
    let all = every_customer(&server, LOAM_TOKEN, "", 200);
    // The latest buyer comes first.
    assert_eq!(all[0]["email"], json!("ada@example.com"), "{all:?}");
    let ada = &all[0];
    assert_eq!(ada["name"], json!("Ada Lovelace"));
    assert_eq!(ada["orders"], json!(1));
    assert_eq!(ada["spent"]["minor"], json!(total));
    assert_eq!(ada["spent"]["currency"], json!("EUR"));
    assert!(ada["lastOrderMs"].as_i64().unwrap() > 0);
    assert_eq!(
        (&ada["member"], &ada["subscriber"]),
        (&json!(false), &json!(false))
    );
    assert_eq!(every_customer(&server, LOAM_TOKEN, "", 1), all);
    let found = every_customer(&server, LOAM_TOKEN, "&q=LOVELACE", 200);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["email"], json!("ada@example.com"));
    assert!(every_customer(&server, LOAM_TOKEN, "&q=nobody-at-all", 200).is_empty());

    // One customer, any case.
    let r = owner_get(
        &server,
        LOAM,
        LOAM_TOKEN,
        "/api/owner/customers/ADA%40Example.com",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let d = r.json();
    assert_eq!(d["customer"], *ada);
    let orders = d["orders"].as_array().unwrap();
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0]["total"]["minor"], json!(total));
    assert_eq!(orders[0]["status"], json!("paid"));
    assert_eq!(orders[0]["itemCount"], json!(1));
    assert!(orders[0]["number"].as_i64().is_some() && orders[0]["placedMs"].as_i64().is_some());
    assert_eq!(d["subscriptions"], json!([]));
    assert_eq!(d["giftCards"], json!([]));
    for (host, token, path) in [
        (
            LOAM,
            LOAM_TOKEN,
            "/api/owner/customers/nobody%40example.com",
        ),
        (LOAM, LOAM_TOKEN, "/api/owner/customers/%20"),
        // Another site's customer is not this site's.
        (
            HARBOR,
            HARBOR_TOKEN,
            "/api/owner/customers/ada%40example.com",
        ),
    ] {
        let r = owner_get(&server, host, token, path);
        assert_eq!(r.status, 404, "{path}: {}", r.body);
    }
    let h = owner_get(
        &server,
        HARBOR,
        HARBOR_TOKEN,
        "/api/owner/customers?limit=200",
    )
    .json();
    assert!(
        h["customers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["email"] != json!("ada@example.com"))
    );
    assert_eq!(
        owner_get(&server, HARBOR, LOAM_TOKEN, "/api/owner/customers").status,
        401
    );

    // Bad queries.
    let long = format!("/api/owner/customers?q={}", "a".repeat(101));
    for (path, field) in [
        (long.as_str(), "q"),
        ("/api/owner/customers?limit=0", "limit"),
        ("/api/owner/customers?after=e30", "after"),
    ] {
        let r = owner_get(&server, LOAM, LOAM_TOKEN, path);
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{path}: {}", r.body);
    }
    // Orders read is the area: the viewer and the editor may not.
    for role in ["viewer", "editor"] {
        let token = server.owner_token("loam-lantern", role);
        for path in [
            "/api/owner/customers",
            "/api/owner/customers/ada%40example.com",
        ] {
            assert_eq!(
                owner_get(&server, LOAM, &token, path).status,
                403,
                "{role} {path}"
            );
        }
    }
    for role in ["billing", "store-manager"] {
        let token = server.owner_token("loam-lantern", role);
        assert_eq!(every_customer(&server, &token, "", 200), all, "{role}");
    }
}

fn subscriptions_are_cancelled(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::arrive(&server, LOAM, "10.8.0.30");
    let r = v.post(
        "/api/3/commerce/cart/subscription",
        json!({"itemId": item_id("loam-lantern", "monthly-plant-box"), "sku": "SUB-PB-S", "qty": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let token = r.json()["cartToken"].as_str().unwrap().to_owned();
    let r = v.post(
        "/api/commerce/checkout",
        json!({
            "cartToken": token,
            "email": "sub@example.com",
            "shippingAddress": {"firstName": "Sam", "lastName": "Sub", "line1": "Lindengracht 1",
                                "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL"},
            "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12, "expYear": 2099, "cvc": "123"}},
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let id = r.json()["order"]["subscriptions"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let d = owner_get(
        &server,
        LOAM,
        LOAM_TOKEN,
        "/api/owner/customers/sub%40example.com",
    )
    .json();
    let sub = &d["subscriptions"][0];
    assert_eq!((&sub["id"], &sub["status"]), (&json!(id), &json!("active")));
    assert!(sub["nextBillingMs"].as_i64().is_some());
    assert_eq!(sub["interval"], json!("every 1 month"));

    let path = format!("/api/owner/subscriptions/{id}/cancel");
    let post = |host: &str, token: &str, path: &str| {
        server.owner_call(host, token, "POST", path, &Value::Null)
    };
    // A role that only reads orders, another site's token or host, an unknown id.
    let billing = server.owner_token("loam-lantern", "billing");
    assert_eq!(post(LOAM, &billing, &path).status, 403);
    assert_eq!(post(HARBOR, LOAM_TOKEN, &path).status, 401);
    let r = post(HARBOR, HARBOR_TOKEN, &path);
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(
        r.json()["message"],
        json!("That subscription does not exist.")
    );
    assert_eq!(
        post(LOAM, LOAM_TOKEN, "/api/owner/subscriptions/nope/cancel").status,
        404
    );

    let r = post(LOAM, LOAM_TOKEN, &path);
    assert_eq!(r.status, 200, "{}", r.body);
    let c = r.json();
    assert_eq!(
        (&c["id"], &c["status"], &c["nextBillingMs"]),
        (&json!(id), &json!("cancelled"), &Value::Null)
    );
    assert!(!c["productName"].as_str().unwrap().is_empty());
    let r = post(LOAM, LOAM_TOKEN, &path);
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(
        r.json()["message"],
        json!("This subscription is already cancelled.")
    );
    let d = owner_get(
        &server,
        LOAM,
        LOAM_TOKEN,
        "/api/owner/customers/sub%40example.com",
    )
    .json();
    assert_eq!(d["subscriptions"][0]["status"], json!("cancelled"));
}

/// A checkout by `v` for `email`: paid by card unless `gift_card` pays for it all.
fn check_out(v: &mut Visitor, email: &str, gift_card: Option<&str>) -> Value {
    let mut body = json!({
        "email": email,
        "shippingAddress": {"firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
                            "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL"},
        "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12, "expYear": 2099, "cvc": "123"}},
    });
    if let Some(code) = gift_card {
        body["giftCardCode"] = json!(code);
    }
    let r = v.post("/api/commerce/checkout", body);
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["order"].clone()
}

fn gift_cards_with_balance_and_history(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::arrive(&server, LOAM, "10.8.0.40");
    let add = |v: &mut Visitor, url: &str, sku: &str| {
        let r = v.post(
            "/api/commerce/shopping-cart/entries",
            json!({"itemId": item_id("loam-lantern", url), "sku": sku, "quantity": 1}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    };
    add(&mut v, "loam-lantern-gift-card", "GC-50");
    let bought = check_out(&mut v, "giver@example.com", None);
    let code = bought["giftCards"][0]["code"].as_str().unwrap().to_owned();
    let mut friend = Visitor::arrive(&server, LOAM, "10.8.0.41");
    add(&mut friend, "fern-terracotta-pot", "FTP-S");
    let spent = check_out(&mut friend, "friend@example.com", Some(&code));
    let paid = spent["giftCardTotalCents"].as_i64().unwrap();
    assert!(paid > 0);

    let r = owner_get(&server, LOAM, LOAM_TOKEN, "/api/owner/gift-cards");
    assert_eq!(r.status, 200, "{}", r.body);
    let page = r.json();
    assert_eq!(page["next"], Value::Null);
    let cards = page["giftCards"].as_array().unwrap();
    assert_eq!(cards.len(), 1, "{page}");
    let g = &cards[0];
    assert_eq!(g["codeEnd"], json!(code[code.len() - 4..]));
    assert!(!r.body.contains(&code), "the whole code is the buyer's");
    assert_eq!(
        (&g["orderId"], &g["buyerEmail"]),
        (&bought["id"], &json!("giver@example.com"))
    );
    assert_eq!(g["initial"]["minor"], json!(5000));
    assert_eq!(g["balance"]["minor"], json!(5000 - paid));
    assert_eq!(g["history"].as_array().unwrap().len(), 1);
    assert_eq!(
        (
            &g["history"][0]["orderId"],
            &g["history"][0]["amount"]["minor"]
        ),
        (&spent["id"], &json!(paid))
    );
    // The whole code, or the buyer, finds it; the spender does not.
    for (q, n) in [
        (code.to_lowercase(), 1),
        ("GIVER@".to_owned(), 1),
        ("friend".to_owned(), 0),
    ] {
        let r = owner_get(
            &server,
            LOAM,
            LOAM_TOKEN,
            &format!("/api/owner/gift-cards?q={q}"),
        );
        assert_eq!(r.json()["giftCards"].as_array().unwrap().len(), n, "{q}");
    }
    // The customer's page shows it too, its code cut.
    let d = owner_get(
        &server,
        LOAM,
        LOAM_TOKEN,
        "/api/owner/customers/giver%40example.com",
    )
    .json();
    assert_eq!(d["giftCards"][0]["codeEnd"], g["codeEnd"]);
    assert_eq!(d["giftCards"][0]["balance"], g["balance"]);

    // Another site has none; roles without orders read may not look; bad queries.
    let h = owner_get(&server, HARBOR, HARBOR_TOKEN, "/api/owner/gift-cards").json();
    assert_eq!(h["giftCards"], json!([]));
    assert_eq!(
        owner_get(&server, HARBOR, LOAM_TOKEN, "/api/owner/gift-cards").status,
        401
    );
    let viewer = server.owner_token("loam-lantern", "viewer");
    assert_eq!(
        owner_get(&server, LOAM, &viewer, "/api/owner/gift-cards").status,
        403
    );
    for (query, field) in [("?limit=201", "limit"), ("?after=%21", "after")] {
        let r = owner_get(
            &server,
            LOAM,
            LOAM_TOKEN,
            &format!("/api/owner/gift-cards{query}"),
        );
        assert_eq!(r.status, 400, "{query}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{query}: {}", r.body);
    }
}
