//! Faults, against the real `tessera serve`: `kill -9` under a mixed load on both backends
//! (nothing acknowledged is lost, stock adds up, no order twice), and PostgreSQL stopped and
//! started again under load (every request answers within seconds, 503 with `Retry-After`
//! while it is away, and the server recovers by itself).
//!
//! Each run prints its figures (`--nocapture` shows them).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{
    Backend, Response, Server, cookie_header, item_id, keep_cookies, try_request,
};
use serde_json::{Value, json};

const LOAM: &str = "loam-lantern.localhost";
const QUILL: &str = "quillback.localhost";
const ENTRIES: &str = "/api/commerce/shopping-cart/entries";
const CART: &str = "/api/commerce/shopping-cart";
const CHECKOUT: &str = "/api/commerce/checkout";
const FORM_KEY: &str = "/api/form/FormSubmissionKey";
const FORM_SAVE: &str = "/api/form/SaveFormSubmission";
const RESTOCK: &str = "/api/site-users/account/notifications/restock";
/// quillback's repair booking form.
const BOOKING: &str = "a11ce5000000000000c0f0e1";

/// A browser on one site: a cookie jar, an address, the crumb, and the server's current
/// port (it changes when the server is restarted).
struct Browser {
    port: Arc<AtomicU16>,
    host: &'static str,
    ip: String,
    cookies: BTreeMap<String, String>,
    timeout: Duration,
}

impl Browser {
    fn new(port: Arc<AtomicU16>, host: &'static str, ip: String) -> Browser {
        Browser {
            port,
            host,
            ip,
            cookies: BTreeMap::new(),
            timeout: Duration::from_secs(20),
        }
    }

    /// Sends a request with the jar's cookies and the crumb, keeps the cookies the answer
    /// sets. `None`: no answer.
    fn send(&mut self, method: &str, path: &str, body: Option<&Value>) -> Option<Response> {
        let cookie = cookie_header(&self.cookies);
        let crumb = self.cookies.get("crumb").cloned().unwrap_or_default();
        let mut headers: Vec<(&str, &str)> = vec![("X-Forwarded-For", &self.ip)];
        if !cookie.is_empty() {
            headers.push(("Cookie", &cookie));
        }
        if method != "GET" && !crumb.is_empty() {
            headers.push(("X-CSRF-Token", &crumb));
        }
        let text = body.map(Value::to_string).unwrap_or_default();
        if body.is_some() {
            headers.push(("Content-Type", "application/json"));
        }
        let port = self.port.load(Ordering::SeqCst);
        let r = try_request(port, method, self.host, path, &headers, &text, self.timeout)?;
        keep_cookies(&mut self.cookies, &r);
        Some(r)
    }
}

/// An answer that acknowledges the request either way (anything but no answer or a 5xx).
fn answered(r: &Option<Response>) -> bool {
    r.as_ref().is_some_and(|r| r.status < 500)
}

/// A tiny seeded generator (xorshift64*), so a run's choices and kill points repeat.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

// ---------------------------------------------------------------------------------------
// kill -9 under a mixed load.

const OPS: usize = 1000;
const WORKERS: usize = 6;
const KILLS: usize = 5;
const SEED: u64 = 30;

/// Stock-tracked variants the load buys, with the stock set before the run: plenty of two,
/// few of the third (so "not enough stock" refusals happen too), and one unlimited.
const STOCKED: [(&str, &str, i64); 3] = [
    ("slate-herb-markers", "SHM-6", 400),
    ("soy-tin-candle", "STC-CED", 300),
    ("fern-terracotta-pot", "FTP-S", 25),
];
const UNLIMITED: (&str, &str) = ("jute-garden-twine", "JGT-NAT");
/// Sold-out variants visitors sign up to hear about.
const SOLD_OUT: [(&str, &str); 3] = [
    ("fern-terracotta-pot", "FTP-L"),
    ("cork-plant-mats", "CPM-4S"),
    ("cork-plant-mats", "CPM-4L"),
];
const PAGES: [&str; 4] = ["/", "/shop", "/about", "/shop/slate-herb-markers"];

/// What a visitor last saw acknowledged of its cart: its id and (entry id, sku, quantity).
#[derive(Clone, Debug, Default, PartialEq)]
struct CartSeen {
    id: Option<String>,
    entries: Vec<(String, String, i64)>,
}

