//! The form routes over HTTP against the real `tessera serve`, on the embedded store and on
//! PostgreSQL: the schema, submission keys (single use, expiring, per tenant), saving every
//! field kind and value shape with every message, the newsletter list, validation without
//! saving, crumbs, rate limits, bad bodies and other tenants' forms.

use crate::support::{Backend, Response, Server, Visitor};
use serde_json::{Value, json};

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

/// A newsletter form's answer, its key and its subscriber are one write: when the mailing
/// list cannot be written, nothing is saved and the key is not spent, so the visitor's
/// retry with the same key goes through (issue 41: it used to answer 503, then 401).
fn newsletter_sign_ups_are_one_write(backend: Backend) {
    let server = Server::start(backend, &["--form-submissions-per-minute", "100000"]);
    let mut v = Visitor::arrive(&server, QUILL, "10.41.0.1");
    let k = key(&mut v);
    server.raw_sql("ALTER TABLE mailing_list_subscriber RENAME TO mailing_list_away");
    let r = submit(
        &mut v,
        &k,
        NEWSLETTER,
        json!({ "email": "Nia@example.com" }),
    );
    assert_eq!(r.status, 503, "{}", r.body);
    server.raw_sql("ALTER TABLE mailing_list_away RENAME TO mailing_list_subscriber");
    assert!(
        submissions(&server, QUILL, NEWSLETTER).is_empty(),
        "nothing saved by the failed write"
    );
    let r = submit(
        &mut v,
        &k,
        NEWSLETTER,
        json!({ "email": "Nia@example.com" }),
    );
    assert_eq!(r.status, 200, "the same key, once more: {}", r.body);
    assert_eq!(submissions(&server, QUILL, NEWSLETTER).len(), 1);
    let list = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            s.subscribers(t.id).await.unwrap()
        })
    });
    assert!(
        list.iter()
            .any(|s| s.email == "nia@example.com" && s.source == format!("form:{NEWSLETTER}")),
        "{list:?}"
    );
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
    // A page post from the same client is held back with the same words.
    let origin = format!("http://{QUILL}");
    let r = v.send(
        "POST",
        SAVE,
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", origin.as_str()),
        ],
        &format!("formId={NEWSLETTER}&email=a%40b.co"),
    );
    assert_eq!(r.status, 429);
    assert!(
        r.body.contains(
            "Unable to submit form. Submission rate limit exceeded. Please try again later."
        ),
        "{}",
        r.body
    );
    // Another client is not held back.
    let mut other = Visitor::arrive(&server, QUILL, "203.0.113.43");
    assert_eq!(other.post(KEY, Value::Null).status, 200);
}

const HARBOR: &str = "harbor-lane.localhost";
const COMMISSION: &str = "5f1a0000000000000000c0de";

fn captcha_token(v: &mut Visitor) -> String {
    let c = v.get("/api/captcha/challenge").json();
    api::routes::captcha::solve(
        c["challenge"].as_str().unwrap(),
        c["difficulty"].as_u64().unwrap() as u32,
    )
}

fn submit_with_captcha(v: &mut Visitor, answers: Value, captcha: Option<&str>) -> Response {
    let k = key(v);
    v.post(
        SAVE,
        json!({"key": k, "formId": COMMISSION, "form": answers.to_string(), "captchaKey": captcha}),
    )
}

/// A form with `captcha: true` takes a solved challenge once; field problems come first and
/// do not spend it.
fn captcha_forms(backend: Backend) {
    let server = Server::start(
        backend,
        &[
            "--form-submissions-per-minute",
            "100000",
            "--captcha-difficulty",
            "3",
        ],
    );
    let mut v = Visitor::arrive(&server, HARBOR, "203.0.113.50");
    let schema = v.get("/api/template/GetTemplateSchema?type=form").json();
    assert_eq!(schema["forms"][0]["captcha"], true);
    let good =
        json!({"name": ["Ada", "Lovelace"], "email": "ada@example.com", "piece": "A teapot."});
    let r = submit_with_captcha(&mut v, good.clone(), None);
    assert_eq!(r.status, 400);
    assert_eq!(
        r.json()["errors"]["captchaKey"],
        "Complete CAPTCHA before submitting."
    );
    let r = submit_with_captcha(&mut v, good.clone(), Some("a.b.c.d:12"));
    assert_eq!(
        r.json()["errors"]["captchaKey"],
        "reCAPTCHA failed. Refresh this page and try again."
    );
    let t = captcha_token(&mut v);
    let r = submit_with_captcha(&mut v, json!({"email": "ada@"}), Some(&t));
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["errors"]["piece"], "Required");
    assert!(r.json()["errors"].get("captchaKey").is_none());
    let r = submit_with_captcha(&mut v, good.clone(), Some(&t));
    assert_eq!(
        r.status, 200,
        "the token was not spent on the refused try: {}",
        r.body
    );
    let r = submit_with_captcha(&mut v, good.clone(), Some(&t));
    assert_eq!(
        r.json()["errors"]["captchaKey"],
        "reCAPTCHA failed. Refresh this page and try again.",
        "a token works once"
    );
    // Quillback's forms ask for none.
    let mut q = Visitor::arrive(&server, QUILL, "203.0.113.51");
    let k = key(&mut q);
    assert_eq!(submit(&mut q, &k, BOOKING, good_booking()).status, 200);
    // The booking's notice waits in the outbox for the storage address.
    let mail = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            s.outbox(t.id).await.unwrap()
        })
    });
    assert_eq!(mail.len(), 1);
    let m = &mail[0].email;
    assert_eq!(
        (m.kind.as_str(), m.to.as_str()),
        ("form-submission", "bench@quillback.example")
    );
    assert_eq!(m.reply_to.as_deref(), Some("ada@example.com"));
    assert!(
        m.text.contains("What does it need?: Full overhaul"),
        "{}",
        m.text
    );
}

