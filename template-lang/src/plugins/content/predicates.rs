//! The content predicates: what kind of item, collection, folder, event or gallery the
//! current node is.

use std::sync::LazyLock;

use super::super::Registry;
use super::calendar::UtcFields;
use super::enums::{background_source, collection_type, folder_behavior, record_type};
use super::get;
use crate::exec::Ctx;
use crate::plugins::util::remove_tags;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::{Key, Val, View, key};

/// Registers `name?` testing `recordType == code` for each record type given.
macro_rules! record_types {
    ($r:ident; $($name:literal => $kind:ident),* $(,)?) => {
        $( $r.add_predicate(concat!($name, "?"), |ctx, _| {
            has_record_type(ctx.node(), record_type::$kind.code)
        }); )*
    };
}

/// Registers `name?` true for a record type or a block promoted as the same kind.
macro_rules! promoted_record_types {
    ($r:ident; $($name:literal => $kind:ident / $block:literal),* $(,)?) => {
        $( $r.add_predicate(concat!($name, "?"), |ctx, _| {
            has_record_type(ctx.node(), record_type::$kind.code)
                || get(ctx.node(), key!("promotedBlockType")).view().to_str() == $block
        }); )*
    };
}

/// Registers `promotedNAME?` for promoted block types.
macro_rules! promoted_blocks {
    ($r:ident; $($name:literal => $block:literal),* $(,)?) => {
        $( $r.add_predicate(concat!("promoted", $name, "?"), |ctx, _| {
            get(ctx.node(), key!("promotedBlockType")).view().to_str() == $block
        }); )*
    };
}

/// Registers `gallery-PREFIX-VALUE?` comparing the gallery option with a value.
macro_rules! gallery_selects {
    ($r:ident; $prefix:literal: $option:literal => $($value:literal),* $(,)?) => {
        $( $r.add_predicate(concat!("gallery-", $prefix, "-", $value, "?"), |ctx, _| {
            gallery_select(ctx, $option, $value)
        }); )*
    };
}

/// Registers `gallery-OPTION?` reading a boolean gallery option.
macro_rules! gallery_booleans {
    ($r:ident; $($option:literal),* $(,)?) => {
        $( $r.add_predicate(concat!("gallery-", $option, "?"), |ctx, _| {
            gallery_boolean(ctx, $option)
        }); )*
    };
}

/// Registers `background-source-NAME?` for each background source.
macro_rules! background_sources {
    ($r:ident; $($name:literal => $kind:ident),* $(,)?) => {
        $( $r.add_predicate(concat!("background-source-", $name, "?"), |ctx, _| {
            get(ctx.node(), key!("backgroundSource")).view().to_number()
                == f64::from(background_source::$kind.code)
        }); )*
    };
}

