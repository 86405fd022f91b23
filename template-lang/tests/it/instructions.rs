//! Each instruction of the language, as template authors use it. Expectations were checked
//! against the reference engine (npm @squarespace/template-engine) unless a test says it
//! pins a deliberate difference.

use crate::common::{render, render_partials, run, run_with};

#[test]
fn text_and_literal_instructions() {
    assert_eq!(
        render(
            "a{.space}b{.tab}c{.newline}d{.meta-left}x{.meta-right}",
            "{}"
        ),
        "a b\tc\nd{x}"
    );
    assert_eq!(
        render("{# comment}x{## multi\nline {a} ##}y", r#"{"a":1}"#),
        "xy"
    );
    // Text that merely looks like an instruction stays as it is.
    assert_eq!(
        render("{a b} { a } {.foo} {} {-1} {a|}", r#"{"a":1}"#),
        "{a b} { a } {.foo} {} {-1} {a|}"
    );
    assert_eq!(
        render("function() { return {x}; }", r#"{"x":1}"#),
        "function() { return 1; }"
    );
    // An unterminated multi-line comment swallows the rest.
    assert_eq!(render("a{## b {c}", "{}"), "a");
}

#[test]
fn variables_resolve_up_the_stack() {
    let data = r#"{"title":"T","item":{"name":"N","tags":["a","b"]},"items":[{"v":1},{"v":2}]}"#;
    assert_eq!(
        render("{title} {item.name} {item.tags.1} {items.1.v}", data),
        "T N b 2"
    );
    assert_eq!(render("{.section item}{name}/{title}{.end}", data), "N/T");
    assert_eq!(
        render("{.repeated section items}{v}{title}{.end}", data),
        "1T2T"
    );
    assert_eq!(
        render("{.section item}{@.name}|{@.title}{.end}", data),
        "N|"
    );
    assert_eq!(
        render("{missing.x} {item.missing} {item.name.x}", data),
        "  "
    );
    // `$name` is an ordinary key.
    assert_eq!(render("{$k}", r#"{"$k":"dollar"}"#), "dollar");
    // Numeric segments index arrays and also name object keys.
    assert_eq!(
        render("{o.0}{o.1}", r#"{"o":{"0":"zero","1":"one"}}"#),
        "zeroone"
    );
}

/// A tag with several references (`{a, b|f}`, `{.var @x a, b|f}`) prints or binds its
/// first value, whatever their number: the usual few are kept on the stack, more in a list.
#[test]
fn tags_with_several_references() {
    let data = r#"{"a":"A","b":"B","c":"C","d":"D","e":"E","f":"F"}"#;
    for refs in [
        "a",
        "a, b",
        "a, b, c, d",
        "a, b, c, d, e",
        "a, b, c, d, e, f",
    ] {
        assert_eq!(
            render(&format!("{{{refs}|json}}"), data),
            r#""A""#,
            "{refs}"
        );
        assert_eq!(
            render(&format!("{{.var @x {refs}|json}}{{@x}}"), data),
            r#""A""#,
            "{refs}"
        );
    }
    // The formatters see every value: an interval between the first two.
    let data = r#"{"s":1700000000000,"e":1700003600000,"x":0,"y":0,"z":0}"#;
    let two = render("{s, e|datetime-interval}", data);
    assert_ne!(two, render("{s, s|datetime-interval}", data));
    assert_eq!(render("{s, e, x, y, z|datetime-interval}", data), two);
}

#[test]
fn printing_follows_javascript() {
    assert_eq!(render("{a}", r#"{"a":1.0}"#), "1");
    assert_eq!(render("{a}", r#"{"a":1e21}"#), "1e+21");
    assert_eq!(
        render("{a}", r#"{"a":123456789012345678901}"#),
        "123456789012345680000"
    );
    assert_eq!(render("{a}", r#"{"a":-0.0}"#), "0");
    assert_eq!(
        render("{a}|{b}|{c}", r#"{"a":null,"b":{"x":1},"c":true}"#),
        "||true"
    );
    assert_eq!(
        render("{a}", r#"{"a":[1,null,"s",{"k":1},[2,[null,3]]]}"#),
        "1,null,s,[object Object],2,,3"
    );
}

#[test]
fn iteration_indices() {
    let data = r#"{"a":["x","y","z"]}"#;
    assert_eq!(
        render("{.repeated section a}{@index}{@index0}{@}{.end}", data),
        "10x21y32z"
    );
    assert_eq!(
        render("{.repeated section a}{@}{.alternates with}, {.end}", data),
        "x, y, z"
    );
    assert_eq!(render("{@index}", data), "");
    // The index of the enclosing loop stays visible in nested sections.
    let nested = r#"{"a":[{"b":{"c":1}},{"b":{"c":2}}]}"#;
    assert_eq!(
        render(
            "{.repeated section a}{.section b}{@index}:{c} {.end}{.end}",
            nested
        ),
        "1:1 2:2 "
    );
    // `length` of an array, as the reference's JavaScript property access exposes it.
    assert_eq!(render("{.section a}{length}{.end}|{a.length}", data), "3|");
}

#[test]
fn each_element_starts_with_a_fresh_scope() {
    // What one element binds (variables, macros) is gone for the next: the engine reuses
    // the element's frame, emptied, between elements.
    let data = r#"{"a":[{"n":"x","b":true},{"n":"y"},{"n":"z","b":true}]}"#;
    assert_eq!(
        render(
            "{.repeated section a}[{@v}]{.if b}{.var @v n}{.end}({@v}){.end}",
            data
        ),
        "[](x)[]()[](z)"
    );
    assert_eq!(
        render(
            "{.repeated section a}{.if b}{.macro m}<{n}>{.end}{.end}{@|apply m}.{.end}",
            data
        ),
        "<x>..<z>."
    );
}

#[test]
fn sections_and_truthiness() {
    for (json, out) in [
        (r#"{"a":0}"#, "no"),
        (r#"{"a":""}"#, "no"),
        (r#"{"a":[]}"#, "no"),
        (r#"{"a":{}}"#, "no"),
        (r#"{"a":null}"#, "no"),
        (r#"{"a":false}"#, "no"),
        (r#"{}"#, "no"),
        (r#"{"a":"0"}"#, "yes"),
        (r#"{"a":-1}"#, "yes"),
        (r#"{"a":[0]}"#, "yes"),
    ] {
        assert_eq!(render("{.section a}yes{.or}no{.end}", json), out, "{json}");
    }
    // A section name resolves in the current scope only, not up the stack.
    assert_eq!(
        render(
            "{.section a}{.section b}[{b}]{.or}no{.end}{.end}",
            r#"{"a":{"x":1},"b":2}"#
        ),
        "no"
    );
    // A repeated section over anything but a non-empty array takes the alternative.
    assert_eq!(
        render("{.repeated section a}x{.or}none{.end}", r#"{"a":{"k":1}}"#),
        "none"
    );
    assert_eq!(
        render("{.repeated section a}x{.or}none{.end}", r#"{"a":"str"}"#),
        "none"
    );
}

/// The one known split between the reference engines (shared/difftest/README.md): inside
/// the `{.or}` of a section whose value is missing, names resolve against the enclosing
/// scope in the Java engine, which real sites run. We follow Java; npm prints nothing here.
#[test]
fn section_alternative_runs_in_the_enclosing_scope() {
    let t =
        "{.section website}{.section logoImageUrl}X{.or}{.section siteTitle}{@}{.end}{.end}{.end}";
    assert_eq!(
        render(t, r#"{"website": {"siteTitle": "Wright"}}"#),
        "Wright"
    );
    assert_eq!(
        render(
            "{.repeated section a}{.section x}{.or}<{@}>{.end}{.end}",
            r#"{"a":["p","q"]}"#
        ),
        "<p><q>"
    );
}

/// The npm compatibility mode reproduces the npm engine's deviations, so that differential
/// testing against it can tell real differences from known ones.
#[test]
fn npm_compatibility_mode() {
    use template_lang::value::Node;
    use template_lang::{Env, Template, execute};
    let render_npm = |t: &str, json: &str| {
        let env = Env {
            npm_compat: true,
            ..Env::default()
        };
        let mut out = String::new();
        execute(
            &Template::parse_strict(t).unwrap(),
            &Node::from_json_str(json).unwrap(),
            &env,
            &mut out,
        );
        out
    };
    let t =
        "{.section website}{.section logoImageUrl}X{.or}{.section siteTitle}{@}{.end}{.end}{.end}";
    assert_eq!(render_npm(t, r#"{"website": {"siteTitle": "Wright"}}"#), "");
    // A formatter that fails (the reference throws) prints nothing for its tag in both
    // modes; in npm mode its frame stays behind, so the loop's index leaks out afterwards.
    let t = "{.repeated section items}{x|date %Y}{.end}[{items|iter}]";
    let data = r#"{"items":[{"x":"not a date"}]}"#;
    assert_eq!(render(t, data), "[]");
    assert_eq!(render_npm(t, data), "[2]");
}

#[test]
fn or_branches_with_predicates() {
    let t = "{.equal? n 1}one{.or equal? n 2}two{.or greaterThan? n 2}many{.or}none{.end}";
    assert_eq!(render(t, r#"{"n":1}"#), "one");
    assert_eq!(render(t, r#"{"n":2}"#), "two");
    assert_eq!(render(t, r#"{"n":7}"#), "many");
    assert_eq!(render(t, r#"{"n":0}"#), "none");
    let chain: String = (0..500)
        .map(|i| format!("{{.or equal? n {i}}}{i}"))
        .collect();
    assert_eq!(
        render(&format!("{{.section x}}{chain}{{.end}}"), r#"{"n":499}"#),
        "499"
    );
}

#[test]
fn if_with_and_or() {
    let t = "{.if a && b}AB{.or}{.if a || b}A|B{.or}none{.end}{.end}";
    assert_eq!(render(t, r#"{"a":1,"b":1}"#), "AB");
    assert_eq!(render(t, r#"{"a":0,"b":1}"#), "A|B");
    assert_eq!(render(t, r#"{"a":0,"b":0}"#), "none");
    // No precedence: evaluated left to right.
    assert_eq!(
        render("{.if a || b && c}y{.or}n{.end}", r#"{"a":1,"b":0,"c":0}"#),
        "y"
    );
    assert_eq!(
        render("{.if a && b || c}y{.or}n{.end}", r#"{"a":0,"b":0,"c":1}"#),
        "n"
    );
    // `.if` with a predicate.
    assert_eq!(render("{.if equal? a 3}three{.end}", r#"{"a":3}"#), "three");
}

#[test]
fn bound_variables() {
    let data = r#"{"a":{"b":"<x>"},"n":2}"#;
    assert_eq!(
        render("{.var @v a.b|html}{@v}{@v.length}", data),
        "&lt;x&gt;"
    );
    assert_eq!(render("{.var @o a}{.section n}{@o.b}{.end}", data), "<x>");
    assert_eq!(
        render("{.ctx @c x=a.b y=n z=nope}{@c|json}", data),
        r#"{"x":"<x>","y":2,"z":null}"#
    );
    // Variables are scoped to the frame that bound them.
    assert_eq!(render("{.section a}{.var @in b}{.end}[{@in}]", data), "[]");
}

#[test]
fn injected_documents() {
    let r = run_with(
        "{.inject @foo foo.json}{.inject @z zero.json}{.inject @m nope.json}{@foo.name}-{@z}-{@m}",
        "{}",
        &[],
        &[("foo.json", r#"{"name":"albert"}"#), ("zero.json", "0")],
    );
    assert_eq!(r.out, "albert--");
    assert!(r.syntax.is_empty() && r.runtime.is_empty());
}

#[test]
fn macros_and_partials() {
    let data = r#"{"people":[{"name":"Ann"},{"name":"Bob"}],"title":"T"}"#;
    assert_eq!(
        render(
            "{.macro person}<{name}>{.end}{.repeated section people}{@|apply person}{.end}",
            data
        ),
        "<Ann><Bob>"
    );
    assert_eq!(
        render_partials(
            "{people.0|apply card}",
            data,
            &[("card", "[{name}|{title}]")]
        ),
        "[Ann|T]"
    );
    // `private` stops resolution at the partial's own scope; arguments arrive as @args.
    assert_eq!(
        render_partials(
            "{people.0|apply card private}",
            data,
            &[("card", "[{name}|{title}]")]
        ),
        "[Ann|]"
    );
    assert_eq!(
        render_partials(
            "{people.0|apply card k=v n=2}",
            data,
            &[("card", "{@args.k}{@args.n}")]
        ),
        "v2"
    );
    // Text prints from the template that holds it: a macro defined in a partial and
    // applied in the page, a partial applied in a macro, each with text of its own.
    assert_eq!(
        render_partials(
            "{.include defs}<p>{title|apply m}</p>{.macro n}(({title|apply card})){.end}{@|apply n}",
            data,
            &[
                (
                    "defs",
                    "{## a long comment ahead of the definition ##}{.macro m}<em>{@}</em>{.end}"
                ),
                ("card", "card: {@}!"),
            ]
        ),
        "<p><em>T</em></p>((card: T!))"
    );
    // Macros are looked up innermost first.
    assert_eq!(
        render(
            "{.macro m}outer{.end}{.section title}{.macro m}inner{.end}{@|apply m}{.end}{@|apply m}",
            data
        ),
        "innerouter"
    );
}

#[test]
fn repeated_applies_find_the_partial_named_each_time() {
    let data = r#"{"people":[{"name":"Ann","kind":"a"},{"name":"Bob","kind":"b"},{"name":"Cy","kind":"a"}]}"#;
    let partials = [("a", "<{name}>"), ("b", "[{name}]")];
    // Two partials by turns in one loop, each written in its own tag.
    assert_eq!(
        render_partials(
            "{.repeated section people}{.equal? kind \"a\"}{@|apply a}{.or}{@|apply b}{.end}{.end}",
            data,
            &partials
        ),
        "<Ann>[Bob]<Cy>"
    );
    // A macro defined after a partial of the same name was applied shadows it from then
    // on, in its scope, and the partial is found again outside it.
    assert_eq!(
        render_partials(
            "{.repeated section people}{@|apply a}{.section name}{.macro a}m{.end}{people.0|apply a}{.end}{.end}{people.0|apply a}",
            r#"{"people":[{"name":"Ann"},{"name":"Bob"}]}"#,
            &partials
        ),
        "<Ann>m<Bob>m<Ann>"
    );
}

#[test]
fn include_runs_for_effects_unless_output_is_asked() {
    assert_eq!(
        render(
            "{.macro m}text{.var @x n}{.end}{.include m}[{@x}]{.include m output}",
            r#"{"n":5}"#
        ),
        "[5]text"
    );
}

#[test]
fn partial_errors_are_reported_and_rendering_goes_on() {
    let r = run("a{x|apply nope}b", r#"{"x":1}"#);
    assert_eq!(r.out, "ab");
    assert_eq!(
        r.runtime,
        ["RuntimeError: Attempt to apply partial 'nope' which could not be found."]
    );

    let r = run_with(
        "a{x|apply bad}{x|apply bad}b",
        r#"{"x":1}"#,
        &[("bad", "{.section}{a|nope}")],
        &[],
    );
    assert_eq!(r.out, "ab");
    assert_eq!(r.syntax, ["SyntaxError: Formatter 'nope' is unknown"]);
    // The parse failure is reported once, when the partial is first used.
    assert_eq!(
        r.runtime,
        ["RuntimeError: Parse of partial \"bad\" failed: SyntaxError: Formatter 'nope' is unknown"]
    );

    let r = run("{.include nope}", "{}");
    assert_eq!(
        r.runtime,
        ["RuntimeError: Attempt to apply partial 'nope' which could not be found."]
    );
}

#[test]
fn partial_recursion_stops_at_depth_16() {
    // Two macros calling each other print until the depth limit cuts the chain.
    let t = "{.macro a}{n}{.eval @n = 1}{@|apply b}{.end}{.macro b}{@|apply a}{.end}{@|apply a}";
    let r = run(t, r#"{"n":1}"#);
    assert_eq!(r.out, "11111111");
    assert_eq!(
        r.runtime.last().map(String::as_str),
        Some("RuntimeError: Attempt to apply partial 'a' exceeded maximum recursion depth of 16")
    );
    let r = run(
        "{.macro loop}x{.include loop output}{.end}{.include loop output}",
        "{}",
    );
    assert_eq!(r.out, "x".repeat(16));
    assert!(r.runtime[0].contains("exceeded maximum recursion depth of 16"));
}

/// A block tag missing its `}` is text to the engine, so the error is at the `{.end}` that
/// then has nothing to end (the reference's words and place); `unclosed_tag` finds the tag
/// that was meant, for `tessera check` and `tessera dev` to point at.
#[test]
fn an_unclosed_block_tag_is_found_from_the_stray_end() {
    use template_lang::error::Pos;
    let unclosed = |src: &str| -> Vec<(String, String, Option<String>)> {
        let c = template_lang::Template::compile(src, template_lang::Registry::standard());
        c.errors
            .iter()
            .map(|e| {
                (
                    e.message.clone(),
                    e.pos.unwrap().to_string(),
                    e.unclosed_tag(src).map(|p: Pos| p.to_string()),
                )
            })
            .collect()
    };
    let end = "SyntaxError: Instruction END not allowed at root".to_string();
    // The `}` missing at the line's end: the tag runs into the next line's `{`.
    assert_eq!(
        unclosed("<p>a</p>\n<div>  {.section website.x\n  <b>{siteTitle}</b>\n{.end}</div>\n"),
        [(end.clone(), "4:1".into(), Some("2:8".into()))]
    );
    // Missing mid-line, before other tags; with characters that are not ASCII before it.
    let r = unclosed("<h1>Café ☕</h1>{.section website.siteTagLine<p>{@}</p>{.end}");
    assert_eq!(r, [(end.clone(), "1:55".into(), Some("1:16".into()))]);
    // `{.or}` and `{.end}` both point back at it; a predicate and `{.repeated section`.
    let r = unclosed("x\n  {.if website.x\n<a>{.or}b{.end}");
    assert_eq!(
        r.iter().map(|e| e.2.clone()).collect::<Vec<_>>(),
        [Some("2:3".to_string()), Some("2:3".to_string())]
    );
    let r = unclosed("{.repeated section items <li>{@}</li>{.end}");
    assert_eq!(r[0].2.as_deref(), Some("1:1"));
    let r = unclosed("{.main-image? <img src=\"{x}\">{.end}");
    assert_eq!(r[0].2.as_deref(), Some("1:1"));
    // A `}` on a later line does not close it either.
    let r = unclosed("{.section a\n}x{.end}");
    assert_eq!(r[0].2.as_deref(), Some("1:1"));
    // The nearest before the stray one; closed tags and other text are not it.
    let r = unclosed("{.section a}{.section c\n{.section d}x{.end}{.end}{.end}");
    assert_eq!(
        r.iter()
            .map(|e| (e.1.as_str(), e.2.as_deref()))
            .collect::<Vec<_>>(),
        [("2:26", Some("1:13"))]
    );
    // A stray `{.end}` with no such tag before it: no hint; other errors: none.
    assert_eq!(
        unclosed("{.section a}x{.end}{.end} {.var x}"),
        [(end, "1:20".into(), None)]
    );
    assert_eq!(unclosed("{.section a}x")[0].2, None);
}

#[test]
fn syntax_errors_keep_the_reference_wording_and_recovery() {
    let r = run("{.section a}x", r#"{"a":1}"#);
    assert_eq!(
        r.syntax,
        ["SyntaxError: Reached EOF in the middle of SECTION"]
    );
    assert_eq!(r.out, "x");

    let r = run("a{.end}b{.or}c{.alternates with}d", "{}");
    assert_eq!(
        r.syntax,
        [
            "SyntaxError: Instruction END not allowed at root",
            "SyntaxError: Instruction OR_PREDICATE not allowed at root",
            "SyntaxError: Instruction ALTERNATES_WITH not allowed at root",
        ]
    );
    assert_eq!(r.out, "abcd");

    let r = run("{.section a}{.alternates with}{.end}", "{}");
    assert_eq!(
        r.syntax,
        ["SyntaxError: ALTERNATES_WITH instruction is not allowed inside SECTION block."]
    );

    let r = run("{.if a}x{.or}y{.or}z{.end}", r#"{"a":0}"#);
    assert_eq!(
        r.syntax,
        ["SyntaxError: This OR_PREDICATE block will never execute."]
    );
    // The dead branch's contents join the branch before it, as in the reference.
    assert_eq!(r.out, "yz");

    let r = run("{.macro m}{.or}{.end}", "{}");
    assert_eq!(
        r.syntax,
        ["SyntaxError: OR_PREDICATE instruction is not allowed inside MACRO block."]
    );

    // An unknown formatter is reported and the tag is printed as text.
    let r = run("a{b|nope}c", r#"{"b":1}"#);
    assert_eq!(r.syntax, ["SyntaxError: Formatter 'nope' is unknown"]);
    assert_eq!(r.out, "a{b|nope}c");

    // An unknown predicate is reported and counts as false.
    let r = run("{.nope? a}x{.or}y{.end}", "{}");
    assert_eq!(r.syntax, ["SyntaxError: Predicate 'nope?' is unknown"]);
    assert_eq!(r.out, "y");

    // After an explicit {.eof}, nothing more is accepted.
    let r = run("a{.eof}b", "{}");
    assert_eq!(r.out, "a");
    assert!(r.syntax[0].starts_with("SyntaxError: TEXT Attempt to transition from the EOF state."));
}

#[test]
fn syntax_errors_carry_positions() {
    use template_lang::{Registry, Template};
    let c = Template::compile("line one\n  é{a|nope}\n{.end}", Registry::standard());
    let positions: Vec<String> = c
        .errors
        .iter()
        .map(|e| e.pos.unwrap().to_string())
        .collect();
    assert_eq!(positions, ["2:4", "3:1"]);
    let shown = c.errors[0].render("page.html", Some("line one\n  é{a|nope}\n{.end}"));
    assert_eq!(
        shown,
        "page.html:2:4: SyntaxError: Formatter 'nope' is unknown\n    é{a|nope}\n     ^"
    );
}

#[test]
fn a_template_with_an_error_on_every_line_reports_each_where_it_is() {
    use template_lang::{Registry, Template};
    // 50 000 stray `{.end}`s, one per line after a line of text. Each error's position is
    // looked up in an index of the lines, not counted from the start of the source, which
    // over this many errors would take minutes.
    let lines = 50_000;
    let source = format!("é text\n{}", "  {.end}\n".repeat(lines));
    let c = Template::compile(&source, Registry::standard());
    assert_eq!(c.errors.len(), lines);
    let at = |i: usize| c.errors[i].pos.unwrap().to_string();
    assert_eq!(
        (at(0), at(lines - 1)),
        ("2:3".to_string(), format!("{}:3", lines + 1))
    );
}

#[test]
fn runtime_errors_carry_positions_in_the_template_that_raises_them() {
    use template_lang::value::Node;
    use template_lang::{Env, Partials, Registry, Template, execute};
    let registry = Registry::standard();
    // A macro defined in a partial and applied in the page reports where its own tag is
    // in the partial; the page's tags report where they are in the page.
    let page = "é\n  {.include defs}{a|apply m}\n{.include nope}{.eval 1 +}";
    let defs = "\n{.macro m}\n    {@|apply gone}{.end}";
    let template = Template::parse_strict(page).unwrap();
    let (partials, errors) = Partials::compile([("defs", defs)], registry);
    assert!(errors.is_empty());
    let env = Env {
        partials: &partials,
        ..Env::default()
    };
    let mut out = String::new();
    let data = Node::from_json_str(r#"{"a":1}"#).unwrap();
    let errors = execute(&template, &data, &env, &mut out);
    let seen: Vec<String> = errors
        .iter()
        .map(|e| {
            let pos = e.pos.map(|p| p.to_string()).unwrap_or_default();
            format!("{pos} {}", e.partial.as_deref().unwrap_or("page"))
        })
        .collect();
    assert_eq!(seen, ["3:5 page", "3:1 page", "3:16 page"]);

    // A loop failing at two tags on every pass reports each at its own place.
    let template =
        Template::parse_strict("{.repeated section xs}\n{@|apply a}{@|apply b}{.end}").unwrap();
    let data = Node::from_json_str(r#"{"xs":[1,2]}"#).unwrap();
    let errors = execute(&template, &data, &Env::default(), &mut out);
    let seen: Vec<String> = errors.iter().map(|e| e.pos.unwrap().to_string()).collect();
    assert_eq!(seen, ["2:1", "2:12", "2:1", "2:12"]);
}

#[test]
fn deep_nesting_is_rejected_not_overflowed() {
    let depth = 10_000;
    let t = format!(
        "{}x{}",
        "{.section a}".repeat(depth),
        "{.end}".repeat(depth)
    );
    let r = run(&t, r#"{"a":{"a":1}}"#);
    assert!(
        r.syntax
            .iter()
            .any(|e| e.contains("nested deeper than the limit of 128"))
    );
}

#[test]
fn limits_stop_runaway_templates() {
    use template_lang::value::Node;
    use template_lang::{Env, Limits, Template, execute};
    // Four nested loops of 30 elements: 810,000 iterations without the budget.
    let t = Template::parse_strict(
        "{.repeated section a}{.repeated section a}{.repeated section a}{.repeated section a}x{.end}{.end}{.end}{.end}",
    )
    .unwrap();
    fn level(depth: u32) -> String {
        let inner = if depth == 0 {
            "1".to_string()
        } else {
            format!("{{\"a\":{}}}", level(depth - 1))
        };
        format!("[{}]", vec![inner; 30].join(","))
    }
    let data = Node::from_json_str(&format!("{{\"a\":{}}}", level(3))).unwrap();
    let env = Env {
        limits: Limits {
            max_instructions: 100_000,
            ..Limits::default()
        },
        ..Env::default()
    };
    let mut out = String::new();
    let errors = execute(&t, &data, &env, &mut out);
    assert!(out.len() < 100_000);
    assert_eq!(
        errors.last().unwrap().message,
        "RuntimeError: Execution stopped: the instruction limit of 100000 was reached"
    );

    // The same loops printing more than the output limit allows.
    let env = Env {
        limits: Limits {
            max_output: 1 << 12,
            ..Limits::default()
        },
        ..Env::default()
    };
    let mut out = String::new();
    let errors = execute(&t, &data, &env, &mut out);
    assert!(out.len() <= (1 << 12) + 1);
    assert_eq!(
        errors.last().unwrap().message,
        "RuntimeError: Execution stopped: the output limit of 4096 bytes was reached"
    );
}

/// Runs `template` against `{"a":"x"}` with an instruction limit: the output and how many
/// errors were reported.
fn run_with_limit(template: &str, max_instructions: u64) -> (String, usize) {
    use template_lang::{Env, Limits, Template, execute, value::Node};
    let t = Template::parse_strict(template).unwrap();
    let data = Node::from_json_str(r#"{"a":"x"}"#).unwrap();
    let env = Env {
        limits: Limits {
            max_instructions,
            ..Limits::default()
        },
        ..Env::default()
    };
    let mut out = String::new();
    let errors = execute(&t, &data, &env, &mut out);
    (out, errors.len())
}

#[test]
fn the_instruction_limit_allows_exactly_that_many_instructions() {
    // Three variable tags are three instructions: a limit of 3 runs them all, a limit of 2
    // stops before the third with one error.
    assert_eq!(run_with_limit("{a}{a}{a}", 3), ("xxx".to_string(), 0));
    assert_eq!(run_with_limit("{a}{a}{a}", 2), ("xx".to_string(), 1));
}

#[test]
fn text_before_a_plain_variable_tag_counts_with_it_as_one_instruction() {
    // `<td>{@}` is the body of many small loops; its text and tag run as one instruction,
    // so the budget never stops between them. Text before a tag with formatters, or
    // before a block, is an instruction of its own.
    let t = "<{a}<{a}({a|html}){.section a}[{@}]{.end}";
    let full = "<x<x(x)[x]";
    assert_eq!(run_with_limit(t, 8), (full.to_string(), 0));
    assert_eq!(
        run_with_limit(t, 7),
        (full[..full.len() - 1].to_string(), 1)
    );
    assert_eq!(run_with_limit(t, 1), ("<x".to_string(), 1));
    assert_eq!(run_with_limit(t, 2), ("<x<x".to_string(), 1));
    assert_eq!(run_with_limit(t, 3), ("<x<x(".to_string(), 1));
}

/// A chain on the current node (`{@|...}`) runs in the current frame rather than a copy of
/// it; nothing may tell the difference. `format` resolves its arguments in the scope
/// enclosing the chain (here the element's frame, holding `@n`), a failed chain leaves no
/// failure behind for the next tag, and a partial's variables stay in the partial.
#[test]
fn formatters_on_the_current_node_see_what_a_frame_of_their_own_would() {
    let data = r#"{"items":["a{0}","b{0}"],"n":7}"#;
    let t = "{.repeated section items}{.var @n @index}{@|format @n},{.end}";
    assert_eq!(render(t, data), "a1,b2,");
    // The same chain on a value that is not the current node gets a frame of its own.
    let t = "{.repeated section items}{.var @n @index}{@index|json|format @n},{.end}";
    assert_eq!(render(t, data), "1,2,");
    let r = run("{.repeated section items}{@|date %Y}{n|json}{.end}", data);
    assert_eq!(r.out, "77");
    assert_eq!(r.runtime.len(), 2, "{:?}", r.runtime);
    let t = "{.repeated section items}{@|apply p.block}[{@v}]{.end}";
    let partials = [("p.block", "{.var @v @}<{@v}>")];
    assert_eq!(render_partials(t, data, &partials), "<a{0}>[]<b{0}>[]");
}

/// Names an element lacks resolve through the loop's enclosing frames, and what they gave is
/// remembered for the loop's later elements. Nothing may tell: elements that have the name
/// print their own, loops in other scopes and nested loops get their own scopes' values,
/// and a private partial still sees nothing past its frame.
#[test]
fn names_resolved_around_a_loop_follow_each_scope() {
    let partials = [("n.block", "{name}")];
    let data = r#"{
        "name": "root",
        "a": {"name": "A", "list": [{}, {"name": "own"}, {}]},
        "b": {"name": "B", "list": [{}, {}]},
        "c": {"list": [{}]},
        "outer": [{"name": "O1", "inner": [{}, {}]}, {"name": "O2", "inner": [{}]}]
    }"#;
    let t = "{.section a}{.repeated section list}{@|apply n.block},{.end}{.end}|\
             {.section b}{.repeated section list}{@|apply n.block},{.end}{.end}|\
             {.section c}{.repeated section list}{@|apply n.block},{.end}{.end}|\
             {.repeated section outer}{.repeated section inner}{@|apply n.block},{.end}{.end}";
    assert_eq!(
        render_partials(t, data, &partials),
        "A,own,A,|B,B,|root,|O1,O1,O2,"
    );
    let t = "{.section a}{.repeated section list}\
             {@|apply n.block}/{@|apply n.block private},{.end}{.end}";
    assert_eq!(render_partials(t, data, &partials), "A/,own/own,A/,");
}
