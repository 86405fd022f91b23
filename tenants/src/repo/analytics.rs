//! Visitor analytics events and page performance records: append-only, per tenant.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Result;
use crate::ids::TenantId;
use crate::params;
use crate::store::Store;

/// One analytics event (SPEC "Analytics payloads"; the full payload stays in `data`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsEvent {
    /// Epoch ms when it happened.
    pub occurred_ms: i64,
    /// Event name.
    pub name: String,
    /// Page path.
    pub page_path: String,
    /// The visitor cookie, if any.
    pub visitor_id: Option<String>,
    /// The host of the page the visitor came from, if another site.
    #[serde(default)]
    pub referrer: Option<String>,
    /// The rest of the payload.
    pub data: Value,
}

/// One performance record (SPEC: app, data, event, pageLoadId, ts).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PerformanceRecord {
    /// The page load it belongs to.
    pub page_load_id: String,
    /// Reporting app.
    pub app: String,
    /// Event name.
    pub event: String,
    /// Epoch ms.
    pub ts_ms: i64,
    /// Measurements.
    pub data: Value,
}

/// Event names that count as a page visit.
pub const VISIT_EVENTS: [&str; 2] = ["pageview", "page_view"];

/// The key of a page view's data that names its visit (a session of the site's
/// visitor): the visits of a period are the distinct visits among its page views.
pub const SESSION_KEY: &str = "session";
/// The event the server records itself when a cart add succeeds.
pub const ADD_TO_CART_EVENT: &str = "add-to-cart";
/// The event the server records itself when an order is placed.
pub const PURCHASE_EVENT: &str = "purchase";

/// What an owner sees of a period: visits, visitors, the pages and referrers they came by,
/// carts and orders.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyticsSummary {
    /// The start of the period, epoch ms.
    pub since_ms: i64,
    /// Visits: sessions of 30 minutes from a visitor's first page (distinct sessions among
    /// the page views; a site that keeps visitors unnamed has none).
    pub visits: i64,
    /// Pages seen.
    pub page_views: i64,
    /// Distinct visitor cookies among the visits.
    pub unique_visitors: i64,
    /// (path, page views), most first, at most 10.
    pub top_pages: Vec<(String, i64)>,
    /// (host, page views), most first, at most 10.
    pub top_referrers: Vec<(String, i64)>,
    /// Successful cart adds.
    pub add_to_carts: i64,
    /// Orders placed.
    pub purchases: i64,
    /// Purchases per unique visitor (0 without visitors).
    pub conversion_rate: f64,
}

/// Milliseconds in a roll-up day.
pub const DAY_MS: i64 = 86_400_000;

/// The roll-up day (UTC, days since the Unix epoch) of an instant in epoch milliseconds.
pub fn day_of(ms: i64) -> i64 {
    ms.div_euclid(DAY_MS)
}

/// The roll-up metrics (`analytics_day.metric`, see migration 8; `analytics_slot.metric`,
/// migration 15).
pub mod metric {
    /// label = the event's name, n = events.
    pub const EVENT: &str = "event";
    /// label = the page path of a visit, n = page views.
    pub const PAGE: &str = "page";
    /// label = the referring host, n = page views.
    pub const REFERRER: &str = "referrer";
    /// label = a visitor id the server did not make (daily only; distinct labels count).
    pub const VISITOR: &str = "visitor";
    /// label = a visit's session id the server did not make (distinct labels count).
    pub const SESSION: &str = "session";
    /// label = "", n = visitors the server named in the bucket ([`super::minted_visitor`]).
    pub const NEW_VISITOR: &str = "new-visitor";
    /// label = "", n = visits the server started in the bucket ([`super::minted_session`]).
    pub const NEW_SESSION: &str = "new-session";
    /// label = a visitor id the server made, seen on a later day than the one it was made
    /// on; n = that day (daily only). Counted where the period starts after that day.
    pub const VISITOR_LATER: &str = "visitor-later";
    /// label = a session id the server made, seen in a later bucket than the quarter hour it
    /// was made in; n = that quarter hour. Counted where the span starts after it.
    pub const SESSION_LATER: &str = "session-later";
}

