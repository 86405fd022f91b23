//! The content formatters: image markup and metadata, sizes, colours, item classes,
//! audio and video embeds.

use std::fmt::Write as _;
use std::sync::{Arc, LazyLock};

use super::super::Registry;
use super::enums::record_type;
use super::image::{self, push_focal_point, push_image_meta, split_dimensions};
use super::{get, get_index, run_builtin};
use crate::compile::Template;
use crate::exec::Ctx;
// The store's sale and stock rules, shared with the commerce formatters.
use crate::plugins::commerce::product;
use crate::plugins::util::{escape_attr, push_slug};
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::number::{js_parse_int, push_number, to_int32};
use crate::value::{Key, Val, View, key};

/// The image widths the platform renders, smallest first (SPEC.md §9).
pub const IMAGE_WIDTHS: [&str; 7] = ["100w", "300w", "500w", "750w", "1000w", "1500w", "2500w"];

/// What the resize formatters print when the value is not a `WxH` size (SPEC.md §8).
pub const INVALID_SOURCE: &str = "Invalid source parameter. Pass in 'originalSize'";

pub fn register(r: &mut Registry) {
    r.add_formatter("AbsUrl", abs_url);
    r.add_formatter("audio-player", audio_player);
    r.add_formatter("capitalize", capitalize);
    r.add_formatter("child-image-meta", child_image_meta);
    r.add_formatter("cover-image-meta", cover_image_meta);
    r.add_formatter("color-weight", color_weight);
    r.add_formatter("height", height);
    r.add_formatter("humanizeDuration", humanize_duration);
    r.add_formatter("image", image);
    r.add_formatter("image-color", image_color);
    r.add_emitting_formatter("image-meta", image_meta, image_meta_emit);
    r.add_formatter("image-srcset", image_srcset);
    r.add_emitting_formatter("item-classes", item_classes, item_classes_emit);
    r.add_formatter("resizedHeightForWidth", resized_height_for_width);
    r.add_formatter("resizedWidthForHeight", resized_width_for_height);
    r.add_formatter("squarespaceThumbnailForHeight", thumbnail_for_height);
    r.add_formatter("squarespaceThumbnailForWidth", thumbnail_for_width);
    r.add_formatter("website-color", website_color);
    r.add_formatter("width", width);
    r.add_formatter("video", video);
}

/// `AbsUrl`: the value appended to the site's `base-url` with a slash.
fn abs_url<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static BASE_URL: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("base-url"));
    let base = ctx.resolve(&*BASE_URL);
    let mut out = base.view().to_str().into_owned();
    out.push('/');
    out.push_str(&vars[0].view().to_str());
    vars[0] = Val::Text(out);
}

/// `audio-player`: the audio player's mount point for an audio item.
fn audio_player<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static TEMPLATE: LazyLock<Arc<Template>> =
        LazyLock::new(|| super::builtin(include_str!("audio-player.html")));
    let node = std::mem::take(&mut vars[0]);
    vars[0] = Val::Text(run_builtin(ctx, "audio-player", &TEMPLATE, node, true));
}

/// `capitalize`: the whole text in upper case (full Unicode mapping, as JavaScript's
/// `toUpperCase`).
fn capitalize<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(vars[0].view().to_str().to_uppercase());
}

/// `child-image-meta [n]`: image metadata of the value's `items[n]` (default the first).
fn child_image_meta<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let index = args.get(0).map_or(0.0, js_parse_int);
    let child = get_index(&get(&vars[0], key!("items")), index);
    let mut out = String::new();
    push_image_meta(ctx, &child, None, &mut out);
    vars[0] = Val::Text(out);
}

/// `cover-image-meta`: image metadata of the value's `coverImage`.
fn cover_image_meta<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let cover = get(&vars[0], key!("coverImage"));
    let mut out = String::new();
    push_image_meta(ctx, &cover, None, &mut out);
    vars[0] = Val::Text(out);
}

/// `image-meta`: image metadata of the value itself.
fn image_meta<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    // Room for the usual attributes, so that appending them rarely reallocates.
    let mut out = String::with_capacity(256);
    push_image_meta(ctx, &vars[0], None, &mut out);
    vars[0] = Val::Text(out);
}

/// `image-meta` at the end of a chain: the attributes go straight into the output.
fn image_meta_emit<'a>(ctx: &mut Ctx<'a>, _: &'a Args, image: Val<'a>) {
    emit_with(ctx, |ctx, out| push_image_meta(ctx, &image, None, out));
}

