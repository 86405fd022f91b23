//! Restock notices over HTTP against the real `tessera serve`, on the embedded store and on
//! PostgreSQL: the visitor's sign-up with every SPEC message and the captcha, the mailing
//! list, the owner's listings paged through 250 sign-ups, send and send all (each signer
//! told once, through the outbox), owner tokens, crumbs and other sites' ids.

use crate::support::{
    Backend, LOAM_TOKEN, QUILL_TOKEN, Response, Server, Visitor, item_id, request,
};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const QUILL: &str = "quillback.localhost";
const RESTOCK: &str = "/api/site-users/account/notifications/restock";

fn start(backend: Backend) -> Server {
    Server::with_owners(
        backend,
        &[
            "--captcha-difficulty",
            "2",
            "--form-submissions-per-minute",
            "100000",
        ],
    )
}

fn token(v: &mut Visitor) -> String {
    let c = v.get("/api/captcha/challenge").json();
    assert_eq!(c["provider"], "proof-of-work");
    api::routes::captcha::solve(
        c["challenge"].as_str().unwrap(),
        c["difficulty"].as_u64().unwrap() as u32,
    )
}

fn sign_up(v: &mut Visitor, product: &str, sku: &str, email: &str, join: bool) -> Response {
    let captcha = token(v);
    v.post(
        RESTOCK,
        json!({"productId": product, "variantId": sku, "siteVisitorEmail": email,
               "isJoinMailingList": join, "captchaToken": captcha}),
    )
}

fn owner(
    server: &Server,
    host: &str,
    token: &str,
    method: &str,
    path: &str,
    body: Value,
) -> Response {
    let auth = format!("Bearer {token}");
    let body = if body.is_null() {
        String::new()
    } else {
        body.to_string()
    };
    request(
        server.port,
        method,
        host,
        path,
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        &body,
    )
}

fn message(r: &Response) -> String {
    r.json()["message"].as_str().unwrap_or_default().to_owned()
}

fn store_facts(server: &Server) -> (Vec<String>, Vec<tenants::QueuedEmail>) {
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap();
            let list = s
                .subscribers(t.id)
                .await
                .unwrap()
                .into_iter()
                .map(|s| s.email)
                .collect();
            (list, s.outbox(t.id).await.unwrap())
        })
    })
}

