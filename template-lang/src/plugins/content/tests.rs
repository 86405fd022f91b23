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

/// `item-classes` keeps an item's own category, tag and author classes with the item.
/// They are what the names resolve to: the same on a second render, each object's own
/// (even under the same id), and for an item without the key, or a value that is not the
/// item, the names still resolve in the enclosing scopes.
#[test]
fn kept_item_classes_are_what_the_names_resolve_to() {
    let t = Template::parse_strict(
        "{.repeated section items}{@|item-classes}|{.end}{.section items.0}{recordType|item-classes}{.end}",
    )
    .expect("the template compiles");
    let item = |categories: &str| {
        format!(
            r#"{{"id": "i1", "recordType": 1, "categories": [{categories}], "tags": ["Blue Sky"],
                "author": {{"displayName": "Ann Lee"}}}}"#
        )
    };
    let data = |items: &[String]| {
        Node::from_json_str(&format!(
            r#"{{"categories": ["Outer"], "items": [{}]}}"#,
            items.join(",")
        ))
        .expect("test data is JSON")
    };
    let plain = r#"{"id": "i2", "recordType": 1}"#.to_string();

    let before = data(&[item(r#""Tea Pots""#), plain.clone()]);
    let first = t.render(&before);
    let [with, without, chained] = first.split('|').collect::<Vec<_>>()[..] else {
        panic!("three renders of item-classes: {first}");
    };
    assert!(
        with.contains(" category-tea-pots tag-blue-sky author-ann-lee"),
        "{with}"
    );
    assert!(!with.contains("category-outer"), "{with}");
    // No categories of its own: the enclosing scope's, as before they were kept.
    assert!(without.contains(" category-outer"), "{without}");
    // Classes of a number (the first item's record type): the names resolve from the
    // number's frame outwards, to the section's item.
    assert!(
        chained.contains(" category-tea-pots tag-blue-sky"),
        "{chained}"
    );
    assert!(!chained.contains("outer"), "{chained}");
    assert_eq!(t.render(&before), first, "a second render reuses them");

    let after = data(&[item(r#""Cups", "Mugs""#), plain]);
    let changed = t.render(&after);
    assert!(
        changed.contains(" category-cups category-mugs tag-blue-sky"),
        "{changed}"
    );
    assert!(!changed.contains("tea-pots"), "{changed}");

    // An object another formatter picked out is not the frame's: its own categories are
    // not what `categories` resolves to there.
    let picked = Template::parse_strict("{@|get key|item-classes}").expect("compiles");
    let data = Node::from_json_str(
        r#"{"key": "inner", "categories": ["Outer"], "inner": {"categories": ["Inner"]}}"#,
    )
    .expect("test data is JSON");
    let out = picked.render(&data);
    assert!(
        out.contains(" category-outer") && !out.contains("inner"),
        "{out}"
    );
}

/// The rest of what `item-classes` keeps: an item's own `promotedBlockType`,
/// `recordTypeLabel` and `starred` print as the item's, a name the item lacks still
/// resolves in the enclosing scope (here the page's), and a store item's sale and stock
/// state is its own. Each render gives what the first gave.
#[test]
fn kept_item_classes_take_each_name_from_where_it_resolves() {
    let t = Template::parse_strict("{.repeated section items}{@|item-classes}|{.end}")
        .expect("the template compiles");
    let data = Node::from_json_str(
        r#"{"promotedBlockType": "Outer Block", "recordTypeLabel": "outer", "starred": true,
            "items": [
              {"id": "a", "recordType": 1, "promotedBlockType": "Gallery Strip",
               "recordTypeLabel": "text", "starred": false},
              {"id": "b", "recordType": 1},
              {"id": "c", "recordType": 11, "recordTypeLabel": "store-item", "starred": null,
               "structuredContent": {"productType": 1, "variants": [
                 {"onSale": true, "qtyInStock": 0, "unlimited": false}]}}
            ]}"#,
    )
    .expect("test data is JSON");
    let want = [
        "hentry promoted promoted-block-gallery-strip post-type-text article-index-1",
        "hentry promoted promoted-block-outer-block post-type-outer article-index-2 featured",
        "hentry promoted promoted-block-outer-block post-type-store-item article-index-3 on-sale sold-out",
    ];
    let first = t.render(&data);
    assert_eq!(first, format!("{}|", want.join("|")));
    assert_eq!(t.render(&data), first, "a second render reuses them");
}

/// `image-meta` keeps an image's attributes and derived alt text with the image object;
/// the alt text of an image block still comes from the block in scope, whichever place
/// renders the image first.
#[test]
fn kept_image_meta_leaves_the_block_alt_text_to_the_scope() {
    let data = Node::from_json_str(
        r#"{"img": {"assetUrl": "/a.jpg", "originalSize": "4x3", "title": "Fern & pot",
             "altText": "  In the block  ", "mediaFocalPoint": {"x": 0.25, "y": 0.5}},
            "block": {"blockType": 5}}"#,
    )
    .expect("test data is JSON");
    let outside = r#"data-src="/a.jpg" data-image="/a.jpg" data-image-dimensions="4x3" data-image-focal-point="0.25,0.5" alt="Fern &amp; pot" "#;
    let inside = outside.replace("Fern &amp; pot", "In the block");
    for template in [
        "{img|image-meta}|{.section block}{img|image-meta}{.end}",
        "{.section block}{img|image-meta}{.end}|{img|image-meta}",
    ] {
        let t = Template::parse_strict(template).expect("the template compiles");
        let want = if template.starts_with("{img") {
            format!("{outside}|{inside}")
        } else {
            format!("{inside}|{outside}")
        };
        assert_eq!(t.render(&data), want, "{template}");
        assert_eq!(t.render(&data), want, "{template}, again");
    }
}
