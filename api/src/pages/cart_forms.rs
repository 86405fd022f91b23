//! The cart without JavaScript (issue 42, item 6): a page's Add To Cart and the cart page's
//! quantity and remove are real form posts, which the islands enhance.
//!
//! The commerce formatters print the reference engine's markup (`add-to-cart-btn`,
//! `variants-select`, `quantity-input`: TEMPLATE-PLATFORM.md, checked against the
//! reference in `template-lang`), whose button is a `<div role="button">`. On the way out,
//! where the visitor's crumb is known, [`add_forms`] makes each of those buttons a submit
//! button of a form of its own, and the product's option selects (and their radio twins) and
//! quantity input that come before it (the same `data-item-id`) fields of that form, through
//! the `form` attribute: no element moves, so what templates style stays as it was (the
//! wrapper keeps its button as its child, the classes and data attributes stay). The form
//! itself is `hidden`, inside the button's wrapper: its crumb, the item, the page to come
//! back to. A button of a product with an additional-fields form (class `use-form`) is left
//! alone: its questions are asked by the island.
//!
//! Every form posting to the cart's form routes ([`FORM_PREFIX`]: the one above and the cart
//! page's, `renderer/templates/cart.html`) gets the crumb as a hidden field.
//!
//! A refused post comes back to its page with the message in the query, signed with the
//! tenant's secret ([`message_query`]), so no one can make a site's page say what they like;
//! the page shows it above the item's button, or at the top of the cart.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::http::signing::{sign, verify};
use crate::http::small_page::escape;

/// Where the cart's form posts go.
pub const FORM_PREFIX: &str = "/api/commerce/shopping-cart/form/";
/// The add post's route.
pub const FORM_ADD: &str = "/api/commerce/shopping-cart/form/add";

/// The query parameters of a refused post's message: the text, what it is about (an item
/// id, empty for the cart page) and its signature.
pub const MESSAGE_PARAM: &str = "cart-error";
pub const FOR_PARAM: &str = "cart-error-for";
pub const SIG_PARAM: &str = "cart-error-sig";
const PURPOSE: &str = "cart-message";

/// The query (without `?`) that makes a page show `message` about `target`.
pub fn message_query(secret: &[u8; 32], target: &str, message: &str) -> String {
    let sig = sign(secret, PURPOSE, &format!("{target}\n{message}"));
    form_urlencoded::Serializer::new(String::new())
        .append_pair(MESSAGE_PARAM, message)
        .append_pair(FOR_PARAM, target)
        .append_pair(SIG_PARAM, &sig)
        .finish()
}

/// `path` with `message` about `target` in its query.
pub fn with_message(path: &str, secret: &[u8; 32], target: &str, message: &str) -> String {
    let sep = if path.contains('?') { '&' } else { '?' };
    format!("{path}{sep}{}", message_query(secret, target, message))
}

/// A message a page shows: what it is about (an item id; empty: the cart) and its text.
#[derive(Debug, PartialEq)]
pub struct Message {
    pub target: String,
    pub text: String,
}

/// The signed message in a page's query, if its signature holds.
pub fn message_of(secret: &[u8; 32], query: &str) -> Option<Message> {
    let (mut text, mut target, mut sig) = (None, String::new(), None);
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        match &*k {
            MESSAGE_PARAM => text = Some(v.into_owned()),
            FOR_PARAM => target = v.into_owned(),
            SIG_PARAM => sig = Some(v.into_owned()),
            _ => {}
        }
    }
    let text = text?;
    verify(secret, PURPOSE, &format!("{target}\n{text}"), &sig?).then_some(Message { target, text })
}

