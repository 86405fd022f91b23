//! `owner_member_area`: see api::fuzzing::PARSERS.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| api::fuzzing::body("owner_member_area", data));
