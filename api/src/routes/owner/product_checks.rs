//! What the product form sends beyond the import format's item, and the rules a product
//! keeps (the item routes of [`super::content`] apply them).
//!
//! - `images: [{url, altText, decorative}]`: the product's pictures in order, the first the
//!   main one (stored as the item's `data.items`, the first also as `data.assetUrl`). Each
//!   has alt text (at most 250 characters) or says it is decorative (SPEC.md §5: "either
//!   meaningful or an empty string when decorative"), then stored with `altText: ""`.
//! - `digitalFile: {assetId}`: an upload ([`super::products`]' `POST
//!   /api/owner/product-files?kind=download`) that becomes the digital product's download,
//!   moved out of the public uploads in the same write.
//! - `structuredContent.isSubscribable` and `subscriptionPlan` `{billingPeriod {value,
//!   unit}, numBillingCycles}` (SPEC.md §3 "Subscription": WEEK, MONTH or YEAR; 0 cycles
//!   never ends): a subscription, of a physical product.
//! - `structuredContent.variantOptionOrdering`: the option names (at most [`MAX_OPTIONS`]);
//!   when given, every variant has a value (1-50 characters) for each and only those, and
//!   no two variants the same values. At most [`MAX_VARIANTS`] variants.
//! - `structuredContent.additionalFieldsFormId`: one of the site's forms (`GET
//!   /api/owner/product-form` lists them), whose fields checkout asks for; the form is
//!   copied into `additionalFieldsForm` on save. An empty id removes it.
//! - A digital product has a single price (SPEC.md §3): one variant; a gift card's amounts
//!   are its variants' prices, each more than 0; a weight is whole grams.
//! - SPEC.md §9: a category name at most 25 characters (and one of the store's), a tag at
//!   most 50, a new or changed URL id at least 3 characters.

use serde_json::{Map, Value, json};
use tenants::{Category, Item};

pub const NO_ALT: &str = "Please enter alt text, or mark the image as decorative.";
pub const LONG_ALT: &str = "Alt text has at most 250 characters.";
pub const NO_IMAGE_URL: &str = "An image needs its address (upload it first).";
pub const TOO_MANY_IMAGES: &str = "A product has at most 20 images.";
pub const NOT_IMAGES: &str = "images is a list of {url, altText, decorative}.";
pub const NOT_A_FILE: &str = "digitalFile is {assetId}: an uploaded file's id.";
pub const NO_FILE: &str = "A digital product needs its file: upload one.";
pub const NOT_DIGITAL: &str = "Only a digital product has a file to download.";
pub const NO_UPLOAD: &str = "That upload does not exist (upload the file again).";
pub const ONE_PRICE: &str = "A digital product has a single price: one variant.";
pub const GIFT_CARD_AMOUNT: &str = "A gift card's amount is more than 0.";
pub const SUBSCRIPTION_TYPE: &str = "A subscription is a physical product.";
pub const NO_PLAN: &str =
    "A subscription needs its plan: a billing period and a number of billing cycles.";
pub const BAD_PERIOD: &str = "A billing period is a whole number from 1 to 52.";
pub const BAD_UNIT: &str = "A billing period's unit is WEEK, MONTH or YEAR.";
pub const BAD_CYCLES: &str =
    "The number of billing cycles is a whole number from 0 (never ends) to 999.";
pub const NOT_OPTIONS: &str = "variantOptionOrdering is a list of option names.";
pub const TOO_MANY_OPTIONS: &str = "A product has at most 6 options.";
pub const BAD_OPTION: &str = "An option name is 1-50 characters.";
pub const OPTION_TWICE: &str = "This option already exists";
pub const BAD_OPTION_VALUE: &str = "An option value is 1-50 characters.";
pub const SAME_OPTIONS: &str = "Another variant has these options.";
pub const TOO_MANY_VARIANTS: &str = "A product has at most 100 variants.";
pub const BAD_WEIGHT: &str = "A weight is whole grams from 0 to 1,000,000.";
pub const LONG_CATEGORY: &str = "A category name has at most 25 characters.";
pub const NO_CATEGORY: &str = "That category does not exist in this store.";
pub const CATEGORY_TWICE: &str = "This category already exists";
pub const LONG_TAG: &str = "A tag has at most 50 characters.";
pub const TAG_TWICE: &str = "This tag already exists";
pub const NO_FORM: &str = "That form does not exist.";

