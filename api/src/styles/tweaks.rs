//! The LESS variables the platform derives from a folder's tweak declarations
//! (TEMPLATE-PLATFORM.md §1.8, issue 45), with their defaults and the site's values.
//!
//! A declaration is a `// tweak: {…}` comment and what follows it:
//!
//! - a colour or value tweak, the variable on the next line (`@pageWidth: 640px;`): the
//!   folder defines it; the site's value (keyed by the tweak's title, or by the variable's
//!   name) replaces it;
//! - a font tweak, the class on the next line with the font's properties
//!   (`.tweak-h1-font { font-family: …; font-size: 32px; … }`): the platform defines a
//!   variable per property, named after the class, `@tweak-h1-font-font-size: 32px;`. The
//!   site's font (an object of properties, by title or class name) replaces those
//!   variables and the class's properties, so the class used as a mixin gives it too;
//! - dropdown and checkbox tweaks: they give body classes (renderer::folder), no variable.

use renderer::folder::TemplateFiles;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// One `// tweak:` declaration.
#[derive(Debug, PartialEq)]
pub(crate) struct Declaration {
    pub title: String,
    pub kind: String,
    /// The variable a colour or value tweak sets (`pageWidth`), the class of a font tweak
    /// (`tweak-h1-font`).
    pub name: Option<String>,
    /// A font tweak's properties, in order: (`font-size`, `32px`).
    pub font: Vec<(String, String)>,
}

/// The tweak declarations in one stylesheet.
pub(crate) fn declarations(text: &str) -> Vec<Declaration> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(json) = line
            .trim_start()
            .strip_prefix("//")
            .map(str::trim_start)
            .and_then(|l| l.strip_prefix("tweak:"))
        else {
            continue;
        };
        let Some((title, kind)) = title_and_kind(json.trim()) else {
            continue;
        };
        // What the declaration stands for starts on the next line that is not blank.
        let rest = lines[i + 1..]
            .iter()
            .skip_while(|l| l.trim().is_empty())
            .copied()
            .collect::<Vec<_>>();
        let next = rest.first().map_or("", |l| l.trim());
        let mut declaration = Declaration {
            title,
            kind,
            name: None,
            font: Vec::new(),
        };
        match declaration.kind.as_str() {
            "font" => {
                if let Some((class, font)) = font_rule(&rest.join("\n")) {
                    declaration.name = Some(class);
                    declaration.font = font;
                }
            }
            "dropdown" | "checkbox" => {}
            _ => {
                declaration.name = next
                    .strip_prefix('@')
                    .and_then(|l| l.split_once(':'))
                    .map(|(name, _)| name.trim().to_owned())
                    .filter(|n| identifier(n));
            }
        }
        out.push(declaration);
    }
    out
}

/// A tweak as the owner app's style panel shows it: its declaration's JSON (`category`,
/// `min`, `max`, `step`, `units`, `options` …) and the folder's default.
#[derive(Clone, Debug, PartialEq)]
pub struct Declared {
    pub title: String,
    /// `color`, `value`, `font`, `dropdown`, `checkbox` (`value` when it says none).
    pub kind: String,
    /// The declaration's whole JSON object.
    pub json: Map<String, Value>,
    /// The variable (colour, value) or the class (font) it stands for.
    pub name: Option<String>,
    /// The default: the declaration's `default`, else the folder's own value (the
    /// variable's, `58rem`; a font's properties as an object; `true`/`false` for a
    /// checkbox); `None` when the folder gives none.
    pub default: Option<Value>,
}

