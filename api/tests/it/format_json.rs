//! `?format=json` (a page's context, for template authors) hides what is private, on both
//! backends: every page of every demo tenant, reached as an anonymous visitor by following
//! links from the home page, the protected pages and items themselves and searches for
//! words of their content, answers JSON that names no collection or member password, no
//! password hash, no member's email, none of the content of a password-protected
//! collection or a member area, and no key that carries a password, a secret or the
//! tenant's internal id. Once a visitor unlocks
//! the protected page, its JSON shows the content: the check can see a leak.

use std::collections::{BTreeSet, VecDeque};

use crate::support::{Backend, Server, Visitor, fixture_dirs, request};
use serde_json::Value;

/// What no anonymous page may show, from one demo tenant's files.
struct Private {
    host: String,
    /// Passwords (as JSON strings), member emails and text of protected content.
    needles: Vec<String>,
    /// Where to start besides the home page: the protected pages and items themselves, and
    /// searches for words of their content.
    seeds: Vec<String>,
    /// A password-protected page: (path, collection id, password, text it shows unlocked).
    locked: Option<(String, String, String, String)>,
}

/// Some plain text from inside an HTML fragment: the first paragraph's first 40 characters.
fn text_of(html: &str) -> Option<String> {
    let after = html.split("<p>").nth(1)?;
    let text: String = after.split('<').next()?.chars().take(40).collect();
    (text.len() >= 20).then_some(text)
}

fn private_of(dir: &std::path::Path) -> Private {
    let read = |p: std::path::PathBuf| -> Value {
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
    };
    let tenant = read(dir.join("tenant.json"));
    let domain = &tenant["domains"][0];
    let host = domain["host"]
        .as_str()
        .or(domain.as_str())
        .unwrap()
        .to_owned();
    let mut needles = Vec::new();
    let mut seeds = Vec::new();
    let mut locked = None;
    if dir.join("site-users.json").is_file() {
        for user in read(dir.join("site-users.json")).as_array().unwrap() {
            needles.push(format!("\"{}\"", user["password"].as_str().unwrap()));
            needles.push(user["email"].as_str().unwrap().to_owned());
        }
    }
    for entry in std::fs::read_dir(dir.join("collections")).unwrap() {
        let file = entry.unwrap().path();
        let c = read(file.clone());
        let password = c["password"].as_str();
        if password.is_none() && c.get("memberArea").is_none() {
            continue;
        }
        // A collection's URL is its urlId, else its file's name.
        let url_id = c["urlId"].as_str().map_or_else(
            || file.file_stem().unwrap().to_string_lossy().into_owned(),
            str::to_owned,
        );
        seeds.push(format!("/{url_id}"));
        let mut texts: Vec<String> = c["data"]["mainContent"]
            .as_str()
            .into_iter()
            .map(str::to_owned)
            .collect();
        for item in c["items"].as_array().into_iter().flatten() {
            texts.extend(item["body"].as_str().map(str::to_owned));
            seeds.push(format!("/{url_id}/{}", item["urlId"].as_str().unwrap()));
        }
        let texts: Vec<String> = texts.iter().filter_map(|t| text_of(t)).collect();
        assert!(
            !texts.is_empty(),
            "{host}: a protected collection without text"
        );
        for t in &texts {
            // A long word of it: searching for it would find it, if search could.
            seeds.extend(t.split_whitespace().find(|w| w.len() >= 6).map(|w| {
                let w = w.trim_matches(|c: char| !c.is_alphanumeric());
                format!("/search?q={w}")
            }));
        }
        if let Some(password) = password {
            // As a JSON string: "orion" is also a word of a public gallery item's name.
            needles.push(format!("\"{password}\""));
            let path = format!("/{url_id}");
            locked = Some((
                path,
                c["id"].as_str().unwrap().to_owned(),
                password.to_owned(),
                texts[0].clone(),
            ));
        }
        needles.extend(texts);
    }
    Private {
        host,
        needles,
        seeds,
        locked,
    }
}

/// Keys no page context may have (lower case).
const PRIVATE_KEYS: [&str; 6] = [
    "password",
    "passwordhash",
    "secret",
    "tenantid",
    "tenant_id",
    "hash",
];

fn check_keys(at: &str, v: &Value) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                assert!(
                    !PRIVATE_KEYS.contains(&k.to_ascii_lowercase().as_str()),
                    "{at}: the key {k}"
                );
                check_keys(at, v);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| check_keys(at, v)),
        _ => {}
    }
}

/// Every page a visitor reaches from the home page, the cart, checkout and `seeds`.
fn pages(v: &mut Visitor, seeds: &[String]) -> Vec<String> {
    let mut queue: VecDeque<String> = ["/", "/cart", "/checkout", "/search?q=the"]
        .into_iter()
        .map(str::to_owned)
        .chain(seeds.iter().cloned())
        .collect();
    let mut seen: BTreeSet<String> = queue.iter().cloned().collect();
    let mut out = Vec::new();
    while let Some(path) = queue.pop_front() {
        let r = v.get(&path);
        if !r
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/html"))
        {
            continue;
        }
        out.push(path);
        for href in r.body.split("href=\"").skip(1) {
            let link = href.split(['"', '#']).next().unwrap_or_default();
            let skip = [
                "/assets/",
                "/scripts/",
                "/styles/",
                "/config",
                "/_tessera/",
                "//",
            ];
            if link.starts_with('/')
                && !skip.iter().any(|s| link.starts_with(s))
                && seen.len() < 400
                && seen.insert(link.to_owned())
            {
                queue.push_back(link.to_owned());
            }
        }
    }
    out
}

