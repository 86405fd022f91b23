//! Members' sessions, form email answers and invalid text (issue 40, findings 9, 11, 12).

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::support::{Backend, Response, Server, Visitor, request};

const HARBOR: &str = "harbor-lane.localhost";
const QUILL: &str = "quillback.localhost";
const LOAM: &str = "loam-lantern.localhost";
const SESSION: &str = "/api/site-users/account/session";
const ACCOUNT: &str = "/api/site-users/account";
/// A confirmed member of harbor-lane (fixtures).
const EMAIL: &str = "marin@harbor-lane.localhost";
const PASSWORD: &str = "glaze-and-fire-1";
/// quillback's booking form (fixtures): an email field, a textarea `details`.
const BOOKING: &str = "a11ce5000000000000c0f0e1";
const EMAIL_INVALID: &str =
    "Email is not valid. Email addresses should follow the format user@domain.com.";
const NUL_REFUSED: &str = "Text may not contain the NUL character (U+0000).";

fn start(backend: Backend) -> Server {
    Server::start(
        backend,
        &[
            "--sign-ins-per-minute",
            "100000",
            "--form-submissions-per-minute",
            "100000",
        ],
    )
}

fn sign_in(v: &mut Visitor, email: &str, remember: bool) -> Response {
    v.post(
        SESSION,
        json!({"email": email, "password": PASSWORD, "rememberMe": remember}),
    )
}

fn session_cookie(r: &Response) -> String {
    r.headers("set-cookie")
        .into_iter()
        .find(|c| c.starts_with("tessera-member="))
        .unwrap_or_else(|| panic!("no session cookie: {}", r.head))
        .to_owned()
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Finding 9: a member session ends 12 hours after sign-in on the server with or without
/// rememberMe (which only keeps the cookie, `Max-Age` 12 hours, across browser restarts),
/// and the store keeps only the SHA-256 of the session token.
fn member_sessions_last_12_hours_and_are_stored_hashed(backend: Backend) {
    let server = start(backend);
    let mut remembered = Visitor::arrive(&server, HARBOR, "10.9.0.1");
    let r = sign_in(&mut remembered, EMAIL, true);
    assert_eq!(r.status, 200, "{}", r.body);
    let cookie = session_cookie(&r);
    assert!(cookie.contains("Max-Age=43200"), "{cookie}");
    let token = remembered.cookies["tessera-member"].clone();

    let mut browser_session = Visitor::arrive(&server, HARBOR, "10.9.0.2");
    let r = sign_in(&mut browser_session, EMAIL, false);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!session_cookie(&r).contains("Max-Age"), "{}", r.head);

    // Neither session outlives 12 hours on the server: dropping every longer one drops
    // none of them.
    server.raw_sql("DELETE FROM site_session WHERE expires_ms - created_ms > 43200000");
    assert_eq!(remembered.get(ACCOUNT).status, 200);
    assert_eq!(browser_session.get(ACCOUNT).status, 200);

    // The row of a session is found by the SHA-256 of its cookie (there is no column with
    // the token itself): deleting that row signs that member out, and only them.
    server.raw_sql(&format!(
        "DELETE FROM site_session WHERE token_hash = '{}'",
        sha256_hex(&token)
    ));
    assert_eq!(remembered.get(ACCOUNT).status, 401);
    assert_eq!(browser_session.get(ACCOUNT).status, 200);

    // Signing out still ends the session: its cookie, sent again, is no one's.
    let xsrf = browser_session.get(ACCOUNT).json()["xsrfToken"]
        .as_str()
        .unwrap()
        .to_owned();
    let old = browser_session.cookies["tessera-member"].clone();
    let r = browser_session.send("DELETE", SESSION, &[("X-XSRF-Token", &xsrf)], "");
    assert_eq!(r.status, 200, "{}", r.body);
    browser_session
        .cookies
        .insert("tessera-member".to_owned(), old);
    assert_eq!(browser_session.get(ACCOUNT).status, 401);
}

