//! `tessera dev` over HTTP (the browser side is client/e2e/dev.mjs): any host name gets the
//! site, a collection type the folder declares and the content lacks gets sample items, a
//! good save is the next version (pages change, a `reload` event), a bad one is held back
//! with a `problems` event naming file, line and column.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Dev {
    child: Child,
    port: u16,
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(folder: &Path) -> Dev {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("dev")
        .arg(folder)
        .args([
            "--content",
            "quillback",
            "--listen",
            "127.0.0.1:0",
            "--fixtures",
        ])
        .arg(&fixtures)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let port = loop {
        let line = lines
            .next()
            .expect("tessera dev printed its address")
            .unwrap();
        if let Some(at) = line.find("on http://127.0.0.1:") {
            let rest = &line[at + "on http://127.0.0.1:".len()..];
            break rest[..rest.find('/').unwrap()].parse().unwrap();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Dev { child, port }
}

fn get(port: u16, host: &str, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let status = raw.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, raw)
}

/// The event stream: each call to `next` gives the next `data:` line's JSON.
struct Events(BufReader<TcpStream>);

impl Events {
    fn open(port: u16) -> Events {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        write!(
            s,
            "GET /_tessera/dev/events HTTP/1.1\r\nHost: x.test\r\n\r\n"
        )
        .unwrap();
        Events(BufReader::new(s))
    }

    fn next(&mut self) -> serde_json::Value {
        loop {
            let mut line = String::new();
            self.0.read_line(&mut line).expect("an event within 20 s");
            if let Some(data) = line.trim_end().strip_prefix("data: ") {
                return serde_json::from_str(data).unwrap();
            }
        }
    }
}

#[test]
fn serves_reloads_and_holds_back_a_broken_save() {
    let folder = std::env::temp_dir().join(format!("tessera-dev-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/quillback/template");
    assert!(
        Command::new("cp")
            .arg("-r")
            .arg(&src)
            .arg(&folder)
            .status()
            .unwrap()
            .success()
    );
    // A collection type quillback's content does not have.
    std::fs::write(
        folder.join("collections/recipes.conf"),
        "{ \"title\": \"Recipes\" }",
    )
    .unwrap();
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}<h2 class=\"recipe\">{title}</h2>{.end}",
    )
    .unwrap();
    let dev = start(&folder);

    let (status, page) = get(dev.port, "anything.example", "/");
    assert_eq!(status, 200);
    assert!(
        page.contains("/_tessera/dev/events"),
        "pages listen for reloads"
    );
    let (_, recipes) = get(dev.port, "localhost", "/recipes");
    assert!(
        recipes.contains("<h2 class=\"recipe\">Recipes: sample 1</h2>"),
        "{recipes}"
    );

    let mut events = Events::open(dev.port);
    let first = events.next();
    assert_eq!(first["type"], "reload", "the current state first");
    // A page names the version it shows, so it reloads on any other one (even one its
    // stream's first event announces) and never on its own.
    let stamp = |page: &str| {
        page.split("const rendered = ")
            .nth(1)
            .and_then(|t| t.split(';').next())
            .and_then(|n| n.parse::<i64>().ok())
    };
    assert_eq!(stamp(&recipes), first["version"].as_i64(), "{first}");
    // A good save: the next version, served.
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}<h3 class=\"recipe\">{title}</h3>{.end}",
    )
    .unwrap();
    let saved = Instant::now();
    let next = events.next();
    assert_eq!(next["type"], "reload");
    assert_ne!(next["version"], first["version"]);
    let (_, recipes) = get(dev.port, "localhost", "/recipes");
    assert!(recipes.contains("<h3 class=\"recipe\">"), "{recipes}");
    assert_eq!(stamp(&recipes), next["version"].as_i64());
    assert!(saved.elapsed() < Duration::from_secs(5));
    // A bad save: held back, named.
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}\n<h4>{title}",
    )
    .unwrap();
    let e = events.next();
    assert_eq!(e["type"], "problems", "{e}");
    assert_eq!(
        e["problems"][0]["location"]
            .as_str()
            .unwrap()
            .split(':')
            .take(2)
            .collect::<Vec<_>>(),
        ["collections/recipes.list", "2"]
    );
    assert!(
        e["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("Reached EOF in the middle of REPEATED"),
        "{e}"
    );
    let (_, recipes) = get(dev.port, "localhost", "/recipes");
    assert!(
        recipes.contains("<h3 class=\"recipe\">"),
        "the last good version is still served"
    );
    // Fixed: served again.
    std::fs::write(
        folder.join("collections/recipes.list"),
        "{.repeated section items}<h5>{title}</h5>{.end}",
    )
    .unwrap();
    assert_eq!(events.next()["type"], "reload");
    assert!(
        get(dev.port, "localhost", "/recipes")
            .1
            .contains("<h5>Recipes: sample 1</h5>")
    );
    drop(dev);
    std::fs::remove_dir_all(&folder).unwrap();
}

#[test]
fn usage_problems_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(["dev", "/nonexistent/theme"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/quillback/template");
    let out = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("dev")
        .arg(&here)
        .args(["--content", "no-such-tenant", "--fixtures"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--content no-such-tenant") && err.contains("quillback"),
        "{err}"
    );
}
