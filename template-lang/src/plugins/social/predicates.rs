//! The social predicates: are comments shown, and through Disqus?

use std::sync::LazyLock;

use super::super::Registry;
use crate::exec::Ctx;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;

pub fn register(r: &mut Registry) {
    r.add_predicate("comments?", comments);
    r.add_predicate("disqus?", disqus);
}

/// `comments?`: comments are open (`commentState` 1) or the item has public comments,
/// unless the site's `websiteSettings` (when given) do not enable comments (SPEC.md §2).
fn comments<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    static SETTINGS: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("websiteSettings"));
    let node = ctx.node();
    let open = node.child("commentState", None).view().to_number() == 1.0
        || node.child("publicCommentCount", None).view().to_number() > 0.0;
    let settings = ctx.resolve(&*SETTINGS);
    if !settings.is_missing() && !settings.child("commentsEnabled", None).view().truthy() {
        return false;
    }
    open
}

/// `disqus?`: the site names a Disqus account (`websiteSettings.disqusShortName`).
fn disqus<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    static PATH: LazyLock<VarPath> =
        LazyLock::new(|| VarPath::from_dotted("websiteSettings.disqusShortName"));
    ctx.resolve(&*PATH).view().truthy()
}
