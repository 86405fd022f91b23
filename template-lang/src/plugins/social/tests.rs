//! Table tests of the social formatters and predicates. Every expected output in
//! `tests_data.rs` was produced by running the reference engine on the same template and
//! data (`tests_data_gen.py` regenerates the table), beyond what the conformance corpus
//! covers: every comment state, Disqus and liking settings, calendar links around
//! daylight-saving changes and at calendar limits, Twitter text edge cases, share
//! buttons with and without options.

use super::tests_data::CASES;
use crate::compile::Template;
use crate::plugins::content::tests::check;

#[test]
fn reference_cases() {
    check(CASES);
}

#[test]
fn builtin_templates_compile() {
    for source in [
        include_str!("comment-link.html"),
        include_str!("comments.html"),
        include_str!("like-button.html"),
    ] {
        assert!(Template::parse_strict(source.strip_suffix('\n').unwrap_or(source)).is_ok());
    }
}

/// Dates the reference's calendar cannot represent make it throw: the tag, later
/// formatters included, prints nothing (reference output "AB" here) and an execution
/// error is recorded.
#[test]
fn calendar_url_out_of_range_prints_nothing() {
    let template = Template::parse_strict("A{@|google-calendar-url}{@|google-calendar-url|json}B")
        .expect("compiles");
    for data in [
        r#"{"startDate": 253402300800000, "endDate": 0}"#,
        r#"{"startDate": 0, "endDate": "abc"}"#,
        r#"{"startDate": -1e17, "endDate": 0}"#,
    ] {
        let data = crate::value::Node::from_json_str(data).expect("valid JSON");
        let mut out = String::new();
        let errors = crate::exec::execute(&template, &data, &crate::exec::Env::default(), &mut out);
        assert_eq!(out, "AB");
        assert_eq!(errors.len(), 2);
    }
}

/// The reference's throw also leaves the tag's frame on the stack; with `npm_compat` the
/// engine reproduces that, so the section after it no longer finds `y` (reference: "AB").
#[test]
fn calendar_url_failure_in_npm_compat_mode() {
    let template =
        Template::parse_strict("A{x|google-calendar-url}B{.section y}C{.end}").expect("compiles");
    let data = crate::value::Node::from_json_str(r#"{"x": {"startDate": "abc"}, "y": 1}"#)
        .expect("valid JSON");
    let mut out = String::new();
    let env = crate::exec::Env {
        npm_compat: true,
        ..crate::exec::Env::default()
    };
    crate::exec::execute(&template, &data, &env, &mut out);
    assert_eq!(out, "AB");
    let mut out = String::new();
    crate::exec::execute(&template, &data, &crate::exec::Env::default(), &mut out);
    assert_eq!(out, "ABC");
}
