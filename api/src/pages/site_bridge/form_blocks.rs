//! Form blocks an owner places in a page's or item's rich text (the content editor's
//! "Form" button): the text stores a placeholder naming one of the site's forms,
//!
//! ```html
//! <div class="sqs-block form-block sqs-block-form" data-block-type="9" data-form-id="ID"></div>
//! ```
//!
//! and [`fill`] puts the form in its place, drawn from its saved definition, when the site's
//! content is prepared for rendering (once per content version: a form's change is a content
//! change). The markup is the one quillback's static forms have, so the site-form island and
//! the no-JavaScript post (`/api/form/SaveFormSubmission`, [`crate::routes::forms`]) handle
//! it alike: a `form[data-form-id]` posting to SaveFormSubmission with a hidden `formId`,
//! every control named by its field's id (list kinds repeat the name, a likert question is
//! `id[question]`), labels and legends with a `*` marker on required fields, the disclaimer
//! and a submit button (the form's `submitButtonText` setting when it has one, else
//! "Submit"; "Sign up" for a newsletter form, which takes the newsletter block's shape).
//! Every owner string is escaped. A placeholder naming no form of the site (deleted, or
//! another site's) shows nothing.

use std::collections::HashMap;

use serde_json::Value;
use tenants::Form;

use crate::http::small_page::escape;

/// The block's class, as the editor writes it.
pub const BLOCK_CLASS: &str = "sqs-block form-block sqs-block-form";
/// The block type quillback's form blocks carry.
pub const BLOCK_TYPE: &str = "9";

/// The likert scale every question offers, in order.
pub const LIKERT: [&str; 5] = [
    "Strongly Disagree",
    "Disagree",
    "Neutral",
    "Agree",
    "Strongly Agree",
];

/// A form id the placeholder may name: 1 to 64 letters, digits, `-` or `_`.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The attributes of the tag in `tag` (the text between `<div` and `>`), as the sanitizer
/// writes them (double-quoted, entities escaped).
fn attributes(tag: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut rest = tag.trim_start();
    while !rest.is_empty() {
        let name_end = rest
            .find(|c: char| c == '=' || c.is_whitespace())
            .unwrap_or(rest.len());
        let name = &rest[..name_end];
        rest = rest[name_end..].trim_start();
        if let Some(after) = rest.strip_prefix("=\"") {
            let Some(close) = after.find('"') else {
                break;
            };
            out.push((name, &after[..close]));
            rest = after[close + 1..].trim_start();
        } else {
            if !name.is_empty() {
                out.push((name, ""));
            }
            if name_end == 0 {
                // Something that is no attribute: stop.
                break;
            }
        }
    }
    out
}

/// The end of the start tag that begins at `from` (the index of its `>`), skipping quoted
/// attribute values.
fn tag_end(html: &str, from: usize) -> Option<usize> {
    let mut quoted = false;
    for (i, b) in html.as_bytes()[from..].iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b'>' if !quoted => return Some(from + i),
            _ => {}
        }
    }
    None
}

/// The form id of a placeholder's start tag's attributes, when they make one.
fn placeholder_id(attrs: &[(&str, &str)]) -> Option<String> {
    let get = |n: &str| attrs.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
    if get("data-block-type") != Some(BLOCK_TYPE) {
        return None;
    }
    let id = get("data-form-id")?;
    valid_id(id).then(|| id.to_owned())
}

/// Whether `html` holds a placeholder (a cheap look before the forms are loaded).
pub fn has_placeholder(html: &str) -> bool {
    html.contains("data-form-id=") && html.contains("data-block-type=\"9\"")
}

