//! The HTTP server: listener, middleware layers, graceful shutdown, and the page route that
//! maps `Host` → tenant → rendered page.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use moka::future::Cache;
use renderer::folder::{TemplateFiles, TemplateFolder};
use tenants::{Store, TemplateHash, TemplateVersion, TenantId};

use crate::commerce::CommerceState;
use crate::http::site::{NoSite, SiteBundle, host_of, resolve};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

/// A render slower than this moves its template's later renders off the async workers.
/// Generous, because under load the wall-clock time of a render includes preemption.
pub const INLINE_RENDER_LIMIT: Duration = Duration::from_millis(20);

/// How many slow renders in a row move a template off the async workers: not one, because
/// a process's first renders also pay one-time set-up (built-in partials, locale data), and
/// in a row, because a fast template's render is now and then preempted past the limit on
/// a busy machine, and over days such renders would add up.
pub const SLOW_RENDERS: u32 = 3;

/// How many renders within the limit in a row, on the blocking pool, bring a template back
/// to the async workers: many, so that a template that is slow now and then does not move
/// back and forth, yet one held up once by a long overload does not pay a thread handoff
/// on every render for good.
pub const FAST_RENDERS_BACK: u32 = 1000;

/// How long one request may take before the client gets 408.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Shared state of the server: cloned for every request (axum's `State`), so it is one
/// reference-counted pointer to [`AppState`].
#[derive(Clone)]
pub struct App(Arc<AppState>);

impl std::ops::Deref for App {
    type Target = AppState;
    fn deref(&self) -> &AppState {
        &self.0
    }
}

/// What the server shares between requests.
pub struct AppState {
    pub store: Store,
    /// The content hash of (tenant, template version)s stored without one (by an older
    /// node), hashed from their files once (see [`load_folder`]).
    template_hashes: Cache<(TenantId, TemplateVersion), TemplateHash>,
    /// Compiled template folders by the content hash of their files: compiled once per
    /// distinct folder, however many tenants use it.
    folders: Cache<TemplateHash, Arc<LoadedFolder>>,
    /// What a site's content version gives requests (the renderer's view, the commerce
    /// settings ...) by (tenant, content version).
    pub(crate) sites: Cache<(TenantId, i64), Arc<SiteBundle>>,
    /// Renders slower than this move their template off the async workers
    /// ([`INLINE_RENDER_LIMIT`] unless set).
    inline_render_limit: Duration,
    /// Reverse proxies whose forwarding headers are believed ([`crate::client`]).
    pub(crate) trusted_proxies: Arc<[std::net::IpAddr]>,
    /// Rate limits on visitor writes, per family of calls.
    pub limits: crate::http::limits::Limits,
    /// Payment providers, the cart hold and the carts pages show.
    pub commerce: Arc<CommerceState>,
    /// The captcha provider of forms, newsletters and restock sign-ups.
    pub captcha: crate::captcha::Captcha,
    /// Owners' tokens for the owner routes.
    pub owner_tokens: crate::http::owner::OwnerTokens,
    /// Nudges the mailer after mail is put in the outbox.
    pub outbox: crate::email::Outbox,
    /// `tessera dev`: the one site every host gets, and the live-reload events.
    pub dev: Option<Arc<crate::dev::Dev>>,
    /// Where tracking calls put what they record; `None`: analytics is off.
    pub analytics: Option<crate::analytics::queue::Queue>,
}

impl App {
    /// The app with its share of the default cache budget
    /// ([`crate::cache_budget::DEFAULT_CACHE_MB`]).
    pub fn new(store: Store) -> App {
        App::with_cache_budget(store, crate::cache_budget::AppBudget::default())
    }

    /// The app whose compiled-template and site caches hold at most these many bytes (by
    /// the weighers' estimates in [`crate::cache_budget`]).
    pub fn with_cache_budget(store: Store, budget: crate::cache_budget::AppBudget) -> App {
        let limits = crate::http::limits::Limits::new(store.clone(), Default::default());
        App(Arc::new(AppState {
            store,
            template_hashes: Cache::builder()
                .max_capacity(budget.template_hashes)
                .weigher(|_, _| crate::cache_budget::HASH_ENTRY_WEIGHT)
                .build(),
            folders: Cache::builder()
                .max_capacity(budget.folders)
                .weigher(|_, f: &Arc<LoadedFolder>| f.weight())
                .build(),
            sites: Cache::builder()
                .max_capacity(budget.sites)
                .weigher(|_, b: &Arc<SiteBundle>| b.weight())
                .build(),
            inline_render_limit: INLINE_RENDER_LIMIT,
            trusted_proxies: Arc::from([]),
            limits,
            commerce: Arc::new(CommerceState::default()),
            captcha: Default::default(),
            owner_tokens: Default::default(),
            outbox: Default::default(),
            dev: None,
            analytics: None,
        }))
    }

