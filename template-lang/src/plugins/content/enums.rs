//! The platform enumerations the content and slide plugins test against: numeric codes
//! as they appear in content data, with the names templates use for them.
//!
//! These are the template engine's tables (SPEC.md §3 "Enumerations", as far as the
//! engine knows them). The product knows a few more values (record types lesson 62 and
//! course item 63, collection types up to 25, folder behaviour "variation", slice types
//! such as "sub-heading"); the reference engines do not, and predicate names are derived
//! from these tables, so adding them would register predicates real templates cannot use
//! on the reference. They are therefore deliberately absent.

/// One enumeration value: its code in the data and its name in templates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnumValue {
    pub code: i32,
    pub name: &'static str,
}

const fn v(code: i32, name: &'static str) -> EnumValue {
    EnumValue { code, name }
}

/// Finds a value by its template name (exact spelling).
pub fn from_name(table: &[EnumValue], name: &str) -> Option<EnumValue> {
    table.iter().copied().find(|e| e.name == name)
}

/// Finds a value by its code.
pub fn from_code(table: &[EnumValue], code: f64) -> Option<EnumValue> {
    table.iter().copied().find(|e| f64::from(e.code) == code)
}

pub mod record_type {
    use super::{EnumValue, v};

    pub const UNDEFINED: EnumValue = v(-1, "undefined");
    pub const TEXT: EnumValue = v(1, "text");
    pub const IMAGE: EnumValue = v(2, "image");
    pub const QUOTE: EnumValue = v(4, "quote");
    pub const LINK: EnumValue = v(5, "link");
    pub const AUDIO: EnumValue = v(7, "audio");
    pub const VIDEO: EnumValue = v(8, "video");
    pub const STORE_ITEM: EnumValue = v(11, "store-item");
    pub const EVENT: EnumValue = v(12, "event");
    pub const GALLERY: EnumValue = v(14, "gallery");
    pub const BINARY: EnumValue = v(15, "binary");
    pub const CSS_ASSET: EnumValue = v(16, "css-asset");
    pub const TWEAK_ASSET: EnumValue = v(17, "tweak-asset");
    pub const DIGITAL_GOOD: EnumValue = v(18, "digital-good");
    pub const ATTACHMENT: EnumValue = v(19, "attachment");
    pub const EXPORT_WORDPRESS: EnumValue = v(20, "wordpress-export");
    pub const EXPORT_INTERNAL: EnumValue = v(21, "json-export");
    pub const SITE_SEARCH: EnumValue = v(30, "site-search");
    pub const ACTIVE_TIME: EnumValue = v(31, "active-time");
    pub const TWEET: EnumValue = v(50, "tweet");
    pub const CHECKIN: EnumValue = v(52, "checkin");
    pub const KBARTICLE: EnumValue = v(54, "kbarticle");

    /// Every record type, by code.
    pub const ALL: &[EnumValue] = &[
        UNDEFINED,
        TEXT,
        IMAGE,
        QUOTE,
        LINK,
        AUDIO,
        VIDEO,
        STORE_ITEM,
        EVENT,
        GALLERY,
        BINARY,
        CSS_ASSET,
        TWEAK_ASSET,
        DIGITAL_GOOD,
        ATTACHMENT,
        EXPORT_WORDPRESS,
        EXPORT_INTERNAL,
        SITE_SEARCH,
        ACTIVE_TIME,
        TWEET,
        CHECKIN,
        KBARTICLE,
    ];
}

pub mod collection_type {
    use super::{EnumValue, v};

    pub const UNDEFINED: EnumValue = v(-1, "undefined");
    pub const GENERIC: EnumValue = v(1, "generic");
    pub const SUBSCRIPTION: EnumValue = v(2, "subscription");
    pub const TWITTER: EnumValue = v(3, "twitter");
    pub const FOURSQUARE: EnumValue = v(4, "foursquare");
    pub const INSTAGRAM: EnumValue = v(5, "instagram");
    pub const GALLERY_BLOCK: EnumValue = v(6, "gallery-block");
    pub const TEMPLATE_PAGE: EnumValue = v(7, "template-page");
    pub const SPLASH_PAGE: EnumValue = v(8, "splash-page");
    pub const PAGE: EnumValue = v(10, "page");
    pub const FIVEHUNDREDPIX: EnumValue = v(11, "fivehundredpix");
    pub const FLICKR: EnumValue = v(12, "flickr");
    pub const PRODUCTS: EnumValue = v(13, "products");
    pub const SLIDE_GALLERY: EnumValue = v(15, "slide-gallery");
    pub const SLIDE_ALBUM: EnumValue = v(16, "slide-album");
    pub const SLIDE_VIDEO: EnumValue = v(17, "slide-video");
    pub const ALBUM_BLOCK: EnumValue = v(18, "album-block");