impl CartSeen {
    fn of(cart: &Value) -> CartSeen {
        CartSeen {
            id: cart["id"].as_str().map(str::to_owned),
            entries: cart["entries"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .map(|e| {
                    (
                        e["id"].as_str().unwrap().to_owned(),
                        e["chosenVariant"]["sku"].as_str().unwrap().to_owned(),
                        e["quantity"].as_i64().unwrap(),
                    )
                })
                .collect(),
        }
    }

    fn quantity_of(&self, sku: &str) -> i64 {
        self.entries
            .iter()
            .filter(|e| e.1 == sku)
            .map(|e| e.2)
            .sum()
    }

    fn lines(&self) -> Vec<(String, i64)> {
        let mut l: Vec<(String, i64)> = self.entries.iter().map(|e| (e.1.clone(), e.2)).collect();
        l.sort();
        l
    }
}

/// What the clients were told, for the checks after the run.
#[derive(Default)]
struct Acked {
    /// Order id → (cart id, its lines (sku, quantity)).
    orders: BTreeMap<String, (String, Vec<(String, i64)>)>,
    /// The marker of every form submission acknowledged (or found spent on retry).
    forms: Vec<String>,
    /// (item, sku, email) of every restock sign-up acknowledged.
    restock: Vec<(String, String, String)>,
    /// Each visitor's cart as last acknowledged, at the end.
    carts: Vec<CartSeen>,
}

/// Counts of the run.
#[derive(Default)]
struct Tally {
    ops: AtomicUsize,
    /// Answered on the first try.
    first_try: AtomicUsize,
    /// Needed one or more retries (the first try got no answer or a 503).
    retried: AtomicUsize,
    /// Of those, the retry found the first try had gone through (cart reload, a
    /// checkout's "already checked out", a spent form key).
    applied_unacked: AtomicUsize,
    /// Attempts without an answer, and 5xx answers (each retried).
    lost_attempts: AtomicUsize,
    /// 500 answers (there must be none).
    server_errors: AtomicUsize,
    /// Refusals (409 not enough stock, 402 ...), answered and final.
    refused: AtomicUsize,
}

fn inc(c: &AtomicUsize) {
    c.fetch_add(1, Ordering::Relaxed);
}

/// The product ids of loam-lantern by url id.
fn loam_item(url_id: &str) -> String {
    item_id("loam-lantern", url_id)
}

/// One visitor thread: a loam-lantern shopper who also fills in quillback's booking form.
struct Visitor {
    shop: Browser,
    forms: Browser,
    cart: CartSeen,
    rng: Rng,
    tally: Arc<Tally>,
    acked: Arc<Mutex<Acked>>,
    name: String,
    /// Operations this visitor started (for unique markers).
    n: usize,
}

/// Gives up on an operation that no server answers for this long.
const GIVE_UP: Duration = Duration::from_secs(60);

impl Visitor {
    /// Runs `f` until it is answered (no answer or a 5xx: wait a moment, retry); counts
    /// the attempts. `f` gets the attempt number (0 first).
    fn until_answered(
        &mut self,
        mut f: impl FnMut(&mut Visitor, usize) -> Option<Response>,
    ) -> (Response, usize) {
        let started = Instant::now();
        for n in 0.. {
            let r = f(self, n);
            if let Some(r) = &r
                && r.status == 500
            {
                inc(&self.tally.server_errors);
                eprintln!("{}: 500: {}", self.name, r.body);
            }
            if answered(&r) {
                return (r.unwrap(), n);
            }
            inc(&self.tally.lost_attempts);
            assert!(
                started.elapsed() < GIVE_UP,
                "{}: no answer for {GIVE_UP:?}",
                self.name
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        unreachable!()
    }

    fn count(&self, retries: usize, applied_unacked: bool) {
        inc(&self.tally.ops);
        if retries == 0 {
            inc(&self.tally.first_try);
        } else {
            inc(&self.tally.retried);
        }
        if applied_unacked {
            inc(&self.tally.applied_unacked);
        }
    }

    /// A page view (reloaded until it is answered).
    fn view(&mut self) {
        let path = PAGES[self.rng.below(PAGES.len() as u64) as usize];
        let (r, n) = self.until_answered(|v, _| v.shop.send("GET", path, None));
        assert_eq!(r.status, 200, "{path}: {}", r.head);
        self.count(n, false);
    }

    /// Reloads the cart, as a browser that lost an answer would, until it is answered.
    fn reload_cart(&mut self) {
        let (r, _) = self.until_answered(|v, _| v.shop.send("GET", CART, None));
        assert_eq!(r.status, 200, "{}", r.body);
        self.cart = CartSeen::of(&r.json());
    }

    /// A cart change: sent until answered; after a lost answer the cart is reloaded first,
    /// and the change is sent again only if the reload shows it did not happen.
    fn cart_change(
        &mut self,
        method: &str,
        path: &str,
        body: Option<Value>,
        happened: impl Fn(&CartSeen) -> bool,
    ) {
        let started = Instant::now();
        let mut retries = 0;
        loop {
            let r = self.shop.send(method, path, body.as_ref());
            match &r {
                Some(r) if r.status == 200 => {
                    self.cart = CartSeen::of(&r.json()["shoppingCart"]);
                    return self.count(retries, false);
                }
                Some(r) if r.status < 500 => {
                    assert!(
                        matches!(r.status, 409 | 404),
                        "{}: {method} {path}: {} {}",
                        self.name,
                        r.status,
                        r.body
                    );
                    inc(&self.tally.refused);
                    // The cart may have changed under a lost answer before: look again.
                    if retries > 0 {
                        self.reload_cart();
                    }
                    return self.count(retries, false);
                }
                Some(r) if r.status == 500 => inc(&self.tally.server_errors),
                _ => {}
            }
            inc(&self.tally.lost_attempts);
            assert!(started.elapsed() < GIVE_UP, "{}: no answer", self.name);
            retries += 1;
            std::thread::sleep(Duration::from_millis(50));
            self.reload_cart();
            if happened(&self.cart) {
                return self.count(retries, true);
            }
        }
    }

    fn add(&mut self) {
        let (url_id, sku) = match self.rng.below(7) {
            0..=1 => (STOCKED[0].0, STOCKED[0].1),
            2..=3 => (STOCKED[1].0, STOCKED[1].1),
            4..=5 => (STOCKED[2].0, STOCKED[2].1),
            _ => UNLIMITED,
        };
        let qty = 1 + self.rng.below(3) as i64;
        let before = self.cart.quantity_of(sku);
        let body = json!({"itemId": loam_item(url_id), "sku": sku, "quantity": qty});
        self.cart_change("POST", ENTRIES, Some(body), |c| {
            c.quantity_of(sku) == before + qty
        });
    }

    fn update(&mut self) {
        let Some(e) = self.pick_entry() else {
            return self.add();
        };
        let qty = 1 + self.rng.below(4) as i64;
        let path = format!("{ENTRIES}/{}", e.0);
        self.cart_change("PUT", &path, Some(json!({"quantity": qty})), |c| {
            c.entries.iter().any(|x| x.0 == e.0 && x.2 == qty)
        });
    }

    fn remove(&mut self) {
        let Some(e) = self.pick_entry() else {
            return self.add();
        };
        let path = format!("{ENTRIES}/{}", e.0);
        self.cart_change("DELETE", &path, None, |c| {
            !c.entries.iter().any(|x| x.0 == e.0)
        });
    }

    fn pick_entry(&mut self) -> Option<(String, String, i64)> {
        if self.cart.entries.is_empty() {
            return None;
        }
        let i = self.rng.below(self.cart.entries.len() as u64) as usize;
        Some(self.cart.entries[i].clone())
    }

    /// A checkout of the cart, retried with the same cart until answered: the answer to a
    /// retry of a checkout that went through is 409 with the order's status page.
    fn checkout(&mut self) {
        if self.cart.entries.is_empty() {
            return self.add();
        }
        let body = json!({
            "email": format!("{}@example.com", self.name),
            "shippingAddress": { "firstName": "Ada", "lastName": "Lovelace", "line1": "Lindengracht 1",
                "city": "Amsterdam", "postalCode": "1015 KB", "region": "NH", "country": "NL" },
            "payment": { "method": "card", "card": { "number": "4242 4242 4242 4242",
                "expMonth": 12, "expYear": 2099, "cvc": "123" } },
        });
        let (r, n) = self.until_answered(|v, _| v.shop.send("POST", CHECKOUT, Some(&body)));
        let status_url = match r.status {
            201 => r.json()["statusUrl"].as_str().map(str::to_owned),
            409 => r.json()["statusUrl"].as_str().map(str::to_owned),
            _ => None,
        };
        let Some(status_url) = status_url else {
            // Refused (not enough stock now that a lapsed hold took its units again, or the
            // total moved): the cart stays; the visitor looks at it again.
            assert!(matches!(r.status, 409 | 402), "{}: {}", r.status, r.body);
            inc(&self.tally.refused);
            self.reload_cart();
            return self.count(n, false);
        };
        let order_id = status_url
            .trim_start_matches("/commerce/orders/")
            .split('?')
            .next()
            .unwrap()
            .to_owned();
        let cart_id = self.cart.id.clone().expect("a cart with entries has an id");
        let lines = self.cart.lines();
        let again = self
            .acked
            .lock()
            .unwrap()
            .orders
            .insert(order_id.clone(), (cart_id, lines));
        assert!(again.is_none(), "order {order_id} acknowledged twice");
        self.cart = CartSeen::default();
        self.count(n, r.status == 409);
    }

    /// A booking form submission: a key, then the answers, retried with the same key (a
    /// spent key on a retry means the first try was saved).
    fn form(&mut self) {
        let (r, _) = self.until_answered(|v, _| v.forms.send("POST", FORM_KEY, None));
        assert_eq!(r.status, 200, "{}", r.body);
        let key = r.json()["key"].as_str().unwrap().to_owned();
        let marker = format!("{}-{}", self.name, self.n);
        let answers = json!({
            "name": ["Ada", "Lovelace"], "email": "ada@example.com", "phone": ["608", "555", "0142"],
            "bike": "Road", "service": "Full overhaul", "dropoff": ["12", "01", "2026"],
            "details": marker, "source": "faults"
        });
        let body = json!({"key": key, "formId": BOOKING, "form": answers.to_string(),
            "pageTitle": "Contact", "pageId": "p1", "contentSource": "c", "pagePath": "/contact"});
        let (r, n) = self.until_answered(|v, _| v.forms.send("POST", FORM_SAVE, Some(&body)));
        let spent = n > 0 && r.status == 401;
        assert!(r.status == 200 || spent, "{}: {}", r.status, r.body);
        self.acked.lock().unwrap().forms.push(marker);
        self.count(n, spent);
    }

    /// A restock sign-up with a fresh captcha each try (sign-ups are idempotent).
    fn restock(&mut self) {
        let (url_id, sku) = SOLD_OUT[self.rng.below(SOLD_OUT.len() as u64) as usize];
        let email = format!("{}-{}@example.com", self.name, self.n);
        let item = loam_item(url_id);
        let (r, n) = self.until_answered(|v, _| {
            let c = v.shop.send("GET", "/api/captcha/challenge", None)?;
            if c.status != 200 {
                return Some(c);
            }
            let c = c.json();
            let token = api::routes::captcha::solve(
                c["challenge"].as_str()?,
                c["difficulty"].as_u64()? as u32,
            );
            let body = json!({"productId": item, "variantId": sku, "siteVisitorEmail": email,
                "isJoinMailingList": false, "captchaToken": token});
            v.shop.send("POST", RESTOCK, Some(&body))
        });
        assert_eq!(r.status, 200, "{}", r.body);
        self.acked
            .lock()
            .unwrap()
            .restock
            .push((item, sku.to_owned(), email));
        self.count(n, false);
    }

    fn run(&mut self, next_op: &AtomicUsize) {
        // Arrive on both sites first: the home page sets the crumb.
        for b in [&mut self.shop, &mut self.forms] {
            let r = b.send("GET", "/", None).expect("the server answers");
            assert_eq!(r.status, 200, "{}", r.head);
        }
        while next_op.fetch_add(1, Ordering::SeqCst) < OPS {
            self.n += 1;
            match self.rng.below(100) {
                0..=24 => self.view(),
                25..=49 => self.add(),
                50..=59 => self.update(),
                60..=67 => self.remove(),
                68..=79 => self.checkout(),
                80..=89 => self.form(),
                _ => self.restock(),
            }
        }
        let cart = self.cart.clone();
        self.acked.lock().unwrap().carts.push(cart);
    }
}

/// What the store holds after the run.
struct Found {
    orders: Vec<tenants::Order>,
    carts: Vec<(CartSeen, Option<tenants::Cart>)>,
    stock_before: BTreeMap<String, i64>,
    released: u64,
    stock_after: BTreeMap<String, i64>,
    forms: Vec<String>,
    restock: BTreeSet<(String, String, String)>,
}

async fn stock_levels(s: &tenants::Store, t: tenants::TenantId) -> BTreeMap<String, i64> {
    let mut out = BTreeMap::new();
    for (url_id, sku, _) in STOCKED {
        let levels = s.stock(t, &loam_item(url_id)).await.unwrap();
        let l = levels.iter().find(|l| l.sku == sku).unwrap();
        out.insert(sku.to_owned(), l.qty_in_stock);
    }
    out
}

fn kill9_under_mixed_load(backend: Backend) {
    let tag = backend.tag();
    let mut args: Vec<&str> = vec!["--cart-hold", "2s", "--captcha-difficulty", "2"];
    for flag in [
        "--cart-writes-per-minute",
        "--checkouts-per-minute",
        "--form-submissions-per-minute",
    ] {
        args.extend([flag, "1000000"]);
    }
    let mut server = Server::start(backend, &args);
    server.with_store(|s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap();
            for (url_id, sku, qty) in STOCKED {
                s.set_stock(t.id, &loam_item(url_id), sku, qty, false)
                    .await
                    .unwrap();
            }
        })
    });

