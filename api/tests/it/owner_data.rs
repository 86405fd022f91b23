//! The owner app's data routes over HTTP, on both backends: the dashboard and the analytics
//! of a period (days in the site's time zone, each part only for a role that reads it),
//! bad periods, another site's host and data, roles without the area.

use std::time::{Duration, Instant};

use crate::support::{Backend, Server, Visitor, item_id};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const HARBOR: &str = "harbor-lane.localhost";
const LOAM_TOKEN: &str = "owner-token-of-loam-0001";
const HARBOR_TOKEN: &str = "owner-token-of-harbor-001";
const HOUR: i64 = 3_600_000;

on_both_backends!(
    dashboard_and_analytics_count_the_sites_own_days,
    each_role_sees_its_parts,
);

fn start(backend: Backend) -> Server {
    let loam = format!("loam-lantern={LOAM_TOKEN}");
    let harbor = format!("harbor-lane={HARBOR_TOKEN}");
    Server::start(
        backend,
        &[
            "--owner-token",
            &loam,
            "--owner-token",
            &harbor,
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

/// How many events loam-lantern has stored (they are written in batches).
fn stored(server: &Server) -> usize {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s
                .tenant_by_identifier("loam-lantern")
                .await
                .unwrap()
                .unwrap();
            s.events(t.id, 0, 1000).await.unwrap().len()
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
