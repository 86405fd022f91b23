//! The upgrade destinations a site's plan status links to (SPEC.md §2): `/settings/billing/
//! upgrade` (a trial) and `/settings/billing/subscriptions/website` (an expired plan). One
//! `tessera` process hosts the sites, and plans are the host's business, not the site's: the
//! pages say so, so the banners' links never lead nowhere.

use axum::http::StatusCode;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::http::small_page;
use crate::openapi::BILLING;
use crate::server::state::App;

pub const TRIAL_UPGRADE: &str = "/settings/billing/upgrade";
pub const PLAN_UPGRADE: &str = "/settings/billing/subscriptions/website";
pub const UPGRADE_TEXT: &str = "Plans and billing for this site are handled by whoever hosts it. Ask them to upgrade the site's plan.";

pub fn routes() -> OpenApiRouter<App> {
    OpenApiRouter::new()
        .routes(routes!(trial_upgrade))
        .routes(routes!(plan_upgrade))
}

/// `GET /settings/billing/upgrade`: where a trial's banner links (a page saying who to ask).
#[utoipa::path(get, path = "/settings/billing/upgrade", tag = BILLING,
    responses((status = 200, description = "A page: the site's host handles plans.",
        body = String, content_type = "text/html")))]
async fn trial_upgrade() -> Response {
    upgrade()
}

/// `GET /settings/billing/subscriptions/website`: where an expired plan's banner links (a
/// page saying who to ask).
#[utoipa::path(get, path = "/settings/billing/subscriptions/website", tag = BILLING,
    responses((status = 200, description = "A page: the site's host handles plans.",
        body = String, content_type = "text/html")))]
async fn plan_upgrade() -> Response {
    upgrade()
}

fn upgrade() -> Response {
    small_page::page(
        StatusCode::OK,
        "Upgrade",
        &format!(
            "<h1>Upgrade</h1><p>{}</p><p><a href=\"/\">Back to the site</a></p>",
            small_page::escape(UPGRADE_TEXT)
        ),
    )
}
