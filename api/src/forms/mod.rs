//! Site forms (SPEC.md §3 "Form", §5 "Forms", §7, §8 "Form submission"), per tenant by
//! `Host`: the form schema, single-use submission keys, saving a submission and checking
//! answers without saving. Answers are checked by [`tenants::form_answers`]; a newsletter
//! form (`settings.newsletter`) also puts its email on the site's mailing list. README.md
//! ("Forms API") lists the shapes.

use std::time::Duration;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tenants::form_answers::{self, UNPARSEABLE};
use tenants::{Form, StoreError};

mod page_post;

use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
use crate::server::App;

/// How long a submission key works (it is asked for on submit, so minutes are plenty).
pub const KEY_LIFETIME: Duration = Duration::from_secs(30 * 60);

/// SPEC.md §8, by status.
pub const NOT_CONFIGURED: &str = "This form has not been configured yet.";
pub const UNABLE_TO_SUBMIT: &str = "Unable to submit form. Please try again later.";
pub const RATE_LIMITED: &str =
    "Unable to submit form. Submission rate limit exceeded. Please try again later.";

/// The field kinds and what the form builder lets an owner set on each (SPEC.md §3).
fn field_kinds() -> Value {
    json!({
        "text": ["description", "placeholder", "required", "maxLength"],
        "textarea": ["description", "placeholder", "required", "maxLength"],
        "email": ["description", "placeholder", "required"],
        "number": ["description", "placeholder", "required"],
        "currency": ["currencySymbol", "required"],
        "phone": ["showCountryCode", "required"],
        "name": ["required"], "address": ["required"], "date": ["required"], "time": ["required"],
        "radio": ["options", "required"], "checkbox": ["options", "required"],
        "select": ["options", "required"], "likert": ["options"],
        "hidden": ["key", "value"],
        "section": ["underline"],
    })
}

/// What a visitor's page may know of a form: its fields and what shows after submitting
/// (never where submissions are stored or mailed).
fn public_form(f: &Form) -> Value {
    let s = &f.settings;
    json!({
        "id": f.id,
        "name": f.name,
        "fields": f.fields,
        "submissionMessage": s.get("submissionMessage"),
        "submissionHtml": s.get("submissionHtml"),
        "successRedirect": s.get("successRedirect"),
        "disclaimer": s.get("disclaimer"),
        "newsletter": s.get("newsletter").and_then(Value::as_bool).unwrap_or(false),
        "captcha": wants_captcha(f),
    })
}

/// `GET /api/template/GetTemplateSchema?type=form` → `{type, fieldTypes, forms}`.
async fn schema(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            match call.query("type").as_deref() {
                Some("form") => {}
                _ => {
                    return Err(ApiError::field(
                        "type",
                        "Only the form schema is served: type=form.",
                    ));
                }
            }
            let forms = app
                .store
                .forms(call.site.tenant.id)
                .await
                .map_err(|e| store_failure(&e))?;
            let forms: Vec<Value> = forms.iter().map(public_form).collect();
            Ok(json_response(
                StatusCode::OK,
                &json!({ "type": "form", "fieldTypes": field_kinds(), "forms": forms }),
            ))
        }
        .await,
    )
}

/// SPEC's 429 wording on a rate-limit refusal (any other error as it is).
fn in_spec_words(mut e: ApiError) -> ApiError {
    if e.status == StatusCode::TOO_MANY_REQUESTS {
        e.body["message"] = json!(RATE_LIMITED);
    }
    e
}

/// A write under the form family's limit: the crumb, then the rate.
fn begin_write(call: &Call, app: &App) -> Result<(), ApiError> {
    call.write(app, Family::FormSubmit).map_err(in_spec_words)
}

/// The form family's rate alone (a page post has an origin check instead of a crumb).
fn within_rate(call: &Call, app: &App) -> Result<(), ApiError> {
    app.limits
        .check(Family::FormSubmit, call.site.tenant.id, call.client.ip)
        .map_err(in_spec_words)
}

