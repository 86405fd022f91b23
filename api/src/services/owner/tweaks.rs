//! A style setting's value (a tweak of the template's stylesheets, TEMPLATE-PLATFORM.md
//! §1.8) checked by its kind before it is stored or compiled into a stylesheet: colours
//! with SPEC.md §5's bounds and messages, numbers within the declaration's `min`/`max` in
//! its `units`, a dropdown's options, a checkbox's on or off, a font's CSS properties, and
//! any text made safe to give the stylesheet ([`crate::styles::safe_value`]). The design
//! routes ([`crate::routes::owner::design`]) name the fields; this module says why.

use serde_json::{Map, Value};

use crate::styles::Declared;

pub const BAD_COLOUR: &str = "Please enter a colour as #rgb, #rrggbb, rgb(…) or hsl(…).";
/// SPEC.md §5, Colours.
pub const HUE: &str = "Hue out of bounds.";
pub const SATURATION: &str = "Saturation out of bounds.";
pub const LIGHTNESS: &str = "Lightness out of bounds.";
pub const ALPHA: &str = "Alpha out of bounds.";
pub const MISSING_HSL: &str = "Missing an H/S/L value.";
pub const NOT_AN_OPTION: &str = "Please choose one of the template's options.";
pub const NOT_ON_OFF: &str = "A checkbox is on (true) or off (false).";
pub const BAD_TEXT: &str = "A value is at most 200 characters, without ; { } \\ or line breaks, and closes every quote and bracket it opens.";
pub const NOT_A_FONT: &str = "A font is an object of CSS font properties.";
pub const BAD_FONT_PROPERTY: &str = "Fonts take font-family, font-size, font-weight, font-style, line-height, letter-spacing and text-transform.";

/// The font properties a font tweak may set.
const FONT_PROPERTIES: [&str; 7] = [
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "line-height",
    "letter-spacing",
    "text-transform",
];

/// The longest value of a tweak (a font family list included).
const MAX_VALUE: usize = 200;

/// The kind a declaration is checked as: `value` unless it names another one.
pub fn kind_of(d: &Declared) -> &str {
    match d.kind.as_str() {
        k @ ("color" | "font" | "dropdown" | "checkbox") => k,
        _ => "value",
    }
}

/// A number that may have a unit: (`62`, `rem`).
fn split_number(text: &str) -> Option<(f64, &str)> {
    let text = text.trim();
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(text.len());
    let n: f64 = text[..end].parse().ok()?;
    n.is_finite().then_some((n, text[end..].trim()))
}

/// A fraction written `0.5` or `50%`.
fn fraction(text: &str) -> Option<f64> {
    let text = text.trim();
    match text.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok().map(|p| p / 100.0),
        None => text.parse::<f64>().ok(),
    }
    .filter(|n| n.is_finite())
}

