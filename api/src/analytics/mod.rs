//! Recording what visitors do: the batched queue every record goes through ([`queue`]),
//! the page views the server counts as it answers pages ([`page_views`]), and events the
//! server itself knows of ([`record`]). The tracking calls are
//! [`crate::routes::analytics`].

pub mod calendar;
pub mod page_views;
pub mod queue;

use serde_json::{Map, Value};
use tenants::{AnalyticsEvent, now_ms};

use crate::http::call::Call;
use crate::http::cookies;
use crate::server::state::App;
use queue::Record;

/// The first roll-up day of the `days` that end today (UTC days: today is one of them).
pub fn first_day(days: u16) -> i64 {
    tenants::day_of(tenants::now_ms()) - (i64::from(days) - 1)
}

/// The cookie that names a visitor (SPEC.md §3 "Cookies"), two years.
pub const VISITOR_COOKIE: &str = "ss_cvr";

/// The page path an event is about: `pagePath`, else the path of `url`.
pub fn page_path(data: &Map<String, Value>) -> String {
    let raw = data
        .get("pagePath")
        .or_else(|| data.get("page_path"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| {
            let url = data.get("url").and_then(Value::as_str)?;
            let after_host = url.split_once("://").map_or(url, |(_, r)| r);
            Some(format!(
                "/{}",
                after_host.split_once('/').map_or("", |(_, p)| p)
            ))
        })
        .unwrap_or_default();
    page_path_of(&raw)
}

/// A page path as counted: without its query or fragment, at most 512 characters.
pub fn page_path_of(raw: &str) -> String {
    let path = raw.split(['?', '#']).next().unwrap_or("");
    // 512 bytes are at most 512 characters: most paths are copied as they are.
    let end = if path.len() <= 512 {
        path.len()
    } else {
        path.char_indices().nth(512).map_or(path.len(), |(i, _)| i)
    };
    path[..end].to_owned()
}

/// The host of the page the visitor came from (`referrer`, `page_referrer_url` or
/// `referrerUrl`), unless it is this site.
pub fn referrer_of(data: &Map<String, Value>, own_host: &str) -> Option<String> {
    let url = ["referrer", "page_referrer_url", "referrerUrl"]
        .iter()
        .find_map(|k| data.get(*k).and_then(Value::as_str))?;
    referrer_host(url, own_host)
}

/// The host of a referring URL, unless it is this site.
pub fn referrer_host(url: &str, own_host: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?.to_ascii_lowercase();
    let own = own_host
        .split(':')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    (!host.is_empty() && host.len() <= 253 && host != own).then_some(host)
}

/// The visitor cookie, if it looks like one.
pub(crate) fn visitor_of(call: &Call, form: Option<&str>) -> Option<String> {
    cookies::values(&call.headers, VISITOR_COOKIE)
        .next()
        .or(form)
        .filter(|v| (1..=128).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
}

/// Queues an event (when analytics is on).
pub(crate) fn keep(
    app: &App,
    call: &Call,
    name: &str,
    mut data: Map<String, Value>,
    visitor: Option<String>,
) {
    if let Some(q) = &app.analytics {
        // A page view's visit is the one its session cookie names, never what the call says.
        data.remove(tenants::SESSION_KEY);
        if tenants::VISIT_EVENTS.contains(&name)
            && let Some(session) = page_views::session_of(&call.headers)
        {
            data.insert(tenants::SESSION_KEY.into(), Value::String(session));
        }
        let event = AnalyticsEvent {
            occurred_ms: now_ms(),
            name: name.to_owned(),
            page_path: page_path(&data),
            referrer: referrer_of(&data, &call.host()),
            visitor_id: visitor,
            data: Value::Object(data),
        };
        q.push(Record::Event(call.site.tenant.id, event));
    }
}

/// Records an event the server itself knows of (a cart add, an order), with the
/// visitor's cookie; nothing when analytics is off.
pub fn record(app: &App, call: &Call, name: &str, data: Value) {
    let data = match data {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    keep(app, call, name, data, visitor_of(call, None));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_paths_lose_their_query_and_stop_at_512_characters() {
        assert_eq!(page_path_of("/shop/x?a=1#top"), "/shop/x");
        assert_eq!(page_path_of("/a#b?c"), "/a");
        assert_eq!(page_path_of(""), "");
        for (c, n) in [
            ("a", 511),
            ("a", 512),
            ("a", 513),
            ("é", 300),
            ("é", 600),
            ("€", 513),
        ] {
            let path = format!("/{}", c.repeat(n));
            let expected: String = path.chars().take(512).collect();
            assert_eq!(page_path_of(&path), expected, "{c} × {n}");
        }
    }
}
