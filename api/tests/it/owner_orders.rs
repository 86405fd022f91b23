//! The owner's orders over HTTP against the real binary, on both backends (issue 43): the
//! list (filters, search, keyset paging, bad input), its CSV export, an order's page, and
//! each move with its email to the buyer; another site's orders answer 404; a role
//! without the orders area gets 403, and a role that may only read is offered no move.

use crate::support::{Backend, Response, Server, Visitor, item_id};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const QUILL: &str = "quillback.localhost";
const ADMIN: &str = "owner-token-of-loam-0001";

fn start(backend: Backend) -> Server {
    Server::start(
        backend,
        &[
            "--owner-token",
            &format!("loam-lantern={ADMIN}"),
            "--cart-writes-per-minute",
            "100000",
            "--checkouts-per-minute",
            "100000",
        ],
    )
}

fn address(first: &str) -> Value {
    json!({ "firstName": first, "lastName": "Lovelace", "line1": "Lindengracht 1",
            "city": "Amsterdam", "postalCode": "1015 KB", "country": "NL", "region": "NH" })
}

/// Places an order of `lines` (`(url id, sku, quantity)`) with `extra` over a card
/// checkout for ada@example.com.
fn order(v: &mut Visitor, lines: &[(&str, &str, i64)], extra: Value) -> Value {
    for (slug, sku, quantity) in lines {
        let r = v.post(
            "/api/commerce/shopping-cart/entries",
            json!({"itemId": item_id("loam-lantern", slug), "sku": sku, "quantity": quantity}),
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    let mut body = json!({
        "email": "ada@example.com",
        "shippingAddress": address("Ada"),
        "payment": {"method": "card", "card": {"number": "4242 4242 4242 4242", "expMonth": 12,
            "expYear": 2099, "cvc": "123"}},
    });
    for (k, x) in extra.as_object().unwrap() {
        body[k] = x.clone();
    }
    let r = v.post("/api/commerce/checkout", body);
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["order"].clone()
}

fn outbox(server: &Server, host: &'static str) -> Vec<tenants::Email> {
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(host).await.unwrap().unwrap();
            s.outbox(t.id)
                .await
                .unwrap()
                .into_iter()
                .map(|m| m.email)
                .collect()
        })
    })
}

fn mails(server: &Server, kind: &str, to: &str) -> Vec<tenants::Email> {
    outbox(server, LOAM)
        .into_iter()
        .filter(|e| e.kind == kind && e.to == to)
        .collect()
}

fn message(r: &Response) -> String {
    r.json()["message"].as_str().unwrap_or_default().to_owned()
}

