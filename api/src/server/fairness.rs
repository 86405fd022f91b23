//! Per-site fairness: one site's flood cannot starve the others.
//!
//! Every request counts against its site (the one [`crate::server::site::resolve_layer`]
//! found for its `Host`) while its handler runs. A site with `cap` requests in flight gets
//! `503 Service Unavailable` with `Retry-After: 1` for the next one at once, before any work
//! is done for it, so a flood of slow or expensive requests to one site holds at most `cap`
//! of the server's workers, database connections and blocking threads, and the other sites'
//! requests do not queue behind it. Requests whose host names no site share one count (a
//! flood of made-up hosts is one "site"); `/healthz` is never counted.
//!
//! The cap is a share of the whole (`--tenant-max-in-flight`, by default an eighth of
//! `--max-connections`), not a queue: a refused request costs the server a site lookup (from
//! the caches) and a short answer. How it holds up is measured by `benches/fairness.sh`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tenants::TenantId;

use crate::http::error::ApiError;
use crate::http::site::Resolved;

/// The per-site cap.
#[derive(Clone)]
pub struct Fairness {
    counts: Counts,
}

/// The seconds a refused client is asked to wait.
const RETRY_AFTER: &str = "1";

impl Fairness {
    /// `cap` requests in flight per site; 0 turns the cap off.
    pub fn new(cap: usize) -> Fairness {
        Fairness {
            counts: Counts {
                cap,
                in_flight: Default::default(),
            },
        }
    }
}

/// The counts of requests in flight per site, and the cap.
#[derive(Clone)]
struct Counts {
    cap: usize,
    /// Sites with requests in flight (`None`: hosts that name no site).
    in_flight: Arc<Mutex<HashMap<Option<TenantId>, usize>>>,
}

impl Counts {
    /// A place for one more request of `site`, or `None` when it has `cap` in flight.
    fn enter(&self, site: Option<TenantId>) -> Option<InFlight> {
        let mut counts = self.in_flight.lock().expect("not poisoned");
        let n = counts.entry(site).or_insert(0);
        if *n >= self.cap {
            return None;
        }
        *n += 1;
        Some(InFlight {
            of: self.clone(),
            site,
        })
    }
}

/// One request in flight; dropping it (the handler answered, or the client went away and
/// the handler was dropped) frees its place.
struct InFlight {
    of: Counts,
    site: Option<TenantId>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut counts = self.of.in_flight.lock().expect("not poisoned");
        if let Some(n) = counts.get_mut(&self.site) {
            *n -= 1;
            // Only sites with requests in flight are kept: the map stays small.
            if *n == 0 {
                counts.remove(&self.site);
            }
        }
    }
}

/// The middleware (`axum::middleware::from_fn_with_state`).
pub async fn limit(State(fair): State<Fairness>, req: Request, next: Next) -> Response {
    if fair.counts.cap == 0 || req.uri().path() == "/healthz" {
        return next.run(req).await;
    }
    // A request with no site (an unknown host, or the store failed to say) counts with the
    // unknown hosts.
    let site = req
        .extensions()
        .get::<Resolved>()
        .and_then(|r| r.0.as_ref().ok())
        .map(|s| s.tenant.id);
    let Some(_place) = fair.counts.enter(site) else {
        return busy(req.uri().path());
    };
    next.run(req).await
}

/// The answer to a request over its site's share: the API's JSON error on API routes, a
/// plain page elsewhere; either way `Retry-After`.
fn busy(path: &str) -> Response {
    let mut response = if path.starts_with("/api/") {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "This site is busy right now. Please try again in a moment.",
        );
        e.retry_after = Some(std::time::Duration::from_secs(1));
        e.into_response()
    } else {
        crate::http::small_page::plain(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable")
    };
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_gets_its_share_and_others_theirs() {
        let fair = Counts {
            cap: 2,
            in_flight: Default::default(),
        };
        let (a, b) = (Some(TenantId(1)), Some(TenantId(2)));
        let first = fair.enter(a).unwrap();
        let second = fair.enter(a).unwrap();
        assert!(
            fair.enter(a).is_none(),
            "a third request of a is over its share"
        );
        assert!(fair.enter(b).is_some(), "b is not held up by a");
        assert!(
            fair.enter(None).is_some(),
            "unknown hosts have their own share"
        );
        drop(first);
        assert!(
            fair.enter(a).is_some(),
            "an answered request frees its place"
        );
        drop(second);
        assert!(
            fair.in_flight.lock().unwrap().is_empty(),
            "no site is kept idle"
        );
    }
}