    /// The state, to set up before the app is shared.
    fn setting_up(&mut self) -> &mut AppState {
        Arc::get_mut(&mut self.0).expect("an app is set up before it is shared")
    }

    /// The same app with these commerce settings (rate limits, cart hold).
    pub fn with_commerce(mut self, commerce: CommerceState) -> App {
        self.setting_up().commerce = Arc::new(commerce);
        self
    }

    /// The same app with these rate limits.
    pub fn with_rates(mut self, rates: crate::http::limits::Rates) -> App {
        let store = self.store.clone();
        self.setting_up().limits = crate::http::limits::Limits::new(store, rates);
        self
    }

    /// The same app in `tessera dev` mode.
    pub fn with_dev(mut self, dev: Arc<crate::dev::Dev>) -> App {
        self.setting_up().dev = Some(dev);
        self
    }

    /// The same app recording analytics through `queue`.
    pub fn with_analytics(mut self, queue: crate::analytics::queue::Queue) -> App {
        self.setting_up().analytics = Some(queue);
        self
    }

    /// The same app with this captcha provider.
    pub fn with_captcha(mut self, captcha: crate::captcha::Captcha) -> App {
        self.setting_up().captcha = captcha;
        self
    }

    /// The same app with these owner tokens.
    pub fn with_owner_tokens(mut self, tokens: crate::http::owner::OwnerTokens) -> App {
        self.setting_up().owner_tokens = tokens;
        self
    }

    /// The same app believing `X-Forwarded-For` and `X-Forwarded-Proto` from these peers.
    pub fn with_trusted_proxies(mut self, proxies: Vec<std::net::IpAddr>) -> App {
        self.setting_up().trusted_proxies = proxies.into();
        self
    }

    /// The same app with another limit for inline renders (tests use zero).
    pub fn with_inline_render_limit(mut self, limit: Duration) -> App {
        self.setting_up().inline_render_limit = limit;
        self
    }
}

/// The API's routes with their OpenAPI description: each family registers its handlers
/// through utoipa-axum, so the document lists exactly what is served.
pub fn api_routes() -> (Router<App>, utoipa::openapi::OpenApi) {
    use utoipa::OpenApi;
    use utoipa_axum::router::OpenApiRouter;
    let families: [OpenApiRouter<App>; 10] = [
        crate::commerce::routes(),
        crate::forms::routes(),
        crate::restock::routes(),
        crate::site_users::routes(),
        crate::engagement::routes(),
        crate::analytics::routes(),
        crate::captcha::routes(),
        crate::billing::routes(),
        crate::owner::routes(),
        crate::lock_screen::routes(),
    ];
    let mut all = OpenApiRouter::with_openapi(crate::openapi::ApiDoc::openapi());
    for family in families {
        crate::openapi::check_names(all.get_openapi(), family.get_openapi());
        all = all.merge(family);
    }
    let (routes, mut doc) = all.split_for_parts();
    crate::openapi::finish(&mut doc);
    (routes, doc)
}

/// The router with every route and layer but the per-site cap (unit tests).
pub fn router(app: App) -> Router {
    capped_router(app, 0)
}

