//! The JSON-Template (JSON-T) language: parse once into a compiled tree, execute many
//! times against JSON data, with the formatters and predicates of the reference engines.

pub mod syntax;
pub mod value;
