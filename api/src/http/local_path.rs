//! Where the server may send a visitor back to after a form (the lock screen, joining a
//! member area, a sign-up link): a path on the site the request came in on, and nothing
//! else. One rule for every such redirect, so none of them can be talked into sending a
//! visitor to another site (`//evil.example`, `/\evil.example`, `https://…`) or into
//! splitting a header (`\r\n`).

/// The longest path kept; a longer one is the home page.
const MAX_LEN: usize = 2048;

/// `raw` (trimmed) if it is a path on this site: one leading `/`, not two, and printable
/// ASCII without a backslash (a browser's path and query are percent-encoded, so nothing
/// real is lost); else `/`.
pub fn local_path(raw: Option<&str>) -> &str {
    match raw.map(str::trim) {
        Some(p)
            if p.starts_with('/')
                && !p.starts_with("//")
                && p.len() <= MAX_LEN
                && p.bytes().all(|b| (0x21..=0x7e).contains(&b) && b != b'\\') =>
        {
            p
        }
        _ => "/",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_on_the_site_are_kept() {
        for good in [
            "/",
            "/members",
            "/blog?category=A%20B",
            "/club/lesson-1?x=1&y=2",
        ] {
            assert_eq!(local_path(Some(good)), good);
        }
        assert_eq!(local_path(Some("  /members ")), "/members");
    }

    #[test]
    fn anything_else_is_the_home_page() {
        let long = format!("/{}", "a".repeat(MAX_LEN));
        for bad in [
            None,
            Some(""),
            Some("members"),
            Some("//evil.example/"),
            Some("/\\evil.example"),
            Some("\\\\evil.example"),
            Some("https://evil.example/"),
            Some("javascript:alert(1)"),
            Some("/a b"),
            Some("/a\r\nSet-Cookie: x=1"),
            Some("/a\tb"),
            Some("/café"),
            Some(long.as_str()),
        ] {
            assert_eq!(local_path(bad), "/", "{bad:?}");
        }
    }
}
