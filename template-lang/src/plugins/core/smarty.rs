//! The `smartypants` formatter: curly quotes and em dashes, with the reference engine's
//! exact rules.
//!
//! The reference runs five global regular-expression replacements in order: opening `'`,
//! remaining `'`, opening `"`, remaining `"`, then `--`. Two quirks are part of its
//! observable behaviour and are kept: the characters after which `'` opens include a
//! backslash and the letter `s` (the reference's pattern escapes the `\s` away), and a
//! quote at the start of any line (after a line terminator) opens. Here the five passes are
//! fused into two single scans that give the same result.

/// Characters after which `'` opens (besides line starts).
fn opens_single(c: char) -> bool {
    matches!(c, '-' | '\u{2014}' | '\\' | 's' | '(' | '[' | '"')
}

/// Characters after which `"` opens (besides line starts).
fn opens_double(c: char) -> bool {
    matches!(c, '-' | '\u{2014}' | '/' | '[' | '(' | '\u{2018}')
        || crate::value::number::is_js_whitespace(c)
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// Replaces `quote` by `open` where the global, multi-line pattern `(^|[class])quote`
/// matches (non-overlapping, left to right) and by `close` everywhere else.
fn quotes(
    s: &str,
    quote: char,
    open: char,
    close: char,
    class: fn(char) -> bool,
    out: &mut String,
) {
    let mut prev: Option<char> = None;
    // Whether `prev` was consumed as the leading character of a match.
    let mut prev_consumed = false;
    for c in s.chars() {
        if c == quote {
            let line_start = prev.is_none_or(is_line_terminator);
            let after_class = prev.is_some_and(class) && !prev_consumed;
            if line_start || after_class {
                out.push(open);
                // A quote opened at a line start consumed only itself; after a class
                // character the match consumed both.
                prev_consumed = true;
            } else {
                out.push(close);
                prev_consumed = false;
            }
        } else {
            out.push(c);
            prev_consumed = false;
        }
        prev = Some(c);
    }
}

pub fn smartypants(s: &str) -> String {
    let mut singles = String::with_capacity(s.len() + 8);
    quotes(s, '\'', '\u{2018}', '\u{2019}', opens_single, &mut singles);
    let mut doubles = String::with_capacity(singles.len() + 8);
    quotes(
        &singles,
        '"',
        '\u{201C}',
        '\u{201D}',
        opens_double,
        &mut doubles,
    );
    if doubles.contains("--") {
        doubles.replace("--", "\u{2014}")
    } else {
        doubles
    }
}

#[cfg(test)]
mod tests {
    use super::smartypants;

    #[test]
    fn quotes_and_dashes() {
        assert_eq!(
            smartypants("'hi' \"there\" -- ok"),
            "\u{2018}hi\u{2019} \u{201C}there\u{201D} \u{2014} ok"
        );
        assert_eq!(smartypants("it's"), "it\u{2019}s");
        // The reference's class after which ' opens contains the letter s.
        assert_eq!(smartypants("cats' toys"), "cats\u{2018} toys");
        assert_eq!(smartypants("a\n'b'"), "a\n\u{2018}b\u{2019}");
        assert_eq!(smartypants("''"), "\u{2018}\u{2019}");
        assert_eq!(smartypants("s''"), "s\u{2018}\u{2019}");
        assert_eq!(smartypants("(''"), "(\u{2018}\u{2019}");
        assert_eq!(smartypants("---"), "\u{2014}-");
        assert_eq!(smartypants("(\"x\")"), "(\u{201C}x\u{201D})");
        assert_eq!(smartypants("'\"x"), "\u{2018}\u{201C}x");
    }
}