/// Runs `push` with the output buffer lent out, for emitting formatters whose text is
/// built by code that also reads the context.
fn emit_with(ctx: &mut Ctx<'_>, push: impl FnOnce(&Ctx<'_>, &mut String)) {
    let mut out = std::mem::take(&mut ctx.out);
    push(ctx, &mut out);
    ctx.out = out;
}

/// A hex colour (`#` optional, 3 to 6 hex digits; 3 digits are doubled) as an integer.
fn hex_color(text: &str) -> Option<u32> {
    let hex = text.strip_prefix('#').unwrap_or(text);
    if !(3..=6).contains(&hex.len()) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    if hex.len() == 3 {
        let d: Vec<u32> = hex.chars().filter_map(|c| c.to_digit(16)).collect();
        return Some(((d[0] * 17) << 16) | ((d[1] * 17) << 8) | (d[2] * 17));
    }
    u32::from_str_radix(hex, 16).ok()
}

/// `color-weight`: "light" or "dark" for a hex colour (above or below half of 0xFFFFFF);
/// nothing for anything that is not a hex colour.
fn color_weight<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = match hex_color(&vars[0].view().to_str()) {
        Some(c) if f64::from(c) > f64::from(0xFF_FFFF) / 2.0 => Val::text("light"),
        Some(_) => Val::text("dark"),
        None => Val::Missing,
    };
}

/// `width` / `height`: one side of a `WxH` size, as a number (NaN when it is not one).
fn dimension(vars: &mut [Val<'_>], second: bool) {
    let size = vars[0].view().to_str();
    vars[0] = match split_dimensions(&size) {
        Some((w, h)) => Val::num(js_parse_int(if second { h } else { w })),
        None => Val::Missing,
    };
}

fn width<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    dimension(vars, false);
}

fn height<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    dimension(vars, true);
}

/// `humanizeDuration`: milliseconds as `m:ss` (whole seconds, 32-bit arithmetic).
fn humanize_duration<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let secs = to_int32(vars[0].view().to_number() / 1000.0);
    let mins = to_int32(f64::from(secs) / 60.0);
    // Both fit in 32 bits, and so does the difference (|secs - mins * 60| < 60).
    let rest = i64::from(secs) - i64::from(mins) * 60;
    let mut out = String::with_capacity(8);
    let _ = write!(out, "{mins}:");
    if (0..10).contains(&rest) {
        out.push('0');
    }
    let _ = write!(out, "{rest}");
    vars[0] = Val::Text(out);
}

/// `image [class]`: a lazy-loading `<img>` (class `thumb-image` by default) plus a
/// `<noscript>` fallback.
fn image<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let node = &vars[0];
    let class = if args.len() == 1 {
        args.get(0).unwrap_or_default()
    } else {
        "thumb-image"
    };
    let mut alt = String::new();
    escape_attr(&image::alt_text(ctx, node), &mut alt);
    let mut out = String::with_capacity(256);
    out.push_str("<noscript><img src=\"");
    out.push_str(&get(node, key!("assetUrl")).view().to_str());
    out.push_str("\" alt=\"");
    out.push_str(&alt);
    out.push_str("\" /></noscript><img class=\"");
    out.push_str(class);
    out.push_str("\" ");
    push_image_meta(ctx, node, Some(&alt), &mut out);
    out.push_str("data-load=\"false\" data-image-id=\"");
    out.push_str(&get(node, key!("id")).view().to_str());
    out.push_str("\" data-type=\"image\" />");
    vars[0] = Val::Text(out);
}

/// The corners and centre `colorData` averages, in output order.
const COLOR_POSITIONS: [&str; 5] = ["topLeft", "topRight", "bottomLeft", "bottomRight", "center"];

/// `image-color [position [property]]`: one average colour of the image (`#rrggbb`,
/// optionally as `property: #rrggbb`), or all five as `data-color-*` attributes.
fn image_color<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let colors = get(&vars[0], key!("colorData"));
    if colors.is_missing() {
        vars[0] = Val::Missing;
        return;
    }
    let mut out = String::new();
    match args.get(0) {
        Some(position) => {
            let color = get(&colors, Key::new(&format!("{position}Average")));
            let color = color.view().to_str();
            if color.is_empty() {
                let _ = write!(out, "\"{position}\" not found.");
            } else {
                if let Some(property) = args.get(1) {
                    out.push_str(property);
                    out.push_str(": ");
                }
                out.push('#');
                out.push_str(&color);
            }
        }
        None => {
            for position in COLOR_POSITIONS {
                let color = get(&colors, Key::new(&format!("{position}Average")));
                let _ = write!(out, "data-color-{position}=\"#{}\" ", color.view().to_str());
            }
        }
    }
    vars[0] = Val::Text(out);
}

