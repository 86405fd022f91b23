//! Site forms (SPEC.md §3 "Form", §5 "Forms", §7, §8 "Form submission"), per tenant by
//! `Host`: the form schema, single-use submission keys, saving a submission and checking
//! answers without saving. Answers are checked by [`tenants::form_answers`]; a newsletter
//! form (`settings.newsletter`) also puts its email on the site's mailing list. README.md
//! ("Forms API") lists the shapes.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tenants::form_answers::{self, UNPARSEABLE};
use tenants::{Form, StoreError};
use utoipa::openapi::{ContentBuilder, RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

mod page_post;

use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::{Call, respond};
use crate::http::error::{json_response, store_failure};
use crate::http::limits::Family;
use crate::openapi::{FORMS, VisitorErrors, WriteErrors};
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
/// (never where submissions are stored or mailed). The settings are the owner's, as stored
/// (null when not set).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct PublicForm {
    id: String,
    name: String,
    /// The form's fields as the owner defined them (a list of field objects).
    #[schema(value_type = Value)]
    fields: Value,
    #[schema(value_type = Value)]
    submission_message: Option<Value>,
    #[schema(value_type = Value)]
    submission_html: Option<Value>,
    #[schema(value_type = Value)]
    success_redirect: Option<Value>,
    #[schema(value_type = Value)]
    disclaimer: Option<Value>,
    newsletter: bool,
    /// Whether submissions must pass the captcha.
    captcha: bool,
}

fn public_form(f: &Form) -> PublicForm {
    let s = &f.settings;
    PublicForm {
        id: f.id.clone(),
        name: f.name.clone(),
        fields: f.fields.clone(),
        submission_message: s.get("submissionMessage").cloned(),
        submission_html: s.get("submissionHtml").cloned(),
        success_redirect: s.get("successRedirect").cloned(),
        disclaimer: s.get("disclaimer").cloned(),
        newsletter: s
            .get("newsletter")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        captcha: wants_captcha(f),
    }
}

/// The site's form schema: the field kinds and every form.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct TemplateSchema {
    /// Always `form`.
    r#type: &'static str,
    /// Field kind → the settings the form builder offers on it.
    #[schema(value_type = BTreeMap<String, Vec<String>>)]
    field_types: Value,
    forms: Vec<PublicForm>,
}

/// `GET /api/template/GetTemplateSchema?type=form`: the site's forms.
#[utoipa::path(get, path = "/api/template/GetTemplateSchema", tag = FORMS,
    params(("type" = String, Query, description = "Only `form` is served.")),
    responses((status = 200, body = TemplateSchema), VisitorErrors))]
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
            let body = TemplateSchema {
                r#type: "form",
                field_types: field_kinds(),
                forms: forms.iter().map(public_form).collect(),
            };
            Ok(json_response(StatusCode::OK, &json!(body)))
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
async fn begin_write(call: &Call, app: &App) -> Result<(), ApiError> {
    call.write(app, Family::FormSubmit)
        .await
        .map_err(in_spec_words)
}

/// The form family's rate alone (a page post has an origin check instead of a crumb).
async fn within_rate(call: &Call, app: &App) -> Result<(), ApiError> {
    app.limits
        .check(Family::FormSubmit, call.site.tenant.id, call.client.ip)
        .await
        .map_err(in_spec_words)
}

/// A submission key: single use, for 30 minutes.
#[derive(Serialize, ToSchema)]
struct SubmissionKey {
    key: String,
}

/// What a call that only checks the crumb and the rate can get besides its answer: 403
/// (crumb), 404, 429 and 503.
struct KeyErrors;

impl IntoResponses for KeyErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        r.remove("400");
        r.remove("413");
        r
    }
}

/// `POST /api/form/FormSubmissionKey`: a key for one submission (single use, 30 minutes).
#[utoipa::path(post, path = "/api/form/FormSubmissionKey", tag = FORMS,
    security(("crumb" = [])),
    responses((status = 200, body = SubmissionKey), KeyErrors))]
async fn submission_key(State(app): State<App>, req: Request) -> Response {
    respond(
        async {
            let (call, _) = Call::begin(&app, req).await?;
            begin_write(&call, &app).await?;
            let key = app
                .store
                .create_submission_key(call.site.tenant.id, KEY_LIFETIME.as_millis() as i64)
                .await
                .map_err(|e| store_failure(&e))?;
            Ok(json_response(StatusCode::OK, &json!(SubmissionKey { key })))
        }
        .await,
    )
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = FormSubmission)]
pub(crate) struct Submission {
    /// From `POST /api/form/FormSubmissionKey`.
    key: String,
    form_id: String,
    /// A JSON object as text: field id → value.
    form: String,
    /// The captcha token, when the form asks for one.
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
    #[schema(value_type = Option<Value>)]
    page_permission_type_value: Option<Value>,
}

/// A form posted by a page without JavaScript: `formId`, the captcha's answer, and one
/// pair per answer named by field id (list answers repeat the name; a likert field sends
/// `id[question]`). Read pair by pair.
#[derive(ToSchema)]
#[schema(as = FormPagePost)]
#[allow(dead_code)] // a shape for the document
struct PagePostShape {
    #[schema(rename = "formId")]
    form_id: String,
    #[schema(rename = "captchaKey", nullable = false)]
    captcha_key: Option<String>,
    #[schema(rename = "g-recaptcha-response", nullable = false)]
    recaptcha_response: Option<String>,
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
    public: PublicForm,
}