/// The router with every route and layer, each site's requests in flight capped at
/// `tenant_max_in_flight` (0: no cap; [`crate::http::fairness`]).
pub fn capped_router(app: App, tenant_max_in_flight: usize) -> Router {
    let (api, doc) = api_routes();
    let doc = crate::openapi::Served::new(&doc);
    let mut routes = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route(
            crate::openapi::PATH,
            get(move || std::future::ready(doc.response())),
        )
        .merge(api)
        .route("/_tessera/islands/{*file}", get(crate::islands::serve))
        .route(crate::dev::EVENTS, get(crate::dev::events))
        .fallback(page)
        // Text with U+0000 in a path or query is refused before any route reads it.
        .layer(axum::middleware::from_fn(crate::http::body::nul_free_uri))
        .layer(CompressionLayer::new())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(CatchPanicLayer::new())
        .layer(TraceLayer::new_for_http());
    if tenant_max_in_flight > 0 {
        use crate::http::fairness::{Fairness, limit};
        let fairness = Fairness::new(app.store.clone(), tenant_max_in_flight);
        // Outside the other layers, so a refusal costs no more than the host lookup; inside
        // the security headers, so its 503s carry them as every other answer does.
        routes = routes.layer(axum::middleware::from_fn_with_state(fairness, limit));
    }
    routes
        // Before anything reads `Host` (the per-site cap, the handlers): one checked host.
        .layer(axum::middleware::from_fn(crate::http::host::strict_host))
        .layer(crate::http::security::headers((&app).into()))
        .with_state(app)
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight requests finish. `limits` bounds
/// what clients may hold ([`crate::listen`]): header and body timeouts, connections, and
/// each site's requests in flight ([`crate::http::fairness`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: App,
    limits: &crate::listen::Limits,
) -> std::io::Result<()> {
    use tower_http::timeout::DeadlineBody;
    let body_timeout = limits.body_timeout;
    let service = capped_router(app, limits.tenant_max_in_flight)
        // One deadline for the whole body from the headers on, so a body trickled a byte
        // at a time is cut off too; the body reader answers 408 ([`crate::http::body`]).
        // (A request without a body, most of them, needs no timer.)
        .layer(tower::util::MapRequestLayer::new(move |req: Request| {
            use axum::body::HttpBody;
            if req.body().is_end_stream() {
                return req;
            }
            req.map(|body| Body::new(DeadlineBody::new(body_timeout, body)))
        }));
    crate::listen::serve(listener, service, limits, shutdown_signal()).await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}

pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text,
    )
        .into_response()
}

