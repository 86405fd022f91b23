//! `tessera migrate` and `tessera import` against the embedded store, as a user runs them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn tessera(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .env_remove("DATABASE_URL")
        .output()
        .unwrap()
}

/// A temporary data directory, removed on drop (also when an assertion fails).
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir() -> TempDir {
    let name = format!("tessera-cli-{}-{}", std::process::id(), tenants::new_id());
    let p = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&p).unwrap();
    TempDir(p)
}

#[test]
fn migrate_then_import_the_fixture_then_refuse_a_second_import() {
    let dir = temp_dir();
    let data = &dir.0;
    let data_s = data.to_str().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/harbor-lane");
    let fixture_s = fixture.to_str().unwrap();

    let out = tessera(&["migrate", "--data-dir", data_s]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let latest = tenants::migrate::LATEST_VERSION;
    let all: Vec<i64> = (1..=latest).collect();
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!(
        "applied migrations {all:?}; schema version {latest}"
    )));
    let out = tessera(&["migrate", "--data-dir", data_s]);
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains(&format!("schema is current (version {latest})"))
    );

    let out = tessera(&["import", fixture_s, "--data-dir", data_s]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("import: reading tenant.json"), "{stderr}");
    assert!(stderr.contains("collections/shop.json"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("imported tenant harbor-lane"), "{stdout}");
    assert!(
        stdout.contains("5 collections, 8 items, 4 variants"),
        "{stdout}"
    );
    assert!(data.join(tenants::EMBEDDED_FILE).exists());

    let out = tessera(&["import", fixture_s, "--data-dir", data_s]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("error: import failed, nothing was written: tenant.json: identifier:"),
        "{stderr}"
    );
}

#[test]
fn a_missing_folder_is_a_clear_error() {
    let dir = temp_dir();
    let data_s = dir.0.to_str().unwrap();
    let out = tessera(&["import", "/no/such/tenant", "--data-dir", data_s]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/tenant: not a directory"));
}

/// A folder whose LESS does not compile is refused with the stylesheet's file and line,
/// and nothing is imported.
#[test]
fn a_stylesheet_that_does_not_compile_stops_the_import() {
    let dir = temp_dir();
    let copy = dir.0.join("harbor-lane");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/harbor-lane");
    let status = Command::new("cp")
        .arg("-r")
        .arg(&fixture)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let site = copy.join("template/styles/site.less");
    let text = std::fs::read_to_string(&site).unwrap();
    std::fs::write(
        &site,
        text.replacen("'sqs-grid-breaker'", "'sqs-grid-breakr'", 1),
    )
    .unwrap();
    let data = dir.0.join("data");
    let out = tessera(&[
        "import",
        copy.to_str().unwrap(),
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("template/styles/site.less: 1:1: LESS: 'sqs-grid-breakr' wasn't found."),
        "{stderr}"
    );
    let out = tessera(&[
        "import",
        fixture.to_str().unwrap(),
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "the refused import left nothing behind: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
