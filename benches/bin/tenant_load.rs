//! `tenant-load`: page requests across N generated tenants with a realistic skew, for
//! `benches/tenant-scale.sh`.
//!
//! `tenant-load run` sends, over `--concurrency` keep-alive connections to one server:
//!
//! 1. a mixed phase: tenants drawn from a Zipf distribution (s = 1.1) over all N but those
//!    kept for the steady phase (tenant 1 the most visited, then 2 ...), pages a mix of
//!    home (30 %), collection (30 %) and item (40 %) pages of the tenant's design, as fast
//!    as `--concurrency` connections go. Beside them a probe opens, one at a time (10 ms
//!    apart), the home page of a tenant no one has visited since the server started: the
//!    cold first page (host lookup, content load and, for the first tenant of a design,
//!    compile) on a saturated node. Before the phase, tenant 1's home
//!    page alone is the first page after start, and counts as cold too.
//! 2. a steady phase: the same mix, but sent at a fixed rate, `--steady-share` (0.5) of
//!    the mixed phase's requests per second, as a node runs with room to spare; its probe
//!    opens the home pages of tenants kept out of the mixed phase for it (every eighth
//!    tenant after the first 50), so its cold first pages are cold at every N large enough
//!    to have them.
//! 3. a hot phase: only the hot set, the five most visited tenants of tenant 1's design
//!    (one at N = 1), so the page mix is the same at every N and requests per second
//!    compare across N.
//!
//! It appends one tab-separated line of figures to `--out`; `tenant-load table FILE` prints
//! the table with ratios to the N = 1 row of each backend.
//!
//! `tenant-load cold` opens, one at a time and with nothing else running, the home pages of
//! tenants `--from ..= --to` (never visited since the server started, so each is a cold
//! first page: host lookup, content load, view build, render), and prints their latency:
//! the cost of a cold page in isolation, without a saturated node's queueing.

use std::cell::RefCell;
use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Empty};
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use tenants::generate::{Design, Page, design_of, host};
use tessera_benches::SCALE_DESIGNS;

#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load one running server and append its figures to `--out`.
    Run(RunArgs),
    /// Print the table of a results file.
    Table { file: PathBuf },
    /// Open the home pages of tenants `--from ..= --to` one at a time on an idle server.
    Cold(ColdArgs),
}

#[derive(Parser)]
struct ColdArgs {
    /// The server's port on 127.0.0.1.
    #[arg(long)]
    port: u16,
    #[arg(long)]
    from: usize,
    #[arg(long)]
    to: usize,
    /// A label for the printed line.
    #[arg(long, default_value = "")]
    label: String,
}

#[derive(Parser)]
struct RunArgs {
    /// The server's port on 127.0.0.1.
    #[arg(long)]
    port: u16,
    /// The server's process id (for its resident memory).
    #[arg(long)]
    pid: u32,
    /// How many tenants the store holds (t00001 ..).
    #[arg(long)]
    tenants: usize,
    /// Labels for the table.
    #[arg(long)]
    backend: String,
    #[arg(long, default_value = "256")]
    cache_mb: String,
    #[arg(long, default_value = "fixtures")]
    fixtures: PathBuf,
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    #[arg(long, default_value_t = 20)]
    mixed_secs: u64,
    #[arg(long, default_value_t = 10)]
    hot_secs: u64,
    /// The steady phase's rate, as a share of the mixed phase's requests per second.
    #[arg(long, default_value_t = 0.5)]
    steady_share: f64,
    /// The results file (appended).
    #[arg(long)]
    out: PathBuf,
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Run(args) => run(args),
        Command::Table { file } => table(&file),
        Command::Cold(args) => cold(args),
    }
}

fn cold(args: ColdArgs) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let client: HttpClient = Client::builder(TokioExecutor::new()).build_http();
    let base = format!("http://127.0.0.1:{}", args.port);
    let mut h = histogram();
    let mut total = 0u64;
    rt.block_on(async {
        for t in args.from..=args.to {
            let us = fetch(&client, &base, &host(t), "/")
                .await
                .map_err(anyhow::Error::msg)?;
            total += us;
            h.saturating_record(us);
        }
        Ok::<_, anyhow::Error>(())
    })?;
    let ms = |q: f64| h.value_at_quantile(q) as f64 / 1000.0;
    println!(
        "cold {}: {} pages, mean {:.2} ms, p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms",
        args.label,
        h.len(),
        total as f64 / h.len().max(1) as f64 / 1000.0,
        ms(0.5),
        ms(0.9),
        ms(0.99)
    );
    Ok(())
}