/// `POST /api/form/FormSubmissionKey` → `{key}`: single use, for 30 minutes.
async fn submission_key(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            begin_write(&call, &app)?;
            let key = app
                .store
                .create_submission_key(call.site.tenant.id, KEY_LIFETIME.as_millis() as i64)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(StatusCode::OK, &json!({ "key": key })))
        }
        .await,
    )
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Submission {
    key: String,
    form_id: String,
    /// A JSON document: field id → value.
    form: String,
    #[serde(default)]
    captcha_key: Option<String>,
    #[serde(default)]
    page_title: Option<String>,
    #[serde(default)]
    page_id: Option<String>,
    #[serde(default)]
    content_source: Option<String>,
    #[serde(default)]
    page_path: Option<String>,
    #[serde(default)]
    page_permission_type_value: Option<Value>,
}

/// The form, or SPEC's 404.
async fn the_form(app: &App, call: &Call, id: &str) -> Result<Form, ApiError> {
    app.store
        .form(call.site.tenant.id, id)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NOT_CONFIGURED))
}

/// Whether submissions must pass the captcha (`settings.captcha`).
fn wants_captcha(form: &Form) -> bool {
    form.settings.get("captcha").and_then(Value::as_bool) == Some(true)
}

/// Where the form's submissions are mailed (`settings.storage.email`, the builder's
/// storage tab), if anywhere.
fn storage_address(form: &Form) -> Option<&str> {
    form.settings
        .get("storage")?
        .get("email")?
        .as_str()
        .filter(|a| form_answers::email_ok(a))
}

/// The notice of a submission to the storage address: every field's title and answer
/// ("N/A" when unanswered), replying to the visitor's email when the form asked for one.
async fn submission_email(
    app: &App,
    call: &Call,
    form: &Form,
    answers: &Map<String, Value>,
    page: &Value,
    to: &str,
) -> tenants::Email {
    let rows: Vec<Value> = form
        .fields
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| !matches!(f.get("type").and_then(Value::as_str), Some("section")))
        .filter_map(|f| {
            let id = f.get("id")?.as_str()?;
            let title = f.get("title").and_then(Value::as_str).unwrap_or(id);
            let answer = answers.get(id).map_or_else(
                || form_answers::NOT_ANSWERED.to_owned(),
                form_answers::answer_text,
            );
            Some(json!({ "id": id, "title": title, "answer": answer }))
        })
        .collect();
    let reply_to = form_answers::first_email(&form.fields, answers);
    let data = json!({
        "website": { "siteTitle": crate::email::site_title(call) },
        "form": { "id": form.id, "name": form.name },
        "answers": rows,
        "page": page,
        "replyTo": reply_to,
    });
    crate::email::Composer::for_call(app, call).await.email(
        crate::email::compose::FORM_SUBMISSION,
        &data,
        to,
        reply_to.clone(),
    )
}

/// The checked answers, or 400 with every field's problem.
fn checked(form: &Form, sent: &Map<String, Value>) -> Result<Map<String, Value>, ApiError> {
    form_answers::check(&form.fields, sent).map_err(|problems| {
        let errors: Map<String, Value> = problems
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        ApiError::fields(errors)
    })
}

/// What a visitor sent, whichever way it came.
struct Sent {
    form_id: String,
    /// A submission key, or none for a page post (which takes one itself).
    key: Option<String>,
    answers: Map<String, Value>,
    captcha: Option<String>,
    page: Value,
}

/// What a saved submission shows next.
struct Saved {
    newsletter: bool,
    public: Value,
}

