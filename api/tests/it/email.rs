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
        "Name: Ada Lovelace",
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
    let (smtp, port) = Smtp::start();
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
                "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL"},
            "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12,
                "expYear": 2099, "cvc": "123"}},
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let order = r.json()["order"].clone();
    // The buyer's confirmation, and the owner's notice at the site's contact address.
    let inbox = smtp.wait_for(2, Duration::from_secs(20));
    assert_eq!(inbox.len(), 2);
    let owner = inbox
        .iter()
        .find(|m| m.to == ["hello@loam-lantern.localhost"])
        .expect("the owner's notice");
    assert_eq!(header(&owner.raw, "Reply-To"), Some("ada@example.com"));
    let m = inbox
        .iter()
        .find(|m| m.to == ["ada@example.com"])
        .expect("the buyer's confirmation");
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
        body.contains("Ada Lovelace, Lindengracht 1, 1015 KB Amsterdam, NH, NL"),
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
    let inbox = smtp.wait_for(3, Duration::from_secs(20));
    assert_eq!(inbox.len(), 3);
    let m = &inbox[2];
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

/// The site as a browser reaches it on a port of its own: every emailed link keeps it.
const LOAM_ON_PORT: &str = "loam-lantern.localhost:18480";
const ORIGIN: &str = "http://loam-lantern.localhost:18480";

