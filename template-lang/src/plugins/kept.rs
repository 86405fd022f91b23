//! What formatters work out from one item object and keep with it. Objects never change
//! once built and cached site content keeps them for many renders, so answers that a list
//! page asks of every item on every request are worked out once per item and content
//! version. Each part is computed on first use, so a blog post never works out product
//! rules. The object has one slot for derived values ([`Object::derived`]); this struct is
//! what the formatters keep in it.

use std::sync::OnceLock;

use super::commerce::product::Facts;
use super::commerce::templates::KeptPrice;
use super::content::formatters::ClassSlugs;
use super::content::image::ImageMeta;
use crate::value::Object;

#[derive(Default)]
pub(crate) struct Kept {
    /// The product rules' conclusions (`product-price`, `product-status`, ...).
    pub product: OnceLock<Facts>,
    /// The item's own category, tag and author classes (`item-classes`).
    pub classes: OnceLock<ClassSlugs>,
    /// An image's loader attributes and derived alt text (`image-meta` and friends).
    pub image_meta: OnceLock<ImageMeta>,
    /// A product's `product-price` markup, with what it was written for.
    pub price: OnceLock<KeptPrice>,
}

/// What is kept with `o`; `None` only if something else took the object's slot.
pub(crate) fn kept(o: &Object) -> Option<&Kept> {
    o.derived(|_| Kept::default())
}
