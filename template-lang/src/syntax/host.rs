//! Host tags: XML-like elements such as `<squarespace:navigation navigationId="main" />` or
//! `<squarespace:query collection="blog" limit="3">...</squarespace:query>` that the
//! embedding application (the site renderer) implements.
//!
//! The language itself knows no host tags; a compile option names the prefix to recognise.
//! Attribute values and bodies are JSON-T in their own right (`id="{id}_intro"`), so they are
//! kept as source slices here and compiled as sub-templates by the compiler.

use super::scan::{find_near, find_near2};

/// A host tag as written.
#[derive(Debug, Clone, PartialEq)]
pub struct HostTagSyntax<'s> {
    /// The name after the prefix (`navigation` in `<squarespace:navigation>`).
    pub name: &'s str,
    /// `(name, value source)`; values are slices of the whole source, which is how the
    /// compiler knows where they are.
    pub attrs: Vec<(&'s str, &'s str)>,
    /// The body source, for the `<x>...</x>` form.
    pub body: Option<&'s str>,
    /// Byte offset just after the tag (after `/>` or the closing tag).
    pub end: usize,
}

/// `[a-zA-Z0-9_.:-]` by table: one load per byte of a host tag's and its attributes'
/// names (the chain of comparisons was most of what parsing a host tag cost).
const NAME_CHAR: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b':');
        b += 1;
    }
    t
};

#[inline(always)]
fn is_name_char(b: u8) -> bool {
    NAME_CHAR[b as usize]
}

/// The length of the run of name characters at the start of `b`.
#[inline(always)]
fn name_len(b: &[u8]) -> usize {
    b.iter().take_while(|&&c| is_name_char(c)).count()
}

/// Same-name host tags nest at most this deep inside one another.
const MAX_DEPTH: usize = 64;

/// Parses the host tag starting at `start` (which holds `<` followed by `prefix`).
/// `None` when it is not a well-formed tag; the caller then keeps the text as it is.
pub fn parse_host_tag<'s>(src: &'s str, start: usize, prefix: &str) -> Option<HostTagSyntax<'s>> {
    parse_at_depth(src, start, prefix, 0)
}

fn parse_at_depth<'s>(
    src: &'s str,
    start: usize,
    prefix: &str,
    depth: usize,
) -> Option<HostTagSyntax<'s>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let b = src.as_bytes();
    let name_start = start + 1 + prefix.len();
    let mut i = name_start + name_len(b.get(name_start..)?);
    if i == name_start {
        return None;
    }
    let name = &src[name_start..i];
    let mut attrs = Vec::new();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        match b.get(i)? {
            b'/' if b.get(i + 1) == Some(&b'>') => {
                return Some(HostTagSyntax {
                    name,
                    attrs,
                    body: None,
                    end: i + 2,
                });
            }
            b'>' => {
                let body_start = i + 1;
                // Left unclosed, the tag is the start tag alone, as an HTML parser reads an
                // element it finds no end tag for (`<squarespace:script src="a.js">`).
                let (body, end) = match find_close(src, body_start, prefix, name, depth) {
                    Some((body_end, end)) => (Some(&src[body_start..body_end]), end),
                    None => (None, body_start),
                };
                return Some(HostTagSyntax {
                    name,
                    attrs,
                    body,
                    end,
                });
            }
            _ => {
                let attr_start = i;
                i += name_len(&b[i..]);
                if i == attr_start {
                    return None;
                }
                let attr = &src[attr_start..i];
                if b.get(i) != Some(&b'=') {
                    // An attribute without a value, as in HTML (`async`): empty.
                    if !b
                        .get(i)
                        .is_some_and(|&c| c.is_ascii_whitespace() || c == b'>' || c == b'/')
                    {
                        return None;
                    }
                    attrs.push((attr, &src[i..i]));
                    continue;
                }
                i += 1;
                let quote = *b.get(i)?;
                if quote == b'"' || quote == b'\'' {
                    let value_start = i + 1;
                    let value_end = find_quote(b, value_start, quote)?;
                    attrs.push((attr, &src[value_start..value_end]));
                    i = value_end + 1;
                } else {
                    // Unquoted, as HTML allows (`combo=false`): up to whitespace, `>` or
                    // the `/>` that closes the tag.
                    let value_end = find_unquoted_end(b, i);
                    if value_end == i {
                        return None;
                    }
                    attrs.push((attr, &src[i..value_end]));
                    i = value_end;
                }
            }
        }
    }
}

