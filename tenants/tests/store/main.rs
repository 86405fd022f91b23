//! The storage test suite. Every test in the modules below runs on both backends (see
//! `on_both_backends!`): the embedded SQLite file and a real PostgreSQL server started by
//! `tenants::testing::PgServer`.

mod common;

mod commerce;
mod content;
mod copy;
mod durability;
mod import;
mod invalidation;
mod isolation;
mod keys;
mod migrations;
mod orders;
mod owner_accounts;
mod owner_stats;
mod paid_areas;
mod rate_limits;
mod resolution;
mod tenant_scoping;
mod visitors;
