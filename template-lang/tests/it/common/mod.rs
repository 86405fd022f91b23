//! Shared helpers for the engine's integration tests.
#![allow(dead_code)]

use template_lang::error::Phase;
use template_lang::value::Node;
use template_lang::{Env, Injects, Partials, Registry, Template, execute};

/// What one render produced.
pub struct Run {
    pub out: String,
    pub syntax: Vec<String>,
    pub runtime: Vec<String>,
}

/// Renders with partials and injects, collecting diagnostics.
pub fn run_with(
    template: &str,
    json: &str,
    partials: &[(&str, &str)],
    injects: &[(&str, &str)],
) -> Run {
    let registry = Registry::standard();
    let compiled = Template::compile(template, registry);
    let (partials, partial_errors) = Partials::compile(partials.iter().copied(), registry);
    let mut inj = Injects::default();
    for (k, v) in injects {
        inj.insert((*k).into(), Node::from_json_str(v).unwrap());
    }
    let env = Env {
        partials: &partials,
        injects: &inj,
        now_ms: Some(1_700_000_000_000.0),
        ..Env::default()
    };
    let data = Node::from_json_str(json).expect("test data is JSON");
    let mut out = String::new();
    let errors = execute(&compiled.template, &data, &env, &mut out);
    let mut syntax: Vec<String> = compiled.errors.iter().map(|e| e.message.clone()).collect();
    syntax.extend(partial_errors.iter().map(|e| e.message.clone()));
    assert!(errors.iter().all(|e| e.phase == Phase::Runtime));
    Run {
        out,
        syntax,
        runtime: errors.iter().map(|e| e.message.clone()).collect(),
    }
}

pub fn run(template: &str, json: &str) -> Run {
    run_with(template, json, &[], &[])
}

/// Renders a template that must compile cleanly.
pub fn render(template: &str, json: &str) -> String {
    let r = run(template, json);
    assert!(
        r.syntax.is_empty(),
        "unexpected syntax errors: {:?}",
        r.syntax
    );
    r.out
}

pub fn render_partials(template: &str, json: &str, partials: &[(&str, &str)]) -> String {
    let r = run_with(template, json, partials, &[]);
    assert!(
        r.syntax.is_empty(),
        "unexpected syntax errors: {:?}",
        r.syntax
    );
    r.out
}