fn sign_ups_follow_spec(backend: Backend) {
    let server = start(backend);
    let fern = item_id("loam-lantern", "fern-terracotta-pot");
    let snips = item_id("loam-lantern", "bypass-pruning-snips");
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.80");

    // SPEC.md §5's messages, in order: blank, invalid, then the captcha.
    let body = |email: &str, captcha: Option<&str>| {
        json!({"productId": fern, "variantId": "FTP-L", "siteVisitorEmail": email,
               "isJoinMailingList": false, "captchaToken": captcha})
    };
    for blank in ["", "   "] {
        let r = v.post(RESTOCK, body(blank, None));
        assert_eq!(
            (r.status, message(&r)),
            (400, "Email cannot be blank".into())
        );
    }
    let r = v.post(RESTOCK, json!({"productId": fern, "variantId": "FTP-L"}));
    assert_eq!(message(&r), "Email cannot be blank");
    let long = format!("{}@example.com", "a".repeat(250));
    for bad in [
        "ann",
        "ann@",
        "ann@example",
        "ann@example.c",
        "ann@example.museum",
        "a b@example.com",
        &long,
    ] {
        let r = v.post(RESTOCK, body(bad, None));
        assert_eq!(
            (r.status, message(&r)),
            (400, "Email is invalid".into()),
            "{bad}"
        );
    }
    let r = v.post(RESTOCK, body("ann@example.com", None));
    assert_eq!(
        (r.status, message(&r)),
        (400, "Complete CAPTCHA before submitting.".into())
    );
    // A solved challenge whose signature was tampered with.
    let solved = token(&mut v);
    let (challenge, nonce) = solved.rsplit_once(':').unwrap();
    let last = if challenge.ends_with('0') { '1' } else { '0' };
    let forged = format!("{}{last}:{nonce}", &challenge[..challenge.len() - 1]);
    for wrong in ["nonsense", "a.b.c.d:1", &forged] {
        let r = v.post(RESTOCK, body("ann@example.com", Some(wrong)));
        assert_eq!(
            (r.status, message(&r)),
            (
                400,
                "reCAPTCHA failed. Refresh this page and try again.".into()
            ),
            "{wrong}"
        );
    }
    // A solved challenge works once.
    let t = token(&mut v);
    assert_eq!(
        v.post(RESTOCK, body("ann@example.com", Some(&t))).status,
        200
    );
    let r = v.post(RESTOCK, body("ann@example.com", Some(&t)));
    assert_eq!(
        message(&r),
        "reCAPTCHA failed. Refresh this page and try again."
    );
    // Another site's challenge is worthless here.
    let mut q = Visitor::arrive(&server, QUILL, "203.0.113.81");
    let foreign = token(&mut q);
    let r = v.post(RESTOCK, body("ann@example.com", Some(&foreign)));
    assert_eq!(
        message(&r),
        "reCAPTCHA failed. Refresh this page and try again."
    );

    // Only sold-out variants of this site's products.
    let r = sign_up(&mut v, &fern, "FTP-S", "ann@example.com", false);
    assert_eq!(r.status, 409, "{}", r.body);
    for (product, sku) in [
        (fern.as_str(), "NOPE"),
        ("0123456789abcdef01234567", "FTP-L"),
    ] {
        let r = sign_up(&mut v, product, sku, "ann@example.com", false);
        assert_eq!(r.status, 404, "{}", r.body);
    }
    let r = sign_up(&mut q, &fern, "FTP-L", "ann@example.com", false);
    assert_eq!(r.status, 404, "another site's product: {}", r.body);
    // Bad bodies, a bad language, no crumb.
    assert_eq!(
        v.send(
            "POST",
            RESTOCK,
            &[("Content-Type", "application/json")],
            "{"
        )
        .status,
        400
    );
    let captcha = token(&mut v);
    let r = v.post(
        RESTOCK,
        json!({"productId": fern, "variantId": "FTP-L", "siteVisitorEmail": "ann@example.com",
               "isJoinMailingList": false, "captchaToken": captcha, "language": "<fr>"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let mut no_crumb = v.clone();
    no_crumb.send_crumb = false;
    assert_eq!(
        sign_up(&mut no_crumb, &fern, "FTP-L", "cy@example.com", false).status,
        403
    );

    // Signing up again is fine and changes nothing; joining the list needs the merchant's
    // mailing-list sign-up to be on (it is, on loam-lantern) and is case-blind.
    assert_eq!(
        sign_up(&mut v, &fern, "FTP-L", "ANN@example.com", false).status,
        200
    );
    assert_eq!(
        sign_up(&mut v, &snips, "BPS-1", "Bo@Example.com", true).status,
        200
    );
    assert_eq!(
        sign_up(&mut v, &fern, "FTP-L", "bo@example.com", true).status,
        200
    );
    let (list, _) = store_facts(&server);
    assert_eq!(list, ["bo@example.com"]);

    // The owner's view: ann and bo wait for FTP-L, bo for BPS-1.
    let r = owner(
        &server,
        LOAM,
        LOAM_TOKEN,
        "GET",
        &format!("{RESTOCK}?productId={fern}&variantId=FTP-L"),
        Value::Null,
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let mut sorted: Vec<String> = r.json()["signUps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["email"].as_str().unwrap().to_owned())
        .collect();
    sorted.sort();
    assert_eq!(sorted, ["ann@example.com", "bo@example.com"]);
}

fn owners_page_and_send(backend: Backend) {
    let server = start(backend);
    let fern = item_id("loam-lantern", "fern-terracotta-pot");
    let snips = item_id("loam-lantern", "bypass-pruning-snips");
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.82");
    for i in 0..250 {
        let r = sign_up(
            &mut v,
            &fern,
            "FTP-L",
            &format!("waiting{i:03}@example.com"),
            false,
        );
        assert_eq!(r.status, 200, "{}", r.body);
    }
    for email in ["a@example.com", "b@example.com"] {
        assert_eq!(sign_up(&mut v, &snips, "BPS-1", email, false).status, 200);
    }

    // Owner credentials: none, wrong, another site's, or the right one on another host.
    let groups = format!("{RESTOCK}/groups");
    for (host, t) in [
        (LOAM, ""),
        (LOAM, "wrong-token-wrong-token"),
        (LOAM, QUILL_TOKEN),
        (QUILL, LOAM_TOKEN),
    ] {
        let r = owner(&server, host, t, "GET", &groups, Value::Null);
        assert_eq!(r.status, 401, "{host} {t}: {}", r.body);
    }
    let r = v.get(&groups);
    assert_eq!(r.status, 401, "a visitor's cookies are no owner credential");
    // quillback's owner sees quillback's (empty) lists.
    let r = owner(&server, QUILL, QUILL_TOKEN, "GET", &groups, Value::Null);
    assert_eq!(r.json()["signUpGroups"], json!([]));

    // Groups one per page.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("{groups}?limit=1&cursor={c}"),
            None => format!("{groups}?limit=1"),
        };
        let page = owner(&server, LOAM, LOAM_TOKEN, "GET", &path, Value::Null).json();
        for g in page["signUpGroups"].as_array().unwrap() {
            seen.push((
                g["variantId"].as_str().unwrap().to_owned(),
                g["pendingCount"].as_i64().unwrap(),
            ));
            if g["variantId"] == "FTP-L" {
                assert_eq!(g["productName"], "Fern Terracotta Pot");
                assert_eq!(g["variantDescription"], "Size: Large, 22 cm");
            }
        }
        if page["hasNextPage"] != true {
            assert_eq!(page["nextPageCursor"], Value::Null);
            break;
        }
        cursor = page["nextPageCursor"].as_str().map(str::to_owned);
    }
    seen.sort();
    assert_eq!(seen, [("BPS-1".to_owned(), 2), ("FTP-L".to_owned(), 250)]);
    for bad in ["limit=0", "limit=101", "limit=x", "cursor=nonsense"] {
        let r = owner(
            &server,
            LOAM,
            LOAM_TOKEN,
            "GET",
            &format!("{groups}?{bad}"),
            Value::Null,
        );
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
    }

    // 250 sign-ups, 100 a page: 100, 100, 50, every one once, in order.
    let list = format!("{RESTOCK}?productId={fern}&variantId=FTP-L&limit=100");
    let mut pages = Vec::new();
    let mut emails = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("{list}&cursor={c}"),
            None => list.clone(),
        };
        let r = owner(&server, LOAM, LOAM_TOKEN, "GET", &path, Value::Null);
        assert_eq!(r.status, 200, "{}", r.body);
        let page = r.json();
        let rows = page["signUps"].as_array().unwrap();
        pages.push(rows.len());
        emails.extend(rows.iter().map(|s| s["email"].as_str().unwrap().to_owned()));
        assert!(rows.iter().all(|s| s["notifiedOn"].is_null()));
        match page["nextPageCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(pages, [100, 100, 50]);
    let mut unique = emails.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 250);
    let r = owner(
        &server,
        LOAM,
        LOAM_TOKEN,
        "GET",
        &format!("{RESTOCK}?productId={fern}"),
        Value::Null,
    );
    assert_eq!(r.status, 400, "{}", r.body);

    // Send one variant: 250 notices; a second send finds nobody waiting.
    let send = format!("{RESTOCK}/send");
    let r = owner(
        &server,
        LOAM,
        LOAM_TOKEN,
        "POST",
        &send,
        json!({"productId": fern, "variantId": "FTP-L"}),
    );
    assert_eq!(
        (r.status, r.json()["sent"].clone()),
        (200, json!(250)),
        "{}",
        r.body
    );
    let r = owner(
        &server,
        LOAM,
        LOAM_TOKEN,
        "POST",
        &send,
        json!({"productId": fern, "variantId": "FTP-L"}),
    );
    assert_eq!(r.json()["sent"], 0);
    // Another site's owner cannot send this site's notices; a visitor cannot either.
    let r = owner(
        &server,
        QUILL,
        QUILL_TOKEN,
        "POST",
        &send,
        json!({"productId": fern, "variantId": "FTP-L"}),
    );
    assert_eq!(r.json()["sent"], 0, "{}", r.body);
    assert_eq!(
        v.post(&send, json!({"productId": snips, "variantId": "BPS-1"}))
            .status,
        401
    );
    // Send all: the snips' two, and FTP-L's nobody.
    let r = owner(
        &server,
        LOAM,
        LOAM_TOKEN,
        "POST",
        &format!("{send}/all"),
        json!({"sendRequests": [{"productId": snips, "variantId": "BPS-1"}, {"productId": fern, "variantId": "FTP-L"}]}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["sent"], 2);
    assert_eq!(r.json()["results"][1]["sent"], 0);
    for bad in [
        json!({}),
        json!({"sendRequests": [{"productId": snips}]}),
        json!({"sendRequests": "x"}),
    ] {
        let r = owner(
            &server,
            LOAM,
            LOAM_TOKEN,
            "POST",
            &format!("{send}/all"),
            bad.clone(),
        );
        assert_eq!(r.status, 400, "{bad}: {}", r.body);
    }
    let r = owner(&server, LOAM, LOAM_TOKEN, "GET", &groups, Value::Null);
    assert_eq!(r.json()["signUpGroups"], json!([]), "nobody waits any more");
    let r = owner(
        &server,
        LOAM,
        LOAM_TOKEN,
        "GET",
        &format!("{RESTOCK}?productId={fern}&variantId=FTP-L&limit=1"),
        Value::Null,
    );
    assert!(r.json()["signUps"][0]["notifiedOn"].is_i64());

    // Every signer has exactly one notice in the outbox, addressed to them.
    let (_, outbox) = store_facts(&server);
    let mut to: Vec<&str> = outbox.iter().map(|m| m.email.to.as_str()).collect();
    assert_eq!(to.len(), 252);
    to.sort();
    to.dedup();
    assert_eq!(to.len(), 252);
    assert!(outbox.iter().all(|m| m.email.kind == "restock"));
    let snips_mail = outbox
        .iter()
        .find(|m| m.email.to == "a@example.com")
        .unwrap();
    assert_eq!(
        snips_mail.email.subject,
        "Bypass Pruning Snips is back in stock at Loam & Lantern"
    );
}

/// The restock notices of the loam-lantern outbox, by address.
fn notices(server: &Server) -> Vec<(String, String)> {
    let (_, outbox) = store_facts(server);
    let mut n: Vec<(String, String)> = outbox
        .into_iter()
        .filter(|m| m.email.kind == "restock")
        .map(|m| (m.email.to, m.email.subject))
        .collect();
    n.sort();
    n
}

/// An owner's raise of a sold-out variant sends its waiting notices by itself (the
/// commerce setting `restock.autoNotify`, on by default), each signer once: through the
/// stock route and the item's PUT and PATCH; a raise of a variant in stock sends nothing;
/// two raises at once and the owner's send at the same moment tell each signer once; with
/// the setting off nothing goes by itself and the owner's send still works.
fn raises_send_notices_once(backend: Backend) {
    let server = start(backend);
    let fern = item_id("loam-lantern", "fern-terracotta-pot");
    let apron = item_id("loam-lantern", "linen-potting-apron");
    let mats = item_id("loam-lantern", "cork-plant-mats");
    let snips = item_id("loam-lantern", "bypass-pruning-snips");
    let as_owner = |method: &str, path: &str, body: Value| {
        let r = owner(&server, LOAM, LOAM_TOKEN, method, path, body);
        assert_eq!(r.status, 200, "{method} {path}: {}", r.body);
        r
    };
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.83");
    let mut waiting = |product: &str, sku: &str, who: &str, n: usize| -> Vec<String> {
        (0..n)
            .map(|i| {
                let email = format!("{who}{i}@example.com");
                let r = sign_up(&mut v, product, sku, &email, false);
                assert_eq!(r.status, 200, "{}", r.body);
                email
            })
            .collect()
    };
    let ferns = waiting(&fern, "FTP-L", "fern", 5);
    let aprons = waiting(&apron, "LPA-S-CHR", "apron", 1);
    let mat_signers = waiting(&mats, "CPM-4S", "mat", 3);
    let snip_signers = waiting(&snips, "BPS-1", "snips", 2);
    let stock = |item: &str, sku: &str, quantity: i64| {
        as_owner(
            "PUT",
            &format!("/api/owner/items/{item}/stock"),
            json!({"sku": sku, "quantity": quantity}),
        )
    };

    // 0 → 2 with five waiting: five notices, one each, saying it is back.
    stock(&fern, "FTP-L", 2);
    let sent = notices(&server);
    assert_eq!(
        sent,
        ferns
            .iter()
            .map(|e| (
                e.clone(),
                "Fern Terracotta Pot is back in stock at Loam & Lantern".to_owned()
            ))
            .collect::<Vec<_>>()
    );
    // Sold out and back again: nobody is waiting any more.
    stock(&fern, "FTP-L", 0);
    stock(&fern, "FTP-L", 4);
    assert_eq!(notices(&server).len(), 5);

    // The setting off: a raise sends nothing and the signer keeps waiting ...
    let prefs = "/api/v1/commerce-preferences/restock";
    as_owner("PUT", prefs, json!({"autoNotify": false}));
    stock(&apron, "LPA-S-CHR", 3);
    assert_eq!(notices(&server).len(), 5, "nothing sent by itself");
    // ... and on again, 3 → 5 is no restock: still nothing.
    as_owner("PUT", prefs, json!({"autoNotify": true}));
    stock(&apron, "LPA-S-CHR", 5);
    assert_eq!(notices(&server).len(), 5, "a raise of a variant in stock");
    // The owner's send still tells them.
    let r = as_owner(
        "POST",
        &format!("{RESTOCK}/send"),
        json!({"productId": apron, "variantId": "LPA-S-CHR"}),
    );
    assert_eq!(r.json()["sent"], 1);
    assert!(notices(&server).iter().any(|(to, _)| *to == aprons[0]));
    // A setting that is not one is refused.
    let r = owner(
        &server,
        LOAM,
        LOAM_TOKEN,
        "PUT",
        prefs,
        json!({"autoNotify": "yes"}),
    );
    assert_eq!(r.status, 400, "{}", r.body);

    // Two raises at once and the owner's send: three signers, three notices.
    let (stock, as_owner, mats) = (&stock, &as_owner, mats.as_str());
    std::thread::scope(|s| {
        let raises: Vec<_> = [2, 3]
            .into_iter()
            .map(|q| s.spawn(move || stock(mats, "CPM-4S", q)))
            .collect();
        let send = s.spawn(move || {
            as_owner(
                "POST",
                &format!("{RESTOCK}/send"),
                json!({"productId": mats, "variantId": "CPM-4S"}),
            )
        });
        for r in raises {
            r.join().unwrap();
        }
        send.join().unwrap();
    });
    let sent = notices(&server);
    for m in &mat_signers {
        assert_eq!(sent.iter().filter(|(to, _)| to == m).count(), 1, "{m}");
    }
    assert_eq!(sent.len(), 9);

    // The item's PATCH (a new title, the variant back in stock): its signers are told,
    // with the new title.
    let shop = as_owner("GET", "/api/owner/collections", Value::Null).json()["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["urlId"] == "shop")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let items = as_owner(
        "GET",
        &format!("/api/owner/collections/{shop}/items"),
        Value::Null,
    )
    .json();
    let item = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == snips.as_str())
        .unwrap()
        .clone();
    let mut variants = item["variants"].clone();
    variants[0]["qtyInStock"] = json!(6);
    as_owner(
        "PATCH",
        &format!("/api/owner/items/{snips}"),
        json!({"title": "Bypass Pruning Snips, sharpened", "variants": variants}),
    );
    let sent = notices(&server);
    assert_eq!(sent.len(), 11);
    for m in &snip_signers {
        assert!(
            sent.contains(&(
                m.clone(),
                "Bypass Pruning Snips, sharpened is back in stock at Loam & Lantern".to_owned()
            )),
            "{m}: {sent:?}"
        );
    }
    // The PUT of the whole item, sold out and then back (the five fern signers were told
    // already): nothing more.
    let mut fern_item = as_owner(
        "GET",
        &format!("/api/owner/collections/{shop}/items"),
        Value::Null,
    )
    .json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == fern.as_str())
        .unwrap()
        .clone();
    fern_item["variants"][2]["qtyInStock"] = json!(0);
    as_owner(
        "PUT",
        &format!("/api/owner/items/{fern}"),
        fern_item.clone(),
    );
    let late = waiting(&fern, "FTP-L", "late", 1);
    fern_item["variants"][2]["qtyInStock"] = json!(7);
    as_owner("PUT", &format!("/api/owner/items/{fern}"), fern_item);
    let sent = notices(&server);
    assert_eq!(sent.len(), 12, "{sent:?}");
    assert!(sent.iter().any(|(to, _)| *to == late[0]));
    let r = as_owner("GET", &format!("{RESTOCK}/groups"), Value::Null);
    assert_eq!(r.json()["signUpGroups"], json!([]), "nobody waits");
}

/// A stand-in for Google's siteverify: `success` when the posted response is `good-token`
/// and the secret is the configured one. Returns its URL.
fn fake_siteverify() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/siteverify", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = vec![0u8; 8192];
            let mut got = Vec::new();
            // Read the head, then the body by its length.
            loop {
                let n = s.read(&mut buf).unwrap_or(0);
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text[..end]
                        .lines()
                        .find_map(|l| {
                            l.to_ascii_lowercase()
                                .strip_prefix("content-length: ")
                                .map(|v| v.trim().parse::<usize>().unwrap_or(0))
                        })
                        .unwrap_or(0);
                    if got.len() >= end + 4 + len || n == 0 {
                        break;
                    }
                } else if n == 0 {
                    break;
                }
            }
            let body = String::from_utf8_lossy(&got);
            let ok = body.contains("secret=shh-secret") && body.contains("response=good-token");
            let answer = format!("{{\"success\": {ok}}}");
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                answer.len()
            );
        }
    });
    url
}

