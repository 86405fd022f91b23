//! The owner API's flows: creating a store and its categories ([`store_setup`]), and
//! uploading a template version, checked first ([`templates`]).

pub mod store_setup;
pub mod templates;
