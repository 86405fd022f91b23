//! The Forms screen's builder: the site's forms, each with its fields and settings, made,
//! changed and deleted by the owner (the answers they collect are [`super::listings`]).
//!
//! | route | role may | body | answer |
//! |---|---|---|---|
//! | `GET /api/owner/forms` | forms, read | | `{forms: [{id, name, submissions, newsletter, fieldCount}]}` by name |
//! | `POST /api/owner/forms` | forms, write | `{name, fields?, settings?}` | 201 the form |
//! | `GET /api/owner/forms/{id}` | forms, read | | `{id, name, fields, settings, submissions}` |
//! | `PATCH /api/owner/forms/{id}` | forms, write | a JSON Merge Patch of `{name, fields, settings}` (`fields` replaced whole) | the form |
//! | `DELETE /api/owner/forms/{id}` | forms, write | | `{deleted: id}` |
//!
//! **A field** is `{id, type, title, required?, …}` with a `type` that
//! `GET /api/template/GetTemplateSchema?type=form` declares, and only the settings that
//! kind declares there (`description`, `placeholder`, `maxLength` 1 to 100,000, `options`,
//! `currencySymbol`, `showCountryCode`, `key`, `value`, `underline`). A field without an
//! `id` is given one; ids are kept across changes, since submissions are stored by field
//! id. Limits: at most [`MAX_FIELDS`] fields, a title of at most [`MAX_LABEL`] characters,
//! a description of at most 1,000, a choice field 1 to 100 distinct options of at most
//! 200 characters each.
//!
//! **Settings**: `captcha` and `newsletter` (true or false; a newsletter form needs an
//! Email field, and its first Email answer joins the mailing list), `recipients` (at most
//! [`MAX_RECIPIENTS`] addresses that are each mailed every submission: an empty one is
//! SPEC.md §5's "Please enter a valid email", one that is not an address "Emails must be
//! formatted as name@example.com"), `submissionMessage` (shown after submitting),
//! `successRedirect` (where the visitor goes instead, the navigation's link rules) and
//! `disclaimer`. Errors are by field: `name`, `fields[2].options[1]`, `settings.recipients[0]`.
//!
//! **Deleting** a form deletes its submissions with it (export them first); subscribers it
//! signed up stay on the mailing list. A page's block that still shows the form answers a
//! visitor's submission with "This form has not been configured yet.".
//!
//! Every change is a content change: the next page on any node reads the form as saved,
//! and a visitor's submission is checked against the saved fields.

use std::collections::BTreeSet;

use axum::body::Body;
use axum::extract::{Path, State};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tenants::{Form, Store};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::Deleted;
use super::layout::{BAD_LINK, external_link};
use super::listings::NO_FORM;
use crate::http::body::{MAX_JSON_BODY, json as read_json};
use crate::http::error::store_failure;
use crate::http::extract::{Change, Read, area};
use crate::http::{ApiError, Created, Json, Owner};
use crate::openapi::{OWNER, OwnerErrors};
use crate::server::state::App;

pub const MAX_FIELDS: usize = 100;
pub const MAX_LABEL: usize = 200;
pub const MAX_NAME: usize = 100;
pub const MAX_RECIPIENTS: usize = 10;
const MAX_DESCRIPTION: usize = 1000;
const MAX_OPTIONS: usize = 100;
const MAX_OPTION: usize = 200;
const MAX_TEXT: usize = 2000;
const MAX_MAX_LENGTH: u64 = 100_000;

