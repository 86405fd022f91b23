//! The `tessera` command-line entry point: one subcommand per module in `cmd/`.

use std::process::ExitCode;

use api::cmd;

use clap::{Parser, Subcommand};

// Page renders allocate many small short-lived values; see the workspace Cargo.toml.
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

mod allocator;

/// Tessera: a multi-tenant website builder with an online store.
#[derive(Parser)]
#[command(name = "tessera", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Render(cmd::render::RenderArgs),
    Check(cmd::check::CheckArgs),
    Dev(cmd::dev::DevArgs),
    // Boxed: its many flags make it far larger than the other commands.
    Serve(Box<cmd::serve::ServeArgs>),
    Import(cmd::import::ImportArgs),
    Analytics(cmd::analytics::AnalyticsArgs),
    Migrate(cmd::migrate::MigrateArgs),
    Token(cmd::token::TokenArgs),
    Owner(cmd::owner::OwnerArgs),
    Openapi(cmd::openapi::OpenapiArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Render(args) => cmd::render::run(args),
        Command::Check(args) => cmd::check::run(args),
        Command::Dev(args) => cmd::dev::run(args),
        Command::Serve(args) => cmd::serve::run(*args),
        Command::Import(args) => cmd::import::run(args),
        Command::Analytics(args) => cmd::analytics::run(args),
        Command::Migrate(args) => cmd::migrate::run(args),
        Command::Token(args) => cmd::token::run(args),
        Command::Owner(args) => cmd::owner::run(args),
        Command::Openapi(args) => cmd::openapi::run(args),
    }
}