/// Milliseconds in a quarter-hour roll-up slot (`analytics_slot`, migration 15).
pub const SLOT_MS: i64 = 900_000;

/// Quarter hours in a roll-up day.
const SLOTS_PER_DAY: i64 = DAY_MS / SLOT_MS;

/// The quarter-hour slot of an instant in epoch milliseconds.
pub fn slot_of(ms: i64) -> i64 {
    ms.div_euclid(SLOT_MS)
}

/// A visitor id the server makes: `v{day}-{random}`, the UTC day ([`day_of`]) it was made
/// on. The server counts a visitor it names once, then ([`metric::NEW_VISITOR`]), so that a
/// visitor's page views need no row of their own: only a later day's visit writes one
/// ([`metric::VISITOR_LATER`]), once a day. Any other id is counted as before, a row a day.
pub fn minted_visitor(day: i64, random: &str) -> String {
    format!("v{day}-{random}")
}

/// A session id the server makes: `s{slot}-{random}`, the quarter hour ([`slot_of`]) the
/// visit started in; counted once then ([`metric::NEW_SESSION`]).
pub fn minted_session(slot: i64, random: &str) -> String {
    format!("s{slot}-{random}")
}

/// The bucket a minted id (`{tag}{bucket}-{32 hex}`) was made in, if it is one.
fn minted_in(id: &str, tag: u8) -> Option<i64> {
    let rest = id.strip_prefix(tag as char)?;
    let (bucket, random) = rest.split_once('-')?;
    let ok = (1..=12).contains(&bucket.len())
        && bucket.bytes().all(|b| b.is_ascii_digit())
        && random.len() == 32
        && random.bytes().all(|b| b.is_ascii_hexdigit());
    if ok { bucket.parse().ok() } else { None }
}

/// The day a visitor id of [`minted_visitor`]'s was made on.
pub fn visitor_minted_day(id: &str) -> Option<i64> {
    minted_in(id, b'v')
}

/// The quarter hour a session id of [`minted_session`]'s was made in.
pub fn session_minted_slot(id: &str) -> Option<i64> {
    minted_in(id, b's')
}

/// Which roll-up a count goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grain {
    /// `analytics_day`, by UTC day.
    Day,
    /// `analytics_slot`, by quarter hour.
    Slot,
}

/// A roll-up row but for its label: site, roll-up, metric, day or quarter hour.
pub type TallyKey = (TenantId, Grain, &'static str, i64);

/// One page view as the server counts it (no raw row): who and what.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageView {
    /// Epoch ms.
    pub occurred_ms: i64,
    /// The page's path.
    pub page_path: String,
    /// The referring host, if another site.
    pub referrer: Option<String>,
    /// The visitor, if named before this page (a visitor this page named is counted as new,
    /// by `new_visitor`, whatever its id: it may be left out).
    pub visitor_id: Option<String>,
    /// The visit, if started before this page (as `visitor_id`, by `new_session`).
    pub session: Option<String>,
    /// Whether this page named the visitor (set the cookie): counted as a new visitor.
    pub new_visitor: bool,
    /// Whether this page started the visit (set the cookie): counted as a new visit.
    pub new_session: bool,
}

/// A map with [`Tally`]'s hasher.
type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// Counts to add to the roll-ups, summed on the node between writes: (site, roll-up,
/// metric, bucket, label) → count, or for the `*-later` metrics the bucket the id was made
/// in. With a cap, a site's metric takes at most that many rows per roll-up until the tally
/// is written; counts past it are dropped and counted ([`Tally::dropped`]).
///
/// Its maps hash with foldhash, not the standard library's SipHash (which was most of the
/// writer's time on a saturated node): fast, and seeded at random per map, so the buckets
/// a label lands in are not known in advance. Labels come from visitors (paths, referrers,
/// ids), but a flooding visitor's labels are bounded anyway: a capped tally holds at most
/// `cap` labels per site, roll-up and metric until it is written, so even keys made to
/// collide cost a bounded amount of work per write.
#[derive(Debug, Default)]
pub struct Tally {
    /// Rows by all but the label, then by label: a row is found without allocating.
    rows: FastMap<TallyKey, FastMap<Box<str>, i64>>,
    labels: FastMap<(TenantId, Grain, &'static str), usize>,
    len: usize,
    cap: Option<usize>,
    dropped: u64,
}

impl Tally {
    /// A tally without a cap (what [`Store::record_events`] rolls up).
    pub fn new() -> Tally {
        Tally::default()
    }