/// `html` with every placeholder replaced by its form (nothing for an id that names none of
/// `forms`). `None` when there is no placeholder.
pub fn fill(html: &str, forms: &HashMap<&str, &Form>) -> Option<String> {
    if !has_placeholder(html) {
        return None;
    }
    let mut out = String::with_capacity(html.len());
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut at = 0;
    let mut changed = false;
    while let Some(found) = html[at..].find("<div") {
        let start = at + found;
        let after_name = start + 4;
        let Some(end) = tag_end(html, after_name) else {
            break;
        };
        let is_div = html[after_name..]
            .chars()
            .next()
            .is_some_and(|c| c.is_whitespace() || c == '>');
        let id = if is_div {
            placeholder_id(&attributes(&html[after_name..end]))
        } else {
            None
        };
        // Only an empty block is a placeholder (an imported block carries its own form).
        match id {
            Some(id) if html[end + 1..].starts_with("</div>") => {
                out.push_str(&html[at..start]);
                if let Some(form) = forms.get(id.as_str()) {
                    let n = seen.entry(id.clone()).or_insert(0);
                    *n += 1;
                    out.push_str(&block(form, *n));
                }
                at = end + 1 + "</div>".len();
                changed = true;
            }
            _ => {
                out.push_str(&html[at..=end]);
                at = end + 1;
            }
        }
    }
    out.push_str(&html[at..]);
    changed.then_some(out)
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn options(f: &Value) -> Vec<&str> {
    f.get("options")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

const REQUIRED: &str = " <span class=\"required\" aria-hidden=\"true\">*</span>";

/// The whole block of `form`, the `n`th on the page text (ids stay unique).
pub fn block(form: &Form, n: usize) -> String {
    let newsletter = crate::services::forms::is_newsletter(form);
    let fid = escape(&form.id);
    // Control ids: the form's id, the occurrence, the field's id.
    let prefix = if n > 1 {
        format!("form-{}-{n}", form.id)
    } else {
        format!("form-{}", form.id)
    };
    let setting = |k: &str| {
        form.settings
            .get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let button =
        setting("submitButtonText").unwrap_or(if newsletter { "Sign up" } else { "Submit" });
    let mut fields = String::new();
    for f in form.fields.as_array().into_iter().flatten() {
        fields.push_str(&field(f, &prefix, newsletter));
    }
    let hidden = format!("<input type=\"hidden\" name=\"formId\" value=\"{fid}\">");
    if newsletter {
        let footnote = setting("disclaimer").map_or_else(String::new, |d| {
            format!("<p class=\"newsletter-form-footnote\">{}</p>", escape(d))
        });
        format!(
            "<div class=\"sqs-block newsletter-block sqs-block-newsletter\" data-block-type=\"51\" \
             data-form-id=\"{fid}\"><div class=\"sqs-block-content\"><div class=\"newsletter-form-wrapper\">\
             <form class=\"newsletter-form\" method=\"post\" action=\"/api/form/SaveFormSubmission\" \
             data-form-id=\"{fid}\">{hidden}<div class=\"newsletter-form-header\">\
             <h2 class=\"newsletter-form-header-title\">{}</h2></div><div class=\"newsletter-form-body\">\
             {fields}<button class=\"newsletter-form-button\" type=\"submit\">{}</button></div>{footnote}\
             </form></div></div></div>",
            escape(&form.name),
            escape(button),
        )
    } else {
        let disclaimer = setting("disclaimer").map_or_else(String::new, |d| {
            format!("<p class=\"form-disclaimer\">{}</p>", escape(d))
        });
        format!(
            "<div class=\"{BLOCK_CLASS}\" data-block-type=\"{BLOCK_TYPE}\" data-form-id=\"{fid}\">\
             <div class=\"sqs-block-content\"><div class=\"form-wrapper\">\
             <form class=\"contact-form\" method=\"post\" action=\"/api/form/SaveFormSubmission\" \
             data-form-id=\"{fid}\" aria-label=\"{}\">{hidden}{fields}{disclaimer}\
             <div class=\"form-button-wrapper\"><button class=\"button sqs-system-button\" \
             type=\"submit\">{}</button></div></form></div></div></div>",
            escape(&form.name),
            escape(button),
        )
    }
}

/// One field's markup (see the module docs for the names).
pub fn field(f: &Value, prefix: &str, newsletter: bool) -> String {
    let id = text(f, "id");
    if !valid_id(id) {
        return String::new();
    }
    let kind = text(f, "type");
    let name = escape(id);
    let title = escape(text(f, "title"));
    let required = f.get("required").and_then(Value::as_bool) == Some(true);
    let marker = if required { REQUIRED } else { "" };
    let req = if required { " required" } else { "" };
    let cid = format!("{prefix}-{id}");
    let description = text(f, "description");
    let (desc, described) = if description.is_empty() {
        (String::new(), String::new())
    } else {
        (
            format!(
                "<p class=\"description\" id=\"{cid}-desc\">{}</p>",
                escape(description)
            ),
            format!(" aria-describedby=\"{cid}-desc\""),
        )
    };
    let placeholder = match text(f, "placeholder") {
        "" => String::new(),
        p => format!(" placeholder=\"{}\"", escape(p)),
    };
    let maxlength = f
        .get("maxLength")
        .and_then(Value::as_u64)
        .map_or_else(String::new, |m| format!(" maxlength=\"{m}\""));
    // A single control under a label.
    let single = |control: String| {
        if newsletter {
            format!(
                "<div class=\"newsletter-form-field-wrapper form-item field {kind}\">\
                 <label class=\"newsletter-form-field-label\" for=\"{cid}\">{title}{marker}</label>\
                 {desc}{control}</div>"
            )
        } else {
            format!(
                "<div class=\"form-item field {kind}\"><label for=\"{cid}\">{title}{marker}</label>\
                 {desc}{control}</div>"
            )
        }
    };
    let element = if newsletter {
        " class=\"newsletter-form-field-element\""
    } else {
        ""
    };
    let input = |ty: &str, extra: &str| {
        format!(
            "<input{element} id=\"{cid}\" type=\"{ty}\" name=\"{name}\"{extra}{placeholder}{req}{described}>"
        )
    };
    // Several controls under a legend.
    let group = |class: &str, inner: String| {
        format!(
            "<fieldset class=\"form-item {class} {kind}\"{described}><legend>{title}{marker}</legend>\
             {desc}{inner}</fieldset>"
        )
    };
    // A labelled part of a list kind.
    let part = |i: usize, label: &str, ty: &str, auto: &str| {
        let auto = if auto.is_empty() {
            String::new()
        } else {
            format!(" autocomplete=\"{auto}\"")
        };
        format!(
            "<label for=\"{cid}-{i}\">{label}<input id=\"{cid}-{i}\" type=\"{ty}\" name=\"{name}\"{auto}{req}></label>"
        )
    };
    match kind {
        "text" => single(input("text", &maxlength)),
        "email" => single(input("email", " autocomplete=\"email\"")),
        "number" => single(input("number", " step=\"any\"")),
        "currency" => {
            let symbol = match text(f, "currencySymbol") {
                "" => String::new(),
                s => format!("<span class=\"currency-symbol\">{}</span>", escape(s)),
            };
            single(format!(
                "{symbol}{}",
                input("text", " inputmode=\"decimal\"")
            ))
        }
        "textarea" => single(format!(
            "<textarea{element} id=\"{cid}\" name=\"{name}\" rows=\"5\"{maxlength}{placeholder}{req}{described}></textarea>"
        )),
        "date" => single(input("date", "")),
        "time" => single(input("time", "")),
        "select" => {
            let opts: String = options(f)
                .iter()
                .map(|o| format!("<option>{}</option>", escape(o)))
                .collect();
            single(format!(
                "<select id=\"{cid}\" name=\"{name}\"{req}{described}><option value=\"\">Select one</option>{opts}</select>"
            ))
        }
        "radio" | "checkbox" => {
            let inner: String = options(f)
                .iter()
                .map(|o| {
                    format!(
                        "<label class=\"option\"><input type=\"{kind}\" name=\"{name}\" value=\"{}\"> {}</label>",
                        escape(o),
                        escape(o)
                    )
                })
                .collect();
            group("field", inner)
        }
        "name" => group(
            "fields",
            format!(
                "<div class=\"name-parts\">{}{}</div>",
                part(1, "First name", "text", "given-name"),
                part(2, "Last name", "text", "family-name")
            ),
        ),
        "address" => {
            let parts = [
                ("Address line 1", "address-line1"),
                ("Address line 2", "address-line2"),
                ("City", "address-level2"),
                ("State or province", "address-level1"),
                ("Postal code", "postal-code"),
                ("Country", "country-name"),
            ];
            let inner: String = parts
                .iter()
                .enumerate()
                .map(|(i, (l, a))| part(i + 1, l, "text", a))
                .collect();
            group(
                "fields",
                format!("<div class=\"address-parts\">{inner}</div>"),
            )
        }
        "phone" => {
            let mut inner = String::new();
            let code = f.get("showCountryCode").and_then(Value::as_bool) == Some(true);
            let parts: &[&str] = if code {
                &["Country code", "Area code", "Prefix", "Line"]
            } else {
                &["Area code", "Prefix", "Line"]
            };
            for (i, l) in parts.iter().enumerate() {
                inner.push_str(&part(i + 1, l, "tel", ""));
            }
            group(
                "fields",
                format!("<div class=\"phone-parts\">{inner}</div>"),
            )
        }
        "likert" => {
            let rows: String = options(f)
                .iter()
                .map(|q| {
                    let q = escape(q);
                    let answers: String = LIKERT
                        .iter()
                        .map(|a| {
                            format!(
                                "<label class=\"option\"><input type=\"radio\" name=\"{name}[{q}]\" value=\"{a}\"> {a}</label>"
                            )
                        })
                        .collect();
                    format!("<fieldset class=\"likert-question\"><legend>{q}</legend>{answers}</fieldset>")
                })
                .collect();
            group("fields", rows)
        }
        "hidden" => format!(
            "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
            escape(text(f, "value"))
        ),
        "section" => {
            let rule = if f.get("underline").and_then(Value::as_bool) == Some(true) {
                "<hr>"
            } else {
                ""
            };
            format!(
                "<div class=\"form-item section\"><h3 class=\"title\">{title}</h3>{desc}{rule}</div>"
            )
        }
        // A kind this server does not know: nothing to fill in.
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form(fields: Value, settings: Value) -> Form {
        Form {
            id: "f00d".into(),
            name: "Repair <request> & co".into(),
            fields,
            settings: settings.as_object().cloned().unwrap_or_default(),
        }
    }

    fn place(id: &str) -> String {
        format!("<div class=\"{BLOCK_CLASS}\" data-block-type=\"9\" data-form-id=\"{id}\"></div>")
    }

    #[test]
    fn every_kind_has_its_controls_named_by_field_id() {
        let f = |kind: &str, extra: Value| {
            let mut v = json!({"id": "x", "type": kind, "title": "T", "required": true});
            if let (Value::Object(o), Value::Object(e)) = (&mut v, extra) {
                o.extend(e);
            }
            field(&v, "form-f", false)
        };
        let text = f(
            "text",
            json!({"maxLength": 50, "placeholder": "P", "description": "D"}),
        );
        assert!(text.contains("<label for=\"form-f-x\">T <span class=\"required\" aria-hidden=\"true\">*</span></label>"), "{text}");
        assert!(text.contains("<input id=\"form-f-x\" type=\"text\" name=\"x\" maxlength=\"50\" placeholder=\"P\" required aria-describedby=\"form-f-x-desc\">"), "{text}");
        assert!(text.contains("<p class=\"description\" id=\"form-f-x-desc\">D</p>"));
        assert!(f("email", json!({})).contains("type=\"email\" name=\"x\""));
        assert!(f("number", json!({})).contains("type=\"number\" name=\"x\""));
        assert!(
            f("currency", json!({"currencySymbol": "€"}))
                .contains("<span class=\"currency-symbol\">€</span><input")
        );
        assert!(
            f("textarea", json!({"maxLength": 9})).contains(
                "<textarea id=\"form-f-x\" name=\"x\" rows=\"5\" maxlength=\"9\" required>"
            )
        );
        assert!(f("date", json!({})).contains("type=\"date\" name=\"x\""));
        assert!(f("time", json!({})).contains("type=\"time\" name=\"x\""));
        let select = f("select", json!({"options": ["A", "B"]}));
        assert!(select.contains("<select id=\"form-f-x\" name=\"x\" required><option value=\"\">Select one</option><option>A</option><option>B</option></select>"), "{select}");
        let radio = f("radio", json!({"options": ["A", "B"]}));
        assert!(
            radio.starts_with(
                "<fieldset class=\"form-item field radio\"><legend>T <span class=\"required\""
            ),
            "{radio}"
        );
        assert_eq!(radio.matches("type=\"radio\" name=\"x\"").count(), 2);
        assert_eq!(
            f("checkbox", json!({"options": ["A", "B", "C"]}))
                .matches("type=\"checkbox\" name=\"x\"")
                .count(),
            3
        );
        assert_eq!(f("name", json!({})).matches("name=\"x\"").count(), 2);
        assert_eq!(f("address", json!({})).matches("name=\"x\"").count(), 6);
        assert_eq!(
            f("phone", json!({}))
                .matches("type=\"tel\" name=\"x\"")
                .count(),
            3
        );
        assert_eq!(
            f("phone", json!({"showCountryCode": true}))
                .matches("name=\"x\"")
                .count(),
            4
        );
        let likert = f("likert", json!({"options": ["Speed", "Care"]}));
        assert_eq!(likert.matches("name=\"x[Speed]\"").count(), 5, "{likert}");
        assert!(likert.contains("value=\"Strongly Agree\""));
        assert_eq!(
            f("hidden", json!({"value": "ad"})),
            "<input type=\"hidden\" name=\"x\" value=\"ad\">"
        );
        let section = f("section", json!({"underline": true}));
        assert!(
            section.contains("<h3 class=\"title\">T</h3><hr>") && !section.contains("name="),
            "{section}"
        );
        assert_eq!(f("nonsense", json!({})), "");
        // No required marker on an optional field.
        assert!(
            !field(
                &json!({"id": "x", "type": "text", "title": "T"}),
                "p",
                false
            )
            .contains("required")
        );
    }

    #[test]
    fn owner_strings_are_escaped() {
        let f = form(
            json!([
                {"id": "q", "type": "select", "title": "<script>alert(1)</script>", "options": ["\"><img src=x onerror=alert(2)>"],
                 "description": "a & b", "placeholder": "\" onfocus=\"x"},
                {"id": "r", "type": "likert", "title": "L", "options": ["Q\"]"]},
                {"id": "h", "type": "hidden", "value": "\"><script>"},
            ]),
            json!({"disclaimer": "<b>fine</b> print", "submitButtonText": "Go <now>"}),
        );
        let html = block(&f, 1);
        for bad in ["<script", "<img", "<b>", "onfocus=\"", "<now>"] {
            assert!(!html.contains(bad), "{bad} in {html}");
        }
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(html.contains("name=\"r[Q&quot;]]\""), "{html}");
        assert!(html.contains("aria-label=\"Repair &lt;request&gt; &amp; co\""));
        assert!(html.contains(">Go &lt;now&gt;</button>"));
        assert!(html.contains("<p class=\"form-disclaimer\">&lt;b&gt;fine&lt;/b&gt; print</p>"));
    }

    #[test]
    fn the_block_posts_like_quillbacks() {
        let f = form(
            json!([{"id": "email", "type": "email", "title": "Email", "required": true}]),
            json!({}),
        );
        let html = block(&f, 1);
        assert!(html.starts_with("<div class=\"sqs-block form-block sqs-block-form\" data-block-type=\"9\" data-form-id=\"f00d\">"));
        assert!(html.contains("<form class=\"contact-form\" method=\"post\" action=\"/api/form/SaveFormSubmission\" data-form-id=\"f00d\""));
        assert!(html.contains("<input type=\"hidden\" name=\"formId\" value=\"f00d\">"));
        assert!(html.contains("<div class=\"form-button-wrapper\"><button class=\"button sqs-system-button\" type=\"submit\">Submit</button></div>"));
        // A second one on the same text has ids of its own.
        assert!(block(&f, 2).contains("id=\"form-f00d-2-email\""));
        let mut news = f.clone();
        news.settings.insert("newsletter".into(), json!(true));
        let html = block(&news, 1);
        assert!(html.contains("<form class=\"newsletter-form\""), "{html}");
        assert!(html.contains(
            "<h2 class=\"newsletter-form-header-title\">Repair &lt;request&gt; &amp; co</h2>"
        ));
        assert!(html.contains("class=\"newsletter-form-field-element\" id=\"form-f00d-email\" type=\"email\" name=\"email\""), "{html}");
        assert!(
            html.contains(
                "<button class=\"newsletter-form-button\" type=\"submit\">Sign up</button>"
            )
        );
    }

    #[test]
    fn placeholders_are_filled_and_unknown_ones_dropped() {
        let f = form(
            json!([{"id": "m", "type": "text", "title": "M"}]),
            json!({}),
        );
        let forms = HashMap::from([("f00d", &f)]);
        let html = format!(
            "<p>a</p>{}<div class=\"x\">b</div>{}<p>c</p>",
            place("f00d"),
            place("gone")
        );
        let out = fill(&html, &forms).unwrap();
        assert!(
            out.starts_with("<p>a</p><div class=\"sqs-block form-block"),
            "{out}"
        );
        assert!(out.contains("name=\"m\""));
        assert!(
            out.ends_with("</form></div></div></div><div class=\"x\">b</div><p>c</p>"),
            "{out}"
        );
        assert!(!out.contains("gone"));
        // Attribute order does not matter; an imported block with its own content is kept.
        let other = "<div data-form-id=\"f00d\" data-block-type=\"9\" class=\"a\"></div>";
        assert!(fill(other, &forms).unwrap().contains("name=\"m\""));
        let imported = "<div class=\"sqs-block form-block\" data-block-type=\"9\" id=\"b\"><form data-form-id=\"f00d\"></form></div>";
        assert_eq!(fill(imported, &forms), None);
        let full = "<div data-block-type=\"9\" data-form-id=\"f00d\"><p>x</p></div>";
        assert_eq!(fill(full, &forms), None);
        assert_eq!(fill("<p>plain</p>", &forms), None);
        // Two of the same form.
        let twice = fill(&format!("{}{}", place("f00d"), place("f00d")), &forms).unwrap();
        assert!(twice.contains("id=\"form-f00d-m\"") && twice.contains("id=\"form-f00d-2-m\""));
    }
}
