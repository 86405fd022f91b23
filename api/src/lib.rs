//! The `tessera` binary's library: the CLI subcommands, the HTTP server and the bridge from
//! the tenant store's model to the renderer's. A library so that benches and tests can drive
//! the same code paths as the binary.
//!
//! The shape, from the outside in:
//! - [`server`]: the router, its layers, the listener and shutdown, and the state;
//! - [`http`]: what every route shares (extractors, errors, bodies, cookies, crumbs, limits);
//! - [`pages`]: the page pipeline (site → compiled folder → render → islands), and
//!   [`files`]: a template's public files and combined scripts;
//! - [`routes`]: the API's route families, one folder or file each;
//! - [`services`]: the flows the routes translate requests to, free of HTTP;
//! - [`cache`]: every cache the server keeps, and the budget they share;
//! - [`email`], [`styles`], [`dev`]: the outbox and mailer, stylesheets, `tessera dev`;
//! - [`cmd`]: the subcommands.

pub mod analytics;
pub mod cache;
pub mod cmd;
pub mod dev;
pub mod email;
pub mod files;
pub mod fuzzing;
pub mod http;
pub mod openapi;
pub mod pages;
pub mod routes;
pub mod server;
pub mod services;
pub mod styles;
#[cfg(test)]
mod testing;
