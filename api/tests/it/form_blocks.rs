//! Form blocks placed with the content editor, over HTTP on both backends: the placeholder
//! survives sanitizing, the live page draws the form from its definition (the site-form
//! island's and the no-JavaScript post's markup), another site's form id draws nothing, and
//! a post through the drawn form is stored and mailed.

use serde_json::{Value, json};

use crate::support::{Backend, LOAM_TOKEN, QUILL_TOKEN, Server, request};

const QUILL: &str = "quillback.localhost";
const LOAM: &str = "loam-lantern.localhost";
/// Quillback's booking form, and its About page (at /about); loam-lantern's About page.
const BOOKING: &str = "a11ce5000000000000c0f0e1";
const QUILL_ABOUT: &str = "8e2b3577e2857f1dfc33df5f";
const LOAM_ABOUT: &str = "7a2a4438a52da560c374fd02";

crate::on_both_backends!(a_placed_form_renders_and_takes_posts);

fn placeholder(id: &str) -> String {
    format!(
        "<div class=\"sqs-block form-block sqs-block-form\" data-block-type=\"9\" data-form-id=\"{id}\"></div>"
    )
}

fn a_placed_form_renders_and_takes_posts(backend: Backend) {
    let server = Server::with_owners(backend, &["--form-submissions-per-minute", "100000"]);
    let put = |host: &str, token: &str, page: &str, html: &str| {
        let r = server.owner_call(
            host,
            token,
            "PUT",
            &format!("/api/owner/collections/{page}/content"),
            &json!({ "mainContent": html }),
        );
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["mainContent"].as_str().unwrap().to_owned()
    };

    // The editor's block is stored as it is; what else rides on it is not.
    let stored = put(
        QUILL,
        QUILL_TOKEN,
        QUILL_ABOUT,
        &format!(
            "<p>Book below.</p>{}<div data-block-type=\"9\" data-form-id=\"x\" onclick=\"steal()\"><script>x()</script></div>",
            placeholder(BOOKING)
        ),
    );
    assert!(stored.contains(&placeholder(BOOKING)), "{stored}");
    assert!(
        !stored.contains("onclick") && !stored.contains("script"),
        "{stored}"
    );

    // The live page draws the form from its definition.
    let page = request(server.port, "GET", QUILL, "/about", &[], "");
    assert_eq!(page.status, 200);
    let body = &page.body;
    assert!(body.contains("<p>Book below.</p>"), "{body}");
    assert!(
        body.contains(&format!(
            "<form class=\"contact-form\" method=\"post\" action=\"/api/form/SaveFormSubmission\" data-form-id=\"{BOOKING}\""
        )),
        "{body}"
    );
    assert!(body.contains(&format!(
        "<input type=\"hidden\" name=\"formId\" value=\"{BOOKING}\">"
    )));
    assert!(
        body.contains("Kind of bicycle <span class=\"required\" aria-hidden=\"true\">*</span>"),
        "{body}"
    );
    assert!(body.contains("<option>Road</option>"));
    assert!(body.contains("<button class=\"button sqs-system-button\" type=\"submit\">"));
    // The other block names no form: nothing of it shows.
    assert!(!body.contains("data-form-id=\"x\""), "{body}");

    // Another site's form shows nothing on this one.
    put(
        LOAM,
        LOAM_TOKEN,
        LOAM_ABOUT,
        &format!("<p>Hello.</p>{}", placeholder(BOOKING)),
    );
    let loam = request(server.port, "GET", LOAM, "/about", &[], "");
    assert_eq!(loam.status, 200);
    assert!(loam.body.contains("<p>Hello.</p>"), "{}", loam.body);
    assert!(!loam.body.contains(BOOKING), "{}", loam.body);

    // A post through the drawn form, as a browser without JavaScript sends it: every control
    // by its name.
    for name in [
        "name=\"name\"",
        "name=\"email\"",
        "name=\"bike\"",
        "name=\"service\"",
        "name=\"details\"",
    ] {
        assert!(body.contains(name), "{name}");
    }
    let host = format!("{QUILL}:{}", server.port);
    let origin = format!("http://{host}");
    let referer = format!("{origin}/about");
    let r = request(
        server.port,
        "POST",
        &host,
        "/api/form/SaveFormSubmission",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Origin", origin.as_str()),
            ("Referer", referer.as_str()),
        ],
        &format!(
            "formId={BOOKING}&source=about&name=Ada&name=Lovelace&email=ada%40example.com&phone=&phone=&phone=\
             &bike=Road&service=Full+overhaul&dropoff=&details=Squeaks"
        ),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let (saved, mail) = server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
            (
                s.form_submissions(t.id, BOOKING).await.unwrap(),
                s.outbox(t.id).await.unwrap(),
            )
        })
    });
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].answers["name"], json!(["Ada", "Lovelace"]));
    assert_eq!(saved[0].answers["bike"], Value::from("Road"));
    assert_eq!(saved[0].page["pagePath"], "/about");
    assert_eq!(mail.len(), 1);
    assert_eq!(mail[0].email.kind, "form-submission");
    assert!(
        mail[0].email.text.contains("Full overhaul"),
        "{}",
        mail[0].email.text
    );
}
