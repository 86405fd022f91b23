//! What the server takes from a request: reflected values in pages, the combined scripts,
//! `Host` and the absolute URLs built from it (issue 40, findings 2, 3, 4, 13).
