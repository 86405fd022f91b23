//! Visitor analytics and performance records (SPEC.md §7, the tracking calls; §9 "Tracking").
//!
//! | route | body | answer |
//! |---|---|---|
//! | `POST /api/events/RecordEvent` | form: crumb (the crumb cookie's), event, data (JSON object) | `{}` |
//! | `POST /api/census/RecordHit` | form: event, data (JSON object), ss_cvr | `{}` |
//! | `POST /api/census/button-click`, `button-render`, `form-render`, `overlay` | JSON object (page fields, visitorCookie, formId …) | `{}` |
//! | `POST /api/census/RecordQuickView/{itemId}` | none | `{}`; 404 for an item not of this site |
//! | `POST /api/v1/clanker/events` | JSON or form: eventSchemaName, eventContent (a JSON object as text) | 202 `{}` |
//! | `POST /api/v1/clanker/validate-event-content/{schemaName}` | as above | `{valid: true}`; nothing stored |
//! | `POST /api/events/RecordJavascriptErrors` | crumb header; JSON `[{event, data, timestamp}]`, at most 20 | `{}` |
//! | `GET /api/1/performance/settings` | | `{pageLoadId}` |
//! | `GET /api/commerce/fullstory/getId` | | `{id: "automated-mock-id"}` (no recording provider: skip) |
//! | `POST /api/1/performance/records` | JSON `[{app, data, event, pageLoadId, ts}]`, at most 100 | `{}` |
//!
//! Pages are counted by the server as it answers them ([`page_views`]).
//!
//! A body that is too large, malformed or of the wrong shape is refused with 400 and nothing
//! of it is stored. Accepted records go to the [`queue::Queue`] and are written in batches,
//! never on a page's or a call's path. With analytics off (`serve --no-analytics`, and
//! always under `tessera dev`) the calls answer the same and store nothing.

pub mod page_views;
pub mod queue;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tenants::{AnalyticsEvent, PerformanceRecord, now_ms};

use crate::http::ApiError;
use crate::http::call::{Call, respond};
use crate::http::cookies;
use crate::http::error::json_response;
use crate::http::owner::{self, Access, Area};
use crate::server::App;
use queue::Record;

/// The largest body a tracking call reads.
pub const MAX_BODY: usize = 32 * 1024;
/// The largest `data` of one event (its JSON text).
pub const MAX_DATA: usize = 16 * 1024;
/// SPEC.md §9: the error reporter sends at most 20 reports a page.
pub const MAX_ERRORS: usize = 20;
/// Performance records one call may carry.
pub const MAX_RECORDS: usize = 100;
/// The visitor cookie (SPEC.md §9: kept two years).
pub const VISITOR_COOKIE: &str = "ss_cvr";

pub const BAD_NAME: &str = "The event name must be 1-64 letters, digits, '_', '.', ':' or '-'.";
pub const BAD_DATA: &str = "The event data must be a JSON object of at most 16 KB.";

pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/events/RecordEvent", post(record_event))
        .route("/api/census/RecordHit", post(record_hit))
        .route("/api/census/{kind}", post(census))
        .route("/api/census/RecordQuickView/{id}", post(quick_view))
        .route("/api/v1/clanker/events", post(clanker_event))
        .route(
            "/api/v1/clanker/validate-event-content/{schema}",
            post(clanker_validate),
        )
        .route(
            "/api/events/RecordJavascriptErrors",
            post(javascript_errors),
        )
        .route("/api/1/performance/settings", get(performance_settings))
        .route("/api/commerce/fullstory/getId", get(recording_id))
        .route("/api/1/performance/records", post(performance_records))
        .route("/api/analytics/summary", get(summary))
}

/// `GET /api/analytics/summary?days=N` (owner; 1-366 days, default 7): what
/// `tessera analytics` prints, as JSON.
async fn summary(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            owner::require(&app, &call, Area::Analytics, Access::Read).await?;
            let days = match call.query("days") {
                None => 7,
                Some(d) => d
                    .parse::<u16>()
                    .ok()
                    .filter(|d| (1..=366).contains(d))
                    .ok_or_else(|| {
                        ApiError::field("days", "days must be a whole number from 1 to 366.")
                    })?,
            };
            let s = app
                .store
                .analytics_summary(call.site.tenant.id, crate::cmd::analytics::first_day(days))
                .await
                .map_err(|e| crate::http::error::store_failure(&e))?;
            Ok(json_response(StatusCode::OK, &json!(s)))
        }
        .await,
    )
}