    /// A tally that keeps at most `cap` rows per site, roll-up and metric.
    pub fn with_cap(cap: usize) -> Tally {
        Tally {
            cap: Some(cap),
            ..Tally::default()
        }
    }

    /// Rows held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Counts dropped by the cap.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The rows, in no order: (site, roll-up, metric, bucket), label, count.
    pub fn rows(&self) -> impl Iterator<Item = (TallyKey, &str, i64)> {
        self.rows
            .iter()
            .flat_map(|(k, labels)| labels.iter().map(|(l, n)| (*k, &**l, *n)))
    }

    /// Adds `n` to a row (or, for the `*-later` metrics, sets the bucket it was made in), for
    /// `views` page views or events alike (what a dropped count counts).
    #[allow(clippy::too_many_arguments)]
    fn put(
        &mut self,
        tenant: TenantId,
        grain: Grain,
        metric: &'static str,
        bucket: i64,
        label: &str,
        n: i64,
        views: u64,
    ) {
        if label.is_empty() && metric != metric::NEW_VISITOR && metric != metric::NEW_SESSION {
            return;
        }
        let later = metric == metric::VISITOR_LATER || metric == metric::SESSION_LATER;
        let labels = self
            .rows
            .entry((tenant, grain, metric, bucket))
            .or_default();
        if let Some(v) = labels.get_mut(label) {
            if later {
                *v = n
            } else {
                *v += n
            }
            return;
        }
        if let Some(cap) = self.cap {
            let held = self.labels.entry((tenant, grain, metric)).or_insert(0);
            if *held >= cap {
                self.dropped += views;
                return;
            }
            *held += 1;
        }
        labels.insert(label.into(), n);
        self.len += 1;
    }

    /// Counts one event into both roll-ups; a visit event also counts its page, referrer,
    /// visitor (daily) and visit.
    pub fn event(&mut self, tenant: TenantId, e: &AnalyticsEvent) {
        let (day, slot) = (day_of(e.occurred_ms), slot_of(e.occurred_ms));
        self.put(tenant, Grain::Day, metric::EVENT, day, &e.name, 1, 1);
        self.put(tenant, Grain::Slot, metric::EVENT, slot, &e.name, 1, 1);
        if VISIT_EVENTS.contains(&e.name.as_str()) {
            let session = e.data.get(SESSION_KEY).and_then(|s| s.as_str());
            self.visit(
                tenant,
                e.occurred_ms,
                (&e.page_path, e.referrer.as_deref()),
                (e.visitor_id.as_deref(), false),
                (session, false),
                1,
            );
        }
    }

    /// Counts one page view the server answered (no raw row is kept of it).
    pub fn page_view(&mut self, tenant: TenantId, v: &PageView) {
        self.page_views(
            tenant,
            v.occurred_ms,
            (&v.page_path, v.referrer.as_deref()),
            (v.visitor_id.as_deref(), v.new_visitor),
            (v.session.as_deref(), v.new_session),
            1,
        );
    }

    /// Counts page views summed by [`PageViewSums`], in the order their first views came.
    pub fn page_view_sums(&mut self, sums: PageViewSums) {
        for (k, views) in sums.entries {
            self.page_views(
                k.tenant,
                k.slot * SLOT_MS,
                (&k.page_path, k.referrer.as_deref()),
                k.visitor.as_read(),
                k.session.as_read(),
                views,
            );
        }
    }

