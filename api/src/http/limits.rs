//! Rate limits on visitor writes, per client address and tenant (an IPv6 client counts by
//! its /64): a token bucket per family of calls (GCRA, as governor does it). Over the
//! limit, the call is answered 429 with `Retry-After` and changes nothing. Reads are not
//! limited.
//!
//! The buckets live in the store ([`tenants::Store::spend_rate`]: one row per tenant and
//! bucket, spent by one UPSERT), not in the node's memory: behind a balancer every node
//! spends from the same buckets, so N nodes do not allow N times the rate. Full buckets are
//! swept by the commerce sweeper ([`tenants::Store::sweep_rate_limits`]).

use std::net::IpAddr;

use tenants::{RateBucket, Store, TenantId};

use super::error::{ApiError, store_failure};

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
    /// Owner sign-ins and password-reset requests, per client and per address: each a
    /// password guess, or an email sent.
    OwnerSignIn,
    /// Pay-later orders: each holds stock until it is paid or expires, and mails whatever
    /// address the buyer typed, with no payment to stop a script. Counted per hour.
    PayLater,
}

impl Family {
    /// The family's part of a bucket key (stored; never rename).
    fn key(self) -> &'static str {
        match self {
            Family::CartWrite => "cart",
            Family::Checkout => "checkout",
            Family::GiftCard => "gift-card",
            Family::FormSubmit => "form",
            Family::SignIn => "sign-in",
            Family::OwnerSignIn => "owner-sign-in",
            Family::PayLater => "pay-later",
        }
    }
}

/// Calls per minute for each family (pay-later orders: per hour), with bursts of up to a
/// third of that.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rates {
    pub cart_writes_per_minute: u32,
    pub checkouts_per_minute: u32,
    pub gift_card_lookups_per_minute: u32,
    pub form_submissions_per_minute: u32,
    pub sign_ins_per_minute: u32,
    pub pay_later_orders_per_hour: u32,
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
            // A household orders a few times; a script holding stock orders hundreds.
            pay_later_orders_per_hour: 10,
        }
    }
}

impl Rates {
    /// The bucket of `family`: its rate a minute (an hour), bursts of a third of that.
    fn bucket(&self, family: Family) -> RateBucket {
        let per_minute = match family {
            Family::CartWrite => self.cart_writes_per_minute,
            Family::Checkout => self.checkouts_per_minute,
            Family::GiftCard => self.gift_card_lookups_per_minute,
            Family::FormSubmit => self.form_submissions_per_minute,
            Family::SignIn | Family::OwnerSignIn => self.sign_ins_per_minute,
            Family::PayLater => {
                let per_hour = self.pay_later_orders_per_hour.max(1);
                return RateBucket {
                    interval: std::time::Duration::from_secs(3600) / per_hour,
                    burst: (per_hour / 3).max(1),
                };
            }
        };
        RateBucket::per_minute(per_minute, per_minute / 3)
    }
}

/// The limits, shared by every request of the server: the rates, and the store that
/// keeps the buckets.
#[derive(Clone)]
pub struct Limits {
    store: Store,
    rates: Rates,
}

/// The address a client is counted as: an IPv6 client by its /64, since one host is usually
/// given a whole /64 and could otherwise take a fresh address for every burst.
pub fn counted_as(client: IpAddr) -> IpAddr {
    match client {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        v4 => v4,
    }
}

/// The bucket key of a family and client: `<family>:<address>`.
pub fn bucket_key(family: &str, client: IpAddr) -> String {
    format!("{family}:{}", counted_as(client))
}

impl Limits {
    pub fn new(store: Store, rates: Rates) -> Limits {
        Limits { store, rates }
    }

    /// Spends one call of `family` for this client of this tenant; 429 when none is left
    /// (503 if the store cannot be asked: the write would fail anyway).
    pub async fn check(
        &self,
        family: Family,
        tenant: TenantId,
        client: IpAddr,
    ) -> Result<(), ApiError> {
        self.spend(family, tenant, bucket_key(family.key(), client))
            .await
    }

    /// Spends one call of `family` for what `subject` names (an email address) on this
    /// tenant, whoever the client: a bucket keyed by the subject's SHA-256, so the store
    /// never holds the address itself.
    pub async fn check_subject(
        &self,
        family: Family,
        tenant: TenantId,
        subject: &str,
    ) -> Result<(), ApiError> {
        let digest = tenants::secret_digest(subject);
        self.spend(
            family,
            tenant,
            format!("{}:{}", family.key(), &digest[..32]),
        )
        .await
    }

    async fn spend(&self, family: Family, tenant: TenantId, key: String) -> Result<(), ApiError> {
        match self
            .store
            .spend_rate(tenant, &key, self.rates.bucket(family))
            .await
        {
            Ok(None) => Ok(()),
            Ok(Some(wait)) => Err(ApiError::too_many(wait)),
            Err(e) => Err(store_failure(&e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_burst_a_third_of_the_rate() {
        let rates = Rates {
            cart_writes_per_minute: 6,
            ..Rates::default()
        };
        let b = rates.bucket(Family::CartWrite);
        assert_eq!(b.burst, 2);
        assert_eq!(b.interval, std::time::Duration::from_secs(10));
        assert_eq!(rates.bucket(Family::SignIn).burst, 3);
        let pay_later = rates.bucket(Family::PayLater);
        assert_eq!(pay_later.burst, 3);
        assert_eq!(pay_later.interval, std::time::Duration::from_secs(360));
    }

    #[test]
    fn ipv6_clients_count_by_their_64_bit_prefix() {
        let host = |last: u16| IpAddr::from([0x2001, 0xdb8, 0, 1, 0, 0, 0, last]);
        assert_eq!(counted_as(host(1)), counted_as(host(999)));
        assert_eq!(bucket_key("cart", host(1)), bucket_key("cart", host(999)));
        assert_ne!(
            counted_as(host(1)),
            counted_as(IpAddr::from([0x2001, 0xdb8, 0, 2, 0, 0, 0, 1]))
        );
        let v4 = IpAddr::from([192, 0, 2, 1]);
        assert_eq!(counted_as(v4), v4);
        assert_eq!(bucket_key("form", v4), "form:192.0.2.1");
    }
}