/// A name of an event, an app or a schema.
fn name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// A JSON object of at most [`MAX_DATA`], from its text.
fn data_of(text: &str) -> Result<Map<String, Value>, ApiError> {
    if text.len() > MAX_DATA {
        return Err(ApiError::field("data", BAD_DATA));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(m),
        _ => Err(ApiError::field("data", BAD_DATA)),
    }
}

/// The body, at most [`MAX_BODY`]; too large is a 400 like any other bad body here.
async fn body_bytes(body: axum::body::Body) -> Result<axum::body::Bytes, ApiError> {
    crate::http::body::bytes(body, MAX_BODY)
        .await
        .map_err(|e| ApiError::bad_request(e.message().to_owned()))
}

/// A form-encoded body's fields.
fn form_fields(bytes: &[u8]) -> Map<String, Value> {
    form_urlencoded::parse(bytes)
        .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
        .collect()
}

fn field<'a>(form: &'a Map<String, Value>, name: &str) -> &'a str {
    form.get(name).and_then(Value::as_str).unwrap_or("")
}

/// The page path an event is about: `pagePath`, else the path of `url`.
pub(crate) fn page_path(data: &Map<String, Value>) -> String {
    let raw = data
        .get("pagePath")
        .or_else(|| data.get("page_path"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            let url = data.get("url").and_then(Value::as_str)?;
            let after_host = url.split_once("://").map_or(url, |(_, r)| r);
            Some(format!(
                "/{}",
                after_host.split_once('/').map_or("", |(_, p)| p)
            ))
        })
        .unwrap_or_default();
    let path = raw.split(['?', '#']).next().unwrap_or("");
    path.chars().take(512).collect()
}

/// The host of the page the visitor came from (`referrer`, `page_referrer_url` or
/// `referrerUrl`), unless it is this site.
pub(crate) fn referrer_of(data: &Map<String, Value>, own_host: &str) -> Option<String> {
    let url = ["referrer", "page_referrer_url", "referrerUrl"]
        .iter()
        .find_map(|k| data.get(*k).and_then(Value::as_str))?;
    let rest = url.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?.to_ascii_lowercase();
    let own = own_host
        .split(':')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    (!host.is_empty() && host.len() <= 253 && host != own).then_some(host)
}

/// The visitor cookie, if it looks like one.
fn visitor_of(call: &Call, form: Option<&str>) -> Option<String> {
    cookies::values(&call.headers, VISITOR_COOKIE)
        .next()
        .or(form)
        .filter(|v| (1..=128).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
}

/// Queues an event (when analytics is on).
fn keep(app: &App, call: &Call, name: &str, data: Map<String, Value>, visitor: Option<String>) {
    if let Some(q) = &app.analytics {
        let event = AnalyticsEvent {
            occurred_ms: now_ms(),
            name: name.to_owned(),
            page_path: page_path(&data),
            referrer: referrer_of(&data, &call.host()),
            visitor_id: visitor,
            data: Value::Object(data),
        };
        q.push(Record::Event(call.site.tenant.id, event));
    }
}

/// Records an event the server itself knows of (a cart add, an order), with the
/// visitor's cookie; nothing when analytics is off.
pub fn record(app: &App, call: &Call, name: &str, data: Value) {
    let data = match data {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    keep(app, call, name, data, visitor_of(call, None));
}

fn ok(status: StatusCode) -> Result<Response, ApiError> {
    Ok(json_response(status, &json!({})))
}

/// `POST /api/events/RecordEvent`: the older tracker; the crumb comes as a form field.
async fn record_event(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            let form = form_fields(&body_bytes(body).await?);
            crate::http::crumb::check(
                &call.headers,
                Some(field(&form, "crumb")),
                &call.site.secret,
            )?;
            let name = field(&form, "event");
            if !name_ok(name) {
                return Err(ApiError::field("event", BAD_NAME));
            }
            let data = data_of(field(&form, "data"))?;
            let visitor = visitor_of(&call, None);
            keep(&app, &call, name, data, visitor);
            ok(StatusCode::OK)
        }
        .await,
    )
}

