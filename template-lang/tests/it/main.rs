//! The template-lang crate's integration tests: one binary (it links once), a module per subject.

mod common;

mod core_plugins;
mod eval_date_message;
mod fragments;
mod fuzz_corpus;
mod host_tags;
mod instructions;