pub const NO_NAME: &str = "Please enter a name.";
pub const LONG_NAME: &str = "A name is at most 100 characters.";
pub const TOO_MANY_FIELDS: &str = "A form has at most 100 fields.";
pub const NO_KIND: &str = "Choose a kind of field.";
pub const NO_LABEL: &str = "Please enter a label.";
pub const LONG_LABEL: &str = "A label is at most 200 characters.";
pub const LONG_TEXT: &str = "This is at most 1000 characters.";
pub const LONG_MESSAGE: &str = "This is at most 2000 characters.";
pub const NO_OPTIONS: &str = "Add at least one option.";
pub const TOO_MANY_OPTIONS: &str = "A field has at most 100 options.";
pub const BAD_OPTION: &str = "An option is 1 to 200 characters.";
pub const SAME_OPTION: &str = "This option is already there.";
pub const BAD_MAX_LENGTH: &str = "A character limit is a whole number from 1 to 100000.";
pub const BAD_ID: &str = "A field id is 1 to 64 letters, digits, '-' or '_'.";
pub const SAME_ID: &str = "Two fields have this id.";
pub const NO_SUCH_SETTING: &str = "This kind of field has no such setting.";
pub const NO_SUCH_FORM_SETTING: &str = "A form has no such setting.";
pub const NOT_TEXT: &str = "This is text.";
pub const NOT_TRUE_FALSE: &str = "This is true or false.";
pub const NOT_A_LIST: &str = "This is a list.";
pub const NOT_AN_OBJECT: &str = "This is an object.";
pub const NEWSLETTER_EMAIL: &str = "A newsletter form needs an Email field.";
pub const TOO_MANY_RECIPIENTS: &str = "A form mails at most 10 addresses.";
/// SPEC.md §5, for an address left empty (and the site identity's contact address).
pub const ENTER_VALID_EMAIL: &str = "Please enter a valid email";
/// SPEC.md §5's "Emails must be formatted as {email}", for an address that is not one.
pub const EMAIL_FORMAT: &str = "Emails must be formatted as name@example.com";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(forms, create_form))
        .routes(routes!(get_form, patch_form, delete_form))
}

/// The site's forms.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerFormList)]
struct FormList {
    forms: Vec<FormSummary>,
}

/// A form, with how many answers it has.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerFormSummary)]
#[serde(rename_all = "camelCase")]
struct FormSummary {
    id: String,
    name: String,
    /// How many submissions are stored.
    submissions: u64,
    /// Whether it signs visitors up for the mailing list.
    newsletter: bool,
    /// How many fields it has.
    field_count: u64,
}

/// A field of a form: `id`, `type` (a kind `GetTemplateSchema?type=form` declares), `title`,
/// and the settings its kind declares.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerFormField)]
#[allow(dead_code)] // a shape for the document
struct FieldShape {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    title: String,
    required: Option<bool>,
    description: Option<String>,
    placeholder: Option<String>,
    #[serde(rename = "maxLength")]
    max_length: Option<u64>,
    options: Option<Vec<String>>,
    #[serde(rename = "currencySymbol")]
    currency_symbol: Option<String>,
    #[serde(rename = "showCountryCode")]
    show_country_code: Option<bool>,
    key: Option<String>,
    value: Option<String>,
    underline: Option<bool>,
}

/// What a form does with a submission.
#[derive(Serialize, ToSchema, Default)]
#[schema(as = OwnerFormSettings)]
#[serde(rename_all = "camelCase")]
struct Settings {
    captcha: bool,
    newsletter: bool,
    /// Mailed every submission.
    recipients: Vec<String>,
    /// Shown after submitting (empty: the template's default).
    submission_message: String,
    /// Where the visitor goes after submitting, instead of the message (empty: stay).
    success_redirect: String,
    /// Shown under the form.
    disclaimer: String,
}

/// A form as the builder edits it.
#[derive(Serialize, ToSchema)]
#[schema(as = OwnerForm)]
#[serde(rename_all = "camelCase")]
struct OwnerForm {
    id: String,
    name: String,
    #[schema(value_type = Vec<FieldShape>)]
    fields: Value,
    settings: Settings,
    /// How many submissions are stored.
    submissions: u64,
}