/// `image-srcset`: a ` srcset="..."` attribute from the image's width variants, plus the
/// original as the next size up when the largest variant is not the largest width.
/// A missing image, or one without width variants, is left as it is.
fn image_srcset<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let node = &vars[0];
    if node.is_missing() {
        return;
    }
    let variants = get(node, key!("systemDataVariants"));
    let variants = variants.view().to_str();
    let widths: Vec<&str> = variants.split(',').filter(|v| v.ends_with('w')).collect();
    let Some(&last) = widths.last() else {
        return;
    };
    let asset_url = get(node, key!("assetUrl"));
    let asset_url = asset_url.view().to_str();
    let mut out = String::from(" srcset=\"");
    for (i, w) in widths.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, "{asset_url}?format={w} {w}");
    }
    // The original stands in for the next width up, unless the largest is already there.
    let next_up = IMAGE_WIDTHS[..IMAGE_WIDTHS.len() - 1]
        .iter()
        .position(|&w| w == last)
        .map(|i| IMAGE_WIDTHS[i + 1]);
    if let Some(next) = next_up {
        let _ = write!(out, ",{asset_url}?format=original {next}");
    }
    out.push('"');
    vars[0] = Val::Text(out);
}

/// Classes for each element of a list value, slugified, as ` prefix-slug`.
fn push_slug_classes(prefix: &str, list: &Val<'_>, out: &mut String) {
    let mut push = |name: &str| {
        out.push(' ');
        out.push_str(prefix);
        out.push('-');
        push_slug(name, out);
    };
    // Categories and tags are arrays: their elements are read in place. Anything else
    // with a size (a string's characters, say) goes through JavaScript's indexing.
    if let View::Arr(items) = list.view() {
        for item in items {
            push(&View::of(item).to_str());
        }
        return;
    }
    for i in 0..list.view().size() {
        push(&get_index(list, i as f64).view().to_str());
    }
}

/// `item-classes`: the CSS classes of a content item's wrapper (promotion, categories,
/// tags, author, post type, position, featured, and sale / sold-out for products).
fn item_classes<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    // Room for the usual classes, so that appending them rarely reallocates.
    let mut out = String::with_capacity(160);
    push_item_classes(ctx, &vars[0], &mut out);
    vars[0] = Val::Text(out);
}

/// `item-classes` at the end of a chain: the classes go straight into the output.
fn item_classes_emit<'a>(ctx: &mut Ctx<'a>, _: &'a Args, item: Val<'a>) {
    emit_with(ctx, |ctx, out| push_item_classes(ctx, &item, out));
}

fn push_item_classes(ctx: &Ctx<'_>, item: &Val<'_>, out: &mut String) {
    static PROMOTED: LazyLock<VarPath> =
        LazyLock::new(|| VarPath::from_dotted("promotedBlockType"));
    static CATEGORIES: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("categories"));
    static TAGS: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("tags"));
    static AUTHOR: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("author"));
    static LABEL: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("recordTypeLabel"));
    static INDEX: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("@index"));
    static STARRED: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("starred"));

    out.push_str("hentry");
    // The names resolve from the formatter's frame, which holds the tag's first value:
    // when that is the item (not a value an earlier formatter made) and the item has them,
    // its kept classes are what they print.
    let kept = match (item.view(), ctx.node().view()) {
        (View::Obj(o), View::Obj(frame)) if std::ptr::eq(o, frame) => {
            crate::plugins::kept::kept(o).map(|k| k.classes.get_or_init(|| ClassSlugs::of(item)))
        }
        _ => None,
    };
    // Per name: what the item keeps (`own`), else the name resolved and written by `push`.
    let part = |out: &mut String, (own, name, push): (Own, &'static VarPath, Push)| {
        let own = kept.and_then(own);
        match own {
            Some(text) => out.push_str(text),
            None => push(&ctx.resolve(name), out),
        }
    };
    let classes: [(Own, &'static VarPath, Push); 4] = [
        (|k| k.promoted.as_deref(), &PROMOTED, push_promoted_classes),
        (
            |k| k.categories.as_deref(),
            &CATEGORIES,
            push_category_classes,
        ),
        (|k| k.tags.as_deref(), &TAGS, push_tag_classes),
        (|k| k.author.as_deref(), &AUTHOR, push_author_class),
    ];
    for class in classes {
        part(out, class);
    }
    out.push_str(" post-type-");
    part(out, (|k| k.label.as_deref(), &LABEL, push_text));
    let index = ctx.resolve(&*INDEX);
    if !index.is_missing() {
        out.push_str(" article-index-");
        push_number(index.view().to_number(), out);
    }
    let starred = match kept.and_then(|k| k.starred) {
        Some(starred) => starred,
        None => ctx.resolve(&*STARRED).view().truthy(),
    };
    if starred {
        out.push_str(" featured");
    }
    match kept {
        Some(k) => out.push_str(&k.product),
        None => push_product_classes(item, out),
    }
}

