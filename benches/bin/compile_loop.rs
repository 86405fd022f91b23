//! `compile-loop`: compiles a page (its template and its partials) many times and prints
//! the mean time per compile, for `benches/compile-wright.sh`, which runs it in turn with
//! the npm reference engine's loop so that both see the same machine.
//!
//! ```text
//! compile-loop [--repeat N | --seconds S] [--host-prefix P] PAGE...
//! ```
//!
//! A PAGE is a JSON file `{"template": SOURCE, "partials": {NAME: SOURCE, ...}}` or a
//! workload folder (`template.html` and `partials.json`). A compile is what the site
//! renderer does for a layout and its blocks: `Template::compile_with` for the template,
//! `Partials::compile_with` for the partials, with the standard formatters; `--host-prefix
//! squarespace:` compiles host tags as the renderer does (without it they are text, as the
//! npm engine reads them). Every compiled page is dropped inside the loop, as a template
//! cache drops an old version. The page must compile without syntax errors.
//!
//! It prints one line per page: `PAGE US`, the mean microseconds per compile over N
//! compiles (default 2000), or over as many as fit in S seconds, after 200 to warm up.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use template_lang::{CompileOptions, Partials, Registry, Template};
use tessera_benches as _;

struct Page {
    template: String,
    partials: Vec<(String, String)>,
}

fn read(path: &Path) -> Page {
    let text = |p: &Path| {
        std::fs::read_to_string(p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
    };
    let (template, partials) = if path.is_dir() {
        let partials = path.join("partials.json");
        let partials = if partials.exists() {
            serde_json::from_str(&text(&partials)).expect("partials.json is a JSON object")
        } else {
            serde_json::Map::new()
        };
        (text(&path.join("template.html")), partials)
    } else {
        let mut page: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(&text(path)).expect("a page file is a JSON object");
        let template = match page.remove("template") {
            Some(serde_json::Value::String(s)) => s,
            _ => panic!("{}: \"template\" must be a string", path.display()),
        };
        let partials = match page.remove("partials") {
            Some(serde_json::Value::Object(m)) => m,
            None => serde_json::Map::new(),
            _ => panic!("{}: \"partials\" must be an object", path.display()),
        };
        (template, partials)
    };
    let partials = partials
        .into_iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => (k, s),
            _ => panic!("{}: partial {k} must be a string", path.display()),
        })
        .collect();
    Page { template, partials }
}

fn main() {
    let mut repeat = 2000usize;
    let mut seconds: Option<f64> = None;
    let mut options = CompileOptions::default();
    let mut pages = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--repeat N");
            }
            "--seconds" => {
                seconds = Some(
                    args.next()
                        .and_then(|s| s.parse().ok())
                        .expect("--seconds S"),
                );
            }
            "--host-prefix" => options.host_prefix = Some(args.next().expect("--host-prefix P")),
            _ if arg.starts_with("--") => {
                eprintln!(
                    "usage: compile-loop [--repeat N | --seconds S] [--host-prefix P] PAGE..."
                );
                std::process::exit(2);
            }
            _ => pages.push(arg),
        }
    }
    let registry = Registry::standard();
    for name in pages {
        let page = read(Path::new(&name));
        let compile = || {
            let compiled = Template::compile_with(&page.template, registry, &options);
            let partials = Partials::compile_with(
                page.partials.iter().map(|(k, v)| (k.as_str(), v.as_str())),
                registry,
                &options,
            );
            (compiled, partials)
        };
        let (compiled, (_, partial_errors)) = compile();
        assert!(
            compiled.errors.is_empty() && partial_errors.is_empty(),
            "{name} has syntax errors: {:?} {partial_errors:?}",
            compiled.errors
        );
        for _ in 0..200 {
            black_box(compile());
        }
        let t0 = Instant::now();
        let mut n = 0usize;
        match seconds {
            None => {
                for _ in 0..repeat {
                    black_box(compile());
                }
                n = repeat;
            }
            Some(s) => {
                while n < 10 || t0.elapsed().as_secs_f64() < s {
                    black_box(compile());
                    n += 1;
                }
            }
        }
        let us = t0.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("{name} {us:.3}");
    }
}
