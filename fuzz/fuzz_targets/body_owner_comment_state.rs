//! `owner_comment_state`: see api::fuzzing::PARSERS.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| api::fuzzing::body("owner_comment_state", data));
