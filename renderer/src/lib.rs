//! A tenant's site: template folder, `squarespace:` tags, routing to page types, page
//! context assembly and page rendering.
//!
//! The renderer knows nothing of storage: the `api` crate hands it a site's content
//! ([`site::SiteContent`]) and template files ([`folder::TemplateFiles`]), and gets pages
//! back ([`render::render`]).

pub mod cart_reads;
pub mod check;
pub mod conf;
pub mod folder;
pub mod render;
pub mod request_text;
pub mod route;
pub mod site;
pub mod tags;