pub fn register(r: &mut Registry) {
    r.add_predicate("calendar-view?", calendar_view);
    r.add_predicate("child-images?", child_images);
    r.add_predicate("clickable?", clickable);
    r.add_predicate("collection?", |ctx, _| {
        get(ctx.node(), key!("collection")).view().truthy()
    });
    r.add_predicate("collection-page?", collection_page);
    r.add_predicate("collection-template-page?", collection_template_page);
    r.add_predicate("collectionTypeNameEquals?", collection_type_name_equals);
    r.add_predicate("excerpt?", excerpt);
    r.add_predicate("external-link?", |ctx, _| {
        get(ctx.node(), key!("externalLink")).view().truthy()
    });
    r.add_predicate("folder?", |ctx, _| {
        get(&get(ctx.node(), key!("collection")), key!("folder"))
            .view()
            .truthy()
    });
    r.add_predicate("gallery-meta?", gallery_meta);
    r.add_predicate("has-multiple?", |ctx, _| ctx.node().view().size() > 1);
    r.add_predicate("index?", index);
    r.add_predicate("location?", location);
    r.add_predicate("main-image?", |ctx, _| has_main_image(ctx.node()));
    r.add_predicate("passthrough?", passthrough);
    r.add_predicate("redirect?", |ctx, _| {
        get(ctx.node(), key!("folderBehavior")).view().to_number()
            == f64::from(folder_behavior::REDIRECT.code)
    });
    r.add_predicate("same-day?", same_day);
    r.add_predicate("serviceNameEmail?", |ctx, _| {
        get(ctx.node(), key!("serviceName")).view().to_str() == "email"
    });
    r.add_predicate("show-past-events?", |ctx, _| {
        get(ctx.node(), key!("showPastOrUpcomingEvents"))
            .view()
            .to_str()
            == "past"
    });

    gallery_selects!(r; "design": "design" => "grid", "slideshow", "slider", "stacked");
    gallery_selects!(r; "meta-position": "meta-position" =>
        "top", "top-left", "top-right", "center", "bottom", "bottom-left", "bottom-right");
    gallery_selects!(r; "active-alignment": "active-alignment" => "center", "left", "right");
    gallery_booleans!(r; "autoplay", "auto-crop", "controls", "lightbox", "square-thumbs",
        "show-meta", "show-meta-on-hover", "thumbnails");

    // Every record type tests its code, except the kinds a block can be promoted as.
    record_types!(r;
        "undefined" => UNDEFINED,
        "text" => TEXT,
        "audio" => AUDIO,
        "store-item" => STORE_ITEM,
        "event" => EVENT,
        "binary" => BINARY,
        "css-asset" => CSS_ASSET,
        "tweak-asset" => TWEAK_ASSET,
        "digital-good" => DIGITAL_GOOD,
        "attachment" => ATTACHMENT,
        "wordpress-export" => EXPORT_WORDPRESS,
        "json-export" => EXPORT_INTERNAL,
        "site-search" => SITE_SEARCH,
        "active-time" => ACTIVE_TIME,
        "tweet" => TWEET,
        "checkin" => CHECKIN,
        "kbarticle" => KBARTICLE,
    );
    promoted_record_types!(r;
        "external-video" => VIDEO / "video",
        "video" => VIDEO / "video",
        "image" => IMAGE / "image",
        "quote" => QUOTE / "quote",
        "link" => LINK / "link",
        "gallery" => GALLERY / "gallery",
    );
    promoted_blocks!(r;
        "MAP" => "map",
        "EMBED" => "embed",
        "IMAGE" => "image",
        "CODE" => "code",
        "QUOTE" => "quote",
        "TWITTER" => "twitter",
        "LINK" => "link",
        "VIDEO" => "video",
        "FOURSQUARE" => "foursquare",
        "INSTAGRAM" => "instagram",
        "FORM" => "form",
    );
    background_sources!(r;
        "undefined" => UNDEFINED,
        "upload" => UPLOAD,
        "instagram" => INSTAGRAM,
        "video" => VIDEO,
        "none" => NONE,
    );
}

fn has_record_type(node: &Val<'_>, code: i32) -> bool {
    get(node, key!("recordType")).view().to_number() == f64::from(code)
}

fn has_main_image(node: &Val<'_>) -> bool {
    get(node, key!("mainImageId")).view().truthy()
        || get(node, key!("systemDataId")).view().truthy()
}

/// The gallery's `options` object, found up the context stack.
fn gallery_options<'a>(ctx: &Ctx<'a>) -> Val<'a> {
    static OPTIONS: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("options"));
    ctx.resolve(&*OPTIONS)
}

fn gallery_select(ctx: &Ctx<'_>, option: &str, value: &str) -> bool {
    let v = get(&gallery_options(ctx), Key::new(option));
    !v.is_missing() && v.view().to_str() == value
}

fn gallery_boolean(ctx: &Ctx<'_>, option: &str) -> bool {
    get(&gallery_options(ctx), Key::new(option))
        .view()
        .to_bool()
}

/// `gallery-meta?`: the gallery shows controls or indicators.
fn gallery_meta<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let options = gallery_options(ctx);
    get(&options, key!("controls")).view().truthy()
        || get(&options, key!("indicators")).view().truthy()
}

/// `calendar-view?`: `calendarView` (up the stack) is true.
fn calendar_view<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    static PATH: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("calendarView"));
    ctx.resolve(&*PATH).view().to_bool()
}

