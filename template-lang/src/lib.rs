//! The JSON-Template (JSON-T) language.
