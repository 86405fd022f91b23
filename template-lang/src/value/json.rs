//! `JSON.stringify`, as the reference engine's `json`, `json-pretty` and `raw` formatters
//! call it: JavaScript's escaping, number printing and key order.

use super::View;
use super::number::push_number;

/// Appends the JSON text of `value`; `indent` gives pretty printing with that many spaces.
/// Missing values produce nothing (JavaScript returns `undefined`); non-finite numbers
/// print `null`, as in JavaScript.
pub fn stringify(value: View<'_>, indent: Option<usize>, out: &mut String) {
    write_value(value, indent, 0, out);
}

fn write_value(value: View<'_>, indent: Option<usize>, depth: usize, out: &mut String) {
    match value {
        View::Missing => {}
        View::Null => out.push_str("null"),
        View::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        View::Num(n) if n.is_finite() => push_number(n, out),
        View::Num(_) => out.push_str("null"),
        View::Str(s) => quote(s, out),
        View::Arr(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(indent, depth + 1, out);
                write_value(View::of(item), indent, depth + 1, out);
            }
            newline(indent, depth, out);
            out.push(']');
        }
        View::Obj(obj) => {
            if obj.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, v)) in obj.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(indent, depth + 1, out);
                quote(k, out);
                out.push(':');
                if indent.is_some() {
                    out.push(' ');
                }
                write_value(View::of(v), indent, depth + 1, out);
            }
            newline(indent, depth, out);
            out.push('}');
        }
    }
}

fn newline(indent: Option<usize>, depth: usize, out: &mut String) {
    if let Some(width) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', width * depth));
    }
}

/// Appends `s` as a JSON string literal with JavaScript's escapes.
pub fn quote(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: &str = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0x00..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Node;

    fn s(json: &str, indent: Option<usize>) -> String {
        let n = Node::from_json_str(json).unwrap();
        let mut out = String::new();
        stringify(View::of(&n), indent, &mut out);
        out
    }

    #[test]
    fn compact() {
        assert_eq!(
            s(
                r#"{"b":[1,2.50,{"c":null}],"a":"x\"\n\u0001é","2":true,"1":{}}"#,
                None
            ),
            r#"{"1":{},"2":true,"b":[1,2.5,{"c":null}],"a":"x\"\n\u0001é"}"#
        );
    }

    #[test]
    fn pretty() {
        assert_eq!(
            s(r#"{"a":[1,[]],"b":{}}"#, Some(2)),
            "{\n  \"a\": [\n    1,\n    []\n  ],\n  \"b\": {}\n}"
        );
    }

    #[test]
    fn non_finite_numbers_are_null() {
        let mut out = String::new();
        stringify(View::Num(f64::NAN), None, &mut out);
        assert_eq!(out, "null");
    }
}
