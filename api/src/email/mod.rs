//! Sites' email: written from templates ([`compose`]), put in the store's outbox in the same
//! transaction as what it tells about, and sent from there by the mailer task of every node.
//!
//! The mailer takes due messages with a lease (so two nodes never send one at once, and a
//! message taken by a node that died is due again when its lease ends), a site's batch (up
//! to 20) at a time, hands the batch to the transport and marks those it took sent in one
//! write, or schedules the next try with exponential back-off (1 s, 2 s, 4 s … at most
//! [`MAX_BACKOFF`]). A message is sent at least once: a node killed between the transport
//! taking a batch (the server's "250 OK", the mbox flushed) and the store's "sent" sends
//! that batch again after restart, at most 20 messages of one site, with the same
//! `Message-ID`s so mail clients show one of each.
//!
//! Transports: SMTP through lettre (`--smtp URL` or `TESSERA_SMTP_URL`: `smtp://host:port`
//! in the clear, `smtp://…?tls=required` for STARTTLS, `smtps://` for TLS, credentials as
//! `user:pass@`), else one mbox file per site under `DATA_DIR/outbox/` (a batch appended
//! with one write and one flush to the disk).

pub mod compose;

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Mailbox, MultiPart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use tenants::{QueuedEmail, Store, TenantId};
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// Writes one site's emails: its template folder (for its own email templates), its
/// title and the host the call came in on (for `From`), its locale.
pub struct Composer {
    folder: Option<Arc<crate::pages::folders::LoadedFolder>>,
    title: String,
    host: String,
    locale: icu_locale::Locale,
}

impl Composer {
    /// The composer of `site`'s emails: its compiled template folder (when it has one), its
    /// title, the host mail is sent as coming from, its locale.
    pub fn new(
        folder: Option<Arc<crate::pages::folders::LoadedFolder>>,
        site: &crate::http::site::Site,
        host: String,
    ) -> Composer {
        Composer {
            folder,
            title: site_title_of(site).to_owned(),
            host,
            locale: site.content.locale.clone(),
        }
    }

    /// The email of `kind` to `to`, with `data` as its templates' context.
    pub fn email(
        &self,
        kind: &str,
        data: &serde_json::Value,
        to: &str,
        reply_to: Option<String>,
    ) -> tenants::Email {
        let envelope = compose::Envelope {
            from: compose::site_sender(&self.title, &self.host),
            to: to.to_owned(),
            reply_to,
        };
        compose::compose(
            self.folder.as_ref().map(|f| &*f.folder),
            kind,
            data,
            envelope,
            &self.locale,
        )
    }
}

/// The site's title (`website.siteTitle`), else its identifier.
pub fn site_title(call: &crate::http::call::Call) -> &str {
    site_title_of(&call.site)
}

/// [`site_title`] of a site.
pub fn site_title_of(site: &crate::http::site::Site) -> &str {
    site.content
        .render
        .website
        .pointer(&["siteTitle"])
        .and_then(template_lang::value::Node::as_str)
        .unwrap_or(&site.tenant.identifier)
}

/// How long a taken message is this node's to send.
const LEASE: Duration = Duration::from_secs(60);
/// The longest wait between tries.
pub const MAX_BACKOFF: Duration = Duration::from_secs(300);
/// How often the outbox is looked at without a nudge (other nodes' mail, retries).
const POLL: Duration = Duration::from_millis(500);

/// Where mail goes.
#[derive(Clone)]
pub enum Transport {
    Smtp(AsyncSmtpTransport<Tokio1Executor>),
    /// `<dir>/<site identifier>.mbox`, appended to.
    Files(PathBuf),
}

impl Transport {
    /// SMTP at `url` (see the module docs for its forms).
    pub fn smtp(url: &str) -> anyhow::Result<Transport> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let t = AsyncSmtpTransport::<Tokio1Executor>::from_url(url)
            .map_err(|e| anyhow::anyhow!("--smtp {url}: {e}"))?
            .timeout(Some(Duration::from_secs(20)))
            .build();
        Ok(Transport::Smtp(t))
    }

    /// What `tessera serve` says about it on start.
    pub fn describe(&self) -> String {
        match self {
            Transport::Smtp(_) => "email: sent by SMTP".to_owned(),
            Transport::Files(dir) => format!(
                "email: no --smtp given, so mail goes to one file per site in {}",
                dir.display()
            ),
        }
    }
}

