//! Embedded backend: acknowledged writes survive `kill -9`.
//!
//! The parent test re-runs this test binary as a child that writes items and prints
//! `ACK n` after each commit; the parent kills it with SIGKILL mid-stream, reopens the file
//! and checks that every acknowledged item is there.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::TempDir;
use crate::content::{collection, product};
use tenants::{Store, StoreConfig, WebsiteStatus};

const CHILD_ENV: &str = "TESSERA_DURABILITY_CHILD_DIR";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_writes_survive_sigkill() {
    let dir = TempDir::new("crash");
    let config = StoreConfig::Embedded {
        data_dir: dir.0.clone(),
    };
    {
        let store = Store::open(&config).await.unwrap();
        let t = store
            .create_tenant("crash", "Crash", WebsiteStatus::Paid)
            .await
            .unwrap();
        store
            .put_collection(t.id, &collection("store", "products", 13))
            .await
            .unwrap();
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "durability::child_writer",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, &dir.0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut acked = Vec::new();
    let lines = BufReader::new(child.stdout.take().unwrap());
    let start = Instant::now();
    for line in lines.lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("ACK ") {
            acked.push(n.trim().parse::<u32>().unwrap());
        }
        if acked.len() >= 150 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    child.kill().unwrap(); // SIGKILL on Unix
    let status = child.wait().unwrap();
    assert!(
        !status.success(),
        "the child must have been killed, not have finished"
    );
    assert!(
        acked.len() >= 20,
        "the child acknowledged only {} writes",
        acked.len()
    );

    let store = Store::open(&config).await.unwrap();
    let t = store.tenant_by_identifier("crash").await.unwrap().unwrap();
    let c = store
        .collection_by_url(t.id, "store")
        .await
        .unwrap()
        .unwrap();
    let items = store.items(t.id, &c.id).await.unwrap();
    let present: std::collections::HashSet<String> =
        items.iter().map(|i| i.url_id.clone()).collect();
    for n in &acked {
        assert!(
            present.contains(&format!("item-{n}")),
            "acknowledged write item-{n} is missing after SIGKILL"
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "durability: {} acknowledged writes, all {} present after SIGKILL ({} rows in total)",
        acked.len(),
        acked.len(),
        items.len()
    );
}

/// The child side of `acknowledged_writes_survive_sigkill`; only runs when started by it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "child process of acknowledged_writes_survive_sigkill"]
async fn child_writer() {
    let dir = std::env::var_os(CHILD_ENV).expect("started by acknowledged_writes_survive_sigkill");
    let store = Store::open(&StoreConfig::Embedded {
        data_dir: dir.into(),
    })
    .await
    .unwrap();
    let t = store.tenant_by_identifier("crash").await.unwrap().unwrap();
    let c = store
        .collection_by_url(t.id, "store")
        .await
        .unwrap()
        .unwrap();
    let mut out = std::io::stdout();
    for n in 0.. {
        store
            .put_item(
                t.id,
                &product(&c.id, &format!("item-{n}"), &format!("SKU-{n}"), 1),
            )
            .await
            .unwrap();
        // Printed only after the commit returned: this write is acknowledged.
        writeln!(out, "ACK {n}").unwrap();
        out.flush().unwrap();
    }
}

/// Closing the embedded store checkpoints the WAL into the main file.
#[tokio::test]
async fn close_checkpoints_the_wal() {
    let dir = TempDir::new("close");
    let store = Store::open(&StoreConfig::Embedded {
        data_dir: dir.0.clone(),
    })
    .await
    .unwrap();
    let t = store
        .create_tenant("closing", "Closing", WebsiteStatus::Trial)
        .await
        .unwrap();
    store
        .put_collection(t.id, &collection("store", "products", 13))
        .await
        .unwrap();
    let wal = dir.0.join(format!("{}-wal", tenants::EMBEDDED_FILE));
    assert!(
        wal.metadata().map(|m| m.len()).unwrap_or(0) > 0,
        "writes go to the WAL first"
    );
    store.close().await.unwrap();
    assert_eq!(
        wal.metadata().map(|m| m.len()).unwrap_or(0),
        0,
        "close leaves an empty WAL"
    );
    let reopened = Store::open(&StoreConfig::Embedded {
        data_dir: dir.0.clone(),
    })
    .await
    .unwrap();
    assert!(
        reopened
            .collection_by_url(t.id, "store")
            .await
            .unwrap()
            .is_some()
    );
}
