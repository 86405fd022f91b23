//! Many `tessera serve` nodes on one PostgreSQL, over HTTP against the real binary: the test
//! plays the balancer, sending requests to one node or the other.
//!
//! * content, template, price and stock changes made through node A are served by node B
//!   within 1 s (LISTEN/NOTIFY);
//! * with B's notification connection killed (or frozen, so it dies silently), B still
//!   never serves stale data for longer than the stated bound;
//! * visitor state (member sessions, carts, crumbs, captcha challenges, rate limits) works
//!   whichever node answers: no sticky sessions.

use std::time::Duration;

use crate::support::{Backend, Response, Server, Visitor, folder_upload, poll_until, request};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";

/// The README's bound on serving stale data after a missed notification.
const STALENESS_BOUND: Duration = Duration::from_secs(2);

/// An owner call to `node`.
fn owner(node: &Server, token: &str, method: &str, path: &str, body: &Value) -> Response {
    let auth = format!("Bearer {token}");
    let headers = [
        ("Content-Type", "application/json"),
        ("Authorization", auth.as_str()),
    ];
    request(node.port, method, LOAM, path, &headers, &body.to_string())
}

/// A page of loam-lantern from `node`.
fn page(node: &Server, path: &str) -> Response {
    request(node.port, "GET", LOAM, path, &[], "")
}

