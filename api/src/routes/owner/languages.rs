//! The site's languages (multilingual settings).
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/multilingual/settings` | languages, read | | `{defaultLanguage, languages, connection}` |
//! | `PATCH /api/multilingual/settings` | languages, write | a JSON Merge Patch of `{defaultLanguage, languages}` | as `GET` |
//! | `GET /api/multilingual/status` | languages, read | | `{enabled, languageCount, connected}` |
//! | `GET /api/multilingual/languages` | languages, read | | `{languages}` |
//! | `PUT /api/multilingual/languages` | languages, write | `{languages: ["fr-FR", {tag, enabled?}]}` | `{languages}` |
//! | `DELETE /api/multilingual/connection` | languages, write | | `{connected: false}` |
//!
//! A language is a BCP 47 tag, checked and stored in canonical form by ICU4X (`fr-fr` →
//! `fr-FR`); a site has at most 50, each once ("This language already exists"). The
//! translation provider's connection (`connection`, from the import) is what `DELETE`
//! removes; the languages stay.
//!
//! The default language is the site's `website.language` (the pages' `lang`, dates and
//! money are written in it); `PATCH` changes it, and a language made the default leaves the
//! list of other languages (`languages` holds the languages besides the default). Settings
//! → Languages in the owner app reads `GET …/settings` and writes with `PATCH` and `PUT`.

use axum::body::Body;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tenants::{Store, TenantId};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::site_content;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const EXISTS: &str = "This language already exists";
pub const BAD_TAG: &str = "That is not a language tag (like fr-FR).";
pub const TOO_MANY: &str = "A site has at most 50 languages.";
pub const BAD_LIST: &str = "languages is a list of language tags.";
pub const NO_SUCH_SETTING: &str = "The languages have no such setting.";
pub const NOT_AN_OBJECT: &str = "The body is a JSON object.";

const MAX_LANGUAGES: usize = 50;

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(settings, patch_settings))
        .routes(routes!(status))
        .routes(routes!(languages, put_languages))
        .routes(routes!(disconnect))
}

/// The stored settings as an object (`{}` when never set).
async fn stored(store: &Store, tenant: TenantId) -> Result<Map<String, Value>, ApiError> {
    let content = site_content(store, tenant).await?;
    Ok(content
        .multilingual
        .as_object()
        .cloned()
        .unwrap_or_default())
}

fn languages_of(m: &Map<String, Value>) -> Value {
    m.get("languages")
        .cloned()
        .filter(Value::is_array)
        .unwrap_or_else(|| json!([]))
}

fn connection_of(m: &Map<String, Value>) -> Value {
    m.get("connection")
        .cloned()
        .filter(Value::is_object)
        .unwrap_or(Value::Null)
}

/// The multilingual settings.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct MultilingualSettings {
    /// The site's own language.
    default_language: String,
    /// `[{tag, enabled}]` as `PUT …/languages` stores them (or as imported).
    #[schema(value_type = Vec<Value>)]
    languages: Value,
    /// The translation provider's connection, from the import; null when none.
    #[schema(value_type = Option<Object>)]
    connection: Value,
}

/// `GET /api/multilingual/settings`: the site's languages and translation connection.
#[utoipa::path(get, path = "/api/multilingual/settings", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = MultilingualSettings), OwnerErrors))]
async fn settings(
    State(store): State<Store>,
    owner: Owner<area::Languages, Read>,
) -> Result<Json<MultilingualSettings>, ApiError> {
    let m = stored(&store, owner.site.tenant.id).await?;
    Ok(Json(MultilingualSettings {
        default_language: owner.site.content.language.clone(),
        languages: languages_of(&m),
        connection: connection_of(&m),
    }))
}

/// What `PATCH /api/multilingual/settings` changes.
#[derive(ToSchema)]
#[schema(as = MultilingualSettingsPatch)]
#[allow(dead_code)] // a shape for the document; the patch is read as JSON
#[serde(rename_all = "camelCase")]
struct SettingsPatch {
    /// A BCP 47 tag (stored in canonical form): the site's own language. It leaves
    /// `languages` if it was there.
    default_language: Option<String>,
    /// The other languages, as `PUT …/languages` takes them (null: none).
    #[schema(value_type = Option<Vec<LanguageGiven>>, max_items = 50)]
    languages: Option<Value>,
}

/// A tag in canonical form, or `None` when it is not a language tag.
fn canonical(tag: &str) -> Option<String> {
    let locale = icu_locale::Locale::try_from_str(tag.trim()).ok()?;
    (!locale.id.language.is_unknown()).then(|| locale.to_string())
}

/// `PATCH /api/multilingual/settings`: changes the default language and the languages
/// (JSON Merge Patch).
#[utoipa::path(patch, path = "/api/multilingual/settings", tag = OWNER,
    request_body(content = SettingsPatch, content_type = "application/merge-patch+json",
        description = "The settings to change (RFC 7396: the keys it names are set, \
        `languages: null` empties the list); the others keep their values."),
    security(("ownerToken" = [])),
    responses((status = 200, body = MultilingualSettings, description = "The settings as they are now."),
        OwnerErrors))]
async fn patch_settings(
    State(store): State<Store>,
    owner: Owner<area::Languages, Change>,
    body: Body,
) -> Result<Json<MultilingualSettings>, ApiError> {
    let patch: Value = read_json(body, MAX_JSON_BODY).await?;
    let Value::Object(patch) = patch else {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    };
    let tenant = owner.site.tenant.id;
    let mut m = stored(&store, tenant).await?;
    let mut default = owner.site.content.language.clone();
    let mut languages: Option<Vec<Value>> = None;
    let mut errors = Map::new();
    for (key, v) in &patch {
        match key.as_str() {
            "defaultLanguage" => match v.as_str().and_then(canonical) {
                Some(tag) => default = tag,
                None => {
                    errors.insert(key.clone(), BAD_TAG.into());
                }
            },
            "languages" if v.is_null() => languages = Some(Vec::new()),
            "languages" => match check_languages(v) {
                Ok(l) => languages = Some(l),
                Err(e) => {
                    if let Some(Value::Object(by_field)) = e.body.get("errors") {
                        errors.extend(by_field.clone());
                    } else {
                        errors.insert(key.clone(), BAD_LIST.into());
                    }
                }
            },
            _ => {
                errors.insert(key.clone(), NO_SUCH_SETTING.into());
            }
        }
    }
    if !errors.is_empty() {
        return Err(ApiError::fields(errors));
    }
    // The default is not among the other languages.
    let mut list = languages
        .clone()
        .unwrap_or_else(|| languages_of(&m).as_array().cloned().unwrap_or_default());
    let before = list.len();
    list.retain(|l| {
        let tag = l
            .as_str()
            .or_else(|| l.get("tag").and_then(Value::as_str))
            .unwrap_or("");
        canonical(tag).as_deref() != Some(default.as_str())
    });
    let multilingual = (languages.is_some() || list.len() != before).then(|| {
        m.insert("languages".into(), Value::Array(list));
        Value::Object(m.clone())
    });
    if default != owner.site.content.language || multilingual.is_some() {
        store
            .put_languages(tenant, &default, multilingual.as_ref())
            .await
            .map_err(|e| store_failure(&e))?;
    }
    Ok(Json(MultilingualSettings {
        default_language: default,
        languages: languages_of(&m),
        connection: connection_of(&m),
    }))
}

/// Whether the site is multilingual.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct MultilingualStatus {
    /// True with one language or more.
    enabled: bool,
    language_count: usize,
    /// True while a translation provider is connected.
    connected: bool,
}

/// `GET /api/multilingual/status`: whether the site has languages and a connection.
#[utoipa::path(get, path = "/api/multilingual/status", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = MultilingualStatus), OwnerErrors))]
async fn status(
    State(store): State<Store>,
    owner: Owner<area::Languages, Read>,
) -> Result<Json<MultilingualStatus>, ApiError> {
    let m = stored(&store, owner.site.tenant.id).await?;
    let count = languages_of(&m).as_array().map_or(0, Vec::len);
    Ok(Json(MultilingualStatus {
        enabled: count > 0,
        language_count: count,
        connected: !connection_of(&m).is_null(),
    }))
}

/// The site's languages.
#[derive(Serialize, ToSchema)]
struct LanguageList {
    /// `[{tag, enabled}]` as `PUT` stores them (or as imported).
    #[schema(value_type = Vec<Value>)]
    languages: Value,
}

/// `GET /api/multilingual/languages`: the site's languages.
#[utoipa::path(get, path = "/api/multilingual/languages", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = LanguageList), OwnerErrors))]
async fn languages(
    State(store): State<Store>,
    owner: Owner<area::Languages, Read>,
) -> Result<Json<LanguageList>, ApiError> {
    let m = stored(&store, owner.site.tenant.id).await?;
    Ok(Json(LanguageList {
        languages: languages_of(&m),
    }))
}

/// The site's new languages.
#[derive(Deserialize, ToSchema)]
pub(crate) struct LanguagesBody {
    /// At most 50 BCP 47 tags, each once; a tag alone is enabled.
    #[serde(default)]
    #[schema(value_type = Vec<LanguageGiven>, required = true, max_items = 50)]
    languages: Value,
}

/// A language tag (`fr-FR`), or `{tag, enabled}` (`language` may stand for `tag`).
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document; languages are checked as JSON values
#[serde(untagged)]
enum LanguageGiven {
    Tag(String),
    Setting(LanguageSetting),
}

/// A language as stored.
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document; languages are built as JSON values
struct LanguageSetting {
    /// A BCP 47 tag, in canonical form once stored.
    tag: String,
    /// True when absent.
    #[serde(default)]
    enabled: bool,
}

/// The languages as stored.
#[derive(Serialize, ToSchema)]
struct LanguagesSaved {
    #[schema(value_type = Vec<LanguageSetting>)]
    languages: Vec<Value>,
}

/// The languages as stored (`[{tag, enabled}]`), or the problems by field path.
pub(crate) fn check_languages(list: &Value) -> Result<Vec<Value>, ApiError> {
    let Some(list) = list.as_array() else {
        return Err(ApiError::field("languages", BAD_LIST));
    };
    if list.len() > MAX_LANGUAGES {
        return Err(ApiError::field("languages", TOO_MANY));
    }
    let mut errors = Map::new();
    let mut out: Vec<Value> = Vec::new();
    for (i, l) in list.iter().enumerate() {
        let (tag, enabled) = match l {
            Value::String(t) => (t.as_str(), true),
            Value::Object(o) => (
                o.get("tag")
                    .or_else(|| o.get("language"))
                    .and_then(Value::as_str)
                    .unwrap_or(""),
                o.get("enabled").and_then(Value::as_bool).unwrap_or(true),
            ),
            _ => ("", true),
        };
        let Ok(locale) = icu_locale::Locale::try_from_str(tag.trim()) else {
            errors.insert(format!("languages[{i}]"), BAD_TAG.into());
            continue;
        };
        let tag = locale.to_string();
        if locale.id.language.is_unknown() {
            errors.insert(format!("languages[{i}]"), BAD_TAG.into());
        } else if out.iter().any(|o| o["tag"] == tag.as_str()) {
            errors.insert(format!("languages[{i}]"), EXISTS.into());
        } else {
            out.push(json!({"tag": tag, "enabled": enabled}));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(ApiError::fields(errors))
    }
}

/// `PUT /api/multilingual/languages`: replaces the site's languages.
#[utoipa::path(put, path = "/api/multilingual/languages", tag = OWNER,
    request_body = LanguagesBody, security(("ownerToken" = [])),
    responses((status = 200, body = LanguagesSaved, description = "As stored (canonical tags)."),
        OwnerErrors))]
async fn put_languages(
    State(store): State<Store>,
    owner: Owner<area::Languages, Change>,
    Json(b): Json<LanguagesBody>,
) -> Result<Json<LanguagesSaved>, ApiError> {
    let languages = check_languages(&b.languages)?;
    let tenant = owner.site.tenant.id;
    let mut m = stored(&store, tenant).await?;
    m.insert("languages".into(), Value::Array(languages.clone()));
    store
        .put_multilingual(tenant, &Value::Object(m))
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(LanguagesSaved { languages }))
}

/// The connection is gone.
#[derive(Serialize, ToSchema)]
#[schema(as = MultilingualDisconnected)]
struct Disconnected {
    /// Always false.
    connected: bool,
}

/// `DELETE /api/multilingual/connection`: removes the translation connection.
///
/// The languages stay.
#[utoipa::path(delete, path = "/api/multilingual/connection", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = Disconnected), OwnerErrors))]
async fn disconnect(
    State(store): State<Store>,
    owner: Owner<area::Languages, Change>,
) -> Result<Json<Disconnected>, ApiError> {
    let tenant = owner.site.tenant.id;
    let mut m = stored(&store, tenant).await?;
    if m.remove("connection").is_some() {
        store
            .put_multilingual(tenant, &Value::Object(m))
            .await
            .map_err(|e| store_failure(&e))?;
    }
    Ok(Json(Disconnected { connected: false }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_are_canonical_and_once() {
        let got = check_languages(&json!(["fr-fr", {"tag": "de", "enabled": false}])).unwrap();
        assert_eq!(
            got,
            [
                json!({"tag": "fr-FR", "enabled": true}),
                json!({"tag": "de", "enabled": false})
            ]
        );
        let e = check_languages(&json!(["fr-FR", "fr-fr", "not a tag", 3])).unwrap_err();
        assert_eq!(
            e.body["errors"],
            json!({"languages[1]": EXISTS, "languages[2]": BAD_TAG, "languages[3]": BAD_TAG})
        );
        assert!(check_languages(&json!("fr")).is_err());
        assert!(check_languages(&json!(vec!["en"; 51])).is_err());
    }
}
