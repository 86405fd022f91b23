//! A real SMTP server for the email tests (mailin-embedded), started on a port the test
//! chose, keeping every message it accepts.

use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mailin_embedded::{Handler, Server, response};

/// One accepted message: the envelope and the raw message.
#[derive(Clone, Debug)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    pub raw: String,
}

#[derive(Clone, Default)]
struct Keeper {
    inbox: Arc<Mutex<Vec<Received>>>,
    current: Option<Received>,
}

impl Handler for Keeper {
    fn data_start(
        &mut self,
        _domain: &str,
        from: &str,
        _is8bit: bool,
        to: &[String],
    ) -> mailin_embedded::Response {
        self.current = Some(Received {
            from: from.to_owned(),
            to: to.to_vec(),
            raw: String::new(),
        });
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        if let Some(c) = &mut self.current {
            c.raw.push_str(&String::from_utf8_lossy(buf));
        }
        Ok(())
    }

    fn data_end(&mut self) -> mailin_embedded::Response {
        if let Some(c) = self.current.take() {
            self.inbox.lock().unwrap().push(c);
        }
        response::OK
    }
}

/// A free local port for a server that starts later ([`Smtp::start_on`]). Chosen below
/// the kernel's ephemeral range (32768 and up on Linux), so no other process's outgoing
/// connection takes it in the meantime; the process id and a counter spread the picks, so
/// tests running in parallel pick different ones.
pub fn free_port() -> u16 {
    bind_free().local_addr().expect("a bound address").port()
}

/// A listener on a port picked as [`free_port`] picks one, kept bound.
fn bind_free() -> TcpListener {
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    for _ in 0..1000 {
        let step = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = 20_000
            + ((std::process::id() as u16)
                .wrapping_mul(97)
                .wrapping_add(step.wrapping_mul(13)))
                % 12_000;
        if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
            return listener;
        }
    }
    panic!("no free port below the ephemeral range");
}

/// A running SMTP server (it runs until the test process ends).
pub struct Smtp {
    inbox: Arc<Mutex<Vec<Received>>>,
}

impl Smtp {
    /// Starts listening on `port` (chosen earlier: a mail server that comes up after the
    /// server that sends to it).
    pub fn start_on(port: u16) -> Smtp {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("the SMTP port is free");
        Smtp::serve(listener)
    }

    /// Starts listening on a free port, and says which: the port is never let go between
    /// being picked and served, so nothing else can take it in between (a port picked by
    /// [`free_port`] and bound again later could be).
    pub fn start() -> (Smtp, u16) {
        let listener = bind_free();
        let port = listener.local_addr().expect("a bound address").port();
        (Smtp::serve(listener), port)
    }

    fn serve(listener: TcpListener) -> Smtp {
        let keeper = Keeper::default();
        let inbox = keeper.inbox.clone();
        let mut server = Server::new(keeper);
        server.with_name("smtp.test").with_tcp_listener(listener);
        std::thread::spawn(move || {
            let _ = server.serve();
        });
        Smtp { inbox }
    }

    /// The messages so far.
    pub fn inbox(&self) -> Vec<Received> {
        self.inbox.lock().unwrap().clone()
    }

    /// Waits up to `limit` for `n` messages.
    pub fn wait_for(&self, n: usize, limit: Duration) -> Vec<Received> {
        let start = Instant::now();
        loop {
            let inbox = self.inbox();
            if inbox.len() >= n || start.elapsed() > limit {
                return inbox;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The decoded text of a quoted-printable or 7-bit message (soft line breaks joined,
/// `=XX` decoded), to look for words in it.
pub fn readable(raw: &str) -> String {
    let joined = raw.replace("=\r\n", "").replace("=\n", "");
    let mut out = Vec::new();
    let b = joined.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'='
            && i + 2 < b.len()
            && b[i + 1].is_ascii_hexdigit()
            && b[i + 2].is_ascii_hexdigit()
        {
            out.push(u8::from_str_radix(&joined[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).replace("\r\n", "\n")
}
