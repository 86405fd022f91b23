//! Member areas over HTTP against the real binary, on both backends: the join page (106)
//! and the content (105) by who is signed in, signing up with an emailed link that works
//! once, joining another area, the messages, and another site's links and sessions.

use crate::support::{Backend, Server, Visitor};
use serde_json::json;

const HARBOR: &str = "harbor-lane.localhost";
const LOAM: &str = "loam-lantern.localhost";
const SESSION: &str = "/api/site-users/account/session";
const ACCOUNT: &str = "/api/site-users/account";
const JOIN: &str = "/api/site-users/account/member-areas";
const CONFIRM: &str = "/api/site-users/account/confirm";
/// Lesson 1 of the Studio Club's course, and the Kiln Crew's page (harbor-lane fixtures).
const LESSON: &str = "/course/centering";
const LESSON_TEXT: &str = "Cone the clay up and down";
const KILN: &str = "/kiln-log";
const KILN_TEXT: &str = "a 15-minute hold";

fn start(backend: Backend) -> Server {
    Server::start(backend, &["--sign-ins-per-minute", "100000"])
}

fn outbox(server: &Server) -> Vec<tenants::QueuedEmail> {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(HARBOR).await.unwrap().unwrap();
            s.outbox(t.id).await.unwrap()
        })
    })
}

/// The newest message to `to`.
fn mail_to(server: &Server, to: &str) -> tenants::Email {
    let mut all = outbox(server);
    all.sort_by_key(|q| q.created_ms);
    all.into_iter()
        .rev()
        .find(|q| q.email.to == to)
        .unwrap_or_else(|| panic!("no mail to {to}"))
        .email
}

/// The confirmation link's path and query in a message.
fn link_in(text: &str) -> String {
    let at = text.find(CONFIRM).expect("a confirmation link");
    let tail = &text[at..];
    tail[..tail.find(char::is_whitespace).unwrap_or(tail.len())].to_owned()
}

/// A page's type and whether it shows `text`.
fn page(v: &mut Visitor, path: &str, text: &str) -> (u16, bool) {
    let r = v.get(path);
    assert_eq!(r.status, 200, "{path}: {}", r.head);
    let t = r.header("x-page-type").unwrap().parse().unwrap();
    (t, r.body.contains(text))
}

fn sign_up(v: &mut Visitor, body: serde_json::Value) -> crate::support::Response {
    v.post(ACCOUNT, body)
}