/// The answer of a page request when the store cannot be reached (the database is down or
/// restarting): a short plain 503 with `Retry-After`, saying nothing of why (the reason is
/// logged), and kept by no cache.
pub(crate) fn unavailable_page() -> Response {
    let mut r = plain(StatusCode::SERVICE_UNAVAILABLE, "Service Unavailable");
    let h = r.headers_mut();
    h.insert(
        header::RETRY_AFTER,
        HeaderValue::from(crate::http::error::RETRY_AFTER_UNAVAILABLE.as_secs()),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// The plain answer of a page request that has no site.
pub(crate) fn no_site(why: NoSite) -> Response {
    match why {
        // An unknown (or malformed) host: a plain 404 with no tenant data.
        NoSite::UnknownHost => plain(StatusCode::NOT_FOUND, "Not Found"),
        NoSite::Unavailable => unavailable_page(),
    }
}

async fn page(State(app): State<App>, req: Request) -> Response {
    let found = match resolve(&app, host_of(&req), req.extensions().get()).await {
        Ok(found) => found,
        Err(why) => return no_site(why),
    };
    let tenant = found.tenant.clone();
    let site = found.content.render.clone();
    let loaded = match load_folder(&app, &found).await {
        Ok(Some(f)) => f,
        Ok(None) => {
            return plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "This site has no template yet.",
            );
        }
        Err(e) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "loading the template failed");
            return match e {
                FolderError::Store(_) => unavailable_page(),
                FolderError::Compile(_) => error_page(),
            };
        }
    };
    let path = req.uri().path().to_string();
    let query = req.uri().query().unwrap_or("").to_string();
    if path == "/scripts/combo/" {
        return combo_scripts(&loaded, &query, req.headers());
    }
    if let Some(rel) = path.strip_prefix('/')
        && (rel.starts_with("assets/") || rel.starts_with("scripts/"))
    {
        return public_file(&loaded, rel, req.headers());
    }
    // Password-protected collections this visitor has opened (unlock cookies checked), and
    // the member areas of a signed-in member.
    let unlocked = crate::site_users::visitor_keys(&app, tenant.id, &site, req.headers()).await;
    let signed_in = crate::http::cookies::values(req.headers(), crate::site_users::SESSION_COOKIE)
        .next()
        .is_some();
    let unlocked_any = !unlocked.is_empty();
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let https = crate::client::client_of(peer, req.headers(), &app.trusted_proxies).https;
    // The crumb cookie, the visitor's cart and, on an order's page, the order.
    let commerce =
        crate::commerce::pages::for_page(&app, &found, req.headers(), https, &path, &query).await;
    let mut set_cookies = commerce.set_cookies;
    let (cart, order) = (commerce.cart, commerce.order);
    let personal_commerce = cart.is_some() || order.is_some();
    // Node clones share their data: the islands read the cart after the render took it.
    let cart_summary = cart.clone();
    let page_path = path.clone();
    let render = {
        let folder = loaded.folder.clone();
        move || {
            let started = Instant::now();
            let request = renderer::render::Request {
                path: &path,
                query: &query,
                unlocked: &unlocked,
                cart: cart.as_ref(),
                order: order.as_ref(),
            };
            // A panic becomes the generic error page, on either path below.
            let page = std::panic::catch_unwind(AssertUnwindSafe(|| {
                renderer::render::render(&site, &folder, &request)
            }));
            (page.ok(), started.elapsed())
        }
    };
    // Most pages render in tens of microseconds: on the async worker, where handing them to
    // the blocking pool would cost more than the render (see benches/load.sh). A template
    // that keeps taking longer renders on the blocking pool, so a slow template cannot stall
    // other requests' I/O, until it keeps being fast again ([`SlowRenders`]).
    let (page, took) = if loaded.is_slow() {
        tokio::task::spawn_blocking(render)
            .await
            .unwrap_or((None, Duration::ZERO))
    } else {
        render()
    };
    match loaded.slow_renders.record(took > app.inline_render_limit) {
        Some(Moved::ToPool) => {
            tracing::info!(tenant = %tenant.identifier, ?took, "slow renders: this template renders on the blocking pool");
        }
        Some(Moved::Back) => {
            tracing::info!(tenant = %tenant.identifier, "fast renders: this template renders on the async workers again");
        }
        None => {}
    }
    let Some(mut page) = page else {
        tracing::error!(tenant = %tenant.identifier, "rendering panicked");
        return error_page();
    };
    // The page view, by the tracking rules (crate::analytics::page_views), off the page's
    // path: a queue push.
    let mut tracked = false;
    if let Some(queue) = &app.analytics
        && page.status == 200
        && page.content_type.starts_with("text/html")
    {
        use crate::analytics::page_views;
        // A signed-in user of the site is a request with an owner token (a store failure
        // here counts the view rather than failing the page).
        let role = crate::http::owner::role_of(&app, &tenant, req.headers())
            .await
            .ok()
            .flatten();
        tracked = page_views::tracked(page.page_type, &page_path, role);
        if tracked {
            let (visitor, cookies) = page_views::visitor(
                req.headers(),
                page_views::restrictive(&found.content.render),
                https,
            );
            set_cookies.extend(cookies);
            let host = host_of(&req).unwrap_or_default();
            let t = page.page_type.unwrap_or_default();
            page_views::record(
                queue,
                tenant.id,
                &host,
                &page_path,
                t,
                visitor,
                req.headers(),
            );
        }
    }
    if page.content_type.starts_with("text/html") {
        let settings = &found.content.render.website_settings;
        let facts = crate::islands::PageFacts {
            currency: found.content.commerce.currency.as_str(),
            locale: &found.content.language,
            express_checkout: matches!(
                settings.pointer(&["storeSettings", "expressCheckout"]),
                Some(template_lang::value::Node::Bool(true))
            ),
            cart: cart_summary.as_ref(),
            products: &found.content.products,
            restock_success_text: found.content.restock_success_text.as_deref(),
            signed_in,
            analytics: app
                .analytics
                .is_some()
                .then_some(crate::islands::AnalyticsFacts {
                    tracked,
                    page_type: page.page_type,
                }),
            website_status: tenant.status.code(),
        };
        crate::islands::finish_page(&mut page.body, &facts);
        if let (Some(_), Some(version)) = (&app.dev, found.template_version) {
            crate::dev::inject(&mut page.body, version.0);
        }
    }
    for e in &page.errors {
        tracing::warn!(tenant = %tenant.identifier, "template: {e}");
    }
    // A lock screen, a member area's join page, any page for a visitor who unlocked
    // something or is in a member area (protected content may show anywhere: the page
    // itself, queries, search), a page showing the visitor's cart and an order's page are
    // never stored by any cache; a page that sets a cookie is never stored by a shared one.
    use renderer::route::page_type::{LOCK_SCREEN, MEMBER_AREA_DENIED};
    let personal = matches!(page.page_type, Some(LOCK_SCREEN | MEMBER_AREA_DENIED))
        || unlocked_any
        || personal_commerce;
    let cache = if personal {
        "private, no-store"
    } else if !set_cookies.is_empty() {
        "private, no-cache"
    } else {
        "no-cache"
    };
    let mut response = Response::builder()
        .status(page.status)
        .header(header::CONTENT_TYPE, page.content_type)
        .header(header::CACHE_CONTROL, cache)
        .header(header::VARY, "Cookie");
    for c in &set_cookies {
        response = response.header(header::SET_COOKIE, c);
    }
    if let Some(location) = &page.location {
        response = response.header(header::LOCATION, location);
    }
    if let Some(t) = page.page_type {
        response = response.header("x-page-type", t.to_string());
    }
    response
        .body(Body::from(page.body))
        .unwrap_or_else(|_| error_page())
}

