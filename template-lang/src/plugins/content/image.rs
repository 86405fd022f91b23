//! Image metadata shared by the image formatters: alt text, focal point and the
//! `data-*` attributes the front end's image loader reads.

use std::sync::LazyLock;

use super::enums::block_type;
use super::get;
use crate::exec::Ctx;
use crate::plugins::kept::kept;
use crate::plugins::util::{escape_attr, remove_tags};
use crate::syntax::path::VarPath;
use crate::value::number::{js_trim, push_number};
use crate::value::{Val, View, key};

/// Alt text derived from a body keeps at most this many UTF-16 units (SPEC.md §9).
pub const MAX_ALT_TEXT_LENGTH: usize = 250;

/// `x,y` of the image's `mediaFocalPoint`, or the centre when it has none.
pub fn push_focal_point(image: &Val<'_>, out: &mut String) {
    let point = get(image, key!("mediaFocalPoint"));
    if point.is_missing() {
        out.push_str("0.5,0.5");
        return;
    }
    push_number(get(&point, key!("x")).view().to_number(), out);
    out.push(',');
    push_number(get(&point, key!("y")).view().to_number(), out);
}

/// The alt text of an image. Inside an image block (`blockType` 5) the block's own
/// `altText` is used as given, even when empty; elsewhere it is derived from the item.
pub fn alt_text(ctx: &Ctx<'_>, image: &Val<'_>) -> String {
    block_alt_text(ctx, image).unwrap_or_else(|| alt_text_from_fields(image))
}

/// Inside an image block, the block's `altText`; `None` elsewhere.
fn block_alt_text(ctx: &Ctx<'_>, image: &Val<'_>) -> Option<String> {
    static BLOCK_TYPE: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("blockType"));
    let block = ctx.resolve(&*BLOCK_TYPE);
    (!block.is_missing() && block.view().to_number() == f64::from(block_type::IMAGE.code))
        .then(|| js_trim(&get(image, key!("altText")).view().to_str()).to_string())
}

/// Title, else the body without tags (cut to [`MAX_ALT_TEXT_LENGTH`]), else the file name.
pub fn alt_text_from_fields(item: &Val<'_>) -> String {
    let title = get(item, key!("title"));
    if title.view().truthy() {
        return title.view().to_str().into_owned();
    }
    let body = get(item, key!("body"));
    if body.view().truthy() {
        let text = remove_tags(&body.view().to_str());
        if !text.is_empty() {
            return utf16_prefix(&text, MAX_ALT_TEXT_LENGTH);
        }
    }
    let filename = get(item, key!("filename"));
    if filename.view().truthy() {
        return filename.view().to_str().into_owned();
    }
    String::new()
}

/// The first `max` UTF-16 units of `s` (JavaScript's `substring(0, max)`). A surrogate pair
/// cut in half leaves a lone surrogate, which is written out as U+FFFD.
pub fn utf16_prefix(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut units = 0;
    for (i, c) in s.char_indices() {
        let w = c.len_utf16();
        if units + w > max {
            let mut out = s[..i].to_string();
            if units < max {
                out.push('\u{FFFD}');
            }
            return out;
        }
        units += w;
    }
    s.to_string()
}

/// Is the image a preview of a licensed asset (an object under `licensedAssetPreview`)?
fn is_licensed_asset_preview(image: &Val<'_>) -> bool {
    matches!(
        get(image, key!("licensedAssetPreview")).view(),
        View::Obj(_)
    )
}

/// The image loader's attributes, each followed by a space; nothing for a missing image.
/// `preferred_alt` replaces the derived alt text; it is escaped here like the derived one
/// (so the `image` formatter, which passes already-escaped text, escapes it twice, exactly
/// as the reference does).
pub fn push_image_meta(
    ctx: &Ctx<'_>,
    image: &Val<'_>,
    preferred_alt: Option<&str>,
    out: &mut String,
) {
    if image.is_missing() {
        return;
    }
    let kept = match image.view() {
        View::Obj(o) => kept(o).map(|k| k.image_meta.get_or_init(|| ImageMeta::of(image))),
        _ => None,
    };
    match kept {
        Some(meta) => out.push_str(&meta.attrs),
        None => push_attrs(image, out),
    }
    if let Some(alt) = preferred_alt {
        escape_attr(alt, out);
    } else if let Some(alt) = block_alt_text(ctx, image) {
        escape_attr(&alt, out);
    } else if let Some(meta) = kept {
        out.push_str(&meta.alt);
    } else {
        escape_attr(&alt_text_from_fields(image), out);
    }
    out.push_str("\" ");
}

/// What [`push_image_meta`] prints for an image object that depends on nothing but the
/// object, kept with it ([`crate::plugins::kept`]): a product list prints it for every
/// product on every request.
pub(crate) struct ImageMeta {
    /// The attributes up to and including `alt="`.
    attrs: Box<str>,
    /// The alt text derived from the fields, escaped (what prints outside image blocks).
    alt: Box<str>,
}

impl ImageMeta {
    fn of(image: &Val<'_>) -> ImageMeta {
        let mut attrs = String::new();
        push_attrs(image, &mut attrs);
        let mut alt = String::new();
        escape_attr(&alt_text_from_fields(image), &mut alt);
        ImageMeta {
            attrs: attrs.into(),
            alt: alt.into(),
        }
    }
}

/// The image loader's attributes before the alt text, ending with `alt="`.
fn push_attrs(image: &Val<'_>, out: &mut String) {
    if is_licensed_asset_preview(image) {
        out.push_str("data-licensed-asset-preview=\"true\" ");
    }
    let component_key = get(image, key!("componentKey"));
    if !component_key.is_missing() {
        out.push_str("data-component-key=\"");
        out.push_str(&component_key.view().to_str());
        out.push_str("\" ");
    }
    let asset_url = get(image, key!("assetUrl"));
    let asset_url = asset_url.view().to_str();
    out.push_str("data-src=\"");
    out.push_str(&asset_url);
    out.push_str("\" data-image=\"");
    out.push_str(&asset_url);
    out.push_str("\" data-image-dimensions=\"");
    out.push_str(&get(image, key!("originalSize")).view().to_str());
    out.push_str("\" data-image-focal-point=\"");
    push_focal_point(image, out);
    out.push_str("\" alt=\"");
}

/// The `W` and `H` of an `originalSize` of the form `WxH`: exactly two pieces around
/// one `x`, which are not checked further.
pub fn split_dimensions(size: &str) -> Option<(&str, &str)> {
    let (w, h) = size.split_once('x')?;
    if h.contains('x') { None } else { Some((w, h)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_count_utf16_units() {
        assert_eq!(utf16_prefix("abc", 2), "ab");
        assert_eq!(utf16_prefix("abc", 5), "abc");
        assert_eq!(utf16_prefix("é\u{1F600}x", 2), "é\u{FFFD}");
        assert_eq!(utf16_prefix("é\u{1F600}x", 3), "é\u{1F600}");
        assert_eq!(utf16_prefix("ééé", 2), "éé");
    }

    #[test]
    fn dimensions() {
        assert_eq!(split_dimensions("100x200"), Some(("100", "200")));
        assert_eq!(split_dimensions("x"), Some(("", "")));
        assert_eq!(split_dimensions("1x2x3"), None);
        assert_eq!(split_dimensions("100"), None);
        assert_eq!(split_dimensions(""), None);
    }
}
