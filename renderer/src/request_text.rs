//! Text a visitor sent: a query parameter, a path. It reaches the page context only
//! HTML-escaped, as the platform puts it there, so a template that prints `{tagFilter}` or
//! `{searchQuery}` without a formatter prints text, never markup (issue 40: a
//! `?tag=<meta http-equiv=refresh …>` redirected visitors).
//!
//! The type is the guard: the route keeps request values as [`RequestText`], whose only way
//! into a [`Node`] is [`RequestText::to_node`], which escapes. Comparing it with the site's
//! own values (a category's name) uses [`RequestText::raw`], which is never printed.

use template_lang::value::Node;

/// A value from the request, as the visitor sent it (decoded from the URL).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestText(String);

impl RequestText {
    pub fn new(text: impl Into<String>) -> Self {
        RequestText(text.into())
    }

    /// The text as sent: for comparing with the site's values and building URLs (which
    /// percent-encode it), never for the page context.
    pub fn raw(&self) -> &str {
        &self.0
    }

    /// The text for the page context: `&`, `<`, `>`, `"` and `'` as entities, so it is
    /// safe in element text and in quoted attributes alike.
    pub fn to_node(&self) -> Node {
        Node::from(escape(&self.0).as_str())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The escaping [`RequestText::to_node`] applies.
pub fn escape(text: &str) -> String {
    html_escape::encode_quoted_attribute(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_enter_the_context_as_entities() {
        let t = RequestText::new(r#"<meta http-equiv="refresh" content='0'>&x"#);
        assert_eq!(
            t.to_node().as_str(),
            Some("&lt;meta http-equiv=&quot;refresh&quot; content=&#x27;0&#x27;&gt;&amp;x")
        );
        assert_eq!(t.raw(), r#"<meta http-equiv="refresh" content='0'>&x"#);
    }

    #[test]
    fn plain_text_is_unchanged() {
        assert_eq!(
            RequestText::new("Fern Pots").to_node().as_str(),
            Some("Fern Pots")
        );
    }
}
