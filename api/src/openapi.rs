//! The API's OpenAPI 3.1 document, made from the route code: every JSON route is registered
//! through utoipa-axum's `routes!` from its handler's `#[utoipa::path]`, so a route cannot be
//! served without being described (and the other way round). The document is built once
//! with the router and served at [`PATH`].
//!
//! What every route shares lives here: the error body ([`ErrorBody`]), the sets of error
//! answers a visitor call ([`VisitorErrors`], [`WriteErrors`]) and an owner call
//! ([`OwnerErrors`]) can get, and the two ways of being let in (the crumb, the owner's
//! bearer token). [`page`] renders the document as an HTML reference at `/api/docs`.

pub mod page;

use std::collections::BTreeMap;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::openapi::{
    ContentBuilder, HeaderBuilder, RefOr, ResponseBuilder, response::Response as DocResponse,
};
use utoipa::{IntoResponses, Modify, OpenApi, PartialSchema, ToSchema};

/// Where the document is served.
pub const PATH: &str = "/api/openapi.json";

/// Tags, one per route family.
pub const COMMERCE: &str = "commerce";
pub const FORMS: &str = "forms";
pub const RESTOCK: &str = "restock";
pub const SITE_USERS: &str = "site users";
pub const ENGAGEMENT: &str = "comments and likes";
pub const ANALYTICS: &str = "analytics";
pub const CAPTCHA: &str = "captcha";
pub const BILLING: &str = "billing";
pub const OWNER: &str = "owner";

/// The security scheme names the annotations use.
pub const CRUMB: &str = "crumb";
pub const OWNER_TOKEN: &str = "ownerToken";
pub const OWNER_SESSION: &str = "ownerSession";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Tessera",
        description = "Every JSON route of a Tessera site. Each call goes to the site's own \
            domain (the `Host` header picks the site). Visitor calls that change something \
            carry the `crumb` cookie's value in `X-CSRF-Token`; owner calls carry a token \
            from `tessera token create` as `Authorization: Bearer …`. Errors are JSON: \
            `{\"message\": …}`, with `errors` (field → message) for field validation and \
            `crumbFail` for a failed crumb.",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    components(schemas(ErrorBody)),
    modifiers(&Security),
    tags(
        (name = "commerce", description = "Carts, checkout, orders, gift cards, stock."),
        (name = "forms", description = "Form schemas, submission keys and submissions."),
        (name = "restock", description = "Back-in-stock sign-ups and their notices."),
        (name = "site users", description = "Members: sign-up, sign-in, account."),
        (name = "comments and likes", description = "Comments, moderation and likes."),
        (name = "analytics", description = "Tracking calls and the owner's summary."),
        (name = "captcha", description = "The built-in proof-of-work captcha."),
        (name = "billing", description = "The site's plan."),
        (name = "owner", description = "What a site's owner changes, behind a token."),
    )
)]
pub struct ApiDoc;

/// The two ways in: the crumb (a header matching the `crumb` cookie) and the owner token.
struct Security;

impl Modify for Security {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            CRUMB,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-CSRF-Token",
                "The value of the `crumb` cookie that page views set (the cookie must be \
                 sent too).",
            ))),
        );
        components.add_security_scheme(
            OWNER_TOKEN,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some(
                        "A token of the site, from `tessera token create SITE --role ROLE`.",
                    ))
                    .build(),
            ),
        );
        components.add_security_scheme(
            OWNER_SESSION,
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                "tessera-owner",
                "The owner app's session (`POST /api/owner/session`); every change made \
                 with it carries the session's `csrf` in `X-CSRF-Token`.",
            ))),
        );
    }
}

/// Every error answer: `message` always; `errors` names fields for field validation;
/// `crumbFail` marks a failed crumb. Some answers add their own keys (`role`, `problems`).
#[derive(ToSchema)]
#[schema(as = Error)]
#[allow(dead_code)] // a shape for the document; errors are built as JSON values
pub struct ErrorBody {
    /// What went wrong, in words for people (SPEC.md's wording where it has one).
    message: String,
    /// Field → message, for a form's or body's fields.
    errors: Option<BTreeMap<String, String>>,
    /// True when the crumb was missing or wrong.
    #[schema(rename = "crumbFail")]
    crumb_fail: Option<bool>,
}

fn error_content() -> utoipa::openapi::Content {
    ContentBuilder::new()
        .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name(
            ErrorBody::name(),
        ))))
        .build()
}

fn error(description: &str) -> RefOr<DocResponse> {
    ResponseBuilder::new()
        .description(description)
        .content("application/json", error_content())
        .into()
}

fn retry_after(r: ResponseBuilder) -> ResponseBuilder {
    r.header(
        "Retry-After",
        HeaderBuilder::new()
            .schema(Some(u64::schema()))
            .description(Some("Seconds to wait."))
            .build(),
    )
}

fn error_with_retry(description: &str) -> RefOr<DocResponse> {
    retry_after(
        ResponseBuilder::new()
            .description(description)
            .content("application/json", error_content()),
    )
    .into()
}

/// An answer's description in the document, made on demand.
type Answer = fn() -> RefOr<DocResponse>;

