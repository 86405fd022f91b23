//! `tessera render`: renders one template against JSON data, for template authors and the
//! conformance runner (`../shared/conformance/README.md`, "Runner contract").
//!
//! stdout carries exactly the rendered text; diagnostics go to stderr as
//! `file:line:col: message` with the offending line. Exit status: 0 rendered (execution
//! errors are warnings), 1 the template or a partial has syntax errors (the best-effort
//! rendering is still printed), 2 usage errors or unreadable input (nothing printed).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Args;
use template_lang::value::Node;
use template_lang::{Env, Injects, Limits, Partials, Registry, Template, execute};

/// Render one JSON-Template file against JSON data, to stdout (diagnostics on stderr).
#[derive(Args, Debug)]
pub struct RenderArgs {
    /// Template file (UTF-8 JSON-Template source).
    template: PathBuf,
    /// JSON document used as the data (default: an empty object).
    #[arg(long, value_name = "FILE")]
    data: Option<PathBuf>,
    /// JSON object mapping partial names to template source.
    #[arg(long, value_name = "FILE")]
    partials: Option<PathBuf>,
    /// Makes the JSON document in FILE injectable as NAME (`{.inject @var NAME}`).
    #[arg(long, value_name = "NAME=FILE")]
    inject: Vec<String>,
    /// Locale for the i18n formatters (BCP 47), or `none` for no locale data.
    #[arg(long, value_name = "TAG", default_value = "en")]
    locale: String,
    /// "Now" in epoch milliseconds, for clock-based formatters.
    #[arg(long, value_name = "EPOCH_MS", allow_hyphen_values = true)]
    now: Option<i64>,
    /// Reproduce the npm engine's deviations (section `{.or}` scope, the stack left behind
    /// by a failing formatter), for differential testing against it. See docs/src/template-authors.md.
    #[arg(long)]
    npm_compat: bool,
    /// Compile once, execute N times, print the output once and the mean time on stderr;
    /// then compile the template and its partials N times and print that mean too.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    repeat: Option<u64>,
}

/// Runs `f` up to `warm_up` times, then `n` times, and returns the mean microseconds of
/// those `n` runs.
fn mean_us(n: u64, warm_up: u64, mut f: impl FnMut()) -> f64 {
    for _ in 0..n.min(warm_up) {
        f();
    }
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// An input problem: reported on stderr, exit status 2.
struct InputError(String);

fn read_text(path: &PathBuf, what: &str) -> Result<String, InputError> {
    std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("cannot read {what} {}: {e}", path.display())))
}

fn read_json(path: &PathBuf, what: &str) -> Result<Node, InputError> {
    let text = read_text(path, what)?;
    Node::from_json_str(&text)
        .map_err(|e| InputError(format!("invalid JSON in {what} {}: {e}", path.display())))
}

pub fn run(args: RenderArgs) -> ExitCode {
    match render(&args) {
        Ok(code) => code,
        Err(InputError(message)) => {
            eprintln!("tessera render: {message}");
            ExitCode::from(2)
        }
    }
}

fn render(args: &RenderArgs) -> Result<ExitCode, InputError> {
    let registry = Registry::standard();
    let file = args.template.display().to_string();
    let source = read_text(&args.template, "template")?;

    let locale = match args.locale.as_str() {
        "none" => None,
        tag => Some(
            tag.parse::<icu_locale::Locale>()
                .map_err(|e| InputError(format!("invalid locale {tag:?}: {e}")))?,
        ),
    };

    let mut partial_sources: Vec<(String, String)> = Vec::new();
    if let Some(path) = &args.partials {
        let text = read_text(path, "partials")?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| InputError(format!("invalid JSON in partials {}: {e}", path.display())))?;
        let serde_json::Value::Object(map) = value else {
            return Err(InputError(format!(
                "partials {} must be a JSON object of name -> template source",
                path.display()
            )));
        };
        for (name, v) in map {
            let serde_json::Value::String(src) = v else {
                return Err(InputError(format!(
                    "partial '{name}' must be a string of template source"
                )));
            };
            partial_sources.push((name, src));
        }
    }

    let mut injects = Injects::default();
    for spec in &args.inject {
        let Some((name, path)) = spec.split_once('=').filter(|(n, _)| !n.is_empty()) else {
            return Err(InputError(format!(
                "--inject expects NAME=FILE, got: {spec}"
            )));
        };
        injects.insert(
            name.into(),
            read_json(&PathBuf::from(path), &format!("inject '{name}'"))?,
        );
    }

    let data = match &args.data {
        Some(path) => read_json(path, "data")?,
        None => Node::object(Vec::new()),
    };

    // The template and its partials, compiled: once for the run, N more times for --repeat.
    let compile_all = || {
        (
            Template::compile(&source, registry),
            Partials::compile(
                partial_sources
                    .iter()
                    .map(|(n, s)| (n.as_str(), s.as_str())),
                registry,
            ),
        )
    };
    let (compiled, (partials, partial_errors)) = compile_all();
    let mut stderr = std::io::stderr().lock();
    for e in &compiled.errors {
        let _ = writeln!(stderr, "{}", e.render(&file, Some(&source)));
    }
    for e in &partial_errors {
        let src = e
            .partial
            .as_deref()
            .and_then(|p| partial_sources.iter().find(|(n, _)| n == p))
            .map(|(_, s)| s.as_str());
        let _ = writeln!(stderr, "{}", e.render(&file, src));
    }
    let syntax_errors = compiled.errors.len() + partial_errors.len();

    let env = Env {
        partials: &partials,
        injects: &injects,
        locale,
        now_ms: args.now.map(|n| n as f64),
        limits: Limits::default(),
        npm_compat: args.npm_compat,
        host: None,
        // One execution per process: nothing to keep output for.
        keep_applied: false,
    };
    let template = compiled.template;
    let mut out = String::new();
    let warnings = execute(&template, &data, &env, &mut out);

    if let Some(n) = args.repeat {
        let mut buf = String::with_capacity(out.len());
        let exec_us = mean_us(n, 2000, || {
            buf.clear();
            execute(&template, &data, &env, &mut buf);
        });
        let _ = writeln!(
            stderr,
            "repeat: {n} executions, mean {exec_us:.3} us per execution"
        );
        let compile_us = mean_us(n, 200, || {
            std::hint::black_box(compile_all());
        });
        let _ = writeln!(
            stderr,
            "repeat: {n} compiles of the template and its partials, mean {compile_us:.3} us per compile"
        );
    }

    for w in &warnings {
        let src = match &w.partial {
            None => Some(source.as_str()),
            Some(p) => partial_sources
                .iter()
                .find(|(n, _)| n == p)
                .map(|(_, s)| s.as_str()),
        };
        let _ = writeln!(stderr, "warning: {}", w.render(&file, src));
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
    Ok(if syntax_errors > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
