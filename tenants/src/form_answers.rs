//! A site form's answers (SPEC.md §3 "Form", §5 "Forms"): what a submission's `form` JSON
//! may hold for each field kind, the checks, and the answers as they are stored — one
//! entry per field of the form, in its order, in the field kind's value shape.
//!
//! Value shapes: text, textarea, email, number, currency, select and hidden are strings;
//! radio is the first checked value (a list is taken by its first element); checkbox is the
//! list of checked values; address, date, name, time and phone are lists of parts (a phone
//! of 3 parts gets an empty country code in front); likert maps each question to its answer.
//! Section fields hold nothing and are skipped. A hidden field keeps what the page sent
//! (the query-string value) or else its own value.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// An empty required field.
pub const REQUIRED: &str = "Required";
/// Text longer than the field's `maxLength`.
pub const CHARACTER_LIMIT: &str = "You have exceeded the character limit.";
/// An email field that is not an address.
pub const EMAIL_INVALID: &str =
    "Email is not valid. Email addresses should follow the format user@domain.com.";
/// A value of the wrong shape (an object for a text field …), or a `form` that is no JSON
/// object.
pub const UNPARSEABLE: &str = "Could not parse the form fields, please check your entries.";
/// Designed here (SPEC.md does not show them): a number field with something else, and a
/// choice that is not one of the field's options.
pub const NOT_A_NUMBER: &str = "Enter a number.";
/// See [`NOT_A_NUMBER`].
pub const NOT_AN_OPTION: &str = "Choose one of the options.";
/// How an unanswered field reads back.
pub const NOT_ANSWERED: &str = "N/A";

/// Field id → problem.
pub type Problems = BTreeMap<String, String>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Text,
    Choice,
    Checkbox,
    Parts,
    Likert,
    Hidden,
    Section,
}

fn shape(kind: &str) -> Shape {
    match kind {
        "radio" | "select" => Shape::Choice,
        "checkbox" => Shape::Checkbox,
        "address" | "date" | "name" | "time" | "phone" => Shape::Parts,
        "likert" => Shape::Likert,
        "hidden" => Shape::Hidden,
        "section" => Shape::Section,
        _ => Shape::Text,
    }
}

/// An address the mailer can send to ([`crate::email_address::deliverable`]): an email
/// answer becomes the owner's notice's `Reply-To`, and a newsletter form's subscriber.
pub fn email_ok(text: &str) -> bool {
    crate::email_address::deliverable(text).is_some()
}

fn text_of(v: Option<&Value>) -> Option<String> {
    match v {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(Value::Bool(b)) => Some(b.to_string()),
        _ => None,
    }
}

fn list_of(v: Option<&Value>) -> Option<Vec<String>> {
    match v {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(Value::Array(a)) => a.iter().map(|x| text_of(Some(x))).collect(),
        Some(other) => text_of(Some(other)).map(|s| if s.is_empty() { vec![] } else { vec![s] }),
    }
}

