//! Flows that take more than one step of the store (and their typed errors), free of HTTP:
//! route families translate a request into one of them and its error back into an answer.

pub mod captcha;
pub mod forms;
pub mod lock_screen;
pub mod restock;