fn the_list_pages_filters_and_exports(backend: Backend) {
    let server = start(backend);
    let admin =
        |method: &str, path: &str| server.owner_call(LOAM, ADMIN, method, path, &Value::Null);
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.90");
    let a = order(&mut v, &[("house-potting-mix", "HPM-5", 2)], json!({}));
    let b = order(
        &mut v,
        &[("soy-tin-candle", "STC-CED", 1)],
        json!({"payment": {"method": "manual"}, "email": "grace@example.com",
               "shippingAddress": address("Grace")}),
    );
    let c = order(
        &mut v,
        &[("house-potting-mix", "HPM-5", 3)],
        json!({"shippingAddress": address("=SUM(A1)"), "email": "eve@example.com"}),
    );
    let number = |o: &Value| o["orderNumber"].as_i64().unwrap();

    // Pages of two, newest first.
    let r = admin("GET", "/api/owner/orders?limit=2");
    assert_eq!(r.status, 200, "{}", r.body);
    let page = r.json();
    let numbers = |p: &Value| -> Vec<i64> {
        p["orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["number"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(numbers(&page), [number(&c), number(&b)]);
    let next = page["next"].as_str().unwrap().to_owned();
    let rest = admin("GET", &format!("/api/owner/orders?limit=2&after={next}")).json();
    assert_eq!(numbers(&rest), [number(&a)]);
    assert!(rest["next"].is_null());
    let row = &rest["orders"][0];
    assert_eq!(row["id"], a["id"]);
    assert_eq!(
        (
            &row["payment"],
            &row["fulfilment"],
            &row["cancelled"],
            &row["itemCount"]
        ),
        (
            &json!("paid"),
            &json!("unfulfilled"),
            &json!(false),
            &json!(2)
        )
    );
    assert_eq!(row["total"]["currency"], a["currency"]);
    assert_eq!(row["total"]["minor"], a["grandTotalCents"]);
    assert!(
        row["total"]["formatted"]
            .as_str()
            .unwrap()
            .contains(|c: char| c.is_ascii_digit())
    );
    assert_eq!(row["name"], "Ada Lovelace");
    assert!(row["placedMs"].as_i64().unwrap() > 0);

    // Filters and search.
    let listed = |q: &str| numbers(&admin("GET", &format!("/api/owner/orders?{q}")).json());
    assert_eq!(listed("payment=awaiting-payment"), [number(&b)]);
    assert_eq!(
        listed("payment=paid&fulfilment=unfulfilled&cancelled=false"),
        [number(&c), number(&a)]
    );
    assert_eq!(listed(&format!("q=%23{}", number(&a))), [number(&a)]);
    assert_eq!(listed("q=GRACE"), [number(&b)]);
    assert_eq!(listed("q=eve%40example"), [number(&c)]);
    assert!(listed("q=%25").is_empty());
    let placed_b = admin(
        "GET",
        &format!("/api/owner/orders/{}", b["id"].as_str().unwrap()),
    )
    .json()["placedMs"]
        .as_i64()
        .unwrap();
    assert!(
        listed(&format!("fromMs={}", placed_b + 1))
            .iter()
            .all(|n| *n != number(&b) && *n != number(&a))
    );
    assert_eq!(listed(&format!("toMs={placed_b}")), [number(&a)]);

    // Bad input names the parameter.
    for (q, field) in [
        ("payment=bogus", "payment"),
        ("fulfilment=shipped", "fulfilment"),
        ("cancelled=maybe", "cancelled"),
        ("limit=0", "limit"),
        ("limit=201", "limit"),
        ("fromMs=yesterday", "fromMs"),
        ("after=not-a-cursor", "after"),
    ] {
        let r = admin("GET", &format!("/api/owner/orders?{q}"));
        assert_eq!(r.status, 400, "{q}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{q}: {}", r.body);
    }
    let long = "x".repeat(201);
    let r = admin("GET", &format!("/api/owner/orders?q={long}"));
    assert_eq!(
        (r.status, r.json()["errors"]["q"].is_string()),
        (400, true),
        "{}",
        r.body
    );

    // The CSV: a header, a row per order, formulas neutralised.
    let r = admin("GET", "/api/owner/orders.csv");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.header("content-type").unwrap().starts_with("text/csv"));
    let lines: Vec<&str> = r.body.lines().collect();
    assert_eq!(
        lines[0],
        "number,placed,email,name,total,currency,payment,fulfilment,cancelled,items,test"
    );
    assert_eq!(lines.len(), 4, "{}", r.body);
    assert!(
        lines[1].starts_with(&format!("{},", number(&c))),
        "{}",
        lines[1]
    );
    assert!(lines[1].contains(",'=SUM(A1) Lovelace,"), "{}", lines[1]);
    assert!(!r.body.contains(",=SUM"), "{}", r.body);
    let r = admin("GET", "/api/owner/orders.csv?payment=awaiting-payment");
    assert_eq!(r.body.lines().count(), 2, "{}", r.body);
    assert!(r.body.contains("grace@example.com"));
    assert_eq!(admin("GET", "/api/owner/orders.csv?limit=x").status, 400);
    // No rows: the header alone (schemathesis once found this answer cut off).
    let r = admin(
        "GET",
        "/api/owner/orders.csv?fulfilment=&cancelled=true&fromMs=-9223372036854775808&after=",
    );
    assert_eq!((r.status, r.body.lines().count()), (200, 1), "{}", r.body);

    // Roles: the editor may not read orders; billing reads them but is offered no move.
    let editor = server.owner_token("loam-lantern", "editor");
    let billing = server.owner_token("loam-lantern", "billing");
    let as_ =
        |t: &str, method: &str, path: &str| server.owner_call(LOAM, t, method, path, &Value::Null);
    assert_eq!(as_(&editor, "GET", "/api/owner/orders").status, 403);
    assert_eq!(as_(&editor, "GET", "/api/owner/orders.csv").status, 403);
    assert_eq!(as_("", "GET", "/api/owner/orders").status, 401);
    let r = as_(
        &billing,
        "GET",
        &format!("/api/owner/orders/{}", b["id"].as_str().unwrap()),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["actions"], json!([]));
    let admin_view = admin(
        "GET",
        &format!("/api/owner/orders/{}", b["id"].as_str().unwrap()),
    )
    .json();
    assert_eq!(
        admin_view["actions"],
        json!(["mark-paid", "cancel", "resend-confirmation"])
    );

    // Another site sees none of them.
    let quill = server.owner_token("quillback", "admin");
    let r = server.owner_call(QUILL, &quill, "GET", "/api/owner/orders", &Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(numbers(&r.json()).is_empty());
    let r = server.owner_call(QUILL, &quill, "GET", "/api/owner/orders.csv", &Value::Null);
    assert_eq!(r.body.lines().count(), 1, "{}", r.body);
}

fn each_move_with_its_email(backend: Backend) {
    let server = start(backend);
    let admin =
        |method: &str, path: &str, body: Value| server.owner_call(LOAM, ADMIN, method, path, &body);
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.91");
    let pot = item_id("loam-lantern", "house-potting-mix");
    let before = v.stock(&pot, "HPM-5");

    // A pay-later order of a gift card for someone else and a bag of potting mix.
    let b = order(
        &mut v,
        &[
            ("loam-lantern-gift-card", "GC-50", 1),
            ("house-potting-mix", "HPM-5", 2),
            ("houseplant-care-guide", "DG-CARE", 1),
        ],
        json!({"payment": {"method": "manual"}, "email": "grace@example.com",
               "billingAddress": address("Grace"),
               "giftCardRecipient": {"email": "bo@example.com", "message": "Happy planting"}}),
    );
    let id = b["id"].as_str().unwrap().to_owned();
    let path = |what: &str| format!("/api/owner/orders/{id}{what}");
    let detail = admin("GET", &path(""), Value::Null).json();
    assert_eq!(detail["payment"], "awaiting-payment");
    assert!(!detail["paymentMethod"].as_str().unwrap().is_empty());
    assert_eq!(detail["lines"].as_array().unwrap().len(), 3, "{detail}");
    assert_eq!(detail["downloads"], json!([]));
    let pot_line = detail["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["sku"] == "HPM-5")
        .unwrap()["position"]
        .as_i64()
        .unwrap();
    assert!(mails(&server, "gift-card", "bo@example.com").is_empty());

    let r = admin(
        "POST",
        &path("/fulfilments"),
        json!({"lines": [{"lineId": pot_line, "quantity": 1}]}),
    );
    assert_eq!(
        (r.status, message(&r)),
        (
            409,
            "This order is awaiting payment: mark it as paid first.".into()
        )
    );

    // Mark as paid: the gift card is issued; the buyer gets what payment opens, the
    // recipient their code.
    let r = admin("POST", &path("/mark-paid"), Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let paid = r.json();
    assert_eq!(paid["payment"], "paid");
    assert_eq!(paid["giftCards"].as_array().unwrap().len(), 1);
    assert_eq!(paid["giftCards"][0]["code"].as_str().unwrap().len(), 4);
    assert_eq!(paid["history"][1]["kind"], "paid");
    // Made with the serve-time admin token (a signed-in owner is named by their email).
    assert_eq!(paid["history"][1]["actor"], "token serve-time");
    let to_buyer = mails(&server, "order-paid", "grace@example.com");
    assert_eq!(to_buyer.len(), 1);
    let code_tail = paid["giftCards"][0]["code"].as_str().unwrap();
    assert!(to_buyer[0].text.contains(code_tail), "{}", to_buyer[0].text);
    assert!(
        to_buyer[0].text.contains("Your downloads:"),
        "{}",
        to_buyer[0].text
    );
    assert!(
        to_buyer[0].text.contains(id.as_str()),
        "{}",
        to_buyer[0].text
    );
    assert_eq!(paid["downloads"].as_array().unwrap().len(), 1);
    assert!(
        paid["downloads"][0]["expiresMs"].as_i64().unwrap() > paid["placedMs"].as_i64().unwrap()
    );
    let to_recipient = mails(&server, "gift-card", "bo@example.com");
    assert_eq!(to_recipient.len(), 1);
    assert!(
        to_recipient[0].text.contains(code_tail),
        "{}",
        to_recipient[0].text
    );
    let r = admin("POST", &path("/mark-paid"), Value::Null);
    assert_eq!(
        (r.status, message(&r)),
        (409, "This order is already paid.".into())
    );

    // Mark as fulfilled, partly, with a carrier and tracking number the buyer is sent.
    for (body, field) in [
        (
            json!({"lines": [{"lineId": pot_line, "quantity": 0}]}),
            "lines",
        ),
        (json!({"trackingNumber": "x".repeat(201)}), "trackingNumber"),
        (json!({"lines": "all"}), "lines"),
    ] {
        let r = admin("POST", &path("/fulfilments"), body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{body}: {}", r.body);
    }
    let r = admin(
        "POST",
        &path("/fulfilments"),
        json!({"lines": [{"lineId": pot_line, "quantity": 3}]}),
    );
    assert_eq!(
        (r.status, message(&r)),
        (409, format!("Line {pot_line} has 2 left to ship."))
    );
    let r = admin(
        "POST",
        &path("/fulfilments"),
        json!({"lines": [{"lineId": pot_line, "quantity": 1}], "carrier": "PostNL", "trackingNumber": "3SLOAM123"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let shipped = r.json();
    assert_eq!(shipped["fulfilment"], "partially-fulfilled");
    assert_eq!(shipped["fulfilments"][0]["trackingNumber"], "3SLOAM123");
    assert_eq!(
        shipped["fulfilments"][0]["lines"],
        json!([{"position": pot_line, "quantity": 1}])
    );
    let mail = mails(&server, "order-shipped", "grace@example.com");
    assert_eq!(mail.len(), 1);
    assert!(
        mail[0].text.contains("Tracking number: 3SLOAM123"),
        "{}",
        mail[0].text
    );
    assert!(mail[0].text.contains("Carrier: PostNL"), "{}", mail[0].text);
    // The rest, with no lines named.
    let r = admin("POST", &path("/fulfilments"), json!({}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["fulfilment"], "fulfilled");
    assert_eq!(v.stock(&pot, "HPM-5"), before - 2);
    let r = admin("POST", &path("/cancel"), Value::Null);
    assert_eq!(
        (r.status, message(&r)),
        (409, "This order is already fulfilled.".into())
    );

    // Resend confirmation.
    let r = admin("POST", &path("/resend-confirmation"), Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        mails(&server, "order-confirmation", "grace@example.com").len(),
        2
    );

    // A card order: refunds bounded by the charge, then cancelled (the rest refunded, the
    // units back in stock).
    let a = order(&mut v, &[("house-potting-mix", "HPM-5", 2)], json!({}));
    let aid = a["id"].as_str().unwrap().to_owned();
    let apath = |what: &str| format!("/api/owner/orders/{aid}{what}");
    assert_eq!(v.stock(&pot, "HPM-5"), before - 4);
    let charged = a["grandTotalCents"].as_i64().unwrap();
    let r = admin("POST", &apath("/refunds"), json!({"amount": charged + 1}));
    assert_eq!(
        (r.status, message(&r)),
        (409, "That is more than is left to refund.".into())
    );
    for (body, field) in [
        (json!({}), "amount"),
        (json!({"amount": 0}), "amount"),
        (json!({"amount": 1, "reason": "x".repeat(501)}), "reason"),
    ] {
        let r = admin("POST", &apath("/refunds"), body.clone());
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert!(r.json()["errors"][field].is_string(), "{body}: {}", r.body);
    }
    let r = admin(
        "POST",
        &apath("/refunds"),
        json!({"amount": 500, "reason": "Scratched bag"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let refunded = r.json();
    assert_eq!(refunded["payment"], "partially-refunded");
    assert_eq!(refunded["refunded"]["minor"], 500);
    assert_eq!(
        refunded["history"].as_array().unwrap().last().unwrap()["kind"],
        "refunded"
    );
    let mail = mails(&server, "order-refunded", "ada@example.com");
    assert_eq!(mail.len(), 1);
    assert!(mail[0].text.contains("Scratched bag"), "{}", mail[0].text);
    let r = admin("POST", &apath("/cancel"), Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let cancelled = r.json();
    assert_eq!(
        (&cancelled["cancelled"], &cancelled["payment"]),
        (&json!(true), &json!("refunded"))
    );
    assert_eq!(cancelled["refunded"]["minor"], charged);
    assert_eq!(cancelled["actions"], json!([]));
    assert_eq!(v.stock(&pot, "HPM-5"), before - 2);
    assert_eq!(
        mails(&server, "order-cancelled", "ada@example.com").len(),
        1
    );
    assert_eq!(mails(&server, "order-refunded", "ada@example.com").len(), 2);
    let r = admin("POST", &apath("/cancel"), Value::Null);
    assert_eq!(
        (r.status, message(&r)),
        (409, "This order is cancelled.".into())
    );

    // Another site's order is not found; a role without the moves is refused them.
    let quill = server.owner_token("quillback", "admin");
    let manager = server.owner_token("loam-lantern", "store-manager");
    let editor = server.owner_token("loam-lantern", "editor");
    for what in [
        "",
        "/mark-paid",
        "/fulfilments",
        "/cancel",
        "/refunds",
        "/resend-confirmation",
    ] {
        let method = if what.is_empty() { "GET" } else { "POST" };
        let body = if what == "/refunds" {
            json!({"amount": 1})
        } else {
            json!({})
        };
        let r = server.owner_call(QUILL, &quill, method, &path(what), &body);
        assert_eq!(r.status, 404, "{what}: {}", r.body);
        let r = server.owner_call(LOAM, &editor, method, &path(what), &body);
        assert_eq!(r.status, 403, "{what}: {}", r.body);
        if !what.is_empty() {
            let r = server.owner_call(LOAM, &manager, method, &path(what), &body);
            assert_eq!(r.status, 403, "{what}: {}", r.body);
        }
    }
    let r = admin(
        "GET",
        "/api/owner/orders/ffffffffffffffffffffffff",
        Value::Null,
    );
    assert_eq!(
        (r.status, message(&r)),
        (404, "That order does not exist.".into())
    );
    let r = server.owner_call(LOAM, &manager, "GET", &path(""), &Value::Null);
    assert_eq!((r.status, r.json()["actions"].clone()), (200, json!([])));
}

crate::on_both_backends!(the_list_pages_filters_and_exports, each_move_with_its_email);