fn text_setting(s: &Map<String, Value>, key: &str) -> String {
    s.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn owner_form(f: &Form, submissions: u64) -> OwnerForm {
    let s = &f.settings;
    OwnerForm {
        id: f.id.clone(),
        name: f.name.clone(),
        fields: if f.fields.is_array() {
            f.fields.clone()
        } else {
            json!([])
        },
        settings: Settings {
            captcha: crate::services::forms::wants_captcha(f),
            newsletter: crate::services::forms::is_newsletter(f),
            recipients: crate::services::forms::storage_addresses(f)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            submission_message: text_setting(s, "submissionMessage"),
            success_redirect: text_setting(s, "successRedirect"),
            disclaimer: text_setting(s, "disclaimer"),
        },
        submissions,
    }
}

/// The builder's view of a form as JSON (what a merge patch applies to).
fn editable(f: &Form) -> Value {
    let o = owner_form(f, 0);
    json!({ "name": o.name, "fields": o.fields, "settings": o.settings })
}

/// The settings each field kind may have (besides `id`, `type` and `title`).
fn kind_settings(kinds: &Value, kind: &str) -> Option<Vec<String>> {
    kinds.get(kind)?.as_array().map(|a| {
        a.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    })
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

/// The fields as stored, or the problems by `fields[i].key`.
fn check_fields(v: &Value, errors: &mut Map<String, Value>) -> Value {
    let Some(list) = v.as_array() else {
        errors.insert("fields".into(), NOT_A_LIST.into());
        return json!([]);
    };
    if list.len() > MAX_FIELDS {
        errors.insert("fields".into(), TOO_MANY_FIELDS.into());
        return json!([]);
    }
    let kinds = crate::routes::forms::field_kinds();
    let mut ids = BTreeSet::new();
    let mut out = Vec::new();
    for (i, f) in list.iter().enumerate() {
        let Some(f) = f.as_object() else {
            errors.insert(format!("fields[{i}]"), NOT_AN_OBJECT.into());
            continue;
        };
        let mut bad = |k: &str, m: &str| {
            errors.insert(format!("fields[{i}].{k}"), Value::String(m.to_owned()));
        };
        let kind = f.get("type").and_then(Value::as_str).unwrap_or_default();
        let Some(allowed) = kind_settings(&kinds, kind) else {
            bad("type", NO_KIND);
            continue;
        };
        let mut field = Map::new();
        let id = match f.get("id") {
            None | Some(Value::Null) => tenants::new_id()[..12].to_owned(),
            Some(Value::String(s)) if s.trim().is_empty() => tenants::new_id()[..12].to_owned(),
            Some(Value::String(s)) => s.trim().to_owned(),
            Some(_) => {
                bad("id", BAD_ID);
                String::new()
            }
        };
        if !id.is_empty() {
            if id.len() > 64
                || !id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                bad("id", BAD_ID);
            } else if !ids.insert(id.clone()) {
                bad("id", SAME_ID);
            }
        }
        field.insert("id".into(), id.into());
        field.insert("type".into(), kind.into());
        match f.get("title") {
            // A hidden field is named by its key; a label is optional.
            None | Some(Value::Null) if kind == "hidden" => {}
            Some(Value::String(t)) if t.trim().is_empty() => bad("title", NO_LABEL),
            Some(Value::String(t)) if chars(t.trim()) > MAX_LABEL => bad("title", LONG_LABEL),
            Some(Value::String(t)) => {
                field.insert("title".into(), t.trim().into());
            }
            _ => bad("title", NO_LABEL),
        }
        for (key, value) in f {
            if matches!(key.as_str(), "id" | "type" | "title") {
                continue;
            }
            if !allowed.iter().any(|a| a == key) {
                if !value.is_null() {
                    bad(key, NO_SUCH_SETTING);
                }
                continue;
            }
            let text = |max: usize, long: &str, bad: &mut dyn FnMut(&str, &str)| match value {
                Value::String(s) if chars(s) > max => {
                    bad(key, long);
                    None
                }
                Value::String(s) => Some(Value::String(s.trim().to_owned())),
                Value::Null => None,
                _ => {
                    bad(key, NOT_TEXT);
                    None
                }
            };
            let stored = match key.as_str() {
                "required" | "showCountryCode" | "underline" => match value {
                    Value::Bool(b) => Some(Value::Bool(*b)),
                    Value::Null => None,
                    _ => {
                        bad(key, NOT_TRUE_FALSE);
                        None
                    }
                },
                "maxLength" => match value {
                    Value::Null => None,
                    v => match v.as_u64().filter(|n| (1..=MAX_MAX_LENGTH).contains(n)) {
                        Some(n) => Some(n.into()),
                        None => {
                            bad(key, BAD_MAX_LENGTH);
                            None
                        }
                    },
                },
                "options" => match value {
                    Value::Array(opts) if opts.is_empty() => {
                        bad(key, NO_OPTIONS);
                        None
                    }
                    Value::Array(opts) if opts.len() > MAX_OPTIONS => {
                        bad(key, TOO_MANY_OPTIONS);
                        None
                    }
                    Value::Array(opts) => {
                        let mut seen = BTreeSet::new();
                        let mut kept = Vec::new();
                        for (j, o) in opts.iter().enumerate() {
                            let k = format!("options[{j}]");
                            match o.as_str().map(str::trim) {
                                Some(t) if !t.is_empty() && chars(t) <= MAX_OPTION => {
                                    if !seen.insert(t.to_owned()) {
                                        bad(&k, SAME_OPTION);
                                    }
                                    kept.push(Value::String(t.to_owned()));
                                }
                                _ => bad(&k, BAD_OPTION),
                            }
                        }
                        Some(Value::Array(kept))
                    }
                    _ => {
                        bad(key, NOT_A_LIST);
                        None
                    }
                },
                "description" => text(MAX_DESCRIPTION, LONG_TEXT, &mut bad),
                "value" => text(MAX_DESCRIPTION, LONG_TEXT, &mut bad),
                _ => text(MAX_LABEL, LONG_LABEL, &mut bad),
            };
            if let Some(v) = stored {
                field.insert(key.clone(), v);
            }
        }
        if allowed.iter().any(|a| a == "options")
            && kind != "likert"
            && !field.contains_key("options")
            && !f.contains_key("options")
        {
            bad("options", NO_OPTIONS);
        }
        out.push(Value::Object(field));
    }
    Value::Array(out)
}

/// The settings checked into `stored` (the form's stored settings, whose other keys are
/// kept), problems by `settings.key`.
const KNOWN_SETTINGS: [&str; 6] = [
    "captcha",
    "newsletter",
    "recipients",
    "submissionMessage",
    "successRedirect",
    "disclaimer",
];

fn check_settings(v: &Value, stored: &mut Map<String, Value>, errors: &mut Map<String, Value>) {
    let Some(s) = v.as_object() else {
        errors.insert("settings".into(), NOT_AN_OBJECT.into());
        return;
    };
    let mut bad = |k: &str, m: &str| {
        errors.insert(format!("settings.{k}"), Value::String(m.to_owned()));
    };
    // A setting left out (or removed by a merge patch) is off or empty.
    let mut s = s.clone();
    for key in KNOWN_SETTINGS {
        s.entry(key).or_insert(Value::Null);
    }
    for (key, value) in &s {
        match key.as_str() {
            "captcha" | "newsletter" => match value {
                Value::Bool(b) => {
                    stored.insert(key.clone(), Value::Bool(*b));
                }
                Value::Null => {
                    stored.remove(key);
                }
                _ => bad(key, NOT_TRUE_FALSE),
            },
            "recipients" => {
                let list = match value {
                    Value::Null => {
                        stored.remove("storage");
                        continue;
                    }
                    Value::Array(a) => a.clone(),
                    _ => {
                        bad(key, NOT_A_LIST);
                        continue;
                    }
                };
                if list.len() > MAX_RECIPIENTS {
                    bad(key, TOO_MANY_RECIPIENTS);
                    continue;
                }
                let mut kept = Vec::new();
                for (i, a) in list.iter().enumerate() {
                    let k = format!("recipients[{i}]");
                    match a.as_str().map(str::trim) {
                        None | Some("") => bad(&k, ENTER_VALID_EMAIL),
                        Some(t) => match tenants::email_address::deliverable(t) {
                            Some(e) => kept.push(Value::String(e.to_owned())),
                            None => bad(&k, EMAIL_FORMAT),
                        },
                    }
                }
                let mut storage = Map::new();
                storage.insert("emails".into(), Value::Array(kept));
                stored.insert("storage".into(), Value::Object(storage));
            }
            "submissionMessage" | "disclaimer" => match value {
                Value::Null => {
                    stored.remove(key);
                }
                Value::String(t) if chars(t) > MAX_TEXT => bad(key, LONG_MESSAGE),
                Value::String(t) if t.trim().is_empty() => {
                    stored.remove(key);
                }
                Value::String(t) => {
                    stored.insert(key.clone(), Value::String(t.trim().to_owned()));
                }
                _ => bad(key, NOT_TEXT),
            },
            "successRedirect" => match value {
                Value::Null => {
                    stored.remove(key);
                }
                Value::String(t) if t.trim().is_empty() => {
                    stored.remove(key);
                }
                Value::String(t) => match external_link(t).filter(|u| u.len() <= MAX_TEXT) {
                    Some(u) => {
                        stored.insert(key.clone(), Value::String(u));
                    }
                    None => bad(key, BAD_LINK),
                },
                _ => bad(key, NOT_TEXT),
            },
            _ => bad(key, NO_SUCH_FORM_SETTING),
        }
    }
}

/// `body` (the builder's view of a form, whole) checked into `old`'s place: the form to
/// store, or every problem by field.
fn checked(body: &Value, old: Form) -> Result<Form, ApiError> {
    let Some(b) = body.as_object() else {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    };
    let mut errors = Map::new();
    let mut form = old;
    for key in b.keys() {
        if !matches!(
            key.as_str(),
            "name" | "fields" | "settings" | "id" | "submissions"
        ) {
            errors.insert(key.clone(), NO_SUCH_FORM_SETTING.into());
        }
    }
    match b.get("name") {
        Some(Value::String(n)) if n.trim().is_empty() => {
            errors.insert("name".into(), NO_NAME.into());
        }
        Some(Value::String(n)) if chars(n.trim()) > MAX_NAME => {
            errors.insert("name".into(), LONG_NAME.into());
        }
        Some(Value::String(n)) => form.name = n.trim().to_owned(),
        _ => {
            errors.insert("name".into(), NO_NAME.into());
        }
    }
    form.fields = check_fields(b.get("fields").unwrap_or(&json!([])), &mut errors);
    check_settings(
        b.get("settings").unwrap_or(&json!({})),
        &mut form.settings,
        &mut errors,
    );
    if crate::services::forms::is_newsletter(&form)
        && !form
            .fields
            .as_array()
            .into_iter()
            .flatten()
            .any(|f| f.get("type").and_then(Value::as_str) == Some("email"))
        && !errors.keys().any(|k| k.starts_with("fields"))
    {
        errors.insert("settings.newsletter".into(), NEWSLETTER_EMAIL.into());
    }
    if errors.is_empty() {
        Ok(form)
    } else {
        Err(ApiError::fields(errors))
    }
}

async fn counts(
    store: &Store,
    tenant: tenants::TenantId,
) -> Result<std::collections::HashMap<String, u64>, ApiError> {
    store
        .form_submission_counts(tenant)
        .await
        .map_err(|e| store_failure(&e))
}

/// The site's form `id`, or 404.
async fn form_of(store: &Store, tenant: tenants::TenantId, id: &str) -> Result<Form, ApiError> {
    store
        .form(tenant, id)
        .await
        .map_err(|e| store_failure(&e))?
        .ok_or_else(|| ApiError::not_found(NO_FORM))
}

/// `GET /api/owner/forms`: the site's forms, by name.
#[utoipa::path(get, path = "/api/owner/forms", tag = OWNER,
    security(("ownerToken" = [])),
    responses((status = 200, body = FormList), OwnerErrors))]
