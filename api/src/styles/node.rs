//! Running the LESS compiler (`renderer/less/compile.mjs`, bundled) in a Node process that
//! is bounded and has nothing to read (issue 40). The stylesheets are owner input, so
//! every compile is:
//!
//! - given its files on stdin, in memory: Node's file manager is `compile.mjs`'s own and
//!   knows only those, and Node runs with its permission model allowed to read the
//!   compiler's file alone (no other file, no child process, no worker);
//! - started with an empty environment (only `PATH`), so the server's `DATABASE_URL`,
//!   tokens and secrets never reach it;
//! - bounded: [`HEAP_MB`] of JavaScript heap, [`TIMEOUT`] of wall-clock time (then it is
//!   killed), [`MAX_CSS_BYTES`] of output, and at most [`MAX_CONCURRENT`] at once per node
//!   (a compile that cannot start within [`QUEUE_WAIT`] gives up).
//!
//! Its scratch folder holds the compiler's file only, and is removed whatever happens.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest a compile may run before Node is killed.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Node's JavaScript heap for one compile (`--max-old-space-size`), in MB.
pub const HEAP_MB: u32 = 256;
/// How many compiles one node runs at once; more wait their turn.
pub const MAX_CONCURRENT: usize = 2;
/// The longest a compile waits for its turn.
pub const QUEUE_WAIT: Duration = Duration::from_secs(15);
/// The largest compiled stylesheet.
pub const MAX_CSS_BYTES: usize = 20_000_000;
/// What is kept of Node's stderr (it says why it died).
const MAX_STDERR: u64 = 64 * 1024;

/// Why a compile did not give an answer.
#[derive(Debug)]
pub enum Failure {
    /// [`MAX_CONCURRENT`] compiles ran for all of [`QUEUE_WAIT`].
    Busy,
    /// It ran past [`TIMEOUT`] and was killed.
    Timeout,
    /// It needed more than [`HEAP_MB`].
    OutOfMemory,
    /// Its stylesheet was larger than [`MAX_CSS_BYTES`].
    TooLarge,
    /// Node could not be started, or failed without saying why.
    Node(String),
}

/// What the compiler printed, when it finished in time (its answer is on stdout; stderr
/// says why when it died without one).
pub struct Finished {
    pub stdout: Vec<u8>,
    pub stderr: String,
}

/// Runs `compiler` (the bundled `less-compiler.cjs`) on `input` (its JSON, on stdin).
pub fn run(compiler: &[u8], input: &[u8]) -> Result<Finished, Failure> {
    let _slot = SLOTS.take(QUEUE_WAIT)?;
    let scratch = Scratch::new().map_err(|e| Failure::Node(format!("a scratch folder: {e}")))?;
    let script = scratch.0.join("less-compiler.cjs");
    std::fs::write(&script, compiler).map_err(|e| Failure::Node(e.to_string()))?;
    let mut node = Command::new("node");
    // Nothing of the server's environment: PATH only, so `node` is found.
    node.env_clear();
    if let Some(path) = std::env::var_os("PATH") {
        node.env("PATH", path);
    }
    if let Some(flag) = permission_flag() {
        node.arg(flag)
            .arg(format!("--allow-fs-read={}", script.display()));
    }
    let child = node
        .arg(format!("--max-old-space-size={HEAP_MB}"))
        .arg("--no-warnings")
        .arg(&script)
        .current_dir(&scratch.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::Node(format!("running node for the LESS compiler: {e}")))?;
    supervise(child, input)
}

