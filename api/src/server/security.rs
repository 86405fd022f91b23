//! The security headers of every response the server gives (pages, the JSON API, errors,
//! islands, public files, `/healthz`, the OpenAPI document): one layer, added once around
//! the whole router, so a route cannot forget them.
//!
//! - `Content-Security-Policy` ([`policy`]): scripts, styles, images, fonts and connections
//!   from the site's own origin only; no inline script or style but the server's own few,
//!   allowed by hash; no plugins; `<base>` and form posts kept on the site; framing by the
//!   site itself only (`frame-ancestors`).
//! - `X-Frame-Options: SAMEORIGIN`: `frame-ancestors` for browsers that predate it.
//! - `X-Content-Type-Options: nosniff`: a file is what its `Content-Type` says.
//! - `Referrer-Policy: strict-origin-when-cross-origin`: other sites see the origin, never
//!   a page's path or query (an order's page, a search, a sign-up link's token).
//!
//! Each is set only when the response has none (a response may set its own, stricter one).

use axum::http::{HeaderName, HeaderValue, header};
use base64::Engine;
use sha2::{Digest, Sha256};
use tower::ServiceBuilder;
use tower::layer::util::{Identity, Stack};
use tower_http::set_header::SetResponseHeaderLayer;

/// What the policy depends on: the server's configuration, fixed at start.
#[derive(Clone, Copy, Debug, Default)]
pub struct Config {
    /// `tessera dev`: its pages carry the live-reload script (inline, allowed by hash).
    pub dev: bool,
    /// Forms show Google's reCAPTCHA, whose script and frame come from Google.
    pub recaptcha: bool,
}

/// Where reCAPTCHA's script and box come from (Google's CSP guide for reCAPTCHA).
const RECAPTCHA_SCRIPTS: &str =
    "https://www.google.com/recaptcha/ https://www.gstatic.com/recaptcha/";
const RECAPTCHA_FRAMES: &str =
    "https://www.google.com/recaptcha/ https://recaptcha.google.com/recaptcha/";

/// `'sha256-…'`: the CSP source that allows an inline element with exactly this text.
fn hash_source(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The `Content-Security-Policy` value.
///
/// Tessera's own markup needs nothing inline: the islands are module scripts and a
/// stylesheet from `/_tessera/islands/`, their page data a `type="application/json"` block
/// (data, never run, so outside `script-src`), and they style elements through the CSSOM,
/// which `style-src` does not govern. What is inline is the server's own: the small pages'
/// stylesheet ([`crate::http::small_page::STYLE`]), the site lock screen's
/// ([`renderer::render::SITE_LOCK_STYLE`]), the announcement bar and cookie banner's
/// ([`crate::pages::notices::STYLE`]) and, under `tessera dev`, the live-reload
/// script ([`crate::dev::SCRIPT`]) — allowed by their hashes, so nothing else inline runs.
/// That includes inline script a template author writes: a template's scripts belong in
/// its `scripts/` folder (served from the site, `<squarespace:script>`), which keeps text
/// that reaches a page from visitors or the content (a comment, a form's answer, a product
/// description) from ever running as script.
pub fn policy(config: Config) -> String {
    let mut script = String::from("'self'");
    let mut frames = String::from("'self'");
    if config.dev {
        script.push(' ');
        script.push_str(&hash_source(crate::dev::SCRIPT));
    }
    if config.recaptcha {
        script.push(' ');
        script.push_str(RECAPTCHA_SCRIPTS);
        frames.push(' ');
        frames.push_str(RECAPTCHA_FRAMES);
    }
    let style = format!(
        "'self' {} {} {}",
        hash_source(crate::http::small_page::STYLE),
        hash_source(renderer::render::SITE_LOCK_STYLE),
        hash_source(crate::pages::notices::STYLE)
    );
    format!(
        "default-src 'self'; script-src {script}; style-src {style}; img-src 'self' data:; \
         font-src 'self'; connect-src 'self'; media-src 'self'; frame-src {frames}; \
         object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'"
    )
}

/// One header set when the response has none.
type SetIfAbsent = SetResponseHeaderLayer<HeaderValue>;

/// The layer: every header above, each only when the response lacks it.
pub type Layer = ServiceBuilder<
    Stack<SetIfAbsent, Stack<SetIfAbsent, Stack<SetIfAbsent, Stack<SetIfAbsent, Identity>>>>,
>;

/// The headers' layer for a server with `config`.
pub fn headers(config: Config) -> Layer {
    let csp = HeaderValue::from_str(&policy(config)).expect("the policy is ASCII");
    let if_absent =
        |name: HeaderName, value: HeaderValue| SetResponseHeaderLayer::if_not_present(name, value);
    ServiceBuilder::new()
        .layer(if_absent(header::CONTENT_SECURITY_POLICY, csp))
        .layer(if_absent(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("SAMEORIGIN"),
        ))
        .layer(if_absent(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(if_absent(
            header::REFERRER_POLICY,
            HeaderValue::from_static("strict-origin-when-cross-origin"),
        ))
}

impl From<&crate::server::state::App> for Config {
    fn from(app: &crate::server::state::App) -> Config {
        Config {
            dev: app.dev.is_some(),
            recaptcha: matches!(
                app.captcha,
                crate::routes::captcha::Captcha::Recaptcha { .. }
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hash of a known text, as browsers compute it (the CSP3 spec's example:
    /// `alert('Hello, world.');`).
    #[test]
    fn hashes_as_browsers_do() {
        assert_eq!(
            hash_source("alert('Hello, world.');"),
            "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='"
        );
    }

    #[test]
    fn inline_script_only_by_hash_and_only_under_dev() {
        let served = policy(Config::default());
        assert!(!served.contains("unsafe-inline"), "{served}");
        assert!(!served.contains(&hash_source(crate::dev::SCRIPT)));
        let dev = policy(Config {
            dev: true,
            recaptcha: false,
        });
        assert!(dev.contains(&hash_source(crate::dev::SCRIPT)), "{dev}");
        assert!(!dev.contains("google"));
        let google = policy(Config {
            dev: false,
            recaptcha: true,
        });
        assert!(google.contains("script-src 'self' https://www.google.com/recaptcha/"));
        assert!(google.contains("frame-src 'self' https://www.google.com/recaptcha/"));
    }
}
