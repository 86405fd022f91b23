//! The API's integration tests: one binary (it links once), a module per feature, each
//! starting the real `tessera` binary on a throwaway store (embedded, or a database of the
//! one throwaway PostgreSQL this process starts) and talking HTTP to it ([`support`]).
//! Run one feature with `cargo test -p api --test it -- commerce::`.
//!
//! `tests/cache_weights.rs` is the one other binary: it counts every allocation of its
//! process, so nothing else may run beside it.

#[macro_use]
mod support;

mod analytics;
mod cart_forms;
mod check_cli;
mod commerce;
mod config;
mod cookie_flags;
mod dev_cli;
mod email;
mod engagement;
mod faults;
mod floods;
mod form_blocks;
mod format_json;
mod forms;
mod fuzz_corpus;
mod import_cli;
mod islands;
mod kept_pages;
mod many_nodes;
mod member_areas;
mod openapi;
mod owner_accounts;
mod owner_api;
mod owner_community;
mod owner_content;
mod owner_customers;
mod owner_data;
mod owner_design;
mod owner_forms;
mod owner_galleries;
mod owner_languages;
mod owner_orders;
mod owner_pages;
mod owner_products;
mod owner_settings;
mod owner_site_access;
mod owner_site_notices;
mod owner_templates;
mod owner_visibility;
mod paid_areas;
mod render_cli;
mod restock;
mod security;
mod security_headers;
mod serve;
mod site_users;
mod tenant_generator;
