//! The site's languages (multilingual settings).
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/multilingual/settings` | languages, read | | `{defaultLanguage, languages, connection}` |
//! | `GET /api/multilingual/status` | languages, read | | `{enabled, languageCount, connected}` |
//! | `GET /api/multilingual/languages` | languages, read | | `{languages}` |
//! | `PUT /api/multilingual/languages` | languages, write | `{languages: ["fr-FR", {tag, enabled?}]}` | `{languages}` |
//! | `DELETE /api/multilingual/connection` | languages, write | | `{connected: false}` |
//!
//! A language is a BCP 47 tag, checked and stored in canonical form by ICU4X (`fr-fr` →
//! `fr-FR`); a site has at most 50, each once ("This language already exists"). The
//! translation provider's connection (`connection`, from the import) is what `DELETE`
//! removes; the languages stay.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{delete, get};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::site_content;
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::{json_response, store_failure};
use crate::http::owner::{Access, Area, begin};
use crate::server::App;

pub const EXISTS: &str = "This language already exists";
pub const BAD_TAG: &str = "That is not a language tag (like fr-FR).";
pub const TOO_MANY: &str = "A site has at most 50 languages.";
pub const BAD_LIST: &str = "languages is a list of language tags.";

const MAX_LANGUAGES: usize = 50;

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/multilingual/settings", get(settings))
        .route("/api/multilingual/status", get(status))
        .route(
            "/api/multilingual/languages",
            get(languages).put(put_languages),
        )
        .route("/api/multilingual/connection", delete(disconnect))
}

/// The stored settings as an object (`{}` when never set).
async fn stored(app: &App, call: &Call) -> Result<Map<String, Value>, ApiError> {
    let content = site_content(app, call).await?;
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

async fn settings(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Languages, Access::Read).await?;
            let m = stored(&app, &call).await?;
            Ok(json_response(
                StatusCode::OK,
                &json!({
                    "defaultLanguage": call.site.content.language,
                    "languages": languages_of(&m),
                    "connection": connection_of(&m),
                }),
            ))
        }
        .await,
    )
}

async fn status(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Languages, Access::Read).await?;
            let m = stored(&app, &call).await?;
            let count = languages_of(&m).as_array().map_or(0, Vec::len);
            Ok(json_response(
                StatusCode::OK,
                &json!({"enabled": count > 0, "languageCount": count, "connected": !connection_of(&m).is_null()}),
            ))
        }
        .await,
    )
}

async fn languages(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Languages, Access::Read).await?;
            let m = stored(&app, &call).await?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"languages": languages_of(&m)}),
            ))
        }
        .await,
    )
}

#[derive(Deserialize)]
struct LanguagesBody {
    #[serde(default)]
    languages: Value,
}

/// The languages as stored (`[{tag, enabled}]`), or the problems by field path.
fn check_languages(list: &Value) -> Result<Vec<Value>, ApiError> {
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

async fn put_languages(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = begin(&app, req, Area::Languages, Access::Write).await?;
            let b: LanguagesBody = read_json(body, MAX_JSON_BODY).await?;
            let languages = check_languages(&b.languages)?;
            let mut m = stored(&app, &call).await?;
            m.insert("languages".into(), Value::Array(languages.clone()));
            app.store
                .put_multilingual(call.site.tenant.id, &Value::Object(m))
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"languages": languages}),
            ))
        }
        .await,
    )
}

async fn disconnect(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = begin(&app, req, Area::Languages, Access::Write).await?;
            let mut m = stored(&app, &call).await?;
            if m.remove("connection").is_some() {
                app.store
                    .put_multilingual(call.site.tenant.id, &Value::Object(m))
                    .await
                    .map_err(|e| store_failure(&e))?;
            }
            Ok(json_response(StatusCode::OK, &json!({"connected": false})))
        }
        .await,
    )
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
