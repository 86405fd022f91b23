//! Parse + execute of arbitrary templates and data (see template_lang::fuzzing).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = template_lang::fuzzing::parse_and_execute(data);
});
