//! The form routes over HTTP against the real `tessera serve`, on the embedded store and on
//! PostgreSQL: the schema, submission keys (single use, expiring, per tenant), saving every
//! field kind and value shape with every message, the newsletter list, validation without
//! saving, crumbs, rate limits, bad bodies and other tenants' forms.

mod support;

use serde_json::{Value, json};
use support::{Backend, Response, Server, Visitor};

const QUILL: &str = "quillback.localhost";
const LOAM: &str = "loam-lantern.localhost";
const BOOKING: &str = "a11ce5000000000000c0f0e1";
const NEWSLETTER: &str = "a11ce5000000000000ee5e77";
const KEY: &str = "/api/form/FormSubmissionKey";
const SAVE: &str = "/api/form/SaveFormSubmission";

fn key(v: &mut Visitor) -> String {
    let r = v.post(KEY, Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["key"].as_str().unwrap().to_owned()
}

fn submit(v: &mut Visitor, key: &str, form_id: &str, answers: Value) -> Response {
    v.post(
        SAVE,
        json!({
            "key": key, "formId": form_id, "form": answers.to_string(),
            "pageTitle": "Contact", "pageId": "p1", "contentSource": "c", "pagePath": "/contact",
            "pagePermissionTypeValue": 1
        }),
    )
}

fn good_booking() -> Value {
    json!({
        "name": ["Ada", "Lovelace"], "email": "ada@example.com", "phone": ["608", "555", "0142"],
        "bike": "Road", "service": "Full overhaul", "dropoff": ["12", "01", "2026"],
        "details": "Creaks when climbing.", "source": "home-banner"
    })
}

fn submissions(
    server: &Server,
    host: &'static str,
    form: &'static str,
) -> Vec<tenants::FormSubmission> {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(host).await.unwrap().unwrap();
            s.form_submissions(t.id, form).await.unwrap()
        })
    })
}