/// Nudges the mailer when a message was just put in the outbox, so it goes out at once.
#[derive(Clone, Default)]
pub struct Outbox(Arc<Notify>);

impl Outbox {
    pub fn nudge(&self) {
        self.0.notify_one();
    }
}

/// The wait before try `attempts + 1`, after `attempts` tries failed.
pub fn backoff(attempts: i64) -> Duration {
    let exp = attempts.clamp(1, 20) as u32 - 1;
    Duration::from_secs(1u64 << exp).min(MAX_BACKOFF)
}

/// The message as lettre builds it (headers, text and HTML alternatives).
pub fn message(q: &QueuedEmail) -> anyhow::Result<Message> {
    let e = &q.email;
    let mut b = Message::builder()
        .from(e.from.parse::<Mailbox>()?)
        .to(e.to.parse::<Mailbox>()?)
        .subject(e.subject.clone())
        .message_id(Some(format!("<{}.{}@tessera>", q.id, q.tenant)));
    if let Some(r) = &e.reply_to {
        b = b.reply_to(r.parse::<Mailbox>()?);
    }
    let m = match &e.html {
        Some(html) => b.multipart(MultiPart::alternative_plain_html(
            e.text.clone(),
            html.clone(),
        ))?,
        None => b.header(ContentType::TEXT_PLAIN).body(e.text.clone())?,
    };
    Ok(m)
}

/// A message as an mbox entry: the `From ` line, the message with `From ` lines in the
/// body quoted (as mboxrd does), and the blank line that ends it.
fn mbox_entry(m: &Message, from: &str) -> String {
    let raw = String::from_utf8_lossy(&m.formatted()).replace("\r\n", "\n");
    let mut text = format!(
        "From {from} {}\n",
        jiff::Timestamp::now().strftime("%a %b %e %T %Y")
    );
    for line in raw.lines() {
        if line.trim_start_matches('>').starts_with("From ") {
            text.push('>');
        }
        text.push_str(line);
        text.push('\n');
    }
    text.push('\n');
    text
}

/// Appends messages (each with its envelope sender) to an mbox file: one write and one
/// flush to the disk for all of them.
fn append_mbox(path: &std::path::Path, messages: &[(Message, &str)]) -> std::io::Result<()> {
    let text: String = messages
        .iter()
        .map(|(m, from)| mbox_entry(m, from))
        .collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_data()
}

/// The envelope sender of a message: its `From` address.
fn envelope_from(q: &QueuedEmail) -> &str {
    q.email
        .from
        .rsplit('<')
        .next()
        .unwrap_or("")
        .trim_end_matches('>')
}

/// Sends one site's batch of messages; each one's outcome, in order. By SMTP each message
/// goes on its own; to files, the batch is appended to the site's mbox with one write and
/// one flush (all taken, or none).
async fn deliver(
    transport: &Transport,
    store: &Store,
    names: &mut HashMap<TenantId, String>,
    batch: &[QueuedEmail],
) -> Vec<Result<(), String>> {
    let built: Vec<Result<Message, String>> = batch
        .iter()
        .map(|q| message(q).map_err(|e| format!("unsendable: {e}")))
        .collect();
    match transport {
        Transport::Smtp(smtp) => {
            let mut out = Vec::with_capacity(batch.len());
            for m in built {
                out.push(match m {
                    Ok(m) => smtp.send(m).await.map(|_| ()).map_err(|e| e.to_string()),
                    Err(e) => Err(e),
                });
            }
            out
        }
        Transport::Files(dir) => {
            let Some(tenant) = batch.first().map(|q| q.tenant) else {
                return Vec::new();
            };
            let written = async {
                if let std::collections::hash_map::Entry::Vacant(slot) = names.entry(tenant) {
                    let t = store.tenant(tenant).await.map_err(|e| e.to_string())?;
                    slot.insert(t.identifier);
                }
                let path = dir.join(format!("{}.mbox", names[&tenant]));
                let messages: Vec<(Message, &str)> = built
                    .iter()
                    .zip(batch)
                    .filter_map(|(m, q)| m.as_ref().ok().map(|m| (m.clone(), envelope_from(q))))
                    .collect();
                if messages.is_empty() {
                    return Ok(());
                }
                append_mbox(&path, &messages).map_err(|e| e.to_string())
            }
            .await;
            built
                .into_iter()
                .map(|m| match (m, &written) {
                    (Err(e), _) => Err(e),
                    (Ok(_), Ok(())) => Ok(()),
                    (Ok(_), Err(e)) => Err(e.clone()),
                })
                .collect()
        }
    }
}

