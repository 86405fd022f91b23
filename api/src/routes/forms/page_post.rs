//! Site forms without JavaScript: the browser posts the form itself, form-encoded, to
//! `/api/form/SaveFormSubmission`, and gets a page back with the submission message (or a
//! redirect to the form's `successRedirect`) or the problems by field title.
//!
//! Field names are the form's field ids. List-valued kinds (name, address, phone, time,
//! date, checkbox) repeat the name once per part or checked box, in order; a likert field
//! sends `id[question]`; `formId` names the form. There is no crumb header on such a post:
//! it must come from the site's own pages (`Origin`, else `Referer`, naming the `Host`),
//! which stops other sites from posting on a visitor's behalf.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use super::{Sent, forms, refusal, submit, within_rate};
use crate::http::ApiError;
use crate::http::body::{MAX_JSON_BODY, bytes};
use crate::http::call::Call;
use crate::http::small_page::{self, escape};
use crate::server::state::App;

/// Designed here: a post from another site's page.
pub const FOREIGN_ORIGIN: &str = "This form can only be sent from the site's own pages.";
/// The general message of a page listing field problems (SPEC.md §5).
pub const FIELDS_INVALID: &str = "One or more fields is invalid, please check your entries.";

/// A form-encoded body: a browser posting a form.
pub fn is_page_post(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"))
}

/// The authority (`host[:port]`) of an `http(s)://` URL.
pub(crate) fn authority(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    Some(rest.split(['/', '?', '#']).next().unwrap_or(rest))
}

/// The post comes from a page of the host it is sent to.
fn same_origin(call: &Call) -> bool {
    let host = call.host();
    let header = |name: header::HeaderName| call.headers.get(name).and_then(|v| v.to_str().ok());
    match header(header::ORIGIN).or_else(|| header(header::REFERER)) {
        Some(from) => authority(from).is_some_and(|a| a.eq_ignore_ascii_case(&host)),
        None => false,
    }
}

/// The referring page's path on this site, for the page fields and the way back.
fn referring_path(call: &Call) -> Option<String> {
    let referer = call.headers.get(header::REFERER)?.to_str().ok()?;
    let a = authority(referer)?;
    if !a.eq_ignore_ascii_case(&call.host()) {
        return None;
    }
    let path = &referer[referer.find(a)? + a.len()..];
    // The link back is printed on our page: a path on this site only (a Referer of
    // `https://site//evil.example/` would otherwise make a link off the site).
    Some(crate::http::local_path::local_path(Some(path)).to_owned())
}

/// The answers a form-encoded body gives the form's fields (see the module docs).
pub fn answers_from_pairs(fields: &Value, pairs: &[(String, String)]) -> Map<String, Value> {
    let mut out = Map::new();
    for f in fields.as_array().into_iter().flatten() {
        let (Some(id), Some(kind)) = (
            f.get("id").and_then(Value::as_str),
            f.get("type").and_then(Value::as_str),
        ) else {
            continue;
        };
        let values = || {
            pairs
                .iter()
                .filter(|(k, _)| k == id)
                .map(|(_, v)| v.clone())
        };
        match kind {
            "section" => {}
            "name" | "address" | "phone" | "time" | "date" | "checkbox" => {
                let list: Vec<Value> = values().map(Value::String).collect();
                if !list.is_empty() || kind == "checkbox" {
                    out.insert(id.to_owned(), Value::Array(list));
                }
            }
            "likert" => {
                let prefix = format!("{id}[");
                let answers: Map<String, Value> = pairs
                    .iter()
                    .filter_map(|(k, v)| {
                        let q = k.strip_prefix(&prefix)?.strip_suffix(']')?;
                        Some((q.to_owned(), Value::String(v.clone())))
                    })
                    .collect();
                out.insert(id.to_owned(), Value::Object(answers));
            }
            _ => {
                if let Some(v) = values().next() {
                    out.insert(id.to_owned(), Value::String(v));
                }
            }
        }
    }
    out
}

/// The answer to a page's post: a small page of its own (the answer to a post is not one
/// of the site's pages), with a link back to the form when there is one, or 303 on to the
/// form's `successRedirect`.
pub enum Answer {
    Page {
        status: StatusCode,
        title: &'static str,
        /// HTML, already escaped.
        body: String,
        back: Option<String>,
    },
    SeeOther(String),
}

impl IntoResponse for Answer {
    fn into_response(self) -> Response {
        match self {
            Answer::Page {
                status,
                title,
                body,
                back,
            } => {
                let back = back.map_or_else(String::new, |b| {
                    format!("<p><a href=\"{}\">Back to the form</a></p>", escape(&b))
                });
                small_page::page(status, title, &format!("{body}{back}"))
            }
            Answer::SeeOther(to) => {
                let mut r = Response::new(Body::empty());
                *r.status_mut() = StatusCode::SEE_OTHER;
                if let Ok(v) = HeaderValue::from_str(&to) {
                    r.headers_mut().insert(header::LOCATION, v);
                }
                r
            }
        }
    }
}

