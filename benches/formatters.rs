//! The formatters real pages call most, one by one: `formatters/NAME` executes a one-tag
//! template such as `{price|money}` against a small page context built from the
//! product-card workload (a product with variants and an image, in the shapes the
//! commerce and content plugins read). Each is checked once for its expected output
//! before it is timed, so a formatter that silently prints nothing cannot look fast.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use std::hint::black_box;
use template_lang::value::Node;
use template_lang::{Env, Template, execute};
use tessera_benches::{NOW_MS, PRODUCT_CARD};

/// (name, template, a piece the output must contain, or the whole output when `exact`).
struct Case {
    name: &'static str,
    template: &'static str,
    expect: &'static str,
    exact: bool,
}

const CASES: [Case; 6] = [
    Case {
        name: "html",
        template: "{item.excerpt|html}",
        expect: "&lt;p&gt;Wheel-thrown stoneware mug",
        exact: false,
    },
    Case {
        name: "date",
        template: "{item.publishOn|date %A, %B %e, %Y %l:%M %p}",
        expect: "Tuesday, October 15, 2024  2:30 PM",
        exact: true,
    },
    Case {
        name: "money",
        template: "{item.price|money}",
        expect: "$1,234.50",
        exact: true,
    },
    Case {
        name: "product-price",
        template: "{item|product-price}",
        expect: "from <span class=\"sqs-money-native\">25.60</span>",
        exact: false,
    },
    Case {
        name: "image-meta",
        template: "{item|image-meta}",
        expect: "data-image-dimensions=\"1500x1200\" data-image-focal-point=\"0.5,0.4\"",
        exact: false,
    },
    Case {
        name: "json",
        template: "{item.structuredContent|json}",
        expect: "{\"productType\":1,\"variantOptionOrdering\":[\"Size\"],\"variants\":[{\"sku\":\"MUG-SG-S\"",
        exact: false,
    },
];

/// The product card's context, plus the fields the date and money formatters read.
fn context() -> Node {
    let mut data: serde_json::Value =
        serde_json::from_str(PRODUCT_CARD.data).expect("product-card data is JSON");
    let item = &mut data["item"];
    // 2024-10-15 18:30 UTC, in the site's New York time zone.
    item["publishOn"] = json!(1_729_017_000_000_u64);
    item["price"] = json!({"decimalValue": "1234.50", "currencyCode": "USD"});
    Node::from_json(&data)
}

fn formatters(c: &mut Criterion) {
    let data = context();
    let env = Env {
        now_ms: Some(NOW_MS),
        ..Env::default()
    };
    let mut g = c.benchmark_group("formatters");
    g.throughput(Throughput::Elements(1));
    for case in &CASES {
        let template = Template::parse_strict(case.template).expect("compiles");
        let mut out = String::new();
        let errors = execute(&template, &data, &env, &mut out);
        assert!(errors.is_empty(), "{}: {errors:?}", case.name);
        if case.exact {
            assert_eq!(out, case.expect, "{}", case.name);
        } else {
            assert!(out.contains(case.expect), "{}: printed {out:?}", case.name);
        }
        g.bench_function(case.name, |b| {
            b.iter(|| {
                out.clear();
                execute(&template, black_box(&data), &env, &mut out);
                out.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, formatters);
criterion_main!(benches);
