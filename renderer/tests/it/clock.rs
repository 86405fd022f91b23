//! What a render says it read of the clock ([`renderer::render::Clock`]), for servers that
//! keep renders: nothing on a plain page, the next event's end on an events list, and
//! always on a folder whose templates print the time from now.

use std::sync::Arc;

use renderer::folder::{TemplateFiles, load};
use renderer::render::{Clock, Request, render};
use renderer::site::SiteContent;

fn files(list: &str) -> TemplateFiles {
    [
        (
            "template.conf",
            r#"{ "name": "Test", "layouts": { "default": { "name": "Default", "regions": ["site"] } } }"#,
        ),
        ("site.region", "<html><body>{squarespace.main-content}</body></html>"),
        ("collections/events.conf", r#"{ "title": "Events" }"#),
        ("collections/events.list", list),
        ("collections/events.item", "{.section item}{title}{.end}"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), Arc::from(v.as_bytes())))
    .collect()
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as f64
}

/// An events collection: one over an hour ago, one ending in an hour, one in two hours
/// (no end: its start counts).
fn site(now: f64) -> SiteContent {
    let hour = 3_600_000.0;
    let doc = serde_json::json!({
        "website": { "siteTitle": "Test Site" },
        "collections": [
            { "id": "c1", "urlId": "home", "fullUrl": "/", "title": "Home", "typeName": "page",
              "type": 10, "homepage": true, "mainContent": "<p>Welcome</p>" },
            { "id": "c2", "urlId": "events", "fullUrl": "/events", "title": "Events",
              "typeName": "events", "type": 2, "items": [
                { "id": "e1", "urlId": "gone", "fullUrl": "/events/gone", "title": "Gone",
                  "startDate": now - 3.0 * hour, "endDate": now - 2.0 * hour },
                { "id": "e2", "urlId": "fair", "fullUrl": "/events/fair", "title": "Fair",
                  "startDate": now - hour, "endDate": now + hour },
                { "id": "e3", "urlId": "talk", "fullUrl": "/events/talk", "title": "Talk",
                  "startDate": now + 2.0 * hour }
            ]}
        ]
    });
    SiteContent::from_json(&doc).unwrap()
}

fn clock(list: &str, path: &str, query: &str, now: f64) -> Clock {
    let folder = load(&files(list));
    assert!(folder.problems.is_empty(), "{:?}", folder.problems);
    let req = Request {
        path,
        query,
        ..Default::default()
    };
    let page = render(&site(now), &folder, &req);
    assert_eq!(page.status, 200, "{}", page.body);
    page.clock
}

#[test]
fn an_events_list_is_the_same_until_its_next_event_ends() {
    let now = now_ms();
    let list = "{.repeated section upcoming}{title} {.end}|{.repeated section past}{title} {.end}";
    // The fair ends in an hour: from the next millisecond it is past.
    let until = Clock::Until(now + 3_600_000.0 + 1.0);
    assert_eq!(clock(list, "/events", "", now), until);
    assert_eq!(clock(list, "/events", "format=json", now), until);
    // Pages that show no list do not read the clock.
    assert_eq!(clock(list, "/", "", now), Clock::Unread);
    assert_eq!(clock(list, "/events/fair", "", now), Clock::Unread);
}

#[test]
fn a_folder_that_prints_time_from_now_reads_the_clock_on_every_page() {
    let now = now_ms();
    for list in [
        "{.repeated section items}{startDate|timesince}{.end}",
        "{.repeated section items}{startDate|relative-time}{.end}",
    ] {
        assert!(load(&files(list)).reads_clock, "{list}");
        assert_eq!(clock(list, "/", "", now), Clock::Read, "{list}");
    }
    assert!(!load(&files("{.repeated section items}{title}{.end}")).reads_clock);
}