/// The page's path and query without a message's parameters: where its forms come back to.
pub fn back_path(path: &str, query: &str) -> String {
    let kept: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .filter(|(k, _)| ![MESSAGE_PARAM, FOR_PARAM, SIG_PARAM].contains(&&**k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if kept.is_empty() {
        return path.to_owned();
    }
    let q = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(kept)
        .finish();
    format!("{path}?{q}")
}

/// What a page's forms carry.
pub struct FormFacts<'a> {
    /// The visitor's crumb (their cookie's, or the one this page view sets).
    pub crumb: &'a str,
    /// The page's path and query ([`back_path`]).
    pub back: &'a str,
    /// A refused post's message, to show.
    pub message: Option<&'a Message>,
}

/// The end of the tag starting at `start` (the index just past its `>`), quotes respected.
fn tag_end(html: &str, start: usize) -> Option<usize> {
    let mut quote = None;
    for (i, b) in html.as_bytes()[start..].iter().enumerate() {
        match (quote, *b) {
            (None, b'"' | b'\'') => quote = Some(*b),
            (Some(q), c) if c == q => quote = None,
            (None, b'>') => return Some(start + i + 1),
            _ => {}
        }
    }
    None
}

/// The raw (still escaped) value of attribute `name` in a tag's text: the first ` name="`.
/// Tags are short: each space is tried, with no searcher built and no key formatted (this
/// runs several times per button on every page).
fn attr<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let b = tag.as_bytes();
    for space in memchr::memchr_iter(b' ', b) {
        let rest = &b[space + 1..];
        if rest.starts_with(name.as_bytes()) && rest[name.len()..].starts_with(b"=\"") {
            let value = space + 1 + name.len() + 2;
            let end = memchr::memchr(b'"', &b[value..])?;
            return Some(&tag[value..value + end]);
        }
    }
    None
}

/// The searchers of the needles every page is scanned for, built once: a page's markup is
/// searched several times over on its way out, and the standard library's `str::find`
/// builds a two-way searcher per call and runs without SIMD (it was a tenth of a product
/// page's server time, benches/README.md).
struct Needles {
    button: Finder<'static>,
    variants: Finder<'static>,
    quantity: Finder<'static>,
    form_prefix: Finder<'static>,
    form: Finder<'static>,
}

static NEEDLES: LazyLock<Needles> = LazyLock::new(|| Needles {
    button: Finder::new(BUTTON_OPEN),
    variants: Finder::new(VARIANTS_OPEN),
    quantity: Finder::new(QUANTITY_OPEN),
    form_prefix: Finder::new(FORM_PREFIX),
    form: Finder::new("<form "),
});

/// An id fit to name a form: what item ids are made of.
fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Variants,
    Quantity,
    Button,
}

/// One piece of a product's checkout markup found on the page.
struct Found {
    kind: Kind,
    item: String,
    /// Where its opening tag starts and ends.
    start: usize,
    end: usize,
}

const BUTTON_OPEN: &str = "<div class=\"sqs-add-to-cart-button ";
const VARIANTS_OPEN: &str = "<div class=\"product-variants\" ";
const QUANTITY_OPEN: &str = "<div class=\"product-quantity-input\" ";
const INNER_OPEN: &str = "<div class=\"sqs-add-to-cart-button-inner\">";

/// The checkout pieces of a page, in order.
fn pieces(html: &str) -> Vec<Found> {
    let mut out = Vec::new();
    let n = &*NEEDLES;
    for (open, kind) in [
        (&n.button, Kind::Button),
        (&n.variants, Kind::Variants),
        (&n.quantity, Kind::Quantity),
    ] {
        let mut from = 0;
        while let Some(at) = open.find(&html.as_bytes()[from..]) {
            let start = from + at;
            let Some(end) = tag_end(html, start) else {
                break;
            };
            from = end;
            if let Some(item) = attr(&html[start..end], "data-item-id").filter(|i| plain_id(i)) {
                out.push(Found {
                    kind,
                    item: item.to_owned(),
                    start,
                    end,
                });
            }
        }
    }
    out.sort_by_key(|f| f.start);
    out
}

/// Where the button opening at `end` closes: the start of its `</div>` (after its inner
/// label), if it is the formatter's markup.
fn button_close(html: &str, end: usize) -> Option<usize> {
    let rest = &html[end..];
    let inner = rest.len() - rest.trim_start().len();
    if !rest[inner..].starts_with(INNER_OPEN) {
        return None;
    }
    let label = inner + INNER_OPEN.len();
    let inner_close = label + rest[label..].find("</div>")? + "</div>".len();
    let gap = rest[inner_close..].len() - rest[inner_close..].trim_start().len();
    rest[inner_close + gap..]
        .starts_with("</div>")
        .then_some(end + inner_close + gap)
}

