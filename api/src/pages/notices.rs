//! The announcement bar and the cookie banner on visitor pages (the owner sets them:
//! [`crate::routes::owner::site_notices`]). Their markup is built once per content version
//! ([`Notices::build`], kept in the site's bundle); a page only copies it in, after
//! `<body…>` (the bar) and before `</body>` (the banner, so it comes last in the tab
//! order), with the page's own path for the dismiss form to return to. A template may
//! place the bar itself (`websiteSettings.announcementBarSettings.text`, as loam-lantern's
//! header does): a page that already shows the bar's text gets no second one. Neither uses a
//! script: each has a form that posts to [`DISMISS_PATH`] ([`crate::routes::notices`]),
//! which sets a cookie and sends the visitor back, and the next page leaves out what that
//! cookie dismissed. The markup's stylesheet is inline, allowed by its hash in the
//! Content-Security-Policy ([`STYLE`]).

use axum::http::HeaderMap;
use memchr::memmem::Finder;
use renderer::request_text::escape;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::sync::LazyLock;

use crate::routes::owner::site_notices::{
    DEFAULT_COOKIE_BUTTON, DEFAULT_COOKIE_TEXT, announcement_of, cookie_banner_of,
};

/// Where the dismiss forms post.
pub const DISMISS_PATH: &str = "/api/site-notices/dismiss";
/// The cookie of a dismissed announcement: the bar's [`Notices::version`], so a new
/// announcement shows again.
pub const ANNOUNCEMENT_COOKIE: &str = "tessera-announcement";
/// The cookie of an accepted cookie banner.
pub const COOKIES_COOKIE: &str = "tessera-cookies";
/// Its value.
pub const ACCEPTED: &str = "accepted";

/// The notices' stylesheet (inline; the policy allows it by its hash).
pub const STYLE: &str = ".tessera-announcement{display:flex;align-items:center;justify-content:center;gap:.75rem;padding:.5rem 1rem;background:#1a1a1a;color:#fff;font:14px/1.4 system-ui,sans-serif;text-align:center}.tessera-announcement a{color:inherit;text-decoration:underline}.tessera-announcement p,.tessera-cookie-banner p,.tessera-notice-form{margin:0}.tessera-announcement button{background:none;border:1px solid transparent;color:inherit;font:inherit;font-size:1.25rem;line-height:1;cursor:pointer;padding:.125rem .375rem}.tessera-cookie-banner{position:fixed;left:1rem;right:1rem;bottom:1rem;z-index:2147483000;display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:1rem;max-width:48rem;margin:0 auto;padding:1rem;background:#fff;color:#1a1a1a;border:1px solid #767676;border-radius:6px;box-shadow:0 2px 12px rgba(0,0,0,.2);font:15px/1.5 system-ui,sans-serif}.tessera-cookie-banner button{font:inherit;padding:.5rem 1rem;border:0;border-radius:4px;background:#1a1a1a;color:#fff;cursor:pointer}";

/// What the site's pages show, built from its settings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Notices {
    /// The bar: its version, and its markup before and after the return path.
    announcement: Option<(String, String, String)>,
    /// The bar's text as a template may have printed it: as is, and escaped.
    bar_text: Option<BarText>,
    /// The banner's markup before and after the return path.
    cookie_banner: Option<(String, String)>,
}

/// The searchers of the bar's text, as is and escaped, built once with the notices (every
/// kept page's parts are searched for it: building a searcher per search cost more than the
/// search).
#[derive(Clone, Debug)]
struct BarText {
    raw: Finder<'static>,
    /// `None` when escaping leaves the text as it is.
    escaped: Option<Finder<'static>>,
}

impl BarText {
    fn new(text: &str) -> BarText {
        let escaped = escape(text);
        BarText {
            raw: Finder::new(text.as_bytes()).into_owned(),
            escaped: (escaped != text).then(|| Finder::new(escaped.as_bytes()).into_owned()),
        }
    }

    /// Whether `text` has the bar's text, as is or escaped.
    fn in_text(&self, text: &[u8]) -> bool {
        self.raw.find(text).is_some()
            || self
                .escaped
                .as_ref()
                .is_some_and(|f| f.find(text).is_some())
    }
}

impl PartialEq for BarText {
    fn eq(&self, other: &BarText) -> bool {
        self.raw.needle() == other.raw.needle()
            && self.escaped.as_ref().map(Finder::needle)
                == other.escaped.as_ref().map(Finder::needle)
    }
}