/// `child-images?`: the first of the node's `items` has an image.
fn child_images<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let items = get(ctx.node(), key!("items"));
    match items.view() {
        View::Arr(a) if !a.is_empty() => has_main_image(&items.element(0)),
        _ => false,
    }
}

/// `clickable?`: a folder that opens an index or redirects, or anything not a folder.
fn clickable<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    static PATH: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("folderBehavior"));
    let behavior = ctx.resolve(&*PATH);
    if behavior.is_missing() {
        return true;
    }
    let code = behavior.view().to_number();
    code == f64::from(folder_behavior::INDEX.code)
        || code == f64::from(folder_behavior::REDIRECT.code)
}

/// `collection-page?`: the node's collection is a page (type 10).
fn collection_page<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let kind = get(&get(ctx.node(), key!("collection")), key!("type"));
    !kind.is_missing() && kind.view().to_number() == f64::from(collection_type::PAGE.code)
}

/// `collection-template-page?`: the node's collection, or the node itself when it has
/// none, is a template page (type 7).
fn collection_template_page<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let collection = get(ctx.node(), key!("collection"));
    let kind = if collection.is_missing() {
        get(ctx.node(), key!("type"))
    } else {
        get(&collection, key!("type"))
    };
    !kind.is_missing() && kind.view().to_number() == f64::from(collection_type::TEMPLATE_PAGE.code)
}

/// `collectionTypeNameEquals? NAME`: `typeName` (up the stack) is NAME.
fn collection_type_name_equals<'a>(ctx: &mut Ctx<'a>, args: &'a Args) -> bool {
    static PATH: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("typeName"));
    match args.get(0) {
        Some(name) => ctx.resolve(&*PATH).view().to_str() == name,
        None => false,
    }
}

/// `excerpt?`: the excerpt (its `html`, or the excerpt itself when it is text) has text
/// besides tags, whitespace, no-break and zero-width spaces.
fn excerpt<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let excerpt = get(ctx.node(), key!("excerpt"));
    let html = get(&excerpt, key!("html"));
    let text = match (html.view(), excerpt.view()) {
        (View::Str(s), _) | (_, View::Str(s)) => s,
        _ => return false,
    };
    remove_tags(text)
        .chars()
        .any(|c| !(crate::value::number::is_js_whitespace(c) || c == '\u{200B}'))
}

/// `index?`: the node's collection is a folder that opens as an index.
fn index<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let collection = get(ctx.node(), key!("collection"));
    if !matches!(collection.view(), View::Obj(_)) {
        return false;
    }
    get(&collection, key!("folder")).view().truthy()
        && matches!(get(&collection, key!("folderBehavior")).view(),
            View::Num(n) if n == f64::from(folder_behavior::INDEX.code))
}

/// `location?`: the node's location has map coordinates (present, whatever their value).
fn location<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let location = get(ctx.node(), key!("location"));
    !get(&location, key!("mapLat")).is_missing() && !get(&location, key!("mapLng")).is_missing()
}

/// `passthrough?`: the item passes through to a non-empty source URL.
fn passthrough<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    get(ctx.node(), key!("passthrough")).view().truthy()
        && !get(ctx.node(), key!("sourceUrl"))
            .view()
            .to_str()
            .is_empty()
}

/// `same-day?`: the event starts and ends on the same UTC day of the same era year (so,
/// as in the reference, a day of 1 BC matches the same day of AD 1). Dates the calendar cannot
/// represent fail the predicate (the reference throws): neither branch runs.
fn same_day<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    let start = get(ctx.node(), key!("startDate")).view().to_number();
    let end = get(ctx.node(), key!("endDate")).view().to_number();
    match (
        UtcFields::from_epoch_ms(start),
        UtcFields::from_epoch_ms(end),
    ) {
        (Some(a), Some(b)) => a.year == b.year && a.day_of_year == b.day_of_year,
        _ => {
            ctx.fail(super::DATE_OUT_OF_RANGE);
            false
        }
    }
}