    let port = Arc::new(AtomicU16::new(server.port));
    let tally = Arc::new(Tally::default());
    let acked = Arc::new(Mutex::new(Acked::default()));
    let next_op = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let mut v = Visitor {
                shop: Browser::new(port.clone(), LOAM, format!("198.51.100.{}", 10 + w)),
                forms: Browser::new(port.clone(), QUILL, format!("198.51.100.{}", 110 + w)),
                cart: CartSeen::default(),
                rng: Rng::new(SEED * 100 + w as u64),
                tally: tally.clone(),
                acked: acked.clone(),
                name: format!("{tag}-v{w}"),
                n: 0,
            };
            let next_op = next_op.clone();
            std::thread::spawn(move || v.run(&next_op))
        })
        .collect();

    // Kill points: one at a seeded place in each of KILLS stretches of the run.
    let mut rng = Rng::new(SEED);
    let stretch = OPS / (KILLS + 1);
    let kill_points: Vec<usize> = (1..=KILLS)
        .map(|k| k * stretch - stretch / 3 + rng.below((stretch / 2) as u64) as usize)
        .collect();
    let mut down = Duration::ZERO;
    for &at in &kill_points {
        while tally.ops.load(Ordering::SeqCst) < at && workers.iter().any(|w| !w.is_finished()) {
            std::thread::sleep(Duration::from_millis(2));
        }
        let t = Instant::now();
        port.store(0, Ordering::SeqCst);
        server.kill9();
        std::thread::sleep(Duration::from_millis(rng.below(300)));
        server.restart();
        port.store(server.port, Ordering::SeqCst);
        down += t.elapsed();
    }
    for w in workers {
        w.join().expect("a visitor thread failed");
    }
    let took = started.elapsed();
    // The last word: killed once more, with nothing in flight.
    server.kill9();

    let acked = std::mem::take(&mut *acked.lock().unwrap());
    let carts_seen = acked.carts.clone();
    let found = server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap().id;
            let q = s.tenant_by_host(QUILL).await.unwrap().unwrap().id;
            let orders = s.orders(t).await.unwrap();
            let mut carts = Vec::new();
            for seen in carts_seen {
                let stored = match &seen.id {
                    Some(id) => s.cart(t, id).await.unwrap(),
                    None => None,
                };
                carts.push((seen, stored));
            }
            let stock_before = stock_levels(s, t).await;
            // Every hold let go (as the sweep would after the hold time): what is left in
            // stock is then the start less what orders took.
            let released = s
                .release_abandoned_carts(t, tenants::now_ms() + 3_600_000)
                .await
                .unwrap();
            let stock_after = stock_levels(s, t).await;
            let forms = s
                .form_submissions(q, BOOKING)
                .await
                .unwrap()
                .into_iter()
                .filter_map(|f| f.answers["details"].as_str().map(str::to_owned))
                .collect();
            let mut restock = BTreeSet::new();
            for (url_id, sku) in SOLD_OUT {
                let item = loam_item(url_id);
                let page = s
                    .restock_signups(t, &item, sku, None, 100_000)
                    .await
                    .unwrap();
                restock.extend(page.rows.into_iter().map(|r| (r.item_id, r.sku, r.email)));
            }
            Found {
                orders,
                carts,
                stock_before,
                released,
                stock_after,
                forms,
                restock,
            }
        })
    });

    // Every acknowledged order is there, with its lines; no order nobody was told of, and
    // one order per cart at most.
    let stored: BTreeMap<&str, &tenants::Order> =
        found.orders.iter().map(|o| (o.id.as_str(), o)).collect();
    for (id, (cart, lines)) in &acked.orders {
        let o = stored
            .get(id.as_str())
            .unwrap_or_else(|| panic!("{tag}: acknowledged order {id} is gone"));
        assert_eq!(&o.cart_id, cart, "{tag}: order {id}'s cart");
        let mut got: Vec<(String, i64)> = o
            .lines
            .iter()
            .map(|l| (l.sku.clone(), l.quantity))
            .collect();
        got.sort();
        assert_eq!(&got, lines, "{tag}: order {id}'s lines");
    }
    assert_eq!(
        found.orders.len(),
        acked.orders.len(),
        "{tag}: every order was acknowledged to its buyer (no duplicates, no strays)"
    );
    let carts: BTreeSet<&str> = found.orders.iter().map(|o| o.cart_id.as_str()).collect();
    assert_eq!(carts.len(), found.orders.len(), "{tag}: one order per cart");

    // Each visitor's cart is what it last saw acknowledged.
    for (seen, stored) in &found.carts {
        let Some(stored) = stored else {
            assert!(seen.entries.is_empty(), "{tag}: cart {:?} is gone", seen.id);
            continue;
        };
        assert!(
            !stored.purchased,
            "{tag}: cart {:?} was checked out",
            seen.id
        );
        let got: Vec<(String, String, i64)> = stored
            .entries
            .iter()
            .map(|e| (e.id.clone(), e.sku.clone(), e.quantity))
            .collect();
        assert_eq!(got, seen.entries, "{tag}: cart {:?}", seen.id);
    }

    // Stock: the start less what orders took, once holds are let go; before that, less
    // what carts hold too (never more than the start).
    for (_, sku, start) in STOCKED {
        let ordered: i64 = found
            .orders
            .iter()
            .flat_map(|o| &o.lines)
            .filter(|l| l.sku == sku)
            .map(|l| l.quantity)
            .sum();
        let (before, after) = (found.stock_before[sku], found.stock_after[sku]);
        assert_eq!(
            after,
            start - ordered,
            "{tag}: stock of {sku}: {start} less {ordered} ordered"
        );
        assert!(
            before <= after && before >= 0,
            "{tag}: {sku} held: {before} → {after}"
        );
        let held_by_visitors: i64 = found
            .carts
            .iter()
            .filter_map(|(_, c)| c.as_ref())
            .flat_map(|c| &c.entries)
            .filter(|e| e.held && e.sku == sku)
            .map(|e| e.quantity)
            .sum();
        assert!(
            held_by_visitors <= after - before,
            "{tag}: {sku}: visitors' carts hold {held_by_visitors}, the holds gave back {}",
            after - before
        );
    }

    // Every acknowledged form answer is there exactly once (a retry reuses its key), and
    // every acknowledged restock sign-up.
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for m in &found.forms {
        *counts.entry(m.as_str()).or_default() += 1;
    }
    for m in &acked.forms {
        assert_eq!(counts.get(m.as_str()), Some(&1), "{tag}: form answer {m}");
    }
    assert!(
        counts.values().all(|&n| n == 1),
        "{tag}: a form answer saved twice"
    );
    for s in &acked.restock {
        assert!(
            found.restock.contains(s),
            "{tag}: restock sign-up {s:?} is gone"
        );
    }

    let t = &tally;
    let get = |c: &AtomicUsize| c.load(Ordering::SeqCst);
    assert_eq!(get(&t.server_errors), 0, "{tag}: 500 answers");
    assert_eq!(get(&t.ops), OPS, "{tag}: every operation ran");
    assert!(get(&t.retried) > 0, "{tag}: the kills hit no operation");
    eprintln!(
        "faults/{tag}: {OPS} ops by {WORKERS} visitors in {:.1} s, {KILLS} kills at ops {kill_points:?} \
         (down {:.1} s in all); answered first try {}, retried {} ({} lost attempts; {} had gone \
         through unacknowledged), refused {}; {} orders, {} form answers, {} restock sign-ups \
         acknowledged; {} carts still held stock",
        took.as_secs_f64(),
        down.as_secs_f64(),
        get(&t.first_try),
        get(&t.retried),
        get(&t.lost_attempts),
        get(&t.applied_unacked),
        get(&t.refused),
        acked.orders.len(),
        acked.forms.len(),
        acked.restock.len(),
        found.released,
    );
}