/// The dismiss form's start: a hidden `notice` and the `redirect` field's opening.
fn form_start(notice: &str) -> String {
    format!(
        "<form class=\"tessera-notice-form\" method=\"post\" action=\"{DISMISS_PATH}\">\
         <input type=\"hidden\" name=\"notice\" value=\"{notice}\">\
         <input type=\"hidden\" name=\"redirect\" value=\""
    )
}

impl Notices {
    /// From `websiteSettings` (an enabled bar without text shows nothing).
    pub fn build(settings: &Map<String, Value>) -> Notices {
        let bar = announcement_of(settings);
        let bar_text = (bar.enabled && !bar.text.is_empty()).then(|| BarText::new(&bar.text));
        let announcement = (bar.enabled && !bar.text.is_empty()).then(|| {
            let digest = Sha256::digest(format!("{}\n{}", bar.text, bar.url).as_bytes());
            let version = hex::encode(&digest[..8]);
            let text = escape(&bar.text);
            let shown = if bar.url.is_empty() {
                text
            } else {
                format!("<a href=\"{}\">{text}</a>", escape(&bar.url))
            };
            let before = format!(
                "<div class=\"tessera-announcement\" role=\"region\" aria-label=\"Announcement\">\
                 <p>{shown}</p>{}",
                form_start("announcement")
            );
            let after = "\"><button type=\"submit\" aria-label=\"Dismiss the announcement\">\
                         <span aria-hidden=\"true\">×</span></button></form></div>"
                .to_owned();
            (version, before, after)
        });
        let banner = cookie_banner_of(settings);
        let cookie_banner = banner.enabled.then(|| {
            let text = if banner.text.is_empty() {
                DEFAULT_COOKIE_TEXT
            } else {
                &banner.text
            };
            let label = if banner.button_label.is_empty() {
                DEFAULT_COOKIE_BUTTON
            } else {
                &banner.button_label
            };
            let before = format!(
                "<div class=\"tessera-cookie-banner\" role=\"region\" aria-label=\"Cookie notice\">\
                 <p>{}</p>{}",
                escape(text),
                form_start("cookies")
            );
            let after = format!(
                "\"><button type=\"submit\">{}</button></form></div>",
                escape(label)
            );
            (before, after)
        });
        Notices {
            announcement,
            bar_text,
            cookie_banner,
        }
    }

    /// Nothing to show on any page.
    pub fn is_empty(&self) -> bool {
        self.announcement.is_none() && self.cookie_banner.is_none()
    }

    /// The announcement's version (a hash of its text and link), if the bar shows.
    pub fn version(&self) -> Option<&str> {
        self.announcement.as_ref().map(|(v, _, _)| v.as_str())
    }

    /// The bar, unless the visitor dismissed this one.
    fn bar_for(&self, headers: &HeaderMap) -> Option<&(String, String, String)> {
        self.announcement.as_ref().filter(|(v, _, _)| {
            !crate::http::cookies::values(headers, ANNOUNCEMENT_COOKIE).any(|c| c == v)
        })
    }

    /// The banner, unless the visitor accepted it.
    fn banner_for(&self, headers: &HeaderMap) -> Option<&(String, String)> {
        self.cookie_banner.as_ref().filter(|_| {
            !crate::http::cookies::values(headers, COOKIES_COOKIE).any(|c| c == ACCEPTED)
        })
    }

    /// Whether `text` (all or part of a page) shows the bar's text, as is or escaped.
    fn template_shows_bar(&self, text: &[u8]) -> bool {
        self.bar_text.as_ref().is_some_and(|b| b.in_text(text))
    }

    /// Whether [`Notices::add_to`] could change the page that is the concatenation of
    /// `parts` for this visitor: `false` only when it certainly leaves it as it is (the
    /// visitor dismissed what shows, or the template placed the bar itself in one of the
    /// parts and there is no banner to show), so a kept page's parts need not be put
    /// together into one text to find that out.
    pub fn may_change(&self, parts: &[axum::body::Bytes], headers: &HeaderMap) -> bool {
        if self.banner_for(headers).is_some() {
            return true;
        }
        // Found in one part is found in the page; found in none, the page decides (the
        // text could straddle two parts).
        self.bar_for(headers)
            .is_some_and(|_| !parts.iter().any(|p| self.template_shows_bar(p)))
    }

