//! The layer that finds a request's site once, by its (already checked) `Host`: the tenant,
//! its content bundle (built once per content version, kept in [`crate::cache::Caches`]) and
//! its signing secret, left in the request's extensions as [`Resolved`] for the per-site
//! cap and every handler.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::state::App;
use crate::http::site::{NoSite, Resolved, Site, bundle, host_of};

/// Paths that need no site: they are answered alike on every host (and the health check
/// must not wait for the store).
fn siteless(path: &str) -> bool {
    path == "/healthz" || path == crate::openapi::PATH || path.starts_with("/_tessera/islands/")
}

/// The layer that resolves the request's site once, before the per-site cap and the
/// handlers (`axum::middleware::from_fn_with_state`).
pub async fn resolve_layer(State(app): State<App>, mut req: Request, next: Next) -> Response {
    if !siteless(req.uri().path()) {
        let site = resolve(&app, host_of(&req)).await;
        req.extensions_mut().insert(Resolved(site));
    }
    next.run(req).await
}

/// The site a request with this `Host` is for.
pub async fn resolve(app: &App, host: Option<String>) -> Result<Site, NoSite> {
    let host = host.ok_or(NoSite::UnknownHost)?;
    let by_host = app.store.tenant_by_host(&host).await;
    let found = match by_host {
        // `tessera dev` answers every host with its one site.
        Ok(None) if app.dev.is_some() => {
            let id = app.dev.as_ref().map(|d| d.tenant).expect("dev");
            app.store.tenant(id).await.map(|t| Some(Arc::new(t)))
        }
        other => other,
    };
    let tenant = match found {
        Ok(Some(t)) => t,
        // An unknown (or malformed) host: no tenant data at all.
        Ok(None) | Err(tenants::StoreError::Invalid(_)) => return Err(NoSite::UnknownHost),
        Err(e) => {
            tracing::error!(%host, error = %e, "tenant lookup failed");
            return Err(NoSite::Unavailable);
        }
    };
    let snapshot = match app.store.site_content(tenant.id).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "loading site content failed");
            return Err(NoSite::Unavailable);
        }
    };
    let secret = match app.store.tenant_secret(tenant.id).await {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(tenant = %tenant.identifier, error = %e, "loading the signing secret failed");
            return Err(NoSite::Unavailable);
        }
    };
    let key = (tenant.id, snapshot.tenant.content_version);
    let version = snapshot.tenant.template_version;
    // The site's forms are read only when its texts place a form block, and only when the
    // bundle is built (once per content version: a form's change is a content change).
    let build = || async {
        let forms = if crate::pages::site_bridge::needs_forms(&snapshot) {
            app.store.forms(tenant.id).await?
        } else {
            Vec::new()
        };
        Ok::<_, tenants::StoreError>(Arc::new(bundle(&snapshot, &app.captcha.settings(), &forms)))
    };
    let unavailable = |e: Arc<tenants::StoreError>| {
        tracing::error!(tenant = %tenant.identifier, error = %e, "loading the site's forms failed");
        NoSite::Unavailable
    };
    let mut content = app
        .caches
        .sites
        .try_get_with(key, build())
        .await
        .map_err(unavailable)?;
    // A bundle built before the site's zone changed its offset says the old one, and one
    // built before a scheduled product's time leaves it out: built again (requests that find it stale at the same moment may each build it once).
    if content
        .stale_after
        .is_some_and(|t| t <= jiff::Timestamp::now())
    {
        app.caches.sites.invalidate(&key).await;
        content = app
            .caches
            .sites
            .try_get_with(key, build())
            .await
            .map_err(unavailable)?;
    }
    Ok(Site {
        tenant,
        template_version: version,
        template_hash: snapshot.tenant.template_hash,
        content,
        secret,
    })
}
