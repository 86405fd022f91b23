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

/// `image-meta` and `item-classes` write into the output when they end a chain and return
/// text otherwise: each of their reference cases runs again with `|str` after the
/// formatter, and both ways must print the reference's output.
#[test]
fn chained_and_emitted_formatters_print_the_same() {
    let chained: Vec<(String, &str, &str)> = CASES
        .iter()
        .filter(|(t, _, _)| *t == "{@|image-meta}" || *t == "{@|item-classes}")
        .map(|&(t, data, want)| (t.replace("}", "|str}"), data, want))
        .collect();
    assert!(chained.len() > 10, "only {} cases", chained.len());
    let cases: Vec<(&str, &str, &str)> = chained
        .iter()
        .map(|(t, d, w)| (t.as_str(), *d, *w))
        .collect();
    check(&cases);
}

#[test]
fn builtin_templates_compile() {
    let source = include_str!("audio-player.html");
    assert!(Template::parse_strict(source.strip_suffix('\n').unwrap_or(source)).is_ok());
}

/// `same-day?` on dates the calendar cannot represent: the reference throws, so neither
/// branch runs and an execution error is recorded.
#[test]
fn same_day_out_of_range_abandons_the_block() {
    let template = Template::parse_strict("{.same-day?}Y{.or}N{.end}").expect("compiles");
    for data in [
        r#"{"startDate": 253402300800000, "endDate": 0}"#,
        r#"{"startDate": "abc", "endDate": 0}"#,
    ] {
        let data = Node::from_json_str(data).expect("valid JSON");
        let mut out = String::new();
        let errors = crate::exec::execute(&template, &data, &crate::exec::Env::default(), &mut out);
        assert_eq!(out, "");
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .message
                .starts_with("RuntimeError: Unexpected TypeError error when executing PREDICATE")
        );
    }
}

/// The formatter and predicate names the reference registers for the content, social and
/// slide families (its registry, listed by `ref-batch.js`), all registered here.
#[test]
fn every_reference_name_is_registered() {
    let registry = crate::plugins::Registry::standard();
    for name in [
        "AbsUrl",
        "audio-player",
        "capitalize",
        "child-image-meta",
        "cover-image-meta",
        "color-weight",
        "height",
        "humanizeDuration",
        "image",
        "image-color",
        "image-meta",
        "image-srcset",
        "item-classes",
        "resizedHeightForWidth",
        "resizedWidthForHeight",
        "squarespaceThumbnailForHeight",
        "squarespaceThumbnailForWidth",
        "website-color",
        "width",
        "video",
        "activate-twitter-links",
        "comment-count",
        "comment-link",
        "comments",
        "google-calendar-url",
        "like-button",
        "social-button",
        "social-button-inline",
        "twitter-follow-button",
    ] {
        assert!(registry.formatter(name).is_some(), "formatter {name}");
    }
    for name in [
        "active-time?",
        "attachment?",
        "audio?",
        "background-source-instagram?",
        "background-source-none?",
        "background-source-undefined?",
        "background-source-upload?",
        "background-source-video?",
        "binary?",
        "calendar-view?",
        "checkin?",
        "child-images?",
        "clickable?",
        "collection-page?",
        "collection-template-page?",
        "collection?",
        "collectionTypeNameEquals?",
        "comments?",
        "css-asset?",
        "current-type?",
        "digital-good?",
        "disqus?",
        "event?",
        "excerpt?",
        "external-link?",
        "external-video?",
        "folder?",
        "gallery-active-alignment-center?",
        "gallery-active-alignment-left?",
        "gallery-active-alignment-right?",
        "gallery-auto-crop?",
        "gallery-autoplay?",
        "gallery-controls?",
        "gallery-design-grid?",
        "gallery-design-slider?",
        "gallery-design-slideshow?",
        "gallery-design-stacked?",
        "gallery-lightbox?",
        "gallery-meta-position-bottom-left?",
        "gallery-meta-position-bottom-right?",
        "gallery-meta-position-bottom?",
        "gallery-meta-position-center?",
        "gallery-meta-position-top-left?",
        "gallery-meta-position-top-right?",
        "gallery-meta-position-top?",
        "gallery-meta?",
        "gallery-show-meta-on-hover?",
        "gallery-show-meta?",
        "gallery-square-thumbs?",
        "gallery-thumbnails?",
        "gallery?",
        "has-multiple?",
        "image?",
        "index?",
        "json-export?",
        "kbarticle?",
        "link?",
        "location?",
        "main-image?",
        "passthrough?",
        "promotedCODE?",
        "promotedEMBED?",
        "promotedFORM?",
        "promotedFOURSQUARE?",
        "promotedIMAGE?",
        "promotedINSTAGRAM?",
        "promotedLINK?",
        "promotedMAP?",
        "promotedQUOTE?",
        "promotedTWITTER?",
        "promotedVIDEO?",
        "quote?",
        "redirect?",
        "same-day?",
        "serviceNameEmail?",
        "show-past-events?",
        "site-search?",
        "store-item?",
        "text?",
        "tweak-asset?",
        "tweet?",
        "undefined?",
        "video?",
        "wordpress-export?",
    ] {
        assert!(registry.predicate(name).is_some(), "predicate {name}");
    }
}
