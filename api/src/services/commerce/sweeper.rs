//! The abandoned-cart sweep: every so often, carts idle longer than the hold time give their
//! stock back (they keep their entries; checkout takes the units again), and pay-later
//! orders unpaid for longer than the expiry expire, giving theirs back. Once a minute it
//! also removes full rate-limit buckets, spent captcha challenges that have expired anyway,
//! and expired member sessions and sign-up links.

use std::sync::Arc;
use std::time::Duration;

use tenants::{Store, now_ms};

use super::CommerceState;

/// How often the sweep runs for a hold time: a quarter of it, between 50 ms and a minute,
/// so a cart is released at most a quarter of the hold late.
pub fn interval(hold: Duration) -> Duration {
    (hold / 4).clamp(Duration::from_millis(50), Duration::from_secs(60))
}

/// One sweep: releases the carts idle since before `now - hold`; returns how many.
pub async fn sweep(store: &Store, hold: Duration) -> tenants::Result<u64> {
    let cutoff = now_ms() - hold.as_millis() as i64;
    let mut released = 0;
    for tenant in store.tenants_with_abandoned_carts(cutoff).await? {
        released += store.release_abandoned_carts(tenant, cutoff).await?;
    }
    Ok(released)
}

/// One expiry sweep: expires the pay-later orders placed before `now - expiry` and still
/// unpaid; returns how many.
pub async fn expire(store: &Store, expiry: Duration) -> tenants::Result<u64> {
    let cutoff = now_ms().saturating_sub(i64::try_from(expiry.as_millis()).unwrap_or(i64::MAX));
    let mut expired = 0;
    for tenant in store.tenants_with_unpaid_orders(cutoff).await? {
        expired += store.expire_unpaid_orders(tenant, cutoff).await?;
    }
    Ok(expired)
}

/// Runs the sweep for as long as the server runs.
pub fn spawn(store: Store, commerce: Arc<CommerceState>) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let every = interval(commerce.cart_hold.min(commerce.pay_later_expiry));
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut since_forget = Duration::ZERO;
        loop {
            ticker.tick().await;
            match sweep(&store, commerce.cart_hold).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(carts = n, "released the stock of abandoned carts"),
                Err(e) => tracing::warn!(error = %e, "the abandoned-cart sweep failed"),
            }
            match expire(&store, commerce.pay_later_expiry).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(orders = n, "expired unpaid pay-later orders"),
                Err(e) => tracing::warn!(error = %e, "the pay-later expiry sweep failed"),
            }
            since_forget += every;
            if since_forget >= Duration::from_secs(60) {
                if let Err(e) = store.sweep_rate_limits().await {
                    tracing::warn!(error = %e, "removing full rate-limit buckets failed");
                }
                if let Err(e) = store.sweep_spent_captchas().await {
                    tracing::warn!(error = %e, "forgetting spent captchas failed");
                }
                if let Err(e) = store.sweep_expired_sessions().await {
                    tracing::warn!(error = %e, "removing expired member sessions failed");
                }
                if let Err(e) = store.sweep_expired_sign_ups().await {
                    tracing::warn!(error = %e, "removing expired sign-up links failed");
                }
                if let Err(e) = store.sweep_owner_sessions().await {
                    tracing::warn!(error = %e, "removing ended owner sessions and links failed");
                }
                since_forget = Duration::ZERO;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_runs_often_enough() {
        assert_eq!(interval(Duration::from_secs(3600)), Duration::from_secs(60));
        assert_eq!(interval(Duration::from_secs(2)), Duration::from_millis(500));
        assert_eq!(
            interval(Duration::from_millis(10)),
            Duration::from_millis(50)
        );
    }
}
