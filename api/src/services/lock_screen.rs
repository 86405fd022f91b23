//! Unlocking a password-protected collection, or the whole site: the unlock token a right
//! password earns ([`token`], [`token_matches`]; [`site_token`], [`site_token_matches`]
//! for the site) and one attempt at the password ([`attempt`]), counted
//! against the client's bucket before the (costly) verification runs. The route and the
//! cookie are [`crate::routes::lock_screen`].

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use tenants::{RateBucket, Store, StoreError, TenantId};

use crate::http::signing::from_hex;

/// Unlock attempts one client address may make on one tenant at once: plenty for a
/// visitor who mistypes, few for guessing.
pub const MAX_ATTEMPTS: u32 = 10;

/// Once those are spent, one more attempt per this long.
pub const ATTEMPT_WINDOW: Duration = Duration::from_secs(60);

/// The bucket of unlock attempts per (tenant, client address): [`MAX_ATTEMPTS`] in a
/// burst, then one per [`ATTEMPT_WINDOW`].
pub const ATTEMPTS: RateBucket = RateBucket {
    interval: ATTEMPT_WINDOW,
    burst: MAX_ATTEMPTS,
};

type HmacSha256 = Hmac<Sha256>;

fn mac(password_hash: &str, tenant: TenantId, collection_id: &str) -> HmacSha256 {
    // HMAC takes keys of any length.
    let mut m = HmacSha256::new_from_slice(password_hash.as_bytes()).expect("any key length");
    m.update(format!("{tenant}:{collection_id}").as_bytes());
    m
}

/// The site's own HMAC input, `site:<tenant id>`: a collection's is `<tenant id>:<id>`,
/// which starts with a digit, so no collection's token is the site's, even under the same
/// key.
fn site_mac(password_hash: &str, tenant: TenantId) -> HmacSha256 {
    let mut m = HmacSha256::new_from_slice(password_hash.as_bytes()).expect("any key length");
    m.update(format!("site:{tenant}").as_bytes());
    m
}

/// The site's unlock token: hex HMAC-SHA256 keyed by the site password's hash over
/// `site:<tenant id>`.
pub fn site_token(password_hash: &str, tenant: TenantId) -> String {
    hex::encode(site_mac(password_hash, tenant).finalize().into_bytes())
}

/// Whether `token` (hex) is the site's unlock token; compared in constant time.
pub fn site_token_matches(password_hash: &str, tenant: TenantId, token: &str) -> bool {
    let Some(bytes) = from_hex(token) else {
        return false;
    };
    site_mac(password_hash, tenant).verify_slice(&bytes).is_ok()
}

/// What a password unlocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lock {
    /// The whole site (its site password).
    Site,
    /// One password-protected collection, by id.
    Collection(String),
}

/// The unlock token of a collection: hex HMAC-SHA256 keyed by its password hash over
/// `<tenant id>:<collection id>`.
pub fn token(password_hash: &str, tenant: TenantId, collection_id: &str) -> String {
    let bytes = mac(password_hash, tenant, collection_id)
        .finalize()
        .into_bytes();
    hex::encode(bytes)
}

/// Whether `token` (hex) is the collection's unlock token; compared in constant time.
pub fn token_matches(
    password_hash: &str,
    tenant: TenantId,
    collection_id: &str,
    token: &str,
) -> bool {
    let Some(bytes) = from_hex(token) else {
        return false;
    };
    mac(password_hash, tenant, collection_id)
        .verify_slice(&bytes)
        .is_ok()
}

/// Why an attempt got no answer about the password.
#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// The client's attempts are spent; one more is admitted after this long.
    #[error("too many unlock attempts; the next in {0:?}")]
    TooMany(Duration),
    /// Counting the attempt failed.
    #[error("counting an unlock attempt failed: {0}")]
    Store(#[from] StoreError),
    /// The verification did not finish (it panicked).
    #[error("the password check failed: {0}")]
    Check(#[from] tokio::task::JoinError),
}

/// One attempt at a collection's (or the site's) password by `client` on `tenant`: counted first (so that
/// a burst of parallel attempts cannot all get through), then verified against `hash` on
/// the blocking pool (one Argon2 verification). The collection's unlock token when the
/// password is right, `None` when it is wrong.
pub async fn attempt(
    store: &Store,
    tenant: TenantId,
    client: IpAddr,
    lock: &Lock,
    hash: Arc<str>,
    password: String,
) -> Result<Option<String>, AttemptError> {
    let key = crate::http::limits::bucket_key("unlock", client);
    if let Some(wait) = store.spend_rate(tenant, &key, ATTEMPTS).await? {
        return Err(AttemptError::TooMany(wait));
    }
    let check = hash.clone();
    let right =
        tokio::task::spawn_blocking(move || tenants::password::verify(&password, &check)).await?;
    Ok(right.then(|| match lock {
        Lock::Site => site_token(&hash, tenant),
        Lock::Collection(id) => token(&hash, tenant, id),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_bound_to_hash_tenant_and_collection() {
        let t = token("$argon2id$a", TenantId(7), "c1");
        assert_eq!(t.len(), 64);
        assert!(token_matches("$argon2id$a", TenantId(7), "c1", &t));
        assert!(!token_matches("$argon2id$b", TenantId(7), "c1", &t));
        assert!(!token_matches("$argon2id$a", TenantId(8), "c1", &t));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c2", &t));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c1", &t[..62]));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c1", "zz"));
        assert!(!token_matches("$argon2id$a", TenantId(7), "c1", ""));
    }

    #[test]
    fn the_sites_token_is_no_collections() {
        let t = site_token("$argon2id$a", TenantId(7));
        assert!(site_token_matches("$argon2id$a", TenantId(7), &t));
        assert!(!site_token_matches("$argon2id$b", TenantId(7), &t));
        assert!(!site_token_matches("$argon2id$a", TenantId(8), &t));
        assert!(!site_token_matches("$argon2id$a", TenantId(7), &t[..62]));
        // Neither way round, under the same key, whatever the collection's id.
        for id in ["site", "7", "", "site:7"] {
            assert!(!token_matches("$argon2id$a", TenantId(7), id, &t), "{id}");
            let c = token("$argon2id$a", TenantId(7), id);
            assert!(!site_token_matches("$argon2id$a", TenantId(7), &c), "{id}");
        }
    }
}
