//! The owner's credential for owner routes (restock listings and sends, for now): a bearer
//! token per site from `tessera serve --owner-token SITE=TOKEN` (or `TESSERA_OWNER_TOKENS`,
//! `SITE=TOKEN,…`). The owner-API issue replaces this with stored, revocable tokens per role.
//! A token is checked against the site the request's `Host` names, so one site's token is
//! useless on another's host.

use std::collections::HashMap;

use axum::http::{HeaderMap, StatusCode, header};
use sha2::{Digest, Sha256};

use super::ApiError;
use super::call::Call;

/// SHA-256 of each site's token, by site identifier.
#[derive(Clone, Debug, Default)]
pub struct OwnerTokens(HashMap<String, [u8; 32]>);

/// A missing or wrong token.
pub const UNAUTHORIZED: &str = "This needs the site owner's token (Authorization: Bearer …).";

impl OwnerTokens {
    /// From `SITE=TOKEN` pairs; an empty token or a pair without `=` is an error.
    pub fn parse<'a>(pairs: impl IntoIterator<Item = &'a str>) -> Result<OwnerTokens, String> {
        let mut map = HashMap::new();
        for pair in pairs {
            let (site, token) = pair
                .split_once('=')
                .filter(|(s, t)| !s.trim().is_empty() && t.trim().len() >= 16)
                .ok_or_else(|| {
                    format!("owner token {pair:?}: write SITE=TOKEN, with a token of 16 characters or more")
                })?;
            map.insert(
                site.trim().to_owned(),
                Sha256::digest(token.trim().as_bytes()).into(),
            );
        }
        Ok(OwnerTokens(map))
    }

    /// Whether `headers` carry the owner's token of the site `identifier`.
    pub fn is_owner(&self, identifier: &str, headers: &HeaderMap) -> bool {
        let expected = self.0.get(identifier);
        let given = bearer(headers).map(|t| <[u8; 32]>::from(Sha256::digest(t.as_bytes())));
        // Digests compared whole: equal-length values whose comparison time says nothing
        // about the token.
        matches!((expected, given), (Some(e), Some(g)) if *e == g)
    }

    /// The call's site's owner, or 401.
    pub fn check(&self, call: &Call) -> Result<(), ApiError> {
        if self.is_owner(&call.site.tenant.identifier, &call.headers) {
            return Ok(());
        }
        let mut e = ApiError::new(StatusCode::UNAUTHORIZED, UNAUTHORIZED);
        e.body["ownerAuthRequired"] = true.into();
        Err(e)
    }
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_need_a_site_and_a_long_token() {
        assert!(OwnerTokens::parse(["loam=0123456789abcdef"]).is_ok());
        for bad in ["loam", "=0123456789abcdef", "loam=short"] {
            assert!(OwnerTokens::parse([bad]).is_err(), "{bad}");
        }
    }
}
