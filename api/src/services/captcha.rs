//! Captchas for the visitor forms that send mail or join lists (site forms with a captcha,
//! newsletter forms, restock sign-ups).
//!
//! Two providers behind one interface:
//! - **Proof of work** (the default): no third party, works offline. `GET
//!   /api/captcha/challenge` hands out a challenge signed with the site's secret
//!   (`id.expires.difficulty.signature`); the browser finds a decimal nonce such that
//!   SHA-256 of `challenge:nonce` starts with `difficulty` zero bits and sends
//!   `challenge:nonce` as the token. Checking costs one hash; solving costs about
//!   2^difficulty. A token works once (spent challenges are stored, so on every node) and
//!   for ten minutes.
//! - **reCAPTCHA** (configured with a site key and secret, never required): the browser shows
//!   Google's checkbox and the server asks `siteverify` about the token.
//!
//! Refusals carry SPEC.md §8's messages: "Complete CAPTCHA before submitting." when no
//! token came, "reCAPTCHA failed. Refresh this page and try again." when it did not pass.

use std::net::IpAddr;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tenants::{Store, now_ms};
use utoipa::ToSchema;

use crate::http::signing;
use crate::http::site::Site;

/// SPEC.md §8: no token.
pub const MISSING: &str = "Complete CAPTCHA before submitting.";
/// SPEC.md §8: a token that did not pass (wrong, used, expired, or the provider said no).
pub const FAILED: &str = "reCAPTCHA failed. Refresh this page and try again.";

/// How long a proof-of-work challenge can be solved and used.
pub const CHALLENGE_LIFETIME: Duration = Duration::from_secs(10 * 60);
/// Leading zero bits of the default proof of work: about 65,000 hashes, a fraction of a
/// second in a browser, and as many per submission for a script.
pub const DEFAULT_DIFFICULTY: u32 = 16;
/// Google's verification endpoint.
pub const RECAPTCHA_VERIFY_URL: &str = "https://www.google.com/recaptcha/api/siteverify";

/// What the browser needs to show the captcha, by `provider`.
#[derive(Serialize, ToSchema)]
#[serde(tag = "provider")]
#[schema(as = CaptchaChallenge)]
pub enum Challenge {
    /// Find a decimal nonce such that SHA-256 of `challenge:nonce` starts with `difficulty`
    /// zero bits; send `challenge:nonce` as the captcha token.
    #[serde(rename = "proof-of-work", rename_all = "camelCase")]
    ProofOfWork {
        challenge: String,
        difficulty: u32,
        expires_in_seconds: u64,
    },
    /// Show Google's reCAPTCHA with this site key; its token is the captcha token.
    #[serde(rename = "recaptcha", rename_all = "camelCase")]
    Recaptcha { site_key: String },
}

/// Why a captcha was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("no captcha token was sent")]
    Missing,
    #[error("the captcha token did not pass")]
    Failed,
}

impl Refusal {
    /// What the visitor reads.
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Missing => MISSING,
            Refusal::Failed => FAILED,
        }
    }
}

/// The server's captcha provider.
#[derive(Clone, Debug)]
pub enum Captcha {
    ProofOfWork {
        difficulty: u32,
    },
    Recaptcha {
        site_key: String,
        secret: String,
        verify_url: String,
        http: reqwest::Client,
    },
}

impl Default for Captcha {
    fn default() -> Captcha {
        Captcha::ProofOfWork {
            difficulty: DEFAULT_DIFFICULTY,
        }
    }
}

impl Captcha {
    /// reCAPTCHA with these keys, verified at `verify_url` (Google's unless a test points
    /// it elsewhere).
    pub fn recaptcha(site_key: String, secret: String, verify_url: Option<String>) -> Captcha {
        // rustls needs its crypto provider chosen once per process; a second call is a no-op.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .build()
            .expect("an HTTP client with the ring provider");
        Captcha::Recaptcha {
            site_key,
            secret,
            verify_url: verify_url.unwrap_or_else(|| RECAPTCHA_VERIFY_URL.to_owned()),
            http,
        }
    }

    /// `website.captchaSettings`: what pages and islands know of the provider.
    pub fn settings(&self) -> Value {
        match self {
            Captcha::ProofOfWork { .. } => {
                json!({ "provider": "proof-of-work", "siteKey": "proof-of-work" })
            }
            Captcha::Recaptcha { site_key, .. } => {
                json!({ "provider": "recaptcha", "siteKey": site_key })
            }
        }
    }

    /// What the browser needs to show the captcha: a fresh proof-of-work challenge for this
    /// site, or the reCAPTCHA site key.
    pub fn challenge(&self, secret: &[u8; 32]) -> Challenge {
        match self {
            Captcha::ProofOfWork { difficulty } => {
                let expires = now_ms() + CHALLENGE_LIFETIME.as_millis() as i64;
                let body = format!("{}.{expires}.{difficulty}", signing::random_hex(12));
                let signature = signing::sign(secret, "captcha", &body);
                Challenge::ProofOfWork {
                    challenge: format!("{body}.{signature}"),
                    difficulty: *difficulty,
                    expires_in_seconds: CHALLENGE_LIFETIME.as_secs(),
                }
            }
            Captcha::Recaptcha { site_key, .. } => Challenge::Recaptcha {
                site_key: site_key.clone(),
            },
        }
    }