/// The closing quote of an attribute value; quotes inside `{...}` tags do not count.
/// Looked for a word at a time ([`find_near2`]), not a byte at a time: values are most of
/// a host tag's bytes (`class="Footer-blocks Footer-blocks--top ..."`).
fn find_quote(b: &[u8], mut i: usize, quote: u8) -> Option<usize> {
    loop {
        let k = i + find_near2(quote, b'{', b.get(i..)?)?;
        if b[k] == quote {
            return Some(k);
        }
        i = match find_near(b'}', &b[k..]) {
            Some(m) => k + m + 1,
            None => k + 1,
        };
    }
}

/// [`find_quote`] a byte at a time, as it was: the tests compare the two.
#[cfg(test)]
fn find_quote_bytewise(b: &[u8], mut i: usize, quote: u8) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            c if c == quote => return Some(i),
            b'{' => match b[i..].iter().position(|&c| c == b'}') {
                Some(k) => i += k + 1,
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    None
}

/// The end of an unquoted attribute value starting at `i`: whitespace, `>`, or a `/>`;
/// `{...}` tags inside it (`id={id}`) are kept whole.
fn find_unquoted_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() || c == b'>' => return i,
            b'/' if b.get(i + 1) == Some(&b'>') => return i,
            b'{' => match b[i..].iter().position(|&c| c == b'}') {
                Some(k) => i += k + 1,
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    i
}

/// Finds `</prefixname>` matching the opening tag; nested tags of the same name are parsed
/// (recursively) and skipped whole. Returns (body end, end after the closing tag).
///
/// What counts is the first `<prefixname` after `i`: a nested tag when it is one of the
/// same name and comes before the next closing tag; otherwise the next closing tag ends
/// the body (even when a nested tag of the same name follows that first one).
fn find_close(
    src: &str,
    mut i: usize,
    prefix: &str,
    name: &str,
    depth: usize,
) -> Option<(usize, usize)> {
    let b = src.as_bytes();
    let (p, n) = (prefix.as_bytes(), name.as_bytes());
    // `<prefixname` (without the `<`) at `at`.
    let names_at = |at: usize| {
        b.get(at..at + p.len()) == Some(p) && b.get(at + p.len()..at + p.len() + n.len()) == Some(n)
    };
    // `</prefixname>` at `lt`: its end.
    let close_at = |lt: usize| {
        let end = lt + 2 + p.len() + n.len();
        (b.get(lt + 1) == Some(&b'/') && names_at(lt + 2) && b.get(end) == Some(&b'>'))
            .then_some(end + 1)
    };
    let next_close = |mut from: usize| loop {
        let lt = from + memchr::memchr(b'<', &b[from..])?;
        if let Some(end) = close_at(lt) {
            return Some((lt, end));
        }
        from = lt + 1;
    };
    loop {
        let lt = i + memchr::memchr(b'<', &b[i..])?;
        if let Some(end) = close_at(lt) {
            return Some((lt, end));
        }
        if names_at(lt + 1) {
            let after = lt + 1 + p.len() + n.len();
            if !is_open_of_same(src, after) {
                return next_close(lt + 1);
            }
            // Without a closing tag after it, there is no body.
            next_close(lt + 1)?;
            i = parse_at_depth(src, lt, prefix, depth + 1).map_or(after, |nested| nested.end);
            continue;
        }
        i = lt + 1;
    }
}