/// The cumulative Zipf weights of ranks 1..=n.
fn zipf_cdf(n: usize, s: f64) -> Vec<f64> {
    let mut acc = 0.0;
    let mut cdf: Vec<f64> = (1..=n)
        .map(|k| {
            acc += (k as f64).powf(-s);
            acc
        })
        .collect();
    for c in &mut cdf {
        *c /= acc;
    }
    cdf
}

/// xorshift64*: a fast per-worker generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The pages of one design by kind, so a request picks its kind first.
struct Pages {
    home: Vec<Page>,
    collection: Vec<Page>,
    item: Vec<Page>,
}

impl Pages {
    fn of(design: &Design) -> Pages {
        let all = design.pages();
        let of = |kind: &str| all.iter().filter(|p| p.kind == kind).cloned().collect();
        Pages {
            home: of("home"),
            collection: of("collection"),
            item: of("item"),
        }
    }

    fn pick(&self, rng: &mut Rng) -> &str {
        let r = rng.unit();
        let list = if r < 0.3 || self.collection.is_empty() {
            &self.home
        } else if r < 0.6 || self.item.is_empty() {
            &self.collection
        } else {
            &self.item
        };
        &list[(rng.next() % list.len() as u64) as usize].path
    }
}

#[derive(Default)]
struct Figures {
    requests: u64,
    errors: u64,
    first_error: Option<String>,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("histogram bounds")
}

/// Whether tenant `t` is kept out of the mixed phase, for the steady phase's probe: every
/// eighth tenant after the first 50 (the head of the Zipf curve is always visited).
fn kept_for_steady(t: usize) -> bool {
    t > 50 && t.is_multiple_of(8)
}

/// One phase's load: which tenants, for how long, and either closed-loop over
/// `--concurrency` connections (`rate: None`, as fast as the server answers) or open-loop
/// at `rate` requests per second.
struct Load {
    tenants: Vec<usize>,
    secs: u64,
    rate: Option<f64>,
    /// Tenants whose home pages the cold probe opens, in this order, skipping any visited.
    probe: Vec<usize>,
}

/// What one phase measured.
struct Measured {
    took: Duration,
    all: Histogram<u64>,
    cold: Histogram<u64>,
    hot: Histogram<u64>,
    figures: Figures,
}

/// Requests in flight past which an open-loop phase stops sending (the server has fallen
/// behind the rate; the shortfall shows as a lower achieved rate).
const MAX_IN_FLIGHT: usize = 256;

