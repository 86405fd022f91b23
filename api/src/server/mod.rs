//! The HTTP server: the router with its layers, the listener ([`listen`]) and graceful
//! shutdown. Nothing here answers a request itself: pages are [`crate::pages`], files
//! [`crate::files`], the API [`crate::routes`].
//!
//! Layers, from the outside in: the security headers of every answer ([`security`]); one
//! strictly checked `Host` ([`crate::http::host`]); the request's site, resolved once
//! ([`site::resolve_layer`]); the per-site cap ([`fairness`]); tracing, panics
//! as 500s, the request timeout, compression and the refusal of U+0000 in the URI.

pub mod fairness;
pub mod listen;
pub mod security;
pub mod site;
pub mod state;

pub use state::{App, AppState};

use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::routing::get;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

/// How long one request may take before the client gets 408.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The API's routes with their OpenAPI description: each family registers its handlers
/// through utoipa-axum, so the document lists exactly what is served.
pub fn api_routes() -> (Router<App>, utoipa::openapi::OpenApi) {
    use utoipa::OpenApi;
    use utoipa_axum::router::OpenApiRouter;
    let families: [OpenApiRouter<App>; 11] = [
        crate::routes::commerce::routes(),
        crate::routes::forms::routes(),
        crate::routes::restock::routes(),
        crate::routes::site_users::routes(),
        crate::routes::engagement::routes(),
        crate::routes::analytics::routes(),
        crate::routes::captcha::routes(),
        crate::routes::billing::routes(),
        crate::routes::owner::routes(),
        crate::routes::lock_screen::routes(),
        crate::routes::notices::routes(),
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
/// `tenant_max_in_flight` (0: no cap; [`crate::server::fairness`]).
pub fn capped_router(app: App, tenant_max_in_flight: usize) -> Router {
    let (api, doc) = api_routes();
    let reference = crate::openapi::page::Page::new(&doc);
    let doc = crate::openapi::Served::new(&doc);
    let mut routes = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route(
            crate::openapi::PATH,
            get(move || std::future::ready(doc.response())),
        )
        .route(
            crate::openapi::page::PATH,
            get(move || std::future::ready(reference.response())),
        )
        .merge(api)
        .route(
            "/_tessera/islands/{*file}",
            get(crate::pages::islands::serve),
        )
        // The owner's app's HTML shell (its files are among the islands').
        .route(
            crate::routes::config::PATH,
            get(crate::routes::config::shell),
        )
        .route(
            crate::routes::config::SLASH,
            get(crate::routes::config::shell),
        )
        .route(
            crate::routes::config::ANY,
            get(crate::routes::config::shell),
        )
        .route(crate::dev::EVENTS, get(crate::dev::events))
        .fallback(crate::pages::page)
        // Text with U+0000 in a path or query is refused before any route reads it.
        .layer(axum::middleware::from_fn(crate::http::body::nul_free_uri))
        .layer(CompressionLayer::new());
    if tenant_max_in_flight > 0 {
        use crate::server::fairness::{Fairness, limit};
        // Inside the site's layer, which names the request's site for it; outside the
        // handlers, so a refusal costs no more than that lookup.
        let fairness = Fairness::new(tenant_max_in_flight);
        routes = routes.layer(axum::middleware::from_fn_with_state(fairness, limit));
    }
    routes
        // The request's site, once, for the cap and every handler (under the timeout, so
        // a store that does not answer cannot hold a request forever).
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            site::resolve_layer,
        ))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            REQUEST_TIMEOUT,
        ))
        .layer(CatchPanicLayer::new())
        .layer(TraceLayer::new_for_http())
        // Before anything reads `Host` (the site's layer, the handlers): one checked host.
        .layer(axum::middleware::from_fn(crate::http::host::strict_host))
        .layer(crate::server::security::headers((&app).into()))
        .with_state(app)
}

/// Serves until SIGTERM or Ctrl-C, then lets in-flight requests finish. `limits` bounds
/// what clients may hold ([`crate::server::listen`]): header and body timeouts, connections, and
/// each site's requests in flight ([`crate::server::fairness`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: App,
    limits: &crate::server::listen::Limits,
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
    crate::server::listen::serve(listener, service, limits, shutdown_signal()).await
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

#[cfg(test)]
mod tests;
