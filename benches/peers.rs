//! Tessera's engine against minijinja, tera, handlebars and askama on the classic
//! big-table and teams benchmarks (templates and data in `peers/engines.rs`):
//! `peers/big-table/ENGINE` and `peers/teams/ENGINE`, one execution per iteration into a
//! reused buffer. Tessera's output is checked against the page the workload is meant to
//! print, and every other engine's byte for byte against Tessera's, before anything is
//! timed: the suite compares equal, correct work.

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
    /// What the workload is meant to print.
    meant: String,
    expected: Option<Vec<u8>>,
}

impl Visit for Suite<'_, '_> {
    fn visit<E: Engine>(&mut self, name: &'static str, engine: &E) {
        let output = render_once(engine);
        match &self.expected {
            None => {
                assert!(
                    output == self.meant.as_bytes(),
                    "{}: {name} printed:\n{}\n--- meant:\n{}",
                    self.workload,
                    String::from_utf8_lossy(&output),
                    self.meant
                );
                self.expected = Some(output);
            }
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

/// The big table of `n` rows of `n` cells, as every engine must print it.
fn big_table_page(n: usize) -> String {
    let mut page = String::from("<table>\n");
    for _ in 0..n {
        page.push_str("<tr>");
        for cell in 0..n {
            page.push_str(&format!("<td>{cell}</td>"));
        }
        page.push_str("</tr>\n");
    }
    page.push_str("</table>");
    page
}

/// The teams page, as every engine must print it.
const TEAMS_PAGE: &str = r#"<html>
  <head>
    <title>2015</title>
  </head>
  <body>
    <h1>CSL 2015</h1>
    <ul>
      <li class="champion"><b>Jiangsu</b>: 43</li>
      <li class=""><b>Beijing</b>: 27</li>
      <li class=""><b>Guangzhou</b>: 22</li>
      <li class=""><b>Shandong</b>: 12</li>
    </ul>
  </body>
</html>"#;

fn peers(c: &mut Criterion) {
    let mut group = c.benchmark_group("peers/big-table");
    group.throughput(Throughput::Elements(1));
    engines::big_table(
        100,
        &mut Suite {
            group: &mut group,
            workload: "big-table",
            meant: big_table_page(100),
            expected: None,
        },
    );
    group.finish();

    let mut group = c.benchmark_group("peers/teams");
    group.throughput(Throughput::Elements(1));
    engines::teams(&mut Suite {
        group: &mut group,
        workload: "teams",
        meant: TEAMS_PAGE.to_owned(),
        expected: None,
    });
    group.finish();
}

criterion_group!(benches, peers);
criterion_main!(benches);
