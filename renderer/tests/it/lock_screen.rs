//! Password-protected collections: the lock screen (page type 103) stands in for a locked
//! collection, its items and the collections inside a locked folder, and nothing of their
//! content reaches the page, its JSON context, queries or search until the visitor unlocks.

use std::sync::Arc;

use renderer::folder::{TemplateFiles, TemplateFolder, load};
use renderer::render::{LOCK_SCREEN_ERROR, Page, Request, render};
use renderer::site::SiteContent;

fn folder_with(extra: &[(&str, &str)]) -> TemplateFolder {
    let base = [
        (
            "blocks/nav.block",
            "<nav>{.repeated section items}<a href=\"{collection.fullUrl}\"{.if active} class=\"active\"{.end}>{collection.navigationTitle}</a>{collection.mainContent}{.end}</nav>",
        ),
        ("collections/blog.conf", r#"{ "title": "Blog" }"#),
        (
            "collections/blog.list",
            "<h1>{collection.title}</h1>{.repeated section items}<article>{title}</article>{.end}",
        ),
        (
            "collections/blog.item",
            "{.section item}<h1>{title}</h1>{body}{.end}",
        ),
        // A static page that shows the featured posts and the blog's categories.
        (
            "pages/news.page",
            concat!(
                "<section><squarespace:query collection=\"blog\">[{.repeated section items}<b>{title}</b>{.end}]</squarespace:query>",
                "<ul><squarespace:category collection=\"blog\">{.repeated section categories}<li>{name}</li>{.end}</squarespace:category></ul></section>"
            ),
        ),
    ];
    let files: TemplateFiles = crate::common::LAYOUT
        .iter()
        .chain(&base)
        .chain(extra)
        .map(|(k, v)| (k.to_string(), Arc::from(v.as_bytes())))
        .collect();
    let f = load(&files);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    f
}

/// `members` (a page) and `blog` have passwords; `vault` is a locked folder holding
/// `plans`; `club` is an open index holding `members`.
fn site() -> SiteContent {
    let doc = serde_json::json!({
        "website": { "siteTitle": "Test Site", "language": "en-US" },
        "collections": [
            { "id": "h1", "urlId": "home", "fullUrl": "/", "title": "Home", "navigationTitle": "Home",
              "typeName": "page", "type": 10, "homepage": true, "mainContent": "<p>Welcome</p>" },
            { "id": "m1", "urlId": "members", "fullUrl": "/members", "title": "Members", "navigationTitle": "Members",
              "typeName": "page", "type": 10, "mainContent": "<p>Secret handshake</p>",
              "description": "<p>Only for members</p>", "lock": "$argon2id$members-hash" },
            { "id": "b1", "urlId": "blog", "fullUrl": "/blog", "title": "Journal", "navigationTitle": "Journal",
              "typeName": "blog", "type": 1, "lock": "$argon2id$blog-hash", "items": [
                { "id": "i1", "urlId": "first", "fullUrl": "/blog/first", "title": "Hidden comet", "body": "<p>Perihelion notes</p>",
                  "excerpt": "comet", "categories": ["Sightings"] }
            ]},
            { "id": "v1", "urlId": "vault", "fullUrl": "/vault", "title": "Vault", "navigationTitle": "Vault",
              "typeName": "folder", "folder": true, "lock": "$argon2id$vault-hash", "collections": ["plans"] },
            { "id": "p1", "urlId": "plans", "fullUrl": "/plans", "title": "Plans", "navigationTitle": "Plans",
              "typeName": "page", "type": 10, "mainContent": "<p>Launch plans</p>" },
            { "id": "x1", "urlId": "club", "fullUrl": "/club", "title": "Club", "navigationTitle": "Club",
              "typeName": "index", "folder": true, "folderBehavior": 1, "collections": ["members"] },
            { "id": "n1", "urlId": "news", "fullUrl": "/news", "title": "News", "navigationTitle": "News",
              "typeName": "news", "type": 7 }
        ],
        "navigations": { "main": [ "home", "members", "blog", "news" ] }
    });
    SiteContent::from_json(&doc).unwrap()
}

fn get_as(unlocked: &[&str], path: &str, query: &str) -> Page {
    get_in(&folder_with(&[]), unlocked, path, query)
}

fn get_in(folder: &TemplateFolder, unlocked: &[&str], path: &str, query: &str) -> Page {
    let unlocked: Vec<String> = unlocked.iter().map(|s| s.to_string()).collect();
    render(
        &site(),
        folder,
        &Request {
            path,
            query,
            unlocked: &unlocked,
            ..Default::default()
        },
    )
}

fn get(path: &str, query: &str) -> Page {
    get_as(&[], path, query)
}

/// No page of a locked collection carries its content or its password hash.
fn assert_hidden(p: &Page, secrets: &[&str]) {
    for s in secrets.iter().chain(&["argon2id", "-hash"]) {
        assert!(!p.body.contains(s), "leaks {s:?}: {}", p.body);
    }
}

#[test]
fn a_locked_page_renders_the_lock_screen() {
    let p = get("/members", "");
    assert_eq!((p.status, p.page_type), (200, Some(103)));
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    let b = &p.body;
    assert!(
        b.contains(
            r#"<form class="lock-screen-form" method="post" action="/api/lock-screen/unlock">"#
        ),
        "{b}"
    );
    assert!(b.contains(r#"<input type="hidden" name="collectionId" value="m1">"#));
    assert!(b.contains(r#"<input type="hidden" name="redirect" value="/members">"#));
    assert!(b.contains(r#"<label for="lock-screen-password">Password</label>"#));
    assert!(b.contains(r#"id="lock-screen-password" type="password" name="password""#));
    assert!(b.contains(r#"<button type="submit">Unlock</button>"#));
    assert!(b.contains("<h1>Members</h1>"));
    assert!(!b.contains(LOCK_SCREEN_ERROR));
    assert!(b.contains("<title>Members — Test Site</title>"), "{b}");
    assert!(b.contains(r#"<body id="lock-screen" class="collection-m1 collection-layout-default system-page lock-screen">"#), "{b}");
    // Navigation still lists the page (and marks it), without its content.
    assert!(
        b.contains(r#"<a href="/members" class="active">Members</a>"#),
        "{b}"
    );
    assert_hidden(&p, &["Secret handshake", "Only for members"]);
}

#[test]
fn a_wrong_password_shows_the_error_and_keeps_the_return_path() {
    let p = get("/members", "lock-error=1");
    assert_eq!(p.page_type, Some(103));
    assert!(
        p.body.contains(&format!(
            r#"<p class="lock-screen-error" id="lock-screen-error" role="alert">{LOCK_SCREEN_ERROR}</p>"#
        )),
        "{}",
        p.body
    );
    assert!(p.body.contains(r#"aria-invalid="true""#));
    assert!(
        p.body
            .contains(r#"<input type="hidden" name="redirect" value="/members">"#)
    );
    // Other parameters survive; doubled slashes never make a protocol-relative redirect.
    let p = get("//blog", "category=Sightings&lock-error=1");
    assert!(
        p.body
            .contains(r#"name="redirect" value="/blog?category=Sightings">"#),
        "{}",
        p.body
    );
}

#[test]
fn the_json_context_of_a_lock_screen_holds_no_content() {
    let p = get("/members", "format=json");
    assert_eq!(
        (p.status, p.page_type, p.content_type),
        (200, Some(103), "application/json; charset=utf-8")
    );
    assert_hidden(&p, &["Secret handshake", "Only for members", "mainContent"]);
    let v: serde_json::Value = serde_json::from_str(&p.body).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "website",
            "websiteSettings",
            "template",
            "featureFlags",
            "localizedStrings",
            "showCart",
            "shoppingCart",
            "calendarView",
            "collection",
            "lockScreen"
        ]
    );
    assert_eq!(v["website"]["siteTitle"], "Test Site");
    assert_eq!(v["collection"]["id"], "m1");
    assert_eq!(v["collection"]["urlId"], "members");
    assert_eq!(v["collection"]["title"], "Members");
    assert_eq!(
        v["collection"],
        serde_json::json!({ "id": "m1", "urlId": "members", "fullUrl": "/members", "title": "Members",
                            "navigationTitle": "Members", "passwordProtected": true })
    );
    assert_eq!(
        v["lockScreen"],
        serde_json::json!({ "collectionId": "m1", "redirect": "/members" })
    );
    let v: serde_json::Value =
        serde_json::from_str(&get("/members", "format=json&lock-error=1").body).unwrap();
    assert_eq!(v["lockScreen"]["error"], LOCK_SCREEN_ERROR);
    // Main content only: the form, nothing else.
    let p = get("/members", "format=main-content");
    assert!(
        p.body
            .starts_with("<section class=\"system-page lock-screen\"")
    );
    assert_hidden(&p, &["Secret handshake"]);
}

#[test]
fn unlocking_shows_the_real_page() {
    let p = get_as(&["m1"], "/members", "");
    assert_eq!((p.status, p.page_type), (200, Some(2)));
    assert!(p.body.contains("<main><p>Secret handshake</p></main>"));
    let v: serde_json::Value =
        serde_json::from_str(&get_as(&["m1"], "/members", "format=json").body).unwrap();
    assert_eq!(v["collection"]["mainContent"], "<p>Secret handshake</p>");
    assert!(v.get("lockScreen").is_none());
    // Another collection's key opens nothing here.
    assert_eq!(get_as(&["b1", "v1"], "/members", "").page_type, Some(103));
}

#[test]
fn items_of_a_locked_collection_are_locked() {
    let p = get("/blog/first", "");
    assert_eq!((p.status, p.page_type), (200, Some(103)));
    assert!(p.body.contains(r#"name="collectionId" value="b1""#));
    assert!(p.body.contains(r#"name="redirect" value="/blog/first""#));
    assert_hidden(&p, &["Hidden comet", "Perihelion"]);
    let p = get("/blog/first", "format=json");
    assert_hidden(&p, &["Hidden comet", "Perihelion", "\"item\""]);
    let p = get("/blog", "");
    assert_eq!(p.page_type, Some(103));
    assert_hidden(&p, &["Hidden comet"]);

    let p = get_as(&["b1"], "/blog/first", "");
    assert_eq!(p.page_type, Some(50));
    assert!(
        p.body
            .contains("<h1>Hidden comet</h1><p>Perihelion notes</p>")
    );
    // Unknown items stay not found, locked or not.
    assert_eq!(get("/blog/nope", "").status, 404);
}

#[test]
fn collections_inside_a_locked_folder_are_locked_by_the_folder() {
    let p = get("/plans", "");
    assert_eq!(p.page_type, Some(103));
    // The folder's password is the one asked for.
    assert!(
        p.body.contains(r#"name="collectionId" value="v1""#),
        "{}",
        p.body
    );
    assert!(p.body.contains(r#"name="redirect" value="/plans""#));
    assert!(p.body.contains("<h1>Vault</h1>"));
    assert_hidden(&p, &["Launch plans"]);
    // The child's own id opens nothing; the folder's does.
    assert_eq!(get_as(&["p1"], "/plans", "").page_type, Some(103));
    let p = get_as(&["v1"], "/plans", "");
    assert_eq!(p.page_type, Some(2));
    assert!(p.body.contains("<p>Launch plans</p>"));
    // The folder's own URL still leads to its first child, which is locked.
    let p = get("/vault", "");
    assert_eq!((p.status, p.location.as_deref()), (302, Some("/plans")));
}

#[test]
fn an_open_index_shows_only_public_fields_of_a_locked_child() {
    let v: serde_json::Value = serde_json::from_str(&get("/club", "format=json").body).unwrap();
    let child = &v["collection"]["collections"][0];
    assert_eq!(child["urlId"], "members");
    assert_eq!(child["passwordProtected"], true);
    assert!(child.get("mainContent").is_none(), "{child}");
    assert!(child.get("description").is_none(), "{child}");
    let v: serde_json::Value =
        serde_json::from_str(&get_as(&["m1"], "/club", "format=json").body).unwrap();
    assert_eq!(
        v["collection"]["collections"][0]["mainContent"],
        "<p>Secret handshake</p>"
    );
}

#[test]
fn navigation_gives_a_locked_collection_no_content() {
    // The nav block prints each link's `mainContent`: the open home page's shows, the
    // locked page's does not.
    let p = get("/", "");
    assert_eq!(p.page_type, Some(2));
    assert!(
        p.body
            .contains(r#"<a href="/" class="active">Home</a><p>Welcome</p><a href="/members">Members</a><a href="/blog">Journal</a>"#),
        "{}",
        p.body
    );
    let p = get_as(&["m1"], "/", "");
    assert!(
        p.body
            .contains(r#"<a href="/members">Members</a><p>Secret handshake</p>"#)
    );
}

#[test]
fn queries_categories_and_search_skip_locked_collections() {
    let p = get("/news", "");
    assert_eq!(p.page_type, Some(2));
    assert!(
        p.body.contains("<section>[]<ul></ul></section>"),
        "{}",
        p.body
    );
    assert_hidden(&p, &["Hidden comet", "Sightings"]);
    let p = get_as(&["b1"], "/news", "");
    assert!(
        p.body
            .contains("<section>[<b>Hidden comet</b>]<ul><li>Sightings</li></ul></section>"),
        "{}",
        p.body
    );

    let p = get("/search", "q=comet");
    assert_eq!(p.page_type, Some(102));
    assert!(p.body.contains("No results for “comet”."), "{}", p.body);
    assert_hidden(&p, &["Hidden comet", "/blog/first"]);
    let v: serde_json::Value =
        serde_json::from_str(&get("/search", "q=comet&format=json").body).unwrap();
    assert_eq!(v["searchResults"], serde_json::json!([]));
    let p = get_as(&["b1"], "/search", "q=comet");
    assert!(
        p.body.contains(r#"<a href="/blog/first">Hidden comet</a>"#),
        "{}",
        p.body
    );
}

#[test]
fn a_template_may_override_the_lock_screen() {
    let folder = folder_with(&[(
        "pages/lock-screen.page",
        "<div class=\"gate\">{collection.title}: {lockScreen.collectionId} {lockScreen.redirect}{.section lockScreen}{.section error} ({@}){.end}{.end}</div>",
    )]);
    let p = get_in(&folder, &[], "/members", "lock-error=1");
    assert_eq!(p.page_type, Some(103));
    assert!(
        p.body.contains(&format!(
            "<main><div class=\"gate\">Members: m1 /members ({LOCK_SCREEN_ERROR})</div></main>"
        )),
        "{}",
        p.body
    );
    assert!(p.errors.is_empty(), "{:?}", p.errors);
}

/// The navigation data a site keeps between pages depends on what the visitor unlocked:
/// one visitor's unlocked content never shows in another's navigation, in either order.
#[test]
fn cached_navigation_follows_each_visitors_unlocks() {
    let (site, folder) = (site(), folder_with(&[]));
    let home_as = |unlocked: &[String]| {
        let p = render(
            &site,
            &folder,
            &Request {
                path: "/",
                query: "",
                unlocked,
                ..Default::default()
            },
        );
        assert_eq!(p.status, 200);
        p.body
    };
    let member = ["m1".to_string()];
    for _ in 0..2 {
        let locked = home_as(&[]);
        assert!(
            locked.contains("<a href=\"/members\">Members</a>"),
            "{locked}"
        );
        assert!(!locked.contains("Secret handshake"), "{locked}");
        let unlocked = home_as(&member);
        assert!(unlocked.contains("Secret handshake"), "{unlocked}");
    }
}

/// The site above behind a site password.
fn locked_site(title: &str, message: &str) -> SiteContent {
    let mut s = site();
    s.site_lock = Some(renderer::site::SiteLock {
        hash: Arc::from("$argon2id$site-hash"),
        title: title.into(),
        message: message.into(),
    });
    s
}

fn get_locked(
    site: &SiteContent,
    unlocked: &[&str],
    site_unlocked: bool,
    path: &str,
    query: &str,
) -> Page {
    let unlocked: Vec<String> = unlocked.iter().map(|s| s.to_string()).collect();
    render(
        site,
        &folder_with(&[]),
        &Request {
            path,
            query,
            unlocked: &unlocked,
            site_unlocked,
            ..Default::default()
        },
    )
}

#[test]
fn a_locked_site_shows_its_lock_screen_on_every_page_and_format() {
    let site = locked_site("", "");
    let secrets = [
        "Welcome",
        "Secret handshake",
        "Hidden comet",
        "Launch plans",
        "Journal",
        "Vault",
        "Sightings",
        "News",
        "site-hash",
    ];
    for (path, query) in [
        ("/", ""),
        ("/", "format=json"),
        ("/", "format=json-pretty"),
        ("/", "format=main-content"),
        ("/blog", ""),
        ("/blog/first", "format=json"),
        ("/news", ""),
        ("/vault", ""),
        ("/search", "q=comet"),
        ("/cart", ""),
        ("/checkout", ""),
        ("/nowhere", ""),
        ("/members", ""),
    ] {
        let p = get_locked(&site, &["m1", "b1", "v1"], false, path, query);
        assert_eq!(
            (p.status, p.page_type, p.location.as_deref()),
            (200, Some(103), None),
            "{path}?{query}"
        );
        assert!(p.errors.is_empty(), "{:?}", p.errors);
        assert_hidden(&p, &secrets);
    }
    let p = get_locked(&site, &[], false, "/blog", "lock-error=1&offset=2");
    // The site's title heads it, the default words follow, the form returns to the page.
    assert!(p.body.contains("<title>Test Site</title>"), "{}", p.body);
    assert!(p.body.contains(renderer::render::SITE_LOCK_MESSAGE));
    assert!(p.body.contains(r#"name="lock" value="site""#));
    assert!(
        p.body.contains(r#"name="redirect" value="/blog?offset=2""#),
        "{}",
        p.body
    );
    assert!(p.body.contains(LOCK_SCREEN_ERROR));
    assert!(p.body.contains(r#"aria-describedby="lock-screen-error""#));
    let json = get_locked(&site, &[], false, "/", "format=json");
    let v: serde_json::Value = serde_json::from_str(&json.body).unwrap();
    assert_eq!(v["lockScreen"]["site"], true);
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    // The stylesheet stays (templates' files are served before the renderer).
    let css = get_locked(&site, &[], false, "/site.css", "");
    assert_eq!((css.status, css.page_type), (200, None));
}

#[test]
fn the_owners_words_are_escaped_and_an_unlocked_visitor_sees_the_site() {
    let site = locked_site("Soon <b>&</b>", "Opening \"May\" <script>");
    let p = get_locked(&site, &[], false, "/", "");
    assert!(
        p.body.contains("<h1>Soon &lt;b&gt;&amp;&lt;/b&gt;</h1>"),
        "{}",
        p.body
    );
    assert!(
        p.body.contains("Opening \"May\" &lt;script&gt;"),
        "{}",
        p.body
    );
    let p = get_locked(&site, &[], true, "/", "");
    assert_eq!(
        (p.status, p.page_type),
        (200, Some(renderer::route::page_type::PAGE))
    );
    assert!(p.body.contains("Welcome"));
    // A page's own password still holds inside an unlocked site.
    let p = get_locked(&site, &[], true, "/members", "");
    assert_eq!(p.page_type, Some(103));
    assert!(!p.body.contains("Secret handshake"));
    assert!(!p.body.contains(r#"value="site""#));
}