async fn forms(
    State(store): State<Store>,
    owner: Owner<area::Forms, Read>,
) -> Result<Json<FormList>, ApiError> {
    let tenant = owner.site.tenant.id;
    let forms = store.forms(tenant).await.map_err(|e| store_failure(&e))?;
    let counts = counts(&store, tenant).await?;
    let forms = forms
        .into_iter()
        .map(|f| FormSummary {
            submissions: counts.get(&f.id).copied().unwrap_or(0),
            newsletter: crate::services::forms::is_newsletter(&f),
            field_count: f.fields.as_array().map_or(0, |a| a.len() as u64),
            id: f.id,
            name: f.name,
        })
        .collect();
    Ok(Json(FormList { forms }))
}

/// `POST /api/owner/forms`: a new form.
#[utoipa::path(post, path = "/api/owner/forms", tag = OWNER,
    request_body(content = Object, description = "`{name, fields?, settings?}` as `GET /api/owner/forms/{id}` answers them."),
    security(("ownerToken" = [])),
    responses((status = 201, body = OwnerForm), OwnerErrors))]
async fn create_form(
    State(store): State<Store>,
    owner: Owner<area::Forms, Change>,
    Json(body): Json<Value>,
) -> Result<Created<OwnerForm>, ApiError> {
    let empty = Form {
        id: String::new(),
        name: String::new(),
        fields: json!([]),
        settings: Map::new(),
    };
    let mut form = checked(&body, empty)?;
    form.id = store
        .put_form(owner.site.tenant.id, &form)
        .await
        .map_err(|e| store_failure(&e))?;
    Ok(Created(owner_form(&form, 0)))
}

