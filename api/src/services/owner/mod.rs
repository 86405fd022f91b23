//! The owner API's flows: creating a store and its categories ([`store_setup`]), the
//! moves on an order that involve the payment provider ([`orders`]), and uploading a
//! template version, checked first ([`templates`]).

pub mod orders;
pub mod store_setup;
pub mod templates;
