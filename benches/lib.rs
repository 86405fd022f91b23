//! Shared workloads for the `cargo bench` suites in this crate.