pub(crate) fn error_page() -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        renderer::render::ERROR_PAGE,
    )
        .into_response()
}

/// A compiled template folder, with the ETags of its public files computed once (hashing a
/// file on every request would cost more than sending it).
pub struct LoadedFolder {
    pub folder: Arc<TemplateFolder>,
    /// The bytes of the template files it was compiled from, and of those its public
    /// files (its cache weight).
    source_bytes: u64,
    public_bytes: u64,
    etags: HashMap<String, HeaderValue>,
    /// Whether this folder's renders have moved to the blocking pool (for every tenant
    /// sharing the folder: the same template renders alike for all of them).
    slow_renders: SlowRenders,
}

/// Where one folder's renders run, from the latest renders in a row: below
/// [`SLOW_RENDERS`], inline on the async workers, the count being the slow renders in a row;
/// from it on, on the blocking pool, the count less [`SLOW_RENDERS`] being the renders
/// within the limit in a row there, until [`FAST_RENDERS_BACK`] of them bring it back.
#[derive(Default)]
struct SlowRenders(AtomicU32);

/// A move of a folder's renders (for the log).
#[derive(Debug, PartialEq, Eq)]
enum Moved {
    ToPool,
    Back,
}

impl SlowRenders {
    fn is_slow(&self) -> bool {
        self.0.load(Ordering::Relaxed) >= SLOW_RENDERS
    }

    /// Counts a render, `slow` or not, and says when this one moved the folder. (Renders
    /// running at the same time may interleave their counts; the rules only need to tell a
    /// template that keeps being slow, or fast, from one held up now and then.)
    fn record(&self, slow: bool) -> Option<Moved> {
        // Unchanged counts are not written: the fast render of an inline template, the
        // usual case, then costs one shared load.
        let before = match self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                let next = next_count(n, slow);
                (next != n).then_some(next)
            }) {
            Ok(n) | Err(n) => n,
        };
        match (before < SLOW_RENDERS, next_count(before, slow)) {
            (true, next) if next == SLOW_RENDERS => Some(Moved::ToPool),
            (false, 0) => Some(Moved::Back),
            _ => None,
        }
    }
}

/// The count of [`SlowRenders`] after a render, `slow` or not, at count `n`.
fn next_count(n: u32, slow: bool) -> u32 {
    match (n < SLOW_RENDERS, slow) {
        (true, true) => n + 1,
        (true, false) => 0,
        (false, true) => SLOW_RENDERS,
        (false, false) if n - SLOW_RENDERS + 1 >= FAST_RENDERS_BACK => 0,
        (false, false) => n + 1,
    }
}

impl LoadedFolder {
    fn is_slow(&self) -> bool {
        self.slow_renders.is_slow()
    }

    /// Compiles a template version's files into what the folder cache holds (CPU-bound:
    /// run it off the async workers).
    pub fn compile(files: Vec<tenants::TemplateFile>) -> LoadedFolder {
        let source_bytes = files
            .iter()
            .map(|f| (f.path.len() + f.content.len()) as u64)
            .sum();
        let files: TemplateFiles = files
            .into_iter()
            .map(|f| (f.path, f.content.into()))
            .collect();
        LoadedFolder::new(renderer::folder::load(&files), source_bytes)
    }

    /// The bytes of the template files it was compiled from.
    pub fn source_bytes(&self) -> u64 {
        self.source_bytes
    }

