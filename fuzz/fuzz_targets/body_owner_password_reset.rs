//! `owner_password_reset`: see api::fuzzing::PARSERS.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| api::fuzzing::body("owner_password_reset", data));
