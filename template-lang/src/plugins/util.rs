//! Helpers shared by formatter families: JavaScript string and path semantics.

use std::borrow::Cow;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use crate::syntax::path::{Path, Seg, VarPath};
use crate::value::number::{is_js_whitespace, number_to_string};
use crate::value::{Val, View};

/// Characters `encodeURI` leaves alone (besides ASCII letters and digits).
pub const ENCODE_URI: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b';')
    .remove(b',')
    .remove(b'/')
    .remove(b'?')
    .remove(b':')
    .remove(b'@')
    .remove(b'&')
    .remove(b'=')
    .remove(b'+')
    .remove(b'$')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'#');

/// Characters `encodeURIComponent` leaves alone (besides ASCII letters and digits).
pub const ENCODE_URI_COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// Characters JavaScript's `escape` leaves alone (applied to UTF-8 bytes by `url-encode`).
pub const ESCAPE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'@')
    .remove(b'*')
    .remove(b'_')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'/');

/// `s` with the bytes in `set` (and all non-ASCII) percent-encoded. The pieces go into a
/// `String` sized for the usual few escapes: `to_string` grew one from empty, a piece at a
/// time, and that was most of what a page's `url-encode`s allocated.
pub fn percent_encode(s: &str, set: &'static AsciiSet) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 2);
    out.extend(utf8_percent_encode(s, set));
    out
}

/// `&`, `<`, `>` as entities (the `html` formatter). The most used formatter, so it copies
/// the text between the special characters in runs rather than char by char, and finds
/// them in long texts with memchr's vectorised search (whose set-up costs more than it saves
/// on short ones, such as names and titles). The three are ASCII, so every run ends on a
/// character boundary.
pub fn escape_html(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut start = 0;
    if bytes.len() < 64 {
        for (i, b) in bytes.iter().enumerate() {
            if matches!(b, b'&' | b'<' | b'>') {
                push_entity(s, &mut start, i, out);
            }
        }
    } else {
        for i in memchr::memchr3_iter(b'&', b'<', b'>', bytes) {
            push_entity(s, &mut start, i, out);
        }
    }
    out.push_str(&s[start..]);
}

/// Appends the run `s[*start..i]` and the entity for the special character at `i`.
fn push_entity(s: &str, start: &mut usize, i: usize, out: &mut String) {
    out.push_str(&s[*start..i]);
    out.push_str(match s.as_bytes()[i] {
        b'&' => "&amp;",
        b'<' => "&lt;",
        _ => "&gt;",
    });
    *start = i + 1;
}

/// `&`, `<`, `>`, `"` as entities (`htmlattr`, `htmltag`).
pub fn escape_attr(s: &str, out: &mut String) {
    html_escape::encode_double_quoted_attribute_to_string(s, out);
}

/// The reference's `truncate`: cut to `max` UTF-16 units, back to the last whitespace
/// when there is one, and append the ellipsis.
pub fn truncate(s: &str, max: usize, ellipsis: &str) -> String {
    if s.is_ascii() {
        if s.len() <= max {
            return s.to_string();
        }
        let b = s.as_bytes();
        let end = (0..max)
            .rev()
            .find(|&i| matches!(b[i], b' ' | b'\n' | b'\t' | 0x0b | b'\r' | 0x0c))
            .map_or(max, |i| i + 1);
        let mut out = String::with_capacity(end + ellipsis.len());
        out.push_str(&s[..end]);
        out.push_str(ellipsis);
        return out;
    }
    let units: Vec<u16> = s.encode_utf16().collect();
    if units.len() <= max {
        return s.to_string();
    }
    let is_ws = |u: u16| matches!(u, 0x20 | 0x0a | 0x09 | 0x0b | 0x0d | 0x0c);
    let end = (0..max)
        .rev()
        .find(|&i| is_ws(units[i]))
        .map_or(max, |i| i + 1);
    // Cutting a surrogate pair leaves a lone surrogate, which prints as U+FFFD, as it does
    // when the reference writes such a string out.
    let mut out = String::from_utf16_lossy(&units[..end]);
    out.push_str(ellipsis);
    out
}

