//! Identifiers: the `TenantId` newtype every repository method takes, and the 24-hex ids of
//! content and commerce rows (the shape the page context uses).

use std::fmt;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A tenant (one website). Every row in the store belongs to exactly one tenant and every
/// repository method takes one of these, so no query can be built without a tenant scope.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct TenantId(pub i64);

impl fmt::Display for TenantId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A template version of one tenant: the upload counter of its template folder. Compiled
/// templates are cached under `(TenantId, TemplateVersion)`, so a new upload never meets a
/// stale compiled template.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct TemplateVersion(pub i64);

/// The SHA-256 of a template version's files ([`crate::template_hash`]): equal hashes mean
/// equal folders, which compile to the same thing whichever tenant owns them.
pub type TemplateHash = [u8; 32];

impl fmt::Display for TemplateVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh 24-hex-digit id (4 bytes of seconds since the epoch, then 8 random bytes), the
/// format TEMPLATE-PLATFORM.md gives for collection, item and website ids.
///
/// The random part comes from std's randomly seeded SipHash keys mixed with a process-wide
/// counter and the clock, so ids from concurrent nodes do not collide in practice.
pub fn new_id() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let mut h = std::hash::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(now.as_nanos());
    h.write_u32(std::process::id());
    format!("{:08x}{:016x}", now.as_secs() as u32, h.finish())
}

/// Milliseconds since the Unix epoch: how the store records instants (portable across both
/// backends, and what the page context uses).
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// What the store keeps of a bearer secret it must find again by value (an owner token, a
/// member's session token, a sign-up link's token): its SHA-256, as lower-case hex. A copy
/// of the database alone never holds a working secret.
pub fn secret_digest(secret: &str) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(secret.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_24_hex_and_distinct() {
        let a = new_id();
        let b = new_id();
        assert_eq!(a.len(), 24);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
