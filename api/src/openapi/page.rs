//! `GET /api/docs`: the API reference as one HTML page, made from the OpenAPI document
//! once, when the router is built (the same document `/api/openapi.json` serves). Every
//! operation by tag, with its method, path, summary, description, who may call it, its
//! parameters, body and answers, linked to the schemas, which follow as JSON. Plain HTML:
//! no script, and the small pages' stylesheet, which the security policy allows by hash.
//! (The book's chapter, docs/src/api-reference.md, is made from the same document by
//! scripts/api-reference.)

use std::fmt::Write;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::http::small_page::{STYLE, escape};

/// Where the page is served.
pub const PATH: &str = "/api/docs";

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];
const SCHEMA_PREFIX: &str = "#/components/schemas/";

/// The page, rendered once.
#[derive(Clone)]
pub struct Page(axum::body::Bytes);

impl Page {
    pub fn new(doc: &utoipa::openapi::OpenApi) -> Page {
        let doc = serde_json::to_value(doc).expect("an OpenAPI document serializes");
        Page(render(&doc).into())
    }

    pub fn response(&self) -> Response {
        let mut r = self.0.clone().into_response();
        let h = r.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=60"),
        );
        r
    }
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// Escaped text with its `code spans` as `<code>`, one paragraph per blank-line block.
fn prose(out: &mut String, words: &str) {
    for para in words.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        out.push_str("<p>");
        for (i, part) in escape(para).split('`').enumerate() {
            if i % 2 == 1 {
                let _ = write!(out, "<code>{part}</code>");
            } else {
                out.push_str(part);
            }
        }
        out.push_str("</p>\n");
    }
}

fn anchor(name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("schema-{slug}")
}

