//! `request_host`: the request target and `Host` headers as the router's first layer reads
//! them; see api::fuzzing::request_host.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| api::fuzzing::request_host(data));
