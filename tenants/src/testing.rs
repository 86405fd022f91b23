//! Test tooling shared by every crate: a real, throwaway PostgreSQL server.
//!
//! Enabled by the `testing` cargo feature (`tenants = { workspace = true, features =
//! ["testing"] }` in `[dev-dependencies]`). [`PgServer::start`] runs `initdb` and `pg_ctl`
//! from `/usr/lib/postgresql/<highest>/bin` (or `$TESSERA_PG_BIN`) into a fresh temporary
//! directory, listening on 127.0.0.1 on a free port with its socket in that directory, and
//! stops it with `pg_ctl stop -m fast` on drop. [`PgServer::shared`] gives one server per test
//! process (stopped by a watchdog when the process exits); [`PgServer::create_database`]
//! gives each test its own database. [`PgServer::stop_now`] and [`PgServer::start_again`]
//! take a server of its own away and bring it back, for tests of a database outage.
//!
//! PostgreSQL refuses to run as root: when the tests run as root, the server runs as the
//! `postgres` system user through `runuser` (the user is created if missing).
//!
//! There is no silent skip: if the binaries are missing, [`PgServer::start`] panics with a
//! message saying what to install.

use std::fs;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// A running throwaway PostgreSQL server.
#[derive(Debug)]
pub struct PgServer {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    version: String,
    as_postgres_user: bool,
}

/// How [`PgServer::stop_now`] stops the server (`pg_ctl stop -m`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopMode {
    /// Disconnects every client, then shuts down cleanly.
    Fast,
    /// Kills the server processes, as a crash would.
    Immediate,
}

impl StopMode {
    fn as_str(self) -> &'static str {
        match self {
            StopMode::Fast => "fast",
            StopMode::Immediate => "immediate",
        }
    }
}

static DB_COUNTER: AtomicU64 = AtomicU64::new(0);
static SHARED: OnceLock<PgServer> = OnceLock::new();

/// Prints past the test harness's output capture, so CI logs show the server really ran.
fn announce(msg: &str) {
    let _ = writeln!(std::io::stderr(), "{msg}");
}