on_both_backends!(kill9_under_mixed_load);

// ---------------------------------------------------------------------------------------
// PostgreSQL stopped and started again under load.

/// How long any request may take, database or not.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);
/// How long the database stays away each time.
const OUTAGE: Duration = Duration::from_secs(3);
/// How soon after the database is back the server must work again by itself.
const RECOVER_WITHIN: Duration = Duration::from_secs(10);

/// The sites asked for only while the database is away (one per outage).
const COLD: [&str; 3] = ["", "harbor-lane.localhost", "skyward.localhost"];

/// One request of the load, and what it got.
struct Sample {
    what: &'static str,
    page: bool,
    at: Instant,
    took: Duration,
    answer: Option<Response>,
}

/// What is wrong with an answer given while the database may be away: a page or an API call
/// either works, or fails cleanly (503, `Retry-After`, the API's JSON body or a short plain
/// page that says nothing of the cause), within [`ANSWER_WITHIN`].
fn problem(s: &Sample) -> Option<String> {
    let Some(r) = &s.answer else {
        return Some(format!("{}: no answer within {:?}", s.what, s.took));
    };
    if s.took > ANSWER_WITHIN {
        return Some(format!("{}: {} after {:?}", s.what, r.status, s.took));
    }
    match r.status {
        200 | 409 => return None,
        503 => {}
        other => return Some(format!("{}: {other}: {}", s.what, r.body)),
    }
    if r.header("retry-after")
        .and_then(|v| v.parse::<u64>().ok())
        .is_none()
    {
        return Some(format!("{}: 503 without Retry-After: {}", s.what, r.head));
    }
    let lower = r.body.to_ascii_lowercase();
    if s.page {
        let plain = r
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/plain"));
        let tells = ["sql", "postgres", "error", "connect", "pool"]
            .iter()
            .any(|w| lower.contains(w));
        if !plain || r.body.len() > 100 || tells {
            return Some(format!(
                "{}: a 503 page with details: {}\n{}",
                s.what, r.head, r.body
            ));
        }
    } else {
        let json: Option<Value> = serde_json::from_str(&r.body).ok();
        let message = json.as_ref().and_then(|j| j["message"].as_str());
        if message.is_none() || lower.contains("postgres") || lower.contains("sql") {
            return Some(format!(
                "{}: a 503 that is not the API's error: {}",
                s.what, r.body
            ));
        }
    }
    None
}

