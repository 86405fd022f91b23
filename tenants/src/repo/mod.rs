//! Repository methods on [`crate::Store`], one module per area. Every statement is scoped
//! by `tenant_id`.

pub(crate) mod analytics;
pub(crate) mod api_tokens;
pub(crate) mod assets;
pub(crate) mod commerce;
pub(crate) mod content;
pub(crate) mod engagement;
pub(crate) mod forms;
pub(crate) mod inventory;
pub(crate) mod member_areas;
pub(crate) mod outbox;
pub(crate) mod owner_accounts;
pub(crate) mod owner_stats;
pub(crate) mod rate_limits;
pub(crate) mod restock;
pub(crate) mod secrets;
pub(crate) mod site_users;
pub(crate) mod store_settings;
pub(crate) mod store_setup;
pub(crate) mod sweep;
pub(crate) mod templates;
pub(crate) mod tenants;
