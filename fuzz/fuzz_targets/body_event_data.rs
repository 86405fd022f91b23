//! `event_data`: see api::fuzzing::PARSERS.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| api::fuzzing::body("event_data", data));
