use std::time::{Duration, Instant};

use crate::common::Env;
use crate::content::{collection, product};

/// Polls `check` until it holds or one second has passed; returns the time it took.
async fn within_one_second<F, Fut>(mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let start = Instant::now();
    loop {
        if check().await {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < Duration::from_secs(1),
            "the other node did not see the write within 1 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Two store handles ("nodes") on one database: a write through one is visible through the
/// other's caches within one second (PostgreSQL: LISTEN/NOTIFY; embedded: the version
/// re-check).
async fn a_write_on_one_node_reaches_the_others_cache(env: Env) {
    let a = &env.store;
    let b = env.another_node().await;
    let t = env.tenant("shop").await;
    let c = a
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();

    // Warm node B's caches, including a miss for a host that does not exist yet. The
    // collection's own notice may still be on its way (and empty B's cache once more), so
    // wait until two reads in a row come from the cache.
    within_one_second(|| {
        let b = b.clone();
        async move {
            let before = b.site_content(t).await.unwrap();
            let again = b.site_content(t).await.unwrap();
            std::sync::Arc::ptr_eq(&before, &again)
        }
    })
    .await;
    assert_eq!(b.site_content(t).await.unwrap().items.len(), 0);
    assert!(b.tenant_by_host("new.shop.test").await.unwrap().is_none());

    a.put_item(t, &product(&c, "mug", "MUG", 1)).await.unwrap();
    a.add_domain(t, "new.shop.test", false).await.unwrap();

    let took = within_one_second(|| {
        let b = b.clone();
        async move { b.site_content(t).await.unwrap().items.len() == 1 }
    })
    .await;
    within_one_second(|| {
        let b = b.clone();
        async move { b.tenant_by_host("new.shop.test").await.unwrap().is_some() }
    })
    .await;
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr(),
        format_args!(
            "cross-node invalidation ({:?}): visible after {took:?}\n",
            b.backend()
        ),
    );
}

crate::on_both_backends!(a_write_on_one_node_reaches_the_others_cache);

/// PostgreSQL: when the listener's connection dies, it reconnects and flushes the caches,
/// so writes made meanwhile are not served stale.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_listener_survives_a_lost_connection() {
    let env = Env::postgres().await;
    let tenants::StoreConfig::Postgres { url } = &env.config else {
        unreachable!()
    };
    let b = env.another_node().await;
    let t = env.tenant("shop").await;
    assert!(b.site_content(t).await.unwrap().collections.is_empty());

    let (admin, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let killed = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND application_name LIKE $1",
            &[&format!("{}%", tenants::notify::APPLICATION_NAME)],
        )
        .await
        .unwrap();
    assert_eq!(killed.len(), 2, "one listener per store handle");
    env.store
        .put_collection(t, &collection("store", "products", 13))
        .await
        .unwrap();
    within_one_second(|| {
        let b = b.clone();
        async move { b.site_content(t).await.unwrap().collections.len() == 1 }
    })
    .await;
}
