//! The shared helpers of the `tessera` integration tests: a real `tessera serve` process on
//! a throwaway store (embedded, or a database on the shared throwaway PostgreSQL), requests
//! through reqwest (or, for a path a URL parser would rewrite, as raw bytes), and a visitor
//! with a cookie jar, a client address and the crumb.

#![allow(dead_code)]

pub mod smtp;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// Where a server keeps its data.
#[derive(Clone, Debug)]
pub enum Backend {
    Embedded,
    Postgres(String),
}

impl Backend {
    /// A fresh database on the shared throwaway PostgreSQL.
    pub fn postgres() -> Backend {
        Backend::Postgres(tenants::testing::PgServer::shared().create_database())
    }

    pub fn tag(&self) -> &'static str {
        match self {
            Backend::Embedded => "embedded",
            Backend::Postgres(_) => "postgres",
        }
    }
}

/// Declares `embedded::<name>` and `postgres::<name>` tests for each `fn <name>(Backend)` of
/// the calling module.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod embedded {
            $(
                #[test]
                fn $name() {
                    super::$name($crate::support::Backend::Embedded)
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    super::$name($crate::support::Backend::postgres())
                }
            )*
        }
    };
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every demo tenant folder under fixtures/.
pub fn fixture_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("tenant.json").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// A running `tessera serve`; killed (and its data removed) on drop.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    pub urls: Vec<String>,
    pub data: PathBuf,
    pub backend: Backend,
    args: Vec<String>,
}

/// The owner tokens `Server::with_owners` gives the demo sites (full access, from
/// `--owner-token`).
pub const HARBOR_TOKEN: &str = "owner-token-of-harbor-001";
pub const LOAM_TOKEN: &str = "owner-token-of-loam-0001";
pub const QUILL_TOKEN: &str = "owner-token-of-quill-001";

static SERVERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Server {
    /// Starts a server on the demo fixtures with `extra` arguments. The test's own address
    /// (127.0.0.1) is a trusted proxy, so visitors can name their address in
    /// `X-Forwarded-For`.
    pub fn start(backend: Backend, extra: &[&str]) -> Server {
        let n = SERVERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let data = std::env::temp_dir().join(format!(
            "tessera-test-{}-{}-{n}",
            backend.tag(),
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&data);
        let mut server = Server {
            child: None,
            port: 0,
            urls: Vec::new(),
            data,
            backend,
            args: extra.iter().map(|s| s.to_string()).collect(),
        };
        server.spawn();
        server
    }

    /// `start` with an owner token for harbor-lane, loam-lantern and quillback
    /// (`HARBOR_TOKEN`, `LOAM_TOKEN`, `QUILL_TOKEN`) before `extra`.
    pub fn with_owners(backend: Backend, extra: &[&str]) -> Server {
        let tokens = [
            format!("harbor-lane={HARBOR_TOKEN}"),
            format!("loam-lantern={LOAM_TOKEN}"),
            format!("quillback={QUILL_TOKEN}"),
        ];
        let mut args: Vec<&str> = Vec::new();
        for t in &tokens {
            args.extend(["--owner-token", t.as_str()]);
        }
        args.extend_from_slice(extra);
        Server::start(backend, &args)
    }

    /// Another `tessera serve` on this server's PostgreSQL database, with the same
    /// arguments: a second node behind the same (imaginary) balancer. It finds the store
    /// already holding the fixtures, so it imports nothing; it has its own data directory
    /// (unused on PostgreSQL) and port.
    pub fn another_node(&self) -> Server {
        assert!(
            matches!(self.backend, Backend::Postgres(_)),
            "nodes share a PostgreSQL database"
        );
        let args: Vec<&str> = self.args.iter().map(String::as_str).collect();
        Server::start(self.backend.clone(), &args)
    }

    /// A new owner token of `site` (identifier or domain) with `role`, made with `tessera
    /// token create` against this server's store: the last word it prints.
    pub fn owner_token(&self, site: &str, role: &str) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .args(["token", "create", site, "--role", role, "--name", "test"])
            .args(self.store_args())
            .env_remove("DATABASE_URL")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tessera token create: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .last()
            .unwrap()
            .to_owned()
    }

    /// An owner API call on `host` with `token` and a JSON body (none when null).
    pub fn owner_call(
        &self,
        host: &str,
        token: &str,
        method: &str,
        path: &str,
        body: &Value,
    ) -> Response {
        let auth = format!("Bearer {token}");
        let headers = [
            ("Content-Type", "application/json"),
            ("Authorization", auth.as_str()),
        ];
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        request(self.port, method, host, path, &headers, &text)
    }

    /// An owner app call on `host` with a session `cookie` (`tessera-owner=…`) and, when
    /// given, its CSRF token in `X-CSRF-Token`; a JSON body (none when null).
    pub fn session_call(
        &self,
        host: &str,
        cookie: &str,
        csrf: Option<&str>,
        method: &str,
        path: &str,
        body: &Value,
    ) -> Response {
        let mut headers = vec![("Cookie", cookie)];
        if let Some(c) = csrf {
            headers.push(("X-CSRF-Token", c));
        }
        let text = if body.is_null() {
            String::new()
        } else {
            headers.push(("Content-Type", "application/json"));
            body.to_string()
        };
        request(self.port, method, host, path, &headers, &text)
    }

    /// The store options (`--data-dir DIR` or `--database-url URL`) that point another
    /// `tessera` command at this server's store.
    pub fn store_args(&self) -> Vec<String> {
        match &self.backend {
            Backend::Embedded => vec!["--data-dir".into(), self.data.display().to_string()],
            Backend::Postgres(url) => vec!["--database-url".into(), url.clone()],
        }
    }

    fn spawn(&mut self) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
        cmd.args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--trusted-proxy",
            "127.0.0.1",
        ])
        .arg("--data-dir")
        .arg(&self.data)
        .arg("--fixtures")
        .arg(root().join("fixtures"))
        .args(&self.args)
        .env_remove("DATABASE_URL")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
        if let Backend::Postgres(url) = &self.backend {
            cmd.arg("--database-url").arg(url);
        }
        let mut child = cmd.spawn().expect("start tessera serve");
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let mut urls = Vec::new();
        // One line per tenant: "<identifier>: http://<host>:<port>/".
        while let Some(Ok(line)) = lines.next() {
            let url = line
                .split_once(": ")
                .map(|(_, u)| u.to_string())
                .unwrap_or_default();
            assert!(url.starts_with("http://"), "unexpected line {line:?}");
            urls.push(url);
            if urls.len() == fixture_dirs().len() {
                break;
            }
        }
        assert!(!urls.is_empty(), "the server printed no URLs");
        self.port = urls[0]
            .rsplit(':')
            .next()
            .unwrap()
            .trim_end_matches('/')
            .parse()
            .unwrap();
        self.urls = urls;
        // Keep reading stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        self.child = Some(child);
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map(Child::id).expect("the server runs")
    }

    /// Kills the server with SIGKILL (no shutdown of any kind) and waits for it to go.
    pub fn kill9(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Sends the server SIGTERM (a graceful stop: in-flight requests finish).
    pub fn sigterm(&self) {
        let pid = self.child.as_ref().expect("running").id();
        let status = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits up to `within` for the server to exit: its exit status, or `None` when it is
    /// still running.
    pub fn exited_within(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let started = std::time::Instant::now();
        let child = self.child.as_mut().expect("running");
        while started.elapsed() < within {
            if let Some(status) = child.try_wait().unwrap() {
                self.child = None;
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// Starts the server again on the same data (after [`Server::kill9`]).
    pub fn restart(&mut self) {
        self.kill9();
        self.spawn();
    }

    /// The store this server uses, opened by the test itself (another handle on the same
    /// file or database, as a second process would).
    pub fn store_config(&self) -> tenants::StoreConfig {
        match &self.backend {
            Backend::Embedded => tenants::StoreConfig::Embedded {
                data_dir: self.data.clone(),
            },
            Backend::Postgres(url) => tenants::StoreConfig::Postgres { url: url.clone() },
        }
    }

    /// Runs raw SQL statements on this server's database, behind the store's back (to age
    /// or break data on purpose).
    #[allow(dead_code)] // not every test binary breaks data
    pub fn raw_sql(&self, sql: &str) {
        match &self.backend {
            Backend::Embedded => {
                let file = self.data.join(tenants::EMBEDDED_FILE);
                let c = deadpool_sqlite::rusqlite::Connection::open(file).unwrap();
                c.execute_batch(sql).unwrap();
            }
            Backend::Postgres(url) => {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async {
                    let (db, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                        .await
                        .unwrap();
                    let conn = tokio::spawn(conn);
                    db.batch_execute(sql).await.unwrap();
                    drop(db);
                    let _ = conn.await;
                });
            }
        }
    }

    /// Runs `f` with a store handle on this server's data.
    pub fn with_store<T>(
        &self,
        f: impl for<'s> FnOnce(&'s tenants::Store) -> std::pin::Pin<Box<dyn Future<Output = T> + 's>>,
    ) -> T {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let store = tenants::Store::open(&self.store_config()).await.unwrap();
            let out = f(&store).await;
            store.close().await.unwrap();
            out
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill9();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// A response: status, head (lower-case header names, as hyper sends them) and body.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Response {
    /// The body as JSON (panics with the body when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    /// The first header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers(name).into_iter().next()
    }

    /// Every header `name`.
    pub fn headers(&self, name: &str) -> Vec<&str> {
        let prefix = format!("{}:", name.to_ascii_lowercase());
        self.head
            .lines()
            .filter(|l| l.to_ascii_lowercase().starts_with(&prefix))
            .map(|l| l[prefix.len()..].trim())
            .collect()
    }

    /// The JSON `message`.
    pub fn message(&self) -> String {
        self.json()["message"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}

/// A minimal HTTP/1.1 request with an explicit Host header, extra headers and a body; panics
/// when no whole answer comes within a minute.
pub fn request(
    port: u16,
    method: &str,
    host: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Response {
    let timeout = Duration::from_secs(60);
    try_request(port, method, host, path, headers, body, timeout).unwrap_or_else(|| {
        panic!(
            "{method} {host}{path} on port {port}: no whole answer within {timeout:?} \
             (refused, reset, cut short or timed out)"
        )
    })
}

/// [`request`] for a server that may be dead or restarting under the test: `None` when no
/// whole answer came within `timeout` (refused, reset, cut short, timed out, or port 0: the
/// server is between runs).
///
/// Sent with reqwest (no redirects followed, no proxy, no pooled connections: each request
/// on a connection of its own, as a browser's first visit), with the `Host` given. A path
/// that a URL parser would rewrite (dot segments, characters it escapes: what the security
/// tests send on purpose) goes out byte for byte over a plain socket instead.
pub fn try_request(
    port: u16,
    method: &str,
    host: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
    timeout: Duration,
) -> Option<Response> {
    if port == 0 {
        return None;
    }
    let url = reqwest::Url::parse(&format!("http://127.0.0.1:{port}{path}")).ok();
    let as_sent = url.as_ref().map(|u| match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_owned(),
    });
    match url {
        Some(url) if as_sent.as_deref() == Some(path) => {
            send(url, method, host, headers, body, timeout)
        }
        _ => raw_request(port, method, host, path, headers, body, timeout),
    }
}

/// The one client every test shares (it keeps no connections).
fn client() -> &'static reqwest::blocking::Client {
    static CLIENT: std::sync::OnceLock<reqwest::blocking::Client> = std::sync::OnceLock::new();
    CLIENT.get_or_init(|| {
        // reqwest is built for rustls without a chosen provider (the server's own outgoing
        // calls pick ring); the tests speak plain HTTP, but the client still wants one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::blocking::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .pool_max_idle_per_host(0)
            .build()
            .expect("an HTTP client")
    })
}

fn send(
    url: reqwest::Url,
    method: &str,
    host: &str,
    headers: &[(&str, &str)],
    body: &str,
    timeout: Duration,
) -> Option<Response> {
    let method = reqwest::Method::from_bytes(method.as_bytes()).ok()?;
    let has_body = !body.is_empty() || matches!(method.as_str(), "POST" | "PUT" | "DELETE");
    let mut req = client()
        .request(method, url)
        .timeout(timeout)
        .header("host", host);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if has_body {
        req = req.body(body.to_owned());
    }
    let res = req.send().ok()?;
    let mut head = format!("HTTP/1.1 {}\r\n", res.status());
    for (k, v) in res.headers() {
        head.push_str(&format!(
            "{k}: {}\r\n",
            String::from_utf8_lossy(v.as_bytes())
        ));
    }
    let status = res.status().as_u16();
    let body = res.bytes().ok()?;
    Some(Response {
        status,
        head,
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

/// A request sent as exactly these bytes over a plain socket (HTTP/1.1, `Connection:
/// close`), for paths a URL parser would not send as written.
pub fn raw_request(
    port: u16,
    method: &str,
    host: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
    timeout: Duration,
) -> Option<Response> {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, timeout).ok()?;
    s.set_read_timeout(Some(timeout)).ok()?;
    s.set_write_timeout(Some(timeout)).ok()?;
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() || matches!(method, "POST" | "PUT" | "DELETE") {
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    s.write_all(format!("{head}\r\n{body}").as_bytes()).ok()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).ok()?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let mut body = raw[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body)?;
    }
    Some(Response {
        status,
        head,
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

/// A plain GET.
pub fn get(port: u16, host: &str, path: &str) -> Response {
    request(port, "GET", host, path, &[], "")
}

/// A chunked body, or `None` when it was cut short.
fn dechunk(mut s: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let end = s.windows(2).position(|w| w == b"\r\n")?;
        let n = usize::from_str_radix(std::str::from_utf8(&s[..end]).ok()?.trim(), 16).ok()?;
        if n == 0 {
            return Some(out);
        }
        let rest = s.get(end + 2..)?;
        out.extend_from_slice(rest.get(..n)?);
        s = rest.get(n + 2..)?;
    }
}

/// A visitor of one site: a browser's cookie jar, a client address (sent in
/// `X-Forwarded-For`, which the test server believes), and the crumb sent back with every
/// state-changing call.
#[derive(Clone, Debug)]
pub struct Visitor {
    pub port: u16,
    pub host: String,
    pub ip: String,
    pub cookies: BTreeMap<String, String>,
    /// Send `X-CSRF-Token` with calls (the crumb cookie's value).
    pub send_crumb: bool,
}

impl Visitor {
    pub fn new(server: &Server, host: &str, ip: &str) -> Visitor {
        Visitor {
            port: server.port,
            host: host.to_string(),
            ip: ip.to_string(),
            cookies: BTreeMap::new(),
            send_crumb: true,
        }
    }

    /// A visitor who has viewed the home page (and so has a crumb).
    pub fn arrive(server: &Server, host: &str, ip: &str) -> Visitor {
        let mut v = Visitor::new(server, host, ip);
        let r = v.get("/");
        assert_eq!(r.status, 200, "{}", r.head);
        assert!(
            v.crumb().is_some(),
            "the first page view sets a crumb: {}",
            r.head
        );
        v
    }

    pub fn crumb(&self) -> Option<String> {
        self.cookies.get("crumb").cloned()
    }

    /// Sends a request with the jar's cookies and keeps the cookies the answer sets.
    pub fn send(
        &mut self,
        method: &str,
        path: &str,
        extra: &[(&str, &str)],
        body: &str,
    ) -> Response {
        let cookie = cookie_header(&self.cookies);
        let crumb = self.crumb().unwrap_or_default();
        let mut headers: Vec<(&str, &str)> = vec![("X-Forwarded-For", &self.ip)];
        if !cookie.is_empty() {
            headers.push(("Cookie", &cookie));
        }
        if self.send_crumb && method != "GET" && !crumb.is_empty() {
            headers.push(("X-CSRF-Token", &crumb));
        }
        headers.extend_from_slice(extra);
        let r = request(self.port, method, &self.host, path, &headers, body);
        keep_cookies(&mut self.cookies, &r);
        r
    }

    pub fn get(&mut self, path: &str) -> Response {
        self.send("GET", path, &[], "")
    }

    /// A JSON call.
    pub fn call(&mut self, method: &str, path: &str, body: &Value) -> Response {
        let text = if body.is_null() {
            String::new()
        } else {
            body.to_string()
        };
        self.send(method, path, &[("Content-Type", "application/json")], &text)
    }

    pub fn post(&mut self, path: &str, body: Value) -> Response {
        self.call("POST", path, &body)
    }

    pub fn put(&mut self, path: &str, body: Value) -> Response {
        self.call("PUT", path, &body)
    }

    pub fn delete(&mut self, path: &str) -> Response {
        self.call("DELETE", path, &Value::Null)
    }

    /// Units in stock of `item`'s variant `sku`, as the public stock call answers.
    pub fn stock(&mut self, item: &str, sku: &str) -> i64 {
        let r = self.get(&format!("/api/commerce/inventory/stock/?itemId={item}"));
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["sku"] == sku)
            .unwrap_or_else(|| panic!("no {sku} in {}", r.body))["qtyInStock"]
            .as_i64()
            .unwrap()
    }

    /// `GET /api/commerce/shopping-cart`.
    pub fn cart(&mut self) -> Value {
        let r = self.get("/api/commerce/shopping-cart");
        assert_eq!(r.status, 200, "{}", r.body);
        r.json()
    }
}

/// A cookie jar as a `Cookie` header value.
pub fn cookie_header(jar: &BTreeMap<String, String>) -> String {
    jar.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Keeps in `jar` the cookies the answer sets, and drops those it deletes (`Max-Age=0` or
/// an empty value).
pub fn keep_cookies(jar: &mut BTreeMap<String, String>, r: &Response) {
    for line in r.headers("set-cookie") {
        let pair = line.split(';').next().unwrap_or("");
        if let Some((k, v)) = pair.split_once('=') {
            if line.contains("Max-Age=0") || v.is_empty() {
                jar.remove(k);
            } else {
                jar.insert(k.to_string(), v.to_string());
            }
        }
    }
}

/// Looks with `look` every 20 ms until `done` holds for what it saw (a change made on one
/// node, served by another; a count that catches up): what it saw then, and how long it
/// took. Fails after `bound`, saying what it last saw.
pub fn poll_until<T: std::fmt::Debug>(
    bound: Duration,
    what: &str,
    mut look: impl FnMut() -> T,
    mut done: impl FnMut(&T) -> bool,
) -> (T, Duration) {
    let start = std::time::Instant::now();
    loop {
        let seen = look();
        if done(&seen) {
            return (seen, start.elapsed());
        }
        if start.elapsed() >= bound {
            // Whole pages are long: their start (status and head) is what tells.
            let mut last = format!("{seen:?}");
            if let Some((cut, _)) = last.char_indices().nth(800) {
                last.truncate(cut);
                last.push_str(" …");
            }
            panic!("{what}: not seen within {bound:?}; last seen: {last}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A template folder as the owner API's upload body (`files`: each `path` with its `text`,
/// or `base64` when it is not UTF-8), in path order.
pub fn folder_upload(dir: &Path) -> Vec<Value> {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    fn walk(root: &Path, dir: &Path, out: &mut Vec<Value>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(root, &p, out);
                continue;
            }
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let bytes = std::fs::read(&p).unwrap();
            out.push(match String::from_utf8(bytes) {
                Ok(text) => serde_json::json!({"path": rel, "text": text}),
                Err(e) => {
                    serde_json::json!({"path": rel, "base64": STANDARD.encode(e.into_bytes())})
                }
            });
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

/// The items of every collection of a demo tenant, by urlId.
pub fn fixture_items(tenant: &str) -> BTreeMap<String, Value> {
    let dir = root().join("fixtures").join(tenant).join("collections");
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let c: Value =
            serde_json::from_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        for item in c["items"].as_array().cloned().unwrap_or_default() {
            out.insert(item["urlId"].as_str().unwrap().to_string(), item);
        }
    }
    out
}

/// The id of a demo tenant's item.
pub fn item_id(tenant: &str, url_id: &str) -> String {
    fixture_items(tenant)[url_id]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{tenant}/{url_id} has no fixed id"))
        .to_string()
}