    /// Copies into `body` what the visitor (their `headers`' cookies) has not dismissed,
    /// each dismiss form returning to `back` (the page's path and query).
    pub fn add_to(&self, body: &mut String, headers: &HeaderMap, back: &str) {
        static BODY: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("<body"));
        static BODY_END: LazyLock<memchr::memmem::FinderRev<'static>> =
            LazyLock::new(|| memchr::memmem::FinderRev::new("</body>"));
        let bar = self
            .bar_for(headers)
            // The template placed the bar itself.
            .filter(|_| !self.template_shows_bar(body.as_bytes()));
        let banner = self.banner_for(headers);
        if bar.is_none() && banner.is_none() {
            return;
        }
        let back = escape(back);
        let mut style = Some(format!("<style>{STYLE}</style>"));
        // The banner first: inserting it does not move where the body starts.
        if let Some((before, after)) = banner
            && let Some(at) = BODY_END.rfind(body.as_bytes())
        {
            let markup = format!("{}{before}{back}{after}", style.take().unwrap_or_default());
            body.insert_str(at, &markup);
        }
        if let Some((_, before, after)) = bar
            && let Some(start) = BODY.find(body.as_bytes())
            && let Some(end) = body[start..].find('>')
        {
            let markup = format!("{}{before}{back}{after}", style.take().unwrap_or_default());
            body.insert_str(start + end + 1, &markup);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderValue, header};
    use serde_json::json;

