//! What the owner app's lists share: `?limit=` (default 50, at most 200), `?after=` (the
//! `next` of the page before: an opaque cursor) and `?q=` (a search, at most 100
//! characters). A bad one is 400 naming it.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::http::ApiError;
use crate::http::call::Call;

/// Rows a page holds unless `limit` says.
pub const DEFAULT_LIMIT: usize = 50;
/// The most rows a page holds.
pub const MAX_LIMIT: usize = 200;
/// The longest search.
pub const MAX_QUERY: usize = 100;
/// The longest cursor read.
const MAX_CURSOR: usize = 1024;

pub const BAD_LIMIT: &str = "limit must be a whole number from 1 to 200.";
pub const BAD_AFTER: &str = "after must be the next value of the page before.";
pub const LONG_QUERY: &str = "A search can have at most 100 characters.";

/// `?limit=`.
pub fn limit(call: &Call) -> Result<usize, ApiError> {
    match call.query("limit") {
        None => Ok(DEFAULT_LIMIT),
        Some(l) => l
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|l| (1..=MAX_LIMIT).contains(l))
            .ok_or_else(|| ApiError::field("limit", BAD_LIMIT)),
    }
}

/// `?q=`, trimmed; `None` when empty.
pub fn search(call: &Call) -> Result<Option<String>, ApiError> {
    let Some(q) = call.query("q") else {
        return Ok(None);
    };
    let q = q.trim();
    if q.chars().count() > MAX_QUERY {
        return Err(ApiError::field("q", LONG_QUERY));
    }
    Ok((!q.is_empty()).then(|| q.to_owned()))
}

/// `?after=` read back as the cursor it was made from.
pub fn after<T: DeserializeOwned>(call: &Call) -> Result<Option<T>, ApiError> {
    let Some(a) = call.query("after").filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    let bad = || ApiError::field("after", BAD_AFTER);
    if a.len() > MAX_CURSOR {
        return Err(bad());
    }
    let bytes = URL_SAFE_NO_PAD.decode(a.as_bytes()).map_err(|_| bad())?;
    serde_json::from_slice(&bytes).map(Some).map_err(|_| bad())
}

/// A cursor as the `next` a page answers.
pub fn next<T: Serialize>(cursor: Option<T>) -> Option<String> {
    let json = serde_json::to_vec(&cursor?).ok()?;
    Some(URL_SAFE_NO_PAD.encode(json))
}
