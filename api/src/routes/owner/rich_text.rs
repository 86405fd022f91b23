//! Owners' rich text (a post's or event's `body` and `excerpt`, a product's description, a
//! page's `mainContent`) as it is stored: sanitized on the server, whatever sent it.
//!
//! The owner app's editor writes plain HTML (paragraphs, headings, lists, quotes, links,
//! images, line breaks). Before it is stored it goes through [`sanitize`], an allow-list
//! (the `ammonia` crate on html5ever, so what is kept is what a browser would parse):
//!
//! | kept | attributes |
//! |---|---|
//! | `p h1 h2 h3 h4 h5 h6 blockquote ul ol li br hr strong b em i u s del code pre figure figcaption span div` | `class` |
//! | `a` | `href` (`http:`, `https:`, `mailto:`, `tel:` or a path on the site), `title`, `target`; `rel="noopener"` is added |
//! | `img` | `src` (the same schemes), `alt` (kept even when empty: a decorative image), `title`, `width`, `height` |
//! | `ol` | `start` |
//! | `div` | `data-block-type` (only `9`) and `data-form-id` (a form id: letters, digits, `-`, `_`): the editor's form block (see [`crate::pages::site_bridge::form_blocks`]), which the site fills with the form |
//!
//! Everything else goes: `<script>`, `<style>` and `<iframe>` with their content, every other
//! element keeping its text, every `on…` handler, `style`, and any link or image whose URL
//! has another scheme (`javascript:`, `data:` …). Templates print `body` raw, so this is
//! what makes an owner's text safe to print; an owner's content is trusted for their own
//! site, but never to run script in a visitor's (or another owner's) browser.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use crate::pages::site_bridge::form_blocks;

static CLEANER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let mut b = ammonia::Builder::empty();
    b.tags(HashSet::from([
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "ul",
        "ol",
        "li",
        "br",
        "hr",
        "strong",
        "b",
        "em",
        "i",
        "u",
        "s",
        "del",
        "code",
        "pre",
        "figure",
        "figcaption",
        "span",
        "div",
        "a",
        "img",
    ]))
    .clean_content_tags(HashSet::from(["script", "style", "iframe", "template"]))
    .generic_attributes(HashSet::from(["class"]))
    .tag_attributes(HashMap::from([
        ("a", HashSet::from(["href", "title", "target"])),
        (
            "img",
            HashSet::from(["src", "alt", "title", "width", "height"]),
        ),
        ("ol", HashSet::from(["start"])),
        ("div", HashSet::from(["data-block-type", "data-form-id"])),
    ]))
    // A form block's attributes hold only what names a form.
    .attribute_filter(|element, attribute, value| match (element, attribute) {
        ("div", "data-block-type") => (value == form_blocks::BLOCK_TYPE).then_some(value.into()),
        ("div", "data-form-id") => form_blocks::valid_id(value).then_some(value.into()),
        _ => Some(value.into()),
    })
    .url_schemes(HashSet::from(["http", "https", "mailto", "tel"]))
    .url_relative(ammonia::UrlRelative::PassThrough)
    .link_rel(Some("noopener"))
    .strip_comments(true);
    b
});

/// `html` with only what the allow-list keeps (see the module's table).
pub fn sanitize(html: &str) -> String {
    if html.is_empty() {
        return String::new();
    }
    CLEANER.clean(html).to_string()
}

#[cfg(test)]
mod tests {
    use super::sanitize;

    #[test]
    fn keeps_what_the_editor_writes() {
        let html = "<h2>Kiln day</h2><p>We <strong>fired</strong> <em>41</em> pieces. \
            <a href=\"https://example.com/x\">More</a></p><ul><li>one</li></ul>\
            <blockquote><p>quote</p></blockquote>\
            <img src=\"/api/assets/abc/kiln.png\" alt=\"The kiln\"><img src=\"/a.png\" alt=\"\">";
        let clean = sanitize(html);
        assert!(clean.contains("<h2>Kiln day</h2>"), "{clean}");
        assert!(clean.contains("<strong>fired</strong>"), "{clean}");
        assert!(
            clean.contains("<a href=\"https://example.com/x\" rel=\"noopener\">More</a>"),
            "{clean}"
        );
        assert!(
            clean.contains("<img src=\"/api/assets/abc/kiln.png\" alt=\"The kiln\">"),
            "{clean}"
        );
        // A decorative image keeps its empty alt.
        assert!(clean.contains("<img src=\"/a.png\" alt=\"\">"), "{clean}");
    }

    #[test]
    fn drops_script_handlers_and_bad_urls() {
        let clean = sanitize(
            "<p onclick=\"x()\" style=\"color:red\">Hi<script>alert(1)</script></p>\
             <img src=\"x\" onerror=\"alert(2)\" alt=\"a\">\
             <a href=\"javascript:alert(3)\">go</a><a href=\"JaVaScRiPt:alert(4)\">go</a>\
             <iframe src=\"https://evil.example\"></iframe><svg><script>alert(5)</script></svg>\
             <img src=\"data:text/html;base64,PHNjcmlwdD4=\" alt=\"d\">",
        );
        for bad in [
            "script",
            "onclick",
            "onerror",
            "style",
            "javascript",
            "iframe",
            "alert",
            "data:",
            "svg",
        ] {
            assert!(
                !clean.to_ascii_lowercase().contains(bad),
                "{bad} in {clean}"
            );
        }
        assert!(clean.contains("<p>Hi</p>"), "{clean}");
    }

    #[test]
    fn keeps_a_form_block_and_nothing_more() {
        let block = "<div class=\"sqs-block form-block sqs-block-form\" data-block-type=\"9\" data-form-id=\"a11ce5000000000000c0f0e1\"></div>";
        assert_eq!(sanitize(block), block);
        let clean = sanitize(
            "<div data-block-type=\"2\" data-form-id=\"x\\\" onload=\" data-src=\"y\" onclick=\"z\"></div>\
             <p data-form-id=\"f\">t</p>",
        );
        for bad in [
            "data-block-type",
            "data-form-id",
            "onload",
            "onclick",
            "data-src",
        ] {
            assert!(!clean.contains(bad), "{bad} in {clean}");
        }
    }

    #[test]
    fn empty_stays_empty() {
        assert_eq!(sanitize(""), "");
    }
}
