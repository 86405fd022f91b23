//! What a template folder's pages can read of the visitor's cart (the page context's
//! `shoppingCart`), decided once per folder from its files, for a server that keeps renders:
//! a page that can read the cart only through a few summary values prints the same bytes for
//! every visitor whose cart has those values, so its render may be kept under them
//! ([`CartReads::key`]).
//!
//! The decision is a conservative text check, like the clock's
//! ([`crate::folder::TemplateFolder::reads_clock`]): a false alarm only costs the kept
//! renders of the folder's pages with a cart. The folder's non-public files, the platform
//! partials and our built-in list, item and search pages are read, and the folder is
//! [`CartReads::Any`] unless:
//!
//! * every mention of `shoppingCart` is either `{shoppingCart|cart-quantity}` (the total
//!   quantity of its entries) or opens a `{.section shoppingCart}` whose body, up to its
//!   `{.end}`, has nothing but text and the tags `{.if NAME}`, `{.or}`, `{.end}`, `{NAME}`
//!   and `{NAME|money}` (a plain dotted name): there, a name is the cart's member of that
//!   name, or, when the cart has none, the same name outside it (the same for every
//!   visitor of the page); and
//! * no file names a formatter that reads a value by a key it is given or prints a whole
//!   value ([`GENERIC_FORMATTERS`]: `{@|json}` at the top of a page would print the cart
//!   with the rest of the context), nor uses `{.eval}`, `{.inject}` or `{.ctxvar}`.
//!
//! An object prints as nothing, so the rest of the context's reads never show the cart.

use std::sync::LazyLock;

use template_lang::value::{Node, View};
use template_lang::{Env, Template, execute};

/// What a folder's pages can read of the visitor's cart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CartReads {
    /// Only these: the total of its entries' quantities (`cart-quantity`) when `quantity`,
    /// and its `members` (top-level names, sorted, each once) inside `{.section
    /// shoppingCart}`.
    Parts {
        quantity: bool,
        members: Vec<String>,
    },
    /// Anything: the page is the visitor's own.
    Any,
}

/// Formatters that read a member by a name they are given (`get`, `lookup`, `prop`, …), go
/// over or count a value's members, or print a whole value (`json`, `raw`, …).
pub const GENERIC_FORMATTERS: [&str; 15] = [
    "json",
    "json-pretty",
    "raw",
    "get",
    "lookup",
    "prop",
    "iter",
    "key-by",
    "find-first",
    "find-last",
    "count",
    "str",
    "output",
    "format",
    "cycle",
];

/// Directives that read data by names or values not written in the tag.
const GENERIC_DIRECTIVES: [&str; 3] = ["{.eval", "{.inject", "{.ctxvar"];

const CART: &str = "shoppingCart";
const QUANTITY: &str = "{shoppingCart|cart-quantity}";
const SECTION: &str = "{.section shoppingCart}";

/// Our built-in pages a folder may render its list, item and search pages with.
const BUILT_IN: [&str; 3] = [
    include_str!("../templates/list.html"),
    include_str!("../templates/item.html"),
    include_str!("../templates/search.html"),
];

impl CartReads {
    /// What the texts (a folder's files, the platform partials, the built-in pages) let a
    /// page read of the cart.
    pub fn of<'t>(texts: impl IntoIterator<Item = &'t [u8]>) -> CartReads {
        let mut quantity = false;
        let mut members: Vec<String> = Vec::new();
        let all = texts
            .into_iter()
            .chain(BUILT_IN.iter().map(|t| t.as_bytes()));
        for text in all {
            // A file that is not UTF-8 is not a template; it may still mention the cart.
            let Ok(text) = std::str::from_utf8(text) else {
                if text.windows(CART.len()).any(|w| w == CART.as_bytes())
                    || names_generic(&String::from_utf8_lossy(text))
                {
                    return CartReads::Any;
                }
                continue;
            };
            if names_generic(text) {
                return CartReads::Any;
            }
            for (at, _) in text.match_indices(CART) {
                let before = &text[..at];
                let from = &text[at..];
                if before.ends_with('{') && text[at - 1..].starts_with(QUANTITY) {
                    quantity = true;
                } else if before.ends_with("{.section ") && text[at - 10..].starts_with(SECTION) {
                    let body = &from[CART.len() + 1..];
                    match section_members(body) {
                        Some(names) => members.extend(names),
                        None => return CartReads::Any,
                    }
                } else {
                    return CartReads::Any;
                }
            }
        }
        members.sort();
        members.dedup();
        CartReads::Parts { quantity, members }
    }

    /// The values a page of this folder can read of `cart`, as one text: two carts with
    /// the same key print the same page. `None` for [`CartReads::Any`].
    pub fn key(&self, cart: &Node) -> Option<String> {
        let CartReads::Parts { quantity, members } = self else {
            return None;
        };
        let mut out = String::new();
        // Whether `{.section shoppingCart}` opens.
        out.push(if View::of(cart).truthy() { 'T' } else { 'F' });
        if *quantity {
            static QUANTITY_OF: LazyLock<Template> =
                LazyLock::new(|| Template::parse_strict("{@|cart-quantity}").expect("compiles"));
            out.push('q');
            let _ = execute(&QUANTITY_OF, cart, &Env::default(), &mut out);
        }
        for m in members {
            out.push('\u{0}');
            out.push_str(m);
            out.push('=');
            match cart.pointer(&[m.as_str()]) {
                Some(v) => template_lang::value::json::stringify(View::of(v), None, &mut out),
                None => out.push('\u{1}'),
            }
        }
        Some(out)
    }
}

