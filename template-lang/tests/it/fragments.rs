//! Recorded fragments (`Ctx::run_recorded`, `Ctx::replay`): a block's output is reused only
//! where running the block would print the same.

use std::sync::{Arc, Mutex};

use template_lang::compile::tree::HostTag;
use template_lang::exec::context::Fragment;
use template_lang::fuzzing::xorshift;
use template_lang::value::{Node, Val};
use template_lang::{CompileOptions, Ctx, Env, Host, Partials, Registry, Template, execute};

/// A host whose `<x:keep>` runs its body over `data` and keeps the output when it can be
/// reused, replaying it in later renders; `<x:plain>` runs the body over `data` every time.
struct Keeper {
    data: Node,
    kept: Mutex<Option<Fragment>>,
    log: Mutex<Vec<&'static str>>,
}

impl Keeper {
    fn new(data: &str) -> Keeper {
        Keeper {
            data: Node::from_json_str(data).unwrap(),
            kept: Mutex::new(None),
            log: Mutex::new(Vec::new()),
        }
    }

    fn log(&self) -> Vec<&'static str> {
        std::mem::take(&mut self.log.lock().unwrap())
    }
}

impl Host for Keeper {
    fn render_tag<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        let Some(body) = tag.body else { return };
        let data = Val::Own(self.data.clone());
        if &*tag.name == "plain" {
            ctx.with_scope(data, |ctx| ctx.run_block(body));
            return;
        }
        let mut kept = self.kept.lock().unwrap();
        let mut log = self.log.lock().unwrap();
        if kept.as_ref().is_some_and(|f| ctx.replay(f)) {
            log.push("replayed");
            return;
        }
        *kept = ctx.run_recorded(data, |ctx| ctx.run_block(body));
        log.push(if kept.is_some() { "kept" } else { "not kept" });
    }
}

/// Output and runtime errors of `template` (host tags `x:`) over `page`.
fn run(
    host: &Keeper,
    template: &Template,
    partials: &Partials,
    page: &Node,
) -> (String, Vec<String>) {
    let env = Env {
        partials,
        host: Some(host),
        now_ms: Some(1_700_000_000_000.0),
        locale: Some(icu_locale::locale!("en")),
        ..Env::default()
    };
    let mut out = String::new();
    let errors = execute(template, page, &env, &mut out);
    (out, errors.into_iter().map(|e| e.message).collect())
}

/// Output and runtime errors of `template` over `page`, with or without `keep_applied`.
fn run_kept(
    template: &Template,
    partials: &Partials,
    page: &Node,
    keep: bool,
) -> (String, Vec<String>) {
    let env = Env {
        partials,
        keep_applied: keep,
        ..Env::default()
    };
    let mut out = String::new();
    let errors = execute(template, page, &env, &mut out);
    (out, errors.into_iter().map(|e| e.message).collect())
}

fn compile(source: &str) -> Template {
    let options = CompileOptions {
        host_prefix: Some("x:".into()),
        ..CompileOptions::default()
    };
    Template::compile_with(source, Registry::standard(), &options).template
}

fn partials(list: &[(&str, &str)]) -> Partials {
    Partials::compile(list.iter().copied(), Registry::standard()).0
}

/// Renders `source` over each page in turn with one keeper; returns the outputs and what
/// the keeper did.
fn renders(
    source: &str,
    data: &str,
    pages: &[&Node],
    parts: &[(&str, &str)],
) -> (Vec<String>, Vec<&'static str>) {
    let host = Keeper::new(data);
    let template = compile(source);
    let partials = partials(parts);
    let outs = pages
        .iter()
        .map(|page| run(&host, &template, &partials, page).0)
        .collect();
    (outs, host.log())
}

fn json(s: &str) -> Node {
    Node::from_json_str(s).unwrap()
}

