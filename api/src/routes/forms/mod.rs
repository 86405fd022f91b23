//! Site forms (SPEC.md §3 "Form", §5 "Forms", §7, §8 "Form submission"), per tenant by
//! `Host`: the form schema, single-use submission keys, saving a submission and checking
//! answers without saving. Answers are checked by [`tenants::form_answers`]; a newsletter
//! form (`settings.newsletter`) also puts its email on the site's mailing list. README.md
//! ("Forms API") lists the shapes.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tenants::Form;
use tenants::form_answers::{self, UNPARSEABLE};
use utoipa::openapi::{ContentBuilder, RefOr, response::Response as DocResponse};
use utoipa::{IntoResponses, PartialSchema, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub(crate) mod page_post;

use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::call::Call;
use crate::http::error::store_failure;
use crate::http::extract::family::FormSubmit;
use crate::http::{ApiError, Json, Write};
use crate::openapi::{FORMS, VisitorErrors, WriteErrors};
use crate::server::state::App;
pub use crate::services::forms::KEY_LIFETIME;
use crate::services::forms::{Forms, Notice, Sent, SubmitError, is_newsletter, wants_captcha};

/// SPEC.md §8, by status.
pub const NOT_CONFIGURED: &str = "This form has not been configured yet.";
pub const UNABLE_TO_SUBMIT: &str = "Unable to submit form. Please try again later.";
pub const RATE_LIMITED: &str =
    "Unable to submit form. Submission rate limit exceeded. Please try again later.";

/// The field kinds and what the form builder lets an owner set on each (SPEC.md §3).
pub(crate) fn field_kinds() -> Value {
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
        newsletter: is_newsletter(f),
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
async fn schema(State(app): State<App>, call: Call) -> Result<Json<TemplateSchema>, ApiError> {
    if call.query("type").as_deref() != Some("form") {
        return Err(ApiError::field(
            "type",
            "Only the form schema is served: type=form.",
        ));
    }
    let forms = app
        .store
        .forms(call.site.tenant.id)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(TemplateSchema {
        r#type: "form",
        field_types: field_kinds(),
        forms: forms.iter().map(public_form).collect(),
    }))
}

/// SPEC's 429 wording on a rate-limit refusal (any other error as it is).
fn in_spec_words(mut e: ApiError) -> ApiError {
    if e.status == StatusCode::TOO_MANY_REQUESTS {
        e.body["message"] = json!(RATE_LIMITED);
    }
    e
}

/// A write under the form family's limit ([`Write<FormSubmit>`]: the crumb, then the
/// rate), refused in SPEC's words.
struct FormWrite;

impl FromRequestParts<App> for FormWrite {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, ApiError> {
        Write::<FormSubmit>::from_request_parts(parts, app)
            .await
            .map_err(in_spec_words)?;
        Ok(FormWrite)
    }
}

/// The form family's rate alone (a page post has an origin check instead of a crumb).
async fn within_rate(call: &Call, app: &App) -> Result<(), ApiError> {
    app.limits
        .check(
            crate::http::limits::Family::FormSubmit,
            call.site.tenant.id,
            call.client.ip,
        )
        .await
        .map_err(in_spec_words)
}

/// The flow's refusals in SPEC's words and statuses.
fn refusal(e: SubmitError) -> ApiError {
    match e {
        SubmitError::NotConfigured => ApiError::not_found(NOT_CONFIGURED),
        SubmitError::Answers(problems) => ApiError::fields(
            problems
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect(),
        ),
        SubmitError::Captcha(r) => ApiError::field("captchaKey", r.message()),
        SubmitError::KeySpent => ApiError::new(StatusCode::UNAUTHORIZED, UNABLE_TO_SUBMIT),
        SubmitError::Store(e) => store_failure(&e),
    }
}

/// The form flow on the app's store, captcha and outbox.
fn forms(app: &App) -> Forms<'_> {
    Forms {
        store: &app.store,
        captcha: &app.captcha,
        outbox: &app.outbox,
    }
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
async fn submission_key(
    State(app): State<App>,
    call: Call,
    _: FormWrite,
) -> Result<Json<SubmissionKey>, ApiError> {
    let key = forms(&app)
        .new_key(&call.site)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Json(SubmissionKey { key }))
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

/// The notice of a submission to the storage address: every field's title and answer
/// ("N/A" when unanswered), replying to the visitor's email when the form asked for one.
async fn submission_email(app: &App, call: &Call, n: Notice<'_>) -> tenants::Email {
    let rows: Vec<Value> = n
        .form
        .fields
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| !matches!(f.get("type").and_then(Value::as_str), Some("section")))
        .filter_map(|f| {
            let id = f.get("id")?.as_str()?;
            let title = f.get("title").and_then(Value::as_str).unwrap_or(id);
            let kind = f.get("type").and_then(Value::as_str);
            let answer = n.answers.get(id).map_or_else(
                || form_answers::NOT_ANSWERED.to_owned(),
                |a| form_answers::answer_text(kind, a),
            );
            Some(json!({ "id": id, "title": title, "answer": answer }))
        })
        .collect();
    let reply_to = form_answers::first_email(&n.form.fields, n.answers);
    let data = json!({
        "website": { "siteTitle": crate::email::site_title(call) },
        "form": { "id": n.form.id, "name": n.form.name },
        "answers": rows,
        "page": n.page,
        "replyTo": reply_to,
    });
    crate::routes::composer(app, call).await.email(
        crate::email::compose::FORM_SUBMISSION,
        &data,
        n.to,
        reply_to.clone(),
    )
}

