//! `{.eval}`, `date` and the message formatters, used from templates. Each expectation was
//! produced by the reference engine (npm @squarespace/template-engine) for the same input.

use crate::common::{render, run};

/// `{.eval}` inside templates: variables bound in the current scope, discarded when the expression fails, debug output.
#[test]
fn eval_in_templates() {
    for (template, data, expected) in [
        (r#"{.eval @a = 2; @b = @a * 3}{@a},{@b}"#, r#"{}"#, r#"2,6"#),
        (
            r#"{.repeated section items}{.eval @n = @index * 10 + x}{@n};{.end}"#,
            r#"{"items": [{"x": 1}, {"x": 2}]}"#,
            r#"11;22;"#,
        ),
        (
            r#"{.eval @x = 1; o + 1}[{@x}]"#,
            r#"{"o": {"k": 1}}"#,
            r#"[]"#,
        ),
        (
            r#"{.eval #1 + 2 * 3}"#,
            r#"{}"#,
            r#"EVAL=[[1 2 3 <multiply> <add>]] -> 7"#,
        ),
        (r#"{.eval #(1}"#, r#"{}"#, r#"EVAL=[]"#),
        (
            r#"{.eval 'a' + 1 + 2}|{.eval 1 + 2 + 'a'}|{.eval 10 / 4}|{.eval 7 % -3}|{.eval 2 ** 10}|{.eval 1 / 0}"#,
            r#"{}"#,
            r#"a12|3a|2.5|1|1024|Infinity"#,
        ),
        (
            r#"{.section s}{.eval @v = title}{.end}[{@v}]"#,
            r#"{"s": {"title": "T"}}"#,
            r#"[]"#,
        ),
        (
            r#"{.eval @v = 1}{.section s}{@v}{.eval @v = 2}{@v}{.end}{@v}"#,
            r#"{"s": {"title": "T"}}"#,
            r#"121"#,
        ),
        (
            r#"{.eval max(1, 5, 3)}{.eval min()}{.eval abs(-2)}{.eval str(1.5) + num('4')}"#,
            r#"{}"#,
            r#"521.54"#,
        ),
    ] {
        assert_eq!(render(template, data), expected, "{template} with {data}");
    }
}

/// The legacy `date` formatter in the website time zone (default America/New_York; unknown zones print UTC).
#[test]
fn date_in_templates() {
    for (template, data, expected) in [
        (
            r#"{t|date %Y-%m-%d %H:%M %Z}|{t|date %c}|{t|date}"#,
            r#"{"t": 1700000000000, "website": {"timeZone": "Europe/Berlin"}}"#,
            r#"2023-11-14 23:13 CET|Tue, Nov 14, 2023 11:13:20 PM CET|"#,
        ),
        (
            r#"{t|date %A %B %e %l:%M %p}"#,
            r#"{"t": 1720000000000}"#,
            r#"Wednesday July  3  5:46 AM"#,
        ),
        (
            r#"{t|date %F %T %z}"#,
            r#"{"t": 1720000000000, "website": {"timeZone": "Nowhere/Else"}}"#,
            r#"2024-07-03 09:46:40 +00:00"#,
        ),
    ] {
        assert_eq!(render(template, data), expected, "{template} with {data}");
    }
}

/// `message` and `plural` with keyword and positional arguments, plural, select and selectordinal.
#[test]
fn message_in_templates() {
    for (template, data, expected) in [
        (
            r#"{m|message name:who n:count}"#,
            r#"{"m": "{name} has {n plural one{# item} other{# items}}", "who": "Ann", "count": 1}"#,
            r#"Ann has 1 item"#,
        ),
        (
            r#"{m|message name:who n:count}"#,
            r#"{"m": "{name} has {n plural one{# item} other{# items}}", "who": "Bo", "count": 12}"#,
            r#"Bo has 12 items"#,
        ),
        (
            r#"{m|plural n}"#,
            r#"{"m": "{0 select male{he} female{she} other{they}} / {0 plural =0{none} other{#}}", "n": 0}"#,
            r#"they / none"#,
        ),
        (
            r#"{.repeated section items}{m|plural @index}{.alternates with}, {.end}"#,
            r#"{"m": "{0 selectordinal one{#st} two{#nd} few{#rd} other{#th}}", "items": [1, 2, 3, 4, 11, 12, 13, 21, 22, 23]}"#,
            r#"1st, 2nd, 3rd, 4th, 5th, 6th, 7th, 8th, 9th, 10th"#,
        ),
    ] {
        assert_eq!(render(template, data), expected, "{template} with {data}");
    }
}

/// A failing expression reports the reference's message and leaves no trace.
#[test]
fn eval_errors_are_reported() {
    let r = run("{.eval @x = 1; o + 1}[{@x}]", r#"{"o":{"k":1}}"#);
    assert_eq!(r.out, "[]");
    assert_eq!(
        r.runtime,
        [
            "RuntimeError: Error reducing expression: @x = 1; o + 1: Invalid arguments to operator add"
        ]
    );
    let r = run(
        "{.eval 'abc}{.eval 1e}{.eval 1..2}{.eval '\\xZZ'}{.eval '\\uZZ'}{.eval (1}",
        "{}",
    );
    assert_eq!(
        r.runtime,
        [
            r#"RuntimeError: Error parsing expression: "'abc": Unterminated string"#,
            r#"RuntimeError: Error parsing expression: "1e": Expected a digit after exponent in decimal number"#,
            r#"RuntimeError: Error parsing expression: "1..2": Duplicate decimal point in number"#,
            r#"RuntimeError: Error parsing expression: "'\\xZZ'": Invalid 2-char hex escape found"#,
            r#"RuntimeError: Error parsing expression: "'\\uZZ'": Invalid unicode escape found"#,
            r#"RuntimeError: Error parsing expression: "(1": Mismatched operator found: left paren"#,
        ]
    );
}

/// `date` as a tag's last formatter prints straight into the output; before another
/// formatter it makes a value. Both print the same, and an invalid date prints nothing
/// and is reported the same way.
#[test]
fn date_prints_alike_last_or_not() {
    for data in [
        r#"{"t": 1700000000000}"#,
        r#"{"t": "1700000000000", "website": {"timeZone": "Asia/Tokyo"}}"#,
        r#"{"t": "soon"}"#,
        r#"{}"#,
    ] {
        let last = run("[{t|date %F %T %Z}]", data);
        let inner = run("[{t|date %F %T %Z|html}]", data);
        assert_eq!(last.out, inner.out, "{data}");
        assert_eq!(last.runtime, inner.runtime, "{data}");
    }
    let r = run("[{t|date %F}]", r#"{"t": "soon"}"#);
    assert_eq!(r.out, "[]");
    assert_eq!(r.runtime.len(), 1, "{:?}", r.runtime);
    assert_eq!(
        run("[{t|date %F}]", r#"{"t": 1700000000000}"#).out,
        "[2023-11-14]"
    );
}
