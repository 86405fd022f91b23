//! A tenant's site: template folder, `squarespace:` tags, routing to page types, page
//! context assembly and the compiled-template and context caches.
//!
//! The renderer knows nothing of storage: the `api` crate hands it a site's content and
//! template files, and gets HTML back.

pub mod conf;
pub mod folder;
