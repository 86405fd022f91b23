//! Table tests for the date formatters. The expected strings come from running the
//! reference engine (see `tests_data_gen.py`); cases where ICU4X's CLDR 49 differs from the
//! reference's CLDR are left out of the tables and listed in the issue notes.

use super::{nested_datetime, nested_interval};
use crate::value::{Node, View};
use crate::{Env, Registry, Template, execute};

#[rustfmt::skip]
#[path = "tests_data.rs"]
mod data;

fn render(template: &str, json: &str, locale: &str, now: f64) -> String {
    let compiled = Template::compile(template, Registry::standard());
    assert!(
        compiled.errors.is_empty(),
        "{template}: {:?}",
        compiled.errors
    );
    let env = Env {
        locale: if locale == "none" {
            None
        } else {
            Some(locale.parse().expect("test locale"))
        },
        now_ms: Some(now),
        ..Env::default()
    };
    let data = Node::from_json_str(json).expect("test data");
    let mut out = String::new();
    execute(&compiled.template, &data, &env, &mut out);
    out
}

fn check_family(family: &str) {
    let mut failures = Vec::new();
    let mut count = 0;
    for &(fam, locale, now, template, data_index, expected) in data::TEMPLATES {
        if fam != family {
            continue;
        }
        let json = data::DATA[data_index];
        count += 1;
        let got = render(template, json, locale, now);
        if got != expected {
            failures.push(format!(
                "[{locale}] {template}\n  expected {expected:?}\n       got {got:?}"
            ));
        }
    }
    assert!(count > 0, "no cases for {family}");
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn datetime_matches_reference() {
    check_family("datetime");
}

#[test]
fn interval_matches_reference() {
    check_family("interval");
}

#[test]
fn relative_time_matches_reference() {
    check_family("relative");
}

#[test]
fn timesince_matches_reference() {
    check_family("timesince");
}

#[test]
fn nested_formatters_match_reference() {
    let mut failures = Vec::new();
    for &(kind, locale, zone, args, options, expected) in data::NESTED {
        let locale: icu_locale::Locale = locale.parse().unwrap();
        let args: serde_json::Value = serde_json::from_str(args).unwrap();
        let nodes: Vec<Option<Node>> = args
            .as_array()
            .unwrap()
            .iter()
            .map(|v| (!v.is_null()).then(|| Node::from_json(v)))
            .collect();
        // A JSON null stands for an argument that resolved to missing.
        let views: Vec<Option<View<'_>>> = nodes
            .iter()
            .map(|n| Some(n.as_ref().map_or(View::Missing, View::of)))
            .collect();
        let mut out = String::new();
        if kind == "datetime" {
            nested_datetime(&views, options, zone, &locale, &mut out);
        } else {
            nested_interval(&views, options, zone, &locale, &mut out);
        }
        if out != expected {
            failures.push(format!(
                "{kind} [{locale}] {zone} {args} {options:?}\n  expected {expected:?}\n       got {out:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn nested_without_arguments_prints_nothing() {
    let locale: icu_locale::Locale = "en".parse().unwrap();
    let mut out = String::new();
    nested_datetime(&[], &["full"], "America/New_York", &locale, &mut out);
    nested_datetime(&[None], &["full"], "America/New_York", &locale, &mut out);
    nested_interval(
        &[Some(View::Num(0.0))],
        &[],
        "America/New_York",
        &locale,
        &mut out,
    );
    nested_interval(
        &[Some(View::Num(0.0)), None],
        &[],
        "America/New_York",
        &locale,
        &mut out,
    );
    assert_eq!(out, "");
    nested_datetime(
        &[Some(View::Num(0.0))],
        &["date:short"],
        "UTC",
        &locale,
        &mut out,
    );
    assert_eq!(out, "1/1/70");
}

/// Without locale data (`--locale none`) the formatters print nothing, except `timesince`,
/// which the reference answers with "Invalid date." whenever it has no CLDR instance.
#[test]
fn no_locale_prints_nothing() {
    let json = r#"{"t": 1582571080000, "e": 1582671080000}"#;
    let template = "[{t|datetime}][{t,e|datetime-interval}][{t|relative-time}][{t|timesince}]";
    assert_eq!(
        render(template, json, "none", 1735732800000.0),
        "[][][][Invalid date.]"
    );
}
