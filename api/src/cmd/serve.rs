//! `tessera serve`: serves every tenant's site over HTTP.
//!
//! With no database URL it uses the embedded store in `--data-dir` (default `./data`); on a
//! store with no tenants yet (first start) it imports every tenant folder under
//! `--fixtures` (default `./fixtures`). It prints one line per tenant with the URL to open.
//! In the background it gives back the stock of carts idle longer than `--cart-hold`, and
//! of pay-later orders unpaid for longer than `--pay-later-expiry` (which expire).

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;

use super::store_args::StoreArgs;
use crate::email::Transport;
use crate::http::limits::Rates;
use crate::http::owner::OwnerTokens;
use crate::routes::captcha::Captcha;
use crate::routes::commerce::CommerceState;
use crate::server::listen::Limits;
use crate::server::serve;
use crate::server::state::App;

/// Serve the demo tenants (or whatever the store holds) over HTTP.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    #[command(flatten)]
    pub store: StoreArgs,
    /// Tenant folders imported on first start, when the store holds no tenant yet.
    #[arg(long, value_name = "DIR", default_value = "./fixtures")]
    pub fixtures: PathBuf,
    /// A reverse proxy in front of the server (repeatable): its `X-Forwarded-For` names the
    /// client and its `X-Forwarded-Proto: https` makes cookies `Secure`. From any other
    /// peer those headers are ignored.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    pub trusted_proxies: Vec<IpAddr>,
    /// How long a cart holds its stock after its last change (`60m`, `90s`, `500ms`); idle
    /// longer, its units go back on sale (the cart keeps them listed, and checkout takes
    /// them again if they are still there).
    #[arg(long, value_name = "DURATION", default_value = "60m", value_parser = parse_duration)]
    pub cart_hold: Duration,
    /// How long a pay-later order (bank transfer …) waits for payment (`7d`, `48h`): unpaid
    /// longer, it expires and its units go back on sale.
    #[arg(long, value_name = "DURATION", default_value = "7d", value_parser = parse_duration)]
    pub pay_later_expiry: Duration,
    /// Pay-later orders one client may place per hour on one site (bursts of a third of it).
    #[arg(long, value_name = "N", default_value_t = Rates::default().pay_later_orders_per_hour)]
    pub pay_later_orders_per_hour: u32,
    /// Cart changes one client may make per minute on one site (bursts of a third of it).
    #[arg(long, value_name = "N", default_value_t = Rates::default().cart_writes_per_minute)]
    pub cart_writes_per_minute: u32,
    /// Checkouts one client may attempt per minute on one site.
    #[arg(long, value_name = "N", default_value_t = Rates::default().checkouts_per_minute)]
    pub checkouts_per_minute: u32,
    /// Gift-card balance lookups one client may make per minute on one site.
    #[arg(long, value_name = "N", default_value_t = Rates::default().gift_card_lookups_per_minute)]
    pub gift_card_lookups_per_minute: u32,
    /// Form submissions (and submission keys) one client may make per minute on one site
    /// (bursts of a third of it)
    #[arg(long, value_name = "N", default_value_t = Rates::default().form_submissions_per_minute)]
    pub form_submissions_per_minute: u32,
    /// Sign-in attempts (members', and owners' at /config) one client may make per minute
    /// on one site, and the same again per email address (bursts of a third of it)
    #[arg(long, value_name = "N", default_value_t = Rates::default().sign_ins_per_minute)]
    pub sign_ins_per_minute: u32,
    /// Memory for the caches of hosts, site content, rendered-site views and compiled
    /// templates, in MiB (estimated bytes; split between them, see `api::cache`).
    /// Sites past it are loaded again from the store when next visited.
    #[arg(long, value_name = "MB", default_value_t = crate::cache::DEFAULT_CACHE_MB,
          value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    pub cache_mb: u64,
    /// Turn analytics off for every site: tracking calls are answered and nothing is stored
    #[arg(long)]
    pub no_analytics: bool,
    /// Render every page, keeping no renders of public pages (see the operators' manual,
    /// Caches)
    #[arg(long)]
    pub no_kept_pages: bool,
    /// Add an `x-tessera-kept` header to pages: `hit` (from the kept renders), `kept`
    /// (rendered and kept) or `fresh`. For tests
    #[arg(long, hide = true)]
    pub kept_pages_header: bool,
    /// How often the node writes the analytics it counted (page views are added up in
    /// memory and written as counts). A clean stop writes everything; a killed process
    /// loses at most this long's counts (see the operators' manual)
    #[arg(long, value_name = "DURATION", default_value = "250ms", value_parser = parse_duration)]
    pub analytics_flush_every: Duration,
    /// Where the sites' email goes: `smtp://host:port` (`?tls=required` for STARTTLS),
    /// `smtps://host`, with `user:pass@` when the server wants a login. Without it, mail
    /// goes to one mbox file per site under `DATA_DIR/outbox/`.
    #[arg(long, value_name = "URL", env = "TESSERA_SMTP_URL")]
    pub smtp: Option<String>,
    /// Leading zero bits the built-in proof-of-work captcha asks for (each one doubles a
    /// visitor's work; 16 is a fraction of a second in a browser).
    #[arg(long, value_name = "BITS", default_value_t = crate::routes::captcha::DEFAULT_DIFFICULTY,
          value_parser = clap::value_parser!(u32).range(1..=28))]
    pub captcha_difficulty: u32,
    /// Use reCAPTCHA instead of the built-in captcha: its site key (with
    /// `--recaptcha-secret`).
    #[arg(long, value_name = "KEY", requires = "recaptcha_secret")]
    pub recaptcha_site_key: Option<String>,
    /// reCAPTCHA's secret key.
    #[arg(
        long,
        value_name = "KEY",
        env = "TESSERA_RECAPTCHA_SECRET",
        requires = "recaptcha_site_key"
    )]
    pub recaptcha_secret: Option<String>,
    /// Where reCAPTCHA tokens are verified (Google's siteverify unless set).
    #[arg(long, value_name = "URL", requires = "recaptcha_site_key")]
    pub recaptcha_verify_url: Option<String>,
    /// A site owner's token for the owner routes, `SITE=TOKEN` (repeatable; also
    /// `TESSERA_OWNER_TOKENS=SITE=TOKEN,…`). Tokens are 16 characters or more.
    #[arg(
        long = "owner-token",
        value_name = "SITE=TOKEN",
        env = "TESSERA_OWNER_TOKENS",
        value_delimiter = ','
    )]
    pub owner_tokens: Vec<String>,
    /// How long a client may take to send a request's headers; also how long an idle
    /// keep-alive connection stays open. Past it the connection is closed.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body, from its headers on; past it
    /// the API answers 408.
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = parse_duration)]
    pub body_timeout: Duration,
    /// Connections open at once at most; more wait in the listen backlog until one closes.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,
    /// Connections open at once from one client address at most (trusted proxies
    /// excepted); more are closed at once. 0: no such cap.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_per_client)]
    pub max_connections_per_client: usize,
    /// Requests one site may have in flight at once; more are answered 503 with
    /// `Retry-After: 1`, so one site's flood cannot starve the others. 0: no such cap.
    #[arg(long, value_name = "N", default_value_t = Limits::default().tenant_max_in_flight)]
    pub tenant_max_in_flight: usize,
}

