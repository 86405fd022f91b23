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
//! Pages are counted by the server as it answers them ([`crate::analytics::page_views`]).
//!
//! A body that is too large, malformed or of the wrong shape is refused with 400 and nothing
//! of it is stored. Accepted records go to the [`crate::analytics::queue::Queue`] and are written in batches,
//! never on a page's or a call's path. With analytics off (`serve --no-analytics`, and
//! always under `tessera dev`) the calls answer the same and store nothing.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tenants::PerformanceRecord;
use utoipa::openapi::{RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::analytics::queue::Record;
use crate::analytics::{keep, visitor_of};
use crate::http::call::Call;
use crate::http::extract::family::CrumbOnly;
use crate::http::extract::{Read, area};
use crate::http::site::Site;
use crate::http::{ApiError, Json, Owner, Write};
use crate::openapi::{ANALYTICS, OwnerErrors, VisitorErrors, WriteErrors};
use crate::server::state::App;

/// The largest body a tracking call reads.
pub const MAX_BODY: usize = 32 * 1024;
/// The largest `data` of one event (its JSON text).
pub const MAX_DATA: usize = 16 * 1024;
/// SPEC.md §9: the error reporter sends at most 20 reports a page.
pub const MAX_ERRORS: usize = 20;
/// Performance records one call may carry.
pub const MAX_RECORDS: usize = 100;
/// The visitor cookie (SPEC.md §9: kept two years).
pub use crate::analytics::VISITOR_COOKIE;

pub const BAD_NAME: &str = "The event name must be 1-64 letters, digits, '_', '.', ':' or '-'.";
pub const BAD_DATA: &str = "The event data must be a JSON object of at most 16 KB.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(record_event))
        .routes(routes!(record_hit))
        .routes(routes!(census))
        .routes(routes!(quick_view))
        .routes(routes!(clanker_event))
        .routes(routes!(clanker_validate))
        .routes(routes!(javascript_errors))
        .routes(routes!(performance_settings))
        .routes(routes!(recording_id))
        .routes(routes!(performance_records))
        .routes(routes!(summary))
}

/// What a tracking call that reads a body can get besides its answer: 400 (a body too
/// large, malformed or of the wrong shape; nothing of it is stored), 403 (the crumb is
/// missing or wrong), 404 (unknown site) and 503.
struct CrumbTrackErrors;

impl IntoResponses for CrumbTrackErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = VisitorErrors::responses();
        r.insert("403".to_owned(), WriteErrors::responses()["403"].clone());
        r
    }
}

/// What a call without a body can get besides its answer: 404 and 503.
struct SiteErrors;

impl IntoResponses for SiteErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = VisitorErrors::responses();
        r.remove("400");
        r
    }
}

/// An owner's read with parameters: 400, 401, 403, 404, 503.
struct SummaryErrors;

impl IntoResponses for SummaryErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = OwnerErrors::responses();
        r.remove("413");
        r
    }
}

/// A tracking call's answer: nothing to say (the record is queued, or dropped when
/// analytics is off).
#[derive(Serialize, ToSchema)]
#[schema(as = TrackingAnswer)]
struct Recorded {}

/// A `[name, count]` pair of the summary. (utoipa describes a tuple inside a `Vec` with
/// the old array-form `items`, which OpenAPI 3.1 refuses, so this says it with
/// `prefixItems`.)
struct Ranked;

impl utoipa::PartialSchema for Ranked {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ArrayItems, ObjectBuilder, Type};
        ArrayBuilder::new()
            .items(ArrayItems::False)
            .prefix_items([
                ObjectBuilder::new().schema_type(Type::String),
                ObjectBuilder::new().schema_type(Type::Integer),
            ])
            .min_items(Some(2))
            .description(Some("[name, count]"))
            .into()
    }
}

impl utoipa::ToSchema for Ranked {}