/// SPEC.md §9 and ours (documented in docs/src/store-owners.md).
pub const MAX_OPTIONS: usize = 6;
pub const MAX_VARIANTS: usize = 100;
pub const MAX_IMAGES: usize = 20;
pub const MAX_ALT: usize = 250;
pub const MAX_WEIGHT_GRAMS: i64 = 1_000_000;
pub const MAX_CATEGORY: usize = 25;
pub const MAX_TAG: usize = 50;
pub const MIN_SLUG: usize = 3;

/// The keys of `data` that describe the main image (the first of `data.items`).
const MAIN_IMAGE_KEYS: [&str; 8] = [
    "assetUrl",
    "originalSize",
    "mainImageId",
    "systemDataId",
    "filename",
    "contentType",
    "systemDataVariants",
    "mediaFocalPoint",
];

/// Takes the form's `images` out of an item body `o` into its `data`, problems into
/// `errors`; returns `digitalFile.assetId` when the body names one.
pub fn take_form_parts(
    o: &mut Map<String, Value>,
    errors: &mut Map<String, Value>,
) -> Option<String> {
    if let Some(images) = o.remove("images") {
        let data = o.entry("data").or_insert_with(|| json!({}));
        if !data.is_object() {
            *data = json!({});
        }
        if let Value::Object(data) = data {
            set_images(data, &images, errors);
        }
    }
    match o.remove("digitalFile") {
        None | Some(Value::Null) => None,
        Some(f) => match f.get("assetId").and_then(Value::as_str) {
            Some(id) if !id.trim().is_empty() => Some(id.trim().to_owned()),
            _ => {
                errors.insert("digitalFile".into(), NOT_A_FILE.into());
                None
            }
        },
    }
}

fn set_images(data: &mut Map<String, Value>, images: &Value, errors: &mut Map<String, Value>) {
    let Some(list) = images.as_array() else {
        errors.insert("images".into(), NOT_IMAGES.into());
        return;
    };
    if list.len() > MAX_IMAGES {
        errors.insert("images".into(), TOO_MANY_IMAGES.into());
        return;
    }
    let old: Vec<Value> = data
        .get("items")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut entries = Vec::new();
    for (i, image) in list.iter().enumerate() {
        let at = |f: &str| format!("images[{i}].{f}");
        let Some(image) = image.as_object() else {
            errors.insert(format!("images[{i}]"), NOT_IMAGES.into());
            continue;
        };
        let url = image
            .get("url")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        let decorative = image
            .get("decorative")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let alt = image
            .get("altText")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim();
        if url.is_empty()
            || url.len() > 2000
            || !(url.starts_with('/') || url.starts_with("https://") || url.starts_with("http://"))
        {
            errors.insert(at("url"), NO_IMAGE_URL.into());
        }
        if !decorative && alt.is_empty() {
            errors.insert(at("altText"), NO_ALT.into());
        } else if alt.chars().count() > MAX_ALT {
            errors.insert(at("altText"), LONG_ALT.into());
        }
        // What the stored picture had (its sizes, focal point …) stays.
        let mut entry = old
            .iter()
            .find(|e| e.get("assetUrl").and_then(Value::as_str) == Some(url))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        entry.insert("assetUrl".into(), url.into());
        entry.insert("altText".into(), if decorative { "" } else { alt }.into());
        entry.insert("decorative".into(), decorative.into());
        if !entry.contains_key("filename") {
            let name = url.rsplit('/').next().unwrap_or("");
            let name = percent_encoding::percent_decode_str(name).decode_utf8_lossy();
            entry.insert("filename".into(), name.into_owned().into());
        }
        entries.push(Value::Object(entry));
    }
    let main_was = data.get("assetUrl").cloned();
    let main_now = entries.first().and_then(|e| e.get("assetUrl")).cloned();
    if main_was != main_now {
        for k in MAIN_IMAGE_KEYS {
            data.remove(k);
        }
        if let Some(Value::Object(first)) = entries.first() {
            for k in MAIN_IMAGE_KEYS {
                if let Some(v) = first.get(k) {
                    data.insert(k.into(), v.clone());
                }
            }
        }
    }
    if entries.is_empty() {
        data.remove("items");
    } else {
        data.insert("items".into(), Value::Array(entries));
    }
}

