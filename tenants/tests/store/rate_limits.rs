//! Rate-limit buckets in the store: a burst, then refusal with a wait; each tenant and key
//! has its own bucket; two handles ("nodes") spend from the same one; full buckets are swept.

use std::time::Duration;

use tenants::RateBucket;

use crate::common::Env;

async fn buckets_hold_across_handles_and_are_swept(env: Env) {
    let a = &env.store;
    let b = env.another_node().await;
    let (t, u) = (env.tenant("shop").await, env.tenant("blog").await);
    // Three at once, then one a minute: nothing refills during the test.
    let bucket = RateBucket::per_minute(1, 3);
    let spend = |s: &tenants::Store, t, key: &'static str| {
        let s = s.clone();
        async move { s.spend_rate(t, key, bucket).await.unwrap() }
    };
    // The burst is shared by the two handles, alternating.
    assert_eq!(spend(a, t, "cart:10.0.0.1").await, None);
    assert_eq!(spend(&b, t, "cart:10.0.0.1").await, None);
    assert_eq!(spend(a, t, "cart:10.0.0.1").await, None);
    let wait = spend(&b, t, "cart:10.0.0.1").await.expect("refused");
    assert!(
        wait > Duration::from_secs(50) && wait <= Duration::from_secs(60),
        "{wait:?}"
    );
    assert!(
        spend(a, t, "cart:10.0.0.1").await.is_some(),
        "still refused"
    );
    // Other keys and tenants have their own buckets.
    assert_eq!(spend(a, t, "cart:10.0.0.2").await, None);
    assert_eq!(spend(a, u, "cart:10.0.0.1").await, None);

    // A fast bucket refills: one call every 50 ms after a burst of one.
    let fast = RateBucket {
        interval: Duration::from_millis(50),
        burst: 1,
    };
    assert_eq!(a.spend_rate(t, "fast", fast).await.unwrap(), None);
    assert!(a.spend_rate(t, "fast", fast).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(b.spend_rate(t, "fast", fast).await.unwrap(), None);

    // Once the fast bucket is full again it is swept; the spent minute buckets stay.
    tokio::time::sleep(Duration::from_millis(120)).await;
    assert_eq!(a.sweep_rate_limits().await.unwrap(), 1);
    assert!(spend(a, t, "cart:10.0.0.1").await.is_some());
}

/// A rate over one call a millisecond (`--cart-writes-per-minute 100000000`, as the load
/// benchmarks set) never refuses, however many calls race for the bucket at once.
async fn rates_over_one_a_millisecond_never_refuse(env: Env) {
    let t = env.tenant("shop").await;
    let bucket = RateBucket::per_minute(100_000_000, 1);
    let calls: Vec<_> = (0..200)
        .map(|_| {
            let s = env.store.clone();
            tokio::spawn(async move { s.spend_rate(t, "cart:10.0.0.1", bucket).await.unwrap() })
        })
        .collect();
    for c in calls {
        assert_eq!(c.await.unwrap(), None);
    }
}

crate::on_both_backends!(
    buckets_hold_across_handles_and_are_swept,
    rates_over_one_a_millisecond_never_refuse
);
