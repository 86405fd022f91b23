//! A tenant's site: template folder, `squarespace:` tags, routing to page types, page
//! context assembly and the compiled-template and context caches.
//!
//! Nothing here yet: the site renderer arrives with its own issue. The crate exists so the
//! workspace has its final shape and the dependency direction (`renderer` -> `template-lang`)
//! is fixed from the start.