    /// Checks a visitor's token for `site` (the visitor at `client`); a passing proof-of-work
    /// token is spent.
    pub async fn check(
        &self,
        store: &Store,
        site: &Site,
        client: IpAddr,
        token: Option<&str>,
    ) -> Result<(), Refusal> {
        let token = token.map(str::trim).filter(|t| !t.is_empty());
        let Some(token) = token else {
            return Err(Refusal::Missing);
        };
        match self {
            Captcha::ProofOfWork { difficulty } => {
                let (id, expires) =
                    solved(token, &site.secret, *difficulty, now_ms()).ok_or(Refusal::Failed)?;
                match store.spend_captcha(site.tenant.id, id, expires).await {
                    Ok(true) => Ok(()),
                    Ok(false) => Err(Refusal::Failed),
                    Err(e) => {
                        tracing::error!(error = %e, "spending a captcha challenge failed");
                        Err(Refusal::Failed)
                    }
                }
            }
            Captcha::Recaptcha {
                secret,
                verify_url,
                http,
                ..
            } => {
                let ip = client.to_string();
                let answer = http
                    .post(verify_url)
                    .form(&[
                        ("secret", secret.as_str()),
                        ("response", token),
                        ("remoteip", &ip),
                    ])
                    .send()
                    .await;
                let passed = match answer {
                    Ok(r) => r
                        .json::<Value>()
                        .await
                        .ok()
                        .and_then(|v| v.get("success").and_then(Value::as_bool))
                        .unwrap_or(false),
                    Err(e) => {
                        tracing::warn!(error = %e, "reCAPTCHA verification failed");
                        false
                    }
                };
                if passed { Ok(()) } else { Err(Refusal::Failed) }
            }
        }
    }
}

/// Leading zero bits of a hash.
fn zero_bits(hash: &[u8]) -> u32 {
    let mut n = 0;
    for b in hash {
        if *b == 0 {
            n += 8;
        } else {
            return n + b.leading_zeros();
        }
    }
    n
}

/// For a proof-of-work token `challenge:nonce` that this site signed, has not expired at
/// `now`, asks at least `difficulty` bits and is solved: the challenge id and expiry.
fn solved<'t>(
    token: &'t str,
    secret: &[u8; 32],
    difficulty: u32,
    now: i64,
) -> Option<(&'t str, i64)> {
    let (challenge, nonce) = token.rsplit_once(':')?;
    if nonce.is_empty() || nonce.len() > 20 || !nonce.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (body, signature) = challenge.rsplit_once('.')?;
    if !signing::verify(secret, "captcha", body, signature) {
        return None;
    }
    let mut parts = body.split('.');
    let (id, expires, asked) = (parts.next()?, parts.next()?, parts.next()?);
    let expires: i64 = expires.parse().ok()?;
    let asked: u32 = asked.parse().ok()?;
    if expires <= now || asked < difficulty {
        return None;
    }
    (zero_bits(&Sha256::digest(token.as_bytes())) >= asked).then_some((id, expires))
}

/// Solves a proof-of-work challenge (what the browser does; for tests and tools).
pub fn solve(challenge: &str, difficulty: u32) -> String {
    (0u64..)
        .map(|n| format!("{challenge}:{n}"))
        .find(|t| zero_bits(&Sha256::digest(t.as_bytes())) >= difficulty)
        .expect("some nonce solves it")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn challenge_with(secret: &[u8; 32], expires: i64, difficulty: u32) -> String {
        let body = format!("abc.{expires}.{difficulty}");
        format!("{body}.{}", signing::sign(secret, "captcha", &body))
    }

    #[test]
    fn zero_bits_count_from_the_first_byte() {
        assert_eq!(zero_bits(&[0xff]), 0);
        assert_eq!(zero_bits(&[0x00, 0x10]), 11);
        assert_eq!(zero_bits(&[0, 0]), 16);
    }

    #[test]
    fn a_solved_signed_unexpired_challenge_passes_and_nothing_else_does() {
        let secret = [7u8; 32];
        let c = challenge_with(&secret, 2_000, 8);
        let token = solve(&c, 8);
        assert_eq!(solved(&token, &secret, 8, 1_000), Some(("abc", 2_000)));
        // Expired, another site's secret, a server now asking more, no or a wrong nonce.
        assert_eq!(solved(&token, &secret, 8, 2_000), None);
        assert_eq!(solved(&token, &[8u8; 32], 8, 1_000), None);
        assert_eq!(solved(&token, &secret, 9, 1_000), None);
        assert_eq!(solved(&c, &secret, 8, 1_000), None);
        let unsolved = (0u64..)
            .map(|n| format!("{c}:{n}"))
            .find(|t| zero_bits(&Sha256::digest(t.as_bytes())) < 8)
            .unwrap();
        assert_eq!(solved(&unsolved, &secret, 8, 1_000), None);
        // A forged difficulty breaks the signature.
        let forged = token.replacen(".8.", ".0.", 1);
        assert_eq!(solved(&forged, &secret, 0, 1_000), None);
    }
}
