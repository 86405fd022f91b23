//! The parse-and-execute entry point shared by the `cargo fuzz` target (`fuzz/`) and the
//! test that replays its corpus, and the random stream of the property tests. Not part of
//! the stable API.
//!
//! Input layout: template source, then a NUL byte, then JSON data, then optionally a NUL
//! byte and the source of a partial named `p` (so inputs can exercise `apply p`).

use crate::exec::{Env, Injects, Limits, execute};
use crate::value::Node;
use crate::{CompileOptions, Partials, Registry, Template};

/// Compiles and executes whatever `input` holds. Must never panic, hang or exhaust memory.
pub fn parse_and_execute(input: &[u8]) -> String {
    let mut parts = input.splitn(3, |&b| b == 0);
    let template = String::from_utf8_lossy(parts.next().unwrap_or_default());
    let data = parts
        .next()
        .and_then(|j| std::str::from_utf8(j).ok())
        .and_then(|j| Node::from_json_str(j).ok())
        .unwrap_or_else(|| Node::object(Vec::new()));
    let partial = parts.next().map(String::from_utf8_lossy);

    let registry = Registry::standard();
    // Every third input also exercises the host-tag parser.
    let options = CompileOptions {
        host_prefix: input
            .len()
            .is_multiple_of(3)
            .then(|| "squarespace:".to_string()),
        ..CompileOptions::default()
    };
    let compiled = Template::compile_with(&template, registry, &options);
    let (partials, _) = Partials::compile(partial.as_deref().map(|p| ("p", p)), registry);
    let injects = Injects::default();
    let env = Env {
        partials: &partials,
        injects: &injects,
        locale: Some(icu_locale::locale!("en")),
        now_ms: Some(1_700_000_000_000.0),
        limits: Limits {
            max_instructions: 200_000,
            max_output: 1 << 20,
            ..Limits::default()
        },
        npm_compat: input.len().is_multiple_of(2),
        host: None,
        keep_applied: false,
    };
    let mut out = String::new();
    execute(&compiled.template, &data, &env, &mut out);
    out
}

/// A deterministic stream of pseudo-random numbers (xorshift64) for property tests, so a
/// failing case is the same on every run. `seed` must not be zero.
pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
