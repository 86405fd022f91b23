//! `tessera dev DIR [--content DIR|TENANT] [--listen ADDR]`: serves one template folder
//! against demo content, on whatever host it is asked for, and reloads open pages when a
//! file of the folder changes ([`crate::dev`]).
//!
//! The content is an import-format folder (`--content path/to/folder`) or a fixtures tenant
//! by name (`--content quillback`; default `skyward`, the site with the most collection
//! types). It is imported into a scratch embedded store, and the folder becomes its template.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::{Map, Value};

use crate::server::{App, serve};

/// Serve a template folder with live reload while you edit it.
#[derive(Args, Debug)]
pub struct DevArgs {
    /// The template folder (with its template.conf).
    pub dir: PathBuf,
    /// Demo content: an import-format folder, or a tenant of `--fixtures` by name.
    #[arg(long, value_name = "DIR|TENANT", default_value = "skyward")]
    pub content: String,
    /// Where the fixtures tenants are.
    #[arg(long, value_name = "DIR", default_value = "./fixtures")]
    pub fixtures: PathBuf,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:3000")]
    pub listen: SocketAddr,
}

/// The content folder `--content` names.
fn content_dir(args: &DevArgs) -> Result<PathBuf, String> {
    let as_path = Path::new(&args.content);
    if as_path.join("tenant.json").is_file() {
        return Ok(as_path.to_path_buf());
    }
    let fixture = args.fixtures.join(&args.content);
    if fixture.join("tenant.json").is_file() {
        return Ok(fixture);
    }
    let known: Vec<String> = std::fs::read_dir(&args.fixtures)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().join("tenant.json").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    Err(format!(
        "--content {}: neither an import folder (with tenant.json) nor a tenant in {} (there: {})",
        args.content,
        args.fixtures.display(),
        known.join(", ")
    ))
}

pub fn run(args: DevArgs) -> ExitCode {
    if !args.dir.join("template.conf").is_file() {
        eprintln!("error: {} has no template.conf", args.dir.display());
        return ExitCode::from(2);
    }
    let content = match content_dir(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build()
        .expect("a runtime");
    match runtime.block_on(run_async(args, content)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run_async(args: DevArgs, content: PathBuf) -> anyhow::Result<()> {
    let scratch = std::env::temp_dir().join(format!("tessera-dev-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let store = tenants::Store::open(&tenants::StoreConfig::Embedded {
        data_dir: scratch.clone(),
    })
    .await?;
    let report = tenants::import::import_dir_with(
        &store,
        &content,
        &mut |m| tracing::debug!("import: {m}"),
        &crate::styles::import_build,
    )
    .await
    .map_err(|e| anyhow::anyhow!("importing the content {}: {e}", content.display()))?;
    let settings: Map<String, Value> = std::fs::read(content.join("site.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .and_then(|v| v.get("websiteSettings").and_then(Value::as_object).cloned())
        .unwrap_or_default();
    let dev = crate::dev::Dev::new(report.tenant.id);
    // The folder's first version (or its problems, over the content's own template).
    crate::dev::rebuild(&store, &dev, &args.dir, &settings).await;
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    eprintln!(
        "tessera dev: {} with the content of {} on http://{}/ (any host name); saving a file reloads open pages",
        args.dir.display(),
        content.display(),
        listener.local_addr()?
    );
    let watcher = crate::dev::watch(store.clone(), dev.clone(), args.dir.clone(), settings);
    let app = App::new(store.clone()).with_dev(dev);
    serve(listener, app).await?;
    watcher.abort();
    store.close().await?;
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}