    /// Its cache weight ([`crate::cache_budget::folder_weight`]).
    pub fn weight(&self) -> u32 {
        crate::cache_budget::folder_weight(
            self.public_bytes,
            self.source_bytes.saturating_sub(self.public_bytes),
        )
    }

    fn new(folder: TemplateFolder, source_bytes: u64) -> LoadedFolder {
        let etags = folder
            .public
            .iter()
            .filter_map(|(path, bytes)| {
                let tag = HeaderValue::from_str(&format!("\"{:016x}\"", fnv1a(bytes))).ok()?;
                Some((path.clone(), tag))
            })
            .collect();
        let public_bytes = folder
            .public
            .iter()
            .map(|(path, bytes)| (path.len() + bytes.len()) as u64)
            .sum();
        LoadedFolder {
            folder: Arc::new(folder),
            source_bytes,
            public_bytes,
            etags,
            slow_renders: SlowRenders::default(),
        }
    }
}

/// Why a template folder could not be loaded.
#[derive(Clone, Debug)]
pub(crate) enum FolderError {
    /// Its files could not be read from the store (worth retrying: 503).
    Store(String),
    /// Compiling it panicked (a bug: 500).
    Compile(String),
}

impl std::fmt::Display for FolderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FolderError::Store(e) => write!(f, "reading the template files: {e}"),
            FolderError::Compile(e) => write!(f, "compiling the template: {e}"),
        }
    }
}

/// The compiled template folder of the site's active template version (`None` if it has
/// none). Folders are shared by content: the version's hash comes with the tenant row
/// (stored at upload), so a tenant whose design another tenant already compiled costs no
/// read of its files; otherwise its files are loaded and compiled once per distinct folder.
/// A new upload is a new version with its own hash, so it never meets another folder.
pub(crate) async fn load_folder(
    app: &App,
    site: &crate::http::site::Site,
) -> Result<Option<Arc<LoadedFolder>>, FolderError> {
    let Some(version) = site.template_version else {
        return Ok(None);
    };
    let tenant = site.tenant.id;
    // A version stored without a hash (by an older node) is hashed from its files once.
    let known = match site.template_hash {
        Some(hash) => Some(hash),
        None => app.template_hashes.get(&(tenant, version)).await,
    };
    if let Some(hash) = known
        && let Some(folder) = app.folders.get(&hash).await
    {
        return Ok(Some(folder));
    }
    let files = app
        .store
        .template_files(tenant, version)
        .await
        .map_err(|e| FolderError::Store(e.to_string()))?;
    let hash = match known {
        Some(hash) => hash,
        None => {
            let hash = tenants::template_hash(&files);
            app.template_hashes.insert((tenant, version), hash).await;
            hash
        }
    };
    let identifier = site.tenant.identifier.clone();
    app.folders
        .try_get_with(hash, async move {
            let loaded = tokio::task::spawn_blocking(move || LoadedFolder::compile(files))
                .await
                .map_err(|e| FolderError::Compile(e.to_string()))?;
            for p in &loaded.folder.problems {
                tracing::warn!(tenant = %identifier, "template problem: {p}");
            }
            Ok::<_, FolderError>(Arc::new(loaded))
        })
        .await
        .map(Some)
        .map_err(|e| (*e).clone())
}

/// A template folder file, with a content type, an ETag and cache headers. The bytes are
/// shared with the cached folder, not copied.
fn public_file(loaded: &LoadedFolder, rel: &str, headers: &HeaderMap) -> Response {
    let (Some(bytes), Some(etag)) = (loaded.folder.public.get(rel), loaded.etags.get(rel)) else {
        return plain(StatusCode::NOT_FOUND, "Not Found");
    };
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim().as_bytes() == etag.as_bytes()));
    if fresh {
        return Response::builder()
            .status(StatusCode::NOT_MODIFIED)
            .header(header::ETAG, etag.clone())
            .body(Body::empty())
            .unwrap_or_else(|_| error_page());
    }
    Response::builder()
        .header(header::CONTENT_TYPE, content_type(rel))
        .header(header::ETAG, etag.clone())
        .header(header::CACHE_CONTROL, "public, max-age=3600")
        .body(Body::from(Bytes::from_owner(bytes.clone())))
        .unwrap_or_else(|_| error_page())
}

