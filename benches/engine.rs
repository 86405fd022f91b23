//! The JSON-T engine on a large realistic page: compile, and execute from a compiled
//! template. Throughput is reported per execution (`elem/s` = executions per second).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use template_lang::{Env, Injects, Registry, Template, execute};
use tessera_benches::BLOG_PAGE;

fn engine(c: &mut Criterion) {
    let w = BLOG_PAGE.prepare();
    let injects = Injects::default();
    let env = Env {
        partials: &w.partials,
        injects: &injects,
        now_ms: Some(1_735_732_800_000.0),
        ..Env::default()
    };
    let mut out = String::new();
    let errors = execute(&w.template, &w.data, &env, &mut out);
    assert!(errors.is_empty(), "{errors:?}");

    let mut g = c.benchmark_group("compile");
    g.throughput(Throughput::Elements(1));
    g.bench_function(BLOG_PAGE.name, |b| {
        b.iter(|| Template::compile(black_box(BLOG_PAGE.template), Registry::standard()))
    });
    g.finish();

    let mut g = c.benchmark_group("execute");
    g.throughput(Throughput::Elements(1));
    g.bench_function(BLOG_PAGE.name, |b| {
        b.iter(|| {
            out.clear();
            execute(&w.template, black_box(&w.data), &env, &mut out);
            out.len()
        })
    });
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
