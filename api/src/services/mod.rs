//! Flows that take several steps (and the store's transactions) behind one call, with typed
//! errors, knowing nothing of HTTP: route handlers translate requests to them and their
//! errors back to answers.

pub mod commerce;
