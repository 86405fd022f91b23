//! The owner API's flows: owner accounts, signing in and their links ([`accounts`]),
//! creating a store and its categories ([`store_setup`]), and
//! uploading a template version, checked first ([`templates`]).

pub mod accounts;
pub mod store_setup;
pub mod templates;