/// The load of one client: pages (cached) and API reads and writes (the database).
fn load_step(b: &mut Browser, i: usize) -> (&'static str, bool, Option<Response>) {
    let snips = loam_item("slate-herb-markers");
    match i % 6 {
        0 => ("GET /", true, b.send("GET", "/", None)),
        1 => (
            "GET /shop/slate-herb-markers",
            true,
            b.send("GET", "/shop/slate-herb-markers", None),
        ),
        2 => {
            let path = format!("/api/commerce/inventory/stock/?itemId={snips}");
            ("GET stock", false, b.send("GET", &path, None))
        }
        3 => {
            let body = unlimited_add();
            (
                "POST cart entry",
                false,
                b.send("POST", ENTRIES, Some(&body)),
            )
        }
        4 => ("GET cart", false, b.send("GET", CART, None)),
        _ => ("POST form key", false, b.send("POST", FORM_KEY, None)),
    }
}

/// A cart add that stock never refuses.
fn unlimited_add() -> Value {
    json!({"itemId": loam_item(UNLIMITED.0), "sku": UNLIMITED.1, "quantity": 1})
}

/// Sets the product's title through another store handle (the owner editing elsewhere).
fn retitle(server: &Server, title: String) {
    let id = loam_item("slate-herb-markers");
    server.with_store(move |s| {
        Box::pin(async move {
            let t = s.tenant_by_host(LOAM).await.unwrap().unwrap().id;
            let mut item = s.item(t, &id).await.unwrap().unwrap();
            item.title = title;
            s.put_item(t, &item).await.unwrap();
        })
    });
}