/// `GET /api/owner/forms/{id}`: one form, with its fields and settings.
#[utoipa::path(get, path = "/api/owner/forms/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The form's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = OwnerForm), OwnerErrors))]
async fn get_form(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Forms, Read>,
) -> Result<Json<OwnerForm>, ApiError> {
    let tenant = owner.site.tenant.id;
    let form = form_of(&store, tenant, &id).await?;
    let n = counts(&store, tenant).await?.get(&id).copied().unwrap_or(0);
    Ok(Json(owner_form(&form, n)))
}

/// `PATCH /api/owner/forms/{id}`: changes what the body names (JSON Merge Patch).
#[utoipa::path(patch, path = "/api/owner/forms/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The form's id.")),
    request_body(content = Object, content_type = "application/merge-patch+json",
        description = "A JSON Merge Patch (RFC 7396) of `{name, fields, settings}` as `GET` \
        answers them: `fields` is replaced whole, `settings` merged key by key. The merged \
        form is checked whole; problems come by field (`fields[1].options[0]`)."),
    security(("ownerToken" = [])),
    responses((status = 200, body = OwnerForm), OwnerErrors))]
async fn patch_form(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Forms, Change>,
    body: Body,
) -> Result<Json<OwnerForm>, ApiError> {
    let tenant = owner.site.tenant.id;
    let old = form_of(&store, tenant, &id).await?;
    // The body is read once the form is known to be this site's.
    let patch: Value = read_json(body, MAX_JSON_BODY).await?;
    if !patch.is_object() {
        return Err(ApiError::bad_request(NOT_AN_OBJECT));
    }
    let mut merged = editable(&old);
    tenants::merge_patch(&mut merged, &patch);
    let form = checked(&merged, old)?;
    store
        .put_form(tenant, &form)
        .await
        .map_err(|e| store_failure(&e))?;
    let n = counts(&store, tenant).await?.get(&id).copied().unwrap_or(0);
    Ok(Json(owner_form(&form, n)))
}

