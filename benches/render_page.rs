//! Whole pages of the demo tenants rendered from cached state, as `tessera serve` does once
//! its caches are warm: the tenant's site content (bridged from the store) and its compiled
//! template folder are loaded once, then each iteration routes, assembles the page context,
//! runs the main-content template and the layout. Throughput is pages per second.
//!
//! The fixtures are imported into a throwaway embedded store first, so the state is exactly
//! what the server would hold.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use renderer::folder::{TemplateFiles, TemplateFolder};
use renderer::render::{Request, render};
use renderer::site::SiteContent;
use std::hint::black_box;
use tenants::{Store, StoreConfig};
use tessera_benches as _;

/// One tenant's cached state.
struct Cached {
    site: Arc<SiteContent>,
    folder: Arc<TemplateFolder>,
}

/// Imports `fixtures/<name>` into a fresh embedded store under `dir` and reads back the state
/// the server caches.
async fn load(dir: &Path, name: &str) -> Cached {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let store = Store::open(&StoreConfig::Embedded {
        data_dir: dir.join(name),
    })
    .await
    .expect("open the embedded store");
    let report =
        tenants::import::import_dir(&store, &root.join("fixtures").join(name), &mut |_| {})
            .await
            .expect("import the fixture");
    let tenant = report.tenant;
    let snapshot = store.site_content(tenant.id).await.expect("site content");
    let version = snapshot
        .tenant
        .template_version
        .expect("a template version");
    let files: TemplateFiles = store
        .template_files(tenant.id, version)
        .await
        .expect("template files")
        .into_iter()
        .map(|f| (f.path, f.content.into()))
        .collect();
    let folder = renderer::folder::load(&files);
    assert!(folder.problems.is_empty(), "{name}: {:?}", folder.problems);
    let settings = tenants::commerce::CommerceSettings::from_site(
        &snapshot.settings.website_settings,
        &snapshot.commerce_preferences,
    )
    .expect("commerce settings");
    let site = api::pages::site_bridge::site_content(
        &snapshot,
        Some(&settings),
        &"en-US".parse().expect("a locale"),
        &serde_json::Value::Null,
    );
    store.close().await.expect("close the store");
    Cached {
        site: Arc::new(site),
        folder: Arc::new(folder),
    }
}

/// The URL of the first item of collection `url_id`.
fn first_item(site: &SiteContent, url_id: &str) -> String {
    let (_, c) = site.collection(url_id).expect("collection");
    let item = c.items.first().expect("an item");
    let full = item.pointer(&["fullUrl"]).and_then(|n| n.as_str());
    full.map(str::to_string).unwrap_or_else(|| {
        let id = item.pointer(&["urlId"]).and_then(|n| n.as_str()).unwrap();
        format!("/{url_id}/{id}")
    })
}

fn render_page(c: &mut Criterion) {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("tessera-render-bench-{}", std::process::id()));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let store = rt.block_on(load(&dir, "loam-lantern"));
    let blog = rt.block_on(load(&dir, "skyward"));
    let business = rt.block_on(load(&dir, "quillback"));
    let _ = std::fs::remove_dir_all(&dir);

    let product = first_item(&store.site, "shop");
    let post = first_item(&blog.site, "notes");
    let pages: Vec<(&str, &Cached, String)> = vec![
        ("product-list", &store, "/shop".into()),
        ("product-item", &store, product),
        ("store-home", &store, "/".into()),
        ("blog-list", &blog, "/notes".into()),
        ("blog-item", &blog, post),
        ("business-page", &business, "/".into()),
    ];

    let mut g = c.benchmark_group("render_page");
    g.throughput(Throughput::Elements(1));
    for (name, cached, path) in &pages {
        let req = Request {
            path,
            ..Request::default()
        };
        // Every measured page must be a real, error-free page.
        let page = render(&cached.site, &cached.folder, &req);
        assert_eq!(page.status, 200, "{name} {path}");
        assert!(page.errors.is_empty(), "{name} {path}: {:?}", page.errors);
        assert!(
            page.body.len() > 1000,
            "{name} {path}: {} bytes",
            page.body.len()
        );
        g.bench_function(*name, |b| {
            b.iter(|| {
                render(black_box(&cached.site), &cached.folder, &req)
                    .body
                    .len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, render_page);
criterion_main!(benches);
