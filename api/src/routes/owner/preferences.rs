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

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use serde::Serialize;
use serde_json::{Map, Value};
use tenants::commerce::settings::check_namespace;
use tenants::{Store, TenantId};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::refused;
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::site::Site;
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

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

/// The path's namespace, of a shape a namespace may have (404 otherwise): listed after the
/// owner check and before the body. (The handlers list `Path` first too: a path that does
/// not decode is refused before the owner check.)
struct Namespace(String);

impl<S: Send + Sync> FromRequestParts<S> for Namespace {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Ok(Path(n)) = Path::<String>::from_request_parts(parts, state).await else {
            return Err(ApiError::not_found(BAD_NAMESPACE));
        };
        namespace_ok(&n)?;
        Ok(Namespace(n))
    }
}

/// A namespace's preferences.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct CommercePreferences {
    website_id: String,
    namespace: String,
    /// Name → value; no value is null or "".
    #[schema(value_type = Object)]
    preferences: Map<String, Value>,
    /// Path → problem, when the stored preferences do not pass the store's rules (stored
    /// before they were checked): the store reads the namespace as if it were not set.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    errors: Option<Map<String, Value>>,
}

/// The store's rules for one namespace, on the site's settings (its currency).
async fn check(
    store: &Store,
    tenant: TenantId,
    namespace: &str,
    prefs: &Map<String, Value>,
) -> Result<(), ApiError> {
    let site = super::site_content(store, tenant).await?;
    check_namespace(&site.settings.website_settings, namespace, prefs).map_err(|e| {
        let mut errors = Map::new();
        errors.insert(e.path, Value::String(e.reason));
        ApiError::fields(errors)
    })
}

fn answer(
    site: &Site,
    namespace: String,
    prefs: Map<String, Value>,
    errors: Option<Map<String, Value>>,
) -> Json<CommercePreferences> {
    Json(CommercePreferences {
        website_id: site.content.website_id.clone(),
        namespace,
        preferences: prefs,
        errors,
    })
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
async fn read(
    State(store): State<Store>,
    Path(_): Path<String>,
    owner: Owner<area::Store, Read>,
    Namespace(namespace): Namespace,
) -> Result<Json<CommercePreferences>, ApiError> {
    let tenant = owner.site.tenant.id;
    let prefs = store
        .commerce_preferences(tenant, &namespace)
        .await
        .map_err(|e| store_failure(&e))?;
    // Only a stored namespace is checked: an unknown one is simply empty.
    let errors = match prefs.is_empty() {
        true => None,
        false => check(&store, tenant, &namespace, &prefs)
            .await
            .err()
            .and_then(|e| e.body["errors"].as_object().cloned()),
    };
    Ok(answer(&owner.site, namespace, prefs, errors))
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
async fn write(
    State(store): State<Store>,
    Path(_): Path<String>,
    owner: Owner<area::Store, Change>,
    Namespace(namespace): Namespace,
    Json(body): Json<Value>,
) -> Result<Json<CommercePreferences>, ApiError> {
    let Value::Object(prefs) = body else {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    };
    let prefs = without_empty(prefs);
    let tenant = owner.site.tenant.id;
    check(&store, tenant, &namespace, &prefs).await?;
    store
        .put_commerce_preferences(tenant, &namespace, &prefs)
        .await
        .map_err(|e| refused(&e, BAD_NAMESPACE))?;
    let stored = store
        .commerce_preferences(tenant, &namespace)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(answer(&owner.site, namespace, stored, None))
}
