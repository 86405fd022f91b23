//! The one error type of the storage layer.

use std::fmt;

/// Everything a storage call can fail with.
///
/// Callers branch on the domain variants (`NotFound`, `Conflict`, `OutOfStock`, ...); the
/// backend variants carry the driver's message for logs.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The row asked for does not exist for this tenant.
    #[error("not found: {0}")]
    NotFound(String),
    /// A uniqueness rule was broken (a domain already taken, a duplicate slug, ...).
    #[error("conflict: {0}")]
    Conflict(String),
    /// A cart add asked for more units than are available.
    #[error("not enough stock for {sku}: asked {requested}")]
    OutOfStock {
        /// The variant that ran out.
        sku: String,
        /// How many units were asked for.
        requested: i64,
    },
    /// A commerce rule refuses the request (an unavailable variant, an empty cart, a
    /// subtotal below the minimum, ...).
    #[error("refused: {0}")]
    Refused(crate::commerce::Refusal),
    /// The owner asked for a move an order's state does not allow (or for more units or
    /// money than it has left); nothing was changed.
    #[error("{0}")]
    Illegal(crate::commerce::order_state::Illegal),
    /// Input the store refuses (bad host name, negative quantity, malformed JSON, ...).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The database's schema is newer than this binary, or a migration was edited.
    #[error("migration error: {0}")]
    Migration(String),
    /// The PostgreSQL driver or pool failed.
    #[error("postgres: {0}")]
    Postgres(String),
    /// SQLite or its pool failed.
    #[error("sqlite: {0}")]
    Sqlite(String),
    /// A stored value did not have the shape the code expects.
    #[error("decode: {0}")]
    Decode(String),
    /// Reading a file (data directory, import folder) failed.
    #[error("io: {0}")]
    Io(String),
}

/// Shorthand for results of storage calls.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl StoreError {
    pub(crate) fn decode(what: impl fmt::Display) -> Self {
        StoreError::Decode(what.to_string())
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> Self {
        if let Some(db) = e.as_db_error() {
            if *db.code() == tokio_postgres::error::SqlState::UNIQUE_VIOLATION {
                return StoreError::Conflict(db.message().to_owned());
            }
            if *db.code() == tokio_postgres::error::SqlState::FOREIGN_KEY_VIOLATION {
                return StoreError::NotFound(format!(
                    "a referenced row is missing ({})",
                    db.message()
                ));
            }
        }
        StoreError::Postgres(match e.as_db_error() {
            Some(db) => format!("{}: {}", db.code().code(), db.message()),
            None => e.to_string(),
        })
    }
}

impl From<deadpool_sqlite::rusqlite::Error> for StoreError {
    fn from(e: deadpool_sqlite::rusqlite::Error) -> Self {
        use deadpool_sqlite::rusqlite::{Error, ffi};
        if let Error::SqliteFailure(f, msg) = &e
            && (f.extended_code == ffi::SQLITE_CONSTRAINT_UNIQUE
                || f.extended_code == ffi::SQLITE_CONSTRAINT_PRIMARYKEY)
        {
            return StoreError::Conflict(msg.clone().unwrap_or_else(|| e.to_string()));
        }
        if let Error::SqliteFailure(f, msg) = &e
            && f.extended_code == ffi::SQLITE_CONSTRAINT_FOREIGNKEY
        {
            let what = msg.clone().unwrap_or_else(|| e.to_string());
            return StoreError::NotFound(format!("a referenced row is missing ({what})"));
        }
        StoreError::Sqlite(e.to_string())
    }
}

impl From<std::io::Error> for StoreError {
    fn from(e: std::io::Error) -> Self {
        StoreError::Io(e.to_string())
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Decode(e.to_string())
    }
}