/// `60m`, `90s`, `1h 30m`, `500ms`, `7d` (humantime's syntax), more than zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(text.trim())
        .map_err(|e| format!("{text:?} is not a duration like 60m, 90s or 500ms: {e}"))?;
    if d.is_zero() {
        return Err("the duration must be more than zero".into());
    }
    Ok(d)
}

pub fn run(args: ServeArgs) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,tower_http=warn")),
        )
        .with_writer(std::io::stderr)
        .try_init();
    // Rendering recurses through nested blocks and partials: give threads room.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build();
    let result = runtime
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(run_async(args)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run_async(args: ServeArgs) -> anyhow::Result<()> {
    let (store_budget, app_budget) = crate::cache::split(args.cache_mb << 20);
    let store = args.store.open_with_budget(store_budget).await?;
    let mut demo_owners = Vec::new();
    if store.tenants().await?.is_empty() {
        import_fixtures(&store, &args.fixtures).await?;
        if is_embedded_default(&args.store) {
            demo_owners = add_demo_owners(&store).await?;
        }
    }
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    let port = listener.local_addr()?.port();
    eprintln!(
        "tessera: serving from the {} on http://{}",
        args.store.describe(),
        listener.local_addr()?
    );
    for tenant in store.tenants().await? {
        let domains = store.domains(tenant.id).await?;
        if let Some(d) = domains.iter().find(|d| d.primary).or(domains.first()) {
            println!("{}: http://{}:{port}/", tenant.identifier, d.host);
            if let Some((_, email, password)) = demo_owners
                .iter()
                .find(|(id, _, _)| *id == tenant.identifier)
            {
                eprintln!(
                    "tessera: {} owner app: http://{}:{port}/config as {email}, password {password}",
                    tenant.identifier, d.host
                );
            }
        }
    }
    if !demo_owners.is_empty() {
        eprintln!(
            "tessera: the demo owners' passwords are shown this once (the store keeps their \
             hashes); `tessera owner add` makes others"
        );
    } else {
        eprintln!("tessera: {}", sign_in_hint(&args.store, port));
    }
    let rates = Rates {
        cart_writes_per_minute: args.cart_writes_per_minute,
        checkouts_per_minute: args.checkouts_per_minute,
        gift_card_lookups_per_minute: args.gift_card_lookups_per_minute,
        form_submissions_per_minute: args.form_submissions_per_minute,
        sign_ins_per_minute: args.sign_ins_per_minute,
        pay_later_orders_per_hour: args.pay_later_orders_per_hour,
    };
    let captcha = match (args.recaptcha_site_key, args.recaptcha_secret) {
        (Some(key), Some(secret)) => Captcha::recaptcha(key, secret, args.recaptcha_verify_url),
        _ => Captcha::ProofOfWork {
            difficulty: args.captcha_difficulty,
        },
    };
    let owner_tokens = OwnerTokens::parse(args.owner_tokens.iter().map(String::as_str))
        .map_err(anyhow::Error::msg)?;
    let transport = match &args.smtp {
        Some(url) => Transport::smtp(url)?,
        None => Transport::Files(args.store.data_dir.join("outbox")),
    };
    eprintln!("tessera: {}", transport.describe());
    let limits = Limits {
        header_timeout: args.header_timeout,
        body_timeout: args.body_timeout,
        max_connections: args.max_connections,
        max_per_client: args.max_connections_per_client,
        exempt: args.trusted_proxies.clone(),
        tenant_max_in_flight: args.tenant_max_in_flight,
    };
    let mut app = App::with_cache_budget(store.clone(), app_budget)
        .with_trusted_proxies(args.trusted_proxies)
        .with_rates(rates)
        .with_commerce(
            CommerceState::new(args.cart_hold).with_pay_later_expiry(args.pay_later_expiry),
        )
        .with_captcha(captcha)
        .with_owner_tokens(owner_tokens);
    let analytics = (!args.no_analytics)
        .then(|| crate::analytics::queue::Queue::start(store.clone(), args.analytics_flush_every));
    if let Some(queue) = &analytics {
        app = app.with_analytics(queue.clone());
    }
    if args.no_kept_pages {
        app = app.without_kept_pages();
    }
    if args.kept_pages_header {
        app = app.with_kept_header();
    }
    // Orders a stopped node left waiting for their numbers get them, with their emails,
    // before this one takes requests; then every minute, those waiting longer than that
    // (a node that stopped while others run).
    match crate::services::commerce::waiting::number_waiting_orders(&app, i64::MAX).await {
        Ok(0) => {}
        Ok(n) => tracing::info!(orders = n, "numbered orders left waiting for their numbers"),
        Err(e) => tracing::warn!(error = %e, "numbering waiting orders failed"),
    }
    let numbering = spawn_numbering_sweep(app.clone());
    let sweeper = crate::services::commerce::sweeper::spawn(store.clone(), app.commerce.clone());
    let mailer = crate::email::spawn(store.clone(), transport, app.outbox.clone());
    let served = serve(listener, app, &limits).await;
    // The requests are done (or the listener failed): what they counted is written before
    // the store closes, so a clean shutdown loses no page view.
    if let Some(queue) = analytics {
        queue.close().await;
        tracing::info!(written = queue.written(), "analytics written");
    }
    served?;
    sweeper.abort();
    numbering.abort();
    mailer.abort();
    store.close().await?;
    Ok(())
}

/// Every minute, numbers the orders waiting for their numbers for longer than a minute
/// ([`crate::services::commerce::waiting::number_waiting_orders`]).
fn spawn_numbering_sweep(app: App) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let every = Duration::from_secs(60);
        let mut ticker = tokio::time::interval(every);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        loop {
            ticker.tick().await;
            let cutoff = tenants::now_ms() - every.as_millis() as i64;
            match crate::services::commerce::waiting::number_waiting_orders(&app, cutoff).await {
                Ok(0) => {}
                Ok(n) => {
                    tracing::info!(orders = n, "numbered orders left waiting for their numbers")
                }
                Err(e) => tracing::warn!(error = %e, "numbering waiting orders failed"),
            }
        }
    })
}

