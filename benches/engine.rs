//! The JSON-T engine on large realistic pages (a blog page; a commerce-heavy product grid):
//! compile, and execute from a compiled template. Throughput is reported per execution
//! (`elem/s` = executions per second).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use template_lang::{Env, Injects, Registry, Template, execute};
use tessera_benches::ALL;

fn engine(c: &mut Criterion) {
    for workload in ALL {
        let w = workload.prepare();
        let injects = Injects::default();
        let env = Env {
            partials: &w.partials,
            injects: &injects,
            now_ms: Some(1_735_732_800_000.0),
            ..Env::default()
        };
        let mut out = String::new();
        let errors = execute(&w.template, &w.data, &env, &mut out);
        assert!(errors.is_empty(), "{}: {errors:?}", workload.name);

        let mut g = c.benchmark_group("compile");
        g.throughput(Throughput::Elements(1));
        g.bench_function(workload.name, |b| {
            b.iter(|| Template::compile(black_box(workload.template), Registry::standard()))
        });
        g.finish();

        let mut g = c.benchmark_group("execute");
        g.throughput(Throughput::Elements(1));
        g.bench_function(workload.name, |b| {
            b.iter(|| {
                out.clear();
                execute(&w.template, black_box(&w.data), &env, &mut out);
                out.len()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, engine);
criterion_main!(benches);