fn answers(list: &[(&str, Answer)]) -> BTreeMap<String, RefOr<DocResponse>> {
    list.iter().map(|(s, f)| (s.to_string(), f())).collect()
}

fn unknown_site() -> RefOr<DocResponse> {
    error("No site has this host, or the thing named does not exist.")
}
fn unavailable() -> RefOr<DocResponse> {
    error_with_retry("The store cannot be reached right now; nothing was changed.")
}
fn bad_request() -> RefOr<DocResponse> {
    error("The body or a parameter is not what the route takes (the message says which).")
}
fn invalid_text() -> RefOr<DocResponse> {
    error("The path or query has a NUL character (U+0000), which no route takes.")
}
fn too_large() -> RefOr<DocResponse> {
    error("The body is larger than the route takes.")
}
fn crumb_failed() -> RefOr<DocResponse> {
    error("The crumb is missing or wrong (`crumbFail: true`).")
}
fn rate_limited() -> RefOr<DocResponse> {
    error_with_retry("Too many calls of this kind from this client; try again later.")
}
fn no_token() -> RefOr<DocResponse> {
    error("No token, or not a token of this site.")
}
fn role_refused() -> RefOr<DocResponse> {
    error("The token's role does not allow this.")
}

/// What a visitor's read can get besides its answer.
pub struct VisitorErrors;

impl IntoResponses for VisitorErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        answers(&[
            ("400", bad_request),
            ("404", unknown_site),
            ("503", unavailable),
        ])
    }
}

/// What a visitor's change (crumb checked, rate limited) can get besides its answer.
pub struct WriteErrors;

impl IntoResponses for WriteErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        answers(&[
            ("400", bad_request),
            ("403", crumb_failed),
            ("404", unknown_site),
            ("413", too_large),
            ("429", rate_limited),
            ("503", unavailable),
        ])
    }
}

/// What an owner call can get besides its answer.
pub struct OwnerErrors;

impl IntoResponses for OwnerErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        answers(&[
            ("400", bad_request),
            ("401", no_token),
            ("403", role_refused),
            ("404", unknown_site),
            ("413", too_large),
            ("503", unavailable),
        ])
    }
}

/// Two route families must not name different schemas alike: merging keeps one of them
/// and the document would describe the other family's body wrongly.
pub fn check_names(all: &utoipa::openapi::OpenApi, family: &utoipa::openapi::OpenApi) {
    let (Some(a), Some(b)) = (&all.components, &family.components) else {
        return;
    };
    for (name, schema) in &b.schemas {
        if let Some(other) = a.schemas.get(name) {
            assert!(
                other == schema,
                "two route families define different schemas named {name}: \
                 give one `#[schema(as = ...)]`"
            );
        }
    }
}

/// Finishes the document the handlers' annotations made: operation ids become
/// `tag.handler` (a test checks they are unique), a summary that starts by naming its own
/// route (`` `GET …`: ``) keeps only what follows, and an answer without words gets its
/// status's reason phrase (OpenAPI requires a description).
pub fn finish(doc: &mut utoipa::openapi::OpenApi) {
    for item in doc.paths.paths.values_mut() {
        let ops = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for op in ops.into_iter().flatten() {
            let tag = op
                .tags
                .as_ref()
                .and_then(|t| t.first())
                .map_or("api".to_owned(), |t| t.replace(' ', "-"));
            if let Some(id) = &op.operation_id
                && !id.contains('.')
            {
                op.operation_id = Some(format!("{tag}.{id}"));
            }
            if let Some(summary) = &op.summary
                && summary.starts_with('`')
                && let Some((_, rest)) = summary.split_once("`: ")
            {
                let rest = rest.trim();
                let mut c = rest.chars();
                op.summary = c
                    .next()
                    .map(|first| first.to_uppercase().chain(c).collect());
            }
            // Any route refuses a path or query with U+0000 before it runs
            // ([`crate::http::body::nul_free_uri`]), with the JSON error.
            match op.responses.responses.get_mut("400") {
                None => {
                    op.responses
                        .responses
                        .insert("400".to_owned(), invalid_text());
                }
                Some(RefOr::T(r)) if !r.content.contains_key("application/json") => {
                    r.content
                        .insert("application/json".to_owned(), RefOr::T(error_content()));
                }
                Some(_) => {}
            }
            for (status, answer) in op.responses.responses.iter_mut() {
                if let RefOr::T(r) = answer
                    && r.description.is_empty()
                {
                    r.description = status
                        .parse::<u16>()
                        .ok()
                        .and_then(|s| axum::http::StatusCode::from_u16(s).ok())
                        .and_then(|s| s.canonical_reason())
                        .unwrap_or("Answer")
                        .to_owned();
                }
            }
        }
    }
}

/// The whole document as served: built once, with the router.
#[derive(Clone)]
pub struct Served(axum::body::Bytes);

impl Served {
    pub fn new(doc: &utoipa::openapi::OpenApi) -> Served {
        Served(
            serde_json::to_vec(doc)
                .expect("an OpenAPI document serializes")
                .into(),
        )
    }

    /// The document's bytes (what `tessera openapi` prints).
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn response(&self) -> Response {
        // `Bytes` clones share the one buffer: no copy of the document per request.
        let mut r = self.0.clone().into_response();
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=60"),
        );
        r
    }
}