/// Sends what is due now; returns how many went out. The messages are taken site by site
/// (up to 20 of each); a site's batch is handed to the transport, and those it took are
/// marked sent in one write once it has them all: a node killed in between sends at most
/// that batch again (with the same `Message-ID`s).
pub async fn send_due(
    store: &Store,
    transport: &Transport,
    names: &mut HashMap<TenantId, String>,
) -> usize {
    let due = match store.claim_due_emails(LEASE.as_millis() as i64, 20).await {
        Ok(d) => d,
        Err(e) => {
            tracing::warn!(error = %e, "reading the outbox failed");
            return 0;
        }
    };
    let mut sent = 0;
    // The claim answers each site's messages together.
    for batch in due.chunk_by(|a, b| a.tenant == b.tenant) {
        let tenant = batch[0].tenant;
        let results = deliver(transport, store, names, batch).await;
        let mut taken = Vec::with_capacity(batch.len());
        for (q, result) in batch.iter().zip(&results) {
            match result {
                Ok(()) => taken.push(q.id.as_str()),
                Err(error) => {
                    // A message that cannot be built (a broken address) never will be: it
                    // stays in the outbox with its error for the owner, and is not tried
                    // again.
                    let wait = if error.starts_with("unsendable") {
                        Duration::from_secs(100 * 365 * 24 * 3600)
                    } else {
                        backoff(q.attempts)
                    };
                    tracing::warn!(id = %q.id, attempts = q.attempts, %error, "email not sent; next try in {wait:?}");
                    let at = tenants::now_ms() + wait.as_millis() as i64;
                    if let Err(e) = store.email_failed(q.tenant, &q.id, error, at).await {
                        tracing::warn!(error = %e, "recording an email's failure failed; it will be tried again");
                    }
                }
            }
        }
        sent += taken.len();
        if let Err(e) = store.emails_sent(tenant, &taken).await {
            tracing::warn!(error = %e, "recording emails as sent failed; they will be sent again");
        }
    }
    sent
}