/// A product's images as the form edits them: `data.items` (else the main `assetUrl`),
/// alt text as stored, else the picture's title (SPEC.md §3: alt text comes from the title).
pub fn images_of(item: &Item) -> Vec<Value> {
    let entries: Vec<Value> = match item.data.get("items").and_then(Value::as_array) {
        Some(list) => list.clone(),
        None => item
            .data
            .get("assetUrl")
            .filter(|u| u.as_str().is_some_and(|u| !u.is_empty()))
            .map(|u| vec![json!({"assetUrl": u})])
            .unwrap_or_default(),
    };
    entries
        .iter()
        .filter_map(|e| {
            let url = e.get("assetUrl")?.as_str()?;
            let decorative = e.get("decorative").and_then(Value::as_bool).unwrap_or(false);
            let alt = e
                .get("altText")
                .or_else(|| e.get("title"))
                .and_then(Value::as_str)
                .unwrap_or("");
            Some(json!({"url": url, "altText": if decorative { "" } else { alt }, "decorative": decorative}))
        })
        .collect()
}

/// Whether a subscription product (`structuredContent.isSubscribable`).
pub fn is_subscription(item: &Item) -> bool {
    // `null` (a merge patch's "remove") is not a subscription either.
    item.structured_content.get("isSubscribable") == Some(&Value::Bool(true))
}

/// The rules a store's item keeps beyond the item routes' own, into `errors`: `old` is the
/// stored item when it is changed, `categories` the store's.
pub fn check_product(
    item: &Item,
    old: Option<&Item>,
    categories: &[&Category],
    errors: &mut Map<String, Value>,
) {
    let mut bad = |field: String, message: &str| {
        errors.entry(field).or_insert_with(|| message.into());
    };
    let kind = item.product_type.unwrap_or(1);
    if kind == 2 && item.variants.len() > 1 {
        bad("variants".into(), ONE_PRICE);
    }
    if item.variants.len() > MAX_VARIANTS {
        bad("variants".into(), TOO_MANY_VARIANTS);
    }
    for (i, v) in item.variants.iter().enumerate() {
        if !(0..=MAX_WEIGHT_GRAMS).contains(&v.weight_grams) {
            bad(format!("variants[{i}].weightGrams"), BAD_WEIGHT);
        }
        if kind == 4 && v.price_minor <= 0 {
            bad(format!("variants[{i}].price"), GIFT_CARD_AMOUNT);
        }
    }
    if is_subscription(item) {
        if kind != 1 {
            bad("productType".into(), SUBSCRIPTION_TYPE);
        }
        let at = "structuredContent.subscriptionPlan";
        match item.structured_content.get("subscriptionPlan") {
            Some(Value::Object(plan)) => {
                let value = plan.get("billingPeriod").and_then(|p| p.get("value"));
                if !value
                    .and_then(Value::as_i64)
                    .is_some_and(|n| (1..=52).contains(&n))
                {
                    bad(format!("{at}.billingPeriod.value"), BAD_PERIOD);
                }
                let unit = plan.get("billingPeriod").and_then(|p| p.get("unit"));
                if !unit
                    .and_then(Value::as_str)
                    .is_some_and(|u| matches!(u, "WEEK" | "MONTH" | "YEAR"))
                {
                    bad(format!("{at}.billingPeriod.unit"), BAD_UNIT);
                }
                if !plan
                    .get("numBillingCycles")
                    .and_then(Value::as_i64)
                    .is_some_and(|n| (0..=999).contains(&n))
                {
                    bad(format!("{at}.numBillingCycles"), BAD_CYCLES);
                }
            }
            _ => bad(at.into(), NO_PLAN),
        }
    }
    check_options(item, &mut bad);
    // SPEC.md §9: categories and tags.
    for (i, c) in item.categories.iter().enumerate() {
        let at = format!("categories[{i}]");
        let known = old.is_some_and(|o| o.categories.contains(c));
        if c.chars().count() > MAX_CATEGORY {
            bad(at, LONG_CATEGORY);
        } else if item.categories[..i].contains(c) {
            bad(at, CATEGORY_TWICE);
        } else if !known && !categories.iter().any(|k| &k.display_name == c) {
            bad(at, NO_CATEGORY);
        }
    }
    for (i, t) in item.tags.iter().enumerate() {
        if t.chars().count() > MAX_TAG {
            bad(format!("tags[{i}]"), LONG_TAG);
        } else if item.tags[..i].contains(t) {
            bad(format!("tags[{i}]"), TAG_TWICE);
        }
    }
}

