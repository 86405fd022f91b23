//! The price of counting page views: whole page requests through the server's router
//! (tenant lookup, crumb and cart, render, islands, headers), in process, with analytics
//! on (each page view checked against the tracking rules and pushed to the queue, which a
//! background task writes in batches) and off, on the same store in the same run.
//!
//! Rounds alternate between the two and the best round of each counts (the machine is
//! noisy; noise only ever adds time). The last line prints the ratio and whether analytics
//! on stays within 5% of off, the target of issue 28.
//!
//! usage: cargo bench -p tessera-benches --bench page_views [-- ROUNDS [REQUESTS]]
//! (defaults: 7 rounds of 4000 requests per side)

use std::path::Path;
use std::time::{Duration, Instant};

use api::server::{App, router};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, header};
use http_body_util::BodyExt;
use tenants::{Store, StoreConfig};
use tessera_benches as _;
use tower::ServiceExt;

/// Pages of the demo stores a returning visitor opens, in turn.
const PAGES: [(&str, &str); 4] = [
    ("harbor-lane.localhost", "/"),
    ("harbor-lane.localhost", "/journal/spring-firing"),
    ("loam-lantern.localhost", "/shop"),
    ("loam-lantern.localhost", "/shop/fern-terracotta-pot"),
];

/// One page request with `cookie`; the body is read to the end.
async fn get(app: &Router, host: &str, path: &str, cookie: &str) -> (u16, Vec<String>) {
    let mut req = Request::get(path).header(header::HOST, host);
    if !cookie.is_empty() {
        req = req.header(header::COOKIE, cookie);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status().as_u16();
    let set = res
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_owned))
        .collect();
    let _ = res.into_body().collect().await.unwrap();
    (status, set)
}

/// The cookies a returning visitor of `host` sends: those its first page set.
async fn returning_visitor(app: &Router, host: &str) -> String {
    let (status, set) = get(app, host, "/", "").await;
    assert_eq!(status, 200, "{host}/");
    set.join("; ")
}

/// Seconds for `n` page requests.
async fn round(app: &Router, cookies: &[String], n: usize) -> Duration {
    let started = Instant::now();
    for i in 0..n {
        let (host, path) = PAGES[i % PAGES.len()];
        let cookie = &cookies[usize::from(host.starts_with("loam"))];
        let (status, _) = get(app, host, path, cookie).await;
        assert_eq!(status, 200, "{host}{path}");
    }
    started.elapsed()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(7);
    let requests: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(4000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let dir = std::env::temp_dir().join(format!("tessera-bench-views-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&StoreConfig::Embedded {
            data_dir: dir.clone(),
        })
        .await
        .expect("open the embedded store");
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        for name in ["harbor-lane", "loam-lantern"] {
            tenants::import::import_dir(&store, &fixtures.join(name), &mut |_| {})
                .await
                .expect("import the fixture");
        }
        let queue =
            api::analytics::queue::Queue::start(store.clone(), api::analytics::queue::FLUSH_EVERY);
        let on = router(App::new(store.clone()).with_analytics(queue.clone()));
        let off = router(App::new(store.clone()));
        let mut cookies = Vec::new();
        for host in ["harbor-lane.localhost", "loam-lantern.localhost"] {
            cookies.push(returning_visitor(&on, host).await);
        }
        // Warm both: folders compiled, content bridged, carts cached.
        round(&on, &cookies, 400).await;
        round(&off, &cookies, 400).await;
        let (mut best_on, mut best_off) = (Duration::MAX, Duration::MAX);
        for r in 0..rounds {
            // Alternate which goes first, so neither always follows the other's writes.
            let (a, b) = if r % 2 == 0 { (&on, &off) } else { (&off, &on) };
            let ta = round(a, &cookies, requests).await;
            let tb = round(b, &cookies, requests).await;
            let (t_on, t_off) = if r % 2 == 0 { (ta, tb) } else { (tb, ta) };
            best_on = best_on.min(t_on);
            best_off = best_off.min(t_off);
        }
        let rate = |t: Duration| requests as f64 / t.as_secs_f64();
        let ratio = rate(best_on) / rate(best_off);
        println!("page requests, best of {rounds} rounds of {requests}:");
        println!("  analytics off: {:>9.0} pages/s", rate(best_off));
        println!(
            "  analytics on:  {:>9.0} pages/s ({} page views dropped by the full queue)",
            rate(best_on),
            queue.dropped()
        );
        println!(
            "analytics on / off: {ratio:.3} ({})",
            if ratio >= 0.95 {
                "within 5%"
            } else {
                "MORE THAN 5% SLOWER"
            }
        );
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    });
}