fn options(field: &Value) -> Vec<&str> {
    field
        .get("options")
        .and_then(Value::as_array)
        .map(|o| o.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Checks `sent` (field id → value) against the form's `fields`; the answers to store, or
/// the problems by field id. Values for ids the form does not have are dropped.
pub fn check(fields: &Value, sent: &Map<String, Value>) -> Result<Map<String, Value>, Problems> {
    let mut out = Map::new();
    let mut problems = Problems::new();
    for field in fields.as_array().map(Vec::as_slice).unwrap_or_default() {
        let Some(id) = field.get("id").and_then(Value::as_str) else {
            continue;
        };
        let kind = field.get("type").and_then(Value::as_str).unwrap_or("text");
        let required = field.get("required").and_then(Value::as_bool) == Some(true);
        let given = sent.get(id);
        let mut problem = |p: &str| {
            problems.insert(id.to_owned(), p.to_owned());
        };
        let answer = match shape(kind) {
            Shape::Section => continue,
            Shape::Hidden => {
                let own = field.get("value").and_then(Value::as_str).unwrap_or("");
                match text_of(given) {
                    Some(s) if !s.is_empty() => Value::String(s),
                    _ => Value::String(own.to_owned()),
                }
            }
            Shape::Text => match text_of(given) {
                None => {
                    problem(UNPARSEABLE);
                    continue;
                }
                Some(s) => {
                    let t = s.trim();
                    let max = field.get("maxLength").and_then(Value::as_u64);
                    if required && t.is_empty() {
                        problem(REQUIRED);
                    } else if max.is_some_and(|m| s.chars().count() as u64 > m) {
                        problem(CHARACTER_LIMIT);
                    } else if kind == "email" && !t.is_empty() && !email_ok(t) {
                        problem(EMAIL_INVALID);
                    } else if matches!(kind, "number" | "currency")
                        && !t.is_empty()
                        && t.replace(',', "").parse::<f64>().is_err()
                    {
                        problem(NOT_A_NUMBER);
                    }
                    Value::String(s)
                }
            },
            Shape::Choice => {
                // A radio sends the first checked value; a list is read the same way.
                let first = match given {
                    Some(Value::Array(a)) => text_of(a.first()),
                    other => text_of(other),
                };
                let Some(s) = first else {
                    problem(UNPARSEABLE);
                    continue;
                };
                let opts = options(field);
                if s.is_empty() {
                    if required {
                        problem(REQUIRED);
                    }
                } else if !opts.is_empty() && !opts.contains(&s.as_str()) {
                    problem(NOT_AN_OPTION);
                }
                Value::String(s)
            }
            Shape::Checkbox => {
                let Some(list) = list_of(given) else {
                    problem(UNPARSEABLE);
                    continue;
                };
                let opts = options(field);
                if list.is_empty() && required {
                    problem(REQUIRED);
                } else if !opts.is_empty() && list.iter().any(|v| !opts.contains(&v.as_str())) {
                    problem(NOT_AN_OPTION);
                }
                Value::Array(list.into_iter().map(Value::String).collect())
            }
            Shape::Parts => {
                let Some(mut parts) = list_of(given) else {
                    problem(UNPARSEABLE);
                    continue;
                };
                if kind == "phone" && parts.len() == 3 {
                    parts.insert(0, String::new());
                }
                if required && parts.iter().all(|p| p.trim().is_empty()) {
                    problem(REQUIRED);
                }
                Value::Array(parts.into_iter().map(Value::String).collect())
            }
            Shape::Likert => match given {
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(Value::Object(m)) => {
                    let mut answers = Map::new();
                    for (q, a) in m {
                        match text_of(Some(a)) {
                            Some(s) => {
                                answers.insert(q.clone(), Value::String(s));
                            }
                            None => problem(UNPARSEABLE),
                        }
                    }
                    Value::Object(answers)
                }
                Some(_) => {
                    problem(UNPARSEABLE);
                    continue;
                }
            },
        };
        out.insert(id.to_owned(), answer);
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// An answer to a field of type `kind` as one line of text: a name's parts as a name is
/// written ("Pat Rider"), other parts (an address's, a checkbox's choices) joined by commas,
/// likert as "question: answer", and "N/A" when unanswered.
pub fn answer_text(kind: Option<&str>, v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.trim().to_owned(),
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(if kind == Some("name") { " " } else { ", " }),
        Value::Object(m) => m
            .iter()
            .map(|(q, a)| format!("{q}: {}", a.as_str().unwrap_or_default()))
            .collect::<Vec<_>>()
            .join("; "),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    if text.is_empty() {
        NOT_ANSWERED.to_owned()
    } else {
        text
    }
}

/// The first email field's answer (a newsletter form's subscriber).
pub fn first_email(fields: &Value, answers: &Map<String, Value>) -> Option<String> {
    fields.as_array()?.iter().find_map(|f| {
        (f.get("type")?.as_str()? == "email")
            .then(|| answers.get(f.get("id")?.as_str()?)?.as_str())
            .flatten()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> Value {
        json!([
            {"id": "name", "type": "name", "required": true},
            {"id": "email", "type": "email", "required": true},
            {"id": "phone", "type": "phone"},
            {"id": "bike", "type": "select", "required": true, "options": ["Road", "Gravel"]},
            {"id": "service", "type": "radio", "required": true, "options": ["Check", "Service"]},
            {"id": "extras", "type": "checkbox", "options": ["Lights", "Bell"]},
            {"id": "when", "type": "date"},
            {"id": "details", "type": "textarea", "maxLength": 10},
            {"id": "count", "type": "number"},
            {"id": "rate", "type": "likert"},
            {"id": "part", "type": "section"},
            {"id": "source", "type": "hidden", "value": "contact-page"}
        ])
    }

    fn sent(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn every_shape_is_stored_in_form_order() {
        let ok = check(
            &form(),
            &sent(json!({
                "name": ["Ada", "Lovelace"], "email": "ada@example.com", "phone": ["608", "555", "0142"],
                "bike": "Road", "service": ["Service", "Check"], "extras": ["Bell"], "when": ["11", "25", "2026"],
                "details": "Squeaks", "count": "2", "rate": {"Speed": "Agree"}, "stray": "dropped"
            })),
        )
        .unwrap();
        assert_eq!(
            Value::Object(ok),
            json!({
                "name": ["Ada", "Lovelace"], "email": "ada@example.com", "phone": ["", "608", "555", "0142"],
                "bike": "Road", "service": "Service", "extras": ["Bell"], "when": ["11", "25", "2026"],
                "details": "Squeaks", "count": "2", "rate": {"Speed": "Agree"}, "source": "contact-page"
            })
        );
    }

    #[test]
    fn every_problem_by_its_field() {
        let problems = check(
            &form(),
            &sent(json!({
                "name": ["", " "], "email": "ada@", "bike": "Unicycle", "service": "",
                "extras": ["Horn"], "details": "far too long here", "count": "two", "rate": "no"
            })),
        )
        .unwrap_err();
        let expect =
            |k: &str, m: &str| assert_eq!(problems.get(k).map(String::as_str), Some(m), "{k}");
        expect("name", REQUIRED);
        expect("email", EMAIL_INVALID);
        expect("bike", NOT_AN_OPTION);
        expect("service", REQUIRED);
        expect("extras", NOT_AN_OPTION);
        expect("details", CHARACTER_LIMIT);
        expect("count", NOT_A_NUMBER);
        expect("rate", UNPARSEABLE);
        assert_eq!(problems.len(), 8, "{problems:?}");
        // Nothing sent at all: the required ones, and likert is never required.
        let none = check(&form(), &Map::new()).unwrap_err();
        assert_eq!(
            none.keys().collect::<Vec<_>>(),
            ["bike", "email", "name", "service"]
        );
    }

    #[test]
    fn hidden_fields_keep_what_the_page_sent() {
        let ok = check(
            &json!([{"id": "src", "type": "hidden", "value": "own"}]),
            &sent(json!({"src": "newsletter-ad"})),
        )
        .unwrap();
        assert_eq!(ok["src"], "newsletter-ad");
    }

    #[test]
    fn answers_read_back() {
        assert_eq!(answer_text(Some("text"), &json!("")), NOT_ANSWERED);
        assert_eq!(
            answer_text(Some("phone"), &json!(["", "608", "555"])),
            "608, 555"
        );
        assert_eq!(
            answer_text(Some("name"), &json!(["Pat", " Rider"])),
            "Pat Rider"
        );
        assert_eq!(
            answer_text(Some("checkbox"), &json!(["Road", "Gravel"])),
            "Road, Gravel"
        );
        assert_eq!(
            answer_text(None, &json!({"Speed": "Agree"})),
            "Speed: Agree"
        );
        assert_eq!(answer_text(Some("name"), &json!([])), NOT_ANSWERED);
        assert!(
            email_ok("a@b.co") && !email_ok("a@b") && !email_ok("a b@c.de") && !email_ok("@c.de")
        );
        let fields = form();
        let answers = sent(json!({"email": " ada@example.com "}));
        assert_eq!(
            first_email(&fields, &answers).as_deref(),
            Some("ada@example.com")
        );
    }
}