/// An edit: replace `range` of the page with `text`.
struct Edit {
    at: usize,
    len: usize,
    text: String,
}

/// Makes the page's Add To Cart buttons form posts and gives every cart form the crumb
/// (see the module docs). Whether the page now carries the crumb.
pub fn add_forms(body: &mut String, facts: &FormFacts<'_>) -> bool {
    let needles = &*NEEDLES;
    if needles.button.find(body.as_bytes()).is_none()
        && needles.form_prefix.find(body.as_bytes()).is_none()
    {
        return false;
    }
    let crumb_field = format!(
        "<input type=\"hidden\" name=\"crumb\" value=\"{}\">",
        escape(facts.crumb)
    );
    let found = pieces(body);
    // Groups: runs of pieces of one item, each kind at most once (the variants, quantity
    // and button of one `product-checkout`, or of a template's own arrangement).
    let mut groups: Vec<Vec<&Found>> = Vec::new();
    for f in &found {
        match groups.last_mut() {
            Some(g) if g[0].item == f.item && g.iter().all(|x| x.kind != f.kind) => g.push(f),
            _ => groups.push(vec![f]),
        }
    }
    let mut edits: Vec<Edit> = Vec::new();
    let mut n = 0;
    for group in &groups {
        let Some(button) = group.iter().find(|f| f.kind == Kind::Button) else {
            continue;
        };
        let tag = &body[button.start..button.end];
        if attr(tag, "class").is_some_and(|c| c.split(' ').any(|c| c == "use-form")) {
            continue;
        }
        let Some(close) = button_close(body, button.end) else {
            continue;
        };
        n += 1;
        let id = format!("tessera-cart-add-{n}");
        let purpose = if attr(tag, "data-is-subscription") == Some("true") {
            "subscription"
        } else if attr(tag, "data-product-type") == Some("4") {
            "gift-card"
        } else {
            "cart"
        };
        // By its item's button; about an item not on the page (no longer sold, or never
        // this site's), by the first.
        let message = facts
            .message
            .filter(|m| {
                !m.target.is_empty()
                    && (m.target == button.item
                        || (n == 1 && !found.iter().any(|f| f.item == m.target)))
            })
            .map_or_else(String::new, |m| {
                format!(
                    "<p class=\"tessera-cart-message\" role=\"alert\">{}</p>",
                    escape(&m.text)
                )
            });
        edits.push(Edit {
            at: button.start,
            len: "<div".len(),
            text: format!(
                "{message}<form id=\"{id}\" class=\"tessera-cart-form\" method=\"post\" action=\"{FORM_ADD}\" hidden>{crumb_field}\
                 <input type=\"hidden\" name=\"itemId\" value=\"{}\">\
                 <input type=\"hidden\" name=\"purchase\" value=\"{purpose}\">\
                 <input type=\"hidden\" name=\"back\" value=\"{}\"></form>\
                 <button type=\"submit\" form=\"{id}\"",
                button.item,
                escape(facts.back)
            ),
        });
        edits.push(Edit {
            at: close,
            len: "</div>".len(),
            text: "</button>".to_owned(),
        });
        for piece in group {
            let region_end = found
                .iter()
                .find(|f| f.start > piece.start)
                .map_or(body.len(), |f| f.start);
            let region = &body[piece.end..region_end];
            match piece.kind {
                Kind::Button => {}
                Kind::Variants => {
                    let mut from = 0;
                    while let Some(at) = region[from..].find('<') {
                        let start = from + at;
                        let Some(end) = tag_end(region, start) else {
                            break;
                        };
                        from = end;
                        let t = &region[start..end];
                        let name = attr(t, "data-variant-option-name");
                        let field = if t.starts_with("<select ") && name.is_some() {
                            format!(
                                " name=\"variant-option-{}\" form=\"{id}\"",
                                name.unwrap_or_default()
                            )
                        } else if t.starts_with("<input ")
                            && attr(t, "class") == Some("variant-radiobtn")
                        {
                            format!(" form=\"{id}\"")
                        } else {
                            continue;
                        };
                        let close = if t.ends_with("/>") { 2 } else { 1 };
                        edits.push(Edit {
                            at: piece.end + end - close,
                            len: 0,
                            text: field,
                        });
                    }
                }
                Kind::Quantity => {
                    if let Some(at) = region.find("<input ")
                        && let Some(end) = tag_end(region, at)
                        && attr(&region[at..end], "type") == Some("number")
                    {
                        edits.push(Edit {
                            at: piece.end + end - 1,
                            len: 0,
                            text: format!(" name=\"quantity\" form=\"{id}\""),
                        });
                    }
                }
            }
        }
    }
    // The cart's message, at the top of the cart.
    if let Some(m) = facts.message.filter(|m| m.target.is_empty())
        && let Some(at) = body.find("id=\"sqs-cart-root\"")
        && let Some(start) = body[..at].rfind('<')
        && let Some(end) = tag_end(body, start)
    {
        edits.push(Edit {
            at: end,
            len: 0,
            text: format!(
                "<p class=\"tessera-cart-message\" role=\"alert\">{}</p>",
                escape(&m.text)
            ),
        });
    }
    // Every other cart form's crumb.
    let mut from = 0;
    while let Some(at) = needles.form.find(&body.as_bytes()[from..]) {
        let start = from + at;
        let Some(end) = tag_end(body, start) else {
            break;
        };
        from = end;
        if attr(&body[start..end], "action").is_some_and(|a| a.starts_with(FORM_PREFIX)) {
            edits.push(Edit {
                at: end,
                len: 0,
                text: crumb_field.clone(),
            });
        }
    }
    let carries = edits.iter().any(|e| e.text.contains(&crumb_field));
    *body = apply(body, &edits);
    carries
}