fn format_json_hides_private_fields(backend: Backend) {
    let server = Server::start(backend, &[]);
    let mut checked = 0;
    for dir in fixture_dirs() {
        let private = private_of(&dir);
        let mut v = Visitor::new(&server, &private.host, "203.0.113.40");
        let pages = pages(&mut v, &private.seeds);
        assert!(pages.len() > 3, "{}: {pages:?}", private.host);
        for path in pages {
            let sep = if path.contains('?') { '&' } else { '?' };
            for format in ["json", "json-pretty"] {
                let r = v.get(&format!("{path}{sep}format={format}"));
                let at = format!("{}{path} ({format})", private.host);
                let json: Value = serde_json::from_str(&r.body)
                    .unwrap_or_else(|e| panic!("{at}: not JSON ({e}): {}", r.status));
                for needle in &private.needles {
                    assert!(!r.body.contains(needle.as_str()), "{at} shows {needle:?}");
                }
                assert!(!r.body.contains("$argon2"), "{at} shows a password hash");
                check_keys(&at, &json);
                checked += 1;
            }
        }
        // The protected page's JSON shows its content only once unlocked.
        if let Some((path, id, password, text)) = &private.locked {
            let json_path = format!("{path}?format=json");
            let locked = v.get(&json_path);
            assert_eq!(locked.header("x-page-type"), Some("103"), "{json_path}");
            assert!(!locked.body.contains(text.as_str()));
            let body = form_urlencoded::Serializer::new(String::new())
                .append_pair("collectionId", id)
                .append_pair("password", password)
                .finish();
            let r = v.send(
                "POST",
                "/api/lock-screen/unlock",
                &[("Content-Type", "application/x-www-form-urlencoded")],
                &body,
            );
            assert_eq!(r.status, 303, "{}", r.head);
            let open = v.get(&json_path);
            assert!(open.body.contains(text.as_str()), "{}", open.body);
            // Another visitor still gets the lock screen.
            let stranger = request(server.port, "GET", &private.host, &json_path, &[], "");
            assert!(!stranger.body.contains(text.as_str()));
        }
    }
    assert!(checked > 300, "only {checked} pages checked");
}

on_both_backends!(format_json_hides_private_fields);

/// `website` carries the fields the platform derives, the same on every page type and
/// whatever host the page was asked on: the id the owner and order APIs use, the
/// identifier, the URLs from the site's configured domains (the primary one, never the
/// request's Host), the time zone's offset and abbreviation, the switches templates read.
#[test]
fn website_has_the_derived_fields_on_every_page() {
    let server = Server::start(Backend::Embedded, &[]);
    let mut seen: Option<Value> = None;
    for (host, path) in [
        ("quillback.localhost", "/"),
        ("www.quillback.localhost", "/"),
        ("quillback-cycles.localhost", "/search"),
        ("quillback.localhost", "/no-such-page"),
        ("quillback.localhost", "/cart"),
    ] {
        let r = request(
            server.port,
            "GET",
            host,
            &format!("{path}?format=json"),
            &[],
            "",
        );
        let json: Value = serde_json::from_str(&r.body)
            .unwrap_or_else(|e| panic!("{host}{path}: not JSON ({e}): {}", r.status));
        let w = json["website"].clone();
        assert!(w["id"].is_string(), "{host}{path}: {w}");
        assert_eq!(w["identifier"], "quillback", "{host}{path}");
        assert_eq!(w["primaryDomain"], "quillback.localhost", "{host}{path}");
        assert_eq!(w["baseUrl"], "http://quillback.localhost", "{host}{path}");
        assert_eq!(w["authenticUrl"], "http://quillback.localhost");
        assert_eq!(w["internalUrl"], "http://quillback.localhost");
        assert!(w["timeZoneOffset"].is_i64(), "{w}");
        assert!(
            w["timeZoneAbbr"].as_str().is_some_and(|a| !a.is_empty()),
            "{w}"
        );
        assert_eq!(w["developerMode"], true);
        assert!(
            w["contentModifiedOn"].as_i64().is_some_and(|t| t > 0),
            "{w}"
        );
        assert!(w["shareButtonOptions"].is_object(), "{w}");
        if let Some(first) = &seen {
            assert_eq!(first, &w, "{host}{path}: the same on every page");
        }
        seen = Some(w);
    }
    // No item changed after the content's modification time.
    let r = request(
        server.port,
        "GET",
        "skyward.localhost",
        "/?format=json",
        &[],
        "",
    );
    let json: Value = serde_json::from_str(&r.body).unwrap();
    let modified = json["website"]["contentModifiedOn"].as_i64().unwrap();
    let r = request(
        server.port,
        "GET",
        "skyward.localhost",
        "/notes?format=json",
        &[],
        "",
    );
    let json: Value = serde_json::from_str(&r.body).unwrap();
    let items = json["items"].as_array().expect("the journal's items");
    assert!(!items.is_empty());
    for i in items {
        assert!(i["updatedOn"].as_i64().unwrap() <= modified, "{i}");
        assert!(i["addedOn"].as_i64().unwrap() <= modified, "{i}");
    }
}
