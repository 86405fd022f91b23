//! Workloads shared by the `cargo bench` suites and `compare-reference.sh`: each is a
//! folder under `workloads/` holding `template.html`, `data.json` and `partials.json`.

use template_lang::value::Node;

// The allocator `tessera serve` runs with (its own file, compiled here too), so page and
// engine figures match the server; every suite links this crate (the ones that need nothing
// else from it say `use tessera_benches as _`).
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

#[path = "../api/src/allocator.rs"]
mod allocator;
use template_lang::{Compiled, Diagnostic, Env, Injects, Partials, Registry, Template, execute};

/// The demo folders the tenant-scale tools (`bin/gen_tenants.rs`, `bin/tenant_load.rs`)
/// stamp tenants from, in the order tenants take them (`tenants::generate::design_of`):
/// tenant 1, the first hot one, is a store, then a club blog, a business site and a small
/// shop with a course.
pub const SCALE_DESIGNS: [&str; 4] = ["loam-lantern", "skyward", "quillback", "harbor-lane"];

/// "Now" for every execution (2025-01-01T12:00:00Z), so date formatters print the same text
/// in every run and in `compare-reference.sh`, which passes the same instant.
pub const NOW_MS: f64 = 1_735_732_800_000.0;

/// A template with its data and partials, as files on disk.
pub struct Workload {
    pub name: &'static str,
    /// `small`, `medium` or `large`: the first part of the benchmark names, so that
    /// `cargo bench -- compile/large` picks out one size.
    pub size: &'static str,
    pub template: &'static str,
    pub data: &'static str,
    pub partials: &'static str,
    /// The least a render prints: about the size its documentation says (a broken data
    /// file would print far less).
    pub min_bytes: usize,
}

/// The workload in `workloads/<name>/`.
macro_rules! workload {
    ($name:literal, $size:literal, $min_bytes:literal) => {
        Workload {
            name: $name,
            size: $size,
            template: include_str!(concat!("workloads/", $name, "/template.html")),
            data: include_str!(concat!("workloads/", $name, "/data.json")),
            partials: include_str!(concat!("workloads/", $name, "/partials.json")),
            min_bytes: $min_bytes,
        }
    };
}

/// The small page: one product's summary card (image, price range, sale badge, variant
/// picker and add-to-cart button; about 3.6 KB of output, mostly from the commerce
/// formatters' built-in templates).
pub const PRODUCT_CARD: Workload = workload!("product-card", "small", 3_000);

/// The medium page: a blog's first page of 10 posts with the site navigation (a partial),
/// dates, authors, categories, excerpts and pagination (about 8 KB of output).
pub const BLOG_LIST: Workload = workload!("blog-list", "medium", 7_000);

/// The blog page: a full page with navigation, 48 posts, partials, dates and escaping
/// (about 54 KB of output).
pub const BLOG_PAGE: Workload = workload!("blog-page", "large", 40_000);

/// The product grid: a store collection page of 48 products with prices, sale and
/// sold-out status, images and add-to-cart buttons (about 55 KB of output).
pub const PRODUCT_GRID: Workload = workload!("product-grid", "large", 40_000);

/// Every workload, smallest first, for suites that run them all.
pub const ALL: [Workload; 4] = [PRODUCT_CARD, BLOG_LIST, BLOG_PAGE, PRODUCT_GRID];

/// A workload compiled and ready to execute.
pub struct Prepared {
    pub template: Template,
    pub partials: Partials,
    pub data: Node,
    pub injects: Injects,
    /// The workload's least output ([`Workload::min_bytes`]).
    pub min_bytes: usize,
}

impl Workload {
    /// The partials as (name, source) pairs, read from `partials.json`.
    pub fn partial_sources(&self) -> Vec<(String, String)> {
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(self.partials).expect("partials are a JSON object");
        map.into_iter()
            .map(|(k, v)| (k, v.as_str().expect("partial source").to_string()))
            .collect()
    }

    /// Compiles the template and partials (failing on syntax errors) and parses the data.
    pub fn prepare(&self) -> Prepared {
        let (compiled, partials, errors) = compile(self.template, &self.partial_sources());
        assert!(
            compiled.errors.is_empty() && errors.is_empty(),
            "{} compiles: {:?} {errors:?}",
            self.name,
            compiled.errors
        );
        Prepared {
            template: compiled.template,
            partials,
            data: Node::from_json_str(self.data).expect("workload data is JSON"),
            injects: Injects::default(),
            min_bytes: self.min_bytes,
        }
    }
}

/// Compiles a page: its template and its partials, with the standard formatters. This is
/// the whole of what the `compile` suite times (a page is not usable without its partials).
pub fn compile(
    template: &str,
    partials: &[(String, String)],
) -> (Compiled, Partials, Vec<Diagnostic>) {
    let registry = Registry::standard();
    let compiled = Template::compile(template, registry);
    let (partials, errors) = Partials::compile(
        partials.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        registry,
    );
    (compiled, partials, errors)
}

impl Prepared {
    /// The environment every suite executes in: these partials, the `en` locale and a
    /// fixed "now".
    pub fn env(&self) -> Env<'_> {
        Env {
            partials: &self.partials,
            injects: &self.injects,
            now_ms: Some(NOW_MS),
            ..Env::default()
        }
    }

    /// Executes once and returns the output, failing on any execution error or a page
    /// shorter than the workload's least (the suites call this before timing, so that they
    /// never time a page that renders errors or a broken data file).
    pub fn render(&self) -> String {
        let mut out = String::new();
        let errors = execute(&self.template, &self.data, &self.env(), &mut out);
        assert!(errors.is_empty(), "execution errors: {errors:?}");
        assert!(
            out.len() >= self.min_bytes,
            "the page printed {} bytes, at least {} were meant",
            out.len(),
            self.min_bytes
        );
        out
    }
}