/// Checks and stores a submission to `form` through the flow, its notice written with
/// the site's email templates; whether the form is a newsletter's.
async fn submit(app: &App, call: &Call, form: &Form, sent: Sent) -> Result<bool, ApiError> {
    forms(app)
        .submit(&call.site, call.client.ip, form, sent, async |n| {
            submission_email(app, call, n).await
        })
        .await
        .map_err(refusal)
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
async fn save(State(app): State<App>, how: SavePost, body: Body) -> Response {
    match how {
        SavePost::Page(call) => page_post::save(&app, call, body).await.into_response(),
        SavePost::Script(call) => save_json(&app, &call, body).await.into_response(),
    }
}

/// A submission, by how it came: JSON from a script (its site, crumb and rate checked, in
/// that order, before its body is read), or a page's form-encoded post (its site or why
/// not, answered as a page; its own checks come next).
enum SavePost {
    Script(Call),
    Page(Result<Call, ApiError>),
}

impl FromRequestParts<App> for SavePost {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, ApiError> {
        if page_post::is_page_post(&parts.headers) {
            return Ok(SavePost::Page(Call::from_request_parts(parts, app).await));
        }
        let call = Call::from_request_parts(parts, app).await?;
        FormWrite::from_request_parts(parts, app).await?;
        Ok(SavePost::Script(call))
    }
}

/// A submission from a script: the body read after the call's checks, the answers (JSON
/// in a string) unpacked, then the flow.
async fn save_json(app: &App, call: &Call, body: Body) -> Result<Json<SavedAnswer>, ApiError> {
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
        key: Some(s.key),
        answers,
        captcha: s.captcha_key,
        page,
    };
    let form = forms(app)
        .form(&call.site, &s.form_id)
        .await
        .map_err(refusal)?;
    let newsletter = submit(app, call, &form, sent).await?;
    let p = public_form(&form);
    Ok(Json(SavedAnswer {
        success: true,
        newsletter,
        submission_message: p.submission_message,
        submission_html: p.submission_html,
        success_redirect: p.success_redirect,
    }))
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
async fn validate(
    State(app): State<App>,
    Path(form_id): Path<String>,
    call: Call,
    body: Body,
) -> Result<Json<ValidAnswers>, ApiError> {
    // The form before the body: an unknown form is 404 whatever was sent.
    let form = forms(&app)
        .form(&call.site, &form_id)
        .await
        .map_err(refusal)?;
    let Value::Object(sent) = read_json::<Value>(body, MAX_JSON_BODY).await? else {
        return Err(ApiError::bad_request(UNPARSEABLE));
    };
    crate::services::forms::check_answers(&form, &sent).map_err(refusal)?;
    Ok(Json(ValidAnswers { valid: true }))
}

/// The form routes.
pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(schema))
        .routes(routes!(submission_key))
        .routes(routes!(save))
        .routes(routes!(validate))
}