    pub const ALL: &[EnumValue] = &[
        UNDEFINED,
        GENERIC,
        SUBSCRIPTION,
        TWITTER,
        FOURSQUARE,
        INSTAGRAM,
        GALLERY_BLOCK,
        TEMPLATE_PAGE,
        SPLASH_PAGE,
        PAGE,
        FIVEHUNDREDPIX,
        FLICKR,
        PRODUCTS,
        SLIDE_GALLERY,
        SLIDE_ALBUM,
        SLIDE_VIDEO,
        ALBUM_BLOCK,
    ];
}

pub mod folder_behavior {
    use super::{EnumValue, v};

    pub const UNDEFINED: EnumValue = v(-1, "undefined");
    pub const INDEX: EnumValue = v(1, "index");
    pub const REDIRECT: EnumValue = v(2, "redirect");
    pub const NONE: EnumValue = v(3, "none");

    pub const ALL: &[EnumValue] = &[UNDEFINED, INDEX, REDIRECT, NONE];
}

pub mod background_source {
    use super::{EnumValue, v};

    pub const UNDEFINED: EnumValue = v(-1, "undefined");
    pub const UPLOAD: EnumValue = v(1, "upload");
    pub const INSTAGRAM: EnumValue = v(2, "instagram");
    pub const VIDEO: EnumValue = v(3, "video");
    pub const NONE: EnumValue = v(4, "none");

    pub const ALL: &[EnumValue] = &[UNDEFINED, UPLOAD, INSTAGRAM, VIDEO, NONE];
}

pub mod product_type {
    use super::{EnumValue, v};

    pub const UNDEFINED: EnumValue = v(-1, "undefined");
    pub const PHYSICAL: EnumValue = v(1, "physical");
    pub const DIGITAL: EnumValue = v(2, "digital");
    pub const SERVICE: EnumValue = v(3, "service");
    pub const GIFT_CARD: EnumValue = v(4, "gift-card");

    pub const ALL: &[EnumValue] = &[UNDEFINED, PHYSICAL, DIGITAL, SERVICE, GIFT_CARD];
}

/// Block types: only the image block matters to the content plugins (its alt text).
pub mod block_type {
    use super::{EnumValue, v};

    pub const IMAGE: EnumValue = v(5, "image");
}

/// Kinds of slice on cover pages (`current-type?`).
pub mod slice_type {
    use super::{EnumValue, v};

    pub const ALL: &[EnumValue] = &[
        v(-1, "undefined"),
        v(1, "heading"),
        v(3, "body"),
        v(4, "image"),
        v(5, "gallery"),
        v(6, "video"),
        v(7, "social-icons"),
        v(8, "buttons"),
        v(9, "navigation"),
        v(10, "custom-form"),
        v(11, "newsletter"),
        v(12, "album"),
        v(13, "map"),
        v(14, "logo"),
        v(15, "action"),
        v(16, "form"),
        v(17, "lock"),
        v(18, "password"),
        v(19, "twitter"),
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        assert_eq!(
            from_name(slice_type::ALL, "social-icons").map(|e| e.code),
            Some(7)
        );
        assert_eq!(from_name(slice_type::ALL, "sub-heading"), None);
        assert_eq!(from_name(slice_type::ALL, "constructor"), None);
        assert_eq!(
            from_code(record_type::ALL, 11.0),
            Some(record_type::STORE_ITEM)
        );
        assert_eq!(from_code(record_type::ALL, 11.5), None);
        assert_eq!(from_code(product_type::ALL, f64::NAN), None);
        assert_eq!(
            from_code(folder_behavior::ALL, 2.0),
            Some(folder_behavior::REDIRECT)
        );
        assert_eq!(
            from_code(background_source::ALL, 4.0),
            Some(background_source::NONE)
        );
        assert_eq!(
            from_code(collection_type::ALL, 7.0),
            Some(collection_type::TEMPLATE_PAGE)
        );
    }

    #[test]
    fn codes_are_unique() {
        for table in [
            record_type::ALL,
            collection_type::ALL,
            folder_behavior::ALL,
            background_source::ALL,
            product_type::ALL,
            slice_type::ALL,
        ] {
            for (i, a) in table.iter().enumerate() {
                for b in &table[i + 1..] {
                    assert_ne!(a.code, b.code);
                    assert_ne!(a.name, b.name);
                }
            }
        }
    }
}
