//! Email end to end, against a real SMTP server started by the test (mailin-embedded) and
//! the real `tessera serve`, on the embedded store and on PostgreSQL: a form submission's
//! notice, an order confirmation and a restock notice arrive with the right headers and
//! body; with the SMTP server down a message is retried and arrives once it is up; after
//! `kill -9` between commit and send, it is sent after restart, once.

use std::time::Duration;

use crate::support::smtp::{Smtp, free_port, readable};
use crate::support::{Backend, Server, Visitor, item_id};
use serde_json::{Value, json};

const QUILL: &str = "quillback.localhost";
const LOAM: &str = "loam-lantern.localhost";
const BOOKING: &str = "a11ce5000000000000c0f0e1";
const OWNER: &str = "loam-lantern=owner-token-of-loam-0001";
const RESTOCK: &str = "/api/site-users/account/notifications/restock";

fn start(backend: Backend, smtp_port: u16) -> Server {
    let url = format!("smtp://127.0.0.1:{smtp_port}");
    Server::start(
        backend,
        &[
            "--smtp",
            &url,
            "--captcha-difficulty",
            "4",
            "--owner-token",
            OWNER,
            "--form-submissions-per-minute",
            "100000",
            "--cart-writes-per-minute",
            "100000",
            "--checkouts-per-minute",
            "100000",
        ],
    )
}

fn book(v: &mut Visitor) {
    let key = v.post("/api/form/FormSubmissionKey", Value::Null).json()["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let answers = json!({
        "name": ["Ada", "Lovelace"], "email": "ada@example.com", "phone": ["608", "555", "0142"],
        "bike": "Road", "service": "Full overhaul", "details": "Creaks <when> climbing.",
    });
    let r = v.post(
        "/api/form/SaveFormSubmission",
        json!({"key": key, "formId": BOOKING, "form": answers.to_string(), "pagePath": "/contact"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

fn outbox(server: &Server, host: &'static str) -> Vec<tenants::QueuedEmail> {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(host).await.unwrap().unwrap();
            s.outbox(t.id).await.unwrap()
        })
    })
}

fn header<'a>(raw: &'a str, name: &str) -> Option<&'a str> {
    raw.lines()
        .take_while(|l| !l.is_empty() && *l != "\r")
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .map(str::trim_end)
}