fn run(args: RunArgs) -> anyhow::Result<()> {
    let designs = SCALE_DESIGNS
        .iter()
        .map(|d| Design::load(&args.fixtures.join(d), &|_, _| Ok(Vec::new())))
        .collect::<Result<Vec<_>, _>>()?;
    let pages: Rc<Vec<Pages>> = Rc::new(designs.iter().map(Pages::of).collect());
    let n = args.tenants;
    let hot: Vec<usize> = (1..=n)
        .filter(|&i| design_of(i, designs.len()) == design_of(1, designs.len()))
        .take(5)
        .collect();
    let hot = Rc::new(hot);
    let hosts: Rc<Vec<String>> = Rc::new((0..=n).map(host).collect());
    // The client runs on one thread, so the server keeps most of the two cores.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    let client: HttpClient = Client::builder(TokioExecutor::new())
        .pool_max_idle_per_host(args.concurrency.max(MAX_IN_FLIGHT))
        .build_http();
    let base = format!("http://127.0.0.1:{}", args.port);
    let seen = Rc::new(RefCell::new(vec![false; n + 1]));
    let shuffled = |list: Vec<usize>, seed: u64| {
        let mut list = list;
        let mut rng = Rng(seed);
        for i in (1..list.len()).rev() {
            list.swap(i, (rng.next() % (i as u64 + 1)) as usize);
        }
        list
    };
    let (mixed_set, steady_set): (Vec<usize>, Vec<usize>) =
        (1..=n).partition(|&t| !kept_for_steady(t));

    // One phase: the load of `load`, and beside it the cold probe over `load.probe`.
    let phase = |load: Load| {
        let (all, cold, hot_h) = (
            Rc::new(RefCell::new(histogram())),
            Rc::new(RefCell::new(histogram())),
            Rc::new(RefCell::new(histogram())),
        );
        let figures = Rc::new(RefCell::new(Figures::default()));
        let cdf = Rc::new(zipf_cdf(load.tenants.len(), 1.1));
        let tenants = Rc::new(load.tenants);
        let started = Instant::now();
        let end = started + Duration::from_secs(load.secs);
        // One request to a Zipf-drawn tenant, recorded.
        let one = {
            let (all, hot_h, figures, seen, client, base, hosts, pages, hot) = (
                all.clone(),
                hot_h.clone(),
                figures.clone(),
                seen.clone(),
                client.clone(),
                base.clone(),
                hosts.clone(),
                pages.clone(),
                hot.clone(),
            );
            let designs = designs.len();
            Rc::new(move |rng: &mut Rng| {
                let u = rng.unit();
                let rank = cdf.partition_point(|&c| c < u).min(tenants.len() - 1);
                let t = tenants[rank];
                let path = pages[design_of(t, designs)].pick(rng).to_owned();
                seen.borrow_mut()[t] = true;
                let (all, hot_h, figures, client, base, hosts, hot) = (
                    all.clone(),
                    hot_h.clone(),
                    figures.clone(),
                    client.clone(),
                    base.clone(),
                    hosts.clone(),
                    hot.clone(),
                );
                async move {
                    let got = fetch(&client, &base, &hosts[t], &path).await;
                    let mut f = figures.borrow_mut();
                    f.requests += 1;
                    match got {
                        Ok(us) => {
                            all.borrow_mut().saturating_record(us);
                            if hot.contains(&t) {
                                hot_h.borrow_mut().saturating_record(us);
                            }
                        }
                        Err(e) => {
                            f.errors += 1;
                            f.first_error.get_or_insert(e);
                        }
                    }
                }
            })
        };
        let mut tasks = Vec::new();
        match load.rate {
            None => {
                for w in 0..args.concurrency {
                    let one = one.clone();
                    tasks.push(local.spawn_local(async move {
                        let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((w as u64 + 1) << 17));
                        while Instant::now() < end {
                            one(&mut rng).await;
                        }
                    }));
                }
            }
            Some(rate) => {
                let in_flight = Rc::new(std::cell::Cell::new(0usize));
                tasks.push(local.spawn_local(async move {
                    let mut rng = Rng(0x0dd_ba11);
                    let mut sent = 0u64;
                    let mut tick = tokio::time::interval(Duration::from_millis(1));
                    while Instant::now() < end {
                        tick.tick().await;
                        let due = (started.elapsed().as_secs_f64() * rate) as u64;
                        while sent < due && in_flight.get() < MAX_IN_FLIGHT {
                            sent += 1;
                            in_flight.set(in_flight.get() + 1);
                            let (request, in_flight) = (one(&mut rng), in_flight.clone());
                            tokio::task::spawn_local(async move {
                                request.await;
                                in_flight.set(in_flight.get() - 1);
                            });
                        }
                        // Behind the rate with the cap reached: the backlog is not sent late.
                        sent = sent.max(due);
                    }
                    while in_flight.get() > 0 {
                        tokio::time::sleep(Duration::from_millis(5)).await;
                    }
                }));
            }
        }
        // The cold probe: one visitor at a time opens the home page of a tenant no one has
        // visited since the server started, as a new site's first visitor would.
        let (probe_cold, probe_figures, seen, client, base, hosts) = (
            cold.clone(),
            figures.clone(),
            seen.clone(),
            client.clone(),
            base.clone(),
            hosts.clone(),
        );
        let probe = load.probe;
        tasks.push(local.spawn_local(async move {
            for t in probe {
                if Instant::now() >= end {
                    break;
                }
                if std::mem::replace(&mut seen.borrow_mut()[t], true) {
                    continue;
                }
                match fetch(&client, &base, &hosts[t], "/").await {
                    Ok(us) => probe_cold.borrow_mut().saturating_record(us),
                    Err(e) => {
                        let mut f = probe_figures.borrow_mut();
                        f.errors += 1;
                        f.first_error.get_or_insert(e);
                    }
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }));
        async move {
            for t in tasks {
                t.await.expect("worker");
            }
            let took = started.elapsed();
            let take = |h: Rc<RefCell<Histogram<u64>>>| h.replace(histogram());
            Measured {
                took,
                all: take(all),
                cold: take(cold),
                hot: take(hot_h),
                figures: figures.take(),
            }
        }
    };

    let (mixed, steady, hot_phase) = local.block_on(&rt, async {
        // The first page after start, alone: tenant 1's, which also compiles its design.
        let first = fetch(&client, &base, &hosts[1], "/").await;
        seen.borrow_mut()[1] = true;
        let mut mixed = phase(Load {
            tenants: mixed_set.clone(),
            secs: args.mixed_secs,
            rate: None,
            probe: shuffled(mixed_set.clone(), 0x5eed_cafe),
        })
        .await;
        match first {
            Ok(us) => mixed.cold.saturating_record(us),
            Err(e) => panic!("the first page failed: {e}"),
        }
        let rate = mixed.all.len() as f64 / mixed.took.as_secs_f64() * args.steady_share;
        let steady = phase(Load {
            tenants: mixed_set.clone(),
            secs: args.mixed_secs,
            rate: Some(rate),
            probe: shuffled(steady_set.clone(), 0x5eed_f00d),
        })
        .await;
        let hot_phase = phase(Load {
            tenants: hot.to_vec(),
            secs: args.hot_secs,
            rate: None,
            probe: Vec::new(),
        })
        .await;
        (mixed, steady, hot_phase)
    });
    let rss_mb = rss_kb(args.pid) as f64 / 1024.0;
    for m in [&mixed, &steady, &hot_phase] {
        if let Some(e) = &m.figures.first_error {
            eprintln!("tenant-load: {} errors, first: {e}", m.figures.errors);
        }
    }
    let ms = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1000.0;
    let rps = |m: &Measured, h: &Histogram<u64>| h.len() as f64 / m.took.as_secs_f64();
    let line = format!(
        "{}\t{}\t{}\t{:.0}\t{:.2}\t{:.2}\t{:.0}\t{}\t{:.1}\t{:.1}\t{:.0}\t{}\t{:.0}\t{:.2}\t{}\t{:.1}\t{:.1}\n",
        args.backend,
        n,
        args.cache_mb,
        rps(&hot_phase, &hot_phase.hot),
        ms(&hot_phase.hot, 0.5),
        ms(&hot_phase.hot, 0.99),
        rps(&mixed, &mixed.all),
        mixed.cold.len(),
        ms(&mixed.cold, 0.5),
        ms(&mixed.cold, 0.99),
        rss_mb,
        mixed.figures.errors + steady.figures.errors + hot_phase.figures.errors,
        rps(&steady, &steady.all),
        ms(&steady.all, 0.99),
        steady.cold.len(),
        ms(&steady.cold, 0.5),
        ms(&steady.cold, 0.99),
    );
    eprint!("tenant-load: {line}");
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&args.out)?
        .write_all(line.as_bytes())?;
    Ok(())
}