/// Writes what `item-classes` prints for one name's value.
type Push = fn(&Val<'_>, &mut String);

/// What an item keeps of one name for `item-classes`, if it has the name.
type Own = fn(&ClassSlugs) -> Option<&str>;

fn push_text(value: &Val<'_>, out: &mut String) {
    out.push_str(&value.view().to_str());
}

fn push_promoted_classes(promoted: &Val<'_>, out: &mut String) {
    if promoted.view().truthy() {
        out.push_str(" promoted promoted-block-");
        push_slug(&promoted.view().to_str(), out);
    }
}

/// ` on-sale` and ` sold-out` for a store item.
fn push_product_classes(item: &Val<'_>, out: &mut String) {
    if get(item, key!("recordType")).view().to_number() == f64::from(record_type::STORE_ITEM.code) {
        let product = product::Product::of(item.view());
        if product::is_on_sale(&product) {
            out.push_str(" on-sale");
        }
        if product::is_sold_out(&product) {
            out.push_str(" sold-out");
        }
    }
}

fn push_category_classes(categories: &Val<'_>, out: &mut String) {
    if categories.view().truthy() {
        push_slug_classes("category", categories, out);
    }
}

fn push_tag_classes(tags: &Val<'_>, out: &mut String) {
    if tags.view().truthy() {
        push_slug_classes("tag", tags, out);
    }
}

fn push_author_class(author: &Val<'_>, out: &mut String) {
    let name = get(author, key!("displayName"));
    if author.view().truthy() && name.view().truthy() {
        out.push_str(" author-");
        push_slug(&name.view().to_str(), out);
    }
}

/// What `item-classes` prints for an item's own `promotedBlockType`, `categories`, `tags`,
/// `author`, `recordTypeLabel` and `starred`, and its product state, kept with the item
/// ([`crate::plugins::kept`]): a list page prints them for every item on every request,
/// and slugging the names was a tenth of a store's product list. `None` where the item has
/// no such key, so that the name resolves in the enclosing scopes.
pub(crate) struct ClassSlugs {
    promoted: Option<Box<str>>,
    categories: Option<Box<str>>,
    tags: Option<Box<str>>,
    author: Option<Box<str>>,
    label: Option<Box<str>>,
    starred: Option<bool>,
    /// ` on-sale` and ` sold-out` (a function of the item alone).
    product: Box<str>,
}

impl ClassSlugs {
    fn of(item: &Val<'_>) -> ClassSlugs {
        let own = |key: Key<'_>, push: Push| {
            let value = get(item, key);
            (!value.is_missing()).then(|| {
                let mut classes = String::new();
                push(&value, &mut classes);
                classes.into_boxed_str()
            })
        };
        let starred = get(item, key!("starred"));
        let mut product = String::new();
        push_product_classes(item, &mut product);
        ClassSlugs {
            promoted: own(key!("promotedBlockType"), push_promoted_classes),
            categories: own(key!("categories"), push_category_classes),
            tags: own(key!("tags"), push_tag_classes),
            author: own(key!("author"), push_author_class),
            label: own(key!("recordTypeLabel"), push_text),
            starred: (!starred.is_missing()).then(|| starred.view().truthy()),
            product: product.into_boxed_str(),
        }
    }
}

