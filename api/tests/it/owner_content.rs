//! The content editor's routes over HTTP, on both backends: a blog post written, sanitized,
//! scheduled (the live blog and the post's page do not show it) and published (they do, with
//! its image and alt text); its fields checked by field (tags and categories twice, too long,
//! comments, an event's dates, the author); a page's own content read and replaced
//! (sanitized, and the live page follows); another site's ids, roles without the area, and a
//! session's change without its CSRF token.

use serde_json::{Value, json};

use crate::support::{Backend, HARBOR_TOKEN, LOAM_TOKEN, Response, Server, request};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const QUILL: &str = "quillback.localhost";
/// harbor-lane's blog ("Journal", at /journal) and its homepage ("Studio", at /).
const JOURNAL: &str = "43d22b9062a229663352e4f3";
const HOME: &str = "455c35e097277eb29275a70e";

on_both_backends!(
    posts_are_written_checked_and_scheduled,
    page_content_is_replaced
);

fn start(backend: Backend) -> Server {
    Server::with_owners(backend, &["--sign-ins-per-minute", "1000"])
}

fn visit(server: &Server, path: &str) -> Response {
    request(server.port, "GET", HARBOR, path, &[], "")
}

const DIRTY: &str = "<h2>Kiln day</h2><p onclick=\"steal()\">We fired <strong>41</strong> pieces.\
    <script>alert('x')</script></p><img src=\"/kiln.png\" alt=\"The kiln, open\" \
    onerror=\"alert(1)\"><p><a href=\"javascript:alert(2)\">bad</a> \
    <a href=\"https://example.com/glaze\">good</a></p>";

