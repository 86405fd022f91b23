//! The `tessera` binary's library: the CLI subcommands, the HTTP server and the bridge from
//! the tenant store's model to the renderer's. A library so that benches and tests can drive
//! the same code paths as the binary.

pub mod analytics;
pub mod billing;
pub mod cache_budget;
pub mod captcha;
pub mod client;
pub mod cmd;
pub mod commerce;
pub mod dev;
pub mod email;
pub mod engagement;
pub mod forms;
pub mod fuzzing;
pub mod http;
pub mod islands;
pub mod listen;
pub mod lock_screen;
pub mod openapi;
pub mod owner;
pub mod restock;
pub mod server;
pub mod site_bridge;
pub mod site_users;
pub mod styles;