#[test]
fn a_block_reading_only_its_data_is_replayed_anywhere() {
    let (a, b) = (json(r#"{"x":1}"#), json(r#"{"items":"page"}"#));
    let (outs, log) = renders(
        "<x:keep>{.repeated section items}{@}{.end}</x:keep>",
        r#"{"items":[1,2]}"#,
        &[&a, &b],
        &[],
    );
    assert_eq!(outs, ["12", "12"]);
    assert_eq!(log, ["kept", "replayed"]);
}

#[test]
fn names_from_the_page_are_checked_before_a_replay() {
    let pages = [
        json(r#"{"label":"a"}"#),
        json(r#"{"label":"a","other":1}"#),
        json(r#"{"label":"b"}"#),
        json(r#"{}"#),
        json(r#"{"label":"b"}"#),
    ];
    let (outs, log) = renders(
        "<x:keep>{label}:{.repeated section items}{@}{.end}</x:keep>",
        r#"{"items":[1,2]}"#,
        &pages.iter().collect::<Vec<_>>(),
        &[],
    );
    assert_eq!(outs, ["a:12", "a:12", "b:12", ":12", "b:12"]);
    // An equal string in another page counts as the same; a changed or missing one runs
    // the block again (and keeps the new output).
    assert_eq!(log, ["kept", "replayed", "kept", "kept", "kept"]);
}

#[test]
fn names_inside_loops_that_reach_the_page_are_checked_too() {
    let pages = [json(r#"{"sep":"-"}"#), json(r#"{"sep":"+"}"#)];
    let (outs, log) = renders(
        "<x:keep>{.repeated section items}{@}{sep}{.end}</x:keep>",
        r#"{"items":[1,2]}"#,
        &pages.iter().collect::<Vec<_>>(),
        &[],
    );
    assert_eq!(outs, ["1-2-", "1+2+"]);
    assert_eq!(log, ["kept", "kept"]);
}

#[test]
fn objects_from_the_page_count_as_the_same_only_when_they_are() {
    let page = json(r#"{"site":{"name":"S"}}"#);
    let copy = json(r#"{"site":{"name":"S"}}"#);
    let (outs, log) = renders(
        "<x:keep>{site|json}</x:keep>",
        "{}",
        &[&page, &page, &copy],
        &[],
    );
    assert_eq!(outs, [r#"{"name":"S"}"#; 3]);
    assert_eq!(log, ["kept", "replayed", "kept"]);
}

#[test]
fn private_partials_do_not_reach_the_page() {
    let pages = [json(r#"{"label":"a"}"#), json(r#"{"label":"b"}"#)];
    let (outs, log) = renders(
        "<x:keep>{@|apply p private}</x:keep>",
        r#"{"own":"o"}"#,
        &pages.iter().collect::<Vec<_>>(),
        &[("p", "[{own}|{label}]")],
    );
    assert_eq!(outs, ["[o|]", "[o|]"]);
    assert_eq!(log, ["kept", "replayed"]);
}

#[test]
fn what_a_replay_cannot_check_is_never_kept() {
    let page = json(r#"{"list":[1],"n":5,"t":1699990000000}"#);
    for source in [
        // A macro from the page.
        "{.macro m}M{.end}<x:keep>{@|apply m}</x:keep>",
        // Errors, host tags and the clock.
        "<x:keep>{@|apply missing}</x:keep>",
        "<x:keep><x:plain>p</x:plain></x:keep>",
        "<x:keep>{t|timesince}</x:keep>",
    ] {
        let (outs, log) = renders(source, "{}", &[&page, &page], &[]);
        assert_eq!(log, ["not kept", "not kept"], "{source}");
        assert_eq!(outs[0], outs[1], "{source}");
    }
}

#[test]
fn loop_counters_and_variables_from_the_page_are_checked_like_names() {
    let page = json(r#"{"list":[1,2,1],"a":"x"}"#);
    let (outs, log) = renders(
        "{.repeated section list}<x:keep>{@index}</x:keep>{.end}",
        "{}",
        &[&page],
        &[],
    );
    assert_eq!(outs, ["123"]);
    // Each element has another counter: each runs again.
    assert_eq!(log, ["kept", "kept", "kept"]);
    let (outs, log) = renders(
        "{.repeated section list}{.var @v @}<x:keep>{@v}</x:keep>{.end}",
        "{}",
        &[&json(r#"{"list":[1,1,2]}"#)],
        &[],
    );
    assert_eq!(outs, ["112"]);
    assert_eq!(log, ["kept", "replayed", "kept"]);
}

#[test]
fn a_macro_defined_later_in_the_page_shadows_a_kept_partial() {
    let host = Keeper::new("{}");
    let partials = partials(&[("p", "P")]);
    let page = json("{}");
    let plain = compile("<x:keep>{@|apply p}</x:keep>");
    let shadowed = compile("{.macro p}M{.end}<x:keep>{@|apply p}</x:keep>");
    assert_eq!(run(&host, &plain, &partials, &page).0, "P");
    assert_eq!(run(&host, &shadowed, &partials, &page).0, "M");
    assert_eq!(host.log(), ["kept", "not kept"]);
}

/// For random blocks and pages: whatever the keeper does, every render prints and reports
/// what running the block plainly would.
#[test]
fn kept_output_is_always_what_a_plain_run_prints() {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "c.a",
        "d",
        "@",
        "@index",
        "@v",
        "{a}",
        "{b}",
        "{c.a}",
        "{d}",
        "{@}",
        "{@index}",
        "{@v}",
        "{a|json}",
        "{b|json}",
        "{c|json}",
        "{.section a}",
        "{.section b}",
        "{.repeated section a}",
        "{.repeated section b}",
        "{.end}",
        "{.or}",
        "{.if b}",
        "{.if d || b}",
        "{.equal? b 1}",
        "{.var @w b}",
        "{@w}",
        "{@|apply p}",
        "{@|apply p private}",
        "{.macro p}m{b}{.end}",
        "{a|count}",
        "{b.0}",
        "x",
        " ",
    ];
    let pages = [
        json(r#"{"b":"B","c":{"a":"CA"},"list":[1,2],"v":0}"#),
        json(r#"{"b":[1,2],"c":{"a":"CA"},"list":[1],"v":1}"#),
        json(r#"{"b":"B","c":{"a":"other"},"d":true,"list":[1],"v":2}"#),
        json(r#"{"list":[]}"#),
    ];
    let data = r#"{"a":[1,{"a":"in"}],"e":"E"}"#;
    let parts = partials(&[("p", "<{a}|{b}|{@index}>")]);
    let mut next = xorshift(0x2545_F491_4F6C_DD1D);
    let mut kept = 0;
    for _ in 0..1500 {
        let body: String = (0..next() % 12)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect();
        let prefix = ["", "{.var @v v}", "{.macro p}M{.end}"][(next() % 3) as usize];
        let page_of =
            |tag: &str| format!("{prefix}{{.section list}}<x:{tag}>{body}</x:{tag}>{{.end}}");
        let keeping = compile(&page_of("keep"));
        let plain = compile(&page_of("plain"));
        let host = Keeper::new(data);
        for i in 0..8 {
            let page = &pages[(next() % pages.len() as u64) as usize];
            let want = run(&host, &plain, &parts, page);
            let got = run(&host, &keeping, &parts, page);
            assert_eq!(got, want, "render {i} of {body:?} after {prefix:?}");
        }
        kept += host.log().iter().filter(|l| **l != "not kept").count();
    }
    // The property says nothing if nothing is ever kept.
    assert!(kept > 1000, "only {kept} renders kept or replayed");
}

#[test]
fn a_fragment_holds_what_the_block_printed() {
    let host = Keeper::new(r#"{"n":"N"}"#);
    let partials = partials(&[]);
    run(
        &host,
        &compile("a<x:keep>[{n}]</x:keep>b"),
        &partials,
        &json("{}"),
    );
    let kept = host.kept.lock().unwrap();
    assert_eq!(kept.as_ref().map(Fragment::output), Some("[N]"));
}

/// `keep_applied`: what `{@|apply p}` prints over an item is kept with the item and
/// replayed on later executions; for random partials and pages every execution prints and
/// reports what it does without keeping.
#[test]
fn kept_applied_partials_print_what_a_plain_apply_prints() {
    const PIECES: &[&str] = &[
        "{a}",
        "{b}",
        "{c.a}",
        "{d}",
        "{@index}",
        "{@v}",
        "{title}",
        "{tags|json}",
        "{b|json}",
        "{.section tags}",
        "{.repeated section tags}",
        "{@}",
        "{.end}",
        "{.or}",
        "{.if b}",
        "{.if d || b}",
        "{.equal? b 1}",
        "{.var @w b}",
        "{@w}",
        "{@|apply q}",
        "{b|count}",
        "{.macro q}m{title}{.end}",
        "{tags.0}",
        "{missing|apply nope}",
        "x",
        " ",
    ];
    let outer = [
        vec![("b", json(r#""B""#)), ("c", json(r#"{"a":"CA"}"#))],
        vec![
            ("b", json("[1,2]")),
            ("c", json(r#"{"a":"CA"}"#)),
            ("d", json("true")),
        ],
        vec![("b", json(r#""B""#)), ("v", json("7"))],
        vec![],
    ];
    let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..600 {
        let body: String = (0..next() % 10)
            .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
            .collect();
        let parts = partials(&[("p", &body), ("q", "<{title}|{b}>")]);
        let prefix = ["", "{.var @v b}", "{.macro q}M{.end}"][(next() % 3) as usize];
        let template = compile(&format!(
            "{prefix}{{.repeated section items}}{{@|apply p}}{{.end}}{{items.1|apply p}}"
        ));
        // Items shared by every page, as a server's cached content is.
        let items = json(
            r#"[{"title":"A","tags":["x","y"]},{"title":"B","tags":[]},{"title":"C","a":"own"}]"#,
        );
        for i in 0..6 {
            let mut entries: Vec<(Arc<str>, Node)> = outer[(next() % 4) as usize]
                .iter()
                .map(|(k, v)| (Arc::from(*k), v.clone()))
                .collect();
            entries.push((Arc::from("items"), items.clone()));
            let page = Node::object(entries);
            let run_with = |keep: bool| run_kept(&template, &parts, &page, keep);
            assert_eq!(
                run_with(true),
                run_with(false),
                "execution {i} of {body:?} after {prefix:?}"
            );
        }
    }
}

/// `keep_applied`: what `product-checkout` prints over a product is kept with it and printed
/// again only where what it read from the page (localized labels, the store's service
/// rule) is the same; every page prints what a plain run prints.
#[test]
fn kept_product_checkout_prints_what_a_plain_one_prints() {
    let template = compile("{.repeated section items}{@|product-checkout}{.end}");
    let items = json(
        r#"[
        {"id": "p1", "collectionId": "c", "structuredContent": {"productType": 1,
          "variantOptionOrdering": ["Size"], "variants": [
            {"sku": "S", "attributes": {"Size": "S"}, "qtyInStock": 5, "unlimited": false,
             "priceMoney": {"currency": "USD", "value": "10.00"}},
            {"sku": "L", "attributes": {"Size": "L"}, "qtyInStock": 0, "unlimited": false,
             "priceMoney": {"currency": "USD", "value": "12.00"}}]}},
        {"id": "p2", "collectionId": "c", "structuredContent": {"productType": 3,
          "variants": [{"sku": "V", "qtyInStock": 3, "unlimited": false,
             "priceMoney": {"currency": "USD", "value": "35.00"}}]}}
    ]"#,
    );
    let pages = [
        r#"{}"#,
        r#"{"localizedStrings": {"productAddToCartText": "In den Warenkorb", "productQuantityInputLabel": "Menge"}}"#,
        r#"{"websiteSettings": {"storeSettings": {"multipleQuantityAllowedForServices": false}}}"#,
        r#"{"localizedStrings": {"productVariantSelectText": "Choose {variantName}"}}"#,
    ];
    let parts = partials(&[]);
    let mut seen = std::collections::BTreeSet::new();
    for round in 0..3 {
        for (i, page) in pages.iter().enumerate() {
            let mut entries: Vec<(Arc<str>, Node)> = match json(page) {
                Node::Object(o) => o.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                _ => unreachable!(),
            };
            entries.push((Arc::from("items"), items.clone()));
            let page_node = Node::object(entries);
            let run_with = |keep: bool| {
                let (out, errors) = run_kept(&template, &parts, &page_node, keep);
                assert!(errors.is_empty(), "{errors:?}");
                out
            };
            let kept = run_with(true);
            assert_eq!(kept, run_with(false), "round {round}, page {i}");
            seen.insert(kept);
        }
    }
    // The pages differ, so a replay that ignored them would have shown up above.
    assert_eq!(seen.len(), pages.len());
}