/// The mailer task: sends as soon as it is nudged, else every [`POLL`].
pub fn spawn(store: Store, transport: Transport, outbox: Outbox) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut names = HashMap::new();
        loop {
            while send_due(&store, &transport, &mut names).await > 0 {}
            tokio::select! {
                _ = outbox.0.notified() => {}
                _ = tokio::time::sleep(POLL) => {}
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_five_minutes() {
        let secs: Vec<u64> = (1..=11).map(|a| backoff(a).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
    }

    #[test]
    fn messages_carry_both_parts_and_a_stable_id() {
        let q = QueuedEmail {
            tenant: TenantId(3),
            id: "abc".into(),
            email: tenants::Email {
                kind: "restock".into(),
                from: "\"Loam\" <no-reply@loam.test>".into(),
                to: "ann@example.test".into(),
                reply_to: Some("bob@example.test".into()),
                subject: "Back in stock".into(),
                text: "From now on: plain".into(),
                html: Some("<p>html</p>".into()),
            },
            created_ms: 0,
            attempts: 1,
            sent_ms: None,
            last_error: None,
        };
        let raw = String::from_utf8(message(&q).unwrap().formatted()).unwrap();
        for want in [
            "Message-ID: <abc.3@tessera>",
            "Reply-To: bob@example.test",
            "Subject: Back in stock",
            "multipart/alternative",
            "<p>html</p>",
        ] {
            assert!(raw.contains(want), "{want} in {raw}");
        }
        let dir = std::env::temp_dir().join(format!("tessera-mbox-{}", std::process::id()));
        let path = dir.join("loam.mbox");
        append_mbox(&path, &[(message(&q).unwrap(), "no-reply@loam.test")]).unwrap();
        let mbox = std::fs::read_to_string(&path).unwrap();
        assert!(mbox.starts_with("From no-reply@loam.test "));
        assert!(
            mbox.contains("\n>From now on: plain"),
            "body From lines are quoted: {mbox}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_sites_batch_goes_to_its_mbox_at_once_and_is_marked_sent_once_or_resent_whole() {
        let site = crate::testing::EmbeddedSite::open("harbor-lane", "mailer").await;
        let (store, t) = (site.store.clone(), site.tenant);
        let mail = |to: &str, text: &str| tenants::Email {
            kind: "form-submission".into(),
            from: "Harbor <no-reply@harbor.test>".into(),
            to: to.into(),
            reply_to: None,
            subject: "New submission".into(),
            text: text.into(),
            html: None,
        };
        let mut good = Vec::new();
        for i in 0..3 {
            let id = store
                .enqueue_email(
                    t,
                    &mail(&format!("m{i}@example.test"), &format!("body {i}")),
                )
                .await
                .unwrap();
            good.push(id);
        }
        let broken = store
            .enqueue_email(t, &mail("not an address", "never"))
            .await
            .unwrap();
        let transport = Transport::Files(site.dir.join("outbox"));
        let mut names = HashMap::new();
        assert_eq!(send_due(&store, &transport, &mut names).await, 3);
        let mbox = std::fs::read_to_string(site.dir.join("outbox/harbor-lane.mbox")).unwrap();
        assert_eq!(mbox.lines().filter(|l| l.starts_with("From ")).count(), 3);
        for i in 0..3 {
            assert_eq!(mbox.matches(&format!("body {i}")).count(), 1, "{mbox}");
        }
        assert!(!mbox.contains("never"));
        let outbox = store.outbox(t).await.unwrap();
        for q in &outbox {
            if good.contains(&q.id) {
                assert!(q.sent_ms.is_some() && q.last_error.is_none(), "{q:?}");
            } else {
                assert_eq!(q.id, broken);
                assert!(q.sent_ms.is_none(), "{q:?}");
                assert!(q.last_error.as_deref().unwrap().starts_with("unsendable"));
            }
        }
        // Sent once: nothing is due again.
        assert_eq!(send_due(&store, &transport, &mut names).await, 0);
        assert_eq!(
            std::fs::read_to_string(site.dir.join("outbox/harbor-lane.mbox")).unwrap(),
            mbox
        );
        // A node that handed a batch to the transport and died before marking it sent:
        // its lease ends (at once here) and the batch in hand goes out again, with the
        // same Message-IDs; nothing it had marked goes again.
        let mut again = Vec::new();
        for i in 3..5 {
            let to = format!("m{i}@example.test");
            again.push(store.enqueue_email(t, &mail(&to, "again")).await.unwrap());
        }
        let in_hand = store.claim_due_emails(0, 20).await.unwrap();
        assert_eq!(in_hand.len(), 2);
        let results = deliver(&transport, &store, &mut names, &in_hand).await;
        assert!(results.iter().all(Result::is_ok), "{results:?}");
        assert_eq!(send_due(&store, &transport, &mut names).await, 2);
        let mbox = std::fs::read_to_string(site.dir.join("outbox/harbor-lane.mbox")).unwrap();
        assert_eq!(mbox.lines().filter(|l| l.starts_with("From ")).count(), 7);
        for id in &again {
            let header = format!("Message-ID: <{id}.{t}@tessera>");
            assert_eq!(mbox.matches(&header).count(), 2, "{header} in {mbox}");
        }
        for id in &good {
            let header = format!("Message-ID: <{id}.{t}@tessera>");
            assert_eq!(mbox.matches(&header).count(), 1, "{header} in {mbox}");
        }
        assert_eq!(send_due(&store, &transport, &mut names).await, 0);
        site.close().await;
    }
}
