//! `tessera openapi`: prints the API's OpenAPI document without a server, byte for byte what
//! `GET /api/openapi.json` serves (the document is made from the route code, not from a
//! store, so no store is opened). `scripts/api-reference` and the client's types are
//! generated from it.

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

/// Print the API's OpenAPI document (JSON, as /api/openapi.json serves it) to stdout.
#[derive(Args, Debug)]
pub struct OpenapiArgs {}

pub fn run(_: OpenapiArgs) -> ExitCode {
    let (_, doc) = crate::server::api_routes();
    let served = crate::openapi::Served::new(&doc);
    let mut out = std::io::stdout().lock();
    match out.write_all(served.bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("tessera openapi: cannot write the document: {e}");
            ExitCode::FAILURE
        }
    }
}
