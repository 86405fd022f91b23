//! The whole LESS compile, Node included: see api::fuzzing::less::compile. Needs a build
//! with the LESS compiler (Node at build time: `scripts/fuzz` keeps the islands when Node is
//! there); a Node process per input, so it runs tens of inputs a second, not thousands.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| api::fuzzing::less::compile(data));
