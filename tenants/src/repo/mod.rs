//! Repository methods on [`crate::Store`], one module per area. Every statement is scoped
//! by `tenant_id`.

pub(crate) mod content;
pub(crate) mod tenants;
