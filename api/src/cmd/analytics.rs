//! `tessera analytics TENANT [--days N] [--format json]`: what a site's visitors did in the
//! last days: visits, page views, unique visitors, top pages and referrers, cart adds,
//! purchases and the conversion rate (the owner route `GET /api/analytics/summary` answers the same).

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, ValueEnum};

use super::store_args::{StoreArgs, run_command};

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// Show a site's visits, page views, pages, referrers, cart adds and purchases.
#[derive(Args, Debug)]
pub struct AnalyticsArgs {
    /// The site: its identifier or one of its domains.
    pub tenant: String,
    /// How many days back, counting today (1-366).
    #[arg(long, default_value_t = 7, value_parser = clap::value_parser!(u16).range(1..=366))]
    pub days: u16,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub store: StoreArgs,
}

pub fn run(args: AnalyticsArgs) -> ExitCode {
    run_command(async {
        let (store, tenant) = args.store.open_site(&args.tenant).await?;
        let s = store
            .analytics_summary(tenant.id, crate::analytics::first_day(args.days))
            .await?;
        store.close().await?;
        let out = match args.format {
            Format::Json => serde_json::to_string_pretty(&s)? + "\n",
            Format::Text => text(&tenant.identifier, args.days, &s),
        };
        // A reader that stops early (`| head`) is not an error: what it read is the answer.
        let mut stdout = std::io::stdout().lock();
        match stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush())
        {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
            _ => Ok(()),
        }
    })
}

/// The summary as the terminal shows it.
pub fn text(site: &str, days: u16, s: &tenants::AnalyticsSummary) -> String {
    let mut out = format!(
        "{site}: the last {days} day{}\n",
        if days == 1 { "" } else { "s" }
    );
    for (label, n) in [
        ("visits", s.visits),
        ("page views", s.page_views),
        ("unique visitors", s.unique_visitors),
        ("add to cart", s.add_to_carts),
        ("purchases", s.purchases),
    ] {
        out.push_str(&format!("  {label:<18}{n}\n"));
    }
    out.push_str(&format!(
        "  {:<18}{:.1}%\n",
        "conversion rate",
        s.conversion_rate * 100.0
    ));
    for (title, rows) in [
        ("top pages", &s.top_pages),
        ("top referrers", &s.top_referrers),
    ] {
        out.push_str(&format!("  {title}\n"));
        if rows.is_empty() {
            out.push_str("    (none)\n");
        }
        for (what, n) in rows {
            out.push_str(&format!("    {what:<30} {n}\n"));
        }
    }
    out
}
