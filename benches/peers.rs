//! Tessera's engine against minijinja, tera, handlebars and askama on the classic
//! big-table and teams benchmarks (templates and data in `peers/engines.rs`):
//! `peers/big-table/ENGINE` and `peers/teams/ENGINE`, one execution per iteration into a
//! reused buffer. Every engine's output is checked byte for byte against Tessera's before
//! anything is timed.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use tessera_benches as _;

#[path = "peers/engines.rs"]
mod engines;
use engines::{Engine, Visit, render_once};

/// Times each engine it visits in one criterion group, Tessera (visited first) setting
/// the output the others must match.
struct Suite<'g, 'c> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    workload: &'static str,
    expected: Option<Vec<u8>>,
}

impl Visit for Suite<'_, '_> {
    fn visit<E: Engine>(&mut self, name: &'static str, engine: &E) {
        let output = render_once(engine);
        match &self.expected {
            None => self.expected = Some(output),
            Some(expected) => assert!(
                output == *expected,
                "{}: {name}'s output differs from tessera's",
                self.workload
            ),
        }
        let mut out = E::Buf::default();
        self.group.bench_function(name, |b| {
            b.iter(|| {
                engine.render(black_box(&mut out));
                out.as_ref().len()
            })
        });
    }
}

fn peers(c: &mut Criterion) {
    let mut group = c.benchmark_group("peers/big-table");
    group.throughput(Throughput::Elements(1));
    engines::big_table(
        100,
        &mut Suite {
            group: &mut group,
            workload: "big-table",
            expected: None,
        },
    );
    group.finish();

    let mut group = c.benchmark_group("peers/teams");
    group.throughput(Throughput::Elements(1));
    engines::teams(&mut Suite {
        group: &mut group,
        workload: "teams",
        expected: None,
    });
    group.finish();
}

criterion_group!(benches, peers);
criterion_main!(benches);
