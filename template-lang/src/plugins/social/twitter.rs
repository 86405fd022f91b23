//! Turning the links, `@mentions` and `#hashtags` of a tweet into anchors, as the
//! reference's three regular expressions do (ASCII-only, case-insensitive), written as
//! small scanners so no regex engine is needed.

/// Characters a link may contain.
fn in_link(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-+&@#/%?=~_|!:,.;".contains(&b)
}

/// Characters a link may end with (note the backslash, which only the end allows).
fn ends_link(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-+&@#\\/%=~_|".contains(&b)
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The length of a link starting at `i` (`\b(https?|ftp|file)://` then the greedy body
/// backed off to a valid last character), if one starts there.
fn link_at(s: &[u8], i: usize) -> Option<usize> {
    if i > 0 && is_word(s[i - 1]) {
        return None;
    }
    let rest = &s[i..];
    let scheme = ["https://", "http://", "ftp://", "file://"]
        .iter()
        .find(|p| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p.as_bytes()))?;
    let body = &rest[scheme.len()..];
    let run = body.iter().take_while(|&&b| in_link(b)).count();
    // The longest run whose next character can end the link.
    (0..=run)
        .rev()
        .find(|&k| body.get(k).is_some_and(|&b| ends_link(b)))
        .map(|k| scheme.len() + k + 1)
}

/// Wraps every link in `<a target="new" href="...">...</a>`.
fn activate_links(text: &str) -> String {
    let s = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied) = (0, 0);
    while i < s.len() {
        match link_at(s, i) {
            Some(len) => {
                // Matches are ASCII, so these are character boundaries.
                let link = &text[i..i + len];
                out.push_str(&text[copied..i]);
                out.push_str("<a target=\"new\" href=\"");
                out.push_str(link);
                out.push_str("\">");
                out.push_str(link);
                out.push_str("</a>");
                i += len;
                copied = i;
            }
            None => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Rewrites each `sigil` + word (at the start or after a space; `(^| )X([a-z0-9_]+)`)
/// with `anchor(word)`, keeping the space.
fn activate_words(text: &str, sigil: u8, anchor: impl Fn(&str, &mut String)) -> String {
    let s = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied) = (0, 0);
    while i < s.len() {
        let at = if i == 0 && s[0] == sigil {
            Some(0)
        } else if s[i] == b' ' && s.get(i + 1) == Some(&sigil) {
            Some(1)
        } else {
            None
        };
        let word_len = at.map_or(0, |p| {
            s[i + p + 1..].iter().take_while(|&&b| is_word(b)).count()
        });
        match at {
            Some(p) if word_len > 0 => {
                let start = i + p + 1;
                out.push_str(&text[copied..i + p]);
                anchor(&text[start..start + word_len], &mut out);
                i = start + word_len;
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// Links, then mentions, then hashtags, each pass over the previous one's output.
pub fn activate(text: &str) -> String {
    let text = activate_links(text);
    let text = activate_words(&text, b'@', |user, out| {
        out.push_str("<a target=\"new\" href=\"https://twitter.com/");
        out.push_str(user);
        out.push_str("/\">@");
        out.push_str(user);
        out.push_str("</a>");
    });
    activate_words(&text, b'#', |tag, out| {
        // Hashtags are ASCII word characters, which JavaScript's `escape` leaves alone.
        out.push_str("<a target=\"new\" href=\"https://twitter.com/hashtag/");
        out.push_str(tag);
        out.push_str("?src=hash\">#");
        out.push_str(tag);
        out.push_str("</a>");
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(url: &str) -> String {
        format!("<a target=\"new\" href=\"{url}\">{url}</a>")
    }

    #[test]
    fn links() {
        assert_eq!(
            activate_links("see http://x.com/a?b=1."),
            format!("see {}.", a("http://x.com/a?b=1"))
        );
        assert_eq!(
            activate_links("HTTPS://X.com,"),
            format!("{},", a("HTTPS://X.com"))
        );
        assert_eq!(activate_links("xhttp://a.b"), "xhttp://a.b");
        assert_eq!(
            activate_links("(ftp://a\\b)"),
            format!("({}b)", a("ftp://a\\"))
        );
        assert_eq!(activate_links("http://"), "http://");
        assert_eq!(activate_links("http://.,;"), "http://.,;");
        assert_eq!(activate_links("é file://a"), format!("é {}", a("file://a")));
    }

    #[test]
    fn mentions_and_hashtags() {
        assert_eq!(
            activate("@a @b x@c"),
            "<a target=\"new\" href=\"https://twitter.com/a/\">@a</a> \
             <a target=\"new\" href=\"https://twitter.com/b/\">@b</a> x@c"
        );
        assert_eq!(
            activate("#Tag1 ## #"),
            "<a target=\"new\" href=\"https://twitter.com/hashtag/Tag1?src=hash\">#Tag1</a> ## #"
        );
    }
}
