//! Workloads shared by the `cargo bench` suites and `compare-reference.sh`: each is a
//! folder under `workloads/` holding `template.html`, `data.json` and `partials.json`.

use template_lang::value::Node;
use template_lang::{Partials, Registry, Template};

/// A template with its data and partials, as files on disk.
pub struct Workload {
    pub name: &'static str,
    pub template: &'static str,
    pub data: &'static str,
    pub partials: &'static str,
}

/// The blog page: a full page with navigation, 48 posts, partials, dates and escaping
/// (about 54 KB of output).
pub const BLOG_PAGE: Workload = Workload {
    name: "blog-page",
    template: include_str!("workloads/blog-page/template.html"),
    data: include_str!("workloads/blog-page/data.json"),
    partials: include_str!("workloads/blog-page/partials.json"),
};

/// The product grid: a store collection page of 48 products with prices, sale and
/// sold-out status, images and add-to-cart buttons (about 55 KB of output).
pub const PRODUCT_GRID: Workload = Workload {
    name: "product-grid",
    template: include_str!("workloads/product-grid/template.html"),
    data: include_str!("workloads/product-grid/data.json"),
    partials: include_str!("workloads/product-grid/partials.json"),
};

/// Every workload, for suites that run them all.
pub const ALL: [Workload; 2] = [BLOG_PAGE, PRODUCT_GRID];

/// A workload compiled and ready to execute.
pub struct Prepared {
    pub template: Template,
    pub partials: Partials,
    pub data: Node,
}

impl Workload {
    /// Compiles the template and partials (failing on syntax errors) and parses the data.
    pub fn prepare(&self) -> Prepared {
        let registry = Registry::standard();
        let template = Template::parse_strict(self.template).expect("workload template compiles");
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(self.partials).expect("partials are a JSON object");
        let sources: Vec<(String, String)> = map
            .into_iter()
            .map(|(k, v)| (k, v.as_str().expect("partial source").to_string()))
            .collect();
        let (partials, errors) = Partials::compile(
            sources.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            registry,
        );
        assert!(errors.is_empty(), "workload partials compile: {errors:?}");
        Prepared {
            template,
            partials,
            data: Node::from_json_str(self.data).expect("workload data is JSON"),
        }
    }
}