fn forms(backend: Backend) {
    let server = Server::start(backend, &["--form-submissions-per-minute", "100000"]);
    let mut v = Visitor::arrive(&server, QUILL, "203.0.113.40");

    // The schema: the field kinds, and the site's forms without where submissions go.
    let r = v.get("/api/template/GetTemplateSchema?type=form");
    assert_eq!(r.status, 200, "{}", r.body);
    let schema = r.json();
    assert_eq!(schema["type"], "form");
    assert_eq!(
        schema["fieldTypes"]["phone"],
        json!(["showCountryCode", "required"])
    );
    let names: Vec<&str> = schema["forms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Book a repair", "Newsletter"]);
    assert_eq!(schema["forms"][1]["newsletter"], true);
    assert_eq!(v.get("/api/template/GetTemplateSchema").status, 400);
    assert_eq!(
        v.get("/api/template/GetTemplateSchema?type=page").status,
        400
    );

    // Every problem at once, by field, with SPEC's words; nothing stored, the key unspent.
    let k = key(&mut v);
    let bad = json!({
        "name": ["", ""], "email": "ada@", "bike": "Unicycle", "service": "",
        "details": "x".repeat(1001)
    });
    let r = submit(&mut v, &k, BOOKING, bad);
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json(),
        json!({
            "message": "One or more fields is invalid, please check your entries.",
            "errors": {
                "name": "Required",
                "email": "Email is not valid. Email addresses should follow the format user@domain.com.",
                "bike": "Choose one of the options.",
                "service": "Required",
                "details": "You have exceeded the character limit."
            }
        })
    );
    // A form that is no JSON object.
    let r = v.post(
        SAVE,
        json!({ "key": k, "formId": BOOKING, "form": "[1,2]" }),
    );
    assert_eq!(
        (r.status, r.message()),
        (
            400,
            "Could not parse the form fields, please check your entries.".into()
        )
    );
    assert!(submissions(&server, QUILL, BOOKING).is_empty());

    // Then it goes through with the same key, stored in the form's order and shapes.
    let r = submit(&mut v, &k, BOOKING, good_booking());
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json(),
        json!({
            "success": true, "newsletter": false,
            "submissionMessage": "Thanks! We reply within one working day with a drop-off time.",
            "submissionHtml": null, "successRedirect": null
        })
    );
    let stored = submissions(&server, QUILL, BOOKING);
    assert_eq!(stored.len(), 1);
    assert_eq!(
        stored[0].answers,
        json!({
            "name": ["Ada", "Lovelace"], "email": "ada@example.com", "phone": ["", "608", "555", "0142"],
            "bike": "Road", "service": "Full overhaul", "dropoff": ["12", "01", "2026"],
            "details": "Creaks when climbing.", "source": "home-banner"
        })
    );
    assert_eq!(stored[0].page["pagePath"], "/contact");

    // A key works once: 401 the second time, and for a key never issued.
    let r = submit(&mut v, &k, BOOKING, good_booking());
    assert_eq!(
        (r.status, r.message()),
        (401, "Unable to submit form. Please try again later.".into())
    );
    let r = submit(&mut v, "made-up", BOOKING, good_booking());
    assert_eq!(r.status, 401);
    // An expired key: 401.
    let expired = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            s.create_submission_key(t.id, -1).await.unwrap()
        })
    });
    assert_eq!(
        submit(&mut v, &expired, BOOKING, good_booking()).status,
        401
    );
    assert_eq!(submissions(&server, QUILL, BOOKING).len(), 1);

    // An unknown form: SPEC's 404.
    let k = key(&mut v);
    let r = submit(&mut v, &k, "000000000000000000000000", good_booking());
    assert_eq!(
        (r.status, r.message()),
        (404, "This form has not been configured yet.".into())
    );

    // The newsletter: each address once on the site's list, however it is typed.
    for email in [
        "Rider@Example.com",
        "rider@example.com ",
        "second@example.org",
    ] {
        let k = key(&mut v);
        let r = submit(&mut v, &k, NEWSLETTER, json!({ "email": email }));
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(r.json()["newsletter"], true);
    }
    let list = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            s.subscribers(t.id).await.unwrap()
        })
    });
    let emails: Vec<&str> = list.iter().map(|s| s.email.as_str()).collect();
    assert_eq!(emails, ["rider@example.com", "second@example.org"]);
    assert!(
        list.iter()
            .all(|s| s.source == format!("form:{NEWSLETTER}"))
    );

    // Validation without saving: the same problems, or valid; unknown form 404.
    let r = v.post(
        &format!("/api/rest/forms/validate/{BOOKING}"),
        json!({ "email": "nope" }),
    );
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["errors"]["email"],
        "Email is not valid. Email addresses should follow the format user@domain.com."
    );
    assert_eq!(r.json()["errors"]["bike"], "Required");
    let r = v.post(
        &format!("/api/rest/forms/validate/{BOOKING}"),
        good_booking(),
    );
    assert_eq!((r.status, r.json()), (200, json!({ "valid": true })));
    assert_eq!(
        v.post(&format!("/api/rest/forms/validate/{BOOKING}"), json!(["x"]))
            .status,
        400
    );
    assert_eq!(
        v.post("/api/rest/forms/validate/nope", json!({})).status,
        404
    );
    assert_eq!(submissions(&server, QUILL, BOOKING).len(), 1);

    // Bad bodies: not JSON, a missing field, too big.
    let r = v.send(
        "POST",
        SAVE,
        &[("Content-Type", "application/json")],
        "{not json",
    );
    assert_eq!(r.status, 400);
    assert_eq!(v.post(SAVE, json!({ "formId": BOOKING })).status, 400);
    let huge = json!({ "key": "k", "formId": BOOKING, "form": "x".repeat(70_000) });
    assert_eq!(v.post(SAVE, huge).status, 413);

    // Crumbs: without one, keys and submissions are refused.
    v.send_crumb = false;
    let r = v.post(KEY, Value::Null);
    assert_eq!(
        (r.status, r.json()["crumbFail"].clone()),
        (403, json!(true))
    );
    let k_then = {
        v.send_crumb = true;
        key(&mut v)
    };
    v.send_crumb = false;
    assert_eq!(submit(&mut v, &k_then, BOOKING, good_booking()).status, 403);
    v.send_crumb = true;

    // Another tenant: its forms are not this one's, its keys do not work here, and this
    // site's key does not work there.
    let mut loam = Visitor::arrive(&server, LOAM, "203.0.113.41");
    let r = submit(&mut loam, &k_then, BOOKING, good_booking());
    assert_eq!(r.status, 404, "{}", r.body);
    let loam_schema = loam.get("/api/template/GetTemplateSchema?type=form").json();
    assert_eq!(loam_schema["forms"], json!([]));
    assert_eq!(
        loam.post(
            &format!("/api/rest/forms/validate/{BOOKING}"),
            good_booking()
        )
        .status,
        404
    );
    let loam_key = key(&mut loam);
    assert_eq!(
        submit(&mut v, &loam_key, BOOKING, good_booking()).status,
        401
    );
    assert_eq!(submissions(&server, QUILL, BOOKING).len(), 1);
    // The quillback key is still good at home.
    assert_eq!(submit(&mut v, &k_then, BOOKING, good_booking()).status, 200);
}

fn rate_limit(backend: Backend) {
    let server = Server::start(backend, &["--form-submissions-per-minute", "6"]);
    let mut v = Visitor::arrive(&server, QUILL, "203.0.113.42");
    // A burst of a third of the minute's rate, then SPEC's 429 with Retry-After.
    assert_eq!(v.post(KEY, Value::Null).status, 200);
    assert_eq!(v.post(KEY, Value::Null).status, 200);
    let r = v.post(KEY, Value::Null);
    assert_eq!(r.status, 429);
    assert_eq!(
        r.message(),
        "Unable to submit form. Submission rate limit exceeded. Please try again later."
    );
    assert!(r.header("retry-after").is_some());
    // Another client is not held back.
    let mut other = Visitor::arrive(&server, QUILL, "203.0.113.43");
    assert_eq!(other.post(KEY, Value::Null).status, 200);
}

on_both_backends!(forms, rate_limit);