/// Every tweak the folder's stylesheets declare, the `stylesheets` of template.conf first in
/// their order, then the other files under `styles/` (their imports) by path; a title
/// declared twice counts once, as first declared.
pub fn declared(files: &TemplateFiles, stylesheets: &[String]) -> Vec<Declared> {
    let mut paths: Vec<String> = stylesheets
        .iter()
        .map(|n| format!("styles/{n}"))
        .filter(|p| files.contains_key(p))
        .collect();
    for (p, _) in files.iter() {
        if p.starts_with("styles/") && !paths.contains(p) {
            paths.push(p.clone());
        }
    }
    let mut out: Vec<Declared> = Vec::new();
    for path in paths {
        let Some(bytes) = files.get(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(json) = line
                .trim_start()
                .strip_prefix("//")
                .map(str::trim_start)
                .and_then(|l| l.strip_prefix("tweak:"))
            else {
                continue;
            };
            let Ok(Value::Object(json)) = serde_json::from_str::<Value>(json.trim()) else {
                continue;
            };
            let Some(title) = json.get("title").and_then(Value::as_str).map(str::to_owned) else {
                continue;
            };
            if out.iter().any(|d| d.title == title) {
                continue;
            }
            let kind = json
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("value")
                .to_owned();
            let rest: Vec<&str> = lines[i + 1..]
                .iter()
                .skip_while(|l| l.trim().is_empty())
                .copied()
                .collect();
            let next = rest.first().map_or("", |l| l.trim());
            // `@name: value;` on the next line: the variable and the folder's value.
            let variable = next
                .strip_prefix('@')
                .and_then(|l| l.split_once(':'))
                .map(|(n, v)| (n.trim().to_owned(), v))
                .filter(|(n, _)| identifier(n))
                .map(|(n, v)| {
                    let v = v.split("//").next().unwrap_or("");
                    let v = v.split(';').next().unwrap_or("").trim().to_owned();
                    (n, v)
                });
            let (name, own) = match kind.as_str() {
                "font" => match font_rule(&rest.join("\n")) {
                    Some((class, font)) => {
                        let props: Map<String, Value> = font
                            .into_iter()
                            .map(|(p, v)| (p, Value::String(v)))
                            .collect();
                        (Some(class), Some(Value::Object(props)))
                    }
                    None => (None, None),
                },
                "dropdown" => (
                    None,
                    variable
                        .filter(|(n, _)| *n == title)
                        .map(|(_, v)| Value::String(v.trim_matches(['"', '\'']).to_owned())),
                ),
                "checkbox" => (
                    None,
                    variable
                        .filter(|(n, _)| *n == title)
                        .and_then(|(_, v)| match v.as_str() {
                            "true" => Some(Value::Bool(true)),
                            "false" => Some(Value::Bool(false)),
                            _ => None,
                        }),
                ),
                _ => match variable {
                    Some((n, v)) if !v.is_empty() => (Some(n), Some(Value::String(v))),
                    Some((n, _)) => (Some(n), None),
                    None => (None, None),
                },
            };
            let default = json.get("default").cloned().or(own);
            out.push(Declared {
                title,
                kind,
                json,
                name,
                default,
            });
        }
    }
    out
}

/// The title and type of a `tweak:` comment's JSON (`value` when it says none).
fn title_and_kind(json: &str) -> Option<(String, String)> {
    let v: Value = serde_json::from_str(json).ok()?;
    let title = v.get("title")?.as_str()?.to_owned();
    let kind = v
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("value")
        .to_owned();
    Some((title, kind))
}

/// `.class { property: value; … }` at the start of `text`: the class and its properties.
fn font_rule(text: &str) -> Option<(String, Vec<(String, String)>)> {
    let text = text.trim_start().strip_prefix('.')?;
    let open = text.find('{')?;
    let class = text[..open].trim();
    if !identifier(class) {
        return None;
    }
    let body = &text[open + 1..];
    let body = &body[..body.find('}')?];
    let font = body
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .flat_map(|l| l.split(';'))
        .filter_map(|d| d.split_once(':'))
        .map(|(p, v)| (p.trim().to_owned(), v.trim().to_owned()))
        .filter(|(p, v)| identifier(p) && safe(v))
        .collect();
    Some((class.to_owned(), font))
}

