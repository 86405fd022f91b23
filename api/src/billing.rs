//! The upgrade destinations a site's plan status links to (SPEC.md §2): `/settings/billing/
//! upgrade` (a trial) and `/settings/billing/subscriptions/website` (an expired plan). One
//! `tessera` process hosts the sites, and plans are the host's business, not the site's: the
//! pages say so, so the banners' links never lead nowhere.

use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;

use crate::http::small_page;
use crate::server::App;

pub const TRIAL_UPGRADE: &str = "/settings/billing/upgrade";
pub const PLAN_UPGRADE: &str = "/settings/billing/subscriptions/website";
pub const UPGRADE_TEXT: &str = "Plans and billing for this site are handled by whoever hosts it. Ask them to upgrade the site's plan.";

pub fn routes() -> Router<App> {
    Router::new()
        .route(TRIAL_UPGRADE, get(upgrade))
        .route(PLAN_UPGRADE, get(upgrade))
}

async fn upgrade() -> Response {
    small_page::page(
        StatusCode::OK,
        "Upgrade",
        &format!(
            "<h1>Upgrade</h1><p>{}</p><p><a href=\"/\">Back to the site</a></p>",
            small_page::escape(UPGRADE_TEXT)
        ),
    )
}
