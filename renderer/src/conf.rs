//! The template folder's JSON configuration files (`template.conf`, `collections/*.conf`,
//! `pages/*.page.conf`), read the way real template folders need: `//` and `/* */`
//! comments and trailing commas are accepted; anything else that is not JSON is an error
//! with file, line and column.

use std::fmt;

/// A configuration file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.column, self.message
        )
    }
}

impl std::error::Error for ConfError {}

/// Parses lenient JSON. Comments and trailing commas are blanked out with spaces first, so
/// the JSON parser's positions are positions in the original text.
pub fn parse_conf(file: &str, text: &str) -> Result<serde_json::Value, ConfError> {
    let cleaned = blank_comments_and_trailing_commas(text);
    serde_json::from_str(&cleaned).map_err(|e| ConfError {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: strip_position(&e.to_string()),
    })
}

/// serde_json appends " at line L column C"; we print the position in front instead.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Replaces comments and trailing commas (a comma followed only by whitespace and comments
/// before `}` or `]`) with spaces, leaving strings and line breaks untouched.
fn blank_comments_and_trailing_commas(text: &str) -> String {
    let mut out: Vec<u8> = text.as_bytes().to_vec();
    let b = text.as_bytes();
    let mut i = 0;
    let mut last_comma: Option<usize> = None;
    while i < b.len() {
        match b[i] {
            b'"' => {
                last_comma = None;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(b.len(), |k| i + 2 + k + 2);
                for (k, byte) in out.iter_mut().enumerate().take(end).skip(i) {
                    if b[k] != b'\n' {
                        *byte = b' ';
                    }
                }
                i = end;
            }
            b',' => {
                last_comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(c) = last_comma.take() {
                    out[c] = b' ';
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                last_comma = None;
                i += 1;
            }
        }
    }
    // Only ASCII bytes outside strings were replaced by spaces, so this stays UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_are_accepted() {
        let v = parse_conf(
            "template.conf",
            "{\n  // the name\n  \"name\": \"A // not a comment\", /* block\n comment */\n  \"layouts\": {\"default\": {\"regions\": [\"site\",],},},\n}\n",
        )
        .unwrap();
        assert_eq!(v["name"], "A // not a comment");
        assert_eq!(v["layouts"]["default"]["regions"][0], "site");
    }

    #[test]
    fn other_errors_carry_file_line_and_column() {
        let e = parse_conf(
            "collections/blog.conf",
            "{\n  \"title\": \"Blog\"\n  \"ordering\": 1\n}",
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (3, 3));
        assert_eq!(
            e.to_string(),
            "collections/blog.conf:3:3: expected `,` or `}`"
        );
        // Two objects back to back, as one real template.conf has: rejected.
        let e = parse_conf("template.conf", "{}\n{}").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (2, "trailing characters"));
    }

    #[test]
    fn strings_with_commas_and_brackets_are_untouched() {
        let v = parse_conf("x.conf", r#"{"a": "x,]", "b": [1, "y\",}"]}"#).unwrap();
        assert_eq!(v["a"], "x,]");
        assert_eq!(v["b"][1], "y\",}");
    }
}
