//! The `tessera` command-line entry point.

use clap::Parser;

/// Tessera: a multi-tenant website builder with an online store.
#[derive(Parser)]
#[command(name = "tessera", version)]
struct Cli {}

fn main() {
    let _cli = Cli::parse();
}