/// What an owner sees of a period: visits, visitors, the pages and referrers they came by,
/// carts and orders.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AnalyticsSummary)]
struct Summary {
    /// The start of the period, epoch ms.
    since_ms: i64,
    /// Visits: sessions of 30 minutes from a visitor's first page (none on a site that
    /// keeps visitors unnamed).
    visits: i64,
    /// Pages seen.
    page_views: i64,
    /// Distinct visitor cookies among the page views.
    unique_visitors: i64,
    /// [path, page views], most first, at most 10.
    #[schema(value_type = Vec<Ranked>)]
    top_pages: Vec<(String, i64)>,
    /// [host, page views], most first, at most 10.
    #[schema(value_type = Vec<Ranked>)]
    top_referrers: Vec<(String, i64)>,
    /// Successful cart adds.
    add_to_carts: i64,
    /// Orders placed.
    purchases: i64,
    /// Purchases per unique visitor (0 without visitors).
    conversion_rate: f64,
}

impl From<tenants::AnalyticsSummary> for Summary {
    fn from(s: tenants::AnalyticsSummary) -> Summary {
        let tenants::AnalyticsSummary {
            since_ms,
            visits,
            page_views,
            unique_visitors,
            top_pages,
            top_referrers,
            add_to_carts,
            purchases,
            conversion_rate,
        } = s;
        Summary {
            since_ms,
            visits,
            page_views,
            unique_visitors,
            top_pages,
            top_referrers,
            add_to_carts,
            purchases,
            conversion_rate,
        }
    }
}

/// `GET /api/analytics/summary?days=N`: visits, visitors and conversions of the last days.
///
/// What `tessera analytics` prints, as JSON.
#[utoipa::path(get, path = "/api/analytics/summary", tag = ANALYTICS,
    params(("days" = Option<u16>, Query, minimum = 1, maximum = 366, description = "Days back, today included (7 unless given).")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Summary), SummaryErrors))]
async fn summary(
    State(app): State<App>,
    owner: Owner<area::Analytics, Read>,
) -> Result<Json<Summary>, ApiError> {
    let days = match owner.query("days") {
        None => 7,
        Some(d) => d
            .parse::<u16>()
            .ok()
            .filter(|d| (1..=366).contains(d))
            .ok_or_else(|| ApiError::field("days", "days must be a whole number from 1 to 366."))?,
    };
    let s = app
        .store
        .analytics_summary(owner.site.tenant.id, crate::analytics::first_day(days))
        .await
        .map_err(|e| crate::http::error::store_failure(&e))?;
    Ok(Json(Summary::from(s)))
}

/// A name of an event, an app or a schema.
fn name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-'))
}

/// A JSON object of at most [`MAX_DATA`], from its text.
pub(crate) fn data_of(text: &str) -> Result<Map<String, Value>, ApiError> {
    if text.len() > MAX_DATA {
        return Err(ApiError::field("data", BAD_DATA));
    }
    let data = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    // JSON inside a form field: the body's check for U+0000 saw only its text.
    crate::http::body::refuse_nul(&data, "data")?;
    match data {
        Value::Object(m) => Ok(m),
        _ => Err(ApiError::field("data", BAD_DATA)),
    }
}

/// A tracking call's body: at most [`MAX_BODY`] bytes, whatever its content type (beacons
/// send text); too large, or not sent in time, is a 400 like any other bad body here.
struct Beacon(Bytes);

impl<S: Send + Sync> FromRequest<S> for Beacon {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        crate::http::body::bytes(req.into_body(), MAX_BODY)
            .await
            .map(Beacon)
            .map_err(|e| ApiError::bad_request(e.message().to_owned()))
    }
}

/// A form-encoded body's fields (a 400 for one with U+0000).
fn form_fields(bytes: &[u8]) -> Result<Map<String, Value>, ApiError> {
    Ok(crate::http::body::form_pairs(bytes)?
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect())
}

fn field<'a>(form: &'a Map<String, Value>, name: &str) -> &'a str {
    form.get(name).and_then(Value::as_str).unwrap_or("")
}

