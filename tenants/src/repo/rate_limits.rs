//! Rate-limit buckets kept in the store, so that a limit holds however many nodes answer:
//! one row per (tenant, bucket key), spent by one atomic statement.
//!
//! The algorithm is GCRA (the token bucket `governor` implements): a bucket allowing a
//! burst of `burst` calls and then one per `interval` keeps one time, its "theoretical
//! arrival time" `tat`. A call at `now` is allowed when `max(tat, now) + interval - now` is
//! at most `burst * interval`, and then moves `tat` to `max(tat, now) + interval`. The
//! UPSERT below does the test and the move in one statement: the row is locked for it on
//! PostgreSQL (concurrent calls on other nodes take turns), and SQLite has one writer.
//! When the conditional update does not apply, nothing changes and no row is returned:
//! the call is refused.

use std::time::Duration;

use crate::error::Result;
use crate::ids::{TenantId, now_ms};
use crate::params;
use crate::store::Store;

/// A bucket's shape: `burst` calls at once, then one every `interval`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bucket {
    /// How often one more call is allowed once the burst is spent.
    pub interval: Duration,
    /// How many calls a full bucket allows at once.
    pub burst: u32,
}

impl Bucket {
    /// `per_minute` calls a minute with bursts of `burst`.
    pub fn per_minute(per_minute: u32, burst: u32) -> Bucket {
        Bucket {
            interval: Duration::from_millis(60_000 / u64::from(per_minute.max(1))),
            burst: burst.max(1),
        }
    }
}

/// `$3` now, `$4` the interval, `$5` the burst tolerance (`burst * interval`), all ms.
/// `CASE` rather than GREATEST/MAX, which the two dialects spell differently; the casts
/// give PostgreSQL the parameters' types.
const SPEND: &str = "INSERT INTO rate_limit (tenant_id, bucket, tat_ms) \
     VALUES ($1, $2, CAST($3 AS BIGINT) + CAST($4 AS BIGINT)) \
     ON CONFLICT (tenant_id, bucket) DO UPDATE \
     SET tat_ms = (CASE WHEN rate_limit.tat_ms > $3 THEN rate_limit.tat_ms ELSE $3 END) + $4 \
     WHERE (CASE WHEN rate_limit.tat_ms > $3 THEN rate_limit.tat_ms ELSE $3 END) + $4 - $3 <= $5 \
     RETURNING tat_ms";

impl Store {
    /// Spends one call from `tenant`'s bucket `key` (created full on first use). `Ok(None)`
    /// when allowed; `Ok(Some(wait))` when refused, with how long until a call would be.
    pub async fn spend_rate(
        &self,
        tenant: TenantId,
        key: &str,
        bucket: Bucket,
    ) -> Result<Option<Duration>> {
        let interval = i64::try_from(bucket.interval.as_millis()).unwrap_or(i64::MAX / 4);
        // More than one call a millisecond (over 60,000 a minute) is no limit at all, and
        // with a zero interval the test below would refuse a call whose `now` was read just
        // before another's that committed first.
        if interval == 0 {
            return Ok(None);
        }
        let now = now_ms();
        let tolerance = interval.saturating_mul(i64::from(bucket.burst));
        let mut tx = self.write().await?;
        let spent = tx
            .query_opt(SPEND, params![tenant, key, now, interval, tolerance])
            .await?;
        let wait = match spent {
            Some(_) => None,
            None => {
                let tat = tx
                    .query_opt(
                        "SELECT tat_ms FROM rate_limit WHERE tenant_id = $1 AND bucket = $2",
                        params![tenant, key],
                    )
                    .await?
                    .map(|r| r.i64(0))
                    .transpose()?
                    .unwrap_or(now);
                // Allowed again once tat + interval - t <= tolerance.
                let ms = (tat + interval - tolerance - now).max(0);
                Some(Duration::from_millis(ms as u64))
            }
        };
        tx.commit().await?;
        Ok(wait)
    }

    /// Forgets buckets that are full again (their time has passed), site by site; returns
    /// how many.
    pub async fn sweep_rate_limits(&self) -> Result<u64> {
        self.sweep_expired("rate_limit", "tat_ms", now_ms()).await
    }
}