/// Checks and stores a submission: the form's answers, then its captcha, then the key
/// (single use), the submission, the notice to the storage address and, for a newsletter
/// form, its email on the mailing list, in one transaction.
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
    let newsletter = form.settings.get("newsletter").and_then(Value::as_bool) == Some(true);
    let subscriber = newsletter
        .then(|| form_answers::first_email(&form.fields, &answers))
        .flatten();
    match app
        .store
        .save_submission(
            t,
            &key,
            &form.id,
            &stored,
            &s.page,
            mail.as_ref(),
            subscriber.as_deref(),
        )
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
    Ok(Saved {
        newsletter,
        public: public_form(&form),
    })
}

/// A saved submission: what to show next (the form's settings, null when not set).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct SavedAnswer {
    success: bool,
    newsletter: bool,
    #[schema(value_type = Value)]
    submission_message: Option<Value>,
    #[schema(value_type = Value)]
    submission_html: Option<Value>,
    #[schema(value_type = Value)]
    success_redirect: Option<Value>,
}

/// A submission's refusals: JSON errors, or (to a form-encoded post) a page saying what
/// went wrong; 401 when the submission key is unknown, spent or expired.
struct SaveErrors;

impl IntoResponses for SaveErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        let mut spent = r["400"].clone();
        if let RefOr::T(a) = &mut spent {
            a.description = "The submission key is unknown, spent or expired.".to_owned();
        }
        r.insert("401".to_owned(), spent);
        // A form-encoded post gets a page (Retry-After is only on JSON answers).
        for answer in r.values_mut() {
            if let RefOr::T(a) = answer {
                a.content.insert(
                    "text/html".to_owned(),
                    RefOr::T(ContentBuilder::new().schema(Some(String::schema())).build()),
                );
            }
        }
        r
    }
}

/// `POST /api/form/SaveFormSubmission`: saves a submission.
///
/// JSON (crumb): the submission, answered with JSON. Form-encoded (a page without
/// JavaScript; no crumb, but `Origin` or `Referer` must be a page of this host, 403
/// otherwise): answered with a small page, or 303 to the form's `successRedirect`.
#[utoipa::path(post, path = "/api/form/SaveFormSubmission", tag = FORMS,
    request_body(content(
        (Submission = "application/json"),
        (PagePostShape = "application/x-www-form-urlencoded"))),
    security(("crumb" = []), ()),
    responses(
        (status = 200, content(
            (SavedAnswer = "application/json"),
            (String = "text/html"))),
        (status = 303, description = "Saved; on to the form's `successRedirect` (from a form-encoded post).",
            headers(("Location" = String, description = "The form's `successRedirect`."))),
        SaveErrors))]
async fn save(State(app): State<App>, req: Request) -> Response {
    if page_post::is_page_post(req.headers()) {
        return page_post::save(&app, req).await;
    }
    respond(
        async {
            let (call, body) = Call::begin(&app, req).await?;
            begin_write(&call, &app).await?;
            let s: Submission = read_json(body, MAX_JSON_BODY).await?;
            let parsed: Value = serde_json::from_str(&s.form).unwrap_or(Value::Null);
            // JSON inside a string: the body's own check for U+0000 saw only its text.
            crate::http::body::refuse_nul(&parsed, "form")?;
            let Value::Object(answers) = parsed else {
                return Err(ApiError::field("form", UNPARSEABLE));
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
            let p = saved.public;
            Ok(json_response(
                StatusCode::OK,
                &json!(SavedAnswer {
                    success: true,
                    newsletter: saved.newsletter,
                    submission_message: p.submission_message,
                    submission_html: p.submission_html,
                    success_redirect: p.success_redirect,
                }),
            ))
        }
        .await,
    )
}

/// The answers pass the form's checks.
#[derive(Serialize, ToSchema)]
struct ValidAnswers {
    valid: bool,
}

/// What checking answers can get besides its answer: 400 (with `errors` by field id), 404,
/// 413 and 503; no crumb, no rate limit.
struct ValidateErrors;

impl IntoResponses for ValidateErrors {
    fn responses() -> BTreeMap<String, RefOr<DocResponse>> {
        let mut r = WriteErrors::responses();
        r.remove("403");
        r.remove("429");
        r
    }
}

/// `POST /api/rest/forms/validate/{formId}`: checks answers without storing them.
///
/// The body is the answers, field id → value; a problem is a 400 with `errors` by field id.
#[utoipa::path(post, path = "/api/rest/forms/validate/{form_id}", tag = FORMS,
    params(("form_id" = String, Path, description = "The form's id.")),
    request_body(content = Object, description = "Field id → answer."),
    responses((status = 200, body = ValidAnswers), ValidateErrors))]
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
            Ok(json_response(
                StatusCode::OK,
                &json!(ValidAnswers { valid: true }),
            ))
        }
        .await,
    )
}

/// The form routes.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(schema))
        .routes(routes!(submission_key))
        .routes(routes!(save))
        .routes(routes!(validate))
}