    /// Counts `views` page views at `ms` that count alike.
    fn page_views(
        &mut self,
        tenant: TenantId,
        ms: i64,
        (path, referrer): (&str, Option<&str>),
        visitor: (Option<&str>, bool),
        session: (Option<&str>, bool),
        views: u64,
    ) {
        let n = views as i64;
        let (day, slot) = (day_of(ms), slot_of(ms));
        self.put(
            tenant,
            Grain::Day,
            metric::EVENT,
            day,
            VISIT_EVENTS[0],
            n,
            views,
        );
        self.put(
            tenant,
            Grain::Slot,
            metric::EVENT,
            slot,
            VISIT_EVENTS[0],
            n,
            views,
        );
        self.visit(tenant, ms, (path, referrer), visitor, session, views);
    }

    /// A visit's page, referrer, visitor and session. A visitor or session this page named
    /// counts once, as new; one the server named earlier counts again only in a later bucket
    /// (where a period that starts after it was named must count it); any other id by its
    /// label, distinct labels counting, as the roll-ups always did.
    fn visit(
        &mut self,
        tenant: TenantId,
        ms: i64,
        (path, referrer): (&str, Option<&str>),
        (visitor, new_visitor): (Option<&str>, bool),
        (session, new_session): (Option<&str>, bool),
        views: u64,
    ) {
        let n = views as i64;
        let (day, slot) = (day_of(ms), slot_of(ms));
        for (grain, bucket) in [(Grain::Day, day), (Grain::Slot, slot)] {
            self.put(tenant, grain, metric::PAGE, bucket, path, n, views);
            self.put(
                tenant,
                grain,
                metric::REFERRER,
                bucket,
                referrer.unwrap_or(""),
                n,
                views,
            );
        }
        if new_visitor {
            self.put(tenant, Grain::Day, metric::NEW_VISITOR, day, "", n, views);
        } else if let Some(v) = visitor.filter(|v| !v.is_empty()) {
            match visitor_minted_day(v) {
                Some(made) if day > made => self.put(
                    tenant,
                    Grain::Day,
                    metric::VISITOR_LATER,
                    day,
                    v,
                    made,
                    views,
                ),
                Some(_) => {}
                None => self.put(tenant, Grain::Day, metric::VISITOR, day, v, n, views),
            }
        }
        if new_session {
            self.put(tenant, Grain::Day, metric::NEW_SESSION, day, "", n, views);
            self.put(tenant, Grain::Slot, metric::NEW_SESSION, slot, "", n, views);
        } else if let Some(s) = session.filter(|s| !s.is_empty()) {
            match session_minted_slot(s) {
                Some(made) => {
                    if slot > made {
                        self.put(
                            tenant,
                            Grain::Slot,
                            metric::SESSION_LATER,
                            slot,
                            s,
                            made,
                            views,
                        );
                    }
                    if day > made.div_euclid(SLOTS_PER_DAY) {
                        self.put(
                            tenant,
                            Grain::Day,
                            metric::SESSION_LATER,
                            day,
                            s,
                            made,
                            views,
                        );
                    }
                }
                None => {
                    self.put(tenant, Grain::Day, metric::SESSION, day, s, n, views);
                    self.put(tenant, Grain::Slot, metric::SESSION, slot, s, n, views);
                }
            }
        }
    }
}

/// Page views summed before a [`Tally`] counts them. The tally reads of a view its site,
/// quarter hour, page, referrer, and its visitor and visit: by id, or as new where the view
/// itself named them (whatever the new id is). Views alike in all of these are one entry
/// with their number, so a view costs one hashed key here instead of the tally's eight or so
/// rows: a saturated node's views are mostly alike (new visitors on the same few pages).
/// Entries keep the order their first views came in, so a capped tally keeps and drops the
/// same labels as it does counting view by view.
#[derive(Default)]
pub struct PageViewSums {
    entries: indexmap::IndexMap<SumKey, u64, foldhash::fast::RandomState>,
}

impl PageViewSums {
    /// Adds one view of `tenant`'s site.
    pub fn add(&mut self, tenant: TenantId, v: PageView) {
        let key = SumKey {
            tenant,
            slot: slot_of(v.occurred_ms),
            page_path: v.page_path,
            referrer: v.referrer,
            visitor: Named::of(v.visitor_id, v.new_visitor),
            session: Named::of(v.session, v.new_session),
        };
        *self.entries.entry(key).or_insert(0) += 1;
    }