/// Checks and stores a submission: the form's answers, then its captcha, then the key
/// (single use) and the submission with the notice to the storage address in one
/// transaction; a newsletter form's email joins the mailing list.
async fn submit(app: &App, call: &Call, s: Sent) -> Result<Saved, ApiError> {
    let form = the_form(app, call, &s.form_id).await?;
    let answers = checked(&form, &s.answers)?;
    if wants_captcha(&form) {
        app.captcha
            .check(app, call, s.captcha.as_deref())
            .await
            .map_err(|r| ApiError::field("captchaKey", r.message()))?;
    }
    let t = call.site.tenant.id;
    let key = match s.key {
        Some(k) => k,
        None => app
            .store
            .create_submission_key(t, KEY_LIFETIME.as_millis() as i64)
            .await
            .map_err(|e| store_failure(&e))?,
    };
    let mail = match storage_address(&form) {
        Some(to) => Some(submission_email(app, call, &form, &answers, &s.page, to).await),
        None => None,
    };
    let stored = Value::Object(answers.clone());
    match app
        .store
        .save_submission(t, &key, &form.id, &stored, &s.page, mail.as_ref())
        .await
    {
        Ok(_) => {
            if mail.is_some() {
                app.outbox.nudge();
            }
        }
        Err(StoreError::Invalid(_)) => {
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, UNABLE_TO_SUBMIT));
        }
        Err(StoreError::NotFound(_)) => return Err(ApiError::not_found(NOT_CONFIGURED)),
        Err(e) => return Err(store_failure(&e)),
    }
    let newsletter = form.settings.get("newsletter").and_then(Value::as_bool) == Some(true);
    if newsletter && let Some(email) = form_answers::first_email(&form.fields, &answers) {
        app.store
            .add_subscriber(t, &email, &format!("form:{}", form.id))
            .await
            .map_err(|e| store_failure(&e))?;
    }
    Ok(Saved {
        newsletter,
        public: public_form(&form),
    })
}

/// `POST /api/form/SaveFormSubmission` {key, formId, form, captchaKey?, pageTitle, pageId,
/// contentSource, pagePath, pagePermissionTypeValue} → `{success, newsletter,
/// submissionMessage, submissionHtml, successRedirect}`. A form-encoded post (a page
/// without JavaScript) is answered with a page instead ([`page_post`]).
async fn save(State(app): State<App>, req: Request) -> Response {
    if page_post::is_page_post(req.headers()) {
        return page_post::save(&app, req).await;
    }
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            begin_write(&call, &app)?;
            let s: Submission = read_json(body, MAX_JSON_BODY).await?;
            let answers: Map<String, Value> = match serde_json::from_str(&s.form) {
                Ok(Value::Object(m)) => m,
                _ => return Err(ApiError::field("form", UNPARSEABLE)),
            };
            let page = json!({
                "pageTitle": s.page_title, "pageId": s.page_id, "contentSource": s.content_source,
                "pagePath": s.page_path, "pagePermissionTypeValue": s.page_permission_type_value,
            });
            let sent = Sent {
                form_id: s.form_id,
                key: Some(s.key),
                answers,
                captcha: s.captcha_key,
                page,
            };
            let saved = submit(&app, &call, sent).await?;
            let p = &saved.public;
            Ok(json_response(
                StatusCode::OK,
                &json!({
                    "success": true,
                    "newsletter": saved.newsletter,
                    "submissionMessage": p["submissionMessage"],
                    "submissionHtml": p["submissionHtml"],
                    "successRedirect": p["successRedirect"],
                }),
            ))
        }
        .await,
    )
}

/// `POST /api/rest/forms/validate/{formId}` with the field values (an object) → `{valid:
/// true}`, or 400 `{message, errors}`. Nothing is stored.
async fn validate(State(app): State<App>, Path(form_id): Path<String>, req: Request) -> Response {
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            let form = the_form(&app, &call, &form_id).await?;
            let sent: Value = read_json(body, MAX_JSON_BODY).await?;
            let Value::Object(sent) = sent else {
                return Err(ApiError::bad_request(UNPARSEABLE));
            };
            checked(&form, &sent)?;
            Ok(json_response(StatusCode::OK, &json!({ "valid": true })))
        }
        .await,
    )
}

/// The form routes.
pub fn routes() -> Router<App> {
    Router::new()
        .route("/api/template/GetTemplateSchema", get(schema))
        .route("/api/form/FormSubmissionKey", post(submission_key))
        .route("/api/form/SaveFormSubmission", post(save))
        .route("/api/rest/forms/validate/{form_id}", post(validate))
}
