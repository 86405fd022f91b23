//! Flows that take more than one step, as functions with typed errors that take plain
//! arguments (the store, the site, what was asked) and know nothing of HTTP: the route
//! families translate requests to them and their errors back to answers.

pub mod captcha;
pub mod commerce;
pub mod forms;
pub mod lock_screen;
pub mod members;
pub mod owner;
pub mod passwords;
pub mod restock;
