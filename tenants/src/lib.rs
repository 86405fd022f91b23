//! Storage for tenants, domains, content and commerce state, behind one interface with a
//! PostgreSQL backend and an embedded default.
//!
//! Nothing here yet: the storage layer arrives with its own issue.
