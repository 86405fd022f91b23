//! The renderer crate's integration tests: one binary (it links once), a module per subject.

mod cart_reads;
mod clock;
mod common;

mod lock_screen;
mod member_areas;
mod render_site;
mod store_pages;