/// `DELETE /api/owner/forms/{id}`: deletes a form and its submissions.
#[utoipa::path(delete, path = "/api/owner/forms/{id}", tag = OWNER,
    params(("id" = String, Path, description = "The form's id.")),
    security(("ownerToken" = [])),
    responses((status = 200, body = Deleted), OwnerErrors))]
async fn delete_form(
    State(store): State<Store>,
    Path(id): Path<String>,
    owner: Owner<area::Forms, Change>,
) -> Result<Json<Deleted>, ApiError> {
    let gone = store
        .delete_form(owner.site.tenant.id, &id)
        .await
        .map_err(|e| store_failure(&e))?;
    if !gone {
        return Err(ApiError::not_found(NO_FORM));
    }
    Ok(Json(Deleted { deleted: id }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_checked_by_kind() {
        let mut errors = Map::new();
        let out = check_fields(
            &json!([
                {"type": "text", "title": " Name ", "required": true, "maxLength": 50},
                {"type": "select", "title": "Pick", "options": ["A", "A", ""]},
                {"type": "email", "title": "", "options": ["x"]},
                {"type": "rocket", "title": "Boom"},
                {"type": "text", "title": "T", "maxLength": 0}
            ]),
            &mut errors,
        );
        assert_eq!(out[0]["title"], "Name");
        assert_eq!(out[0]["id"].as_str().unwrap().len(), 12);
        assert_eq!(errors["fields[1].options[1]"], SAME_OPTION);
        assert_eq!(errors["fields[1].options[2]"], BAD_OPTION);
        assert_eq!(errors["fields[2].title"], NO_LABEL);
        assert_eq!(errors["fields[2].options"], NO_SUCH_SETTING);
        assert_eq!(errors["fields[3].type"], NO_KIND);
        assert_eq!(errors["fields[4].maxLength"], BAD_MAX_LENGTH);
        assert_eq!(errors.len(), 6, "{errors:?}");
    }
}