fn members_areas_and_sign_up(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::arrive(&server, HARBOR, "10.7.0.1");

    // A visitor gets the join page, never the content, and no cache keeps it.
    let r = v.get(LESSON);
    assert_eq!(r.header("x-page-type"), Some("106"));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert!(r.body.contains("Join the Studio Club"), "{}", r.body);
    assert!(r.body.contains(&format!("data-redirect=\"{LESSON}\"")));
    assert!(!r.body.contains(LESSON_TEXT));
    let json = v.get("/course?format=json").json();
    assert_eq!(json["memberArea"]["title"], "Studio Club");
    assert!(json.get("items").is_none());

    // Sign-up: crumb, fields, the area, each refused with its message.
    let mut no_crumb = v.clone();
    no_crumb.send_crumb = false;
    let good = json!({"email": "ana@example.test", "password": "wheel-and-kiln", "displayName": "Ana",
                      "memberAreaId": "studio-club", "redirect": LESSON});
    let r = sign_up(&mut no_crumb, good.clone());
    assert_eq!(
        (r.status, r.json()["crumbFail"].clone()),
        (403, json!(true))
    );
    let r = sign_up(&mut v, json!({"email": " ", "password": ""}));
    assert_eq!(
        (r.status, r.message()),
        (400, "Please enter your email address and password.".into())
    );
    for (field, value, message) in [
        (
            "email",
            json!("ana@example"),
            "Please enter a valid email address.",
        ),
        (
            "password",
            json!("short"),
            "Your password needs at least 8 characters.",
        ),
        (
            "password",
            json!("x".repeat(257)),
            "Your password can have at most 256 characters.",
        ),
        (
            "memberAreaId",
            json!("studio"),
            "That member area does not exist.",
        ),
    ] {
        let mut body = good.clone();
        body[field] = value;
        let r = sign_up(&mut v, body);
        assert_eq!(
            (r.status, r.json()["errors"][field].clone()),
            (400, json!(message)),
            "{field}"
        );
    }
    assert_eq!(
        v.send(
            "POST",
            ACCOUNT,
            &[("Content-Type", "application/json")],
            "["
        )
        .status,
        400
    );
    assert!(outbox(&server).is_empty(), "nothing refused was mailed");

    // A good sign-up: 202 and a link by email; no signing in before it is used.
    let r = sign_up(&mut v, good.clone());
    assert_eq!(r.status, 202, "{}", r.body);
    let answer = r.json();
    assert_eq!(
        answer,
        json!({"verificationSent": true, "message": "Check your email: we sent you a link to confirm your address and sign in."})
    );
    let mail = mail_to(&server, "ana@example.test");
    assert_eq!(mail.kind, "member-confirmation");
    assert!(
        mail.subject.contains("Harbor Lane Pottery"),
        "{}",
        mail.subject
    );
    assert!(mail.text.contains("to join Studio Club"), "{}", mail.text);
    let link = link_in(&mail.text);
    assert!(
        mail.text.contains(&format!("http://{HARBOR}{link}")),
        "{}",
        mail.text
    );
    let r = v.post(
        SESSION,
        json!({"email": "ana@example.test", "password": "wheel-and-kiln"}),
    );
    assert_eq!(
        (r.status, r.message()),
        (
            403,
            "Please confirm your email address first: use the link we sent you when you signed up."
                .into()
        )
    );
    let r = v.post(
        SESSION,
        json!({"email": "ana@example.test", "password": "wrong-one!"}),
    );
    assert_eq!(
        r.status, 401,
        "the unconfirmed are told only with the right password"
    );

    // An address with an account: the same answer, and a note instead of a link.
    let r = sign_up(
        &mut v,
        json!({"email": "Marin@harbor-lane.localhost", "password": "anything-else"}),
    );
    assert_eq!((r.status, r.json()), (202, answer.clone()));
    let note = mail_to(&server, "marin@harbor-lane.localhost");
    assert_eq!(note.kind, "member-existing");
    assert!(!note.text.contains(CONFIRM), "{}", note.text);

    // The link: not on another site, not with a made-up token; then once, signed in.
    let mut elsewhere = Visitor::arrive(&server, LOAM, "10.7.0.2");
    let r = elsewhere.get(&link);
    assert_eq!(r.status, 400);
    assert!(
        r.body
            .contains("This link has expired or was already used."),
        "{}",
        r.body
    );
    assert_eq!(
        v.get(&format!("{CONFIRM}?token={}", "ab".repeat(32)))
            .status,
        400
    );
    assert_eq!(v.get(&format!("{CONFIRM}?token=nothex")).status, 400);
    let mut phone = Visitor::new(&server, HARBOR, "10.7.0.3");
    let r = phone.get(&link);
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some(LESSON)),
        "{}",
        r.head
    );
    assert!(
        phone.cookies.contains_key("tessera-member") && phone.cookies.contains_key("SiteUserInfo")
    );
    let spent = phone.get(&link);
    assert_eq!(spent.status, 400, "a link works once");
    // The page that says so leads back to the site.
    assert!(
        spent
            .body
            .contains("<a href=\"/\">Back to Harbor Lane Pottery</a>"),
        "{}",
        spent.body
    );
    let r = phone.get(LESSON);
    assert_eq!(r.header("x-page-type"), Some("105"));
    assert_eq!(r.header("cache-control"), Some("private, no-store"));
    assert!(r.body.contains(LESSON_TEXT));
    // A lesson has no island markup, but a member gets the islands (their bar signs out).
    assert!(r.body.contains("/_tessera/islands/"), "{}", r.body);
    let visitor_view = Visitor::new(&server, HARBOR, "10.7.0.9")
        .get("/journal")
        .body;
    assert!(
        !visitor_view.contains("/_tessera/islands/"),
        "{visitor_view}"
    );
    let account = phone.get(ACCOUNT).json();
    assert_eq!(account["memberAreas"], json!(["studio-club"]));
    // Signed in by a link, the page's scripts read the XSRF token from the account.
    let phone_xsrf = account["xsrfToken"].as_str().unwrap().to_owned();
    assert_eq!(phone_xsrf.len(), 64);
    // Signed up and confirmed: the password works from now on.
    let mut laptop = Visitor::arrive(&server, HARBOR, "10.7.0.4");
    let r = laptop.post(
        SESSION,
        json!({"email": "ana@example.test", "password": "wheel-and-kiln"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let xsrf = r.json()["xsrfToken"].as_str().unwrap().to_owned();

    // One area opens only itself: the Kiln Crew's page is a join page until she joins.
    assert_eq!(page(&mut laptop, KILN, KILN_TEXT), (106, false));
    let join = |v: &mut Visitor, xsrf: &str, area: &str| {
        v.send(
            "POST",
            JOIN,
            &[("X-XSRF-Token", xsrf), ("Content-Type", "application/json")],
            &json!({"memberAreaId": area}).to_string(),
        )
    };
    assert_eq!(join(&mut laptop, "wrong", "kiln-crew").status, 403);
    let r = join(&mut laptop, &xsrf, "kiln");
    assert_eq!(
        (r.status, r.json()["errors"]["memberAreaId"].clone()),
        (400, json!("That member area does not exist."))
    );
    let r = join(&mut laptop, &xsrf, "kiln-crew");
    assert_eq!(
        (r.status, r.json()),
        (200, json!({"memberAreas": ["kiln-crew", "studio-club"]}))
    );
    assert_eq!(page(&mut laptop, KILN, KILN_TEXT), (105, true));
    // The token the link's session hands out works like a sign-in's.
    let r = join(&mut phone, &phone_xsrf, "kiln-crew");
    assert_eq!(
        (r.status, r.json()),
        (200, json!({"memberAreas": ["kiln-crew", "studio-club"]}))
    );
    // A visitor joining is asked to sign in.
    assert_eq!(join(&mut v, "", "kiln-crew").status, 401);

    // The imported member is in the Studio Club only; her session means nothing elsewhere.
    let mut marin = Visitor::arrive(&server, HARBOR, "10.7.0.5");
    let r = marin.post(
        SESSION,
        json!({"email": "marin@harbor-lane.localhost", "password": "glaze-and-fire-1"}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(page(&mut marin, LESSON, LESSON_TEXT), (105, true));
    assert_eq!(page(&mut marin, KILN, KILN_TEXT), (106, false));
    let marin_xsrf = r.json()["xsrfToken"].as_str().unwrap().to_owned();
    elsewhere.cookies.insert(
        "tessera-member".into(),
        marin.cookies["tessera-member"].clone(),
    );
    assert_eq!(join(&mut elsewhere, &marin_xsrf, "kiln-crew").status, 401);

    // Signed out, the content is gone again.
    let r = marin.send("DELETE", SESSION, &[("X-XSRF-Token", &marin_xsrf)], "");
    assert_eq!(r.status, 200);
    assert_eq!(page(&mut marin, LESSON, LESSON_TEXT), (106, false));

    // A sign-up's landing page stays on the site.
    let mut bo = Visitor::arrive(&server, HARBOR, "10.7.0.6");
    let r = sign_up(
        &mut bo,
        json!({"email": "bo@example.test", "password": "pottery-wheel", "redirect": "//evil.example/"}),
    );
    assert_eq!(r.status, 202);
    let link = link_in(&mail_to(&server, "bo@example.test").text);
    let r = bo.get(&link);
    assert_eq!((r.status, r.header("location")), (303, Some("/")));
    // Without an area, confirming joins none.
    assert_eq!(bo.get(ACCOUNT).json()["memberAreas"], json!([]));
}

on_both_backends!(members_areas_and_sign_up);