fn key(v: &mut Visitor) -> String {
    let r = v.post("/api/form/FormSubmissionKey", Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["key"].as_str().unwrap().to_owned()
}

fn submit(v: &mut Visitor, answers: Value) -> Response {
    let k = key(v);
    v.post(
        "/api/form/SaveFormSubmission",
        json!({
            "key": k, "formId": BOOKING, "form": answers.to_string(),
            "pageTitle": "Contact", "pageId": "p1", "contentSource": "c", "pagePath": "/contact",
            "pagePermissionTypeValue": 1
        }),
    )
}

fn booking(email: &str, details: &str) -> Value {
    json!({
        "name": ["Ada", "Lovelace"], "email": email, "phone": ["608", "555", "0142"],
        "bike": "Road", "service": "Full overhaul", "dropoff": ["12", "01", "2026"],
        "details": details, "source": "home-banner"
    })
}

/// Addresses the mailer cannot send to (or would read as another address).
const UNSENDABLE: [&str; 3] = [
    "a\"b@example.com",
    "a,b@example.com",
    "x<attacker@evil.com>",
];

/// Finding 11: an email answer is checked with the mailer's own parser, so one it cannot
/// send to is refused where it is given (a form, a sign-up) instead of blocking the
/// owner's notice.
fn email_answers_the_mailer_cannot_send_are_refused(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::arrive(&server, QUILL, "10.9.1.1");
    for email in UNSENDABLE {
        let r = submit(&mut v, booking(email, "Creaks."));
        assert_eq!(r.status, 400, "{email}: {}", r.body);
        assert_eq!(
            r.json()["errors"],
            json!({"email": EMAIL_INVALID}),
            "{email}"
        );
    }
    let r = submit(&mut v, booking("ada@example.com", "Creaks."));
    assert_eq!(r.status, 200, "{}", r.body);

    let mut m = Visitor::arrive(&server, HARBOR, "10.9.1.2");
    for email in UNSENDABLE {
        let r = m.post(
            ACCOUNT,
            json!({"email": email, "password": "long-enough-1"}),
        );
        assert_eq!(r.status, 400, "{email}: {}", r.body);
        assert!(
            r.json()["errors"]["email"].is_string(),
            "{email}: {}",
            r.body
        );
    }
}

/// A 400 naming `field` as refusing U+0000.
fn refused_at(r: &Response, field: &str) {
    assert_eq!(r.status, 400, "{field}: {}", r.body);
    assert_eq!(
        r.json()["errors"][field],
        format!("{field}: {NUL_REFUSED}"),
        "{}",
        r.body
    );
}

/// Finding 12: text with U+0000 is a 400 naming where it is, on both backends (it was a
/// 503 on PostgreSQL, which cannot store it, and stored or looked up as-is on SQLite):
/// in a JSON body, in JSON carried in a string, in a form-encoded body, and in a path.
fn text_with_nul_is_refused_with_400(backend: Backend) {
    let server = start(backend);

    // A member signing in.
    let mut m = Visitor::arrive(&server, HARBOR, "10.9.2.1");
    let r = sign_in(&mut m, "marin\0@harbor-lane.localhost", false);
    refused_at(&r, "email");

    // A form answer (JSON inside the body's `form` string), over JSON and as a page post.
    let mut v = Visitor::arrive(&server, QUILL, "10.9.2.2");
    let r = submit(
        &mut v,
        booking("ada@example.com", "Creaks\0 when climbing."),
    );
    refused_at(&r, "form.details");
    let host = format!("{QUILL}:{}", server.port);
    let origin = format!("http://{host}");
    let r = request(
        server.port,
        "POST",
        &host,
        "/api/form/SaveFormSubmission",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", &origin),
        ],
        &format!("formId={BOOKING}&email=ada%40example.com&details=Creaks%00"),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("U+0000"), "{}", r.body);

    // An owner's item title and template path, and a path parameter.
    let admin = server.owner_token("loam-lantern", "admin");
    let list = server.owner_call(LOAM, &admin, "GET", "/api/owner/collections", &Value::Null);
    assert_eq!(list.status, 200, "{}", list.body);
    let shop = list.json()["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["urlId"] == "shop")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let product = json!({"urlId": "nul-bowl", "title": "Bowl\0", "recordType": 11, "productType": 1,
        "variants": [{"sku": "NB-1", "currency": "EUR", "priceMinor": 2400, "qtyInStock": 3}]});
    let items = format!("/api/owner/collections/{shop}/items");
    refused_at(
        &server.owner_call(LOAM, &admin, "POST", &items, &product),
        "title",
    );
    let upload = json!({"files": [{"path": "blog\0.list", "text": "x"}]});
    refused_at(
        &server.owner_call(LOAM, &admin, "POST", "/api/owner/template", &upload),
        "files[0].path",
    );
    let r = server.owner_call(
        LOAM,
        &admin,
        "GET",
        "/api/owner/collections/%00/items",
        &Value::Null,
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.message(), NUL_REFUSED);

    // Nothing broke: the same calls without it still work.
    assert_eq!(sign_in(&mut m, EMAIL, false).status, 200);
    let r = submit(&mut v, booking("ada@example.com", "Creaks when climbing."));
    assert_eq!(r.status, 200, "{}", r.body);
}

on_both_backends!(
    member_sessions_last_12_hours_and_are_stored_hashed,
    email_answers_the_mailer_cannot_send_are_refused,
    text_with_nul_is_refused_with_400,
);
