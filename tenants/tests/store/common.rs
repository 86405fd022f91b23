//! Test environments: a fresh store on each backend, and the macro that runs one test
//! function on both.

use std::path::PathBuf;

use tenants::commerce::CommerceSettings;
use tenants::testing::PgServer;
use tenants::{
    Backend, Checkout, Order, PaymentMethod, Store, StoreConfig, TenantId, WebsiteStatus,
};

/// A temporary directory removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!(
            "tessera-test-{tag}-{}-{}",
            std::process::id(),
            tenants::new_id()
        ));
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A store on a fresh, empty, migrated database.
pub struct Env {
    pub store: Store,
    pub config: StoreConfig,
    _dir: Option<TempDir>,
}

impl Env {
    pub async fn sqlite() -> Env {
        let dir = TempDir::new("sqlite");
        let config = StoreConfig::Embedded {
            data_dir: dir.0.clone(),
        };
        let store = Store::open(&config).await.expect("open embedded store");
        assert_eq!(store.backend(), Backend::Sqlite);
        Env {
            store,
            config,
            _dir: Some(dir),
        }
    }

    pub async fn postgres() -> Env {
        let url = PgServer::shared().create_database();
        let config = StoreConfig::Postgres { url };
        let store = Store::open(&config).await.expect("open postgres store");
        assert_eq!(store.backend(), Backend::Postgres);
        Env {
            store,
            config,
            _dir: None,
        }
    }

    /// A second, independent store handle on the same database (another "node").
    pub async fn another_node(&self) -> Store {
        Store::open(&self.config).await.expect("open second handle")
    }

    /// A tenant with one domain `<identifier>.example`.
    pub async fn tenant(&self, identifier: &str) -> TenantId {
        let t = self
            .store
            .create_tenant(
                identifier,
                &format!("Site {identifier}"),
                WebsiteStatus::Paid,
            )
            .await
            .unwrap();
        self.store
            .add_domain(t.id, &format!("{identifier}.example"), true)
            .await
            .unwrap();
        t.id
    }
}

/// Declares `sqlite::<name>` and `postgres::<name>` tests for each async fn
/// `<name>(env: Env)` in the calling module.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    super::$name($crate::common::Env::sqlite().await).await
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    super::$name($crate::common::Env::postgres().await).await
                }
            )*
        }
    };
}

/// A test-mode card payment.
pub fn card() -> PaymentMethod {
    PaymentMethod::Card {
        brand: "Visa".into(),
        last4: "4242".into(),
        reference: "test".into(),
    }
}

/// A checkout of `cart` in a store with no commerce settings (no shipping charge, no tax),
/// shipping to a US address, paid by card for whatever it costs.
pub async fn buy(store: &Store, t: TenantId, cart: &str, email: &str) -> tenants::Result<Order> {
    let settings = CommerceSettings::plain("USD");
    let address = tenants::Address {
        first_name: "Test".into(),
        last_name: "Buyer".into(),
        line1: "1 Main St".into(),
        city: "Town".into(),
        postal_code: "12345".into(),
        country: "US".into(),
        ..Default::default()
    };
    checkout_with(store, t, cart, email, &settings, Some(address)).await
}

/// A checkout under `settings`, shipping to `address` when given, paid by card for the
/// quoted amount.
pub async fn checkout_with(
    store: &Store,
    t: TenantId,
    cart: &str,
    email: &str,
    settings: &CommerceSettings,
    address: Option<tenants::Address>,
) -> tenants::Result<Order> {
    let terms = tenants::CheckoutTerms {
        shipping_address: address,
        now_ms: tenants::now_ms(),
        ..Default::default()
    };
    let quote = store.quote_checkout(t, cart, settings, &terms).await?;
    store
        .place_order(
            t,
            cart,
            &Checkout {
                settings,
                terms,
                customer_email: email.into(),
                expected_total_minor: Some(quote.totals.grand_total_minor),
                charge_minor: quote.charge_minor,
                payment: card(),
                test_mode: true,
                time_zone: "UTC",
            },
        )
        .await
}

/// Refunds `amount_minor` of a paid order as `actor`, the provider accepting it with
/// `reference`: the order after the refund.
pub async fn refund(
    store: &Store,
    t: TenantId,
    order_id: &str,
    amount_minor: i64,
    reference: &str,
    actor: &str,
) -> Order {
    let (_, refund) = store
        .begin_refund(
            t,
            order_id,
            &tenants::commerce::order_state::RefundRequest::Amount(amount_minor),
            "",
        )
        .await
        .unwrap();
    store
        .finish_refund(
            t,
            order_id,
            &refund.id,
            Ok(reference.into()),
            actor,
            &tenants::no_order_mail,
        )
        .await
        .unwrap()
}