/// Whether the store is the embedded one in the default `./data`: a local try-out, the
/// one store where `serve` adds demo owner accounts (never on PostgreSQL, never in a data
/// directory an operator chose).
/// How to sign in to the owner app on a start that shows no passwords: a one-time link
/// from `tessera owner link` (for the store this server uses).
fn sign_in_hint(store: &super::store_args::StoreArgs, port: u16) -> String {
    let same_store = if is_embedded_default(store) {
        ""
    } else {
        " with this server's store options"
    };
    format!(
        "owner app at /config of each site; for a sign-in link run `tessera owner link SITE EMAIL --port {port}`{same_store} (`tessera owner list SITE` names the owners)"
    )
}

fn is_embedded_default(store: &super::store_args::StoreArgs) -> bool {
    matches!(store.config(), tenants::StoreConfig::Embedded { .. })
        && store.data_dir == Path::new("./data")
}

/// The demo owner of a site: `owner@<identifier>.example`.
pub fn demo_owner_email(identifier: &str) -> String {
    format!("owner@{identifier}.example")
}

/// One admin account per site of a freshly imported embedded default store, each with a
/// random password: (site identifier, email, password), to print once.
async fn add_demo_owners(store: &tenants::Store) -> anyhow::Result<Vec<(String, String, String)>> {
    let mut made = Vec::new();
    for tenant in store.tenants().await? {
        let email = demo_owner_email(&tenant.identifier);
        let password = format!("demo-{}", crate::http::signing::random_hex(8));
        let hash = crate::services::passwords::hash(password.clone()).await?;
        store
            .create_owner_account(
                tenant.id,
                &email,
                i64::from(crate::http::owner::ADMIN),
                Some(&hash),
            )
            .await?;
        made.push((tenant.identifier, email, password));
    }
    Ok(made)
}

/// Imports every folder under `dir` that holds a `tenant.json`, in name order.
async fn import_fixtures(store: &tenants::Store, dir: &Path) -> anyhow::Result<()> {
    let mut folders: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("tenant.json").is_file())
            .collect(),
        Err(e) => {
            eprintln!("tessera: no fixtures imported ({}: {e})", dir.display());
            return Ok(());
        }
    };
    folders.sort();
    for folder in folders {
        let report = tenants::import::import_dir_with(
            store,
            &folder,
            &mut |m| tracing::debug!("import: {m}"),
            &crate::styles::import_build,
        )
        .await
        .map_err(|e| anyhow::anyhow!("importing {}: {e}", folder.display()))?;
        eprintln!(
            "tessera: imported {} from {}",
            report.tenant.identifier,
            folder.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_with_their_unit() {
        assert_eq!(parse_duration("60m"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("7d"), Ok(Duration::from_secs(7 * 86_400)));
        assert!(parse_duration("99999999999999999d").is_err());
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
        for bad in ["", "60", "m", "0s", "5x", "-1s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