/// Whether the character after `<prefixname` ends the name (so `<x:nav` is not `<x:navbar`).
fn is_open_of_same(src: &str, at: usize) -> bool {
    src.as_bytes().get(at).is_none_or(|&c| !is_name_char(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: &str = "squarespace:";

    #[test]
    fn self_closing_with_attributes() {
        let src = r#"a <squarespace:navigation navigationId="main" template='nav' /> b"#;
        let t = parse_host_tag(src, 2, P).unwrap();
        assert_eq!(t.name, "navigation");
        assert_eq!(t.attrs, [("navigationId", "main"), ("template", "nav")]);
        assert!(t.body.is_none());
        assert_eq!(&src[t.end..], " b");
    }

    #[test]
    fn attribute_values_may_hold_json_t_with_quotes() {
        let src = r#"<squarespace:block-field id="{id}_intro" label="{.equal? a "b"}x{.end}"/>"#;
        let t = parse_host_tag(src, 0, P).unwrap();
        assert_eq!(t.attrs[1].1, r#"{.equal? a "b"}x{.end}"#);
        assert_eq!(t.attrs[0].1, "{id}_intro");
    }

    #[test]
    fn bodies_nest() {
        let src = "<squarespace:query collection=\"a\">[<squarespace:query collection=\"b\">in</squarespace:query><squarespace:query collection=\"c\"/>]</squarespace:query>!";
        let t = parse_host_tag(src, 0, P).unwrap();
        let body = t.body.unwrap();
        assert!(body.starts_with('[') && body.ends_with(']'));
        assert_eq!(&src[t.end..], "!");
    }

    #[test]
    fn the_first_tag_of_the_name_decides_whether_one_nests() {
        // `<squarespace:navbar` comes first and is another tag: the next closing tag ends
        // the body, though a nested `<squarespace:nav>` follows it.
        let src = "<squarespace:nav>[<squarespace:navbar/><squarespace:nav>in</squarespace:nav>]</squarespace:nav>!";
        let t = parse_host_tag(src, 0, P).unwrap();
        assert_eq!(t.body, Some("[<squarespace:navbar/><squarespace:nav>in"));
        assert_eq!(&src[t.end..], "]</squarespace:nav>!");
        // A nested tag of the same name without a closing tag after it: no body.
        let src = "<squarespace:nav>a<squarespace:nav>b";
        let t = parse_host_tag(src, 0, P).unwrap();
        assert_eq!(t.body, None);
        assert_eq!(&src[t.end..], "a<squarespace:nav>b");
        // Closing tags of other names, and a name that only starts the same, are body.
        let src = "<squarespace:nav>a</squarespace:navx></squarespace:na></squarespace:nav>!";
        let t = parse_host_tag(src, 0, P).unwrap();
        assert_eq!(t.body, Some("a</squarespace:navx></squarespace:na>"));
        assert_eq!(&src[t.end..], "!");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let src = format!(
            "{}{}",
            "<squarespace:q>".repeat(5000),
            "</squarespace:q>".repeat(5000)
        );
        // Levels past the limit are skipped as text; parsing ends without overflowing.
        let t = parse_host_tag(&src, 0, P).unwrap();
        assert!(t.end <= src.len());
    }

    #[test]
    fn malformed_tags_are_not_tags() {
        for src in [
            "<squarespace:",
            "<squarespace:x",
            "<squarespace:x a=\"b/>",
            "<squarespace:x a=",
            "<squarespace:x a= />",
            "<squarespace:x a=b",
            "<squarespace: />",
        ] {
            assert!(parse_host_tag(src, 0, P).is_none(), "{src}");
        }
    }

    #[test]
    fn unquoted_and_valueless_attributes_as_in_html() {
        let src = "<squarespace:script src=modals.js combo=false />!";
        let t = parse_host_tag(src, 0, P).unwrap();
        assert_eq!(t.attrs, [("src", "modals.js"), ("combo", "false")]);
        assert!(t.body.is_none());
        assert_eq!(&src[t.end..], "!");
        let src = "<squarespace:block-field id={id}_x columns=12/>!";
        let t = parse_host_tag(src, 0, P).unwrap();
        assert_eq!(t.attrs, [("id", "{id}_x"), ("columns", "12")]);
        assert_eq!(&src[t.end..], "!");
        let t = parse_host_tag("<squarespace:script src=\"a.js\" async>", 0, P).unwrap();
        assert_eq!(t.attrs, [("src", "a.js"), ("async", "")]);
    }

    #[test]
    fn the_closing_quote_is_found_as_byte_by_byte() {
        // Quotes, braces and closing braces at every place around the word size and the
        // hand-over to `memchr` (32 bytes), with and without a closing quote.
        let mut x: u64 = 46;
        for len in 0..80 {
            for _ in 0..200 {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        match x % 16 {
                            0 => b'"',
                            1 => b'\'',
                            2 => b'{',
                            3 => b'}',
                            _ => b'a' + (x % 7) as u8,
                        }
                    })
                    .collect();
                for from in [0, 1, len / 2, len] {
                    for quote in [b'"', b'\''] {
                        assert_eq!(
                            find_quote(&text, from, quote),
                            find_quote_bytewise(&text, from, quote),
                            "{:?} from {from}",
                            String::from_utf8_lossy(&text)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn an_unclosed_tag_is_its_start_tag_alone() {
        let src = "<squarespace:script src=\"main.js\" combo=\"false\"></script>x";
        let t = parse_host_tag(src, 0, P).unwrap();
        assert_eq!(t.name, "script");
        assert!(t.body.is_none());
        assert_eq!(&src[t.end..], "</script>x");
    }
}