    /// Entries held (views that count alike are one).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds no view.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[derive(PartialEq, Eq, Hash)]
struct SumKey {
    tenant: TenantId,
    slot: i64,
    page_path: String,
    referrer: Option<String>,
    visitor: Named,
    session: Named,
}

/// A visitor or visit as the tally reads it.
#[derive(PartialEq, Eq, Hash)]
enum Named {
    /// Named by the view itself: counted as new, its id unread (so every new one is alike).
    New,
    /// Anything else: counted by its id (or not at all, without one).
    Id(Option<String>),
}

impl Named {
    fn of(id: Option<String>, new: bool) -> Named {
        if new { Named::New } else { Named::Id(id) }
    }

    /// What [`Tally::visit`] takes.
    fn as_read(&self) -> (Option<&str>, bool) {
        match self {
            Named::New => (None, true),
            Named::Id(id) => (id.as_deref(), false),
        }
    }
}

/// `INSERT … VALUES ($1, $2, …), (…)` for `rows` rows of `columns` columns.
fn insert_rows(head: &str, rows: usize, columns: usize) -> String {
    let mut sql = format!("{head} VALUES ");
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for c in 1..=columns {
            if c > 1 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("${}", r * columns + c));
        }
        sql.push(')');
    }
    sql
}

/// Many rows a statement: a batch costs a few statements, not one per event (each a trip to
/// the database, or to SQLite's thread), so the writer takes little of the CPU pages need.
const ROWS_PER_INSERT: usize = 100;