/// A form post without JavaScript: form-encoded, checked by origin, answered with a page.
fn page_posts(backend: Backend) {
    let server = Server::start(backend, &["--form-submissions-per-minute", "100000"]);
    let origin = format!("http://{QUILL}:{}", server.port);
    let referer = format!("{origin}/contact");
    let post = |body: &str, headers: &[(&str, &str)]| {
        let mut h = vec![("Content-Type", "application/x-www-form-urlencoded")];
        h.extend_from_slice(headers);
        crate::support::request(
            server.port,
            "POST",
            &format!("{QUILL}:{}", server.port),
            SAVE,
            &h,
            body,
        )
    };
    let from_site = [("Origin", origin.as_str()), ("Referer", referer.as_str())];
    let good = format!(
        "formId={BOOKING}&name=Ada&name=Lovelace&email=ada%40example.com&bike=Road&service=Full+overhaul&details=Squeaks&source=poster"
    );
    let r = post(&good, &from_site);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(
        r.body
            .contains("Thanks! We reply within one working day with a drop-off time.")
    );
    assert!(
        r.body.contains("href=\"/contact\""),
        "a way back: {}",
        r.body
    );
    let saved = submissions(&server, QUILL, BOOKING);
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].answers["name"], json!(["Ada", "Lovelace"]));
    assert_eq!(saved[0].answers["source"], "poster");
    assert_eq!(saved[0].page["pagePath"], "/contact");

    // Problems by field title, 400.
    let r = post(&format!("formId={BOOKING}&email=ada%40"), &from_site);
    assert_eq!(r.status, 400);
    for want in [
        "One or more fields is invalid, please check your entries.",
        "<strong>Name</strong>: Required",
        "<strong>Kind of bicycle</strong>: Required",
        "<strong>Email</strong>: Email is not valid. Email addresses should follow the format user@domain.com.",
    ] {
        assert!(r.body.contains(want), "{want} in {}", r.body);
    }
    // Only from the site's own pages; Referer alone will do.
    let r = post(&good, &[("Origin", "http://evil.test")]);
    assert_eq!(r.status, 403);
    assert!(
        r.body
            .contains("This form can only be sent from the site&#39;s own pages.")
    );
    assert_eq!(post(&good, &[]).status, 403);
    assert_eq!(post(&good, &[("Referer", referer.as_str())]).status, 200);
    // The link back is a path on the site, whatever the Referer's path says (issue 40).
    let odd = format!("{origin}//evil.example/contact");
    let r = post(&good, &[("Referer", odd.as_str())]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(!r.body.contains("evil.example"), "{}", r.body);
    assert!(r.body.contains("href=\"/\""), "{}", r.body);
    // Unknown form; the newsletter joins the list.
    let r = post("formId=nope", &from_site);
    assert_eq!(r.status, 404);
    assert!(r.body.contains("This form has not been configured yet."));
    let r = post(
        &format!("formId={NEWSLETTER}&email=Zed%40example.com"),
        &from_site,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("You&#39;re on the list."), "{}", r.body);
    let list = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            s.subscribers(t.id).await.unwrap()
        })
    });
    assert_eq!(
        list.iter().map(|s| s.email.as_str()).collect::<Vec<_>>(),
        ["zed@example.com"]
    );
    // A form with a success redirect sends the browser there.
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            let mut f = s.form(t.id, NEWSLETTER).await.unwrap().unwrap();
            f.settings
                .insert("successRedirect".into(), json!("/thanks"));
            s.put_form(t.id, &f).await.unwrap();
        })
    });
    let r = post(
        &format!("formId={NEWSLETTER}&email=amy%40example.com"),
        &from_site,
    );
    assert_eq!((r.status, r.header("location")), (303, Some("/thanks")));
    // A captcha form cannot be sent without a solved challenge.
    let harbor = format!("http://{HARBOR}:{}", server.port);
    let r = crate::support::request(
        server.port,
        "POST",
        &format!("{HARBOR}:{}", server.port),
        SAVE,
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", harbor.as_str()),
        ],
        &format!("formId={COMMISSION}&name=A&name=B&email=a%40b.co&piece=Pot"),
    );
    assert_eq!(r.status, 400);
    assert!(
        r.body
            .contains("<strong>Captcha</strong>: Complete CAPTCHA before submitting."),
        "{}",
        r.body
    );
}

on_both_backends!(
    forms,
    rate_limit,
    captcha_forms,
    page_posts,
    newsletter_sign_ups_are_one_write,
);