fn posts_are_written_checked_and_scheduled(backend: Backend) {
    let server = start(backend);
    let owner = |method: &str, path: &str, body: &Value| -> Response {
        server.owner_call(HARBOR, HARBOR_TOKEN, method, path, body)
    };
    let items = format!("/api/owner/collections/{JOURNAL}/items");

    // The list with what the editor needs beside it.
    let r = owner("GET", &items, &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let list = r.json();
    assert_eq!(list["collection"]["typeName"], "journal", "{list}");
    assert_eq!(list["collection"]["urlId"], "journal", "{list}");
    assert_eq!(list["items"].as_array().unwrap().len(), 2);
    let authors: Vec<&str> = list["authors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["displayName"].as_str().unwrap())
        .collect();
    assert_eq!(authors, ["Jonah Reyes", "Mara Lind"]);
    assert!(!list["timeZone"].as_str().unwrap().is_empty(), "{list}");

    // Bad input, by field, and nothing stored.
    let r = owner(
        "POST",
        &items,
        &json!({
            "urlId": "x", "title": " ",
            "tags": ["kiln", "Kiln"], "categories": ["Studio", "studio"],
            "data": {"commentState": 5},
            "startDate": 2000, "endDate": 1000,
            "author": {"displayName": ""},
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let e = &r.json()["errors"];
    assert_eq!(e["tags[1]"], "This tag already exists", "{e}");
    assert_eq!(e["categories[1]"], "This category already exists", "{e}");
    assert_eq!(
        e["data.commentState"], "commentState is 1 (comments on) or 0 (comments off).",
        "{e}"
    );
    assert_eq!(e["endDate"], "An event ends after it starts.", "{e}");
    assert_eq!(
        e["author"], "An author is {displayName} of 1 to 100 characters.",
        "{e}"
    );
    assert_eq!(e["title"], "Please enter a title.", "{e}");
    assert_eq!(
        e["urlId"], "A URL id is 3-200 of a-z, 0-9, '-', '_' or '.'.",
        "{e}"
    );
    let r = owner(
        "POST",
        &items,
        &json!({
            "urlId": "long-tags", "title": "Long",
            "tags": ["x".repeat(51), " "], "categories": ["y".repeat(26)],
            "startDate": "tomorrow",
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let e = &r.json()["errors"];
    assert_eq!(e["tags[0]"], "A tag has at most 50 characters.", "{e}");
    assert_eq!(e["tags[1]"], "A tag cannot be empty.", "{e}");
    assert_eq!(
        e["categories[0]"], "A category name has at most 25 characters.",
        "{e}"
    );
    assert_eq!(
        e["startDate"], "A date is a date and time as a number: milliseconds since 1970-01-01 UTC.",
        "{e}"
    );
    assert_eq!(
        owner("GET", &items, &Value::Null).json()["items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // A post scheduled for next year: stored sanitized, and not on the live site yet.
    let next_year = 4_102_444_800_000i64; // 2100-01-01
    let r = owner(
        "POST",
        &items,
        &json!({
            "urlId": "kiln-day", "title": "Kiln day", "body": DIRTY,
            "excerpt": "<p>Forty-one <img src=x onerror=alert(3)>pieces</p>",
            "tags": ["kiln", "firing"], "categories": ["Studio"],
            "author": {"displayName": "Mara Lind"},
            "data": {"commentState": 1},
            "visibility": "scheduled", "publishOn": next_year,
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let post = r.json();
    let id = post["id"].as_str().unwrap().to_owned();
    let body = post["body"].as_str().unwrap();
    for gone in [
        "script",
        "onclick",
        "onerror",
        "javascript",
        "alert",
        "steal",
    ] {
        assert!(!body.contains(gone), "{gone} in {body}");
        assert!(!post["excerpt"].as_str().unwrap().contains(gone), "{post}");
    }
    assert!(body.contains("<h2>Kiln day</h2>"), "{body}");
    assert!(
        body.contains("<img src=\"/kiln.png\" alt=\"The kiln, open\">"),
        "{body}"
    );
    assert!(
        body.contains("<a href=\"https://example.com/glaze\" rel=\"noopener\">good</a>"),
        "{body}"
    );
    // As stored, not only as answered.
    let stored = owner("GET", &format!("/api/owner/items/{id}"), &Value::Null).json();
    assert_eq!(stored["body"], post["body"]);
    assert_eq!(stored["data"]["commentState"], 1);
    assert_eq!(stored["tags"], json!(["kiln", "firing"]));
    assert_eq!(visit(&server, "/journal/kiln-day").status, 404);
    assert!(!visit(&server, "/journal").body.contains("Kiln day"));

    // Published now: the blog and the post show it, with its image and alt text.
    let r = owner(
        "PATCH",
        &format!("/api/owner/items/{id}"),
        &json!({"visibility": "visible", "publishOn": 1_700_000_000_000i64}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(visit(&server, "/journal").body.contains("Kiln day"));
    let page = visit(&server, "/journal/kiln-day");
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains("<img src=\"/kiln.png\" alt=\"The kiln, open\">"),
        "{}",
        page.body
    );
    assert!(!page.body.contains("steal()"), "{}", page.body);
    // A change that leaves the text alone keeps it as stored; a PATCH's new body is
    // sanitized too; a duplicate tag there is refused.
    let r = owner(
        "PATCH",
        &format!("/api/owner/items/{id}"),
        &json!({"body": "<p>Again<img src=1 onerror=alert(9) alt=\"\"></p>"}),
    );
    assert_eq!(r.json()["body"], "<p>Again<img src=\"1\" alt=\"\"></p>");
    let r = owner(
        "PATCH",
        &format!("/api/owner/items/{id}"),
        &json!({"tags": ["kiln", "kiln"]}),
    );
    assert_eq!(
        r.json()["errors"]["tags[1]"],
        "This tag already exists",
        "{}",
        r.body
    );

    // Another site's ids are not found there; its token is nobody here.
    let other = |method: &str, path: &str| {
        server.owner_call(LOAM, LOAM_TOKEN, method, path, &json!({"title": "Taken"}))
    };
    assert_eq!(other("GET", &format!("/api/owner/items/{id}")).status, 404);
    assert_eq!(
        other("PATCH", &format!("/api/owner/items/{id}")).status,
        404
    );
    assert_eq!(
        other("DELETE", &format!("/api/owner/items/{id}")).status,
        404
    );
    assert_eq!(other("GET", &items).status, 404);
    assert_eq!(
        server
            .owner_call(HARBOR, LOAM_TOKEN, "GET", &items, &Value::Null)
            .status,
        401
    );

    // Roles: the store manager has no content; the viewer reads it, changes nothing; the
    // editor writes.
    let manager = server.owner_token("harbor-lane", "store-manager");
    let viewer = server.owner_token("harbor-lane", "viewer");
    let editor = server.owner_token("harbor-lane", "editor");
    let call = |t: &str, method: &str, path: &str, body: &Value| {
        server.owner_call(HARBOR, t, method, path, body).status
    };
    assert_eq!(call(&manager, "GET", &items, &Value::Null), 403);
    assert_eq!(call(&viewer, "GET", &items, &Value::Null), 200);
    let item = format!("/api/owner/items/{id}");
    assert_eq!(call(&viewer, "PATCH", &item, &json!({"title": "V"})), 403);
    assert_eq!(call(&manager, "PATCH", &item, &json!({"title": "M"})), 403);
    assert_eq!(call(&editor, "PATCH", &item, &json!({"title": "E"})), 200);

    // A session changes with its CSRF token only.
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "harbor-lane",
        HARBOR,
        ("writer@example.test", "editor", "writer password"),
    );
    let send = |csrf: Option<&str>| {
        server.session_call(
            HARBOR,
            &cookie,
            csrf,
            "PATCH",
            &item,
            &json!({"title": "From the app"}),
        )
    };
    assert_eq!(send(None).status, 403);
    assert_eq!(owner("GET", &item, &Value::Null).json()["title"], "E");
    let r = send(Some(&csrf));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        owner("GET", &item, &Value::Null).json()["title"],
        "From the app"
    );

    // Deleted: gone from the blog.
    assert_eq!(owner("DELETE", &item, &Value::Null).status, 200);
    assert!(!visit(&server, "/journal").body.contains("From the app"));
}

fn page_content_is_replaced(backend: Backend) {
    let server = start(backend);
    let path = format!("/api/owner/collections/{HOME}/content");
    let owner =
        |method: &str, body: &Value| server.owner_call(HARBOR, HARBOR_TOKEN, method, &path, body);

    let r = owner("GET", &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let page = r.json();
    assert_eq!(page["id"], HOME);
    assert_eq!(page["title"], "Studio");
    assert_eq!(page["typeName"], "page");
    assert!(
        page["mainContent"]
            .as_str()
            .unwrap()
            .contains("<h2>Made by the water</h2>"),
        "{page}"
    );

    let r = owner(
        "PUT",
        &json!({"mainContent": "<h2>New studio</h2><p>Open <em>Saturdays</em>.<script>x()</script></p><img src=\"/a.png\" alt=\"\" onerror=\"x()\">"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["mainContent"],
        "<h2>New studio</h2><p>Open <em>Saturdays</em>.</p><img src=\"/a.png\" alt=\"\">"
    );
    let home = visit(&server, "/").body;
    assert!(home.contains("<h2>New studio</h2>"), "{home}");
    assert!(!home.contains("Made by the water"), "{home}");
    assert!(!home.contains("x()"), "{home}");

    // Text sent back unchanged stays as stored, though the allow-list would not keep it
    // (quillback's contact page holds its imported form); changed text is sanitized.
    let quill = server.owner_token("quillback", "admin");
    let contact = "/api/owner/collections/fdcba73bab3e69c520a46766/content";
    let stored = server
        .owner_call(QUILL, &quill, "GET", contact, &Value::Null)
        .json()["mainContent"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(stored.contains("<form"), "{stored}");
    let r = server.owner_call(
        QUILL,
        &quill,
        "PUT",
        contact,
        &json!({"mainContent": stored}),
    );
    assert_eq!(r.json()["mainContent"], stored.as_str());
    let page = request(server.port, "GET", QUILL, "/contact", &[], "").body;
    assert!(page.contains("data-form-id="), "{page}");
    let changed = format!("{stored}<p>Closed on Sundays.</p>");
    let r = server.owner_call(
        QUILL,
        &quill,
        "PUT",
        contact,
        &json!({"mainContent": changed}),
    );
    let now = r.json()["mainContent"].as_str().unwrap().to_owned();
    assert!(!now.contains("<form") && !now.contains("<input"), "{now}");
    assert!(
        now.contains("Closed on Sundays.") && now.contains("Book a repair"),
        "{now}"
    );

    // Bad input: not an object with mainContent.
    let r = owner("PUT", &json!({"mainContent": 5}));
    assert_eq!(r.status, 400, "{}", r.body);
    let r = owner("PUT", &json!([1]));
    assert_eq!(r.status, 400, "{}", r.body);

    // Another site, other roles, the session's CSRF token.
    for method in ["GET", "PUT"] {
        let r = server.owner_call(LOAM, LOAM_TOKEN, method, &path, &json!({"mainContent": ""}));
        assert_eq!(r.status, 404, "{}", r.body);
    }
    let manager = server.owner_token("harbor-lane", "store-manager");
    let viewer = server.owner_token("harbor-lane", "viewer");
    let body = json!({"mainContent": "<p>Mine</p>"});
    assert_eq!(
        server
            .owner_call(HARBOR, &manager, "GET", &path, &Value::Null)
            .status,
        403
    );
    assert_eq!(
        server
            .owner_call(HARBOR, &viewer, "PUT", &path, &body)
            .status,
        403
    );
    assert_eq!(
        server
            .owner_call(HARBOR, &viewer, "GET", &path, &Value::Null)
            .status,
        200
    );
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "harbor-lane",
        HARBOR,
        ("pages@example.test", "editor", "pages password"),
    );
    let send = |csrf: Option<&str>| server.session_call(HARBOR, &cookie, csrf, "PUT", &path, &body);
    assert_eq!(send(None).status, 403);
    assert!(visit(&server, "/").body.contains("New studio"));
    assert_eq!(send(Some(&csrf)).status, 200);
    assert!(visit(&server, "/").body.contains("<p>Mine</p>"));
}
