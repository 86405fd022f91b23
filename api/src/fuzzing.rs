//! The API's body parsers, as fuzz targets see them (`fuzz/fuzz_targets/body_*.rs`) and as
//! `cargo test` replays their corpora (`api/tests/it/fuzz_corpus.rs`). Each entry is what a
//! route does with the bytes it is sent before it touches the store: the same
//! [`crate::http::body::parse`] into the route's own body type, then the checks the
//! handler makes on what came out. Any input may be refused; none may panic.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::http::body::parse;

/// One parser: its name (the fuzz target is `body_<name>`) and what it runs.
pub type Parser = (&'static str, fn(&[u8]));

fn only<T: DeserializeOwned>(bytes: &[u8]) {
    let _ = parse::<T>(bytes);
}

fn text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Every JSON body the API reads, by route family.
pub const PARSERS: &[Parser] = &[
    // Commerce: the cart's changes, checkout, gift-card balances.
    ("cart_entry", |b| {
        if parse::<crate::routes::commerce::cart::AddBody>(b).is_ok()
            && let Ok(v) = parse::<Value>(b)
        {
            let _ = crate::routes::commerce::cart::quantity(v.get("quantity"));
            let _ = crate::routes::commerce::cart::quantity(v.get("qty"));
        }
    }),
    (
        "cart_quantity",
        only::<crate::routes::commerce::cart::QuantityBody>,
    ),
    (
        "cart_fields",
        only::<crate::routes::commerce::cart::FieldsBody>,
    ),
    (
        "cart_coupon",
        only::<crate::routes::commerce::cart::CouponBody>,
    ),
    (
        "cart_location",
        only::<crate::routes::commerce::cart::LocationBody>,
    ),
    (
        "cart_shipping_option",
        only::<crate::routes::commerce::cart::OptionBody>,
    ),
    ("checkout", |b| {
        if parse::<crate::routes::commerce::checkout::Body>(b).is_ok()
            && let Ok(v) = parse::<Value>(b)
            && let Some(email) = v.get("email").and_then(Value::as_str)
        {
            let _ = crate::routes::commerce::checkout::email_valid(email);
        }
    }),
    (
        "gift_card_balance",
        only::<crate::routes::commerce::orders::BalanceBody>,
    ),
    // Forms: a submission, a validation.
    ("form_submission", only::<crate::routes::forms::Submission>),
    ("form_validate", only::<Value>),
    // Restock sign-ups and sends.
    ("restock_sign_up", |b| {
        if parse::<crate::routes::restock::SignUp>(b).is_ok()
            && let Ok(v) = parse::<Value>(b)
            && let Some(email) = v.get("siteVisitorEmail").and_then(Value::as_str)
        {
            let _ = crate::routes::restock::restock_email_ok(email.trim());
        }
    }),
    ("restock_send", only::<crate::routes::restock::SendRequest>),
    ("restock_send_all", only::<crate::routes::restock::SendAll>),
    // Members.
    ("sign_in", only::<crate::routes::site_users::SignIn>),
    ("account_locale", |b| {
        if parse::<crate::routes::site_users::Locale>(b).is_ok()
            && let Ok(v) = parse::<Value>(b)
            && let Some(tag) = v.get("language").and_then(Value::as_str)
        {
            let _ = crate::routes::site_users::language_tag(tag);
        }
    }),
    ("sign_up", |b| {
        if parse::<crate::routes::site_users::sign_up::Body>(b).is_ok()
            && let Ok(v) = parse::<Value>(b)
        {
            let _ = crate::routes::site_users::sign_up::email_address(
                v.get("email").and_then(Value::as_str).unwrap_or(""),
            );
            let _ = crate::http::local_path::local_path(v.get("redirect").and_then(Value::as_str));
        }
    }),
    (
        "member_area_join",
        only::<crate::routes::site_users::sign_up::Join>,
    ),
    // Comments and likes.
    ("comment", only::<crate::routes::engagement::NewComment>),
    ("moderation", only::<crate::routes::engagement::Moderation>),
    ("like", only::<crate::routes::engagement::Like>),
    // Analytics: the tracker bodies (JSON, or a form whose fields hold JSON).
    ("clanker_event", |b| {
        let _ = crate::routes::analytics::clanker_event_of(b, None);
    }),
    ("event_data", |b| {
        let _ = crate::routes::analytics::data_of(&text(b));
    }),
    (
        "javascript_errors",
        only::<Vec<crate::routes::analytics::ReportedError>>,
    ),
    (
        "performance_records",
        only::<Vec<crate::routes::analytics::Performance>>,
    ),
    // The owner API.
    // The owner app's accounts and Settings → Access.
    (
        "owner_sign_in",
        only::<crate::routes::owner::accounts::SignIn>,
    ),
    (
        "owner_password_reset",
        only::<crate::routes::owner::accounts::ResetBody>,
    ),
    ("owner_password", |b| {
        if let Ok(v) = parse::<Value>(b)
            && parse::<crate::routes::owner::accounts::SetPasswordBody>(b).is_ok()
            && let Some(p) = v.get("password").and_then(Value::as_str)
        {
            let _ = crate::services::owner::accounts::check_password(p);
        }
    }),
    (
        "owner_invite",
        only::<crate::routes::owner::access::InviteBody>,
    ),
    (
        "owner_account_change",
        only::<crate::routes::owner::access::AccountChange>,
    ),
    (
        "owner_token",
        only::<crate::routes::owner::access::TokenBody>,
    ),
    (
        "owner_store",
        only::<crate::routes::owner::store_setup::StoreBody>,
    ),
    (
        "owner_category",
        only::<crate::routes::owner::store_setup::CategoryBody>,
    ),
    (
        "owner_navigation",
        only::<crate::routes::owner::layout::NavigationBody>,
    ),
    (
        "owner_header_footer",
        only::<crate::routes::owner::layout::HeaderFooterBody>,
    ),
    ("owner_preferences", only::<serde_json::Map<String, Value>>),
    ("owner_languages", |b| {
        if parse::<crate::routes::owner::languages::LanguagesBody>(b).is_ok()
            && let Ok(v) = parse::<Value>(b)
        {
            let _ = crate::routes::owner::languages::check_languages(&v["languages"]);
        }
    }),
    ("owner_item", |b| {
        if let Ok(v) = parse::<Value>(b) {
            let _ = crate::routes::owner::content::parse_item(v, true, "USD");
        }
    }),
    (
        "owner_stock",
        only::<crate::routes::owner::content::StockBody>,
    ),
    ("owner_template", |b| {
        if let Ok(upload) = parse::<crate::routes::owner::templates::Upload>(b) {
            let _ = crate::routes::owner::templates::files_of(upload);
        }
    }),
    // The community: a comment's moderation, a member area's words.
    (
        "owner_comment_state",
        only::<crate::routes::owner::community::Patch>,
    ),
    (
        "owner_member_area",
        only::<crate::routes::owner::community::AreaPatch>,
    ),
];

/// Runs the parser named `name` on `bytes` (panics on an unknown name: a fuzz target and
/// this list must agree).
pub fn body(name: &str, bytes: &[u8]) {
    let (_, run) = PARSERS
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no body parser named {name}"));
    run(bytes)
}

/// The request's host as [`crate::http::host::of_request`] finds it (the `request_host`
/// target): the first line is the request target, each further line a `Host` header value.
/// Any input may be refused; an accepted one must be a host that parses back to itself,
/// with no userinfo, path or second authority in it, so links built from it stay on it.
pub fn request_host(bytes: &[u8]) {
    use crate::http::host::{RequestHost, of_request};
    use axum::http::{HeaderMap, HeaderValue, Uri, Version, header};
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.split('\n');
    let Ok(uri) = lines.next().unwrap_or("/").parse::<Uri>() else {
        return;
    };
    let mut headers = HeaderMap::new();
    for line in lines {
        if let Ok(v) = HeaderValue::from_bytes(line.as_bytes()) {
            headers.append(header::HOST, v);
        }
    }
    for version in [Version::HTTP_10, Version::HTTP_11, Version::HTTP_2] {
        if let Ok(Some(host)) = of_request(version, &uri, &headers) {
            let authority = host.authority();
            assert_eq!(RequestHost::parse(&authority).as_ref(), Ok(&host));
            assert!(
                !authority.contains(['@', '/', '\\', '?', '#', ' ']),
                "{authority}"
            );
            let origin = host.origin(false);
            let parsed = origin.parse::<Uri>().expect("an origin is a URI");
            assert_eq!(parsed.host(), Some(host.name.as_str()), "{origin}");
            assert_eq!(
                parsed.port_u16(),
                host.port.filter(|p| *p != 80),
                "{origin}"
            );
        }
    }
}

/// The LESS compile path (issue 40), as the `less_input` and `less_compile` fuzz targets
/// run it: the input is `site.less` NUL `tweaks` (a JSON object) NUL `parts/a.less`, a
/// folder whose template.conf lists `site.less`.
pub mod less {
    use renderer::folder::TemplateFiles;
    use serde_json::{Map, Value};

    /// The folder and the site's settings an input stands for.
    fn folder(bytes: &[u8]) -> (TemplateFiles, Map<String, Value>) {
        let mut parts = bytes.splitn(3, |b| *b == 0);
        let site = parts.next().unwrap_or_default();
        let tweaks = parts.next().unwrap_or_default();
        let partial = parts.next().unwrap_or_default();
        let files: TemplateFiles = [
            (
                "template.conf",
                br#"{"name": "fuzz", "stylesheets": ["site.less"]}"#.as_slice(),
            ),
            ("styles/site.less", site),
            ("styles/parts/a.less", partial),
        ]
        .into_iter()
        .map(|(path, bytes)| (path.to_owned(), bytes.into()))
        .collect();
        let tweaks = serde_json::from_slice::<Value>(tweaks).unwrap_or(Value::Null);
        let mut settings = Map::new();
        settings.insert("tweaks".into(), tweaks);
        (files, settings)
    }

    /// Everything Tessera does around Node, without Node: the compiler's stdin built from
    /// the folder (valid JSON holding exactly the folder's styles/ and its stylesheets), the tweak
    /// lines and the tweaks' variables (never able to close a block but their own), and the
    /// compiler's answer read back (the input
    /// taken as what Node printed): a problem in template.conf or in styles/.
    pub fn input(bytes: &[u8]) {
        let (files, settings) = folder(bytes);
        let _ = crate::styles::needs_compiling(&files);
        for line in crate::styles::tweak_overrides(&settings).lines() {
            assert!(line.starts_with('@') && line.ends_with(';'), "{line}");
            assert!(!line.contains(['{', '}']), "{line}");
        }
        // The tweaks' variables and a site font's rule: never more than one block each.
        for line in crate::styles::tweaks_tail(&files, &settings).lines() {
            let variable =
                line.starts_with('@') && line.ends_with(';') && !line.contains(['{', '}']);
            let rule = line.starts_with('.')
                && line.ends_with(" }")
                && line.matches('{').count() == 1
                && line.matches('}').count() == 1;
            assert!(variable || rule, "{line}");
        }
        let input = crate::styles::compiler_input(&files, &settings);
        let input: Value = serde_json::from_slice(&input).expect("the compiler's input is JSON");
        let sent = input["files"].as_object().expect("files");
        assert_eq!(input["stylesheets"], serde_json::json!(["site.less"]));
        assert!(input["tail"].is_string());
        assert!(sent.contains_key("site.less") && sent.contains_key("parts/a.less"));
        let text = String::from_utf8_lossy(bytes);
        let problem = crate::styles::less_problem(&text, &text);
        assert!(problem.file == "template.conf" || problem.file.starts_with("styles/"));
        assert!(problem.message.starts_with("LESS: "));
    }

    /// The whole compile, Node included (bounded in time and memory): CSS or a problem,
    /// never a panic. Slow (a Node process per input), so `cargo test` replays only the
    /// committed corpus.
    pub fn compile(bytes: &[u8]) {
        let (files, settings) = folder(bytes);
        let _ = crate::styles::compile(&files, &settings);
    }
}