/// A colour: `#` and 3 to 6 hex digits, `rgb(a)(…)` or `hsl(a)(…)` (SPEC.md §5's bounds and
/// messages for HSL: hue 0-360, saturation, lightness and alpha 0-1, written as a fraction
/// or a percentage).
pub fn check_colour(text: &str) -> Result<String, &'static str> {
    let text = text.trim();
    if let Some(hex) = text.strip_prefix('#') {
        return if (3..=6).contains(&hex.len()) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
            Ok(format!("#{}", hex.to_ascii_lowercase()))
        } else {
            Err(BAD_COLOUR)
        };
    }
    let lower = text.to_ascii_lowercase();
    let inner = |name: &str| {
        lower
            .strip_prefix(name)
            .and_then(|r| r.trim_start().strip_prefix('('))
            .and_then(|r| r.strip_suffix(')'))
            .map(|r| {
                r.split([',', '/', ' '])
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
    };
    if let Some(parts) = inner("hsla").or_else(|| inner("hsl")) {
        if parts.len() < 3 {
            return Err(MISSING_HSL);
        }
        if parts.len() > 4 {
            return Err(BAD_COLOUR);
        }
        let hue = parts[0].trim_end_matches("deg").parse::<f64>().ok();
        let hue = hue.filter(|h| (0.0..=360.0).contains(h)).ok_or(HUE)?;
        let within = |p: &str, why| fraction(p).filter(|f| (0.0..=1.0).contains(f)).ok_or(why);
        let s = within(&parts[1], SATURATION)?;
        let l = within(&parts[2], LIGHTNESS)?;
        let pct = |f: f64| format!("{}%", (f * 10_000.0).round() / 100.0);
        return match parts.get(3) {
            Some(a) => {
                let a = within(a, ALPHA)?;
                Ok(format!("hsla({hue}, {}, {}, {a})", pct(s), pct(l)))
            }
            None => Ok(format!("hsl({hue}, {}, {})", pct(s), pct(l))),
        };
    }
    if let Some(parts) = inner("rgba").or_else(|| inner("rgb")) {
        let channels_ok = (3..=4).contains(&parts.len())
            && parts[..3].iter().all(|p| match p.strip_suffix('%') {
                Some(p) => p.parse::<f64>().is_ok_and(|n| (0.0..=100.0).contains(&n)),
                None => p.parse::<f64>().is_ok_and(|n| (0.0..=255.0).contains(&n)),
            })
            && parts
                .get(3)
                .is_none_or(|a| fraction(a).is_some_and(|a| (0.0..=1.0).contains(&a)));
        return if channels_ok {
            Ok(lower.replace(' ', ""))
        } else {
            Err(BAD_COLOUR)
        };
    }
    Err(BAD_COLOUR)
}

/// A value safe to give the stylesheet, at most [`MAX_VALUE`] characters.
fn check_text(v: &Value) -> Result<String, String> {
    let text = match v {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => return Err(BAD_TEXT.into()),
    };
    if text.chars().count() > MAX_VALUE || !crate::styles::safe_value(&text) {
        return Err(BAD_TEXT.into());
    }
    Ok(text)
}

/// A `value` tweak: within its `min`/`max`, in its `units` (a bare number gets them).
fn check_measure(d: &Declared, v: &Value) -> Result<String, String> {
    let text = check_text(v)?;
    let units = d.json.get("units").and_then(Value::as_str).unwrap_or("");
    let (min, max) = (
        d.json.get("min").and_then(Value::as_f64),
        d.json.get("max").and_then(Value::as_f64),
    );
    if units.is_empty() && min.is_none() && max.is_none() {
        return Ok(text);
    }
    let range = match (min, max) {
        (Some(lo), Some(hi)) => format!(" from {lo} to {hi}"),
        (Some(lo), None) => format!(" of at least {lo}"),
        (None, Some(hi)) => format!(" of at most {hi}"),
        (None, None) => String::new(),
    };
    let unit_text = if units.is_empty() {
        String::new()
    } else {
        format!(" ({units})")
    };
    let why = format!("Please enter a number{range}{unit_text}.");
    let Some((n, unit)) = split_number(&text) else {
        return Err(why);
    };
    if !units.is_empty() && !unit.is_empty() && unit != units {
        return Err(why);
    }
    if min.is_some_and(|lo| n < lo) || max.is_some_and(|hi| n > hi) {
        return Err(why);
    }
    let unit = if unit.is_empty() { units } else { unit };
    Ok(format!("{n}{unit}"))
}

/// A tweak's value checked by its kind: the value to store, or (the field under
/// `values.<title>`, why).
pub fn check_value(d: &Declared, v: &Value) -> Result<Value, (String, String)> {
    let here = |why: String| (String::new(), why);
    match kind_of(d) {
        "color" => match v {
            Value::String(s) => check_colour(s)
                .map(Value::String)
                .map_err(|w| here(w.into())),
            _ => Err(here(BAD_COLOUR.into())),
        },
        "checkbox" => match v {
            Value::Bool(b) => Ok(Value::Bool(*b)),
            Value::String(s) if s == "true" || s == "false" => Ok(Value::Bool(s == "true")),
            _ => Err(here(NOT_ON_OFF.into())),
        },
        "dropdown" => {
            let options: Vec<&str> = d
                .json
                .get("options")
                .and_then(Value::as_array)
                .map(|o| o.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match v.as_str() {
                Some(choice) if options.contains(&choice) => Ok(Value::String(choice.to_owned())),
                _ => Err(here(NOT_AN_OPTION.into())),
            }
        }
        "font" => {
            let Value::Object(font) = v else {
                return Err(here(NOT_A_FONT.into()));
            };
            let mut out = Map::new();
            for (property, value) in font {
                let kebab = crate::styles::kebab_case(property);
                if !FONT_PROPERTIES.contains(&kebab.as_str()) {
                    return Err((format!(".{property}"), BAD_FONT_PROPERTY.into()));
                }
                if value.is_null() {
                    continue;
                }
                let text = check_text(value).map_err(|w| (format!(".{property}"), w))?;
                out.insert(kebab, Value::String(text));
            }
            Ok(Value::Object(out))
        }
        _ => check_measure(d, v).map(Value::String).map_err(here),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn colours_are_checked_as_spec_says() {
        assert_eq!(check_colour("#ABC"), Ok("#abc".into()));
        assert_eq!(check_colour("#1d2a30"), Ok("#1d2a30".into()));
        assert_eq!(check_colour("#1d2a3"), Ok("#1d2a3".into()));
        assert_eq!(check_colour("#12"), Err(BAD_COLOUR));
        assert_eq!(check_colour("#1234567"), Err(BAD_COLOUR));
        assert_eq!(check_colour("#12345g"), Err(BAD_COLOUR));
        assert_eq!(check_colour("red; }"), Err(BAD_COLOUR));
        assert_eq!(
            check_colour("hsl(200, 0.5, 40%)"),
            Ok("hsl(200, 50%, 40%)".into())
        );
        assert_eq!(check_colour("hsl(361, 0.5, 0.4)"), Err(HUE));
        assert_eq!(check_colour("hsl(200, 1.5, 0.4)"), Err(SATURATION));
        assert_eq!(check_colour("hsl(200, 0.5, 140%)"), Err(LIGHTNESS));
        assert_eq!(check_colour("hsla(200, 0.5, 0.4, 2)"), Err(ALPHA));
        assert_eq!(check_colour("hsl(200, 0.5)"), Err(MISSING_HSL));
        assert_eq!(check_colour("rgb(10, 20, 30)"), Ok("rgb(10,20,30)".into()));
        assert_eq!(check_colour("rgb(10, 20, 300)"), Err(BAD_COLOUR));
    }

    fn declared(kind: &str, extra: Value) -> Declared {
        let mut json = json!({"title": "t", "type": kind});
        json.as_object_mut()
            .unwrap()
            .extend(extra.as_object().cloned().unwrap_or_default());
        Declared {
            title: "t".into(),
            kind: kind.into(),
            json: json.as_object().cloned().unwrap(),
            name: Some("t".into()),
            default: None,
        }
    }

    #[test]
    fn values_are_checked_by_kind() {
        let width = declared("value", json!({"min": 40, "max": 80, "units": "rem"}));
        assert_eq!(check_value(&width, &json!("62rem")), Ok(json!("62rem")));
        assert_eq!(check_value(&width, &json!(70)), Ok(json!("70rem")));
        let why = "Please enter a number from 40 to 80 (rem).".to_owned();
        assert_eq!(
            check_value(&width, &json!("90rem")),
            Err((String::new(), why.clone()))
        );
        assert_eq!(
            check_value(&width, &json!("60px")),
            Err((String::new(), why.clone()))
        );
        assert_eq!(
            check_value(&width, &json!("wide")),
            Err((String::new(), why))
        );
        let free = declared("value", json!({}));
        assert_eq!(
            check_value(&free, &json!("1px solid")),
            Ok(json!("1px solid"))
        );
        assert_eq!(
            check_value(&free, &json!("1px; } body {")),
            Err((String::new(), BAD_TEXT.into()))
        );
        let choice = declared("dropdown", json!({"options": ["A", "B"]}));
        assert_eq!(check_value(&choice, &json!("B")), Ok(json!("B")));
        assert_eq!(
            check_value(&choice, &json!("C")),
            Err((String::new(), NOT_AN_OPTION.into()))
        );
        let on = declared("checkbox", json!({}));
        assert_eq!(check_value(&on, &json!(false)), Ok(json!(false)));
        assert_eq!(
            check_value(&on, &json!("yes")),
            Err((String::new(), NOT_ON_OFF.into()))
        );
        let font = declared("font", json!({}));
        assert_eq!(
            check_value(
                &font,
                &json!({"fontSize": "18px", "font-family": "Inter, sans-serif"})
            ),
            Ok(json!({"font-size": "18px", "font-family": "Inter, sans-serif"}))
        );
        assert_eq!(
            check_value(&font, &json!({"color": "red"})),
            Err((".color".into(), BAD_FONT_PROPERTY.into()))
        );
    }
}