fn buy(v: &mut Visitor, lines: &[(&str, &str, i64)], address: Value) -> Value {
    for (slug, sku, quantity) in lines {
        let r = v.post(
            "/api/commerce/shopping-cart/entries",
            json!({"itemId": item_id("loam-lantern", slug), "sku": sku, "quantity": quantity}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let r = v.post(
        "/api/commerce/checkout",
        json!({
            "email": "ada@example.com",
            "shippingAddress": address,
            "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12,
                "expYear": 2099, "cvc": "123"}},
        }),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["order"].clone()
}

/// The queued email of `kind` to `to` about order `number`.
fn mail_of(mails: &[tenants::QueuedEmail], kind: &str, to: &str, number: &Value) -> tenants::Email {
    mails
        .iter()
        .map(|m| &m.email)
        .find(|e| e.kind == kind && e.to == to && e.subject.contains(&format!("#{number} ")))
        .unwrap_or_else(|| panic!("no {kind} to {to} for #{number}"))
        .clone()
}

/// A server writing mail to its outbox files, with loam's owner token.
fn start_without_smtp(backend: Backend) -> Server {
    Server::start(
        backend,
        &[
            "--owner-token",
            OWNER,
            "--cart-writes-per-minute",
            "100000",
            "--checkouts-per-minute",
            "100000",
        ],
    )
}

const NL: fn() -> Value = || {
    json!({"firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
           "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL"})
};

/// Issue 42, item 1: the buyer's email carries the order page, every gift card code, every
/// download link (signed, with when it stops working), the lines and totals.
fn order_emails_carry_links_codes_and_totals(backend: Backend) {
    let server = start_without_smtp(backend);
    let mut v = Visitor::arrive(&server, LOAM_ON_PORT, "203.0.113.73");

    // A gift card and a digital print: the email has the card's code, the print's download
    // link (signed, working, with when it stops) and the order page, all on the site's port.
    let order = buy(
        &mut v,
        &[
            ("loam-lantern-gift-card", "GC-50", 1),
            ("botanical-line-prints", "DG-PRINT", 1),
        ],
        Value::Null,
    );
    let id = order["id"].as_str().unwrap();
    let code = order["giftCards"][0]["code"].as_str().unwrap();
    let mails = outbox(&server, LOAM);
    let m = mail_of(
        &mails,
        "order-confirmation",
        "ada@example.com",
        &order["orderNumber"],
    );
    let status_url = format!("{ORIGIN}/commerce/orders/{id}?token=");
    let html = m.html.clone().unwrap();
    for part in [&m.text, &html] {
        assert!(part.contains(code), "the gift card code in {part}");
        assert!(part.contains(&status_url), "the order page in {part}");
        assert!(
            part.contains(&format!("{ORIGIN}/api/commerce/downloads/{id}/1?expires=")),
            "the download link in {part}"
        );
        assert!(part.contains("These links work until 20"), "{part}");
    }
    assert!(m.text.contains("1 x Botanical Line Prints"), "{}", m.text);
    let total = order["grandTotalCents"].as_i64().unwrap();
    assert!(
        m.text
            .contains(&format!("Total: €{}.{:02}", total / 100, total % 100)),
        "{}",
        m.text
    );
    // The download link in the email works.
    let at = m.text.find("/api/commerce/downloads/").unwrap();
    let link = m.text[at..].split_whitespace().next().unwrap().to_owned();
    let file = v.get(&link);
    assert_eq!(file.status, 200, "{link}: {}", file.body);
    assert!(file.body.starts_with("%PDF-"));
    // The order page link opens the order.
    let page_link = m.text[m.text.find("/commerce/orders/").unwrap()..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(v.get(&page_link).header("x-page-type"), Some("211"));
}

/// Issue 42, item 11: loam's prices include VAT: the email says so, as the page does, and
/// adds none.
fn order_emails_say_included_tax_as_the_page_does(backend: Backend) {
    let server = start_without_smtp(backend);
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.74");
    let order = buy(&mut v, &[("house-potting-mix", "HPM-5", 2)], NL());
    let tax = order["taxTotalCents"].as_i64().unwrap();
    assert!(tax > 0, "{order}");
    let tax = format!("€{}.{:02}", tax / 100, tax % 100);
    let mails = outbox(&server, LOAM);
    let m = mail_of(
        &mails,
        "order-confirmation",
        "ada@example.com",
        &order["orderNumber"],
    );
    assert!(
        m.text.contains(&format!("Including tax: {tax}")),
        "{}",
        m.text
    );
    assert!(!m.text.contains("\nTax:"), "{}", m.text);
    let html = m.html.unwrap();
    assert!(
        html.contains("<td>Including tax</td>") && !html.contains("<td>Tax</td>"),
        "{html}"
    );
}

/// The owner hears of each order (on by default), at the site's contact address unless
/// the store's `notifications` preferences name another, replying to the buyer.
fn owners_hear_of_each_order(backend: Backend) {
    let server = start_without_smtp(backend);
    let mut v = Visitor::arrive(&server, LOAM_ON_PORT, "203.0.113.75");
    let order = buy(&mut v, &[("house-potting-mix", "HPM-5", 2)], NL());
    let mails = outbox(&server, LOAM);
    let n = mail_of(
        &mails,
        "order-notification",
        "hello@loam-lantern.localhost",
        &order["orderNumber"],
    );
    assert_eq!(n.reply_to.as_deref(), Some("ada@example.com"));
    assert!(n.subject.starts_with("New order #"), "{}", n.subject);
    assert!(n.text.contains("From: ada@example.com"), "{}", n.text);
    assert!(n.text.contains("2 x "), "{}", n.text);
    assert!(
        n.text.contains(&format!("{ORIGIN}/commerce/orders/")),
        "{}",
        n.text
    );
    let notices = |server: &Server| {
        outbox(server, LOAM)
            .iter()
            .filter(|m| m.email.kind == "order-notification")
            .count()
    };
    assert_eq!(notices(&server), 1);

    // Another address, then none: the store's `notifications` preferences.
    let token = OWNER.split_once('=').unwrap().1;
    let put = |body: Value| {
        crate::support::request(
            server.port,
            "PUT",
            LOAM,
            "/api/v1/commerce-preferences/notifications",
            &[
                ("Authorization", &format!("Bearer {token}")),
                ("Content-Type", "application/json"),
            ],
            &body.to_string(),
        )
    };
    let r = put(json!({"orderEmailTo": "not an address"}));
    assert_eq!(r.status, 400, "{}", r.body);
    let r = put(json!({"orderEmailTo": "orders@example.com"}));
    assert_eq!(r.status, 200, "{}", r.body);
    let order = buy(
        &mut v,
        &[("botanical-line-prints", "DG-PRINT", 1)],
        Value::Null,
    );
    let mails = outbox(&server, LOAM);
    mail_of(
        &mails,
        "order-notification",
        "orders@example.com",
        &order["orderNumber"],
    );
    let r = put(json!({"orderEmail": false}));
    assert_eq!(r.status, 200, "{}", r.body);
    buy(
        &mut v,
        &[("botanical-line-prints", "DG-PRINT", 1)],
        Value::Null,
    );
    assert_eq!(notices(&server), 2, "no notice once turned off");
}

/// Issue 42, item 13: a restock notice and the owner's list of waiting variants keep the
/// port the site is served on.
fn restock_links_keep_the_port(backend: Backend) {
    let server = start_without_smtp(backend);
    let mut v = Visitor::arrive(&server, LOAM_ON_PORT, "203.0.113.76");
    let token = OWNER.split_once('=').unwrap().1;
    let fern = item_id("loam-lantern", "fern-terracotta-pot");
    let c = v.get("/api/captcha/challenge").json();
    let captcha = api::routes::captcha::solve(
        c["challenge"].as_str().unwrap(),
        c["difficulty"].as_u64().unwrap() as u32,
    );
    let r = v.post(
        RESTOCK,
        json!({"productId": fern, "variantId": "FTP-L", "siteVisitorEmail": "bo@example.com",
               "isJoinMailingList": false, "captchaToken": captcha}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let owner = |method: &str, path: &str, body: &str| {
        crate::support::request(
            server.port,
            method,
            LOAM_ON_PORT,
            path,
            &[
                ("Authorization", &format!("Bearer {token}")),
                ("Content-Type", "application/json"),
            ],
            body,
        )
    };
    let groups = owner("GET", &format!("{RESTOCK}/groups"), "").json();
    assert_eq!(
        groups["signUpGroups"][0]["productUrl"],
        format!("{ORIGIN}/shop/fern-terracotta-pot")
    );
    let r = owner(
        "POST",
        &format!("{RESTOCK}/send"),
        &json!({"productId": fern, "variantId": "FTP-L"}).to_string(),
    );
    assert_eq!(r.json()["sent"], 1, "{}", r.body);
    let notice = outbox(&server, LOAM)
        .into_iter()
        .find(|m| m.email.kind == "restock")
        .unwrap()
        .email;
    assert!(
        notice
            .text
            .contains(&format!("{ORIGIN}/shop/fern-terracotta-pot")),
        "{}",
        notice.text
    );
}

/// Issue 42's gap: checkout asks for the fields the store's settings name. Order notes under
/// `checkout.orderNotesLabel` (bounded, kept on the order, on the order page, in the owner's
/// email and the owner's order API, escaped where printed); the shipping address's phone when
/// `checkout.requireShippingPhone` says so; a gift card's recipient, who gets their own email
/// with the code and the buyer's message.
fn checkout_asks_for_the_fields_the_store_names(backend: Backend) {
    let server = start_without_smtp(backend);
    let token = OWNER.split_once('=').unwrap().1;
    let owner =
        |method: &str, path: &str, body: Value| server.owner_call(LOAM, token, method, path, &body);
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.77");
    let r = v.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": item_id("loam-lantern", "house-potting-mix"), "sku": "HPM-5", "quantity": 2}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let terms = &r.json()["shoppingCart"]["checkout"];
    let label = "A note for the shop (gift message, delivery hints)";
    assert_eq!(terms["orderNotesLabel"], label);
    assert_eq!(terms["requireShippingPhone"], false);
    let r = owner(
        "PUT",
        "/api/v1/commerce-preferences/checkout",
        json!({"orderNotesLabel": label, "minimumSubtotal": "10.00", "requireShippingPhone": true}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(v.cart()["checkout"]["requireShippingPhone"], true);

    let checkout = |v: &mut Visitor, extra: Value| {
        let mut body = json!({
            "email": "ada@example.com",
            "shippingAddress": NL(),
            "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12,
                "expYear": 2099, "cvc": "123"}},
        });
        for (k, x) in extra.as_object().unwrap() {
            body[k] = x.clone();
        }
        v.post("/api/commerce/checkout", body)
    };
    let mut with_phone = NL();
    with_phone["phone"] = json!("+31 20 123 4567");
    let r = checkout(&mut v, json!({}));
    assert_eq!(
        (
            r.status,
            r.json()["errors"]["shippingAddress.phone"].as_str()
        ),
        (400, Some("Required")),
        "{}",
        r.body
    );
    let r = checkout(
        &mut v,
        json!({"shippingAddress": with_phone, "orderNotes": "x".repeat(1001)}),
    );
    assert_eq!(
        (r.status, r.json()["errors"]["orderNotes"].as_str()),
        (400, Some("At most 1000 characters.")),
        "{}",
        r.body
    );
    let notes = "Ring twice <b>please</b>";
    let r = checkout(
        &mut v,
        json!({"shippingAddress": with_phone, "orderNotes": format!("  {notes} ")}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let placed = r.json();
    let order = &placed["order"];
    assert_eq!(order["notes"], json!({"label": label, "text": notes}));
    assert_eq!(order["shippingAddress"]["phone"], "+31 20 123 4567");
    // On the order confirmation, escaped.
    let page = v.get(placed["confirmationUrl"].as_str().unwrap());
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("Ring twice &lt;b&gt;please&lt;/b&gt;")
            && page.body.contains("A note for the shop"),
        "{}",
        page.body
    );
    // In the owner's email (escaped in its HTML) and the owner's order API.
    let mails = outbox(&server, LOAM);
    let m = mail_of(
        &mails,
        "order-notification",
        "hello@loam-lantern.localhost",
        &order["orderNumber"],
    );
    assert!(m.text.contains(&format!("{label}:\n{notes}")), "{}", m.text);
    assert!(m.text.contains("Phone: +31 20 123 4567"), "{}", m.text);
    let html = m.html.unwrap();
    assert!(
        html.contains("Ring twice &lt;b&gt;please&lt;/b&gt;"),
        "{html}"
    );
    let listed = owner("GET", "/api/owner/orders", Value::Null).json();
    let id = listed["orders"][0]["id"].as_str().unwrap().to_owned();
    let detail = owner("GET", &format!("/api/owner/orders/{id}"), Value::Null).json();
    assert_eq!(detail["notes"]["text"], notes, "{detail}");

    // A gift card for someone else: a bad address is named; then they get their own email.
    let mut g = Visitor::arrive(&server, LOAM, "203.0.113.78");
    let r = g.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": item_id("loam-lantern", "loam-lantern-gift-card"), "sku": "GC-50", "quantity": 1}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let message = "Happy <birthday>, Bo & co";
    let r = checkout(
        &mut g,
        json!({"shippingAddress": null, "billingAddress": NL(), "giftCardRecipient": {"email": "bo@", "message": message}}),
    );
    assert_eq!(
        (
            r.status,
            r.json()["errors"]["giftCardRecipient.email"].as_str()
        ),
        (
            400,
            Some("Email is not valid. Email addresses should follow the format user@domain.com.")
        ),
        "{}",
        r.body
    );
    let r = checkout(
        &mut g,
        json!({"shippingAddress": null, "billingAddress": NL(), "giftCardRecipient": {"email": "bo@example.com", "message": message}}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    let order = r.json()["order"].clone();
    assert_eq!(
        order["giftCardRecipient"],
        json!({"email": "bo@example.com", "message": message})
    );
    let code = order["giftCards"][0]["code"].as_str().unwrap();
    let mails = outbox(&server, LOAM);
    let gift = mails
        .iter()
        .map(|m| &m.email)
        .find(|e| e.kind == "gift-card" && e.to == "bo@example.com")
        .expect("the recipient's email");
    assert_eq!(gift.reply_to.as_deref(), Some("ada@example.com"));
    assert!(
        gift.subject
            .contains("A gift card for you from Ada Lovelace"),
        "{}",
        gift.subject
    );
    assert!(
        gift.text.contains(code) && gift.text.contains(message),
        "{}",
        gift.text
    );
    let html = gift.html.as_deref().unwrap();
    assert!(html.contains(code), "{html}");
    assert!(
        html.contains("Happy &lt;birthday&gt;, Bo &amp; co"),
        "{html}"
    );
    assert!(!html.contains("<birthday>"), "{html}");
    // The buyer's own confirmation still has the code.
    let m = mail_of(
        &mails,
        "order-confirmation",
        "ada@example.com",
        &order["orderNumber"],
    );
    assert!(m.text.contains(code));
}

on_both_backends!(
    checkout_asks_for_the_fields_the_store_names,
    retried_until_the_server_is_up,
    sent_after_kill_9,
    order_confirmation_and_restock_notice,
    order_emails_carry_links_codes_and_totals,
    order_emails_say_included_tax_as_the_page_does,
    owners_hear_of_each_order,
    restock_links_keep_the_port
);
