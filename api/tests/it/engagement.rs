//! Comments and likes over HTTP against the real binary, on both backends: a member's
//! comment waits for the owner, the page's count follows what the owner approves, likes
//! count once per visitor, and closed items, member areas and other sites refuse.

use crate::support::{Backend, HARBOR_TOKEN, LOAM_TOKEN, Server, Visitor};
use serde_json::json;

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
/// harbor-lane's journal: one post open for comments, one not; and a Studio Club lesson.
const OPEN: &str = "718009ccb4328d6c2aa01821";
const OPEN_PAGE: &str = "/journal/spring-firing";
const CLOSED: &str = "3c24c89639df22646318b538";
const LESSON: &str = "5a1c0e2f9b7d4c3e8f6a0b21";

fn owner(token: &str) -> String {
    format!("Bearer {token}")
}

/// Signs Marin in; returns her XSRF token.
fn marin(v: &mut Visitor) -> String {
    let r = v.post(
        "/api/site-users/account/session",
        json!({"email": "marin@harbor-lane.localhost", "password": "glaze-and-fire-1"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["xsrfToken"].as_str().unwrap().to_owned()
}

fn comment(v: &mut Visitor, xsrf: &str, item: &str, body: &str) -> crate::support::Response {
    v.send(
        "POST",
        "/api/comments",
        &[("X-XSRF-Token", xsrf), ("Content-Type", "application/json")],
        &json!({"itemId": item, "body": body}).to_string(),
    )
}

/// What the post's page says about comments and likes.
fn shown(v: &mut Visitor) -> (String, String) {
    let body = v.get(OPEN_PAGE).body;
    let text = |class: &str| {
        let at = body
            .find(&format!("class=\"{class}\""))
            .unwrap_or_else(|| panic!("no {class}: {body}"));
        let rest = &body[at..];
        let start = rest.find('>').unwrap() + 1;
        rest[start..start + rest[start..].find('<').unwrap()].to_owned()
    };
    (text("journal-comments"), text("journal-likes"))
}

fn comments_and_likes(backend: Backend) {
    let server = Server::with_owners(
        backend,
        &[
            "--sign-ins-per-minute",
            "1000",
            "--form-submissions-per-minute",
            "1000",
        ],
    );
    let mut v = Visitor::arrive(&server, HARBOR, "10.8.0.1");
    assert_eq!(shown(&mut v), ("No Comments".into(), "2 likes".into()));
    let list = v.get(&format!("/api/comments?itemId={OPEN}"));
    assert_eq!(
        (list.status, list.json()),
        (
            200,
            json!({"itemId": OPEN, "commentState": 1, "publicCommentCount": 0, "comments": []})
        )
    );
    assert_eq!(v.get("/api/comments?itemId=nope").status, 404);
    let mut l = Visitor::arrive(&server, LOAM, "10.8.0.2");
    assert_eq!(
        l.get(&format!("/api/comments?itemId={OPEN}")).status,
        404,
        "another site's item"
    );

    // Writing: members only, with the XSRF header; the text and the item are checked.
    assert_eq!(comment(&mut v, "", OPEN, "Hello").status, 401);
    let mut m = Visitor::arrive(&server, HARBOR, "10.8.0.3");
    let xsrf = marin(&mut m);
    assert_eq!(comment(&mut m, "wrong", OPEN, "Hello").status, 403);
    let mut no_crumb = m.clone();
    no_crumb.send_crumb = false;
    assert_eq!(
        comment(&mut no_crumb, &xsrf, OPEN, "Hello").json()["crumbFail"],
        true
    );
    for (body, message) in [
        ("   ", "Please write a comment."),
        (
            &"a".repeat(2001)[..],
            "Your comment can have at most 2000 characters.",
        ),
    ] {
        let r = comment(&mut m, &xsrf, OPEN, body);
        assert_eq!(
            (r.status, r.json()["errors"]["body"].clone()),
            (400, json!(message))
        );
    }
    let r = comment(&mut m, &xsrf, CLOSED, "Hello");
    assert_eq!(
        (r.status, r.message()),
        (403, "Comments are closed for this item.".into())
    );
    assert_eq!(comment(&mut m, &xsrf, "nope", "Hello").status, 404);
    let r = comment(&mut m, &xsrf, OPEN, "  The Oat glaze looks like honey.  ");
    assert_eq!(r.status, 201, "{}", r.body);
    let posted = r.json();
    assert_eq!(
        posted["message"],
        "Thank you. Your comment will show once the site owner approves it."
    );
    assert_eq!(posted["comment"]["state"], "pending");
    assert_eq!(posted["comment"]["authorName"], "Marin Okafor");
    let id = posted["comment"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        shown(&mut v).0,
        "No Comments",
        "waiting comments are not counted"
    );

    // The owner: the token of this site only.
    let pending = "/api/comments/pending";
    assert_eq!(v.send("GET", pending, &[], "").status, 401);
    assert_eq!(
        v.send("GET", pending, &[("Authorization", &owner(LOAM_TOKEN))], "")
            .status,
        401
    );
    let r = v.send(
        "GET",
        pending,
        &[("Authorization", &owner(HARBOR_TOKEN))],
        "",
    );
    assert_eq!(
        r.json()["comments"][0]["body"],
        "The Oat glaze looks like honey."
    );
    let moderate = |v: &mut Visitor, token: &str, id: &str, state: &str| {
        v.send(
            "POST",
            &format!("/api/comments/{id}/moderation"),
            &[
                ("Authorization", &owner(token)),
                ("Content-Type", "application/json"),
            ],
            &json!({"state": state}).to_string(),
        )
    };
    let r = moderate(&mut v, HARBOR_TOKEN, &id, "pending");
    assert_eq!(
        (r.status, r.json()["errors"]["state"].clone()),
        (400, json!("A comment is approved or rejected."))
    );
    assert_eq!(
        moderate(&mut l, LOAM_TOKEN, &id, "approved").status,
        404,
        "another site's comment"
    );
    assert_eq!(
        moderate(&mut v, HARBOR_TOKEN, "nope", "approved").status,
        404
    );
    let r = moderate(&mut v, HARBOR_TOKEN, &id, "approved");
    assert_eq!(
        (r.status, r.json()["comment"]["state"].clone()),
        (200, json!("approved"))
    );
    assert_eq!(shown(&mut v).0, "1 Comment");
    let list = v.get(&format!("/api/comments?itemId={OPEN}")).json();
    assert_eq!(list["publicCommentCount"], 1);
    assert_eq!(list["comments"][0]["authorName"], "Marin Okafor");
    assert_eq!(
        comment(&mut m, &xsrf, OPEN, "And the Driftwood!").status,
        201
    );
    let second = v
        .send(
            "GET",
            pending,
            &[("Authorization", &owner(HARBOR_TOKEN))],
            "",
        )
        .json();
    let second = second["comments"][0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        moderate(&mut v, HARBOR_TOKEN, &second, "approved").status,
        200
    );
    assert_eq!(shown(&mut v).0, "2 Comments");
    assert_eq!(
        moderate(&mut v, HARBOR_TOKEN, &second, "rejected").status,
        200
    );
    assert_eq!(shown(&mut v).0, "1 Comment");

    // Likes: with the crumb, once per liker, on this site's items only.
    let mut no_crumb = v.clone();
    no_crumb.send_crumb = false;
    assert_eq!(
        no_crumb.post("/api/likes", json!({"itemId": OPEN})).json()["crumbFail"],
        true
    );
    let r = v.post("/api/likes", json!({"itemId": OPEN}));
    assert_eq!(
        (r.status, r.json()),
        (200, json!({"liked": true, "likeCount": 3}))
    );
    assert_eq!(
        v.post("/api/likes", json!({"itemId": OPEN})).json()["likeCount"],
        3
    );
    assert_eq!(shown(&mut v).1, "3 likes");
    // A new browser session (a new crumb) is still the visitor `ss_cvr` names.
    assert!(v.cookies.contains_key("ss_cvr"), "{:?}", v.cookies);
    v.cookies.remove("crumb");
    v.get("/");
    assert_eq!(
        v.post("/api/likes", json!({"itemId": OPEN})).json()["likeCount"],
        3
    );
    // Without `ss_cvr` (cleared, as a restrictive policy does) the crumb counts: once.
    let mut unnamed = Visitor::arrive(&server, HARBOR, "10.8.0.9");
    unnamed.cookies.remove("ss_cvr");
    for _ in 0..2 {
        assert_eq!(
            unnamed.post("/api/likes", json!({"itemId": OPEN})).json()["likeCount"],
            4
        );
    }
    // A member counts once on every device.
    let mut other_device = m.clone();
    other_device.cookies.remove("ss_cvr");
    other_device.cookies.remove("crumb");
    other_device.get("/");
    for who in [&mut m, &mut other_device] {
        assert_eq!(
            who.post("/api/likes", json!({"itemId": OPEN})).json()["likeCount"],
            5
        );
    }
    assert_eq!(shown(&mut v).1, "5 likes");
    assert_eq!(l.post("/api/likes", json!({"itemId": OPEN})).status, 404);
    let r = l.post("/api/likes", json!({"itemId": "nope"}));
    assert_eq!(r.status, 404);

    // A lesson's comments are for the members of its area.
    assert_eq!(v.get(&format!("/api/comments?itemId={LESSON}")).status, 404);
    assert_eq!(m.get(&format!("/api/comments?itemId={LESSON}")).status, 200);
}

on_both_backends!(comments_and_likes);