impl Store {
    /// The summary of the roll-up days from `since_day` ([`day_of`]) on, read from the daily
    /// roll-ups: a few rows a day whatever the traffic.
    pub async fn analytics_summary(
        &self,
        tenant: TenantId,
        since_day: i64,
    ) -> Result<AnalyticsSummary> {
        let mut tx = self.read().await?;
        let sum = |filter: &str| {
            format!(
                "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM analytics_day \
                 WHERE tenant_id = $1 AND metric = $2 AND day >= $3 AND {filter}"
            )
        };
        let page_views = tx
            .query_one(
                &sum("label IN ($4, $5)"),
                params![
                    tenant,
                    metric::EVENT,
                    since_day,
                    VISIT_EVENTS[0],
                    VISIT_EVENTS[1]
                ],
            )
            .await?
            .i64(0)?;
        let mut counted = Vec::new();
        for name in [ADD_TO_CART_EVENT, PURCHASE_EVENT] {
            counted.push(
                tx.query_one(
                    &sum("label = $4"),
                    params![tenant, metric::EVENT, since_day, name],
                )
                .await?
                .i64(0)?,
            );
        }
        // Visitors and visits: those the server named in the period, counted once when it
        // named them, and the distinct others (ids it did not make, and ids it made before
        // the period began).
        let mut distinct = Vec::new();
        for (new, other, later, made_before) in [
            (
                metric::NEW_VISITOR,
                metric::VISITOR,
                metric::VISITOR_LATER,
                since_day,
            ),
            (
                metric::NEW_SESSION,
                metric::SESSION,
                metric::SESSION_LATER,
                since_day * SLOTS_PER_DAY,
            ),
        ] {
            let named = tx
                .query_one(&sum("label = ''"), params![tenant, new, since_day])
                .await?
                .i64(0)?;
            let others = tx
                .query_one(
                    "SELECT COUNT(DISTINCT label) FROM analytics_day \
                     WHERE tenant_id = $1 AND day >= $2 \
                     AND (metric = $3 OR (metric = $4 AND n < $5))",
                    params![tenant, since_day, other, later, made_before],
                )
                .await?
                .i64(0)?;
            distinct.push(named + others);
        }
        let (unique_visitors, visits) = (distinct[0], distinct[1]);
        let mut top = Vec::new();
        for m in [metric::PAGE, metric::REFERRER] {
            let rows = tx
                .query(
                    "SELECT label, CAST(SUM(n) AS BIGINT) AS total FROM analytics_day \
                     WHERE tenant_id = $1 AND metric = $2 AND day >= $3 \
                     GROUP BY label ORDER BY total DESC, label LIMIT 10",
                    params![tenant, m, since_day],
                )
                .await?;
            top.push(
                rows.iter()
                    .map(|r| Ok((r.text(0)?, r.i64(1)?)))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        tx.commit().await?;
        let referrers = top.pop().unwrap_or_default();
        let pages = top.pop().unwrap_or_default();
        Ok(AnalyticsSummary {
            since_ms: since_day * DAY_MS,
            visits,
            page_views,
            unique_visitors,
            top_pages: pages,
            top_referrers: referrers,
            add_to_carts: counted[0],
            purchases: counted[1],
            conversion_rate: if unique_visitors > 0 {
                counted[1] as f64 / unique_visitors as f64
            } else {
                0.0
            },
        })
    }

    /// Appends analytics events and counts them into the roll-ups, in one transaction.
    pub async fn record_events(&self, tenant: TenantId, events: &[AnalyticsEvent]) -> Result<()> {
        let with_tenant: Vec<_> = events.iter().map(|e| (tenant, e)).collect();
        self.record_analytics(&Tally::new(), &with_tenant).await
    }

    /// Writes what a node gathered since its last write, in one transaction: the raw
    /// `events` of any sites (appended, and counted into the roll-ups) and the `tally`'s
    /// counts (added to the roll-ups; the `*-later` rows are kept as first written).
    pub async fn record_analytics(
        &self,
        tally: &Tally,
        events: &[(TenantId, &AnalyticsEvent)],
    ) -> Result<()> {
        const COLUMNS: usize = 7;
        if tally.is_empty() && events.is_empty() {
            return Ok(());
        }
        let mut tx = self.write().await?;
        for chunk in events.chunks(ROWS_PER_INSERT) {
            let mut values = Vec::with_capacity(chunk.len() * COLUMNS);
            for (tenant, e) in chunk {
                values.extend(params![
                    *tenant,
                    e.occurred_ms,
                    e.name.as_str(),
                    e.page_path.as_str(),
                    e.visitor_id.clone(),
                    &e.data,
                    e.referrer.clone()
                ]);
            }
            let sql = insert_rows(
                "INSERT INTO analytics_event (tenant_id, occurred_ms, name, page_path, visitor_id, data, referrer)",
                chunk.len(),
                COLUMNS,
            );
            tx.execute(&sql, values).await?;
        }
        let mut rolled = Tally::new();
        for (tenant, e) in events {
            rolled.event(*tenant, e);
        }
        // Counted up, not recounted: each row appears once a statement, so PostgreSQL's ON
        // CONFLICT never meets the same row twice.
        let mut rows: BTreeMap<(TallyKey, &str), i64> = BTreeMap::new();
        for (k, label, n) in rolled.rows().chain(tally.rows()) {
            let later = k.2 == metric::VISITOR_LATER || k.2 == metric::SESSION_LATER;
            let v = rows.entry((k, label)).or_insert(0);
            if later { *v = n } else { *v += n }
        }
        for grain in [Grain::Day, Grain::Slot] {
            let (table, bucket) = match grain {
                Grain::Day => ("analytics_day", "day"),
                Grain::Slot => ("analytics_slot", "slot"),
            };
            for later in [false, true] {
                let these: Vec<_> = rows
                    .iter()
                    .filter(|(((_, g, m, _), _), _)| {
                        *g == grain
                            && later == (*m == metric::VISITOR_LATER || *m == metric::SESSION_LATER)
                    })
                    .collect();
                for chunk in these.chunks(ROWS_PER_INSERT) {
                    let mut values = Vec::with_capacity(chunk.len() * 5);
                    for (((tenant, _, m, b), label), n) in chunk {
                        values.extend(params![*tenant, *m, *b, *label, **n]);
                    }
                    let head =
                        format!("INSERT INTO {table} (tenant_id, metric, {bucket}, label, n)");
                    let on_conflict = if later {
                        // The bucket the id was made in: the same every time.
                        format!(" ON CONFLICT (tenant_id, metric, {bucket}, label) DO NOTHING")
                    } else {
                        format!(
                            " ON CONFLICT (tenant_id, metric, {bucket}, label) DO UPDATE SET n = {table}.n + EXCLUDED.n"
                        )
                    };
                    let sql = insert_rows(&head, chunk.len(), 5) + &on_conflict;
                    tx.execute(&sql, values).await?;
                }
            }
        }
        tx.commit().await
    }

    /// Events at or after `since_ms`, oldest first, at most `limit`.
    pub async fn events(
        &self,
        tenant: TenantId,
        since_ms: i64,
        limit: usize,
    ) -> Result<Vec<AnalyticsEvent>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT occurred_ms, name, page_path, visitor_id, data, referrer FROM analytics_event \
                 WHERE tenant_id = $1 AND occurred_ms >= $2 ORDER BY occurred_ms, id LIMIT $3",
                params![tenant, since_ms, limit as i64],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(AnalyticsEvent {
                    occurred_ms: r.i64(0)?,
                    name: r.text(1)?,
                    page_path: r.text(2)?,
                    visitor_id: r.opt_text(3)?,
                    data: r.json(4)?,
                    referrer: r.opt_text(5)?,
                })
            })
            .collect()
    }

    /// Appends performance records.
    pub async fn record_performance(
        &self,
        tenant: TenantId,
        records: &[PerformanceRecord],
    ) -> Result<()> {
        let mut tx = self.write().await?;
        for p in records {
            tx.execute(
                "INSERT INTO performance_record (tenant_id, page_load_id, app, event, ts_ms, data) VALUES ($1, $2, $3, $4, $5, $6)",
                params![tenant, p.page_load_id.as_str(), p.app.as_str(), p.event.as_str(), p.ts_ms, &p.data],
            )
            .await?;
        }
        tx.commit().await
    }

    /// Performance records of one page load, by time.
    pub async fn performance_records(
        &self,
        tenant: TenantId,
        page_load_id: &str,
    ) -> Result<Vec<PerformanceRecord>> {
        let mut tx = self.read().await?;
        let rows = tx
            .query(
                "SELECT page_load_id, app, event, ts_ms, data FROM performance_record \
                 WHERE tenant_id = $1 AND page_load_id = $2 ORDER BY ts_ms, id",
                params![tenant, page_load_id],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(PerformanceRecord {
                    page_load_id: r.text(0)?,
                    app: r.text(1)?,
                    event: r.text(2)?,
                    ts_ms: r.i64(3)?,
                    data: r.json(4)?,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_ids_say_when_they_were_made() {
        let hex = "0123456789abcdef0123456789abcdef";
        assert_eq!(
            visitor_minted_day(&minted_visitor(20_420, hex)),
            Some(20_420)
        );
        assert_eq!(
            session_minted_slot(&minted_session(1_960_360, hex)),
            Some(1_960_360)
        );
        // Anything else is an id of its own (counted by its label).
        for other in [
            "s1",
            "visitor-1",
            hex,
            "s12-0123",
            "sx-0123456789abcdef0123456789abcdef",
            "s-0123456789abcdef0123456789abcdef",
            "s12-0123456789abcdef0123456789abcdeg",
            "s1234567890123-0123456789abcdef0123456789abcdef",
        ] {
            assert_eq!(session_minted_slot(other), None, "{other}");
        }
        assert_eq!(visitor_minted_day(&minted_session(5, hex)), None);
    }

    fn view(path: &str, referrer: Option<&str>) -> PageView {
        PageView {
            occurred_ms: 5 * DAY_MS,
            page_path: path.into(),
            referrer: referrer.map(str::to_owned),
            ..PageView::default()
        }
    }

    #[test]
    fn a_tally_caps_the_labels_of_a_site() {
        let (a, b) = (TenantId(1), TenantId(2));
        let mut t = Tally::with_cap(3);
        for i in 0..5 {
            t.page_view(a, &view(&format!("/p{i}"), Some("r.example")));
            t.page_view(a, &view("/p0", None));
        }
        t.page_view(b, &view("/other", None));
        let rows = |tenant, grain, m: &str| -> BTreeMap<String, i64> {
            t.rows()
                .filter(|(k, _, _)| k.0 == tenant && k.1 == grain && k.2 == m)
                .map(|(_, label, n)| (label.to_string(), n))
                .collect()
        };
        for grain in [Grain::Day, Grain::Slot] {
            // Three paths; the two past the cap dropped, the counts of kept ones whole.
            let pages = rows(a, grain, metric::PAGE);
            assert_eq!(pages.len(), 3, "{pages:?}");
            assert_eq!(pages["/p0"], 6);
            assert_eq!(rows(a, grain, metric::EVENT)["pageview"], 10);
            assert_eq!(rows(a, grain, metric::REFERRER)["r.example"], 5);
            // Another site has its own.
            assert_eq!(rows(b, grain, metric::PAGE)["/other"], 1);
        }
        assert_eq!(t.dropped(), 4);
    }

    /// Every row of a tally, sorted.
    fn all_rows(t: &Tally) -> Vec<(TallyKey, String, i64)> {
        let mut rows: Vec<_> = t.rows().map(|(k, l, n)| (k, l.to_owned(), n)).collect();
        rows.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        rows
    }

    #[test]
    fn summed_page_views_count_as_views_one_by_one() {
        // Views of two sites over three quarter hours across a day's end: new visitors and
        // visits (each with an id of its own, or none, as the server sends them), ids the server made earlier (today, on an
        // earlier day, in an earlier quarter hour), ids it did not make, none, and empty.
        let hex = "0123456789abcdef0123456789abcdef";
        let day = 20_420;
        let end = (day + 1) * DAY_MS - 1;
        let times = [end - SLOT_MS, end, end + 1];
        let visitors: [(Option<String>, bool); 7] = [
            (None, false),
            (None, true),
            (Some(String::new()), true),
            (Some("v-new".into()), true),
            (Some(minted_visitor(day, hex)), false),
            (Some(minted_visitor(day - 3, hex)), false),
            (Some("their-own".into()), false),
        ];
        let slot = slot_of(end);
        let sessions: [(Option<String>, bool); 6] = [
            (None, false),
            (None, true),
            (Some("s-new".into()), true),
            (Some(minted_session(slot, hex)), false),
            (Some(minted_session(slot - 200, hex)), false),
            (Some("s1".into()), false),
        ];
        let mut views = Vec::new();
        let mut i = 0usize;
        // Three rounds of the same views, but for the ids new ones get.
        for _ in 0..3 {
            for (t, ms) in times.iter().enumerate() {
                for (v, (visitor, new_visitor)) in visitors.iter().enumerate() {
                    for (s, (session, new_session)) in sessions.iter().enumerate() {
                        i += 1;
                        let tenant = TenantId(1 + (v % 2) as i64);
                        let mut id = visitor.clone();
                        if *new_visitor && id.as_deref() == Some("v-new") {
                            id = Some(format!("v-new-{i}"));
                        }
                        let mut session = session.clone();
                        if *new_session && session.is_some() {
                            session = Some(format!("s-new-{i}"));
                        }
                        views.push((
                            tenant,
                            PageView {
                                occurred_ms: *ms,
                                page_path: format!("/p{}", (t + v + s) % 7),
                                referrer: (s % 3 > 0).then(|| format!("r{}.example", (t + s) % 4)),
                                visitor_id: id,
                                session,
                                new_visitor: *new_visitor,
                                new_session: *new_session,
                            },
                        ));
                    }
                }
            }
        }
        // Capped low enough that labels are dropped, and without a cap.
        for cap in [Some(4), None] {
            let fresh = || cap.map_or_else(Tally::new, Tally::with_cap);
            let mut one_by_one = fresh();
            let mut sums = PageViewSums::default();
            for (t, v) in &views {
                one_by_one.page_view(*t, v);
                sums.add(*t, v.clone());
            }
            assert!(
                sums.len() < views.len() / 2,
                "{} of {}",
                sums.len(),
                views.len()
            );
            let mut summed = fresh();
            summed.page_view_sums(sums);
            assert_eq!(all_rows(&summed), all_rows(&one_by_one), "cap {cap:?}");
            assert_eq!(summed.dropped(), one_by_one.dropped(), "cap {cap:?}");
            assert_eq!(cap.is_some(), one_by_one.dropped() > 0);
        }
    }
}