type HttpClient = Client<hyper_util::client::legacy::connect::HttpConnector, Empty<Bytes>>;

/// One GET of `path` on `host`: its latency in microseconds, or what went wrong.
async fn fetch(client: &HttpClient, base: &str, host: &str, path: &str) -> Result<u64, String> {
    let req = hyper::Request::get(format!("{base}{path}"))
        .header(hyper::header::HOST, host)
        .body(Empty::<Bytes>::new())
        .map_err(|e| e.to_string())?;
    let sent = Instant::now();
    let res = client
        .request(req)
        .await
        .map_err(|e| format!("{host} {path}: {e}"))?;
    let status = res.status();
    let body = res.into_body().collect().await;
    if !status.is_success() || body.is_err() {
        return Err(format!("{host} {path}: {status}"));
    }
    Ok((sent.elapsed().as_micros() as u64).max(1))
}

/// VmRSS of process `pid`, in kB (0 if unreadable).
fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn table(file: &PathBuf) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(file)?;
    let rows: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('\t').collect())
        .filter(|r: &Vec<&str>| r.len() >= 17)
        .collect();
    println!(
        "| backend | tenants | cache MB | hot req/s | vs N=1 | hot p50 ms | hot p99 ms | mixed req/s | cold pages | cold p50 ms | cold p99 ms | steady req/s | steady p99 ms | steady cold pages | steady cold p50 ms | steady cold p99 ms | RSS MB | errors |"
    );
    println!(
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in &rows {
        let base = rows
            .iter()
            .find(|b| b[0] == r[0] && b[1] == "1")
            .and_then(|b| b[3].parse::<f64>().ok());
        let ratio = match (base, r[3].parse::<f64>()) {
            (Some(b), Ok(v)) if b > 0.0 => format!("{:.2}", v / b),
            _ => "-".into(),
        };
        // No cold page in a phase (N too small to keep tenants for it): no figures.
        let cold = |count: &str, p50: &str, p99: &str| {
            if count == "0" {
                ("0".to_owned(), "-".to_owned(), "-".to_owned())
            } else {
                (count.to_owned(), p50.to_owned(), p99.to_owned())
            }
        };
        let (c, c50, c99) = cold(r[7], r[8], r[9]);
        let (s, s50, s99) = cold(r[14], r[15], r[16]);
        println!(
            "| {} | {} | {} | {} | {ratio} | {} | {} | {} | {c} | {c50} | {c99} | {} | {} | {s} | {s50} | {s99} | {} | {} |",
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[12], r[13], r[10], r[11]
        );
    }
    Ok(())
}
