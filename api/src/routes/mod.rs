//! The API's route families, each registering its handlers (and their OpenAPI description)
//! through utoipa-axum. A family reads the request through the extractors of
//! [`crate::http`] and the store; it never reaches into another family's handlers.

pub mod analytics;
pub mod billing;
pub mod captcha;
pub mod commerce;
pub mod config;
pub mod engagement;
pub mod forms;
pub mod lock_screen;
pub mod notices;
pub mod owner;
pub mod restock;
pub mod site_users;

/// The composer of the call's site's emails: its compiled template folder (a folder that
/// cannot be loaded now leaves the default templates), title, host and locale.
pub async fn composer(
    app: &crate::server::state::App,
    call: &crate::http::call::Call,
) -> crate::email::Composer {
    let folder = app
        .caches
        .folder(&app.store, &call.site)
        .await
        .ok()
        .flatten();
    crate::email::Composer::new(folder, &call.site, call.host())
}
