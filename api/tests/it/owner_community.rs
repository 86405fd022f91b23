//! The owner's community routes over HTTP, on both backends: comments listed by state with
//! their counts and the items' likes, approved, marked as spam, rejected and deleted (the
//! page follows), the members and the member areas with their pages, an area's words changed
//! (its join page follows); bad input by field,
//! another site's comments and tokens, roles without the area, and a session's change
//! without its CSRF token.

use serde_json::{Value, json};

use crate::support::{Backend, HARBOR_TOKEN, LOAM_TOKEN, Response, Server, Visitor, request};

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
/// harbor-lane's journal post open for comments.
const OPEN: &str = "718009ccb4328d6c2aa01821";
const OPEN_PAGE: &str = "/journal/spring-firing";
const COMMENTS: &str = "/api/owner/comments";

on_both_backends!(comments_are_moderated, members_and_member_areas);

fn start(backend: Backend) -> Server {
    Server::with_owners(
        backend,
        &[
            "--sign-ins-per-minute",
            "1000",
            "--form-submissions-per-minute",
            "1000",
        ],
    )
}

/// Marin comments on the open post: the comment's id.
fn comment(m: &mut Visitor, xsrf: &str, body: &str) -> String {
    let r = m.send(
        "POST",
        "/api/comments",
        &[("X-XSRF-Token", xsrf), ("Content-Type", "application/json")],
        &json!({"itemId": OPEN, "body": body}).to_string(),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["comment"]["id"].as_str().unwrap().to_owned()
}

/// The post page's comment count ("No Comments", "1 Comment").
fn count_shown(server: &Server) -> String {
    let body = request(server.port, "GET", HARBOR, OPEN_PAGE, &[], "").body;
    let at = body.find("class=\"journal-comments\"").unwrap();
    let rest = &body[at..];
    let start = rest.find('>').unwrap() + 1;
    rest[start..start + rest[start..].find('<').unwrap()].to_owned()
}

fn ids(r: &Response) -> Vec<String> {
    r.json()["comments"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", r.body))
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

fn comments_are_moderated(backend: Backend) {
    let server = start(backend);
    let owner = |method: &str, path: &str, body: &Value| -> Response {
        server.owner_call(HARBOR, HARBOR_TOKEN, method, path, body)
    };
    let mut m = Visitor::arrive(&server, HARBOR, "10.8.0.3");
    let r = m.post(
        "/api/site-users/account/session",
        json!({"email": "marin@harbor-lane.localhost", "password": "glaze-and-fire-1"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let xsrf = r.json()["xsrfToken"].as_str().unwrap().to_owned();
    let a = comment(&mut m, &xsrf, "First");
    let b = comment(&mut m, &xsrf, "Buy cheap pots");
    let c = comment(&mut m, &xsrf, "Third");

    // Pending, the newest first, with the counts and the liked items.
    let r = owner("GET", COMMENTS, &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let list = r.json();
    assert_eq!(
        list["counts"],
        json!({"pending": 3, "approved": 0, "rejected": 0, "spam": 0})
    );
    assert_eq!(ids(&r), [c.clone(), b.clone(), a.clone()]);
    let first = &list["comments"][0];
    assert_eq!(first["body"], "Third");
    assert_eq!(first["state"], "pending");
    assert_eq!(first["authorName"], "Marin Okafor");
    assert_eq!(first["itemId"], OPEN);
    assert_eq!(first["itemUrl"], OPEN_PAGE);
    assert!(!first["itemTitle"].as_str().unwrap().is_empty(), "{first}");
    let liked = list["likes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["itemId"] == OPEN)
        .unwrap_or_else(|| panic!("{list}"));
    assert_eq!(liked["likeCount"], 2);
    assert_eq!(liked["url"], OPEN_PAGE);
    // Pages.
    let r = owner("GET", &format!("{COMMENTS}?limit=2"), &Value::Null);
    assert_eq!(ids(&r), [c.clone(), b.clone()]);
    let next = r.json()["next"].as_str().unwrap().to_owned();
    let r = owner(
        "GET",
        &format!("{COMMENTS}?limit=2&after={next}"),
        &Value::Null,
    );
    assert_eq!(ids(&r), [a.as_str()]);
    assert!(r.json().get("next").is_none(), "{}", r.body);

    // Approved: the page counts it; spam and rejected are apart.
    assert_eq!(count_shown(&server), "No Comments");
    let r = owner(
        "PATCH",
        &format!("{COMMENTS}/{a}"),
        &json!({"state": "approved"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["comment"]["state"], "approved");
    assert_eq!(count_shown(&server), "1 Comment");
    let r = owner(
        "PATCH",
        &format!("{COMMENTS}/{b}"),
        &json!({"state": "spam"}),
    );
    assert_eq!(r.json()["comment"]["state"], "spam", "{}", r.body);
    let r = owner(
        "PATCH",
        &format!("{COMMENTS}/{c}"),
        &json!({"state": "rejected"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = owner("GET", &format!("{COMMENTS}?state=spam"), &Value::Null);
    assert_eq!(
        r.json()["counts"],
        json!({"pending": 0, "approved": 1, "rejected": 1, "spam": 1})
    );
    assert_eq!(ids(&r), [b.as_str()]);
    assert_eq!(
        ids(&owner(
            "GET",
            &format!("{COMMENTS}?state=approved"),
            &Value::Null
        )),
        [a.as_str()]
    );
    let public = m.get(&format!("/api/comments?itemId={OPEN}")).json();
    assert_eq!(public["comments"].as_array().unwrap().len(), 1, "{public}");

    // Deleted: gone from the page and the lists.
    let r = owner("DELETE", &format!("{COMMENTS}/{a}"), &Value::Null);
    assert_eq!((r.status, r.json()), (200, json!({"deleted": a})));
    assert_eq!(count_shown(&server), "No Comments");
    let r = owner("DELETE", &format!("{COMMENTS}/{a}"), &Value::Null);
    assert_eq!(
        (r.status, r.message()),
        (404, "That comment does not exist.".into())
    );
    assert_eq!(
        owner("GET", COMMENTS, &Value::Null).json()["counts"],
        json!({"pending": 0, "approved": 0, "rejected": 1, "spam": 1})
    );

    // Bad input, by field.
    for (method, path, body, field) in [
        (
            "PATCH",
            format!("{COMMENTS}/{b}"),
            json!({"state": "pending"}),
            "state",
        ),
        ("PATCH", format!("{COMMENTS}/{b}"), json!({}), "state"),
        (
            "GET",
            format!("{COMMENTS}?state=hidden"),
            Value::Null,
            "state",
        ),
        ("GET", format!("{COMMENTS}?limit=0"), Value::Null, "limit"),
        ("GET", format!("{COMMENTS}?after=zzz"), Value::Null, "after"),
    ] {
        let r = owner(method, &path, &body);
        assert_eq!(r.status, 400, "{path} {body}: {}", r.body);
        assert!(
            r.json()["errors"].get(field).is_some(),
            "{field}: {}",
            r.body
        );
    }

    // Another site: its comments are not found, its token is nobody here.
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "PATCH",
        &format!("{COMMENTS}/{b}"),
        &json!({"state": "approved"}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "DELETE",
        &format!("{COMMENTS}/{b}"),
        &Value::Null,
    );
    assert_eq!(r.status, 404, "{}", r.body);
    assert_eq!(
        server
            .owner_call(LOAM, LOAM_TOKEN, "GET", COMMENTS, &Value::Null)
            .json()["counts"]["spam"],
        0
    );
    assert_eq!(
        server
            .owner_call(HARBOR, LOAM_TOKEN, "GET", COMMENTS, &Value::Null)
            .status,
        401
    );

    // Roles: the moderator moderates; the viewer and the store manager have no comments.
    let moderator = server.owner_token("harbor-lane", "moderator");
    let viewer = server.owner_token("harbor-lane", "viewer");
    let manager = server.owner_token("harbor-lane", "store-manager");
    for t in [&viewer, &manager] {
        assert_eq!(
            server
                .owner_call(HARBOR, t, "GET", COMMENTS, &Value::Null)
                .status,
            403
        );
        assert_eq!(
            server
                .owner_call(
                    HARBOR,
                    t,
                    "PATCH",
                    &format!("{COMMENTS}/{b}"),
                    &json!({"state": "approved"})
                )
                .status,
            403
        );
    }
    let r = server.owner_call(
        HARBOR,
        &moderator,
        "PATCH",
        &format!("{COMMENTS}/{b}"),
        &json!({"state": "rejected"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        server
            .owner_call(
                HARBOR,
                &moderator,
                "GET",
                "/api/owner/members",
                &Value::Null
            )
            .status,
        403
    );

    // A session changes with its CSRF token only.
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "harbor-lane",
        HARBOR,
        ("mod@example.test", "moderator", "moderator password"),
    );
    let send = |csrf: Option<&str>| {
        server.session_call(
            HARBOR,
            &cookie,
            csrf,
            "PATCH",
            &format!("{COMMENTS}/{c}"),
            &json!({"state": "approved"}),
        )
    };
    assert_eq!(send(None).status, 403);
    assert_eq!(count_shown(&server), "No Comments");
    let r = send(Some(&csrf));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(count_shown(&server), "1 Comment");
}

fn members_and_member_areas(backend: Backend) {
    let server = start(backend);
    let owner = |path: &str| server.owner_call(HARBOR, HARBOR_TOKEN, "GET", path, &Value::Null);
    // A second member, who signed up and has not confirmed.
    let mut v = Visitor::arrive(&server, HARBOR, "10.8.0.4");
    let r = v.post(
        "/api/site-users/account",
        json!({"email": "noor@example.test", "password": "throw-and-trim-2", "displayName": "Noor"}),
    );
    assert!(r.status < 300, "{}", r.body);

    let r = owner("/api/owner/members");
    assert_eq!(r.status, 200, "{}", r.body);
    let list = r.json();
    assert_eq!(list["total"], 2, "{list}");
    let members = list["members"].as_array().unwrap();
    assert_eq!(members[0]["email"], "noor@example.test", "the newest first");
    assert_eq!(members[0]["confirmed"], false);
    assert_eq!(members[0]["areas"], json!([]));
    assert_eq!(members[1]["email"], "marin@harbor-lane.localhost");
    assert_eq!(members[1]["displayName"], "Marin Okafor");
    assert_eq!(members[1]["confirmed"], true);
    assert_eq!(
        members[1]["areas"],
        json!([{"id": "studio-club", "title": "Studio Club"}])
    );
    let r = owner("/api/owner/members?q=OKAFOR");
    assert_eq!(
        r.json()["members"].as_array().unwrap().len(),
        1,
        "{}",
        r.body
    );
    assert_eq!(r.json()["total"], 2);
    let r = owner("/api/owner/members?q=nobody-at-all");
    assert_eq!(r.json()["members"], json!([]));
    let r = owner("/api/owner/members?limit=1");
    let next = r.json()["next"].as_str().unwrap().to_owned();
    let r = owner(&format!("/api/owner/members?limit=1&after={next}"));
    assert_eq!(
        r.json()["members"][0]["email"],
        "marin@harbor-lane.localhost"
    );
    for (path, field) in [
        ("/api/owner/members?limit=500", "limit"),
        ("/api/owner/members?after=%25%25", "after"),
        (&*format!("/api/owner/members?q={}", "a".repeat(101)), "q"),
    ] {
        let r = owner(path);
        assert_eq!(r.status, 400, "{path}");
        assert!(r.json()["errors"].get(field).is_some(), "{}", r.body);
    }

    let r = owner("/api/owner/member-areas");
    assert_eq!(r.status, 200, "{}", r.body);
    let areas = r.json()["areas"].clone();
    assert_eq!(areas[0]["id"], "studio-club", "{areas}");
    assert_eq!(areas[0]["title"], "Studio Club");
    assert_eq!(areas[0]["joinButtonText"], "Join the Studio Club");
    assert_eq!(areas[0]["members"], 1);
    assert_eq!(areas[0]["pages"][0]["title"], "Wheel Course", "{areas}");
    let url = areas[0]["pages"][0]["url"].as_str().unwrap();
    let denied = request(server.port, "GET", HARBOR, url, &[], "");
    assert!(
        denied.body.contains("Join the Studio Club"),
        "the page it covers shows its join button"
    );
    assert_eq!(areas[1]["id"], "kiln-crew");
    assert_eq!(areas[1]["joinButtonText"], "Join");
    assert_eq!(areas[1]["members"], 0);
    assert_eq!(areas[1]["pages"][0]["title"], "Kiln Log");

    // Another site has its own (none), and this site's token is nobody there.
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "GET",
        "/api/owner/member-areas",
        &Value::Null,
    );
    assert_eq!(r.json()["areas"], json!([]));
    // loam-lantern's one member (of the same address) is its own, in none of harbor's areas.
    let r = server.owner_call(LOAM, LOAM_TOKEN, "GET", "/api/owner/members", &Value::Null);
    assert_eq!(r.json()["total"], 1, "{}", r.body);
    assert_eq!(
        r.json()["members"][0]["displayName"],
        "Marin on another site"
    );
    assert_eq!(r.json()["members"][0]["areas"], json!([]));
    assert_eq!(
        server
            .owner_call(
                LOAM,
                HARBOR_TOKEN,
                "GET",
                "/api/owner/members",
                &Value::Null
            )
            .status,
        401
    );

    // Roles: members are the orders area's, member areas the content's.
    let editor = server.owner_token("harbor-lane", "editor");
    let billing = server.owner_token("harbor-lane", "billing");
    let get = |t: &str, path: &str| {
        server
            .owner_call(HARBOR, t, "GET", path, &Value::Null)
            .status
    };
    assert_eq!(get(&editor, "/api/owner/members"), 403);
    assert_eq!(get(&editor, "/api/owner/member-areas"), 200);
    assert_eq!(get(&billing, "/api/owner/members"), 200);
    assert_eq!(get(&billing, "/api/owner/member-areas"), 403);

    // An area's words: changed by field, shown on its join page from the next page on.
    let kiln = "/api/owner/member-areas/kiln-crew";
    let patch =
        |t: &str, path: &str, body: Value| server.owner_call(HARBOR, t, "PATCH", path, &body);
    let join_page = || request(server.port, "GET", HARBOR, "/kiln-log", &[], "").body;
    assert!(!join_page().contains("Join the crew"));
    let r = patch(
        HARBOR_TOKEN,
        kiln,
        json!({"joinButtonText": " Join the crew ", "description": "Load the kiln with us."}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let area = r.json()["area"].clone();
    assert_eq!(area["joinButtonText"], "Join the crew");
    assert_eq!(area["description"], "Load the kiln with us.");
    assert_eq!(
        area["title"], "Kiln Crew",
        "what the body did not name stays"
    );
    assert_eq!(area["pages"][0]["title"], "Kiln Log");
    let page = join_page();
    assert!(
        page.contains("Join the crew") && page.contains("Load the kiln with us."),
        "the join page shows the new words"
    );
    for (body, field) in [
        (json!({"title": "  "}), "title"),
        (json!({"title": "t".repeat(101)}), "title"),
        (json!({"description": "d".repeat(1001)}), "description"),
        (json!({"joinButtonText": "j".repeat(51)}), "joinButtonText"),
    ] {
        let r = patch(HARBOR_TOKEN, kiln, body.clone());
        assert_eq!(r.status, 400, "{body}");
        assert!(
            r.json()["errors"].get(field).is_some(),
            "{field}: {}",
            r.body
        );
    }
    assert_eq!(
        patch(HARBOR_TOKEN, kiln, json!({"price": "5.00"})).status,
        400
    );
    let r = patch(
        HARBOR_TOKEN,
        "/api/owner/member-areas/nope",
        json!({"title": "X"}),
    );
    assert_eq!(
        (r.status, r.message()),
        (404, "That member area does not exist.".into())
    );
    // Another site has no such area; a role that reads content may not change it.
    let r = server.owner_call(
        LOAM,
        LOAM_TOKEN,
        "PATCH",
        kiln,
        &json!({"title": "Taken over"}),
    );
    assert_eq!(r.status, 404, "{}", r.body);
    let viewer = server.owner_token("harbor-lane", "viewer");
    assert_eq!(patch(&viewer, kiln, json!({"title": "Viewed"})).status, 403);
    assert_eq!(
        patch(&billing, kiln, json!({"title": "Billed"})).status,
        403
    );
    let r = patch(&editor, kiln, json!({"joinButtonText": ""}));
    assert_eq!(r.json()["area"]["joinButtonText"], "Join", "{}", r.body);
    assert_eq!(r.json()["area"]["title"], "Kiln Crew");

    // A session changes it with its CSRF token only.
    let (cookie, csrf) = crate::owner_accounts::signed_in(
        &server,
        "harbor-lane",
        HARBOR,
        ("editor@example.test", "editor", "editor password"),
    );
    let send = |csrf: Option<&str>| {
        server.session_call(
            HARBOR,
            &cookie,
            csrf,
            "PATCH",
            kiln,
            &json!({"title": "Kiln Crew of Harbor Lane"}),
        )
    };
    assert_eq!(send(None).status, 403);
    let r = send(Some(&csrf));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        owner("/api/owner/member-areas").json()["areas"][1]["title"],
        "Kiln Crew of Harbor Lane"
    );
}
