//! Subcommands of the `tessera` binary.

pub mod render;