/// A form-encoded event of the older tracker. Other fields are ignored.
#[derive(ToSchema)]
#[schema(as = RecordEventForm)]
#[allow(dead_code)] // a shape for the document; the form is read field by field
struct EventForm {
    /// The crumb cookie's value (or send it in `X-CSRF-Token`).
    #[schema(nullable = false)]
    crumb: Option<String>,
    /// The event's name.
    #[schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    event: String,
    /// A JSON object as text, at most 16 KB.
    #[schema(max_length = 16384)]
    data: String,
}

/// A form-encoded page view. Other fields are ignored.
#[derive(ToSchema)]
#[schema(as = RecordHitForm)]
#[allow(dead_code)] // a shape for the document; the form is read field by field
struct HitForm {
    /// The event's name (`pageview` when empty or missing).
    #[schema(nullable = false, pattern = "^([A-Za-z0-9_.:-]{1,64})?$")]
    event: Option<String>,
    /// A JSON object as text, at most 16 KB.
    #[schema(max_length = 16384)]
    data: String,
    /// The visitor cookie's value, when the request does not carry the cookie.
    #[schema(nullable = false)]
    ss_cvr: Option<String>,
}

/// `POST /api/events/RecordEvent`: an event of the older tracker.
///
/// The crumb comes as the `crumb` form field (or `X-CSRF-Token`); the `crumb` cookie must
/// be sent too.
#[utoipa::path(post, path = "/api/events/RecordEvent", tag = ANALYTICS,
    request_body(content = EventForm, content_type = "application/x-www-form-urlencoded"),
    security(("crumb" = []), ()),
    responses((status = 200, body = Recorded), CrumbTrackErrors))]
async fn record_event(
    State(app): State<App>,
    call: Call,
    Beacon(body): Beacon,
) -> Result<Json<Recorded>, ApiError> {
    let form = form_fields(&body)?;
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
    Ok(Json(Recorded {}))
}

/// `POST /api/census/RecordHit`: a page view.
#[utoipa::path(post, path = "/api/census/RecordHit", tag = ANALYTICS,
    request_body(content = HitForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = Recorded), VisitorErrors))]
async fn record_hit(
    State(app): State<App>,
    call: Call,
    Beacon(body): Beacon,
) -> Result<Json<Recorded>, ApiError> {
    let form = form_fields(&body)?;
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
    Ok(Json(Recorded {}))
}

/// The kinds of census record.
#[derive(ToSchema)]
#[schema(as = CensusKind)]
#[allow(dead_code)] // a shape for the document; the path is matched as text
enum Kind {
    #[schema(rename = "button-click")]
    ButtonClick,
    #[schema(rename = "button-render")]
    ButtonRender,
    #[schema(rename = "form-render")]
    FormRender,
    #[schema(rename = "overlay")]
    Overlay,
}

/// The census kind of the path: one of [`Kind`]'s, else 404 (before the site is looked
/// up, like an unknown route).
struct CensusKind(String);

impl<S: Send + Sync> FromRequestParts<S> for CensusKind {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Response> {
        let Path(kind) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        match kind.as_str() {
            "button-click" | "button-render" | "form-render" | "overlay" => Ok(CensusKind(kind)),
            _ => Err(ApiError::not_found("Not Found").into_response()),
        }
    }
}

/// Unknown kinds are 404 too.
struct CensusErrors;

impl IntoResponses for CensusErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = VisitorErrors::responses();
        if let Some(RefOr::T(a)) = r.get_mut("404") {
            a.description = "No site has this host, or the kind is not one of these.".to_owned();
        }
        r
    }
}

/// `POST /api/census/{kind}`: a button or form shown or clicked, an overlay shown.
///
/// The body is the record's data: a JSON object of at most 16 KB (page fields,
/// `visitorCookie`, `formId` …), whatever the content type (beacons send text).
#[utoipa::path(post, path = "/api/census/{kind}", tag = ANALYTICS,
    params(("kind" = inline(Kind), Path)),
    request_body(content(
        (Object = "application/json"),
        (String = "text/plain"))),
    responses((status = 200, body = Recorded), CensusErrors))]
