//! The store's rules as plain functions, without storage: money in minor units
//! ([`money`]), the commerce configuration ([`settings`]), cart totals ([`pricing`]) and the
//! instalment pill ([`instalments`]). The repository ([`crate::Store`]) applies them inside
//! its transactions; tests call them directly.

pub mod instalments;
pub mod money;
pub mod order_state;
pub mod places;
pub mod pricing;
pub mod refusal;
pub mod settings;

pub use pricing::{Line, Location, Totals, product_type};
pub use refusal::{PlanProblem, Refusal};
pub use settings::{CommerceSettings, SettingsError};
