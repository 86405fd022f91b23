//! Collection passwords (the lock screen, page type 103): hashed with Argon2id into a PHC
//! string (`$argon2id$v=19$m=...,t=...,p=...$<salt>$<hash>`), which is all the store keeps.
//! Verification reads the parameters from the stored string, so raising the cost later
//! leaves old hashes valid.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// Hashes `password` with Argon2id (default parameters, a random 16-byte salt).
///
/// CPU-bound (tens of milliseconds): call it from blocking code, not an async worker.
pub fn hash(password: &str) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| format!("cannot hash the password: {e}"))
}

/// Whether `password` matches the PHC string `phc`. A malformed `phc` matches nothing.
///
/// CPU-bound like [`hash`].
pub fn verify(password: &str, phc: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(phc) else {
        return false;
    };
    Argon2::default()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_and_never_hold_the_password() {
        let h = hash("orion").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(!h.contains("orion"));
        assert!(verify("orion", &h));
        assert!(!verify("Orion", &h));
        assert!(!verify("", &h));
        // Salted: the same password hashes differently each time.
        assert_ne!(hash("orion").unwrap(), h);
        assert!(!verify("orion", "not a phc string"));
        assert!(!verify("orion", ""));
    }
}
