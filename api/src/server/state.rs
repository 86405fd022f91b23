//! The server's state: what requests share, built once by `serve` (or a test) and then
//! only read. Handlers ask for the part they use (`State<Store>`, `State<Limits>`, …)
//! through [`FromRef`]; those needing several parts take the whole [`App`].

use std::sync::Arc;
use std::time::Duration;

use axum::extract::FromRef;
use tenants::Store;

use crate::pages::folders::INLINE_RENDER_LIMIT;
use crate::services::commerce::CommerceState;

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
    /// Compiled folders, sites' bundles, template hashes, carts as pages show them.
    pub(crate) caches: crate::cache::Caches,
    /// Renders slower than this move their template off the async workers
    /// ([`INLINE_RENDER_LIMIT`] unless set).
    pub(crate) inline_render_limit: Duration,
    /// Reverse proxies whose forwarding headers are believed ([`crate::http::client`]).
    pub(crate) trusted_proxies: Arc<[std::net::IpAddr]>,
    /// Rate limits on visitor writes, per family of calls.
    pub limits: crate::http::limits::Limits,
    /// Payment providers, the cart hold and the carts pages show.
    pub commerce: Arc<CommerceState>,
    /// The captcha provider of forms, newsletters and restock sign-ups.
    pub captcha: crate::services::captcha::Captcha,
    /// Owners' tokens for the owner routes.
    pub owner_tokens: crate::http::owner::OwnerTokens,
    /// Nudges the mailer after mail is put in the outbox.
    pub outbox: crate::email::Outbox,
    /// `tessera dev`: the one site every host gets, and the live-reload events.
    pub dev: Option<Arc<crate::dev::Dev>>,
    /// Where tracking calls put what they record; `None`: analytics is off.
    pub analytics: Option<crate::analytics::queue::Queue>,
    /// Kept renders of public pages ([`crate::pages::kept`]); `None`: every page renders.
    pub(crate) kept_pages: Option<crate::pages::kept::KeptPages>,
    /// Say in an `x-tessera-kept` header whether a page came from the kept renders (`hit`),
    /// was kept (`kept`) or neither (`fresh`): for tests.
    pub(crate) kept_header: bool,
}

impl App {
    /// The app with its share of the default cache budget
    /// ([`crate::cache::DEFAULT_CACHE_MB`]).
    pub fn new(store: Store) -> App {
        App::with_cache_budget(store, crate::cache::AppBudget::default())
    }

    /// The app whose compiled-template and site caches hold at most these many bytes (by
    /// the weighers' estimates in [`crate::cache`]).
    pub fn with_cache_budget(store: Store, budget: crate::cache::AppBudget) -> App {
        let limits = crate::http::limits::Limits::new(store.clone(), Default::default());
        App(Arc::new(AppState {
            store,
            caches: crate::cache::Caches::new(&budget),
            inline_render_limit: INLINE_RENDER_LIMIT,
            trusted_proxies: Arc::from([]),
            limits,
            commerce: Arc::new(CommerceState::default()),
            captcha: Default::default(),
            owner_tokens: Default::default(),
            outbox: Default::default(),
            dev: None,
            analytics: None,
            kept_pages: Some(crate::pages::kept::KeptPages::new(
                budget.kept_pages,
                budget.kept_variants,
            )),
            kept_header: false,
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

    /// The same app in `tessera dev` mode (which keeps no renders: a save changes the
    /// folder under the same files).
    pub fn with_dev(mut self, dev: Arc<crate::dev::Dev>) -> App {
        let state = self.setting_up();
        state.dev = Some(dev);
        state.kept_pages = None;
        self
    }

    /// The same app keeping no renders of public pages (`tessera serve --no-kept-pages`).
    pub fn without_kept_pages(mut self) -> App {
        self.setting_up().kept_pages = None;
        self
    }

    /// The same app saying in a header whether each page came from the kept renders.
    pub fn with_kept_header(mut self) -> App {
        self.setting_up().kept_header = true;
        self
    }

    /// The same app recording analytics through `queue`.
    pub fn with_analytics(mut self, queue: crate::analytics::queue::Queue) -> App {
        self.setting_up().analytics = Some(queue);
        self
    }

    /// The same app with this captcha provider.
    pub fn with_captcha(mut self, captcha: crate::services::captcha::Captcha) -> App {
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

impl FromRef<App> for Store {
    fn from_ref(app: &App) -> Store {
        app.store.clone()
    }
}

impl FromRef<App> for crate::http::limits::Limits {
    fn from_ref(app: &App) -> Self {
        app.limits.clone()
    }
}

impl FromRef<App> for Arc<CommerceState> {
    fn from_ref(app: &App) -> Self {
        app.commerce.clone()
    }
}

impl FromRef<App> for crate::email::Outbox {
    fn from_ref(app: &App) -> Self {
        app.outbox.clone()
    }
}

impl FromRef<App> for crate::services::captcha::Captcha {
    fn from_ref(app: &App) -> Self {
        app.captcha.clone()
    }
}

impl FromRef<App> for Option<Arc<crate::dev::Dev>> {
    fn from_ref(app: &App) -> Self {
        app.dev.clone()
    }
}
