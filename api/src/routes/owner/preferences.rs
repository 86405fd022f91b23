//! Commerce preferences, per namespace (`checkout`, `merchandising`, `store` …).
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/v1/commerce-preferences/{namespace}` | store, read | | `{websiteId, namespace, preferences}` |
//! | `PUT /api/v1/commerce-preferences/{namespace}` | store, write | the preferences object | the same, as stored |
//!
//! A PUT replaces the namespace; empty values (null and "") are dropped, as SPEC.md §3
//! says (an empty list or object is a value: "none of these"). A namespace is 1-64 of `a-z A-Z 0-9 - _ .`.
//!
//! A PUT is checked by the rules the import checks `commerce-preferences.json` with
//! ([`tenants::commerce::settings::check_namespace`]): an unknown namespace, a coupon of
//! an unknown kind, a percentage outside 0-100, a price that is not one … answer 400 with
//! `errors` by path (`coupons.codes[0].percent`) and store nothing, so a preference can
//! never take the store's carts down. A GET of a namespace stored before these checks that
//! does not pass them says so in `errors` (the store reads as if it were not set).

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::refused;
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::{json_response, store_failure};
use crate::http::owner::{Access, Area, begin};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::App;
use tenants::commerce::settings::check_namespace;

pub const BAD_NAMESPACE: &str = "A namespace is 1-64 letters, digits, '-', '_' or '.'.";
pub const NOT_AN_OBJECT: &str = "Preferences are a JSON object.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new().routes(routes!(read, write))
}

fn namespace_ok(n: &str) -> Result<(), ApiError> {
    let ok = (1..=64).contains(&n.len())
        && n.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(ApiError::not_found(BAD_NAMESPACE))
    }
}

/// A namespace's preferences.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CommercePreferences<'a> {
    website_id: &'a str,
    namespace: &'a str,
    /// Name → value; no value is null or "".
    #[schema(value_type = Object)]
    preferences: &'a Map<String, Value>,
    /// Path → problem, when the stored preferences do not pass the store's rules (stored
    /// before they were checked): the store reads the namespace as if it were not set.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    errors: Option<Map<String, Value>>,
}

/// The store's rules for one namespace, on the site's settings (its currency).
async fn check(
    app: &App,
    call: &Call,
    namespace: &str,
    prefs: &Map<String, Value>,
) -> Result<(), ApiError> {
    let site = super::site_content(app, call).await?;
    check_namespace(&site.settings.website_settings, namespace, prefs).map_err(|e| {
        let mut errors = Map::new();
        errors.insert(e.path, Value::String(e.reason));
        ApiError::fields(errors)
    })
}

fn answer(
    call: &Call,
    namespace: &str,
    prefs: &Map<String, Value>,
    errors: Option<Map<String, Value>>,
) -> Response {
    json_response(
        StatusCode::OK,
        &json!(CommercePreferences {
            website_id: &call.site.content.website_id,
            namespace,
            preferences: prefs,
            errors,
        }),
    )
}

/// Empty values (null and "") as the store drops them, so what is checked is what is kept.
fn without_empty(mut prefs: Map<String, Value>) -> Map<String, Value> {
    prefs.retain(|_, v| !(v.is_null() || v.as_str() == Some("")));
    prefs
}

/// `GET /api/v1/commerce-preferences/{namespace}`: a namespace's preferences.
#[utoipa::path(get, path = "/api/v1/commerce-preferences/{namespace}", tag = OWNER,
    operation_id = "owner.read_commerce_preferences",
    params(("namespace" = String, Path, pattern = "^[A-Za-z0-9._-]{1,64}$",
        description = "`checkout`, `merchandising`, `store` … (404 for another shape).")),
    security(("ownerToken" = [])),
    responses((status = 200, body = CommercePreferences), OwnerErrors))]
async fn read(State(app): State<App>, Path(namespace): Path<String>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Store, Access::Read).await?;
            namespace_ok(&namespace)?;
            let prefs = app
                .store
                .commerce_preferences(call.site.tenant.id, &namespace)
                .await
                .map_err(|e| store_failure(&e))?;
            // Only a stored namespace is checked: an unknown one is simply empty.
            let errors = match prefs.is_empty() {
                true => None,
                false => check(&app, &call, &namespace, &prefs)
                    .await
                    .err()
                    .and_then(|e| e.body["errors"].as_object().cloned()),
            };
            Ok(answer(&call, &namespace, &prefs, errors))
        }
        .await,
    )
}

/// `PUT /api/v1/commerce-preferences/{namespace}`: replaces a namespace's preferences.
#[utoipa::path(put, path = "/api/v1/commerce-preferences/{namespace}", tag = OWNER,
    operation_id = "owner.write_commerce_preferences",
    params(("namespace" = String, Path, pattern = "^[A-Za-z0-9._-]{1,64}$",
        description = "`checkout`, `merchandising`, `store` … (404 for another shape).")),
    request_body(content = Object,
        description = "Name → value; null and \"\" values are dropped. Checked by the import's \
            rules for the namespace: 400 with `errors` by path (`coupons.codes[0].percent`)."),
    security(("ownerToken" = [])),
    responses((status = 200, body = CommercePreferences, description = "As stored."), OwnerErrors))]
async fn write(State(app): State<App>, Path(namespace): Path<String>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = begin(&app, req, Area::Store, Access::Write).await?;
            namespace_ok(&namespace)?;
            let Value::Object(prefs) = read_json::<Value>(body, MAX_JSON_BODY).await? else {
                return Err(ApiError::bad_request(NOT_AN_OBJECT));
            };
            let prefs = without_empty(prefs);
            check(&app, &call, &namespace, &prefs).await?;
            let tenant = call.site.tenant.id;
            app.store
                .put_commerce_preferences(tenant, &namespace, &prefs)
                .await
                .map_err(|e| refused(&e, BAD_NAMESPACE))?;
            let stored = app
                .store
                .commerce_preferences(tenant, &namespace)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(answer(&call, &namespace, &stored, None))
        }
        .await,
    )
}
