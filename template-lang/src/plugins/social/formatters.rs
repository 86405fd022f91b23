//! The social formatters: comment counts and links, like, share and follow buttons,
//! Google Calendar links and Twitter text.

use std::fmt::Write as _;
use std::sync::{Arc, LazyLock};

use super::super::Registry;
use crate::compile::Template;
use crate::exec::Ctx;
use crate::plugins::content::calendar::UtcFields;
use crate::plugins::content::{DATE_OUT_OF_RANGE, builtin, get, run_builtin};
use crate::plugins::util::{ENCODE_URI_COMPONENT, escape_attr, percent_encode};
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::number::{js_trim, push_number};
use crate::value::{Key, Val, key};

pub fn register(r: &mut Registry) {
    r.add_formatter("activate-twitter-links", activate_twitter_links);
    r.add_formatter("comment-count", comment_count);
    r.add_formatter("comment-link", comment_link);
    r.add_formatter("comments", comments);
    r.add_formatter("google-calendar-url", google_calendar_url);
    r.add_formatter("like-button", like_button);
    r.add_formatter("social-button", social_button);
    r.add_formatter("social-button-inline", social_button_inline);
    r.add_formatter("twitter-follow-button", twitter_follow_button);
}

/// `activate-twitter-links`: links, `@mentions` and `#hashtags` as anchors.
fn activate_twitter_links<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(super::twitter::activate(&vars[0].view().to_str()));
}

/// `comment-count`: "No Comments", "1 Comment" or "N Comments" (SPEC.md §2).
fn comment_count<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let count = get(&vars[0], key!("publicCommentCount")).view().to_number();
    let mut out = String::with_capacity(12);
    if count == 0.0 {
        out.push_str("No");
    } else {
        push_number(count, &mut out);
    }
    out.push_str(" Comment");
    if count != 1.0 {
        out.push('s');
    }
    vars[0] = Val::Text(out);
}

/// `comment-link`: the link to an item's comments (or its Disqus thread).
fn comment_link<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static TEMPLATE: LazyLock<Arc<Template>> =
        LazyLock::new(|| builtin(include_str!("comment-link.html")));
    let node = std::mem::take(&mut vars[0]);
    vars[0] = Val::Text(run_builtin(ctx, "comment-link", &TEMPLATE, node, false));
}

/// `comments`: the mount point of the comments of an item or collection.
fn comments<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static TEMPLATE: LazyLock<Arc<Template>> =
        LazyLock::new(|| builtin(include_str!("comments.html")));
    let node = std::mem::take(&mut vars[0]);
    vars[0] = Val::Text(run_builtin(ctx, "comments", &TEMPLATE, node, false));
}

/// `like-button`: the like button of an item, when the site has simple liking on.
fn like_button<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static TEMPLATE: LazyLock<Arc<Template>> =
        LazyLock::new(|| builtin(include_str!("like-button.html")));
    let node = std::mem::take(&mut vars[0]);
    vars[0] = Val::Text(run_builtin(ctx, "like-button", &TEMPLATE, node, false));
}

/// JavaScript's `escape`: UTF-16 units outside `A-Za-z0-9@*_+-./` as `%XX` or `%uXXXX`.
pub(crate) fn js_escape(s: &str, out: &mut String) {
    for unit in s.encode_utf16() {
        match u8::try_from(unit) {
            Ok(b) if b.is_ascii_alphanumeric() || b"@*_+-./".contains(&b) => out.push(b as char),
            Ok(b) => {
                let _ = write!(out, "%{b:02X}");
            }
            Err(_) => {
                let _ = write!(out, "%u{unit:04X}");
            }
        }
    }
}

/// `yyyymmddThhmmssZ` in UTC.
fn push_calendar_date(f: &UtcFields, out: &mut String) {
    let _ = write!(
        out,
        "{}{:02}{:02}T{:02}{:02}{:02}Z",
        f.year, f.month, f.day, f.hour, f.minute, f.second
    );
}

