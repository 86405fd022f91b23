//! What formatters work out from one item object and keep with it. Objects never change
//! once built and cached site content keeps them for many renders, so answers that a list
//! page asks of every item on every request are worked out once per item and content
//! version. Each part is computed on first use, so a blog post never works out product
//! rules. The object has one slot for derived values ([`Object::derived`]); this struct is
//! what the formatters keep in it.

use std::sync::{Arc, OnceLock};

use super::commerce::product::Facts;
use super::commerce::templates::KeptPrice;
use super::content::formatters::ClassSlugs;
use super::content::image::ImageMeta;
use crate::compile::Template;
use crate::exec::Ctx;
use crate::exec::context::{Fragment, PartialTarget};
use crate::value::{Node, Object, Val};

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
    /// What the first partial `apply`d to the item printed ([`render_applied`]).
    pub applied: OnceLock<Applied>,
    /// What `product-checkout` printed over the product ([`render_kept`]): its variant
    /// data as JSON in an attribute, selects and button, the same on every product page.
    pub checkout: OnceLock<Applied>,
}

/// A partial's output over an item (`None`: it cannot be reused), and the partial (kept,
/// so that its address stays its own).
pub(crate) struct Applied {
    partial: Arc<Template>,
    fragment: Option<Fragment>,
}

/// What is kept with `o`; `None` only if something else took the object's slot.
pub(crate) fn kept(o: &Object) -> Option<&Kept> {
    o.derived(|_| Kept::default())
}

/// `{@|apply name}` with the environment's `keep_applied`: a list applies the same partial
/// to the same items on every request, so the first output over an item is kept with it and
/// printed again wherever what it read from outside the item resolves the same (its loop
/// counter among them). An item keeps the first output, or that it cannot be kept: other
/// partials, other places where the names differ, and output that cannot be kept run as
/// usual.
pub(crate) fn render_applied<'a>(
    ctx: &mut Ctx<'a>,
    name: &'a str,
    target: PartialTarget<'a>,
    node: Val<'a>,
) {
    render_kept(ctx, |k| &k.applied, name, target, node);
}

/// [`render_applied`] for a partial with a slot of its own among what is kept with the
/// object (`slot`), such as a built-in template a formatter renders.
pub(crate) fn render_kept<'a>(
    ctx: &mut Ctx<'a>,
    slot: impl Fn(&Kept) -> &OnceLock<Applied>,
    name: &'a str,
    target: PartialTarget<'a>,
    node: Val<'a>,
) {
    let shared = match (&target, &node) {
        (PartialTarget::Template(t), Val::Ref(Node::Object(o))) => kept(o).map(|k| (*t, slot(k))),
        _ => None,
    };
    let Some((partial, kept)) = shared else {
        ctx.render_partial_here(name, target, node, false, None);
        return;
    };
    if let Some(applied) = kept.get() {
        let replayed = Arc::ptr_eq(&applied.partial, partial)
            && applied.fragment.as_ref().is_some_and(|f| ctx.replay(f));
        if !replayed {
            ctx.render_partial_here(name, target, node, false, None);
        }
        return;
    }
    let fragment = ctx.run_recorded(node, |ctx| ctx.run_target(name, target));
    let _ = kept.set(Applied {
        partial: Arc::clone(partial),
        fragment,
    });
}
