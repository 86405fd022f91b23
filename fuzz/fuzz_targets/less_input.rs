//! The LESS compile path around Node: see api::fuzzing::less::input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| api::fuzzing::less::input(data));