/// `google-calendar-url`: an "add to Google Calendar" link for an event: its title, its
/// start and end in UTC (SPEC.md §9) and its address. Dates the calendar cannot represent
/// make the reference throw: the tag is abandoned with an execution error.
fn google_calendar_url<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let node = &vars[0];
    let start = UtcFields::from_epoch_ms(get(node, key!("startDate")).view().to_number());
    let end = UtcFields::from_epoch_ms(get(node, key!("endDate")).view().to_number());
    let (Some(start), Some(end)) = (start, end) else {
        ctx.fail(DATE_OUT_OF_RANGE);
        return;
    };
    let mut out = String::from("http://www.google.com/calendar/event?action=TEMPLATE&text=");
    js_escape(&get(node, key!("title")).view().to_str(), &mut out);
    out.push_str("&dates=");
    push_calendar_date(&start, &mut out);
    out.push('/');
    push_calendar_date(&end, &mut out);

    let location = get(node, key!("location"));
    if !location.is_missing() {
        let parts = ["addressLine1", "addressLine2", "addressCountry"]
            .map(|key| get(&location, Key::new(key)).view().to_str().into_owned());
        let address: Vec<&str> = parts
            .iter()
            .map(|p| js_trim(p))
            .filter(|p| !p.is_empty())
            .collect();
        if !address.is_empty() {
            out.push_str("&location=");
            out.push_str(&percent_encode(&address.join(", "), ENCODE_URI_COMPONENT));
        }
    }
    vars[0] = Val::Text(out);
}

/// `social-button` / `social-button-inline`: the share buttons' mount point for an item,
/// when the site has share buttons configured.
fn share_buttons<'a>(ctx: &Ctx<'a>, item: &Val<'a>, inline: bool) -> String {
    static WEBSITE: LazyLock<VarPath> = LazyLock::new(|| VarPath::from_dotted("website"));
    let website = ctx.resolve(&*WEBSITE);
    let options = get(&website, key!("shareButtonOptions"));
    if website.is_missing() || options.is_missing() || options.view().size() == 0 {
        return String::new();
    }
    let mut image_id = get(item, key!("systemDataId"));
    if image_id.is_missing() {
        image_id = get(item, key!("mainImageId"));
    }
    let mut asset_url = get(item, key!("assetUrl"));
    if asset_url.is_missing() {
        asset_url = get(&get(item, key!("mainImage")), key!("assetUrl"));
    }
    let mut out = String::with_capacity(256);
    out.push_str(if inline { "<span " } else { "<div " });
    out.push_str("class=\"squarespace-social-buttons ");
    out.push_str(if inline {
        "inline-style"
    } else {
        "button-style"
    });
    out.push_str("\" data-system-data-id=\"");
    out.push_str(&image_id.view().to_str());
    out.push_str("\" data-asset-url=\"");
    out.push_str(&asset_url.view().to_str());
    out.push_str("\" data-record-type=\"");
    out.push_str(&get(item, key!("recordType")).view().to_str());
    out.push_str("\" data-full-url=\"");
    out.push_str(&get(item, key!("fullUrl")).view().to_str());
    out.push_str("\" data-title=\"");
    escape_attr(&get(item, key!("title")).view().to_str(), &mut out);
    out.push_str("\">");
    out.push_str(if inline { "</span>" } else { "</div>" });
    out
}

fn social_button<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(share_buttons(ctx, &vars[0], false));
}

fn social_button_inline<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::Text(share_buttons(ctx, &vars[0], true));
}

/// `twitter-follow-button`: the follow button for a Twitter account, named by its
/// `userName` or else the last path piece of its `profileUrl`.
fn twitter_follow_button<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let account = &vars[0];
    let mut user = get(account, key!("userName")).view().to_str().into_owned();
    if user.is_empty() {
        let url = get(account, key!("profileUrl"));
        user = url
            .view()
            .to_str()
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string();
    }
    let mut out = String::with_capacity(200 + user.len());
    out.push_str(
        "<script>Y.use('squarespace-follow-buttons', function(Y) { \
         Y.on('domready', function() { Y.Squarespace.FollowButtonUtils.renderAll(); }); });\
         </script><div class=\"squarespace-follow-button\" data-username=\"",
    );
    out.push_str(&user);
    out.push_str("\"></div>");
    vars[0] = Val::Text(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_like_javascript() {
        let mut s = String::new();
        js_escape("a b&é€\u{1F600}@*_+-./~", &mut s);
        assert_eq!(s, "a%20b%26%E9%u20AC%uD83D%uDE00@*_+-./%7E");
    }
}