/// The reference's `removeTags`: drops `<...>` spans, each closing `>` leaving a space.
pub fn remove_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push(' ');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// `/<[^>]*?>/g` removed (the `safe` formatter): only complete tags go.
pub fn strip_complete_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(lt) = rest.find('<') {
        match rest[lt..].find('>') {
            Some(gt) => {
                out.push_str(&rest[..lt]);
                rest = &rest[lt + gt + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// The reference's slug: drop everything but ASCII letters, digits, whitespace and `-`,
/// turn whitespace runs into `-`, lower-case.
pub fn slugify(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_slug(s, &mut out);
    out
}

/// Appends [`slugify`]'s slug of `s` to `out`.
pub fn push_slug(s: &str, out: &mut String) {
    // A slug is never longer than its text.
    out.reserve(s.len());
    let mut in_ws = false;
    let bytes = s.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // Categories and tags are mostly ASCII: bytes below 0x80 are characters of their
        // own and need no decoding.
        let b = bytes[at];
        let c = if b < 0x80 {
            at += 1;
            char::from(b)
        } else {
            let c = s[at..].chars().next().expect("a character starts here");
            at += c.len_utf8();
            c
        };
        if is_js_whitespace(c) {
            if !in_ws {
                out.push('-');
            }
            in_ws = true;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '-' {
            out.push(c.to_ascii_lowercase());
            in_ws = false;
        }
        // Other characters vanish; a whitespace run they interrupt stays one run.
    }
}

/// A key for walking JSON the way JavaScript property access does: strings name object
/// keys; numbers name object keys (as their string form) or array elements.
pub enum PathKey<'k> {
    Str(Cow<'k, str>),
    Num(f64),
}

impl PathKey<'_> {
    fn from_seg<'p>(path: Path<'p>, seg: &Seg) -> PathKey<'p> {
        match seg.index {
            Some(i) => PathKey::Num(f64::from(i)),
            None => PathKey::Str(Cow::Borrowed(path.name(seg))),
        }
    }

    /// The key a JavaScript value becomes when used as a path element.
    pub fn from_view(v: View<'_>) -> PathKey<'static> {
        match v {
            View::Num(n) => PathKey::Num(n),
            View::Str(s) => PathKey::Str(Cow::Owned(s.to_string())),
            View::Bool(b) => PathKey::Str(Cow::Borrowed(if b { "true" } else { "false" })),
            View::Null | View::Missing => PathKey::Str(Cow::Borrowed("null")),
            View::Obj(_) => PathKey::Str(Cow::Borrowed("[object Object]")),
            View::Arr(a) => {
                let mut s = String::new();
                crate::value::join_array(a, &mut s);
                PathKey::Str(Cow::Owned(s))
            }
        }
    }
}

/// One step of the reference's `Node.path`: own object properties, or array elements by
/// integer index; anything else is missing.
pub fn step<'a>(v: &Val<'a>, key: &PathKey<'_>) -> Val<'a> {
    match (v.view(), key) {
        (View::Obj(_), PathKey::Str(s)) => v.child(s, None),
        (View::Obj(_), PathKey::Num(n)) => v.child(&number_to_string(*n), None),
        (View::Arr(items), PathKey::Num(n)) => {
            if n.fract() == 0.0 && *n >= 0.0 && (*n as usize) < items.len() {
                v.element(*n as usize)
            } else {
                Val::Missing
            }
        }
        _ => Val::Missing,
    }
}

/// Walks the segments of `path` (all of them, the head included) from `v`.
pub fn walk<'a>(v: &Val<'a>, path: &VarPath) -> Val<'a> {
    let path = path.path();
    let head = match path.head() {
        crate::syntax::path::Head::Key(seg) => PathKey::from_seg(path, seg),
        _ => PathKey::Str(Cow::Borrowed(path.head_name())),
    };
    let mut cur = step(v, &head);
    for seg in path.rest() {
        if cur.is_missing() {
            break;
        }
        cur = step(&cur, &PathKey::from_seg(path, seg));
    }
    cur
}

/// `String(value)` of a template value, as JavaScript's string conversion gives it
/// (`null` and missing give "null").
pub fn js_string(v: View<'_>) -> String {
    match v {
        View::Missing | View::Null => "null".into(),
        View::Str(s) => s.to_string(),
        View::Arr(a) => {
            let mut s = String::new();
            crate::value::join_array(a, &mut s);
            s
        }
        View::Obj(_) => "[object Object]".into(),
        other => other.to_str().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        let mut s = String::new();
        escape_html("<a href=\"x\">&'</a>", &mut s);
        assert_eq!(s, "&lt;a href=\"x\"&gt;&amp;'&lt;/a&gt;");
        let mut s = String::new();
        escape_attr("<a href=\"x\">&'", &mut s);
        assert_eq!(s, "&lt;a href=&quot;x&quot;&gt;&amp;'");
    }

    #[test]
    fn url_sets() {
        assert_eq!(
            percent_encode("a b/é?x=1#f", ENCODE_URI),
            "a%20b/%C3%A9?x=1#f"
        );
        assert_eq!(
            percent_encode("a b/é?x=1#f", ENCODE_URI_COMPONENT),
            "a%20b%2F%C3%A9%3Fx%3D1%23f"
        );
        assert_eq!(
            percent_encode("a b@*_+-./~é", ESCAPE),
            "a%20b@*_+-./%7E%C3%A9"
        );
    }

    #[test]
    fn html_escapes_ampersand_and_angle_brackets_only() {
        for (text, escaped) in [
            ("", ""),
            ("plain", "plain"),
            ("<b>", "&lt;b&gt;"),
            ("a & b && c", "a &amp; b &amp;&amp; c"),
            (
                "\"q\" 'q' é<\u{1F600}>&",
                "\"q\" 'q' é&lt;\u{1F600}&gt;&amp;",
            ),
            ("&&&<<<>>>", "&amp;&amp;&amp;&lt;&lt;&lt;&gt;&gt;&gt;"),
        ] {
            // Short texts and long ones (64 bytes and more) take different paths.
            let long_text = text.repeat(20);
            let mut out = String::new();
            escape_html(&long_text, &mut out);
            assert_eq!(out, escaped.repeat(20), "{text} x 20");
            let mut out = String::from("keep:");
            escape_html(text, &mut out);
            assert_eq!(out, format!("keep:{escaped}"), "{text}");
        }
    }

    #[test]
    fn truncate_backs_up_to_whitespace() {
        assert_eq!(truncate("hello world foo", 8, "..."), "hello ...");
        assert_eq!(truncate("helloworld", 5, "…"), "hello…");
        assert_eq!(truncate("short", 5, "..."), "short");
        assert_eq!(truncate("a\u{1F600}b", 2, ""), "a\u{FFFD}");
    }

    #[test]
    fn tags_and_slugs() {
        assert_eq!(remove_tags("<p>a</p>b"), " a b");
        assert_eq!(strip_complete_tags("a<b>c</b>d<e"), "acd<e");
        assert_eq!(slugify("Hello,  World!  é-x"), "hello-world--x");
        assert_eq!(slugify("a \u{A0}b"), "a-b");
        assert_eq!(slugify("X\u{3000}y\u{1F600}Z \u{FEFF}"), "x-yz-");
    }
}