/// A LESS name: letters, digits, `-` and `_`.
fn identifier(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A value that cannot end a declaration or a block, nor leave a string or a parenthesis
/// open (which would swallow what follows it).
pub(super) fn safe(value: &str) -> bool {
    let count = |c: char| value.matches(c).count();
    !value.trim().is_empty()
        && !value.contains([';', '{', '}', '\n', '\r', '\\'])
        && count('"') % 2 == 0
        && count('\'') % 2 == 0
        && count('(') == count(')')
}

/// A site's value as text (`12` for a number).
fn text(value: &Value) -> Option<String> {
    let v = match value {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    safe(&v).then_some(v)
}

/// `fontSize` → `font-size` (the site's font may be written either way).
pub(super) fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The variables the folder defines itself (`@name:` anywhere in its styles/).
fn defined(files: &TemplateFiles) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (_, bytes) in files.iter().filter(|(p, _)| p.starts_with("styles/")) {
        let text = String::from_utf8_lossy(bytes);
        for part in text.split('@').skip(1) {
            let end = part
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
                .unwrap_or(part.len());
            if part[end..].trim_start().starts_with(':') && end > 0 {
                names.insert(part[..end].to_owned());
            }
        }
    }
    names
}

/// What the compiler puts after the folder's stylesheets: the font tweaks' variables (their
/// defaults, unless the folder defines one itself), then the site's values — by tweak
/// title or variable name for declared tweaks, and any other `@name` as it is named
/// ([`super::tweak_overrides`]). Later definitions win in LESS, so these are what the
/// stylesheets see.
pub(crate) fn tail(files: &TemplateFiles, settings: &Map<String, Value>) -> String {
    let declarations: Vec<Declaration> = files
        .iter()
        .filter(|(p, _)| p.starts_with("styles/"))
        .flat_map(|(_, b)| declarations(&String::from_utf8_lossy(b)))
        .collect();
    let own = defined(files);
    let mut out = String::new();
    for d in declarations.iter().filter(|d| d.kind == "font") {
        let Some(class) = &d.name else { continue };
        for (property, value) in &d.font {
            let name = format!("{class}-{property}");
            if !own.contains(&name) {
                out.push_str(&format!("@{name}: {value};\n"));
            }
        }
    }
    let empty = Map::new();
    let tweaks = settings
        .get("tweaks")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut others = Map::new();
    for (key, value) in tweaks {
        let bare = key.trim_start_matches('@');
        let declared = declarations
            .iter()
            .find(|d| d.title == *key || d.name.as_deref() == Some(bare));
        match declared {
            Some(Declaration {
                kind,
                name: Some(class),
                ..
            }) if kind == "font" => {
                let Some(font) = value.as_object() else {
                    continue;
                };
                let font: Vec<(String, String)> = font
                    .iter()
                    .filter_map(|(p, v)| Some((kebab(p), text(v)?)))
                    .filter(|(p, _)| identifier(p))
                    .collect();
                if font.is_empty() {
                    continue;
                }
                let mut rule = format!(".{class} {{");
                for (property, value) in &font {
                    out.push_str(&format!("@{class}-{property}: {value};\n"));
                    rule.push_str(&format!(" {property}: {value};"));
                }
                out.push_str(&rule);
                out.push_str(" }\n");
            }
            Some(Declaration {
                name: Some(name), ..
            }) => {
                if let Some(value) = text(value) {
                    out.push_str(&format!("@{name}: {value};\n"));
                }
            }
            // A dropdown or a checkbox: a body class, no variable.
            Some(_) => {}
            None => {
                others.insert(key.clone(), value.clone());
            }
        }
    }
    let mut rest = Map::new();
    rest.insert("tweaks".into(), Value::Object(others));
    out.push_str(&super::tweak_overrides(&rest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TWEAKS: &str = "\
// tweak: { \"type\" : \"value\", \"title\" : \"Site Max Width\", \"min\" : 320 }
@pageWidth: 640px;

// tweak: {\"title\": \"tweak-heading-font\", \"type\": \"font\", \"target\": \"h1\"}
.tweak-heading-font {
  font-family: \"Georgia\", serif;
  font-size: 32px; // the biggest
  letter-spacing: 0.02em;
}
// tweak: { \"title\" : \"Body Font\", \"type\" : \"font\" }
.body-font { font-size: 16px; line-height: 1.5em; }
// tweak: { \"title\": \"tweak-layout\", \"type\": \"dropdown\", \"options\": [\"A\", \"B\"] }
// tweak: { \"title\": \"tweak-dark\", \"type\": \"checkbox\" }
";

    fn folder(files: &[(&str, &str)]) -> TemplateFiles {
        renderer::folder::template_files(files.iter().copied())
    }

    #[test]
    fn declarations_name_their_variables() {
        let found = declarations(TWEAKS);
        let names: Vec<(&str, &str, Option<&str>)> = found
            .iter()
            .map(|d| (d.title.as_str(), d.kind.as_str(), d.name.as_deref()))
            .collect();
        assert_eq!(
            names,
            [
                ("Site Max Width", "value", Some("pageWidth")),
                ("tweak-heading-font", "font", Some("tweak-heading-font")),
                ("Body Font", "font", Some("body-font")),
                ("tweak-layout", "dropdown", None),
                ("tweak-dark", "checkbox", None),
            ]
        );
        assert_eq!(
            found[1].font,
            [
                ("font-family".into(), "\"Georgia\", serif".into()),
                ("font-size".into(), "32px".into()),
                ("letter-spacing".into(), "0.02em".into()),
            ]
        );
    }

    #[test]
    fn declared_tweaks_have_their_defaults_in_stylesheet_order() {
        let files = folder(&[
            (
                "styles/a.less",
                "// tweak: {\"title\": \"tweak-accent\", \"type\": \"color\", \"category\": \"Colours\"}\n@tweak-accent: #c24a1a; // warm\n",
            ),
            ("styles/tweak.less", TWEAKS),
            (
                "styles/z.less",
                "// tweak: {\"title\": \"tweak-flag\", \"type\": \"checkbox\"}\n@tweak-flag: false;\n// tweak: {\"title\": \"tweak-layout\", \"type\": \"dropdown\"}\n",
            ),
        ]);
        let found = declared(&files, &["tweak.less".into(), "a.less".into()]);
        let got: Vec<(&str, &str, Option<&Value>)> = found
            .iter()
            .map(|d| (d.title.as_str(), d.kind.as_str(), d.default.as_ref()))
            .collect();
        let width = json!("640px");
        let heading = json!({"font-family": "\"Georgia\", serif", "font-size": "32px", "letter-spacing": "0.02em"});
        let body = json!({"font-size": "16px", "line-height": "1.5em"});
        let accent = json!("#c24a1a");
        assert_eq!(
            got,
            [
                ("Site Max Width", "value", Some(&width)),
                ("tweak-heading-font", "font", Some(&heading)),
                ("Body Font", "font", Some(&body)),
                ("tweak-layout", "dropdown", None),
                ("tweak-dark", "checkbox", None),
                ("tweak-accent", "color", Some(&accent)),
                // Another file's: after the stylesheets; a title declared again is skipped.
                ("tweak-flag", "checkbox", Some(&Value::Bool(false))),
            ]
        );
        assert_eq!(found[5].json["category"], "Colours");
        assert_eq!(found[0].json["min"], 320);
    }

    #[test]
    fn font_tweaks_give_a_variable_per_property_and_the_site_values_win() {
        let files = folder(&[
            ("styles/tweak.less", TWEAKS),
            // The folder's own definition of a derived name is its own.
            ("styles/site.less", "@body-font-line-height: 2;"),
        ]);
        let defaults = tail(&files, &Map::new());
        assert_eq!(
            defaults,
            "@tweak-heading-font-font-family: \"Georgia\", serif;\n\
             @tweak-heading-font-font-size: 32px;\n\
             @tweak-heading-font-letter-spacing: 0.02em;\n\
             @body-font-font-size: 16px;\n"
        );
        let site = json!({"tweaks": {
            "Site Max Width": "960px",
            "body-font": {"fontSize": "18px", "font-weight": 700, "bad": "1; } x {",
                          "font-family": "\"Open", "x": "url(a"},
            "tweak-heading-font": "not a font",
            "tweak-layout": "B",
            "tweak-other": "3px",
        }});
        let all = tail(&files, site.as_object().unwrap());
        assert!(
            all.ends_with(
                "@body-font-font-size: 16px;\n\
                 @pageWidth: 960px;\n\
                 @body-font-font-size: 18px;\n\
                 @body-font-font-weight: 700;\n\
                 .body-font { font-size: 18px; font-weight: 700; }\n\
                 @tweak-other: 3px;\n"
            ),
            "{all}"
        );
    }
}
