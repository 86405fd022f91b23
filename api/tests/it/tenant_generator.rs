//! The tenant generator of the tenant-scale benchmark (`tenants::generate`, run by
//! `benches/tenant-scale.sh` through `gen-tenants`) writes tenants that the real server
//! serves, on both backends; and tenants sharing a template design share its compiled
//! folder without one tenant's own upload leaking into another's pages.

use std::time::{Duration, Instant};

use crate::support::{Backend, Server, get, root};
use tenants::generate::{Design, design_of, generate, host};

/// The designs in the order `gen-tenants` uses (`tessera_benches::SCALE_DESIGNS`).
const DESIGNS: [&str; 4] = ["loam-lantern", "skyward", "quillback", "harbor-lane"];

/// A page of `host`, waiting (up to 10 s) for the server to see tenants written by another
/// handle: the embedded store re-checks every 250 ms, PostgreSQL notifies.
fn page_once_served(port: u16, host: &str, path: &str) -> crate::support::Response {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let r = get(port, host, path);
        if r.status == 200 || Instant::now() > until {
            return r;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn generated_tenants_serve_their_pages(backend: Backend) {
    let server = Server::start(backend, &[]);
    let designs: Vec<Design> = DESIGNS
        .iter()
        .map(|d| {
            Design::load(&root().join("fixtures").join(d), &api::styles::import_build).unwrap()
        })
        .collect();
    let pages: Vec<_> = designs.iter().map(Design::pages).collect();
    server.with_store(move |store| {
        Box::pin(async move {
            let mut batches = Vec::new();
            generate(store, &designs, 1..=5, 2, &mut |last| batches.push(last))
                .await
                .unwrap();
            assert_eq!(batches, [2, 4, 5], "two tenants per transaction");
        })
    });
    let mut homes = Vec::new();
    for i in 1..=5 {
        let h = host(i);
        let home = page_once_served(server.port, &h, "/");
        assert_eq!(home.status, 200, "{h}: {}", home.body);
        for page in &pages[design_of(i, DESIGNS.len())] {
            let r = get(server.port, &h, &page.path);
            assert_eq!(r.status, 200, "{h}{}: {}", page.path, r.body);
        }
        homes.push(home.body);
    }
    // Tenants 1 and 5 are both copies of the store design, with their own names.
    let title = |body: &str| {
        let start = body.find("<title>").unwrap() + "<title>".len();
        body[start..start + body[start..].find("</title>").unwrap()].to_owned()
    };
    assert_ne!(title(&homes[0]), title(&homes[4]));
    // An unknown host in the same domain is still unknown.
    assert_eq!(get(server.port, &host(6), "/").status, 404);

    // A new tenant on a design the server has compiled is served from that compiled folder
    // found by the hash stored with its template version, without reading its files: with
    // its files deleted behind the store's back, its pages still render, with its name.
    let designs: Vec<Design> = DESIGNS
        .iter()
        .map(|d| {
            Design::load(&root().join("fixtures").join(d), &api::styles::import_build).unwrap()
        })
        .collect();
    server.with_store(move |store| {
        Box::pin(async move {
            generate(store, &designs, 9..=9, 1, &mut |_| {})
                .await
                .unwrap()
        })
    });
    assert_eq!(design_of(9, DESIGNS.len()), design_of(1, DESIGNS.len()));
    server.raw_sql(
        "DELETE FROM template_file WHERE tenant_id = (SELECT id FROM tenant WHERE identifier = 't00009')",
    );
    let nine = page_once_served(server.port, &host(9), "/");
    assert_eq!(nine.status, 200, "{}", nine.body);
    assert_ne!(title(&nine.body), title(&homes[0]));

    // Tenant 5 uploads its own template (the store design with a changed footer): its pages
    // show it, while tenant 1, which shared the compiled folder, keeps the design's.
    server.with_store(|store| {
        Box::pin(async {
            let t5 = store.tenant_by_identifier("t00005").await.unwrap().unwrap();
            let version = t5.template_version.unwrap();
            let mut files = store.template_files(t5.id, version).await.unwrap();
            let footer = files
                .iter_mut()
                .find(|f| f.path == "regions/footer.region")
                .unwrap();
            let text = String::from_utf8(footer.content.clone()).unwrap();
            footer.content = text
                .replacen("</body>", "<p>Own footer of t00005</p></body>", 1)
                .into_bytes();
            store.put_template_version(t5.id, &files).await.unwrap();
        })
    });
    let until = Instant::now() + Duration::from_secs(10);
    while !get(server.port, &host(5), "/")
        .body
        .contains("Own footer of t00005")
    {
        assert!(Instant::now() < until, "tenant 5's upload was never served");
        std::thread::sleep(Duration::from_millis(100));
    }
    let one = get(server.port, &host(1), "/");
    assert_eq!(one.status, 200);
    assert!(!one.body.contains("Own footer"), "{}", one.body);
}

on_both_backends!(generated_tenants_serve_their_pages);