/// Whether `text` names a formatter of [`GENERIC_FORMATTERS`] (after a `|`, spaces
/// allowed) or uses a directive of [`GENERIC_DIRECTIVES`].
fn names_generic(text: &str) -> bool {
    if GENERIC_DIRECTIVES.iter().any(|d| text.contains(d)) {
        return true;
    }
    text.match_indices('|').any(|(at, _)| {
        let rest = text[at + 1..].trim_start();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(rest.len());
        GENERIC_FORMATTERS.contains(&&rest[..end])
    })
}

/// The cart's members a `{.section shoppingCart}` body reads (it starts right after the
/// opening tag), or `None` when it has anything but the tags allowed there (module doc).
fn section_members(body: &str) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut depth = 0usize;
    let mut rest = body;
    loop {
        let open = rest.find('{')?;
        let close = rest[open..].find('}')? + open;
        let tag = &rest[open + 1..close];
        rest = &rest[close + 1..];
        if tag == ".end" {
            if depth == 0 {
                return Some(names);
            }
            depth -= 1;
        } else if tag == ".or" {
        } else if let Some(name) = tag.strip_prefix(".if ") {
            names.push(plain_name(name)?);
            depth += 1;
        } else {
            let name = tag.strip_suffix("|money").unwrap_or(tag);
            names.push(plain_name(name)?);
        }
    }
}

/// The first segment of a plain dotted name (`subtotal`, `subtotal.value`).
fn plain_name(name: &str) -> Option<String> {
    let ok = !name.is_empty()
        && name.split('.').all(|s| {
            s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    ok.then(|| name.split('.').next().unwrap_or(name).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(text: &str) -> CartReads {
        CartReads::of([text.as_bytes()])
    }

    fn parts(quantity: bool, members: &[&str]) -> CartReads {
        CartReads::Parts {
            quantity,
            members: members.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn the_demo_header_reads_the_quantity_and_the_subtotal() {
        let header = "<a>{shoppingCart|cart-quantity}\n{.section shoppingCart}<span class=\"x\">{.if totalQuantity}{subtotal|money}{.end}</span>{.end}</a>{.section website}{@}{.end}";
        assert_eq!(reads(header), parts(true, &["subtotal", "totalQuantity"]));
        assert_eq!(reads("<p>{website.siteTitle}</p>"), parts(false, &[]));
    }

    #[test]
    fn anything_more_of_the_cart_is_any() {
        for text in [
            "{.section shoppingCart}{.repeated section entries}{productName}{.end}{.end}",
            "{.section shoppingCart}{@|json}{.end}",
            "{.section shoppingCart}{entries|count}{.end}",
            "{.section shoppingCart}{subtotal|html}{.end}",
            "{.section shoppingCart}{.if totalQuantity || x}y{.end}{.end}",
            "{.section shoppingCart}{totalQuantity}",
            "{shoppingCart.entries.0.productName}",
            "{shoppingCart|json}",
            "{shoppingCart|cart-quantity|html}",
            "{.repeated section shoppingCart.entries}{sku}{.end}",
            "{.var @c shoppingCart}{@c.totalQuantity}",
            "{.equal? shoppingCart.totalQuantity 1}one{.end}",
            // The whole context, or a member by a name from the data.
            "{@|json}",
            "{@|json-pretty}",
            "{@|raw}",
            "{@ | raw}",
            "{@|get key}",
            "{@|lookup name}",
            "{.eval 1 + 1}",
            "{.ctxvar @x=a}",
        ] {
            assert_eq!(reads(text), CartReads::Any, "{text}");
        }
        // One file of many is enough.
        assert_eq!(
            CartReads::of(["{shoppingCart|cart-quantity}".as_bytes(), b"{@|json}"]),
            CartReads::Any
        );
        assert_eq!(CartReads::of([&b"\xffshoppingCart"[..]]), CartReads::Any);
    }

    fn cart(quantities: &[f64], subtotal: f64, id: &str) -> Node {
        Node::from_json(&serde_json::json!({
            "id": id,
            "entries": quantities.iter().map(|q| serde_json::json!({"quantity": q, "sku": id})).collect::<Vec<_>>(),
            "totalQuantity": quantities.iter().sum::<f64>(),
            "subtotal": {"value": subtotal.to_string(), "currency": "USD"},
        }))
    }

    #[test]
    fn the_key_is_what_the_pages_can_read() {
        let q = parts(true, &[]);
        // Another cart of the same quantity (other entries, ids, prices): the same key.
        assert_eq!(
            q.key(&cart(&[2.0], 10.0, "a")),
            q.key(&cart(&[1.0, 1.0], 30.0, "b"))
        );
        assert_ne!(
            q.key(&cart(&[2.0], 10.0, "a")),
            q.key(&cart(&[3.0], 10.0, "a"))
        );
        let sub = parts(true, &["subtotal", "totalQuantity"]);
        assert_eq!(
            sub.key(&cart(&[2.0], 10.0, "a")),
            sub.key(&cart(&[1.0, 1.0], 10.0, "b"))
        );
        assert_ne!(
            sub.key(&cart(&[2.0], 10.0, "a")),
            sub.key(&cart(&[2.0], 11.0, "a"))
        );
        // A member the cart lacks is not one that is null.
        let other = parts(false, &["note"]);
        let with_note = Node::from_json(&serde_json::json!({"note": null}));
        assert_ne!(
            other.key(&with_note),
            other.key(&Node::from_json(&serde_json::json!({"x": 1})))
        );
        assert_eq!(CartReads::Any.key(&cart(&[1.0], 1.0, "a")), None);
        // The key holds nothing of the entries or the cart's id.
        let k = sub.key(&cart(&[2.0], 10.0, "secret-id")).unwrap();
        assert!(!k.contains("secret-id"), "{k}");
    }
}