/// With reCAPTCHA configured, pages name it, and tokens are what Google's siteverify says.
fn recaptcha_when_configured(backend: Backend) {
    let verify = fake_siteverify();
    let server = Server::start(
        backend,
        &[
            "--recaptcha-site-key",
            "site-key-1",
            "--recaptcha-secret",
            "shh-secret",
            "--recaptcha-verify-url",
            &verify,
        ],
    );
    let mut v = Visitor::arrive(&server, LOAM, "203.0.113.83");
    assert_eq!(
        v.get("/api/captcha/challenge").json(),
        json!({"provider": "recaptcha", "siteKey": "site-key-1"})
    );
    let page = v.get("/shop/bypass-pruning-snips?format=json").json();
    assert_eq!(page["website"]["captchaSettings"]["siteKey"], "site-key-1");
    let snips = item_id("loam-lantern", "bypass-pruning-snips");
    let post = |v: &mut Visitor, key: &str, token: &str| {
        v.post(
            RESTOCK,
            json!({"productId": snips, "variantId": "BPS-1", "siteVisitorEmail": "ann@example.com",
                   "isJoinMailingList": false, key: token}),
        )
    };
    let r = post(&mut v, "captchaToken", "bad-token");
    assert_eq!(
        message(&r),
        "reCAPTCHA failed. Refresh this page and try again."
    );
    assert_eq!(post(&mut v, "captchaToken", "good-token").status, 200);
    // SPEC's other field name for the token.
    assert_eq!(
        post(&mut v, "recaptchaEnterpriseV3Token", "good-token").status,
        200
    );
}

on_both_backends!(
    sign_ups_follow_spec,
    owners_page_and_send,
    raises_send_notices_once,
    recaptcha_when_configured
);