/// The page with its edits made, in one pass. Edits at one place come out in the reverse of
/// the order they were made in: each is put in front of those before it.
fn apply(body: &str, edits: &[Edit]) -> String {
    let grown: usize = edits.iter().map(|e| e.text.len()).sum();
    let mut out = String::with_capacity(body.len() + grown);
    let mut order: Vec<(usize, &Edit)> = edits.iter().enumerate().collect();
    order.sort_by_key(|&(made, e)| (e.at, std::cmp::Reverse(made)));
    let mut cursor = 0;
    for (_, e) in order {
        out.push_str(&body[cursor..e.at]);
        out.push_str(&e.text);
        cursor = e.at + e.len;
    }
    out.push_str(&body[cursor..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attribute_is_a_whole_name_after_a_space() {
        let tag = r#"<div data-item-id="d" item-id="i" class="c" x="item-id=&quot;no">"#;
        assert_eq!(attr(tag, "item-id"), Some("i"));
        assert_eq!(attr(tag, "data-item-id"), Some("d"));
        assert_eq!(attr(tag, "class"), Some("c"));
        assert_eq!(attr(tag, "id"), None);
        assert_eq!(attr(r#"<div class="unclosed>"#, "class"), None);
    }

    #[test]
    fn edits_at_one_place_come_out_newest_first() {
        let edit = |at, len, text: &str| Edit {
            at,
            len,
            text: text.to_owned(),
        };
        let edits = [
            edit(4, 2, "[X]"),
            edit(0, 0, "a"),
            edit(4, 0, "1"),
            edit(4, 0, "2"),
            edit(8, 0, "!"),
        ];
        assert_eq!(apply("abcdefgh", &edits), "aabcd21[X]gh!");
    }

    /// What `product-checkout` prints (template-lang's reference markup).
    const CHECKOUT: &str = r#"<div class="product-variants" data-item-id="v1" data-variants="[]" data-animation-role="content">
    <div class="variant-option">
    <div class="variant-select-wrapper">
      <select aria-label="Select Size" data-variant-option-name="Size">
        <option value="">Select Size</option>
        <option value="S">S</option><option value="M">M</option>
      </select>
    </div>
    <div class="variant-radiobtn-wrapper" data-variant-option-name="Size">
      <input type="radio" class="variant-radiobtn" value="S" name="variant-option-Size" id="variant-option-Size-S"/>
      <label class="sqs-button-element--secondary" role="button" tabindex="0" for="variant-option-Size-S">S</label>
    </div>
    </div>
  </div>
<div class="product-quantity-input" data-item-id="v1" data-animation-role="content">
  <div class="quantity-label">Quantity:</div>
  <input aria-label="Quantity" size="4" max="9999" min="1" value="1" type="number" step="1"></input>
</div>
<div class="sqs-add-to-cart-button-wrapper" data-animation-role="button">
  <div class="sqs-add-to-cart-button sqs-suppress-edit-mode sqs-editable-button sqs-button-element--primary " role="button" tabindex="0" data-dynamic-strings data-collection-id="" data-item-id="v1" data-product-type="1" data-use-custom-label="" data-original-label="Add &lt;To&gt; Cart" >
    <div class="sqs-add-to-cart-button-inner">Add &lt;To&gt; Cart</div>
  </div>
</div>"#;

    fn facts<'a>(message: Option<&'a Message>) -> FormFacts<'a> {
        FormFacts {
            crumb: "c0ffee",
            back: "/shop/pot?a=1&b=\"2\"",
            message,
        }
    }

    #[test]
    fn a_product_checkout_becomes_one_form_post() {
        let mut page = format!("<main>{CHECKOUT}</main>");
        assert!(add_forms(&mut page, &facts(None)));
        let form = "<form id=\"tessera-cart-add-1\" class=\"tessera-cart-form\" method=\"post\" \
            action=\"/api/commerce/shopping-cart/form/add\" hidden>\
            <input type=\"hidden\" name=\"crumb\" value=\"c0ffee\">\
            <input type=\"hidden\" name=\"itemId\" value=\"v1\">\
            <input type=\"hidden\" name=\"purchase\" value=\"cart\">\
            <input type=\"hidden\" name=\"back\" value=\"/shop/pot?a=1&amp;b=&quot;2&quot;\"></form>";
        assert!(page.contains(form), "{page}");
        assert!(
            page.contains(&format!("{form}<button type=\"submit\" form=\"tessera-cart-add-1\" class=\"sqs-add-to-cart-button sqs-suppress-edit-mode")),
            "{page}"
        );
        assert!(
            page.contains("<div class=\"sqs-add-to-cart-button-inner\">Add &lt;To&gt; Cart</div>\n  </button>\n</div>"),
            "{page}"
        );
        assert!(
            page.contains("<select aria-label=\"Select Size\" data-variant-option-name=\"Size\" name=\"variant-option-Size\" form=\"tessera-cart-add-1\">"),
            "{page}"
        );
        assert!(
            page.contains("id=\"variant-option-Size-S\" form=\"tessera-cart-add-1\"/>"),
            "{page}"
        );
        assert!(
            page.contains(
                "type=\"number\" step=\"1\" name=\"quantity\" form=\"tessera-cart-add-1\"></input>"
            ),
            "{page}"
        );
        // Nothing else moved: the markup is the same once the additions are taken out.
        let undone = page
            .replace(
                " name=\"variant-option-Size\" form=\"tessera-cart-add-1\"",
                "",
            )
            .replace(" name=\"quantity\" form=\"tessera-cart-add-1\"", "")
            .replace(" form=\"tessera-cart-add-1\"", "")
            .replace(form, "")
            .replace("<button type=\"submit\"", "<div")
            .replace("</button>", "</div>");
        assert_eq!(undone, format!("<main>{CHECKOUT}</main>"));
    }

    #[test]
    fn each_product_gets_its_own_form_and_message() {
        let two = format!("{CHECKOUT}{}", CHECKOUT.replace("v1", "v2"));
        let m = Message {
            target: "v2".into(),
            text: "Please select the <Size> option.".into(),
        };
        let mut page = two.clone();
        add_forms(&mut page, &facts(Some(&m)));
        assert_eq!(
            page.matches("form=\"tessera-cart-add-1\"").count(),
            4,
            "{page}"
        );
        assert_eq!(
            page.matches("form=\"tessera-cart-add-2\"").count(),
            4,
            "{page}"
        );
        assert_eq!(page.matches("tessera-cart-message").count(), 1);
        let at = page.find("tessera-cart-message").unwrap();
        assert!(at > page.find("id=\"tessera-cart-add-1\"").unwrap());
        assert!(
            page.contains("role=\"alert\">Please select the &lt;Size&gt; option.</p><form id=\"tessera-cart-add-2\""),
            "{page}"
        );
        // About an item not on the page: by the first button.
        let gone = Message {
            target: "v9".into(),
            text: "This product does not exist.".into(),
        };
        let mut page = two.clone();
        add_forms(&mut page, &facts(Some(&gone)));
        assert_eq!(page.matches("tessera-cart-message").count(), 1);
        assert!(
            page.contains(
                "role=\"alert\">This product does not exist.</p><form id=\"tessera-cart-add-1\""
            ),
            "{page}"
        );
    }

    #[test]
    fn a_button_with_a_questions_form_or_other_markup_is_left_alone() {
        let asks = CHECKOUT.replace("--primary \"", "--primary use-form\"");
        let mut page = asks.clone();
        assert!(!add_forms(&mut page, &facts(None)));
        assert_eq!(page, asks);
        let mut plain = "<p>No store here</p>".to_owned();
        assert!(!add_forms(&mut plain, &facts(None)));
        assert_eq!(plain, "<p>No store here</p>");
        // An id that could not name a form safely.
        let odd = CHECKOUT.replace("\"v1\"", "\"v 1\"");
        let mut page = odd.clone();
        add_forms(&mut page, &facts(None));
        assert_eq!(page, odd);
    }

    #[test]
    fn cart_forms_get_the_crumb_and_the_cart_its_message() {
        let cart = "<div id=\"sqs-cart-root\" class=\"sqs-cart-root\" data-island=\"cart\">\
            <form method=\"post\" action=\"/api/commerce/shopping-cart/form/entries/e1\"><input name=\"quantity\"></form>\
            <form method=\"post\" action=\"/elsewhere\"></form></div>";
        let m = Message {
            target: String::new(),
            text: "Sorry, we do not have enough of that item available.".into(),
        };
        let mut page = cart.to_owned();
        assert!(add_forms(&mut page, &facts(Some(&m))));
        assert_eq!(
            page,
            "<div id=\"sqs-cart-root\" class=\"sqs-cart-root\" data-island=\"cart\">\
            <p class=\"tessera-cart-message\" role=\"alert\">Sorry, we do not have enough of that item available.</p>\
            <form method=\"post\" action=\"/api/commerce/shopping-cart/form/entries/e1\">\
            <input type=\"hidden\" name=\"crumb\" value=\"c0ffee\"><input name=\"quantity\"></form>\
            <form method=\"post\" action=\"/elsewhere\"></form></div>"
        );
    }

    #[test]
    fn messages_are_signed_for_their_target() {
        let key = [3u8; 32];
        let q = message_query(&key, "v1", "Sold & gone");
        assert_eq!(
            message_of(&key, &format!("x=1&{q}")),
            Some(Message {
                target: "v1".into(),
                text: "Sold & gone".into()
            })
        );
        assert_eq!(message_of(&[4u8; 32], &q), None, "another tenant's");
        let forged = q.replace("Sold", "Call+us");
        assert_eq!(message_of(&key, &forged), None);
        let moved = q.replace("v1", "v2");
        assert_eq!(message_of(&key, &moved), None);
        assert_eq!(back_path("/shop/pot", &format!("a=b&{q}")), "/shop/pot?a=b");
        assert_eq!(back_path("/cart", &q), "/cart");
        assert_eq!(
            with_message("/cart?x=1", &key, "", "m"),
            format!("/cart?x=1&{}", message_query(&key, "", "m"))
        );
    }
}