/// The other side of a `WxH` size scaled to `requested`, truncated to a 32-bit integer
/// (both sides `NaN` count as 0); `Err` with the message when the value is not a size.
fn resize(size: &Val<'_>, width_for_height: bool, requested: f64) -> Result<i32, &'static str> {
    let size = size.view().to_str();
    let (w, h) = split_dimensions(&size).ok_or(INVALID_SOURCE)?;
    let (w, h) = (js_parse_int(w), js_parse_int(h));
    let value = if width_for_height {
        w * (requested / h)
    } else {
        h * (requested / w)
    };
    Ok(to_int32(value))
}

fn requested(args: &Args) -> f64 {
    args.get(0).map_or(f64::NAN, js_parse_int)
}

/// `resizedHeightForWidth W`: the height of the image at width W.
fn resized_height_for_width<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = match resize(&vars[0], false, requested(args)) {
        Ok(n) => Val::num(f64::from(n)),
        Err(message) => Val::text(message),
    };
}

/// `resizedWidthForHeight H`: the width of the image at height H.
fn resized_width_for_height<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = match resize(&vars[0], true, requested(args)) {
        Ok(n) => Val::num(f64::from(n)),
        Err(message) => Val::text(message),
    };
}

/// The smallest platform width that covers `width` pixels (SPEC.md §9 buckets), capped
/// at 1500w.
fn thumbnail_width(width: f64) -> &'static str {
    if width > 1000.0 {
        "1500w"
    } else if width > 750.0 {
        "1000w"
    } else if width > 500.0 {
        "750w"
    } else if width > 300.0 {
        "500w"
    } else if width > 100.0 {
        "300w"
    } else {
        "100w"
    }
}

/// `squarespaceThumbnailForWidth W`: the image width variant for W pixels.
fn thumbnail_for_width<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::text(thumbnail_width(requested(args)));
}

/// `squarespaceThumbnailForHeight H`: the image width variant for the image at height H.
fn thumbnail_for_height<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = match resize(&vars[0], true, requested(args)) {
        Ok(n) => Val::text(thumbnail_width(f64::from(n))),
        Err(message) => Val::text(message),
    };
}

/// `num.toFixed(2)` read back as a number: rounded to two decimals, exact halves away
/// from zero (JavaScript rounds the exact binary value; Rust's formatting rounds exact
/// halves to even, and exact halves are the values `k/8` with odd `k`).
fn to_fixed_2(x: f64) -> f64 {
    if !x.is_finite() || x.abs() >= 1e21 {
        return x;
    }
    let eighths = x.abs() * 8.0;
    let exact_half = eighths.fract() == 0.0 && eighths % 2.0 == 1.0;
    let text = if exact_half {
        format!("{:.2}", x + x.signum() * 0.001)
    } else {
        format!("{x:.2}")
    };
    text.parse().unwrap_or(f64::NAN)
}

/// `website-color`: an `{hue, saturation, lightness[, alpha]}` colour (saturation,
/// lightness and alpha in 0..=1) as CSS `hsl()` / `hsla()`, or the bounds messages of
/// SPEC.md §5.
fn website_color<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let node = &vars[0];
    let (hue, saturation, lightness) = (
        get(node, key!("hue")),
        get(node, key!("saturation")),
        get(node, key!("lightness")),
    );
    if hue.is_missing() || saturation.is_missing() || lightness.is_missing() {
        vars[0] = Val::text("Missing an H/S/L value.");
        return;
    }
    let hue = hue.view().to_number();
    let mut saturation = saturation.view().to_number();
    let mut lightness = lightness.view().to_number();
    let alpha = get(node, key!("alpha"));
    let alpha = (!alpha.is_missing()).then(|| alpha.view().to_number());

    let mut errors = String::new();
    if !(0.0..=360.0).contains(&hue) && !hue.is_nan() {
        errors.push_str("Hue out of bounds. ");
    }
    if (0.0..=1.0).contains(&saturation) {
        saturation *= 100.0;
    } else {
        errors.push_str("Saturation out of bounds. ");
    }
    if (0.0..=1.0).contains(&lightness) {
        lightness *= 100.0;
    } else {
        errors.push_str("Lightness out of bounds. ");
    }
    // NaN is in bounds here: the reference's comparisons are all false for it.
    if alpha.is_some_and(|a| !a.is_nan() && !(0.0..=1.0).contains(&a)) {
        errors.push_str("Alpha out of bounds.");
    }
    if !errors.is_empty() {
        vars[0] = Val::Text(errors);
        return;
    }

    let mut out = String::from(if alpha.is_some() { "hsla(" } else { "hsl(" });
    push_number(to_fixed_2(hue), &mut out);
    out.push_str(", ");
    push_number(to_fixed_2(saturation), &mut out);
    out.push_str("%, ");
    push_number(to_fixed_2(lightness), &mut out);
    match alpha {
        Some(a) => {
            out.push_str("%, ");
            push_number(to_fixed_2(a), &mut out);
            out.push(')');
        }
        None => out.push_str("%)"),
    }
    vars[0] = Val::Text(out);
}