/// The page of a refused post: field problems by title, or the message.
fn problem_page(e: &ApiError, fields: &Value, back: Option<String>) -> Answer {
    let title_of = |id: &str| -> String {
        if id == "captchaKey" {
            return "Captcha".to_owned();
        }
        fields
            .as_array()
            .into_iter()
            .flatten()
            .find(|f| f.get("id").and_then(Value::as_str) == Some(id))
            .and_then(|f| f.get("title").and_then(Value::as_str))
            .unwrap_or(id)
            .to_owned()
    };
    let message = e.body.get("message").and_then(Value::as_str).unwrap_or("");
    let body = match e.body.get("errors").and_then(Value::as_object) {
        Some(errors) if !errors.is_empty() => {
            let items: String = errors
                .iter()
                .map(|(id, m)| {
                    format!(
                        "<li data-field=\"{}\"><strong>{}</strong>: {}</li>",
                        escape(id),
                        escape(&title_of(id)),
                        escape(m.as_str().unwrap_or(""))
                    )
                })
                .collect();
            format!(
                "<h1>Your form was not sent</h1><p role=\"alert\">{}</p><ul class=\"form-errors\">{items}</ul>",
                escape(FIELDS_INVALID)
            )
        }
        _ => format!(
            "<h1>Your form was not sent</h1><p role=\"alert\" class=\"form-error\">{}</p>",
            escape(message)
        ),
    };
    Answer::Page {
        status: e.status,
        title: "Your form was not sent",
        body,
        back,
    }
}

/// A form post from a page without JavaScript: its call (or why there is none), then its
/// origin, the form family's rate, the body, the form and the flow, each refusal a page.
pub async fn save(app: &App, call: Result<Call, ApiError>, body: Body) -> Answer {
    let call = match call {
        Ok(c) => c,
        Err(e) => return problem_page(&e, &Value::Null, None),
    };
    let back = referring_path(&call);
    if !same_origin(&call) {
        let e = ApiError::new(StatusCode::FORBIDDEN, FOREIGN_ORIGIN);
        return problem_page(&e, &Value::Null, None);
    }
    if let Err(e) = within_rate(&call, app).await {
        return problem_page(&e, &Value::Null, back);
    }
    let pairs = match read_pairs(body).await {
        Ok(p) => p,
        Err(e) => return problem_page(&e, &Value::Null, back),
    };
    let param = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let form = match forms(app)
        .form(&call.site, &param("formId").unwrap_or_default())
        .await
    {
        Ok(f) => f,
        Err(e) => return problem_page(&refusal(e), &Value::Null, back),
    };
    let sent = Sent {
        key: None,
        answers: answers_from_pairs(&form.fields, &pairs),
        captcha: param("captchaKey").or_else(|| param("g-recaptcha-response")),
        page: json!({ "pagePath": back, "contentSource": "c", "noScript": true }),
    };
    match submit(app, &call, &form, sent).await {
        Ok(newsletter) => sent_page(&form, newsletter, back),
        Err(e) => problem_page(&e, &form.fields, back),
    }
}

/// The body's pairs (at most [`MAX_JSON_BODY`] bytes).
async fn read_pairs(body: Body) -> Result<Vec<(String, String)>, ApiError> {
    let raw = bytes(body, MAX_JSON_BODY).await?;
    crate::http::body::form_pairs(&raw)
}

/// What a saved post shows: on to the form's `successRedirect` when it is a safe one, else
/// its submission message and HTML.
fn sent_page(form: &tenants::Form, newsletter: bool, back: Option<String>) -> Answer {
    let setting = |k: &str| {
        form.settings
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let Some(to) = setting("successRedirect").filter(|u| safe_redirect(u)) {
        return Answer::SeeOther(to);
    }
    let message = setting("submissionMessage").unwrap_or_else(|| "Thank you!".to_owned());
    let html = setting("submissionHtml").unwrap_or_default();
    let body = format!(
        "<div class=\"form-submission-text\" role=\"status\">{}</div>\
         <div class=\"form-submission-html\">{html}</div>",
        escape(&message)
    );
    Answer::Page {
        status: StatusCode::OK,
        title: if newsletter {
            "You're signed up"
        } else {
            "Thank you"
        },
        body,
        back,
    }
}

/// A redirect the owner set: a path on this site or an http(s) URL.
fn safe_redirect(url: &str) -> bool {
    (url.starts_with('/') && !url.starts_with("//"))
        || url.starts_with("https://")
        || url.starts_with("http://")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_kinds_collect_repeated_names_and_likert_reads_brackets() {
        let fields = json!([
            {"id": "name", "type": "name"}, {"id": "email", "type": "email"},
            {"id": "tools", "type": "checkbox"}, {"id": "sec", "type": "section"},
            {"id": "rate", "type": "likert"}, {"id": "source", "type": "hidden"},
        ]);
        let pairs: Vec<(String, String)> = [
            ("formId", "f"),
            ("name", "Ada"),
            ("name", "Lovelace"),
            ("email", "ada@example.test"),
            ("tools", "Lathe"),
            ("tools", "Saw"),
            ("rate[Speed]", "Agree"),
            ("source", "ad"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(
            Value::Object(answers_from_pairs(&fields, &pairs)),
            json!({
                "name": ["Ada", "Lovelace"], "email": "ada@example.test", "tools": ["Lathe", "Saw"],
                "rate": {"Speed": "Agree"}, "source": "ad",
            })
        );
        // Nothing ticked is an empty list, not a missing answer.
        assert_eq!(answers_from_pairs(&fields, &[])["tools"], json!([]));
    }

    #[test]
    fn origins_are_compared_by_authority() {
        assert_eq!(
            authority("http://a.test:8080/contact?x"),
            Some("a.test:8080")
        );
        assert_eq!(authority("https://a.test"), Some("a.test"));
        assert_eq!(authority("ftp://a.test"), None);
        assert!(
            safe_redirect("/thanks")
                && !safe_redirect("//evil.test")
                && !safe_redirect("javascript:x")
        );
    }
}