#[test]
fn postgres_restarted_under_load() {
    use tenants::testing::{PgServer, StopMode};
    // A server of its own: the shared one carries the other tests of this process.
    let pg = PgServer::start();
    let server = Server::start(
        Backend::Postgres(pg.create_database()),
        &[
            "--cart-writes-per-minute",
            "1000000",
            "--form-submissions-per-minute",
            "1000000",
        ],
    );
    let port = Arc::new(AtomicU16::new(server.port));
    let browser = |n: usize| {
        let mut b = Browser::new(port.clone(), LOAM, format!("198.51.100.{}", 200 + n));
        b.timeout = ANSWER_WITHIN * 2;
        let r = b.send("GET", "/", None).expect("the server answers");
        assert_eq!(r.status, 200, "{}", r.head);
        b
    };
    let samples: Arc<Mutex<Vec<Sample>>> = Arc::default();
    let stop = Arc::new(AtomicUsize::new(0));
    // While the database is away, the clients also ask for a site not visited before.
    let cold = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (0..4)
        .map(|c| {
            let (mut b, samples, stop) = (browser(c), samples.clone(), stop.clone());
            let cold = cold.clone();
            std::thread::spawn(move || {
                let mut i = c;
                while stop.load(Ordering::SeqCst) == 0 {
                    let at = Instant::now();
                    let cold = COLD[cold.load(Ordering::SeqCst)];
                    let (what, page, answer) = if !cold.is_empty() && i % 7 == 0 {
                        // A site no one asked for since the database went away: nothing
                        // of it is cached, so its page cannot be made.
                        let port = b.port.load(Ordering::SeqCst);
                        let r = try_request(port, "GET", cold, "/", &[], "", b.timeout);
                        ("GET / of a cold site", true, r)
                    } else {
                        load_step(&mut b, i)
                    };
                    let took = at.elapsed();
                    samples.lock().unwrap().push(Sample {
                        what,
                        page,
                        at,
                        took,
                        answer,
                    });
                    i += 1;
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        })
        .collect();

    let mut probe = browser(9);
    let mut figures = Vec::new();
    std::thread::sleep(Duration::from_secs(1));
    for (n, mode) in [StopMode::Fast, StopMode::Immediate]
        .into_iter()
        .enumerate()
    {
        let down_at = Instant::now();
        pg.stop_now(mode);
        cold.store(n + 1, Ordering::SeqCst);
        std::thread::sleep(OUTAGE);
        cold.store(0, Ordering::SeqCst);
        pg.start_again();
        let up_at = Instant::now();
        // Back by itself: a page and a cart write work again.
        let recovered = loop {
            let page = probe.send("GET", "/shop", None);
            let write = probe.send("POST", ENTRIES, Some(&unlimited_add()));
            let ok = |r: &Option<Response>| r.as_ref().is_some_and(|r| r.status == 200);
            if ok(&page) && ok(&write) {
                break up_at.elapsed();
            }
            let status = |r: Option<Response>| r.map(|r| (r.status, r.body));
            assert!(
                up_at.elapsed() < RECOVER_WITHIN,
                "{mode:?}: no recovery: page {:?}, write {:?}",
                status(page),
                status(write)
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        // The cache listener is back too: an edit made through another handle shows.
        let title = format!("Slate herb markers, edition {n}");
        let edited_at = Instant::now();
        retitle(&server, title.clone());
        let seen = loop {
            let r = probe.send("GET", "/shop/slate-herb-markers", None);
            if r.is_some_and(|r| r.status == 200 && r.body.contains(&title)) {
                break edited_at.elapsed();
            }
            assert!(
                edited_at.elapsed() < RECOVER_WITHIN,
                "{mode:?}: the edit never showed"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        figures.push((mode, down_at, up_at, recovered, seen));
        std::thread::sleep(Duration::from_secs(1));
    }
    stop.store(1, Ordering::SeqCst);
    for c in clients {
        c.join().unwrap();
    }

    let samples = samples.lock().unwrap();
    let problems: Vec<String> = samples.iter().filter_map(problem).collect();
    assert!(
        problems.is_empty(),
        "{} bad answers:\n{}",
        problems.len(),
        problems.join("\n")
    );
    for (mode, down_at, up_at, recovered, seen) in figures {
        let during: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.at >= down_at && s.at < up_at)
            .collect();
        let unavailable = during
            .iter()
            .filter(|s| s.answer.as_ref().is_some_and(|r| r.status == 503))
            .count();
        let pages_ok = during
            .iter()
            .filter(|s| s.page && s.answer.as_ref().is_some_and(|r| r.status == 200))
            .count();
        let slowest = during.iter().map(|s| s.took).max().unwrap_or_default();
        assert!(
            unavailable > 0,
            "{mode:?}: no call noticed the database was away"
        );
        let cold_pages = during
            .iter()
            .filter(|s| {
                s.what.contains("cold") && s.answer.as_ref().is_some_and(|r| r.status == 503)
            })
            .count();
        assert!(cold_pages > 0, "{mode:?}: no page answered 503");
        eprintln!(
            "faults/postgres {mode:?} stop: {} requests while it was down ({:.1} s): {unavailable} \
             answered 503 ({cold_pages} of them pages of a cold site), {pages_ok} pages served \
             from cache, slowest {} ms; after the start, \
             pages and writes worked again in {} ms and an edit from another handle showed in {} ms",
            during.len(),
            (up_at - down_at).as_secs_f64(),
            slowest.as_millis(),
            recovered.as_millis(),
            seen.as_millis(),
        );
    }
}