    fn settings(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    const PAGE: &str = "<html><body class=\"home\"><main>Hi</main></body></html>";

    #[test]
    fn nothing_unless_enabled_with_text() {
        assert!(Notices::build(&Map::new()).is_empty());
        let off = settings(json!({"cookieBanner": {"enabled": false}}));
        assert!(Notices::build(&off).is_empty());
        let empty = settings(json!({"announcementBarSettings": {"text": "  "}}));
        assert!(Notices::build(&empty).is_empty());
        let mut page = PAGE.to_owned();
        Notices::build(&off).add_to(&mut page, &HeaderMap::new(), "/");
        assert_eq!(page, PAGE);
    }

    #[test]
    fn the_bar_opens_the_body_and_the_banner_closes_it_escaped() {
        let n = Notices::build(&settings(json!({
            "announcementBarSettings": {"text": "Sale <b>& more</b>", "clickthroughUrl": {"url": "/shop?a=1&b=\"2\""}},
            "cookieBanner": {"enabled": true, "text": "", "buttonLabel": "OK <then>"},
        })));
        let mut page = PAGE.to_owned();
        n.add_to(&mut page, &HeaderMap::new(), "/blog?x=\"<y>\"");
        let bar = page.find("<div class=\"tessera-announcement\"").unwrap();
        let banner = page.find("<div class=\"tessera-cookie-banner\"").unwrap();
        assert!(page.find("<body class=\"home\">").unwrap() < bar);
        assert!(bar < page.find("<main>").unwrap());
        assert!(page.find("</main>").unwrap() < banner);
        assert!(banner < page.find("</body>").unwrap());
        // One stylesheet, before the first notice.
        assert_eq!(page.matches("<style>").count(), 1);
        assert!(page.find("<style>").unwrap() < page.find("tessera-cookie-banner\"").unwrap());
        assert!(page.contains("<p><a href=\"/shop?a=1&amp;b=&quot;2&quot;\">Sale &lt;b&gt;&amp; more&lt;/b&gt;</a></p>"), "{page}");
        assert!(page.contains(DEFAULT_COOKIE_TEXT));
        assert!(page.contains("<button type=\"submit\">OK &lt;then&gt;</button>"));
        assert_eq!(
            page.matches("name=\"redirect\" value=\"/blog?x=&quot;&lt;y&gt;&quot;\"")
                .count(),
            2,
            "{page}"
        );
        assert!(!page.contains("<y>"));
    }

    #[test]
    fn each_stays_away_once_dismissed_and_a_new_announcement_shows_again() {
        let bar = |text: &str| {
            Notices::build(&settings(json!({
                "announcementBarSettings": {"text": text},
                "cookieBanner": {"enabled": true},
            })))
        };
        let n = bar("Sale");
        let version = n.version().unwrap().to_owned();
        assert_eq!(version.len(), 16);
        let mut headers = HeaderMap::new();
        let cookie = format!("a=b; {ANNOUNCEMENT_COOKIE}={version}; {COOKIES_COOKIE}={ACCEPTED}");
        headers.insert(header::COOKIE, HeaderValue::from_str(&cookie).unwrap());
        let mut page = PAGE.to_owned();
        n.add_to(&mut page, &headers, "/");
        assert_eq!(page, PAGE);
        // Another announcement has another version: it shows; the banner stays accepted.
        let other = bar("Closed Monday");
        assert_ne!(other.version().unwrap(), version);
        let mut page = PAGE.to_owned();
        other.add_to(&mut page, &headers, "/");
        assert!(page.contains("Closed Monday"));
        assert!(!page.contains("<div class=\"tessera-cookie-banner\""));
    }

    #[test]
    fn pages_in_parts_are_put_together_only_when_a_notice_may_go_in() {
        use axum::body::Bytes;
        let parts = |page: &str| -> Vec<Bytes> {
            page.split("CRUMB")
                .map(|p| Bytes::copy_from_slice(p.as_bytes()))
                .collect()
        };
        let placed = "<html><body><header><p>Sale &amp; more</p></header>\
                      <input name=\"crumb\" value=\"CRUMB\"></body></html>";
        let not_placed =
            "<html><body><p>Sale</p><input name=\"crumb\" value=\"CRUMB\"></body></html>";
        let bar = Notices::build(&settings(
            json!({"announcementBarSettings": {"text": "Sale & more"}}),
        ));
        let both = Notices::build(&settings(json!({
            "announcementBarSettings": {"text": "Sale & more"},
            "cookieBanner": {"enabled": true},
        })));
        let mut dismissed = HeaderMap::new();
        let cookie = format!(
            "{ANNOUNCEMENT_COOKIE}={}; {COOKIES_COOKIE}={ACCEPTED}",
            both.version().unwrap()
        );
        dismissed.insert(header::COOKIE, HeaderValue::from_str(&cookie).unwrap());
        let none = HeaderMap::new();
        for (notices, page, headers, may) in [
            // The template shows the bar: nothing to add.
            (&bar, placed, &none, false),
            (&bar, not_placed, &none, true),
            (&bar, not_placed, &dismissed, false),
            // The banner goes in wherever the bar is.
            (&both, placed, &none, true),
            (&both, not_placed, &dismissed, false),
            (&both, placed, &dismissed, false),
        ] {
            assert_eq!(notices.may_change(&parts(page), headers), may, "{page}");
            // Where it says no, the whole page is indeed left as it is.
            if !may {
                let whole = page.replace("CRUMB", "0123abcd");
                let mut body = whole.clone();
                notices.add_to(&mut body, headers, "/");
                assert_eq!(body, whole);
            }
        }
        // The text across two parts: found only in the whole page, which is then asked.
        let straddling = parts("<html><body><p>Sale &CRUMB more</p></body></html>");
        assert!(bar.may_change(&straddling, &none));
        let mut body = "<html><body><p>Sale & more</p></body></html>".to_owned();
        let before = body.clone();
        bar.add_to(&mut body, &none, "/");
        assert_eq!(body, before);
    }

    #[test]
    fn a_template_that_shows_the_bar_gets_no_second_one() {
        let n = Notices::build(&settings(
            json!({"announcementBarSettings": {"text": "Sale & more"}}),
        ));
        for shown in ["Sale & more", "Sale &amp; more"] {
            let mut page = format!(
                "<html><body><header><p class=\"announcement\">{shown}</p></header></body></html>"
            );
            let before = page.clone();
            n.add_to(&mut page, &HeaderMap::new(), "/");
            assert_eq!(page, before);
        }
        // A text that escaping leaves as it is (one searcher), shown and not.
        let plain = Notices::build(&settings(
            json!({"announcementBarSettings": {"text": "Free shipping"}}),
        ));
        let mut shown = "<html><body><p>Free shipping</p></body></html>".to_owned();
        let before = shown.clone();
        plain.add_to(&mut shown, &HeaderMap::new(), "/");
        assert_eq!(shown, before);
        let mut other = "<html><body><p>Free returns</p></body></html>".to_owned();
        plain.add_to(&mut other, &HeaderMap::new(), "/");
        assert!(other.contains("tessera-announcement"), "{other}");
        let part = [axum::body::Bytes::from_static(b"<p>Free shipping</p>")];
        assert!(!plain.may_change(&part, &HeaderMap::new()));
        let part = [axum::body::Bytes::from_static(b"<p>Free returns</p>")];
        assert!(plain.may_change(&part, &HeaderMap::new()));
    }
}
