//! The security suite (issue 40, docs/src/security.md): one regression test per finding of the
//! attack on the running server, over HTTP against the real binary (on both backends where
//! storage is involved), and the class checks that keep each kind of finding from coming
//! back: every route that takes a path or a file name, every value the renderer takes from
//! a request, every place an absolute URL is built.
//!
//! One test binary with a module per family, so the suite links once.

mod accounts;
mod commerce;
mod requests;
mod stylesheets;
