//! The JSON-T engine on realistic pages of three sizes (a product card, a blog list of 10
//! posts, and two large pages: a 48-post blog page and a 48-product store grid).
//!
//! - `compile/SIZE/NAME`: parse and compile the page's template and partials.
//! - `execute/SIZE/NAME`: execute the compiled page against its context into a reused
//!   buffer.
//! - `execute/memcpy/NAME`: copy the finished output of each large page into the same kind
//!   of buffer: the floor any engine could reach, which `ratios.sh` compares against.
//!
//! Throughput is reported per execution (`elem/s` = executions per second).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use template_lang::execute;
use tessera_benches::{ALL, compile};

fn compile_suite(c: &mut Criterion) {
    let mut g = c.benchmark_group("compile");
    g.throughput(Throughput::Elements(1));
    for w in &ALL {
        let partials = w.partial_sources();
        // Fail before timing if the page does not compile cleanly.
        let (compiled, _, errors) = compile(w.template, &partials);
        assert!(
            compiled.errors.is_empty() && errors.is_empty(),
            "{}",
            w.name
        );
        g.bench_function(BenchmarkId::new(w.size, w.name), |b| {
            b.iter(|| compile(black_box(w.template), black_box(&partials)))
        });
    }
    g.finish();
}

fn execute_suite(c: &mut Criterion) {
    let mut g = c.benchmark_group("execute");
    g.throughput(Throughput::Elements(1));
    for w in &ALL {
        let page = w.prepare();
        let env = page.env();
        let expected = page.render();
        let mut out = String::new();
        g.bench_function(BenchmarkId::new(w.size, w.name), |b| {
            b.iter(|| {
                out.clear();
                execute(&page.template, black_box(&page.data), &env, &mut out);
                out.len()
            })
        });
        if w.size == "large" {
            // The same bytes, copied: what executing would cost if it were free.
            let mut out = String::with_capacity(expected.len());
            g.bench_function(BenchmarkId::new("memcpy", w.name), |b| {
                b.iter(|| {
                    out.clear();
                    out.push_str(black_box(&expected));
                    out.len()
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, compile_suite, execute_suite);
criterion_main!(benches);