/// `POST /api/census/RecordHit`: a page view.
async fn record_hit(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            let form = form_fields(&body_bytes(body).await?);
            let name = match field(&form, "event") {
                "" => "pageview",
                n => n,
            };
            if !name_ok(name) {
                return Err(ApiError::field("event", BAD_NAME));
            }
            let data = data_of(field(&form, "data"))?;
            let visitor = visitor_of(&call, Some(field(&form, VISITOR_COOKIE)));
            keep(&app, &call, name, data, visitor);
            ok(StatusCode::OK)
        }
        .await,
    )
}

/// `POST /api/census/{button-click|button-render|form-render|overlay}`.
async fn census(State(app): State<App>, Path(kind): Path<String>, req: Request) -> Response {
    respond(
        async {
            if !matches!(
                kind.as_str(),
                "button-click" | "button-render" | "form-render" | "overlay"
            ) {
                return Err(ApiError::not_found("Not Found"));
            }
            let (call, body) = Call::begin(&app, req).await?;
            let bytes = body_bytes(body).await?;
            let data = data_of(std::str::from_utf8(&bytes).unwrap_or(""))?;
            let form_visitor = data
                .get("visitorCookie")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let visitor = visitor_of(&call, form_visitor.as_deref());
            keep(&app, &call, &kind, data, visitor);
            ok(StatusCode::OK)
        }
        .await,
    )
}

/// `POST /api/census/RecordQuickView/{itemId}`.
async fn quick_view(State(app): State<App>, Path(id): Path<String>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            let item = app
                .store
                .item(call.site.tenant.id, &id)
                .await
                .map_err(|e| crate::http::error::store_failure(&e))?
                .ok_or_else(|| ApiError::not_found("Not Found"))?;
            let mut data = Map::new();
            data.insert("itemId".into(), json!(item.id));
            data.insert("collectionId".into(), json!(item.collection_id));
            keep(&app, &call, "quick-view", data, visitor_of(&call, None));
            ok(StatusCode::OK)
        }
        .await,
    )
}

/// The newer tracker's body: JSON, or form-encoded from a beacon.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClankerBody {
    #[serde(default)]
    event_schema_name: String,
    #[serde(default)]
    event_content: String,
}

fn clanker_body(bytes: &[u8]) -> Result<ClankerBody, ApiError> {
    let trimmed = bytes.trim_ascii_start();
    let body = if trimmed.first() == Some(&b'{') {
        crate::http::body::parse::<ClankerBody>(bytes)?
    } else {
        let form = form_fields(bytes);
        ClankerBody {
            event_schema_name: field(&form, "eventSchemaName").to_owned(),
            event_content: field(&form, "eventContent").to_owned(),
        }
    };
    Ok(body)
}

/// The schema name and content of a newer-tracker event, checked.
fn clanker_event_of(
    bytes: &[u8],
    schema: Option<&str>,
) -> Result<(String, Map<String, Value>), ApiError> {
    let body = clanker_body(bytes)?;
    let schema = schema.unwrap_or(&body.event_schema_name).to_owned();
    if !name_ok(&schema) {
        return Err(ApiError::field("eventSchemaName", BAD_NAME));
    }
    let content =
        data_of(&body.event_content).map_err(|_| ApiError::field("eventContent", BAD_DATA))?;
    Ok((schema, content))
}

/// `POST /api/v1/clanker/events`: 202, as the newer tracker expects.
async fn clanker_event(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            let (schema, content) = clanker_event_of(&body_bytes(body).await?, None)?;
            let visitor = content
                .get("analytics_id")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let visitor = visitor_of(&call, visitor.as_deref());
            keep(&app, &call, &schema, content, visitor);
            ok(StatusCode::ACCEPTED)
        }
        .await,
    )
}

