//! Storage benchmarks on both backends: tenant-by-host lookup (cached, and through the
//! database with caching off) and a cart add (stock check + entry upsert in one
//! transaction). The PostgreSQL runs use a throwaway server from `tenants::testing`.
//!
//! `cargo bench -p tenants --bench store`

use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use tenants::testing::PgServer;
use tenants::{
    AddToCart, Collection, Item, Store, StoreConfig, StoreOptions, TenantId, Variant, WebsiteStatus,
};

struct Bench {
    name: &'static str,
    store: Store,
    uncached: Store,
    tenant: TenantId,
    item: String,
}

async fn setup(name: &'static str, config: StoreConfig) -> Bench {
    let store = Store::open(&config).await.unwrap();
    let uncached = Store::open_with(
        &config,
        StoreOptions {
            cache_ttl: Duration::ZERO,
            ..StoreOptions::default()
        },
    )
    .await
    .unwrap();
    // Some tenants so the lookup is not against a one-row table.
    let mut tenant = TenantId(0);
    for i in 0..200 {
        let t = store
            .create_tenant(&format!("site-{i}"), "Bench", WebsiteStatus::Paid)
            .await
            .unwrap();
        store
            .add_domain(t.id, &format!("site-{i}.bench.test"), true)
            .await
            .unwrap();
        tenant = t.id;
    }
    let c: Collection = serde_json::from_value(
        serde_json::json!({"urlId": "shop", "title": "Shop", "type": 13, "typeName": "products"}),
    )
    .unwrap();
    let cid = store.put_collection(tenant, &c).await.unwrap();
    let mut item: Item = serde_json::from_value(
        serde_json::json!({"urlId": "gift", "title": "Gift", "recordType": 11}),
    )
    .unwrap();
    item.collection_id = cid;
    item.variants = vec![Variant {
        sku: "GIFT".into(),
        attributes: Default::default(),
        currency: "USD".into(),
        price_minor: 2500,
        sale_price_minor: 0,
        on_sale: false,
        qty_in_stock: 0,
        unlimited: true,
        weight_grams: 0,
    }];
    let item = store.put_item(tenant, &item).await.unwrap();
    Bench {
        name,
        store,
        uncached,
        tenant,
        item,
    }
}

fn benches(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let data = std::env::temp_dir().join(format!("tessera-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data);
    let pg = PgServer::start();
    let runs = rt.block_on(async {
        vec![
            setup(
                "sqlite",
                StoreConfig::Embedded {
                    data_dir: data.clone(),
                },
            )
            .await,
            setup(
                "postgres",
                StoreConfig::Postgres {
                    url: pg.create_database(),
                },
            )
            .await,
        ]
    });

    let mut g = c.benchmark_group("tenant_by_host");
    g.sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for b in &runs {
        g.bench_function(format!("{}/cached", b.name), |bench| {
            bench.iter(|| {
                rt.block_on(b.store.tenant_by_host("SITE-150.bench.test:443"))
                    .unwrap()
                    .unwrap()
            })
        });
        g.bench_function(format!("{}/database", b.name), |bench| {
            bench.iter(|| {
                rt.block_on(b.uncached.tenant_by_host("site-150.bench.test"))
                    .unwrap()
                    .unwrap()
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("cart_add");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for b in &runs {
        g.bench_function(b.name, |bench| {
            bench.iter_batched(
                || rt.block_on(b.store.create_cart(b.tenant)).unwrap().id,
                |cart| {
                    let add = AddToCart {
                        item_id: b.item.clone(),
                        sku: "GIFT".into(),
                        quantity: 1,
                        additional_fields: None,
                        ..Default::default()
                    };
                    rt.block_on(b.store.add_to_cart(b.tenant, &cart, &add))
                        .unwrap()
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
    // The stores must close inside the runtime (SQLite connections close on its blocking pool).
    rt.block_on(async move {
        for b in runs {
            b.uncached.close().await.unwrap();
            b.store.close().await.unwrap();
        }
    });
    let _ = std::fs::remove_dir_all(&data);
}

criterion_group!(store, benches);
criterion_main!(store);
