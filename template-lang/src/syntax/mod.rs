//! Source text to instructions: the tag scanner and the nom grammar of tag contents.

pub mod host;
pub mod path;
pub mod scan;
pub mod span;
pub mod tag;