/// `POST /api/v1/clanker/validate-event-content/{schemaName}`: checks, stores nothing.
async fn clanker_validate(
    State(app): State<App>,
    Path(schema): Path<String>,
    req: Request,
) -> Response {
    respond(
        async {
            let (_, body) = Call::begin(&app, req).await?;
            clanker_event_of(&body_bytes(body).await?, Some(&schema))?;
            Ok(json_response(StatusCode::OK, &json!({"valid": true})))
        }
        .await,
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportedError {
    event: String,
    #[serde(default)]
    data: Map<String, Value>,
    #[serde(default)]
    timestamp: Option<i64>,
}

/// `POST /api/events/RecordJavascriptErrors`: the error reporter's batch (crumb header).
async fn javascript_errors(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            crate::http::crumb::check(&call.headers, None, &call.site.secret)?;
            let list: Vec<ReportedError> = crate::http::body::parse(&body_bytes(body).await?)?;
            if list.is_empty() || list.len() > MAX_ERRORS {
                return Err(ApiError::bad_request(format!(
                    "Send 1-{MAX_ERRORS} error reports at a time."
                )));
            }
            for e in &list {
                if !name_ok(&e.event) {
                    return Err(ApiError::field("event", BAD_NAME));
                }
            }
            let visitor = visitor_of(&call, None);
            for e in list {
                let mut data = e.data;
                data.insert("event".into(), json!(e.event));
                if let Some(ts) = e.timestamp {
                    data.insert("timestamp".into(), json!(ts));
                }
                keep(&app, &call, "javascript-error", data, visitor.clone());
            }
            ok(StatusCode::OK)
        }
        .await,
    )
}

/// `GET /api/1/performance/settings`: the id a page's performance records carry.
/// SPEC.md §7: the id a session recording would run under; this value means skip.
pub const RECORDING_MOCK_ID: &str = "automated-mock-id";

/// `GET /api/commerce/fullstory/getId`: we run no session-recording provider, so every
/// page is told to skip.
async fn recording_id(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let _ = Call::begin(&app, req).await?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"id": RECORDING_MOCK_ID}),
            ))
        }
        .await,
    )
}

async fn performance_settings(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let _ = Call::begin(&app, req).await?;
            Ok(json_response(
                StatusCode::OK,
                &json!({"pageLoadId": tenants::new_id()}),
            ))
        }
        .await,
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Performance {
    app: String,
    event: String,
    page_load_id: String,
    ts: i64,
    #[serde(default)]
    data: Map<String, Value>,
}

/// `POST /api/1/performance/records` (by beacon or XHR, so any content type).
async fn performance_records(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            let list: Vec<Performance> = crate::http::body::parse(&body_bytes(body).await?)?;
            if list.is_empty() || list.len() > MAX_RECORDS {
                return Err(ApiError::bad_request(format!(
                    "Send 1-{MAX_RECORDS} records at a time."
                )));
            }
            for p in &list {
                for (f, v) in [
                    ("app", &p.app),
                    ("event", &p.event),
                    ("pageLoadId", &p.page_load_id),
                ] {
                    if !name_ok(v) {
                        return Err(ApiError::field(f, BAD_NAME));
                    }
                }
            }
            if let Some(q) = &app.analytics {
                for p in list {
                    q.push(Record::Performance(
                        call.site.tenant.id,
                        PerformanceRecord {
                            page_load_id: p.page_load_id,
                            app: p.app,
                            event: p.event,
                            ts_ms: p.ts,
                            data: Value::Object(p.data),
                        },
                    ));
                }
            }
            ok(StatusCode::OK)
        }
        .await,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_paths() {
        assert!(name_ok("pageview") && name_ok("commerce:add_to_cart.v2"));
        assert!(!name_ok("") && !name_ok("a b") && !name_ok(&"x".repeat(65)));
        let data = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(page_path(&data(json!({"pagePath": "/shop?x=1"}))), "/shop");
        assert_eq!(
            page_path(&data(json!({"url": "https://a.test/blog/x#c"}))),
            "/blog/x"
        );
        assert_eq!(page_path(&data(json!({"url": "https://a.test"}))), "/");
        assert_eq!(page_path(&data(json!({}))), "");
        let from = |v: Value| referrer_of(&data(v), "shop.test:8080");
        assert_eq!(
            from(json!({"referrer": "https://Search.Example/q?x"})),
            Some("search.example".into())
        );
        assert_eq!(
            from(json!({"page_referrer_url": "http://u:p@friend.example:81/"})),
            Some("friend.example".into())
        );
        assert_eq!(from(json!({"referrer": "https://shop.test/cart"})), None);
        assert_eq!(from(json!({"referrer": "not a url"})), None);
    }
}