/// `colorData` keys behind the video overlay's `data-color-*` attributes.
const VIDEO_COLORS: [(&str, &str); 5] = [
    ("topleft", "topLeftAverage"),
    ("topright", "topRightAverage"),
    ("bottomleft", "bottomLeftAverage"),
    ("bottomright", "bottomRightAverage"),
    ("center", "centerAverage"),
];

/// `video [load-false] [color-data]`: the video embed wrapper, with its thumbnail
/// overlay when the item asks for one.
fn video<'a>(_: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    let node = &vars[0];
    let oembed = get(node, key!("oembed"));
    let load_false = args.iter().any(|a| a == "load-false");
    let use_colors = args.iter().any(|a| a == "color-data");

    let mut out = String::with_capacity(256);
    out.push_str("<div class=\"sqs-video-wrapper\" ");
    if load_false {
        out.push_str(" data-load=\"false\" ");
    }
    out.push_str("data-html=\"");
    escape_attr(&get(&oembed, key!("html")).view().to_str(), &mut out);
    out.push_str("\" data-provider-name=\"");
    out.push_str(&get(&oembed, key!("providerName")).view().to_str());
    out.push_str("\">");

    if get(node, key!("overlay")).view().truthy() {
        out.push_str("<div class=\"sqs-video-overlay");
        let has_image = get(node, key!("mainImageId")).view().truthy()
            || get(node, key!("systemDataId")).view().truthy();
        if has_image {
            out.push_str("\" style=\"opacity: 0;\"><img data-load=\"false\" data-src=\"");
            out.push_str(&get(node, key!("assetUrl")).view().to_str());
            out.push_str("\" data-image-dimensions=\"");
            out.push_str(&get(node, key!("originalSize")).view().to_str());
            out.push_str("\" data-image-focal-point=\"");
            push_focal_point(node, &mut out);
            out.push_str("\" ");
            let colors = get(node, key!("colorData"));
            if use_colors && colors.view().truthy() {
                for (attr, key) in VIDEO_COLORS {
                    let _ = write!(
                        out,
                        "data-color-{attr}=\"#{}\" ",
                        get(&colors, Key::new(key)).view().to_str()
                    );
                }
            }
            out.push_str("/>");
        } else {
            out.push_str(" no-thumb\" style=\"opacity: 0;\">");
        }
        out.push_str(
            "<div class=\"sqs-video-opaque\"> </div><div class=\"sqs-video-icon\"></div></div>",
        );
    }
    out.push_str("</div>");
    vars[0] = Val::Text(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_colors() {
        assert_eq!(hex_color("#fff"), Some(0xFF_FFFF));
        assert_eq!(hex_color("abc"), Some(0xAA_BBCC));
        assert_eq!(hex_color("#12345"), Some(0x12345));
        assert_eq!(hex_color("1234567"), None);
        assert_eq!(hex_color("#ggg"), None);
        assert_eq!(hex_color("##fff"), None);
        assert_eq!(hex_color(""), None);
    }

    #[test]
    fn fixed_rounding_matches_javascript() {
        // Expectations from node: Number((x).toFixed(2)).
        assert_eq!(to_fixed_2(0.125), 0.13);
        assert_eq!(to_fixed_2(0.375), 0.38);
        assert_eq!(to_fixed_2(1.005), 1.0);
        assert_eq!(to_fixed_2(12.345), 12.35);
        assert_eq!(to_fixed_2(57.99999), 58.0);
        assert_eq!(to_fixed_2(-0.125), -0.13);
        assert!(to_fixed_2(f64::NAN).is_nan());
    }

    #[test]
    fn thumbnail_buckets() {
        let got: Vec<_> = [
            f64::NAN,
            100.0,
            101.0,
            300.0,
            301.0,
            500.0,
            501.0,
            750.0,
            751.0,
            1000.0,
            1001.0,
            1e9,
        ]
        .into_iter()
        .map(thumbnail_width)
        .collect();
        assert_eq!(
            got,
            [
                "100w", "100w", "300w", "300w", "500w", "500w", "750w", "750w", "1000w", "1000w",
                "1500w", "1500w"
            ]
        );
    }
}