async fn census(
    State(app): State<App>,
    CensusKind(kind): CensusKind,
    call: Call,
    Beacon(body): Beacon,
) -> Result<Json<Recorded>, ApiError> {
    let data = data_of(std::str::from_utf8(&body).unwrap_or(""))?;
    let form_visitor = data
        .get("visitorCookie")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let visitor = visitor_of(&call, form_visitor.as_deref());
    keep(&app, &call, &kind, data, visitor);
    Ok(Json(Recorded {}))
}

/// `POST /api/census/RecordQuickView/{itemId}`: an item's quick view was opened.
#[utoipa::path(post, path = "/api/census/RecordQuickView/{id}", tag = ANALYTICS,
    params(("id" = String, Path, description = "The item (404 when not of this site).")),
    responses((status = 200, body = Recorded), SiteErrors))]
async fn quick_view(
    State(app): State<App>,
    Path(id): Path<String>,
    call: Call,
) -> Result<Json<Recorded>, ApiError> {
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
    Ok(Json(Recorded {}))
}

/// The newer tracker's body: JSON, or form-encoded from a beacon.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClankerBody {
    /// The event's name.
    #[serde(default)]
    #[schema(required = true, pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    event_schema_name: String,
    /// A JSON object as text, at most 16 KB.
    #[serde(default)]
    #[schema(required = true, max_length = 16384)]
    event_content: String,
}

/// What validating an event's content reads (its schema name comes from the path).
#[derive(ToSchema)]
#[allow(dead_code)] // a shape for the document; read as a ClankerBody
struct ClankerContent {
    /// A JSON object as text, at most 16 KB.
    #[schema(max_length = 16384)]
    #[schema(rename = "eventContent")]
    event_content: String,
}

/// The event content passes the checks.
#[derive(Serialize, ToSchema)]
struct ValidEvent {
    valid: bool,
}

fn clanker_body(bytes: &[u8]) -> Result<ClankerBody, ApiError> {
    let trimmed = bytes.trim_ascii_start();
    let body = if trimmed.first() == Some(&b'{') {
        crate::http::body::parse::<ClankerBody>(bytes)?
    } else {
        let form = form_fields(bytes)?;
        ClankerBody {
            event_schema_name: field(&form, "eventSchemaName").to_owned(),
            event_content: field(&form, "eventContent").to_owned(),
        }
    };
    Ok(body)
}

/// The schema name and content of a newer-tracker event, checked.
pub(crate) fn clanker_event_of(
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

/// `POST /api/v1/clanker/events`: an event of the newer tracker (202, as it expects).
///
/// A body starting with `{` is read as JSON, anything else as a form.
#[utoipa::path(post, path = "/api/v1/clanker/events", tag = ANALYTICS,
    request_body(content(
        (ClankerBody = "application/json"),
        (ClankerBody = "application/x-www-form-urlencoded"))),
    responses((status = 202, body = Recorded), VisitorErrors))]
async fn clanker_event(
    State(app): State<App>,
    call: Call,
    Beacon(body): Beacon,
) -> Result<(StatusCode, Json<Recorded>), ApiError> {
    let (schema, content) = clanker_event_of(&body, None)?;
    let visitor = content
        .get("analytics_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let visitor = visitor_of(&call, visitor.as_deref());
    keep(&app, &call, &schema, content, visitor);
    Ok((StatusCode::ACCEPTED, Json(Recorded {})))
}

/// `POST /api/v1/clanker/validate-event-content/{schemaName}`: checks an event, stores
/// nothing.
///
/// A body starting with `{` is read as JSON, anything else as a form; its
/// `eventSchemaName` is ignored.
#[utoipa::path(post, path = "/api/v1/clanker/validate-event-content/{schema}", tag = ANALYTICS,
    params(("schema" = String, Path, pattern = "^[A-Za-z0-9_.:-]{1,64}$", description = "The event's name.")),
    request_body(content(
        (ClankerContent = "application/json"),
        (ClankerContent = "application/x-www-form-urlencoded"))),
    responses((status = 200, body = ValidEvent), VisitorErrors))]
