//! The owner API's flows: owner accounts, signing in and their links ([`accounts`]),
//! creating a store and its categories ([`store_setup`]), the moves on an order that
//! involve the payment provider ([`orders`]), uploading a template version, checked
//! first ([`templates`]), and the rules of the site's navigations as the Pages screen
//! rearranges them ([`navigation`]), and a style setting's value checked by its kind
//! ([`tweaks`]).

pub mod accounts;
pub mod navigation;
pub mod orders;
pub mod store_setup;
pub mod templates;
pub mod tweaks;