/// The first variant of the product page at `path`, as `node` serves it (`?format=json`).
fn variant(node: &Server, path: &str) -> Value {
    let r = page(node, &format!("{path}?format=json"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()["item"]["structuredContent"]["variants"][0].clone()
}

/// Runs `sql` with psql on the test database; its rows, one a line.
fn psql(server: &Server, sql: &str) -> String {
    let Backend::Postgres(url) = &server.backend else {
        unreachable!("many nodes run on PostgreSQL")
    };
    let out = std::process::Command::new("/usr/lib/postgresql/15/bin/psql")
        .args([url.as_str(), "-XAtc", sql])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The backend pid of `node`'s notification listener (`application_name`
/// `tessera-listener <pid>`), once it is listening.
fn listener_of(node: &Server) -> String {
    let sql = format!(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'tessera-listener {}'",
        node.pid()
    );
    let (pid, _) = poll_until(
        Duration::from_secs(10),
        "the listener connects",
        || psql(node, &sql),
        |pid| !pid.is_empty() && !pid.contains('\n'),
    );
    pid
}

/// A product of loam-lantern's shop made through `node`; its page path.
fn new_product(node: &Server, token: &str, url_id: &str) -> (String, String) {
    let list = owner(node, token, "GET", "/api/owner/collections", &Value::Null).json();
    let shop = list["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["urlId"] == "shop")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = owner(
        node,
        token,
        "POST",
        &format!("/api/owner/collections/{shop}/items"),
        &product(url_id, "Ash Glaze Bowl", 2400),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    (
        r.json()["id"].as_str().unwrap().to_owned(),
        format!("/shop/{url_id}"),
    )
}

/// Puts the product `id` (`url_id`) through `node` with this title and price.
fn edit_product(node: &Server, token: &str, id: &str, url_id: &str, title: &str, price: i64) {
    let r = owner(
        node,
        token,
        "PUT",
        &format!("/api/owner/items/{id}"),
        &product(url_id, title, price),
    );
    assert_eq!(r.status, 200, "{}", r.body);
}

fn product(url_id: &str, title: &str, price: i64) -> Value {
    json!({"urlId": url_id, "title": title, "recordType": 11, "productType": 1,
        "body": "<p>Thrown on the wheel.</p>",
        "variants": [{"sku": "AGB-1", "currency": "EUR", "priceMinor": price, "qtyInStock": 3}]})
}

/// Content, template, price and stock changes made through A are served by B within 1 s.
#[test]
fn changes_on_one_node_are_served_by_the_other_within_a_second() {
    let a = Server::start(Backend::postgres(), &[]);
    let b = a.another_node();
    let admin = a.owner_token("loam-lantern", "admin");
    let second = Duration::from_secs(1);

    // A new product: B serves it (and has it cached from here on).
    let (id, path) = new_product(&a, &admin, "ash-glaze-bowl");
    poll_until(
        second,
        "a new product",
        || page(&b, &path),
        |r| r.status == 200,
    );
    assert!(page(&b, &path).body.contains("Ash Glaze Bowl"));

    // Content: a new title.
    edit_product(&a, &admin, &id, "ash-glaze-bowl", "Celadon Bowl", 2400);
    let (_, took) = poll_until(
        second,
        "an item edit",
        || page(&b, &path),
        |r| r.body.contains("Celadon Bowl"),
    );
    eprintln!("an item edit on A was served by B after {took:?}");

    // Price.
    assert_eq!(variant(&b, &path)["price"], 2400);
    edit_product(&a, &admin, &id, "ash-glaze-bowl", "Celadon Bowl", 3100);
    poll_until(
        second,
        "a price change",
        || variant(&b, &path)["price"].clone(),
        |price| *price == 3100,
    );

    // Stock: the owner's restock, in the page and the live stock route.
    let r = owner(
        &a,
        &admin,
        "PUT",
        &format!("/api/owner/items/{id}/stock"),
        &json!({"sku": "AGB-1", "quantity": 9}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    poll_until(
        second,
        "a restock in the page",
        || variant(&b, &path)["qtyInStock"].clone(),
        |n| *n == 9,
    );
    let live = |node: &Server| {
        page(node, &format!("/api/commerce/inventory/stock/?itemId={id}")).json()["results"][0]
            ["qtyInStock"]
            .clone()
    };
    assert_eq!(live(&b), 9);
    // A visitor's cart on A takes units; B's live stock shows it at once.
    let mut v = Visitor::arrive(&a, LOAM, "203.0.113.30");
    let r = v.post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": id, "sku": "AGB-1", "quantity": 2}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    poll_until(second, "stock taken by a cart", || live(&b), |n| *n == 7);

    // Template: a new version uploaded through A.
    let mut files = folder_upload(&crate::support::root().join("fixtures/loam-lantern/template"));
    let footer = files
        .iter_mut()
        .find(|f| f["path"] == "regions/footer.region")
        .unwrap();
    let text = footer["text"].as_str().unwrap().to_owned();
    footer["text"] = json!(format!("{text}<p>Footer from node A</p>"));
    assert!(!page(&b, "/about").body.contains("Footer from node A"));
    let r = owner(
        &a,
        &admin,
        "POST",
        "/api/owner/template",
        &json!({"files": files}),
    );
    assert_eq!(r.status, 201, "{}", r.body);
    poll_until(
        second,
        "a template upload",
        || page(&b, "/about"),
        |r| r.body.contains("Footer from node A"),
    );
}

/// B's notification connection is lost, visibly (terminated) or silently (its backend
/// frozen with SIGSTOP, so no error ever arrives): a change made through A meanwhile is
/// still served by B within the stated bound.
#[test]
fn a_node_that_misses_notifications_is_stale_for_at_most_the_bound() {
    let a = Server::start(Backend::postgres(), &[]);
    let b = a.another_node();
    let admin = a.owner_token("loam-lantern", "admin");
    let (id, path) = new_product(&a, &admin, "lost-notice-bowl");
    let rename = |title: &str| edit_product(&a, &admin, &id, "lost-notice-bowl", title, 2400);
    // What B serves at the product's page, until it shows `title`.
    let served = |bound: Duration, what: &str, title: &str| {
        poll_until(bound, what, || page(&b, &path), |r| r.body.contains(title)).1
    };
    // B has the page cached (two identical answers in a row after the product's notice).
    poll_until(
        Duration::from_secs(1),
        "B warms up",
        || page(&b, &path),
        |r| r.status == 200,
    );

    // Visible: the listener's backend is terminated; A writes at once.
    let pid = listener_of(&b);
    assert_eq!(
        psql(&b, &format!("SELECT pg_terminate_backend({pid})")),
        "t"
    );
    rename("Terminated Bowl");
    let took = served(
        STALENESS_BOUND,
        "after a terminated listener",
        "Terminated Bowl",
    );
    eprintln!("terminated listener: B served the change after {took:?}");
    // It comes back, and B keeps following A through notifications.
    let again = listener_of(&b);
    assert_ne!(again, pid, "a new listener connection");
    rename("Relistened Bowl");
    served(
        Duration::from_secs(1),
        "after reconnecting",
        "Relistened Bowl",
    );

    // Silent: the listener's backend is frozen, so it neither delivers the notification nor
    // fails; the heartbeat must notice.
    let frozen = listener_of(&b);
    let signal = |sig: &str| {
        let ok = std::process::Command::new("kill")
            .args([sig, &frozen])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig} {frozen}");
    };
    signal("-STOP");
    rename("Frozen Bowl");
    let took = served(STALENESS_BOUND, "after a frozen listener", "Frozen Bowl");
    signal("-CONT");
    eprintln!("frozen listener: B served the change after {took:?}");
    assert_ne!(listener_of(&b), frozen, "B reconnected");
}

const HARBOR: &str = "harbor-lane.localhost";
const MEMBER: &str = "marin@harbor-lane.localhost";
const MEMBER_PASSWORD: &str = "glaze-and-fire-1";

/// The visitor's next request goes to `node` (the test is the balancer; cookies stay).
fn via<'v>(v: &'v mut Visitor, node: &Server) -> &'v mut Visitor {
    v.port = node.port;
    v
}

/// Member sessions, carts, crumbs and captcha challenges work whichever node answers.
#[test]
fn visitor_state_works_whichever_node_answers() {
    let a = Server::start(
        Backend::postgres(),
        &["--captcha-difficulty", "3", "--sign-ins-per-minute", "1000"],
    );
    let b = a.another_node();

    // A crumb from a page on A is accepted on B (a cart write needs it).
    let mut v = Visitor::arrive(&a, HARBOR, "203.0.113.60");
    let added = via(&mut v, &b).post(
        "/api/commerce/shopping-cart/entries",
        json!({"itemId": crate::support::item_id("harbor-lane", "tidepool-mug"), "sku": "TPM-12", "quantity": 1}),
    );
    assert_eq!(added.status, 200, "{}", added.body);
    let entry = added.json()["newlyAdded"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // A forged crumb is refused on either node.
    let mut forged = v.clone();
    forged.cookies.insert("crumb".into(), "forged".into());
    let r = via(&mut forged, &a).put(
        &format!("/api/commerce/shopping-cart/entries/{entry}"),
        json!({"quantity": 3}),
    );
    assert_eq!(r.status, 403, "{}", r.body);

    // The cart made on B is changed on A and read back on B.
    let r = via(&mut v, &a).put(
        &format!("/api/commerce/shopping-cart/entries/{entry}"),
        json!({"quantity": 3}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(via(&mut v, &b).cart()["totalQuantity"], 3);

    // A member signs in on A; B knows the session, and signing out on B ends it on A.
    let mut m = Visitor::arrive(&a, HARBOR, "203.0.113.61");
    let r = m.post(
        "/api/site-users/account/session",
        json!({"email": MEMBER, "password": MEMBER_PASSWORD, "rememberMe": false}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let xsrf = r.json()["xsrfToken"].as_str().unwrap().to_owned();
    let account = via(&mut m, &b).get("/api/site-users/account");
    assert_eq!(account.status, 200, "{}", account.body);
    assert_eq!(account.json()["email"], MEMBER);
    let r = via(&mut m, &b).send(
        "DELETE",
        "/api/site-users/account/session",
        &[("X-XSRF-Token", &xsrf)],
        "",
    );
    assert!(r.status < 300, "{} {}", r.status, r.body);
    assert_eq!(via(&mut m, &a).get("/api/site-users/account").status, 401);

    // A captcha challenge from A is solved and spent on B; its replay is refused on A.
    let mut f = Visitor::arrive(&a, HARBOR, "203.0.113.62");
    let c = f.get("/api/captcha/challenge").json();
    let solved = api::routes::captcha::solve(
        c["challenge"].as_str().unwrap(),
        c["difficulty"].as_u64().unwrap() as u32,
    );
    let submit = |f: &mut Visitor| {
        let key = f.post("/api/form/FormSubmissionKey", Value::Null).json()["key"]
            .as_str()
            .unwrap()
            .to_owned();
        let answers =
            json!({"name": ["Ada", "Lovelace"], "email": "ada@example.com", "piece": "A teapot."});
        f.post(
            "/api/form/SaveFormSubmission",
            json!({"key": key, "formId": "5f1a0000000000000000c0de", "form": answers.to_string(),
                   "captchaKey": solved}),
        )
    };
    let r = submit(via(&mut f, &b));
    assert_eq!(r.status, 200, "{}", r.body);
    let r = submit(via(&mut f, &a));
    assert_eq!(
        r.json()["errors"]["captchaKey"],
        "reCAPTCHA failed. Refresh this page and try again.",
        "a challenge is spent on every node"
    );
}

/// The rate limits hold across nodes: calls alternating between A and B spend one budget.
#[test]
fn rate_limits_hold_across_nodes() {
    // Six cart writes a minute: a burst of two. Three sign-ins: a burst of one.
    let a = Server::start(
        Backend::postgres(),
        &[
            "--cart-writes-per-minute",
            "6",
            "--sign-ins-per-minute",
            "3",
        ],
    );
    let b = a.another_node();
    let add = |v: &mut Visitor| {
        v.post(
            "/api/commerce/shopping-cart/entries",
            json!({"itemId": crate::support::item_id("harbor-lane", "tidepool-mug"), "sku": "TPM-12", "quantity": 1}),
        )
        .status
    };
    let mut v = Visitor::arrive(&a, HARBOR, "203.0.113.70");
    assert_eq!(add(via(&mut v, &a)), 200);
    assert_eq!(add(via(&mut v, &b)), 200);
    assert_eq!(add(via(&mut v, &a)), 429, "the burst is spent on A and B");
    assert_eq!(add(via(&mut v, &b)), 429);
    assert_eq!(via(&mut v, &b).cart()["totalQuantity"], 2);
    // Another client has its own budget, on either node.
    let mut w = Visitor::arrive(&b, HARBOR, "203.0.113.71");
    assert_eq!(add(&mut w), 200);

    // Sign-in guesses: one on A, then B refuses.
    let mut g = Visitor::arrive(&a, HARBOR, "203.0.113.72");
    let guess = |g: &mut Visitor| {
        g.post(
            "/api/site-users/account/session",
            json!({"email": MEMBER, "password": "guess", "rememberMe": false}),
        )
        .status
    };
    assert_eq!(guess(via(&mut g, &a)), 401);
    assert_eq!(guess(via(&mut g, &b)), 429);

    // Lock-screen unlock attempts: ten in all, whichever node they reach.
    let (host, collection) = locked_collection();
    let attempt = |node: &Server| {
        request(
            node.port,
            "POST",
            &host,
            "/api/lock-screen/unlock",
            &[
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("X-Forwarded-For", "203.0.113.73"),
            ],
            &format!("collectionId={collection}&password=wrong"),
        )
        .status
    };
    for i in 0..10 {
        let node = if i % 2 == 0 { &a } else { &b };
        assert_eq!(attempt(node), 303, "attempt {i}");
    }
    assert_eq!(attempt(&a), 429);
    assert_eq!(attempt(&b), 429);
}

/// The host and id of a demo tenant's password-protected collection.
fn locked_collection() -> (String, String) {
    for dir in crate::support::fixture_dirs() {
        let Ok(entries) = std::fs::read_dir(dir.join("collections")) else {
            continue;
        };
        for e in entries {
            let c: Value =
                serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap();
            if c.get("password").is_some_and(|p| !p.is_null()) {
                let tenant = dir.file_name().unwrap().to_string_lossy().into_owned();
                return (
                    format!("{tenant}.localhost"),
                    c["id"].as_str().unwrap().to_owned(),
                );
            }
        }
    }
    panic!("no demo tenant has a protected collection");
}