async fn clanker_validate(
    Path(schema): Path<String>,
    _: Site,
    Beacon(body): Beacon,
) -> Result<Json<ValidEvent>, ApiError> {
    clanker_event_of(&body, Some(&schema))?;
    Ok(Json(ValidEvent { valid: true }))
}

/// A script error on a page.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReportedError {
    #[schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    event: String,
    #[serde(default)]
    data: Map<String, Value>,
    /// Milliseconds since 1970.
    #[serde(default)]
    timestamp: Option<i64>,
}

/// 1 to 20 error reports.
#[derive(ToSchema)]
#[schema(min_items = 1, max_items = 20)]
#[allow(dead_code)] // a shape for the document; read as a list of ReportedError
struct ErrorReports(Vec<ReportedError>);

/// `POST /api/events/RecordJavascriptErrors`: the error reporter's batch.
#[utoipa::path(post, path = "/api/events/RecordJavascriptErrors", tag = ANALYTICS,
    request_body = ErrorReports, security(("crumb" = [])),
    responses((status = 200, body = Recorded), CrumbTrackErrors))]
async fn javascript_errors(
    State(app): State<App>,
    call: Call,
    _: Write<CrumbOnly>,
    Beacon(body): Beacon,
) -> Result<Json<Recorded>, ApiError> {
    let list: Vec<ReportedError> = crate::http::body::parse(&body)?;
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
    Ok(Json(Recorded {}))
}

/// SPEC.md §7: the id a session recording would run under; this value means skip.
pub const RECORDING_MOCK_ID: &str = "automated-mock-id";

/// The session recording's id: always [`RECORDING_MOCK_ID`], which means skip.
#[derive(Serialize, ToSchema)]
struct RecordingId {
    id: &'static str,
}

/// `GET /api/commerce/fullstory/getId`: we run no session-recording provider, so every
/// page is told to skip.
#[utoipa::path(get, path = "/api/commerce/fullstory/getId", tag = ANALYTICS,
    responses((status = 200, body = RecordingId), SiteErrors))]
async fn recording_id(_: Site) -> Json<RecordingId> {
    Json(RecordingId {
        id: RECORDING_MOCK_ID,
    })
}

/// The id a page's performance records carry.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PerformanceSettings {
    page_load_id: String,
}

/// `GET /api/1/performance/settings`: a fresh id for a page's performance records.
#[utoipa::path(get, path = "/api/1/performance/settings", tag = ANALYTICS,
    responses((status = 200, body = PerformanceSettings), SiteErrors))]
async fn performance_settings(_: Site) -> Json<PerformanceSettings> {
    Json(PerformanceSettings {
        page_load_id: tenants::new_id(),
    })
}

/// A performance measure of a page.
#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(as = PerformanceRecord)]
pub(crate) struct Performance {
    #[schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    app: String,
    #[schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    event: String,
    /// From `GET /api/1/performance/settings`.
    #[schema(pattern = "^[A-Za-z0-9_.:-]{1,64}$")]
    page_load_id: String,
    /// Milliseconds since 1970.
    ts: i64,
    #[serde(default)]
    data: Map<String, Value>,
}

/// 1 to 100 performance records.
#[derive(ToSchema)]
#[schema(min_items = 1, max_items = 100)]
#[allow(dead_code)] // a shape for the document; read as a list of Performance
struct PerformanceRecords(Vec<Performance>);

/// `POST /api/1/performance/records`: a page's performance measures.
///
/// Sent by beacon or XHR, so read as JSON whatever the content type.
#[utoipa::path(post, path = "/api/1/performance/records", tag = ANALYTICS,
    request_body(content(
        (PerformanceRecords = "application/json"),
        (PerformanceRecords = "text/plain"))),
    responses((status = 200, body = Recorded), VisitorErrors))]
async fn performance_records(
    State(app): State<App>,
    call: Call,
    Beacon(body): Beacon,
) -> Result<Json<Recorded>, ApiError> {
    let list: Vec<Performance> = crate::http::body::parse(&body)?;
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
    Ok(Json(Recorded {}))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analytics::{page_path, referrer_of};

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
