//! Builds the browser islands (`client/`, TypeScript bundled by esbuild) into `OUT_DIR` and
//! embeds them in the binary, so `tessera serve` serves them from any directory with no
//! extra step; the owner's app (`client/src/admin/`, served at `/config`) is part of the
//! same build and the same embedded files. Needs Node and npm (README's machine set-up);
//! `client/node_modules` is installed with `npm ci` the first time, and again whenever
//! `client/package-lock.json` differs from what npm last installed
//! (`node_modules/.package-lock.json`), so a pull that brings new packages installs them. Without Node the binary is built without islands
//! (pages still read correctly without JavaScript) and cargo prints a warning;
//! `TESSERA_NO_ISLANDS=1` does the same on purpose. The same build bundles the LESS compiler
//! the server runs with Node when it imports a template folder (`renderer/less/`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let client = manifest_dir.join("../client");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    for watched in [
        "src",
        "build.mjs",
        "package.json",
        "package-lock.json",
        "../renderer/less",
    ] {
        println!("cargo:rerun-if-changed={}", client.join(watched).display());
    }
    println!("cargo:rerun-if-env-changed=TESSERA_NO_ISLANDS");
    let dest = out.join("islands");
    let _ = std::fs::remove_dir_all(&dest);
    let built = if std::env::var_os("TESSERA_NO_ISLANDS").is_some() {
        None
    } else {
        build(&client, &dest)
    };
    let code = match built {
        Some(manifest) => embed(&dest, &manifest),
        None => "pub static FILES: &[(&str, &[u8])] = &[];\npub const LOADER: Option<&str> = None;\npub const STYLES: Option<&str> = None;\npub const ADMIN_ENTRY: Option<&str> = None;\npub const ADMIN_STYLES: Option<&str> = None;\npub const LESS_COMPILER: Option<&[u8]> = None;\n".to_string(),
    };
    std::fs::write(out.join("islands.rs"), code).unwrap();
}

/// Runs the client build; `None` (with a warning) when there is no Node. A build that
/// fails is a failed cargo build.
fn build(client: &Path, dest: &Path) -> Option<serde_json::Value> {
    if Command::new("node").arg("--version").output().is_err() {
        println!(
            "cargo:warning=node is not installed: tessera is built without its browser islands"
        );
        return None;
    }
    if needs_install(client) {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(client)
            .status()
            .expect("running npm ci in client/");
        assert!(status.success(), "npm ci in client/ failed");
    }
    let status = Command::new("node")
        .arg("build.mjs")
        .arg(dest)
        .current_dir(client)
        .status()
        .expect("running node build.mjs in client/");
    assert!(
        status.success(),
        "building the islands (client/build.mjs) failed"
    );
    let text = std::fs::read_to_string(dest.join("manifest.json")).expect("islands manifest");
    Some(serde_json::from_str(&text).expect("islands manifest is JSON"))
}

/// Whether `client/node_modules` needs `npm ci`: a package the build runs is missing, or the
/// lock file names a package that npm did not install at that version. npm records what it
/// installed in `node_modules/.package-lock.json` (the lock file's entries, less the optional
/// ones for other platforms), so a pull that brings new or upgraded packages installs them.
fn needs_install(client: &Path) -> bool {
    if !client.join("node_modules/esbuild").is_dir() || !client.join("node_modules/less").is_dir() {
        return true;
    }
    let read = |p: &Path| {
        std::fs::read_to_string(p)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    };
    let (Some(wanted), Some(installed)) = (
        read(&client.join("package-lock.json")),
        read(&client.join("node_modules/.package-lock.json")),
    ) else {
        return true;
    };
    let Some(wanted) = wanted["packages"].as_object() else {
        return true;
    };
    wanted
        .iter()
        .filter(|(path, _)| !path.is_empty())
        .any(|(path, entry)| match installed["packages"].get(path) {
            Some(have) => have["version"] != entry["version"],
            None => entry["optional"] != true,
        })
}

/// The Rust module that embeds every built file.
fn embed(dest: &Path, manifest: &serde_json::Value) -> String {
    let mut code = String::from("pub static FILES: &[(&str, &[u8])] = &[\n");
    for file in manifest["files"].as_array().expect("manifest.files") {
        let rel = file.as_str().expect("a file name");
        let path = dest.join(rel);
        writeln!(
            code,
            "    ({rel:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let opt = |key: &str| match manifest[key].as_str() {
        Some(s) => format!("Some({s:?})"),
        None => "None".to_string(),
    };
    writeln!(code, "pub const LOADER: Option<&str> = {};", opt("loader")).unwrap();
    writeln!(code, "pub const STYLES: Option<&str> = {};", opt("styles")).unwrap();
    // The owner's app: its entry module and stylesheet (among FILES, under admin/).
    let admin = |key: &str| match manifest["admin"][key].as_str() {
        Some(s) => format!("Some({s:?})"),
        None => "None".to_string(),
    };
    writeln!(
        code,
        "pub const ADMIN_ENTRY: Option<&str> = {};",
        admin("entry")
    )
    .unwrap();
    writeln!(
        code,
        "pub const ADMIN_STYLES: Option<&str> = {};",
        admin("styles")
    )
    .unwrap();
    // The LESS compiler (Node, at import time), not served.
    let less = match manifest["lessCompiler"].as_str() {
        Some(rel) => format!(
            "Some(include_bytes!({:?}))",
            dest.join(rel).display().to_string()
        ),
        None => "None".to_string(),
    };
    writeln!(code, "pub const LESS_COMPILER: Option<&[u8]> = {less};").unwrap();
    code
}
