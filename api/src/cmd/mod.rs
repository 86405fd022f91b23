//! One module per subcommand.

pub mod import;
pub mod migrate;
pub mod store_args;
