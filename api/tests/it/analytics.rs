//! The tracking calls over HTTP against the real binary, on both backends: what each call
//! accepts and stores (written in batches, so the test waits for them), the bodies refused
//! with 400 and nothing stored from them, another site's items and events, and the off
//! switch.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::support::{Backend, Server, Visitor, item_id};
use serde_json::{Value, json};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const FORM: &str = "application/x-www-form-urlencoded";

fn form(pairs: &[(&str, &str)]) -> String {
    form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

fn post_form(v: &mut Visitor, path: &str, body: &str) -> crate::support::Response {
    v.send("POST", path, &[("Content-Type", FORM)], body)
}

/// The events stored for a site: (name, page path, visitor) and their data.
fn events(server: &Server, identifier: &'static str) -> Vec<tenants::AnalyticsEvent> {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_identifier(identifier).await.unwrap().unwrap();
            s.events(t.id, 0, 1000).await.unwrap()
        })
    })
}

fn counts(events: &[tenants::AnalyticsEvent]) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for e in events {
        *out.entry(e.name.clone()).or_default() += 1;
    }
    out
}

/// The site's summary of every day so far (page views the server answers are counted, not
/// kept as rows).
fn summary(server: &Server, identifier: &'static str) -> tenants::AnalyticsSummary {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_identifier(identifier).await.unwrap().unwrap();
            s.analytics_summary(t.id, 0).await.unwrap()
        })
    })
}