fn retried_until_the_server_is_up(backend: Backend) {
    let port = free_port();
    let server = start(backend, port);
    let mut v = Visitor::arrive(&server, QUILL, "203.0.113.70");
    book(&mut v);
    // Nothing listens yet: the message stays in the outbox with the failure, and is tried
    // again with back-off.
    let (waiting, _) = crate::support::poll_until(
        Duration::from_secs(20),
        "a second failed try",
        || outbox(&server, QUILL),
        |o| o.first().is_some_and(|m| m.attempts >= 2),
    );
    assert_eq!(waiting.len(), 1);
    assert!(
        waiting[0].sent_ms.is_none() && waiting[0].attempts >= 2,
        "{waiting:?}"
    );
    assert!(waiting[0].last_error.is_some());

    let smtp = Smtp::start_on(port);
    let inbox = smtp.wait_for(1, Duration::from_secs(30));
    assert_eq!(inbox.len(), 1, "the notice arrives once the server is up");
    let m = &inbox[0];
    assert_eq!(m.to, ["bench@quillback.example"]);
    assert_eq!(m.from, "no-reply@quillback.localhost");
    assert_eq!(header(&m.raw, "To"), Some("bench@quillback.example"));
    assert_eq!(header(&m.raw, "Reply-To"), Some("ada@example.com"));
    assert_eq!(
        header(&m.raw, "Subject"),
        Some("Book a repair: a new submission on Quillback Cycles")
    );
    assert!(header(&m.raw, "Message-ID").is_some_and(|id| id.ends_with("@tessera>")));
    let body = readable(&m.raw);
    for line in [
        "Name: Ada, Lovelace",
        "Kind of bicycle: Road",
        "Preferred drop-off day: N/A",
        "Tell us about the problem: Creaks <when> climbing.",
        "<th align=\"left\" valign=\"top\">Tell us about the problem</th><td>Creaks &lt;when&gt; climbing.</td>",
    ] {
        assert!(body.contains(line), "{line:?} in {body}");
    }
    assert!(body.contains("multipart/alternative") && body.contains("text/plain"));
    // The outbox knows it went.
    let start = std::time::Instant::now();
    while outbox(&server, QUILL)[0].sent_ms.is_none() {
        assert!(start.elapsed() < Duration::from_secs(10), "marked sent");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn sent_after_kill_9(backend: Backend) {
    let port = free_port();
    let mut server = start(backend, port);
    let mut v = Visitor::arrive(&server, QUILL, "203.0.113.71");
    book(&mut v);
    // The submission is committed with its notice; the server dies before it can send.
    server.kill9();
    let smtp = Smtp::start_on(port);
    std::thread::sleep(Duration::from_millis(300));
    assert!(smtp.inbox().is_empty());
    server.restart();
    let inbox = smtp.wait_for(1, Duration::from_secs(90));
    assert_eq!(inbox.len(), 1, "sent after the restart");
    assert_eq!(inbox[0].to, ["bench@quillback.example"]);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(smtp.inbox().len(), 1, "and only once");
}

fn order_confirmation_and_restock_notice(backend: Backend) {
    let port = free_port();
    let smtp = Smtp::start_on(port);
    let server = start(backend, port);
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.72");
    let r = v.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": item_id("loam-lantern", "house-potting-mix"), "sku": "HPM-5", "quantity": 2}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = v.post(
        "/api/commerce/checkout",
        json!({
            "email": "ada@example.com",
            "shippingAddress": {"firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
                "city": "Amsterdam", "postalCode": "1015 KB", "country": "NL"},
            "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12,
                "expYear": 2099, "cvc": "123"}},
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let order = r.json()["order"].clone();
    let inbox = smtp.wait_for(1, Duration::from_secs(20));
    assert_eq!(inbox.len(), 1);
    let m = &inbox[0];
    assert_eq!(m.to, ["ada@example.com"]);
    assert_eq!(
        header(&m.raw, "Subject"),
        Some(format!("Your order #{} at Loam & Lantern", order["orderNumber"]).as_str())
    );
    let body = readable(&m.raw);
    let product = order["items"][0]["productName"].as_str().unwrap();
    assert!(body.contains(&format!("2 x {product}")), "{body}");
    let total = order["grandTotalCents"].as_i64().unwrap();
    let total = format!("Total: €{}.{:02}", total / 100, total % 100);
    assert!(body.contains(&total), "{total} in {body}");
    assert!(
        body.contains("Ada Lovelace, Lindengracht 1, 1015 KB Amsterdam, NL"),
        "{body}"
    );

    // A restock sign-up, then the owner's send: the signer gets the notice.
    let fern = item_id("loam-lantern", "fern-terracotta-pot");
    let c = v.get("/api/captcha/challenge").json();
    let token = api::routes::captcha::solve(c["challenge"].as_str().unwrap(), 4);
    let r = v.post(
        RESTOCK,
        json!({"productId": fern, "variantId": "FTP-L", "siteVisitorEmail": "Bo@Example.com",
               "isJoinMailingList": false, "captchaToken": token}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let token = OWNER.split_once('=').unwrap().1;
    let r = crate::support::request(
        server.port,
        "POST",
        LOAM,
        &format!("{RESTOCK}/send"),
        &[
            ("Authorization", &format!("Bearer {token}")),
            ("Content-Type", "application/json"),
        ],
        &json!({"productId": fern, "variantId": "FTP-L"}).to_string(),
    );
    assert_eq!(
        (r.status, r.json()["sent"].clone()),
        (200, json!(1)),
        "{}",
        r.body
    );
    let inbox = smtp.wait_for(2, Duration::from_secs(20));
    assert_eq!(inbox.len(), 2);
    let m = &inbox[1];
    assert_eq!(m.to, ["bo@example.com"]);
    assert_eq!(
        header(&m.raw, "Subject"),
        Some("Fern Terracotta Pot is back in stock at Loam & Lantern")
    );
    let body = readable(&m.raw);
    assert!(
        body.contains("Fern Terracotta Pot (Size: Large, 22 cm) is back in stock"),
        "{body}"
    );
    assert!(
        body.contains(&format!("http://{LOAM}/shop/fern-terracotta-pot")),
        "{body}"
    );
}

on_both_backends!(
    retried_until_the_server_is_up,
    sent_after_kill_9,
    order_confirmation_and_restock_notice
);
