//! What came in, for the owner to read: form answers and newsletter subscribers (orders
//! are [`super::orders`]; the forms themselves [`super::forms`]).
//!
//! | route | role may | answer |
//! |---|---|---|
//! | `GET /api/owner/forms/{formId}/submissions` | forms, read | `{form: {id, name, fields}, submissions}` oldest first |
//! | `GET /api/owner/forms/{formId}/submissions.csv` | forms, read | CSV: `submitted,page`, then a column per field of the form as saved |
//! | `GET /api/owner/subscribers` | forms, read | `{subscribers}` |
//! | `GET /api/owner/subscribers.csv` | forms, read | CSV: `email,source,subscribed` |
//!
//! CSV exports are UTF-8 with CRLF rows; a cell a spreadsheet would read as a formula
//! (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is led by `'`
//! ([`super::orders::csv_field`]). A submission's answer reads as the notice mail shows it
//! (a name's parts joined, a checkbox's choices comma-separated, "N/A" when unanswered); an
//! answer to a field since removed from the form is not exported.

use axum::extract::{Path, State};
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use tenants::Store;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::error::store_failure;
use crate::http::extract::{Read, area};
use crate::http::{ApiError, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const NO_FORM: &str = "That form does not exist.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(submissions))
        .routes(routes!(submissions_csv))
        .routes(routes!(subscribers))
        .routes(routes!(subscribers_csv))
}

/// The form the submissions answer: its name and fields (the table's columns).
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerSubmissionsForm)]
struct FormHead {
    id: String,
    name: String,
    /// The form's fields as saved (`{id, type, title, …}`).
    #[schema(value_type = Vec<Object>)]
    fields: Value,
}

/// A form's submissions.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerSubmissionList)]
struct SubmissionList {
    form: FormHead,
    /// Oldest first, as stored.
    #[schema(value_type = Vec<Object>)]
    submissions: Vec<tenants::FormSubmission>,
}

/// `GET /api/owner/forms/{form_id}/submissions`: a form's submissions.
#[utoipa::path(get, path = "/api/owner/forms/{form_id}/submissions", tag = OWNER,
    params(("form_id" = String, Path, description = "The form's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = SubmissionList), OwnerErrors))]
async fn submissions(
    State(store): State<Store>,
    Path(form_id): Path<String>,
    owner: Owner<area::Forms, Read>,
) -> Result<Json<SubmissionList>, ApiError> {
    let tenant = owner.site.tenant.id;
    let form = store
        .form(tenant, &form_id)
        .await
        .map_err(|e| store_failure(&e))?;
    let Some(form) = form else {
        return Err(ApiError::not_found(NO_FORM));
    };
    let submissions = store
        .form_submissions(tenant, &form_id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(SubmissionList {
        form: FormHead {
            id: form.id,
            name: form.name,
            fields: form.fields,
        },
        submissions,
    }))
}

/// The newsletter's subscribers.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerSubscriberList)]
struct SubscriberList {
    #[schema(value_type = Vec<Object>)]
    subscribers: Vec<tenants::Subscriber>,
}

/// `GET /api/owner/subscribers`: the newsletter subscribers (form sign-ups).
#[utoipa::path(get, path = "/api/owner/subscribers", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = SubscriberList), OwnerErrors))]
async fn subscribers(
    State(store): State<Store>,
    owner: Owner<area::Forms, Read>,
) -> Result<Json<SubscriberList>, ApiError> {
    let subscribers = store
        .subscribers(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(SubscriberList { subscribers }))
}

fn time_text(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

fn csv_line(cells: &[String]) -> String {
    cells
        .iter()
        .map(|c| super::orders::csv_field(c))
        .collect::<Vec<_>>()
        .join(",")
        + "\r\n"
}

/// A CSV download named `name`.
fn csv_answer(body: String, name: &str) -> Response {
    let mut r = body.into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The CSV of `form`'s `subs`: `submitted,page`, then a column per field (sections left out).
pub fn submissions_csv_text(form: &tenants::Form, subs: &[tenants::FormSubmission]) -> String {
    let fields: Vec<(&str, &str, Option<&str>)> = form
        .fields
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| {
            let kind = f.get("type").and_then(Value::as_str);
            if kind == Some("section") {
                return None;
            }
            let id = f.get("id")?.as_str()?;
            let title = f.get("title").and_then(Value::as_str).unwrap_or(id);
            Some((id, title, kind))
        })
        .collect();
    let mut header = vec!["submitted".to_owned(), "page".to_owned()];
    header.extend(fields.iter().map(|(_, t, _)| (*t).to_owned()));
    let mut out = csv_line(&header);
    for s in subs {
        let mut row = vec![
            time_text(s.created_ms),
            s.page
                .get("pagePath")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        ];
        row.extend(fields.iter().map(|(id, _, kind)| {
            s.answers.get(*id).map_or_else(
                || tenants::form_answers::NOT_ANSWERED.to_owned(),
                |a| tenants::form_answers::answer_text(*kind, a),
            )
        }));
        out.push_str(&csv_line(&row));
    }
    out
}

/// `GET /api/owner/forms/{form_id}/submissions.csv`: a form's submissions as CSV.
#[utoipa::path(get, path = "/api/owner/forms/{form_id}/submissions.csv", tag = OWNER,
    params(("form_id" = String, Path, description = "The form's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, content_type = "text/csv", body = String,
        description = "`submitted,page`, then a column per field of the form (its label), \
                       then a row per submission, oldest first; a value starting with = + - @ is led by '."),
        OwnerErrors))]
async fn submissions_csv(
    State(store): State<Store>,
    Path(form_id): Path<String>,
    owner: Owner<area::Forms, Read>,
) -> Result<Response, ApiError> {
    let tenant = owner.site.tenant.id;
    let form = store
        .form(tenant, &form_id)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NO_FORM))?;
    let subs = store
        .form_submissions(tenant, &form_id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(csv_answer(
        submissions_csv_text(&form, &subs),
        "submissions.csv",
    ))
}

/// `GET /api/owner/subscribers.csv`: the newsletter subscribers as CSV.
#[utoipa::path(get, path = "/api/owner/subscribers.csv", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, content_type = "text/csv", body = String,
        description = "`email,source,subscribed`, then a row per subscriber, oldest first; \
                       a value starting with = + - @ is led by '."),
        OwnerErrors))]
async fn subscribers_csv(
    State(store): State<Store>,
    owner: Owner<area::Forms, Read>,
) -> Result<Response, ApiError> {
    let subscribers = store
        .subscribers(owner.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    let mut out = csv_line(&["email".into(), "source".into(), "subscribed".into()]);
    for s in &subscribers {
        out.push_str(&csv_line(&[
            s.email.clone(),
            s.source.clone(),
            time_text(s.created_ms),
        ]));
    }
    Ok(csv_answer(out, "subscribers.csv"))
}
