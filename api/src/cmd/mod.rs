//! Subcommands of the `tessera` binary, one module each.

pub mod analytics;
pub mod check;
pub mod dev;
pub mod import;
pub mod migrate;
pub mod openapi;
pub mod owner;
pub mod render;
pub mod serve;
pub mod store_args;
pub mod token;
