//! The owner API's flows: owner accounts, signing in and their links ([`accounts`]),
//! creating a store and its categories ([`store_setup`]), the moves on an order that
//! involve the payment provider ([`orders`]), and uploading a template version, checked
//! first ([`templates`]).

pub mod accounts;
pub mod orders;
pub mod store_setup;
pub mod templates;
