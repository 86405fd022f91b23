//! `tessera serve` booted as a real process on the embedded store: it imports the fixtures on
//! first start, prints the URLs, and serves each tenant by its Host header.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

struct Server {
    child: Child,
    port: u16,
    urls: Vec<String>,
    data: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data);
    }
}

/// Where the server keeps its data.
enum Backend {
    Embedded,
    Postgres(String),
}

fn start(backend: Backend) -> Server {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let tag = match backend {
        Backend::Embedded => "embedded",
        Backend::Postgres(_) => "postgres",
    };
    let data =
        std::env::temp_dir().join(format!("tessera-serve-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_tessera"));
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--data-dir"])
        .arg(&data);
    if let Backend::Postgres(url) = &backend {
        cmd.arg("--database-url").arg(url);
    }
    let mut child = cmd
        .env_remove("DATABASE_URL")
        .arg("--fixtures")
        .arg(root.join("fixtures"))
        .env("RUST_LOG", "warn")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start tessera serve");
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
        if urls.len() == count_fixtures(&root.join("fixtures")) {
            break;
        }
    }
    let port = urls[0]
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .parse()
        .unwrap();
    Server {
        child,
        port,
        urls,
        data,
    }
}

fn count_fixtures(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.path().join("tenant.json").is_file())
        .count()
}

/// A minimal HTTP/1.1 GET with an explicit Host header: (status, headers, body).
fn get(port: u16, host: &str, path: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    (status, head.to_string(), body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

#[test]
fn serves_tenants_by_host_on_the_embedded_store() {
    check_server(start(Backend::Embedded));
}

#[test]
fn serves_tenants_by_host_on_postgres() {
    let pg = tenants::testing::PgServer::shared();
    check_server(start(Backend::Postgres(pg.create_database())));
}

/// Every collection page and item page of every demo tenant, from the fixture files:
/// (tenant host, path, expected page type, text the page must contain).
fn routes() -> Vec<(String, String, u16, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut out = Vec::new();
    let mut tenants: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("tenant.json").is_file())
        .collect();
    tenants.sort();
    for dir in tenants {
        let tenant: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("tenant.json")).unwrap())
                .unwrap();
        let domain = &tenant["domains"][0];
        let host = domain
            .as_str()
            .or(domain["host"].as_str())
            .unwrap()
            .to_string();
        for entry in std::fs::read_dir(dir.join("collections")).unwrap() {
            let path = entry.unwrap().path();
            let c: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let url_id = c["urlId"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| path.file_stem().unwrap().to_string_lossy().to_string());
            let is_folder = c["typeName"] == "folder";
            // A password-protected collection and its items show the lock screen (103),
            // titled with the collection's title.
            let locked = c["password"].is_string();
            let lock_title = c["title"].as_str().unwrap_or_default().to_string();
            let kind = if locked {
                103
            } else if c["type"] == 10 || c["type"] == 7 {
                2
            } else {
                1
            };
            if !is_folder {
                let marker = if locked {
                    lock_title.clone()
                } else {
                    String::new()
                };
                out.push((host.clone(), format!("/{url_id}"), kind, marker));
            }
            for item in c["items"].as_array().map(Vec::as_slice).unwrap_or_default() {
                let title = item["title"].as_str().unwrap().to_string();
                let (kind, marker) = if locked {
                    (103, lock_title.clone())
                } else {
                    (50, title)
                };
                out.push((
                    host.clone(),
                    format!("/{url_id}/{}", item["urlId"].as_str().unwrap()),
                    kind,
                    marker,
                ));
            }
        }
    }
    out
}

/// Per demo tenant: its host and the urlIds of every non-homepage collection its
/// navigations link to (nested folder entries included).
fn nav_targets() -> Vec<(String, Vec<String>)> {
    fn walk(items: &serde_json::Value, out: &mut Vec<String>) {
        for it in items.as_array().map(Vec::as_slice).unwrap_or_default() {
            if let Some(c) = it["collection"].as_str() {
                out.push(c.to_string());
            }
            walk(&it["items"], out);
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(nav) = std::fs::read_to_string(dir.join("navigation.json")) else {
            continue;
        };
        let tenant: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("tenant.json")).unwrap())
                .unwrap();
        let domain = &tenant["domains"][0];
        let host = domain.as_str().or(domain["host"].as_str()).unwrap();
        let nav: serde_json::Value = serde_json::from_str(&nav).unwrap();
        let mut targets = Vec::new();
        for items in nav.as_object().unwrap().values() {
            walk(items, &mut targets);
        }
        targets.retain(|c| {
            let file = dir.join("collections").join(format!("{c}.json"));
            let c: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
            c["homepage"] != true
        });
        assert!(
            !targets.is_empty(),
            "{}: no navigation links",
            dir.display()
        );
        out.push((host.to_string(), targets));
    }
    out
}

fn check_server(server: Server) {
    // Every navigation renders its links (the store keeps them by collection id).
    for (host, targets) in nav_targets() {
        let (status, _, body) = get(server.port, &host, "/");
        assert_eq!(status, 200, "{host}/");
        for url_id in targets {
            assert!(
                body.contains(&format!("href=\"/{url_id}\"")),
                "{host}/ has no navigation link to /{url_id}"
            );
        }
    }
    for (host, path, page_type, marker) in routes() {
        let (status, head, body) = get(server.port, &host, &path);
        assert_eq!(status, 200, "{host}{path}: {head}");
        assert!(
            head.contains(&format!("x-page-type: {page_type}")),
            "{host}{path}: {head}"
        );
        let escaped = marker.replace('&', "&amp;").replace('\'', "&#39;");
        assert!(
            body.contains(&marker)
                || body.contains(&escaped)
                || body.contains(&marker.replace('\'', "’")),
            "{host}{path} lacks {marker:?}"
        );
    }
    let host = server.urls[0]
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let p = server.port;

    let (status, head, body) = get(p, &host, "/");
    assert_eq!(status, 200, "{head}\n{body}");
    assert!(
        head.to_ascii_lowercase().contains("x-page-type: "),
        "{head}"
    );
    assert!(
        body.contains("<html") || body.contains("<!doctype"),
        "{body}"
    );

    let (status, _, body) = get(p, &host, "/?format=json");
    assert_eq!(status, 200);
    let v: serde_json::Value = serde_json::from_str(&body).expect("?format=json is JSON");
    assert!(v["website"].is_object());

    let (status, head, _) = get(p, &host, "/no-such-page");
    assert_eq!(status, 404);
    assert!(head.contains("x-page-type: 100"), "{head}");

    // An unknown host gets a plain 404 with no tenant data.
    let (status, head, body) = get(p, "nobody.localhost", "/");
    assert_eq!((status, body.as_str()), (404, "Not Found"), "{head}");

    let (status, _, body) = get(p, &host, "/healthz");
    assert_eq!((status, body.as_str()), (200, "ok"));

    let (status, head, _) = get(p, &host, "/site.css");
    assert_eq!(status, 200);
    assert!(head.contains("text/css"));
}