/// `/scripts/combo/?a.js&b.js`: the folder's scripts joined in order, as the renderer
/// asks for adjacent `combo="true"` scripts (TEMPLATE-PLATFORM.md §2.2). A name the folder
/// lacks becomes a comment giving its place in the list (the others still run); none found
/// is a 404.
///
/// Nothing of the request is ever written into the body: the names are the visitor's, and
/// a name echoed into JavaScript can close its comment and run (issue 40). The body is
/// made only of the folder's own files and fixed text.
fn combo_scripts(loaded: &LoadedFolder, query: &str, headers: &HeaderMap) -> Response {
    let mut body = Vec::new();
    let mut found = 0;
    for (place, name) in query.split('&').filter(|n| !n.is_empty()).enumerate() {
        let name = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
        let rel = format!("scripts/{}", name.trim_start_matches('/'));
        match loaded.folder.public.get(rel.as_str()) {
            Some(bytes) if rel.ends_with(".js") => {
                body.extend_from_slice(bytes);
                body.extend_from_slice(b"\n;\n");
                found += 1;
            }
            _ => body.extend_from_slice(
                format!(
                    "/* script {} of this list is not in this template */\n",
                    place + 1
                )
                .as_bytes(),
            ),
        }
    }
    if found == 0 {
        return plain(StatusCode::NOT_FOUND, "Not Found");
    }
    let etag = format!("\"{:016x}\"", fnv1a(&body));
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let builder = Response::builder()
        .header(header::ETAG, &etag)
        .header(header::CACHE_CONTROL, "public, max-age=3600");
    let response = if fresh {
        builder.status(StatusCode::NOT_MODIFIED).body(Body::empty())
    } else {
        builder
            .header(header::CONTENT_TYPE, content_type("combo.js"))
            .body(Body::from(body))
    };
    response.unwrap_or_else(|_| error_page())
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or("") {
        "css" => "text/css; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "json" => "application/json",
        "html" | "htm" => "text/html; charset=utf-8",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::site::HostTenant;
    use tenants::Tenant;
    use tower::ServiceExt;

    async fn get(router: &Router, path: &str) -> (StatusCode, String) {
        let req = axum::http::Request::builder()
            .uri(path)
            .header(header::HOST, "harbor-lane.localhost")
            .body(Body::empty())
            .unwrap();
        let res = router.clone().oneshot(req).await.unwrap();
        let status = res.status();
        let body = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, String::from_utf8_lossy(&body).into_owned())
    }

    #[tokio::test]
    async fn a_page_without_its_store_is_a_short_plain_503() {
        let r = no_site(NoSite::Unavailable);
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "5");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
        assert!(
            r.headers()[header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with("text/plain")
        );
        let body = axum::body::to_bytes(r.into_body(), 1024).await.unwrap();
        assert_eq!(&body[..], b"Service Unavailable");
        let r = no_site(NoSite::UnknownHost);
        assert_eq!(r.status(), StatusCode::NOT_FOUND);
        assert!(r.headers().get(header::RETRY_AFTER).is_none());
    }

    #[test]
    fn only_slow_renders_in_a_row_move_a_template() {
        let renders = SlowRenders::default();
        // Held up now and then: never three in a row.
        for _ in 0..100 {
            for slow in [true, true, false] {
                assert_eq!(renders.record(slow), None);
            }
        }
        assert!(!renders.is_slow());
        assert_eq!(renders.record(true), None);
        assert_eq!(renders.record(true), None);
        assert_eq!(
            renders.record(true),
            Some(Moved::ToPool),
            "the third in a row"
        );
        assert!(renders.is_slow());
        // Moved: more slow renders keep it there, and it is reported once.
        assert_eq!(renders.record(true), None);
        assert!(renders.is_slow());
    }

    #[test]
    fn only_fast_renders_in_a_row_bring_a_template_back() {
        let renders = SlowRenders::default();
        for _ in 0..SLOW_RENDERS {
            renders.record(true);
        }
        assert!(renders.is_slow());
        // A slow render now and then starts the count again.
        for _ in 0..3 {
            for _ in 1..FAST_RENDERS_BACK {
                assert_eq!(renders.record(false), None);
            }
            assert_eq!(renders.record(true), None);
            assert!(renders.is_slow());
        }
        for _ in 1..FAST_RENDERS_BACK {
            assert_eq!(renders.record(false), None);
            assert!(renders.is_slow());
        }
        assert_eq!(renders.record(false), Some(Moved::Back));
        assert!(!renders.is_slow());
        // Back inline, the rule that moves it starts from nothing.
        assert_eq!(renders.record(true), None);
        assert_eq!(renders.record(false), None);
        assert!(!renders.is_slow());
    }

    /// An embedded store in a fresh directory (`tessera-NAME-PID`) with harbor-lane imported.
    async fn harbor_store(name: &str) -> (Store, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("tessera-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = Store::open(&tenants::StoreConfig::Embedded {
            data_dir: dir.clone(),
        })
        .await
        .unwrap();
        let fixture =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/harbor-lane");
        tenants::import::import_dir(&store, &fixture, &mut |_| {})
            .await
            .unwrap();
        (store, dir)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_slow_template_moves_to_the_blocking_pool_and_pages_stay_the_same() {
        let (store, dir) = harbor_store("slow-render").await;
        // Every render counts as slow: the first SLOW_RENDERS run inline, then the template
        // is flagged.
        let app = App::new(store.clone()).with_inline_render_limit(Duration::ZERO);
        let router = router(app.clone());
        let flagged = || -> Vec<bool> { app.folders.iter().map(|(_, f)| f.is_slow()).collect() };
        let (status, inline) = get(&router, "/").await;
        assert_eq!(status, StatusCode::OK);
        for _ in 1..SLOW_RENDERS {
            assert_eq!(flagged(), [false]);
            assert_eq!(get(&router, "/").await.1, inline);
        }
        assert_eq!(flagged(), [true]);
        // Later renders run on the blocking pool and give the same page.
        let (status, pooled) = get(&router, "/").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(inline, pooled);
        assert!(inline.contains("<html"), "{inline}");
        store.close().await.unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }

    const HARBOR: &str = "harbor-lane.localhost";
    /// A host no site has.
    const NOWHERE: &str = "nowhere.localhost";

    /// The status of a GET of `path` on `host`, with `known` in the request's extensions.
    async fn status(router: &Router, host: &str, path: &str, known: Option<HostTenant>) -> u16 {
        let mut req = axum::http::Request::builder()
            .uri(path)
            .header(header::HOST, host)
            .body(Body::empty())
            .unwrap();
        if let Some(known) = known {
            req.extensions_mut().insert(known);
        }
        router.clone().oneshot(req).await.unwrap().status().as_u16()
    }

    /// With the per-site cap on (its layer looks the tenant up and passes it on) and off
    /// (the handler looks it up), pages and API calls find their site, and unknown hosts
    /// get 404.
    #[tokio::test]
    async fn pages_and_calls_find_their_site_with_the_cap_on_and_off() {
        let (store, dir) = harbor_store("resolve-cap").await;
        for cap in [0, 8] {
            let router = capped_router(App::new(store.clone()), cap);
            for path in ["/", "/api/commerce/shopping-cart"] {
                assert_eq!(
                    status(&router, HARBOR, path, None).await,
                    200,
                    "{path}, cap {cap}"
                );
                assert_eq!(
                    status(&router, NOWHERE, path, None).await,
                    404,
                    "{path}, cap {cap}"
                );
            }
        }
        store.close().await.unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }

    /// `resolve` takes the tenant a layer found for the request's host without asking the
    /// store: a host no site has is served the site its `HostTenant` names (only the
    /// extension can have named it), and one that says "no site" is believed. A
    /// `HostTenant` found for another host is not this request's, and is passed over.
    #[tokio::test]
    async fn a_tenant_found_by_a_layer_is_not_looked_up_again() {
        let (store, dir) = harbor_store("resolve-known").await;
        let harbor = store.tenant_by_host(HARBOR).await.unwrap();
        assert!(harbor.is_some());
        let router = router(App::new(store.clone()));
        let known = |host: &str, tenant: &Option<Arc<Tenant>>| {
            Some(HostTenant {
                host: host.to_owned(),
                tenant: tenant.clone(),
            })
        };
        for path in ["/", "/api/commerce/shopping-cart"] {
            let here = known(NOWHERE, &harbor);
            assert_eq!(status(&router, NOWHERE, path, here).await, 200, "{path}");
            let none = known(HARBOR, &None);
            assert_eq!(status(&router, HARBOR, path, none).await, 404, "{path}");
            let elsewhere = known(HARBOR, &harbor);
            assert_eq!(
                status(&router, NOWHERE, path, elsewhere).await,
                404,
                "{path}"
            );
        }
        store.close().await.unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }
}