/// Feeds the child, collects what it prints, and kills it at [`TIMEOUT`].
fn supervise(mut child: Child, input: &[u8]) -> Result<Finished, Failure> {
    let started = Instant::now();
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    // A thread each, so a child that stops reading or fills a pipe cannot stall us.
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let stdout = child.stdout.take().expect("piped stdout");
    let overflow = Arc::new(AtomicBool::new(false));
    let overflowed = overflow.clone();
    let out = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.take(MAX_CSS_BYTES as u64 + 1).read_to_end(&mut buf);
        if buf.len() > MAX_CSS_BYTES {
            overflowed.store(true, Ordering::Relaxed);
        }
        buf
    });
    let stderr = child.stderr.take().expect("piped stderr");
    let err = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.take(MAX_STDERR).read_to_end(&mut buf);
        buf
    });
    let stop = |child: &mut Child, why: Failure| {
        let _ = child.kill();
        let _ = child.wait();
        Err(why)
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= TIMEOUT => return stop(&mut child, Failure::Timeout),
            // Output past the bound: no need to wait for the rest.
            Ok(None) if overflow.load(Ordering::Relaxed) => {
                return stop(&mut child, Failure::TooLarge);
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return stop(&mut child, Failure::Node(e.to_string())),
        }
    };
    let _ = feeder.join();
    let stdout = out.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    if stdout.len() > MAX_CSS_BYTES {
        return Err(Failure::TooLarge);
    }
    if out_of_memory(&status, &stderr) {
        return Err(Failure::OutOfMemory);
    }
    Ok(Finished { stdout, stderr })
}

/// V8 aborts with "JavaScript heap out of memory" when the heap limit is reached.
fn out_of_memory(status: &ExitStatus, stderr: &str) -> bool {
    !status.success() && stderr.contains("out of memory")
}

/// Node's permission-model flag (`--experimental-permission` on Node 20-22, `--permission`
/// from 23), or none on a Node without it (the in-memory file manager still confines the
/// compiler). Asked of `node --version` once.
fn permission_flag() -> Option<&'static str> {
    static FLAG: OnceLock<Option<&'static str>> = OnceLock::new();
    *FLAG.get_or_init(|| {
        let out = Command::new("node")
            .arg("--version")
            .env_clear()
            .envs(std::env::var_os("PATH").map(|p| ("PATH", p)))
            .output()
            .ok()?;
        let version = String::from_utf8_lossy(&out.stdout);
        let major: u32 = version
            .trim()
            .trim_start_matches('v')
            .split('.')
            .next()?
            .parse()
            .ok()?;
        match major {
            0..=19 => None,
            20..=22 => Some("--experimental-permission"),
            _ => Some("--permission"),
        }
    })
}

/// The node's compile slots: at most `max` compiles run at once.
struct Slots {
    running: Mutex<usize>,
    freed: Condvar,
    max: usize,
}

/// A slot, held while Node runs; given back when dropped.
struct Slot<'a>(&'a Slots);

static SLOTS: Slots = Slots::new(MAX_CONCURRENT);

impl Slots {
    const fn new(max: usize) -> Slots {
        Slots {
            running: Mutex::new(0),
            freed: Condvar::new(),
            max,
        }
    }

    /// A slot, waiting at most `wait` for one to be free.
    fn take(&self, wait: Duration) -> Result<Slot<'_>, Failure> {
        let running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        let (mut running, _) = self
            .freed
            .wait_timeout_while(running, wait, |n| *n >= self.max)
            .unwrap_or_else(|e| e.into_inner());
        if *running >= self.max {
            return Err(Failure::Busy);
        }
        *running += 1;
        Ok(Slot(self))
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        *self.0.running.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
        self.0.freed.notify_one();
    }
}

/// A fresh private folder under the temp dir (an unguessable name, created, never reused),
/// removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).map_err(|e| std::io::Error::other(e.to_string()))?;
        let name = hex::encode(nonce);
        let dir = std::env::temp_dir().join(format!("tessera-less-{name}"));
        let mut builder = std::fs::DirBuilder::new();
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(&dir)?;
        // Node's --allow-fs-read wants the real path (the temp dir may be a symlink).
        Ok(Scratch(canonical(&dir)))
    }
}

fn canonical(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_beyond_the_cap_wait_then_give_up() {
        let slots = Slots::new(2);
        let short = Duration::from_millis(20);
        let a = slots.take(short).expect("a free slot");
        let b = slots.take(short).expect("a second one");
        assert!(matches!(slots.take(short), Err(Failure::Busy)));
        // A slot given back while one waits is taken at once.
        std::thread::scope(|s| {
            let waiting = s.spawn(|| slots.take(Duration::from_secs(10)).is_ok());
            std::thread::sleep(short);
            drop(a);
            assert!(waiting.join().unwrap());
        });
        drop(b);
        assert_eq!(*slots.running.lock().unwrap(), 0);
    }
}
