//! The crumb: the CSRF token of visitor calls (DESIGN.md "JSON API conventions"). Page
//! views set a `crumb` cookie (readable by scripts, so the page's islands can send it back);
//! every state-changing call must carry the same value in `X-CSRF-Token` (or a `crumb` form
//! field). A crumb is 16 random bytes and their signature with the tenant's secret, so a
//! crumb made for one tenant is refused by another, and one a third party planted without
//! the secret is refused everywhere.

use axum::http::HeaderMap;

use super::cookies;
use super::error::ApiError;
use super::signing::{random_hex, sign, verify};

/// The cookie's name (SPEC.md §3 "Cookies").
pub const COOKIE: &str = "crumb";

/// The request header that carries it back.
pub const HEADER: &str = "x-csrf-token";

const NONCE_HEX: usize = 32;

/// A fresh crumb for a tenant.
pub fn new(secret: &[u8; 32]) -> String {
    let nonce = random_hex(NONCE_HEX / 2);
    let sig = sign(secret, "crumb", &nonce);
    format!("{nonce}{sig}")
}

/// Whether `crumb` was made with this tenant's secret.
pub fn valid(secret: &[u8; 32], crumb: &str) -> bool {
    crumb.len() > NONCE_HEX
        && crumb.is_char_boundary(NONCE_HEX)
        && verify(secret, "crumb", &crumb[..NONCE_HEX], &crumb[NONCE_HEX..])
}

/// The visitor's valid crumb cookie, if any.
pub fn of_visitor<'h>(headers: &'h HeaderMap, secret: &[u8; 32]) -> Option<&'h str> {
    cookies::values(headers, COOKIE).find(|c| valid(secret, c))
}

/// Checks a state-changing call: the crumb sent (`X-CSRF-Token`, else `form_crumb`) must be
/// one of the visitor's crumb cookies and valid for this tenant. 403 `crumbFail` otherwise.
pub fn check(
    headers: &HeaderMap,
    form_crumb: Option<&str>,
    secret: &[u8; 32],
) -> Result<(), ApiError> {
    let sent = headers
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .or(form_crumb)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(ApiError::crumb_fail)?;
    let matches = cookies::values(headers, COOKIE).any(|c| same(c, sent));
    if matches && valid(secret, sent) {
        Ok(())
    } else {
        Err(ApiError::crumb_fail())
    }
}

/// Compares without stopping at the first difference.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(cookie: Option<&str>, token: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(c) = cookie {
            h.insert(
                "cookie",
                HeaderValue::from_str(&format!("crumb={c}")).unwrap(),
            );
        }
        if let Some(t) = token {
            h.insert(HEADER, HeaderValue::from_str(t).unwrap());
        }
        h
    }

    #[test]
    fn the_header_must_match_a_valid_cookie() {
        let key = [7u8; 32];
        let c = new(&key);
        assert!(valid(&key, &c));
        assert!(check(&headers(Some(&c), Some(&c)), None, &key).is_ok());
        assert!(
            check(&headers(Some(&c), None), Some(&c), &key).is_ok(),
            "form field"
        );
        for (cookie, token) in [
            (Some(c.as_str()), None),
            (None, Some(c.as_str())),
            (Some(c.as_str()), Some("other")),
        ] {
            let e = check(&headers(cookie, token), None, &key).unwrap_err();
            assert_eq!(e.body["crumbFail"], true);
        }
        // Equal, but not made with this tenant's secret.
        let foreign = new(&[8u8; 32]);
        assert!(check(&headers(Some(&foreign), Some(&foreign)), None, &key).is_err());
        let forged = "0".repeat(64);
        assert!(check(&headers(Some(&forged), Some(&forged)), None, &key).is_err());
        assert!(!valid(&key, "é".repeat(40).as_str()));
    }
}