fn check_options(item: &Item, bad: &mut impl FnMut(String, &str)) {
    let ordering = match item.structured_content.get("variantOptionOrdering") {
        None | Some(Value::Null) => return,
        Some(o) => o,
    };
    let at = "structuredContent.variantOptionOrdering";
    let Some(names) = ordering
        .as_array()
        .and_then(|l| l.iter().map(Value::as_str).collect::<Option<Vec<&str>>>())
    else {
        bad(at.into(), NOT_OPTIONS);
        return;
    };
    if names.len() > MAX_OPTIONS {
        bad(at.into(), TOO_MANY_OPTIONS);
        return;
    }
    let mut fine = true;
    for (i, n) in names.iter().enumerate() {
        if n.trim().is_empty() || n.chars().count() > 50 {
            bad(format!("{at}[{i}]"), BAD_OPTION);
            fine = false;
        } else if names[..i].contains(n) {
            bad(format!("{at}[{i}]"), OPTION_TWICE);
            fine = false;
        }
    }
    if !fine {
        return;
    }
    let mut seen: Vec<Vec<&str>> = Vec::new();
    for (i, v) in item.variants.iter().enumerate() {
        let at = format!("variants[{i}].attributes");
        let keys_match = v.attributes.len() == names.len()
            && names.iter().all(|n| v.attributes.contains_key(*n));
        if !keys_match {
            let message = format!(
                "Each variant has a value for each option, and only those: {}.",
                names.join(", ")
            );
            bad(at, &message);
            continue;
        }
        if v.attributes
            .values()
            .any(|x| x.trim().is_empty() || x.chars().count() > 50)
        {
            bad(at, BAD_OPTION_VALUE);
            continue;
        }
        let values: Vec<&str> = names.iter().map(|n| v.attributes[*n].as_str()).collect();
        if seen.contains(&values) {
            bad(at, SAME_OPTIONS);
        }
        seen.push(values);
    }
}

/// The additional-fields form a product names, embedded as checkout reads it
/// (`structuredContent.additionalFieldsForm` `{id, name, fields}`): one of the site's
/// `forms`, or the one it already had. An empty id takes it off.
pub fn set_additional_fields(
    item: &mut Item,
    old: Option<&Item>,
    forms: &[tenants::Form],
    errors: &mut Map<String, Value>,
) {
    let sc = &mut item.structured_content;
    let id = match sc.get("additionalFieldsFormId") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if s.trim().is_empty() => None,
        Some(Value::String(s)) => Some(s.trim().to_owned()),
        Some(_) => {
            errors.insert(
                "structuredContent.additionalFieldsFormId".into(),
                NO_FORM.into(),
            );
            return;
        }
    };
    let Some(id) = id else {
        sc.remove("additionalFieldsFormId");
        sc.remove("additionalFieldsForm");
        return;
    };
    if let Some(f) = forms.iter().find(|f| f.id == id) {
        sc.insert("additionalFieldsFormId".into(), id.into());
        sc.insert(
            "additionalFieldsForm".into(),
            json!({"id": f.id, "name": f.name, "fields": f.fields}),
        );
        return;
    }
    let kept = old.and_then(|o| {
        let same =
            o.structured_content.get("additionalFieldsFormId")? == &Value::String(id.clone());
        same.then(|| o.structured_content.get("additionalFieldsForm").cloned())?
    });
    match kept {
        Some(form) => {
            sc.insert("additionalFieldsForm".into(), form);
        }
        None => {
            errors.insert(
                "structuredContent.additionalFieldsFormId".into(),
                NO_FORM.into(),
            );
        }
    }
}