/// A schema in a few words: a named one links to its place below.
fn kind(s: &Value) -> String {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix(SCHEMA_PREFIX).unwrap_or(r);
        return format!("<a href=\"#{}\">{}</a>", anchor(name), escape(name));
    }
    for (key, word) in [("oneOf", " or "), ("anyOf", " or "), ("allOf", " and ")] {
        if let Some(list) = s.get(key).and_then(Value::as_array) {
            return list.iter().map(kind).collect::<Vec<_>>().join(word);
        }
    }
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => return "any".to_owned(),
    };
    types
        .iter()
        .map(|t| match *t {
            "array" => format!("array of {}", kind(s.get("items").unwrap_or(&Value::Null))),
            t => escape(t),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

fn content(c: &Value) -> String {
    c.as_object()
        .into_iter()
        .flatten()
        .map(|(media, m)| match m.get("schema") {
            Some(s) => format!("<code>{}</code>: {}", escape(media), kind(s)),
            None => format!("<code>{}</code>", escape(media)),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn operation(out: &mut String, method: &str, path: &str, op: &Value) {
    let _ = writeln!(
        out,
        "<h3><code>{} {}</code></h3>",
        method.to_uppercase(),
        escape(path)
    );
    prose(out, text(&op["summary"]));
    prose(out, text(&op["description"]));
    let who: Vec<String> = match op.get("security").and_then(Value::as_array) {
        None => vec!["anyone (no crumb or token)".to_owned()],
        Some(list) => list
            .iter()
            .map(|req| match req.as_object() {
                Some(m) if !m.is_empty() => m
                    .keys()
                    .map(|k| format!("<code>{}</code>", escape(k)))
                    .collect::<Vec<_>>()
                    .join(" and "),
                _ => "nothing".to_owned(),
            })
            .collect(),
    };
    let _ = writeln!(
        out,
        "<p>Operation <code>{}</code>; who may call: {}.</p>",
        escape(text(&op["operationId"])),
        who.join(" or ")
    );
    if let Some(params) = op.get("parameters").and_then(Value::as_array) {
        out.push_str("<p>Parameters:</p>\n<ul>\n");
        for p in params {
            let _ = writeln!(
                out,
                "<li><code>{}</code> ({}, {}{}){}{}</li>",
                escape(text(&p["name"])),
                escape(text(&p["in"])),
                kind(&p["schema"]),
                if p["required"] == true {
                    ", required"
                } else {
                    ""
                },
                if text(&p["description"]).is_empty() {
                    ""
                } else {
                    ": "
                },
                escape(text(&p["description"])),
            );
        }
        out.push_str("</ul>\n");
    }
    if let Some(body) = op.get("requestBody") {
        let _ = writeln!(
            out,
            "<p>Body{}: {}.</p>",
            if body["required"] == true {
                ""
            } else {
                " (optional)"
            },
            content(&body["content"])
        );
    }
    out.push_str("<p>Answers:</p>\n<ul>\n");
    for (status, r) in op["responses"].as_object().into_iter().flatten() {
        let body = content(&r["content"]);
        let _ = writeln!(
            out,
            "<li><b>{}</b> {}{}{}</li>",
            escape(status),
            escape(text(&r["description"])),
            if body.is_empty() { "" } else { " — " },
            body
        );
    }
    out.push_str("</ul>\n");
}

/// The whole page.
fn render(doc: &Value) -> String {
    let info = &doc["info"];
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <link rel=\"icon\" href=\"data:,\"><title>{} HTTP API</title>\
         <style>{STYLE}</style></head><body><main>\n<h1>{} HTTP API</h1>\n",
        escape(text(&info["title"])),
        escape(text(&info["title"])),
    );
    let _ = writeln!(
        out,
        "<p>Version {}, from the OpenAPI {} document at <a href=\"{}\"><code>{}</code></a>.</p>",
        escape(text(&info["version"])),
        escape(text(&doc["openapi"])),
        super::PATH,
        super::PATH
    );
    prose(&mut out, text(&info["description"]));

    let tags: Vec<(&str, &str)> = doc["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| (text(&t["name"]), text(&t["description"])))
        .collect();
    out.push_str("<nav><ul>\n");
    for (name, _) in &tags {
        let _ = writeln!(
            out,
            "<li><a href=\"#tag-{}\">{}</a></li>",
            name.replace(' ', "-"),
            escape(name)
        );
    }
    out.push_str("<li><a href=\"#schemas\">Schemas</a></li>\n</ul></nav>\n");
    let paths = doc["paths"].as_object();
    for (name, description) in &tags {
        let _ = writeln!(
            out,
            "<h2 id=\"tag-{}\">{}</h2>",
            name.replace(' ', "-"),
            escape(name)
        );
        prose(&mut out, description);
        for (path, item) in paths.into_iter().flatten() {
            for method in METHODS {
                if let Some(op) = item.get(method)
                    && op["tags"][0].as_str() == Some(name)
                {
                    operation(&mut out, method, path, op);
                }
            }
        }
    }
    out.push_str("<h2 id=\"schemas\">Schemas</h2>\n");
    for (name, schema) in doc["components"]["schemas"]
        .as_object()
        .into_iter()
        .flatten()
    {
        let _ = writeln!(
            out,
            "<h3 id=\"{}\"><code>{}</code></h3>",
            anchor(name),
            escape(name)
        );
        let json = serde_json::to_string_pretty(schema).unwrap_or_default();
        let _ = writeln!(out, "<pre>{}</pre>", escape(&json));
    }
    out.push_str("</main></body></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_operation_and_schema() {
        let (_, doc) = crate::server::api_routes();
        let page = String::from_utf8(Page::new(&doc).0.to_vec()).unwrap();
        let value = serde_json::to_value(&doc).unwrap();
        for (path, item) in value["paths"].as_object().unwrap() {
            for method in item.as_object().unwrap().keys() {
                let heading = format!("<code>{} {}</code>", method.to_uppercase(), escape(path));
                assert!(page.contains(&heading), "{heading} is not on the page");
            }
        }
        for name in value["components"]["schemas"].as_object().unwrap().keys() {
            assert!(page.contains(&format!("id=\"{}\"", anchor(name))), "{name}");
        }
        // Its one stylesheet is the one the security policy allows; it runs no script.
        assert_eq!(page.matches("<style>").count(), 1);
        assert!(page.contains(&format!("<style>{STYLE}</style>")));
        assert!(!page.contains("<script"));
    }
}