/// The site's summary once `done` holds (counts are written in batches).
fn summary_when(
    server: &Server,
    identifier: &'static str,
    done: impl Fn(&tenants::AnalyticsSummary) -> bool,
) -> tenants::AnalyticsSummary {
    for _ in 0..200 {
        let got = summary(server, identifier);
        if done(&got) {
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    summary(server, identifier)
}

/// Waits until the site has `n` events (they are written in batches).
fn wait_for(server: &Server, identifier: &'static str, n: usize) -> Vec<tenants::AnalyticsEvent> {
    let start = Instant::now();
    loop {
        let got = events(server, identifier);
        if got.len() >= n || start.elapsed() > Duration::from_secs(10) {
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The site's events once one named `name` is among them.
fn wait_for_event(
    server: &Server,
    identifier: &'static str,
    name: &str,
) -> Vec<tenants::AnalyticsEvent> {
    for _ in 0..200 {
        let got = events(server, identifier);
        if got.iter().any(|e| e.name == name) {
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no {name} event stored for {identifier} within 10 s");
}

fn every_call_and_what_it_keeps(backend: Backend) {
    let server = Server::start(backend, &[]);
    let mut v = Visitor::arrive(&server, HARBOR, "10.4.0.1");
    v.cookies.insert("ss_cvr".into(), "visitor-1".into());
    let crumb = v.crumb().unwrap();
    let data = json!({"pagePath": "/shop?sort=price", "title": "Shop"}).to_string();

    // The older tracker: the crumb as a form field.
    let mut no_crumb = v.clone();
    no_crumb.send_crumb = false;
    let r = post_form(
        &mut no_crumb,
        "/api/events/RecordEvent",
        &form(&[("event", "pageview"), ("data", &data)]),
    );
    assert_eq!(
        (r.status, r.json()["crumbFail"].clone()),
        (403, json!(true))
    );
    let r = post_form(
        &mut no_crumb,
        "/api/events/RecordEvent",
        &form(&[("crumb", &crumb), ("event", "view-item"), ("data", &data)]),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    for (event, d) in [
        ("bad name!", data.as_str()),
        ("view-item", "not json"),
        ("view-item", "[1,2]"),
    ] {
        let r = post_form(
            &mut no_crumb,
            "/api/events/RecordEvent",
            &form(&[("crumb", &crumb), ("event", event), ("data", d)]),
        );
        assert_eq!(r.status, 400, "{event} {d}: {}", r.body);
    }
    let big = json!({"x": "y".repeat(40 * 1024)}).to_string();
    let r = post_form(
        &mut v,
        "/api/events/RecordEvent",
        &form(&[("crumb", &crumb), ("event", "view-item"), ("data", &big)]),
    );
    assert_eq!(r.status, 400, "oversized: {}", r.body);

    // Page hits and the census calls.
    let r = post_form(
        &mut v,
        "/api/census/RecordHit",
        &form(&[("data", &data), ("ss_cvr", "visitor-1")]),
    );
    assert_eq!(r.status, 200);
    for kind in ["button-click", "button-render", "form-render", "overlay"] {
        let r = v.post(
            &format!("/api/census/{kind}"),
            json!({"pagePath": "/", "visitorCookie": "visitor-1"}),
        );
        assert_eq!(r.status, 200, "{kind}: {}", r.body);
    }
    assert_eq!(v.post("/api/census/other", json!({})).status, 404);
    assert_eq!(
        v.send("POST", "/api/census/button-click", &[], "{not json")
            .status,
        400
    );

    // Quick views: this site's items only.
    let mug = item_id("harbor-lane", "tidepool-mug");
    assert_eq!(
        v.post(&format!("/api/census/RecordQuickView/{mug}"), Value::Null)
            .status,
        200
    );
    let theirs = item_id("loam-lantern", "fern-terracotta-pot");
    assert_eq!(
        v.post(
            &format!("/api/census/RecordQuickView/{theirs}"),
            Value::Null
        )
        .status,
        404
    );

    // The newer tracker: JSON or a beacon's form; validate mode stores nothing.
    let content = json!({"analytics_id": "a-1", "page_path": "/journal"}).to_string();
    let r = v.post(
        "/api/v1/clanker/events",
        json!({"eventSchemaName": "page_view", "eventContent": content}),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let r = post_form(
        &mut v,
        "/api/v1/clanker/events",
        &form(&[("eventSchemaName", "page_view"), ("eventContent", &content)]),
    );
    assert_eq!(r.status, 202, "{}", r.body);
    let r = v.post(
        "/api/v1/clanker/events",
        json!({"eventSchemaName": "page_view", "eventContent": "{oops"}),
    );
    assert_eq!(
        (r.status, r.json()["errors"]["eventContent"].is_string()),
        (400, true)
    );
    let r = v.post(
        "/api/v1/clanker/validate-event-content/add_to_cart",
        json!({"eventContent": content}),
    );
    assert_eq!((r.status, r.json()), (200, json!({"valid": true})));
    let r = v.post(
        "/api/v1/clanker/validate-event-content/bad%20name",
        json!({"eventContent": content}),
    );
    assert_eq!(r.status, 400);

    // JavaScript errors: the crumb header, 1-20 reports.
    let report = json!({"event": "TypeError", "data": {"stack": "at x"}, "timestamp": 1});
    assert_eq!(
        no_crumb
            .post("/api/events/RecordJavascriptErrors", json!([report]))
            .status,
        403
    );
    let too_many: Vec<Value> = (0..21).map(|_| report.clone()).collect();
    assert_eq!(
        v.post("/api/events/RecordJavascriptErrors", json!(too_many))
            .status,
        400
    );
    assert_eq!(
        v.post(
            "/api/events/RecordJavascriptErrors",
            json!([report, report])
        )
        .status,
        200
    );

    // Performance: an id, then records carrying it.
    // No session-recording provider: every page is told to skip.
    assert_eq!(
        v.get("/api/commerce/fullstory/getId").json(),
        json!({"id": "automated-mock-id"})
    );
    let id = v.get("/api/1/performance/settings").json()["pageLoadId"]
        .as_str()
        .unwrap()
        .to_owned();
    let record =
        json!({"app": "site", "event": "lcp", "pageLoadId": id, "ts": 1234, "data": {"ms": 812}});
    assert_eq!(
        v.post("/api/1/performance/records", json!([record])).status,
        200
    );
    let many: Vec<Value> = (0..101).map(|_| record.clone()).collect();
    assert_eq!(
        v.post("/api/1/performance/records", json!(many)).status,
        400
    );
    assert_eq!(
        v.post("/api/1/performance/records", json!([{"app": "site"}]))
            .status,
        400
    );

    // A last good event: the queue keeps order and one writer stores it, so once this one
    // is stored, everything sent before it that was going to be stored is too.
    let r = v.post(
        "/api/v1/clanker/events",
        json!({"eventSchemaName": "sentinel", "eventContent": "{}"}),
    );
    assert_eq!(r.status, 202);

    // Another site's events are its own.
    let mut l = Visitor::arrive(&server, LOAM, "10.4.0.2");
    assert_eq!(
        post_form(&mut l, "/api/census/RecordHit", &form(&[("data", "{}")])).status,
        200
    );

    let want = BTreeMap::from([
        ("view-item".to_owned(), 1),
        // The census hit (the server's own count of the visitor's arrival is a count, not a
        // row: below).
        ("pageview".to_owned(), 1),
        ("button-click".to_owned(), 1),
        ("button-render".to_owned(), 1),
        ("form-render".to_owned(), 1),
        ("overlay".to_owned(), 1),
        ("quick-view".to_owned(), 1),
        ("page_view".to_owned(), 2),
        ("javascript-error".to_owned(), 2),
        ("sentinel".to_owned(), 1),
    ]);
    let got = wait_for_event(&server, "harbor-lane", "sentinel");
    assert_eq!(counts(&got), want, "only the accepted calls are stored");
    let view = got.iter().find(|e| e.name == "view-item").unwrap();
    assert_eq!(
        (view.page_path.as_str(), view.visitor_id.as_deref()),
        ("/shop", Some("visitor-1"))
    );
    assert_eq!(view.data["title"], "Shop");
    let quick = got.iter().find(|e| e.name == "quick-view").unwrap();
    assert_eq!(quick.data["itemId"], mug.as_str());
    // Page views: the census hit and the server's count of the arrival (and the census
    // hit and the two newer tracker's page views on harbor-lane, written with the sentinel).
    assert_eq!(
        counts(&wait_for(&server, "loam-lantern", 1)),
        BTreeMap::from([("pageview".to_owned(), 1)])
    );
    assert_eq!(
        summary_when(&server, "loam-lantern", |s| s.page_views >= 2).page_views,
        2
    );
    assert_eq!(summary(&server, "harbor-lane").page_views, 4);
    let perf = server.with_store(|s| {
        let id = id.clone();
        Box::pin(async move {
            let t = s
                .tenant_by_identifier("harbor-lane")
                .await
                .unwrap()
                .unwrap();
            s.performance_records(t.id, &id).await.unwrap()
        })
    });
    assert_eq!(perf.len(), 1);
    assert_eq!(
        (
            perf[0].event.as_str(),
            perf[0].ts_ms,
            perf[0].data["ms"].clone()
        ),
        ("lcp", 1234, json!(812))
    );
}

fn the_off_switch_stores_nothing(backend: Backend) {
    let server = Server::start(backend, &["--no-analytics"]);
    let mut v = Visitor::arrive(&server, HARBOR, "10.5.0.1");
    assert_eq!(
        post_form(&mut v, "/api/census/RecordHit", &form(&[("data", "{}")])).status,
        200
    );
    let r = v.post(
        "/api/v1/clanker/events",
        json!({"eventSchemaName": "page_view", "eventContent": "{}"}),
    );
    assert_eq!(r.status, 202);
    std::thread::sleep(Duration::from_millis(800));
    assert!(events(&server, "harbor-lane").is_empty());
    assert_eq!(summary(&server, "harbor-lane").page_views, 0);
    // Nor does it name visitors.
    assert!(!v.cookies.contains_key("ss_cvr"));
}

const LOAM_TOKEN: &str = "owner-token-of-loam-0001";

/// A page view with the page the visitor came from.
fn view(v: &mut Visitor, path: &str, referrer: Option<&str>) {
    let headers: Vec<(&str, &str)> = referrer.map(|r| ("Referer", r)).into_iter().collect();
    let r = v.send("GET", path, &headers, "");
    assert_eq!(r.status, 200, "{path}");
}

/// Visits, a cart add and an order, as the owner sees them: the owner route and
/// `tessera analytics`.
fn the_owner_sees_visits_carts_and_orders(backend: Backend) {
    let token = format!("loam-lantern={LOAM_TOKEN}");
    let server = Server::start(
        backend,
        &[
            "--owner-token",
            &token,
            "--cart-writes-per-minute",
            "100000",
            "--checkouts-per-minute",
            "100000",
        ],
    );
    // The server counts the pages as it answers them.
    let mut a = Visitor::new(&server, LOAM, "10.6.0.1");
    view(&mut a, "/", Some("https://search.example/?q=lanterns"));
    view(&mut a, "/shop", Some("https://loam-lantern.localhost/"));
    view(&mut a, "/shop", None);
    let mut b = Visitor::new(&server, LOAM, "10.6.0.2");
    view(&mut b, "/shop", Some("https://friend.example/post"));
    // The server records the cart add and the order itself.
    let r = a.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": item_id("loam-lantern", "fern-terracotta-pot"), "sku": "FTP-S", "quantity": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
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
    // The cart add and the order are rows, the page views counts.
    wait_for(&server, "loam-lantern", 2);
    summary_when(&server, "loam-lantern", |s| s.page_views >= 4);

    let summary = "/api/analytics/summary?days=1";
    let owner = [("Authorization", "Bearer owner-token-of-loam-0001")];
    let r = a.send("GET", summary, &owner, "");
    assert_eq!(r.status, 200, "{}", r.body);
    let want = json!({
        "visits": 2, "pageViews": 4, "uniqueVisitors": 2,
        "topPages": [["/shop", 3], ["/", 1]],
        "topReferrers": [["friend.example", 1], ["search.example", 1]],
        "addToCarts": 1, "purchases": 1, "conversionRate": 0.5,
    });
    let mut got = r.json();
    got.as_object_mut().unwrap().remove("sinceMs");
    assert_eq!(got, want);
    // No token, a wrong one, another site's host, a bad period.
    assert_eq!(a.get(summary).status, 401);
    assert_eq!(
        a.send("GET", summary, &[("Authorization", "Bearer nope")], "")
            .status,
        401
    );
    let mut h = Visitor::new(&server, HARBOR, "10.6.0.3");
    assert_eq!(h.send("GET", summary, &owner, "").status, 401);
    let r = a.send("GET", "/api/analytics/summary?days=0", &owner, "");
    assert_eq!(r.status, 400);

    // `tessera analytics`, by identifier or domain, text and JSON.
    let store = server.store_args();
    let cli = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("analytics")
            .args(args)
            .args(&store)
            .env_remove("DATABASE_URL")
            .output()
            .unwrap()
    };
    let out = cli(&["loam-lantern", "--days", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "loam-lantern: the last 1 day",
        "  visits            2",
        "  page views        4",
        "  unique visitors   2",
        "  conversion rate   50.0%",
        "    /shop",
        "    friend.example",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    let out = cli(&["loam-lantern.localhost", "--format", "json"]);
    let mut json: Value = serde_json::from_slice(&out.stdout).unwrap();
    json.as_object_mut().unwrap().remove("sinceMs");
    assert_eq!(json, want);
    // A reader that stops at once (`| head`): no panic, a clean exit.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("analytics")
        .args(["loam-lantern", "--format", "json"])
        .args(&store)
        .env_remove("DATABASE_URL")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !stderr.contains("panicked"),
        "{stderr}"
    );
    let out = cli(&["no-such-site"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no site \"no-such-site\""));
}

/// The page views the server counts: which pages, for whom, with which cookies.
fn page_views_follow_the_tracking_rules(backend: Backend) {
    const TOKEN: &str = "harbor-owner-token-0009";
    let server = Server::start(
        backend,
        &[
            "--owner-token",
            &format!("harbor-lane={TOKEN}"),
            "--sign-ins-per-minute",
            "1000",
        ],
    );
    // A first page names the visitor (two years) and the session (30 minutes).
    let mut v = Visitor::new(&server, HARBOR, "10.9.0.1");
    let r = v.get("/");
    let set = r.headers("set-cookie");
    assert!(
        set.iter()
            .any(|c| c.starts_with("ss_cvr=") && c.contains("Max-Age=63072000")),
        "{set:?}"
    );
    assert!(
        set.iter()
            .any(|c| c.starts_with("ss_cvt=") && c.contains("Max-Age=1800")),
        "{set:?}"
    );
    let visitor = v.cookies["ss_cvr"].clone();
    assert!(
        v.get("/journal")
            .headers("set-cookie")
            .iter()
            .all(|c| !c.starts_with("ss_cv")),
        "kept, not set again"
    );
    // Not counted: not found, the member area's join page, JSON views, the owner's visits,
    // and the configuration area.
    assert_eq!(v.get("/no-such-page").status, 404);
    assert_eq!(v.get("/course").header("x-page-type"), Some("106"));
    assert_eq!(v.get("/journal?format=json").status, 200);
    let owner = format!("Bearer {TOKEN}");
    assert_eq!(
        v.send("GET", "/journal", &[("Authorization", &owner)], "")
            .status,
        200
    );
    v.get("/config/pages");
    // Nor a signed-in owner's (the owner app's session cookie).
    let session = crate::owner_accounts::owner_session(&server, "harbor-lane", HARBOR);
    assert_eq!(
        v.send("GET", "/journal", &[("Cookie", &session)], "")
            .status,
        200
    );
    // A lock screen is not counted either (skyward's members page).
    let mut sky = Visitor::new(&server, "skyward.localhost", "10.9.0.2");
    assert_eq!(sky.get("/members").header("x-page-type"), Some("103"));
    // A member's view of a member area is (members are the site's audience).
    let mut m = Visitor::new(&server, HARBOR, "10.9.0.3");
    m.get("/");
    let r = m.post(
        "/api/site-users/account/session",
        json!({"email": "marin@harbor-lane.localhost", "password": "glaze-and-fire-1"}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(m.get("/course").header("x-page-type"), Some("105"));
    // The last page, with a referrer: once it is stored, everything before it is.
    v.send(
        "GET",
        "/shop",
        &[("Referer", "https://friend.example/post")],
        "",
    );
    // Counted, not kept as rows: the pages, the referrer, two visitors and their visits.
    // (A summary's statements may each see a later write on PostgreSQL: the page views are
    // read first, so once they are all there, the rest are too.)
    let got = summary_when(&server, "harbor-lane", |s| {
        s.page_views >= 5 && s.top_pages.iter().any(|(p, _)| p == "/shop")
    });
    assert_eq!(
        (
            got.page_views,
            got.top_pages.clone(),
            got.top_referrers.clone(),
            got.unique_visitors,
            got.visits
        ),
        (
            5,
            vec![
                ("/".to_owned(), 2),
                ("/course".to_owned(), 1),
                ("/journal".to_owned(), 1),
                ("/shop".to_owned(), 1),
            ],
            vec![("friend.example".to_owned(), 1)],
            2,
            2
        ),
        "Marin's two pages, and the visitor's three"
    );
    assert!(events(&server, "harbor-lane").is_empty(), "no raw rows");
    // The visitor kept their cookie: their later pages are the same visitor and visit.
    assert!(v.cookies["ss_cvr"] == visitor);
    assert_eq!(summary(&server, "skyward").page_views, 0);

    // A restrictive cookie policy (quillback): the visitor cookies go, the view is counted
    // without a visitor.
    let mut q = Visitor::new(&server, "quillback.localhost", "10.9.0.4");
    q.cookies.insert("ss_cvr".into(), "old-visitor".into());
    q.cookies.insert("ss_cid".into(), "x".into());
    let r = q.get("/");
    let set = r.headers("set-cookie");
    for c in ["ss_cvr=", "ss_cid="] {
        assert!(
            set.iter()
                .any(|s| s.starts_with(c) && s.contains("Max-Age=0")),
            "{c} {set:?}"
        );
    }
    assert!(!set.iter().any(|s| s.starts_with("ss_cvt=")), "{set:?}");
    let stored = summary_when(&server, "quillback", |s| s.page_views > 0);
    assert_eq!(
        (
            stored.page_views,
            stored.top_pages,
            stored.unique_visitors,
            stored.visits
        ),
        (1, vec![("/".to_owned(), 1)], 0, 0)
    );
}

/// Page views are counted in memory and written every `--analytics-flush-every`: a clean
/// stop (SIGTERM) writes them all before the process exits; `kill -9` loses the window it
/// had not written (here all of it: the window is a minute long).
fn a_clean_stop_writes_every_count(backend: Backend) {
    let mut server = Server::start(backend, &["--analytics-flush-every", "60s"]);
    let mut a = Visitor::new(&server, LOAM, "10.7.0.1");
    view(&mut a, "/", Some("https://search.example/"));
    view(&mut a, "/shop", None);
    let mut b = Visitor::new(&server, LOAM, "10.7.0.2");
    view(&mut b, "/shop", None);
    // Nothing written yet: the minute has not passed.
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(summary(&server, "loam-lantern").page_views, 0);
    server.sigterm();
    let status = server.exited_within(Duration::from_secs(20));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    // Started again on the same data: every count is there.
    server.restart();
    let got = summary(&server, "loam-lantern");
    assert_eq!(
        (
            got.page_views,
            got.visits,
            got.unique_visitors,
            got.top_pages.clone(),
            got.top_referrers.clone()
        ),
        (
            3,
            2,
            2,
            vec![("/shop".to_owned(), 2), ("/".to_owned(), 1)],
            vec![("search.example".to_owned(), 1)]
        )
    );
    // The same visitor's next page: the same visit and visitor, counted on the new process.
    a.port = server.port;
    b.port = server.port;
    view(&mut a, "/", None);
    server.sigterm();
    assert!(server.exited_within(Duration::from_secs(20)).is_some());
    server.restart();
    let got = summary(&server, "loam-lantern");
    assert_eq!((got.page_views, got.visits, got.unique_visitors), (4, 2, 2));
    // Killed: what the window held is lost, and nothing else.
    a.port = server.port;
    b.port = server.port;
    view(&mut b, "/", None);
    server.kill9();
    server.restart();
    let got = summary(&server, "loam-lantern");
    assert_eq!((got.page_views, got.visits, got.unique_visitors), (4, 2, 2));
}

on_both_backends!(
    every_call_and_what_it_keeps,
    the_off_switch_stores_nothing,
    the_owner_sees_visits_carts_and_orders,
    page_views_follow_the_tracking_rules,
    a_clean_stop_writes_every_count
);
