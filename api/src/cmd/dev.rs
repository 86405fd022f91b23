//! `tessera dev DIR [--content DIR|TENANT] [--listen ADDR]`: serves one template folder
//! against demo content, on whatever host it is asked for, and reloads open pages when a
//! file of the folder changes ([`crate::dev`]).
//!
//! The content is an import-format folder (`--content path/to/folder`), a fixtures tenant
//! by name (`--content quillback`; default `skyward`, the site with the most collection
//! types), or a tenant of a store by identifier or domain (`--content my-shop`, with the
//! store options of `import`), looked for in that order. It is imported (a store's tenant:
//! copied, [`tenants::copy`]) into a scratch embedded store, and the folder becomes its
//! template there: the live site never sees an author's saves.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use serde_json::{Map, Value};

use super::store_args::StoreArgs;
use crate::server::serve;
use crate::server::state::App;

/// Serve a template folder with live reload while you edit it.
#[derive(Args, Debug)]
pub struct DevArgs {
    /// The template folder (with its template.conf).
    pub dir: PathBuf,
    /// Demo content: an import-format folder, a tenant of `--fixtures` by name, or a tenant
    /// of the store (identifier or domain; copied, never changed).
    #[arg(long, value_name = "DIR|TENANT", default_value = "skyward")]
    pub content: String,
    /// Where the fixtures tenants are.
    #[arg(long, value_name = "DIR", default_value = "./fixtures")]
    pub fixtures: PathBuf,
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:3000")]
    pub listen: SocketAddr,
    /// The store `--content` may name a tenant of (looked in only when the name is neither
    /// a folder nor a fixtures tenant).
    #[command(flatten)]
    pub store: StoreArgs,
}

/// Where the demo content comes from.
enum Content {
    /// An import-format folder.
    Folder(PathBuf),
    /// A tenant (identifier or domain) of the store.
    Tenant(String),
}

/// What `--content` names: a folder, else a fixtures tenant, else (when there is a store
/// to look in) a tenant of the store.
fn content(args: &DevArgs) -> Result<Content, String> {
    let as_path = Path::new(&args.content);
    if as_path.join("tenant.json").is_file() {
        return Ok(Content::Folder(as_path.to_path_buf()));
    }
    let fixture = args.fixtures.join(&args.content);
    if fixture.join("tenant.json").is_file() {
        return Ok(Content::Folder(fixture));
    }
    // A store is there to look in when one is named, or the embedded one exists: `dev`
    // never creates an empty store just to find nothing in it.
    let store_named = match args.store.config() {
        tenants::StoreConfig::Postgres { .. } => true,
        tenants::StoreConfig::Embedded { data_dir } => {
            data_dir.join(tenants::EMBEDDED_FILE).is_file()
        }
    };
    if store_named && !args.content.contains(['/', '\\']) {
        return Ok(Content::Tenant(args.content.clone()));
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
        "--content {}: neither an import folder (with tenant.json) nor a tenant in {} (there: {}), and there is no store to look in ({})",
        args.content,
        args.fixtures.display(),
        known.join(", "),
        args.store.describe()
    ))
}

/// Puts the demo content into the scratch store; returns its tenant and a description.
async fn load_content(
    args: &DevArgs,
    content: &Content,
    scratch: &tenants::Store,
) -> anyhow::Result<(tenants::Tenant, String)> {
    match content {
        Content::Folder(dir) => {
            let report = tenants::import::import_dir_with(
                scratch,
                dir,
                &mut |m| tracing::debug!("import: {m}"),
                &crate::styles::import_build,
            )
            .await
            .map_err(|e| anyhow::anyhow!("importing the content {}: {e}", dir.display()))?;
            Ok((report.tenant, format!("the content of {}", dir.display())))
        }
        Content::Tenant(name) => {
            let store = args.store.open().await?;
            let Some(live) = store.tenant_by_name(name).await? else {
                store.close().await?;
                anyhow::bail!(
                    "--content {name}: not a folder, not a tenant in {}, and the {} has no tenant or domain {name:?}",
                    args.fixtures.display(),
                    args.store.describe()
                );
            };
            let copied = tenants::copy::copy_site(&store, live.id, scratch).await;
            store.close().await?;
            let copied = copied.map_err(|e| {
                anyhow::anyhow!("copying {name:?} from the {}: {e}", args.store.describe())
            })?;
            Ok((
                copied,
                format!(
                    "a copy of {:?} from the {}",
                    live.identifier,
                    args.store.describe()
                ),
            ))
        }
    }
}

pub fn run(args: DevArgs) -> ExitCode {
    if !args.dir.join("template.conf").is_file() {
        eprintln!("error: {} has no template.conf", args.dir.display());
        return ExitCode::from(2);
    }
    let content = match content(&args) {
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

/// The scratch store's folder, removed however `dev` ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn run_async(args: DevArgs, content: Content) -> anyhow::Result<()> {
    let scratch = Scratch(std::env::temp_dir().join(format!("tessera-dev-{}", std::process::id())));
    let _ = std::fs::remove_dir_all(&scratch.0);
    let store = tenants::Store::open(&tenants::StoreConfig::Embedded {
        data_dir: scratch.0.clone(),
    })
    .await?;
    let (tenant, described) = load_content(&args, &content, &store).await?;
    // The site's style settings: their tweaks go into the folder's LESS.
    let settings: Map<String, Value> = store.site_settings(tenant.id).await?.website_settings;
    let dev = crate::dev::Dev::new(tenant.id);
    // The folder's first version (or its problems, over the content's own template).
    crate::dev::rebuild(&store, &dev, &args.dir, &settings).await;
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    eprintln!(
        "tessera dev: {} with {described} on http://{}/ (any host name); saving a file reloads open pages",
        args.dir.display(),
        listener.local_addr()?
    );
    let watcher = crate::dev::watch(store.clone(), dev.clone(), args.dir.clone(), settings);
    let app = App::new(store.clone()).with_dev(dev);
    serve(listener, app, &Default::default()).await?;
    watcher.abort();
    store.close().await?;
    drop(scratch);
    Ok(())
}