fn find_bin() -> PathBuf {
    if let Some(dir) = std::env::var_os("TESSERA_PG_BIN") {
        let dir = PathBuf::from(dir);
        assert!(
            dir.join("initdb").exists() && dir.join("pg_ctl").exists(),
            "TESSERA_PG_BIN={} has no initdb/pg_ctl; the PostgreSQL tests do not skip",
            dir.display()
        );
        return dir;
    }
    let mut found: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    found.sort();
    match found.pop() {
        Some((_, bin)) => bin,
        None => panic!(
            "PostgreSQL server binaries not found: no /usr/lib/postgresql/*/bin/initdb. \
             Install them (Debian: `apt-get install -y postgresql`) or set TESSERA_PG_BIN. \
             The PostgreSQL tests do not skip."
        ),
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn ensure_postgres_user() {
    let exists = Command::new("id")
        .arg("postgres")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if exists.map(|s| s.success()).unwrap_or(false) {
        return;
    }
    let status = Command::new("useradd")
        .args([
            "--system",
            "--user-group",
            "--no-create-home",
            "--shell",
            "/bin/sh",
            "postgres",
        ])
        .status()
        .expect("running useradd");
    assert!(
        status.success(),
        "could not create the postgres system user (needed: initdb refuses root)"
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("no free port")
}

impl PgServer {
    /// Runs a PostgreSQL tool from the server's bin directory, as the `postgres` user when
    /// we are root. Panics with the tool's output on failure.
    fn run(&self, tool: &str, args: &[&str]) -> String {
        run_tool(&self.bin, self.as_postgres_user, tool, args, &self.dir)
    }

    /// Starts a new server in a fresh temporary directory. Prints the version and port.
    pub fn start() -> PgServer {
        let bin = find_bin();
        let as_postgres_user = is_root();
        if as_postgres_user {
            ensure_postgres_user();
        }
        let n = DB_COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "tessera-pg-{}-{n}-{}",
            std::process::id(),
            crate::ids::now_ms()
        ));
        fs::create_dir_all(&dir).expect("creating the PostgreSQL temp dir");
        if as_postgres_user {
            let ok = Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(&dir)
                .status()
                .map(|s| s.success());
            assert!(
                matches!(ok, Ok(true)),
                "chown of {} to postgres failed",
                dir.display()
            );
        }
        let data = dir.join("data");
        let data_s = data.to_str().expect("utf-8 temp path").to_owned();
        run_tool(
            &bin,
            as_postgres_user,
            "initdb",
            &[
                "-D",
                &data_s,
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync",
            ],
            &dir,
        );
        let version = run_tool(&bin, as_postgres_user, "postgres", &["--version"], &dir)
            .trim()
            .to_owned();
        let server = PgServer {
            bin,
            dir,
            port: free_port(),
            version,
            as_postgres_user,
        };
        server.launch();
        server.spawn_watchdog();
        announce(&format!(
            "tenants::testing: started PostgreSQL ({}) from {} on 127.0.0.1:{}, data in {}",
            server.version,
            server.bin.display(),
            server.port,
            server.dir.display()
        ));
        server
    }

    /// `pg_ctl start` on the server's data, port and socket directory; waits until it
    /// accepts connections.
    fn launch(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB",
            self.port,
            self.dir.display()
        );
        let data = self.dir.join("data");
        let log = self.dir.join("server.log");
        let (data, log) = (data.to_str().expect("utf-8"), log.to_str().expect("utf-8"));
        self.run(
            "pg_ctl",
            &[
                "-D", data, "-l", log, "-o", &opts, "-w", "-t", "60", "start",
            ],
        );
    }

    /// Stops the server (its data stays) the way `mode` says, for tests of what clients do
    /// while the database is away; [`PgServer::start_again`] brings it back on the same port.
    /// Not for [`PgServer::shared`], which other tests of the process are using.
    pub fn stop_now(&self, mode: StopMode) {
        let data = self.dir.join("data");
        let data = data.to_str().expect("utf-8");
        self.run("pg_ctl", &["-D", data, "stop", "-m", mode.as_str(), "-w"]);
    }

    /// Starts a server stopped by [`PgServer::stop_now`] again (after `immediate`, it
    /// recovers from its write-ahead log first).
    pub fn start_again(&self) {
        self.launch();
    }

    /// One server for the whole test process, started on first use and stopped when the
    /// process exits: by an `atexit` hook when the test harness exits normally, else by the
    /// watchdog (statics are never dropped).
    pub fn shared() -> &'static PgServer {
        SHARED.get_or_init(|| {
            let server = PgServer::start();
            // SAFETY: registering a plain `extern "C" fn` with the C library's atexit.
            unsafe {
                atexit(stop_shared_at_exit);
            }
            server
        })
    }

    /// Stops the server when this process dies, whatever the way (panic, abort, SIGKILL).
    fn spawn_watchdog(&self) {
        let me = std::process::id();
        let stop = self.stop_command();
        let script = format!(
            "while kill -0 {me} 2>/dev/null; do sleep 0.5; done; {stop} >/dev/null 2>&1; rm -rf '{}'",
            self.dir.display()
        );
        let _ = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }

    fn stop_command(&self) -> String {
        let pg_ctl = self.bin.join("pg_ctl");
        let data = self.dir.join("data");
        let base = format!(
            "'{}' -D '{}' stop -m fast -w",
            pg_ctl.display(),
            data.display()
        );
        if self.as_postgres_user {
            format!("runuser -u postgres -- {base}")
        } else {
            base
        }
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `postgres --version` output.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The temporary directory (data, socket, log).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The URL of an existing database.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates a fresh, empty database with a unique name and returns its URL.
    pub fn create_database(&self) -> String {
        let name = format!(
            "t{}_{}",
            std::process::id(),
            DB_COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let port = self.port.to_string();
        let host = self.dir.to_str().expect("utf-8").to_owned();
        self.run(
            "createdb",
            &["-h", &host, "-p", &port, "-U", "postgres", &name],
        );
        self.url(&name)
    }
}

unsafe extern "C" {
    fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
}

extern "C" fn stop_shared_at_exit() {
    if let Some(server) = SHARED.get() {
        server.stop();
    }
}

fn run_tool(bin: &Path, as_postgres_user: bool, tool: &str, args: &[&str], cwd: &Path) -> String {
    let exe = bin.join(tool);
    let mut cmd = if as_postgres_user {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    let out = cmd
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    assert!(
        out.status.success(),
        "{} {:?} failed ({}):\n{}\n{}",
        exe.display(),
        args,
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

impl PgServer {
    /// `pg_ctl stop -m fast`, then removes the temporary directory.
    fn stop(&self) {
        let stop = self.stop_command();
        let _ = Command::new("sh")
            .args(["-c", &stop])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = fs::remove_dir_all(&self.dir);
        announce(&format!(
            "tenants::testing: stopped PostgreSQL on 127.0.0.1:{}",
            self.port
        ));
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.stop();
    }
}
