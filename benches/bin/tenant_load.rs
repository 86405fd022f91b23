//! `tenant-load`: page requests across N generated tenants with a realistic skew, for
//! `benches/tenant-scale.sh`.
//!
//! `tenant-load run` sends, over `--concurrency` keep-alive connections to one server:
//!
//! 1. a mixed phase: tenants drawn from a Zipf distribution (s = 1.1) over all N (tenant
//!    1 the most visited, then 2 ...), pages a mix of home (30 %), collection (30 %) and
//!    item (40 %) pages of the tenant's design. Beside them a probe opens, one at a time
//!    (10 ms apart), the home page of a tenant no one has visited since the server
//!    started: the cold first page (host lookup, content load, template hash and, for the
//!    first tenant of a design, compile) on a busy node. Before the phase, tenant 1's home
//!    page alone is the first page after start, and counts as cold too.
//! 2. a hot phase: only the hot set, the five most visited tenants of tenant 1's design
//!    (one at N = 1), so the page mix is the same at every N and requests per second
//!    compare across N.
//!
//! It appends one tab-separated line of figures to `--out`; `tenant-load table FILE` prints
//! the table with ratios to the N = 1 row of each backend.

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
    /// The results file (appended).
    #[arg(long)]
    out: PathBuf,
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Run(args) => run(args),
        Command::Table { file } => table(&file),
    }
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
        .pool_max_idle_per_host(args.concurrency)
        .build_http();
    let base = format!("http://127.0.0.1:{}", args.port);
    let seen = Rc::new(RefCell::new(vec![false; n + 1]));

    // One phase: `workers` loops until `secs` pass, each request to `pick()`ed tenant.
    let phase = |tenants: Vec<usize>, secs: u64, probe: bool| {
        let cdf = Rc::new(zipf_cdf(tenants.len(), 1.1));
        let tenants = Rc::new(tenants);
        let (all, cold, hot_h) = (
            Rc::new(RefCell::new(histogram())),
            Rc::new(RefCell::new(histogram())),
            Rc::new(RefCell::new(histogram())),
        );
        let figures = Rc::new(RefCell::new(Figures::default()));
        let started = Instant::now();
        let end = started + Duration::from_secs(secs);
        let mut tasks = Vec::new();
        for w in 0..args.concurrency {
            let (cdf, tenants, all, hot_h, figures, seen, client, base) = (
                cdf.clone(),
                tenants.clone(),
                all.clone(),
                hot_h.clone(),
                figures.clone(),
                seen.clone(),
                client.clone(),
                base.clone(),
            );
            let (hosts, pages, hot) = (hosts.clone(), pages.clone(), hot.clone());
            let designs = designs.len();
            tasks.push(local.spawn_local(async move {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((w as u64 + 1) << 17));
                while Instant::now() < end {
                    let u = rng.unit();
                    let rank = cdf.partition_point(|&c| c < u).min(tenants.len() - 1);
                    let t = tenants[rank];
                    let path = pages[design_of(t, designs)].pick(&mut rng);
                    seen.borrow_mut()[t] = true;
                    let got = fetch(&client, &base, &hosts[t], path).await;
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
            }));
        }
        if probe {
            // The cold probe: one visitor at a time opens the home page of a tenant no one
            // has visited since the server started, as a new site's first visitor would
            // on a busy node.
            let (cold, figures, seen, client, base, hosts) = (
                cold.clone(),
                figures.clone(),
                seen.clone(),
                client.clone(),
                base.clone(),
                hosts.clone(),
            );
            let mut order: Vec<usize> = (1..=hosts.len() - 1).collect();
            let mut rng = Rng(0x5eed_cafe);
            for i in (1..order.len()).rev() {
                order.swap(i, (rng.next() % (i as u64 + 1)) as usize);
            }
            tasks.push(local.spawn_local(async move {
                for t in order {
                    if Instant::now() >= end {
                        break;
                    }
                    if std::mem::replace(&mut seen.borrow_mut()[t], true) {
                        continue;
                    }
                    match fetch(&client, &base, &hosts[t], "/").await {
                        Ok(us) => cold.borrow_mut().saturating_record(us),
                        Err(e) => {
                            let mut f = figures.borrow_mut();
                            f.errors += 1;
                            f.first_error.get_or_insert(e);
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }));
        }
        (tasks, started, all, cold, hot_h, figures)
    };

    let (mixed, hot_phase) = local.block_on(&rt, async {
        // The first page after start, alone: tenant 1's, which also compiles its design.
        let first = fetch(&client, &base, &hosts[1], "/").await;
        seen.borrow_mut()[1] = true;
        let (tasks, started, all, cold, _, figures) =
            phase((1..=n).collect(), args.mixed_secs, true);
        match first {
            Ok(us) => cold.borrow_mut().saturating_record(us),
            Err(e) => panic!("the first page failed: {e}"),
        }
        for t in tasks {
            t.await.expect("worker");
        }
        let mixed = (started.elapsed(), all, cold, figures);
        let (tasks, started, _, _, hot_h, figures) = phase(hot.to_vec(), args.hot_secs, false);
        for t in tasks {
            t.await.expect("worker");
        }
        (mixed, (started.elapsed(), hot_h, figures))
    });
    let rss_mb = rss_kb(args.pid) as f64 / 1024.0;
    let (m_took, m_all, m_cold, m_fig) = mixed;
    let (h_took, h_hist, h_fig) = hot_phase;
    let (m_fig, h_fig) = (m_fig.borrow(), h_fig.borrow());
    for f in [&*m_fig, &*h_fig] {
        if let Some(e) = &f.first_error {
            eprintln!("tenant-load: {} errors, first: {e}", f.errors);
        }
    }
    let (m_all, m_cold, h_hist) = (m_all.borrow(), m_cold.borrow(), h_hist.borrow());
    let ms = |h: &Histogram<u64>, q: f64| h.value_at_quantile(q) as f64 / 1000.0;
    let line = format!(
        "{}\t{}\t{}\t{:.0}\t{:.2}\t{:.2}\t{:.0}\t{}\t{:.1}\t{:.1}\t{:.0}\t{}\n",
        args.backend,
        n,
        args.cache_mb,
        h_hist.len() as f64 / h_took.as_secs_f64(),
        ms(&h_hist, 0.5),
        ms(&h_hist, 0.99),
        m_all.len() as f64 / m_took.as_secs_f64(),
        m_cold.len(),
        ms(&m_cold, 0.5),
        ms(&m_cold, 0.99),
        rss_mb,
        m_fig.errors + h_fig.errors,
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
        .filter(|r: &Vec<&str>| r.len() >= 12)
        .collect();
    println!(
        "| backend | tenants | cache MB | hot req/s | vs N=1 | hot p50 ms | hot p99 ms | mixed req/s | cold pages | cold p50 ms | cold p99 ms | RSS MB | errors |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let base = rows
            .iter()
            .find(|b| b[0] == r[0] && b[1] == "1")
            .and_then(|b| b[3].parse::<f64>().ok());
        let ratio = match (base, r[3].parse::<f64>()) {
            (Some(b), Ok(v)) if b > 0.0 => format!("{:.2}", v / b),
            _ => "-".into(),
        };
        println!(
            "| {} | {} | {} | {} | {ratio} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11]
        );
    }
    Ok(())
}
