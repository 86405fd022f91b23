//! Table tests of the content formatters and predicates. Every expected output in
//! `tests_data.rs` was produced by running the reference engine on the same template and
//! data (`tests_data_gen.py` regenerates the table), beyond what the conformance corpus
//! covers: alt-text fallbacks and the 250-unit cut, missing or malformed `originalSize`,
//! focal points, colour data, every record type, product sale states and more.

use super::tests_data::CASES;
use crate::compile::Template;
use crate::value::Node;

/// Renders every case and reports all mismatches at once.
pub(crate) fn check(cases: &[(&str, &str, &str)]) {
    let mut failures = Vec::new();
    for &(template, data, want) in cases {
        let compiled = Template::parse_strict(template)
            .unwrap_or_else(|e| panic!("{template} does not compile: {e:?}"));
        let data = Node::from_json_str(data).unwrap_or_else(|e| panic!("bad JSON {data}: {e}"));
        let got = compiled.render(&data);
        if got != want {
            failures.push(format!(
                "{template}\n  data: {data:?}\n  want: {want:?}\n  got:  {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn reference_cases() {
    check(CASES);
}

#[test]
fn builtin_templates_compile() {
    let source = include_str!("audio-player.html");
    assert!(Template::parse_strict(source.strip_suffix('\n').unwrap_or(source)).is_ok());
}

/// `same-day?` on dates the calendar cannot represent: the reference throws and runs
/// neither branch; the engine has no way for a predicate to abandon its block, so the
/// predicate records an execution error and is false.
#[test]
fn same_day_out_of_range_is_false_with_an_error() {
    let template = Template::parse_strict("{.same-day?}Y{.or}N{.end}").expect("compiles");
    for data in [
        r#"{"startDate": 253402300800000, "endDate": 0}"#,
        r#"{"startDate": "abc", "endDate": 0}"#,
    ] {
        let data = Node::from_json_str(data).expect("valid JSON");
        let mut out = String::new();
        let errors = crate::exec::execute(&template, &data, &crate::exec::Env::default(), &mut out);
        assert_eq!(out, "N");
        assert_eq!(errors.len(), 1);
    }
}
