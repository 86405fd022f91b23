//! Executing compiled templates against data.

pub mod context;
pub(crate) mod engine;
pub mod expr;

use rustc_hash::FxHashMap;

use crate::compile::{Partials, Template};
use crate::error::Diagnostic;
use crate::value::{Node, Val};
pub use context::Ctx;
use expr::ExprLimits;

/// Limits that make a hostile template stop cleanly instead of hanging or exhausting memory.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Nested partial and macro applications (the reference's limit is 16).
    pub max_partial_depth: usize,
    /// Instructions executed per render.
    pub max_instructions: u64,
    /// Bytes in any one output buffer.
    pub max_output: usize,
    pub expr: ExprLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_partial_depth: 16,
            max_instructions: 10_000_000,
            max_output: 32 << 20,
            expr: ExprLimits::default(),
        }
    }
}

/// The embedding application's implementation of host tags (`<squarespace:...>`): it
/// evaluates attributes with [`Ctx::render_block`], pushes whatever data the tag provides
/// with [`Ctx::with_scope`], runs the body or a partial, and writes into `ctx.out`.
pub trait Host: Send + Sync {
    fn render_tag<'a>(&self, ctx: &mut Ctx<'a>, tag: &'a crate::compile::tree::HostTag);
}

/// Injectable documents for `{.inject @var NAME}`, by name.
pub type Injects = FxHashMap<Box<str>, Node>;

/// Everything an execution needs besides the template and the data.
pub struct Env<'a> {
    pub partials: &'a Partials,
    pub injects: &'a Injects,
    /// The locale for the i18n formatters; `None` runs without locale data (they then
    /// print nothing, as the reference does).
    pub locale: Option<icu_locale::Locale>,
    /// "Now" in epoch milliseconds; `None` reads the clock.
    pub now_ms: Option<f64>,
    pub limits: Limits,
    /// Reproduce the npm engine where it departs from the Java engine and from sense, for
    /// differential testing against it: names inside a section's `{.or}` resolve against the
    /// section's missing value (not the enclosing scope), and a tag whose formatter fails
    /// leaves its frame on the stack, shifting every later scope (as a thrown error does in
    /// the npm engine). Off by default.
    pub npm_compat: bool,
    /// Implements host tags; without one they render nothing.
    pub host: Option<&'a dyn Host>,
    /// Keep what `{@|apply name}` prints over an object with that object, and print it
    /// again wherever what it read from outside the object resolves the same
    /// ([`Ctx::run_recorded`]). For hosts whose data outlives an execution, such as a
    /// server's cached site content; off by default.
    pub keep_applied: bool,
}

impl Env<'_> {
    /// The current time in epoch milliseconds.
    pub fn now_ms(&self) -> f64 {
        self.now_ms.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as f64)
                .unwrap_or(0.0)
        })
    }
}

static NO_PARTIALS: std::sync::LazyLock<Partials> = std::sync::LazyLock::new(Partials::default);
static NO_INJECTS: std::sync::LazyLock<Injects> = std::sync::LazyLock::new(Injects::default);

impl Default for Env<'static> {
    fn default() -> Self {
        Env {
            partials: &NO_PARTIALS,
            injects: &NO_INJECTS,
            locale: Some(icu_locale::locale!("en")),
            now_ms: None,
            limits: Limits::default(),
            npm_compat: false,
            host: None,
            keep_applied: false,
        }
    }
}

/// Executes `template` against `data`, appending to `out`. Returns the execution errors
/// (rendering always goes on past them).
pub fn execute(
    template: &Template,
    data: &Node,
    env: &Env<'_>,
    out: &mut String,
) -> Vec<Diagnostic> {
    let mut ctx = Ctx::new(env, Val::Ref(data), std::mem::take(out));
    ctx.run_template(template);
    let (text, errors) = ctx.finish();
    *out = text;
    errors
}

impl Template {
    /// Executes against `data` with the default environment and returns the output.
    pub fn render(&self, data: &Node) -> String {
        let mut out = String::new();
        execute(self, data, &Env::default(), &mut out);
        out
    }
}
