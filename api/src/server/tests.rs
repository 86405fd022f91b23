//! The router as a whole, on an embedded store with harbor-lane imported.

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{StatusCode, header};
use tenants::Store;
use tower::ServiceExt;

use super::*;
use crate::pages::folders::SLOW_RENDERS;

async fn get(router: &Router, path: &str) -> (StatusCode, String) {
    let req = axum::http::Request::builder()
        .uri(path)
        .header(header::HOST, "harbor-lane.localhost")
        .body(Body::empty())
        .unwrap();
    let res = router.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let body = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// An embedded store in a fresh directory (`tessera-NAME-PID`) with harbor-lane imported.
async fn harbor_store(name: &str) -> (Store, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("tessera-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = Store::open(&tenants::StoreConfig::Embedded {
        data_dir: dir.clone(),
    })
    .await
    .unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/harbor-lane");
    tenants::import::import_dir(&store, &fixture, &mut |_| {})
        .await
        .unwrap();
    (store, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_template_moves_to_the_blocking_pool_and_pages_stay_the_same() {
    let (store, dir) = harbor_store("slow-render").await;
    // Every render counts as slow: the first SLOW_RENDERS run inline, then the template
    // is flagged.
    // Every request renders: no kept renders (they would answer the second request).
    let app = App::new(store.clone())
        .without_kept_pages()
        .with_inline_render_limit(Duration::ZERO);
    let router = router(app.clone());
    let flagged = || -> Vec<bool> {
        app.caches
            .folders
            .iter()
            .map(|(_, f)| f.is_slow())
            .collect()
    };
    let (status, inline) = get(&router, "/").await;
    assert_eq!(status, StatusCode::OK);
    for _ in 1..SLOW_RENDERS {
        assert_eq!(flagged(), [false]);
        assert_eq!(get(&router, "/").await.1, inline);
    }
    assert_eq!(flagged(), [true]);
    // Later renders run on the blocking pool and give the same page.
    let (status, pooled) = get(&router, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(inline, pooled);
    assert!(inline.contains("<html"), "{inline}");
    store.close().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

const HARBOR: &str = "harbor-lane.localhost";
/// A host no site has.
const NOWHERE: &str = "nowhere.localhost";

/// The status of a GET of `path` on `host`.
async fn status(router: &Router, host: &str, path: &str) -> u16 {
    let req = axum::http::Request::builder()
        .uri(path)
        .header(header::HOST, host)
        .body(Body::empty())
        .unwrap();
    router.clone().oneshot(req).await.unwrap().status().as_u16()
}

/// With the per-site cap on and off, pages and API calls find their site (the one the
/// site's layer resolved), and unknown hosts get 404.
#[tokio::test]
async fn pages_and_calls_find_their_site_with_the_cap_on_and_off() {
    let (store, dir) = harbor_store("resolve-cap").await;
    for cap in [0, 8] {
        let router = capped_router(App::new(store.clone()), cap);
        for path in ["/", "/api/commerce/shopping-cart"] {
            assert_eq!(
                status(&router, HARBOR, path).await,
                200,
                "{path}, cap {cap}"
            );
            assert_eq!(
                status(&router, NOWHERE, path).await,
                404,
                "{path}, cap {cap}"
            );
        }
    }
    store.close().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}
