//! Checking and hashing passwords (Argon2id, [`tenants::password`]) off the async workers:
//! each takes tens of milliseconds of CPU. Members and owners sign in through the same
//! two functions.

/// Whether `password` matches `hash`. Without a hash (no such account, or one whose
/// password is not set yet) it is checked against a made-up one, so a refusal takes as
/// long whether or not the account exists.
pub async fn matches(password: String, hash: Option<String>) -> bool {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    tokio::task::spawn_blocking(move || {
        let decoy =
            DECOY.get_or_init(|| tenants::password::hash("decoy-password").unwrap_or_default());
        match &hash {
            Some(h) => tenants::password::verify(&password, h),
            None => {
                tenants::password::verify(&password, decoy);
                false
            }
        }
    })
    .await
    .unwrap_or(false)
}

/// The password could not be hashed (logged).
#[derive(Debug, thiserror::Error)]
#[error("the password could not be hashed")]
pub struct HashFailed;

/// `password`'s Argon2id PHC string, for the store to keep.
pub async fn hash(password: String) -> Result<String, HashFailed> {
    tokio::task::spawn_blocking(move || tenants::password::hash(&password))
        .await
        .map_err(|_| HashFailed)?
        .map_err(|e| {
            tracing::error!(error = %e, "hashing a password");
            HashFailed
        })
}
