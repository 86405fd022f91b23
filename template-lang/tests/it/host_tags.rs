//! Host tags: compiled as instructions (attributes and bodies are templates of their own),
//! rendered by the embedding application's `Host`.

use std::sync::Arc;

use template_lang::compile::tree::HostTag;
use template_lang::value::{Node, Val};
use template_lang::{CompileOptions, Ctx, Env, Host, Partials, Registry, Template, execute};

/// A host with three tags: `greet name=".."` prints a greeting, `list` pushes a scope with
/// `items` and runs its body, `card template=".."` applies a partial to its `of` value.
struct TestHost;

impl Host for TestHost {
    fn render_tag<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        match &*tag.name {
            "greet" => {
                let name = tag
                    .attr("name")
                    .map(|b| ctx.render_block(b))
                    .unwrap_or_default();
                ctx.out.push_str(&format!("Hello {name}"));
            }
            "list" => {
                let n: usize = tag
                    .attr("count")
                    .map(|b| ctx.render_block(b))
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0);
                let items = Node::array((1..=n).map(|i| Node::Number(i as f64)).collect());
                let scope = Node::object(vec![(Arc::from("items"), items)]);
                if let Some(body) = tag.body {
                    ctx.with_scope(Val::Own(scope), |ctx| ctx.run_block(body));
                }
            }
            _ => ctx.out.push('?'),
        }
    }
}

fn options() -> CompileOptions {
    CompileOptions {
        host_prefix: Some("x:".into()),
        ..CompileOptions::default()
    }
}

fn render(source: &str, data: &str) -> String {
    let c = Template::compile_with(source, Registry::standard(), &options());
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    let partials = Partials::default();
    let env = Env {
        partials: &partials,
        host: Some(&TestHost),
        ..Env::default()
    };
    let mut out = String::new();
    let errors = execute(
        &c.template,
        &Node::from_json_str(data).unwrap(),
        &env,
        &mut out,
    );
    assert!(errors.is_empty(), "{errors:?}");
    out
}

#[test]
fn attributes_evaluate_in_the_scope_of_the_tag() {
    assert_eq!(
        render(r#"<x:greet name="{who|html}" />!"#, r#"{"who":"<Ann>"}"#),
        "Hello &lt;Ann&gt;!"
    );
    assert_eq!(
        render(
            r#"{.repeated section people}<x:greet name="{@}"/>{.alternates with}, {.end}"#,
            r#"{"people":["A","B"]}"#
        ),
        "Hello A, Hello B"
    );
}

#[test]
fn bodies_run_in_the_tag_scope_with_outer_names_visible() {
    let t = r#"<x:list count="{n}">{.repeated section items}{@}{title}{.end}</x:list>"#;
    assert_eq!(render(t, r#"{"n":3,"title":"-"}"#), "1-2-3-");
    // Inside an HTML attribute value, as real templates do.
    let t = r#"<nav class="x <x:list count="{n}">{.if items.0}has-items{.end}</x:list>">"#;
    assert_eq!(render(t, r#"{"n":1}"#), r#"<nav class="x has-items">"#);
}

#[test]
fn without_a_prefix_or_a_host_they_are_inert() {
    // The reference engines know no host tags: text, with the tags inside still working.
    let c = Template::compile(r#"<x:greet name="{who}" />"#, Registry::standard());
    assert_eq!(
        c.template
            .render(&Node::from_json_str(r#"{"who":"A"}"#).unwrap()),
        r#"<x:greet name="A" />"#
    );
    // Compiled as host tags but executed without a host: nothing.
    let c = Template::compile_with("a<x:greet/>b", Registry::standard(), &options());
    assert_eq!(c.template.render(&Node::Null), "ab");
}

#[test]
fn errors_inside_attributes_point_into_the_source() {
    let c = Template::compile_with(
        "line\n  <x:greet name=\"{a|nope}\"/>",
        Registry::standard(),
        &options(),
    );
    assert_eq!(c.errors.len(), 1);
    assert_eq!(
        c.errors[0].message,
        "SyntaxError: Formatter 'nope' is unknown"
    );
    assert_eq!(c.errors[0].pos.unwrap().to_string(), "2:18");
}

/// A host that keeps the body of a `keep` tag and runs what it kept at every `replay`
/// tag, whichever template that is in.
#[derive(Default)]
struct Replaying {
    kept: std::sync::Mutex<Option<template_lang::compile::tree::Block>>,
}

impl Host for Replaying {
    fn render_tag<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a HostTag) {
        match &*tag.name {
            "keep" => *self.kept.lock().unwrap() = tag.body,
            _ => {
                let kept = *self.kept.lock().unwrap();
                if let Some(block) = kept {
                    ctx.run_block(block);
                }
            }
        }
    }
}

#[test]
fn a_block_of_another_template_runs_the_instructions_of_the_running_one() {
    // A block is a range of its template's instructions, and nothing ties it to that
    // template: a host may run it while another template runs. It then runs that
    // template's instructions in the same range, whose parts are that template's too
    // (the executor reads them unchecked; test builds assert each read).
    let run = |source: &str, host: &Replaying| {
        let c = Template::compile_with(source, Registry::standard(), &options());
        assert!(c.errors.is_empty(), "{:?}", c.errors);
        let partials = Partials::default();
        let env = Env {
            partials: &partials,
            host: Some(host),
            ..Env::default()
        };
        let data = Node::from_json_str(r#"{"a":{"b":"<B>"},"d":"D"}"#).unwrap();
        let mut out = String::new();
        execute(&c.template, &data, &env, &mut out);
        out
    };
    let host = Replaying::default();
    // Instructions are laid out innermost block first: the kept body (a section and two
    // variables) is the three instructions after the section's body.
    run("<x:keep>{.section a}{b}{.end}{d}{d}</x:keep>", &host);
    // The same range here: two variables with formatters and a section, whose formatter
    // calls and body are this template's.
    let other = "{d|html}{d|json}{.section a}{b|html}{.end}<x:replay/>";
    let alone = run(other.trim_end_matches("<x:replay/>"), &Replaying::default());
    assert_eq!(alone, "D\"D\"&lt;B&gt;");
    assert_eq!(run(other, &host), alone.repeat(2));
}
