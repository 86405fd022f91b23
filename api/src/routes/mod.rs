//! The API's route families, each registering its handlers (and their OpenAPI description)
//! through utoipa-axum. A family reads the request through the extractors of
//! [`crate::http`] and the store; it never reaches into another family's handlers.

pub mod analytics;
pub mod billing;
pub mod captcha;
pub mod commerce;
pub mod engagement;
pub mod forms;
pub mod lock_screen;
pub mod owner;
pub mod restock;
pub mod site_users;
