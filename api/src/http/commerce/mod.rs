//! The store as the API and pages show it: the cart and the order as JSON ([`json`]),
//! money ([`money`]) and instalment pills ([`instalments`]), what a visitor is told when the
//! store refuses ([`messages`]), and the signed cart cookie, cart tokens and order links
//! ([`session`]). Shared by the commerce routes, the page pipeline, members (whose cart
//! follows them) and the owner's order list.

pub mod instalments;
pub mod json;
pub mod messages;
pub mod money;
pub mod session;
