//! Rate limits on visitor writes, per client address and tenant (an IPv6 client counts by
//! its /64): a token bucket per family of calls (governor's GCRA). Over the limit, the call
//! is answered 429 with `Retry-After` and changes nothing. Reads are not limited.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use tenants::TenantId;

use super::error::ApiError;

/// Which budget a call spends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// Adding to and changing carts (entries, coupons, shipping, subscription carts).
    CartWrite,
    /// Placing orders (each may charge a card).
    Checkout,
    /// Looking up gift card codes (guessing them must be slow).
    GiftCard,
    /// Form submissions and their keys (each may send an email).
    FormSubmit,
    /// Member sign-ins (each a password guess).
    SignIn,
}

/// Calls per minute for each family, with bursts of up to a third of that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rates {
    pub cart_writes_per_minute: u32,
    pub checkouts_per_minute: u32,
    pub gift_card_lookups_per_minute: u32,
    pub form_submissions_per_minute: u32,
    pub sign_ins_per_minute: u32,
}

impl Default for Rates {
    /// Far above what a person clicks, far below what a script hammering one store sends.
    fn default() -> Rates {
        Rates {
            cart_writes_per_minute: 120,
            checkouts_per_minute: 12,
            gift_card_lookups_per_minute: 12,
            form_submissions_per_minute: 30,
            sign_ins_per_minute: 10,
        }
    }
}

type Key = (TenantId, IpAddr);
type Limiter = RateLimiter<Key, DefaultKeyedStateStore<Key>, DefaultClock>;

/// The limiters, shared by every request of the server.
#[derive(Clone)]
pub struct Limits {
    cart: Arc<Limiter>,
    checkout: Arc<Limiter>,
    gift_card: Arc<Limiter>,
    form: Arc<Limiter>,
    sign_in: Arc<Limiter>,
}

fn limiter(per_minute: u32) -> Arc<Limiter> {
    let rate = NonZeroU32::new(per_minute.max(1)).expect("at least 1");
    let burst = NonZeroU32::new((per_minute / 3).max(1)).expect("at least 1");
    Arc::new(RateLimiter::keyed(
        Quota::per_minute(rate).allow_burst(burst),
    ))
}

/// The address a client is counted as: an IPv6 client by its /64, since one host is usually
/// given a whole /64 and could otherwise take a fresh address for every burst.
pub fn counted_as(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        v4 => v4,
    }
}

impl Limits {
    pub fn new(rates: Rates) -> Limits {
        Limits {
            cart: limiter(rates.cart_writes_per_minute),
            checkout: limiter(rates.checkouts_per_minute),
            gift_card: limiter(rates.gift_card_lookups_per_minute),
            form: limiter(rates.form_submissions_per_minute),
            sign_in: limiter(rates.sign_ins_per_minute),
        }
    }

    /// Spends one call of `family` for this client of this tenant; 429 when none is left.
    pub fn check(&self, family: Family, tenant: TenantId, client: IpAddr) -> Result<(), ApiError> {
        let l = match family {
            Family::CartWrite => &self.cart,
            Family::Checkout => &self.checkout,
            Family::GiftCard => &self.gift_card,
            Family::FormSubmit => &self.form,
            Family::SignIn => &self.sign_in,
        };
        match l.check_key(&(tenant, counted_as(client))) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(l.clock().now());
                Err(ApiError::too_many(wait.max(Duration::from_secs(1))))
            }
        }
    }

    /// Forgets clients whose buckets are full again (run now and then, so memory stays
    /// bounded by the clients of the last minutes).
    pub fn forget_idle(&self) {
        for l in [
            &self.cart,
            &self.checkout,
            &self.gift_card,
            &self.form,
            &self.sign_in,
        ] {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_429_per_client_and_tenant() {
        let limits = Limits::new(Rates {
            cart_writes_per_minute: 6,
            ..Rates::default()
        });
        let (a, b) = (IpAddr::from([10, 0, 0, 1]), IpAddr::from([10, 0, 0, 2]));
        // Burst of a third of the minute's rate.
        assert!(limits.check(Family::CartWrite, TenantId(1), a).is_ok());
        assert!(limits.check(Family::CartWrite, TenantId(1), a).is_ok());
        let e = limits.check(Family::CartWrite, TenantId(1), a).unwrap_err();
        assert_eq!(e.status, axum::http::StatusCode::TOO_MANY_REQUESTS);
        assert!(e.retry_after.unwrap() >= Duration::from_secs(1));
        // Other clients, tenants and families have their own buckets.
        assert!(limits.check(Family::CartWrite, TenantId(1), b).is_ok());
        assert!(limits.check(Family::CartWrite, TenantId(2), a).is_ok());
        assert!(limits.check(Family::Checkout, TenantId(1), a).is_ok());
        limits.forget_idle();
    }

    #[test]
    fn ipv6_clients_count_by_their_64_bit_prefix() {
        let host = |last: u16| IpAddr::from([0x2001, 0xdb8, 0, 1, 0, 0, 0, last]);
        assert_eq!(counted_as(host(1)), counted_as(host(999)));
        assert_ne!(
            counted_as(host(1)),
            counted_as(IpAddr::from([0x2001, 0xdb8, 0, 2, 0, 0, 0, 1]))
        );
        let v4 = IpAddr::from([192, 0, 2, 1]);
        assert_eq!(counted_as(v4), v4);
    }
}
