//! Numbering orders in groups, per site: a checkout commits its order under a provisional
//! number ([`tenants::Store::place_order_provisional`]) and hands it here; whichever of a
//! site's waiting checkouts gets the site's turn first numbers every order waiting at that
//! moment in one transaction ([`tenants::Store::number_orders`]: the counter locked, the
//! numbers given in the order the orders were handed in, their emails written with them,
//! one commit), then each checkout answers with its numbered order. The placing
//! transactions of one site no longer wait for each other, and one WAL flush numbers the
//! group, where numbering inside each order's transaction held the site's counter through
//! one flush per order.
//!
//! Nothing is answered before its number and emails are committed. An order whose numbering
//! failed, or whose node stopped before it, stays stored and hidden until a sweep
//! ([`super::waiting::number_waiting_orders`], at `serve`'s start and every minute) numbers
//! it; two nodes or sweeps numbering the same order number it once
//! ([`tenants::Numbered::numbered_here`] says which one did, and only that one captures its
//! payment: [`capture_numbered`], for checkouts and sweeps alike).
//!
//! A site's queue lives while orders of the site are being numbered on this node: the
//! last checkout of a group to finish forgets a queue left idle, so the map holds the
//! sites with orders in hand, not every site that ever had one.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tenants::{Email, Numbered, Order, PaymentMethod, Store, StoreError, TenantId};
use tokio::sync::oneshot;

use super::payment::{Authorization, PaymentProvider};

/// What writes an order's emails once it has its number.
pub type Mail = Box<dyn FnOnce(&Order) -> Vec<Email> + Send>;

/// One order waiting for its number, and its checkout waiting for the answer.
struct Waiting {
    order: Order,
    mail: Mail,
    done: oneshot::Sender<Result<Numbered, String>>,
}

/// A site's queue: the orders handed in and not yet taken, and the turn to number them.
#[derive(Default)]
struct SiteQueue {
    waiting: Mutex<Vec<Waiting>>,
    turn: Arc<tokio::sync::Mutex<()>>,
}

/// The node's numbering queues, one per site with orders being numbered (made when one is
/// handed in, forgotten when idle); cloned handles share them.
#[derive(Clone, Default)]
pub struct Numbering {
    sites: Arc<Mutex<HashMap<TenantId, Arc<SiteQueue>>>>,
}

impl Numbering {
    /// Numbers `order` (placed under a provisional number), with the others of its site
    /// waiting now, and answers it numbered once the number and its emails are committed.
    pub async fn number(
        &self,
        store: &Store,
        tenant: TenantId,
        order: Order,
        mail: Mail,
    ) -> tenants::Result<Numbered> {
        let site = self
            .sites
            .lock()
            .expect("numbering queues")
            .entry(tenant)
            .or_default()
            .clone();
        let (done, answer) = oneshot::channel();
        site.waiting
            .lock()
            .expect("numbering queue")
            .push(Waiting { order, mail, done });
        // The site's turn: whoever has it takes every order waiting, its own among them
        // unless an earlier turn took that already (its answer is then on the way).
        let turn = site.turn.clone().lock_owned().await;
        let group = std::mem::take(&mut *site.waiting.lock().expect("numbering queue"));
        if group.is_empty() {
            drop(turn);
        } else {
            let store = store.clone();
            // A task of its own, holding the turn: a checkout whose client went away does
            // not take the group's transaction (and the other checkouts' answers) with it.
            let group = tokio::spawn(async move {
                let _turn = turn;
                number_group(&store, tenant, group).await;
            });
            if let Err(e) = group.await {
                tracing::error!(%tenant, error = %e, "numbering a group of orders stopped");
            }
        }
        let answer = answer.await;
        self.forget_if_idle(tenant, site);
        answer
            .map_err(|_| StoreError::Io("numbering the order stopped".into()))?
            .map_err(StoreError::Io)
    }

    /// Drops `tenant`'s queue from the map when nothing uses it: no order waiting, no turn
    /// held or waited for, no other checkout holding the queue (`site` is the caller's
    /// handle). Handles are only taken under the map's lock, held here, so none can appear
    /// meanwhile; a checkout that comes later makes a new queue.
    fn forget_if_idle(&self, tenant: TenantId, site: Arc<SiteQueue>) {
        let mut sites = self.sites.lock().expect("numbering queues");
        let idle = Arc::strong_count(&site) == 2
            && Arc::strong_count(&site.turn) == 1
            && site.waiting.lock().expect("numbering queue").is_empty()
            && sites.get(&tenant).is_some_and(|s| Arc::ptr_eq(s, &site));
        // Let go of it under the lock: of two checkouts finishing at once, the second to
        // get here then sees the first one's handle gone.
        drop(site);
        if idle {
            sites.remove(&tenant);
        }
    }

    /// How many sites' queues the map holds.
    #[cfg(test)]
    fn queues(&self) -> usize {
        self.sites.lock().expect("numbering queues").len()
    }
}

/// Captures the card payment of an order this node numbered (`numbered_here`), with the
/// authorisation its checkout stored on it: the checkout's flow and the sweep of waiting
/// orders both capture this way, and only the one that numbered the order does. A capture
/// that fails is logged; the order stands (the owner sees the payment reference and
/// settles it).
pub async fn capture_numbered(payments: &dyn PaymentProvider, tenant: TenantId, done: &Numbered) {
    if !done.numbered_here {
        return;
    }
    if let PaymentMethod::Card {
        brand,
        last4,
        reference,
    } = &done.order.details.payment
    {
        let auth = Authorization {
            reference: reference.clone(),
            brand: brand.clone(),
            last4: last4.clone(),
        };
        if let Err(e) = payments.capture(&auth).await {
            tracing::error!(%tenant, order = %done.order.id, ?e, "capturing a payment failed");
        }
    }
}

/// Numbers one group in one transaction and answers each of its checkouts.
async fn number_group(store: &Store, tenant: TenantId, group: Vec<Waiting>) {
    let (orders, dones): (Vec<_>, Vec<_>) = group
        .into_iter()
        .map(|w| ((w.order, w.mail), w.done))
        .unzip();
    match store.number_orders(tenant, orders).await {
        Ok(numbered) if numbered.len() == dones.len() => {
            for (n, done) in numbered.into_iter().zip(dones) {
                let _ = done.send(Ok(n));
            }
        }
        Ok(_) => {
            for done in dones {
                let _ = done.send(Err("numbering answered another count of orders".into()));
            }
        }
        Err(e) => {
            tracing::warn!(%tenant, error = %e, "numbering orders failed; the sweep numbers them");
            let e = e.to_string();
            for done in dones {
                let _ = done.send(Err(e.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::payment::{Charge, Pending, Refund};
    use super::*;
    use tenants::commerce::CommerceSettings;

    /// Captures recorded, by reference; nothing else is expected of it.
    #[derive(Default)]
    struct Recording(Mutex<Vec<String>>);

    impl PaymentProvider for Recording {
        fn authorize<'a>(
            &'a self,
            _: &'a Charge,
        ) -> Pending<'a, Result<Authorization, super::super::payment::PaymentError>> {
            unreachable!("nothing is authorised here")
        }
        fn capture<'a>(
            &'a self,
            auth: &'a Authorization,
        ) -> Pending<'a, Result<(), super::super::payment::PaymentError>> {
            self.0.lock().unwrap().push(auth.reference.clone());
            Box::pin(async { Ok(()) })
        }
        fn void<'a>(&'a self, _: &'a Authorization) -> Pending<'a, ()> {
            unreachable!("nothing is voided here")
        }
        fn refund<'a>(
            &'a self,
            _: &'a Refund,
        ) -> Pending<'a, Result<String, super::super::payment::PaymentError>> {
            unreachable!("nothing is refunded here")
        }
    }

    /// An order of one loam-lantern item (sold without a stock count) placed under a provisional number, paid by card
    /// with the reference `reference`.
    async fn waiting_order(store: &Store, tenant: TenantId, reference: &str) -> Order {
        let settings = CommerceSettings::plain("USD");
        let cart = store.create_cart(tenant).await.unwrap();
        let add = tenants::AddToCart {
            item_id: "d943b71f287190aa8f546e83".into(),
            sku: "SPM-1".into(),
            quantity: 1,
            ..Default::default()
        };
        store.add_to_cart(tenant, &cart.id, &add).await.unwrap();
        let terms = tenants::CheckoutTerms {
            shipping_address: Some(tenants::Address {
                first_name: "Ada".into(),
                last_name: "Lovelace".into(),
                line1: "1 Main St".into(),
                city: "Town".into(),
                postal_code: "12345".into(),
                country: "US".into(),
                ..Default::default()
            }),
            now_ms: tenants::now_ms(),
            ..Default::default()
        };
        let quote = store
            .quote_checkout(tenant, &cart.id, &settings, &terms)
            .await
            .unwrap();
        let checkout = tenants::Checkout {
            settings: &settings,
            terms,
            customer_email: "ada@example.com".into(),
            expected_total_minor: None,
            charge_minor: quote.charge_minor,
            payment: PaymentMethod::Card {
                brand: "Visa".into(),
                last4: "4242".into(),
                reference: reference.into(),
            },
            test_mode: true,
            time_zone: "UTC",
        };
        store
            .place_order_provisional(tenant, &cart.id, &checkout, None)
            .await
            .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn orders_numbered_at_once_are_captured_once_and_their_queue_is_forgotten() {
        let site = crate::testing::EmbeddedSite::open("loam-lantern", "numbering").await;
        let (store, tenant) = (site.store.clone(), site.tenant);
        let numbering = Numbering::default();
        let payments = Arc::new(Recording::default());
        for round in 0..2 {
            let mut checkouts = Vec::new();
            for i in 0..6 {
                let order = waiting_order(&store, tenant, &format!("ref-{round}-{i}")).await;
                let (store, numbering, payments) =
                    (store.clone(), numbering.clone(), payments.clone());
                checkouts.push(tokio::spawn(async move {
                    let done = numbering
                        .number(&store, tenant, order, Box::new(|_: &Order| Vec::new()))
                        .await
                        .unwrap();
                    capture_numbered(payments.as_ref(), tenant, &done).await;
                    done
                }));
            }
            let mut numbers = Vec::new();
            for c in checkouts {
                let done = c.await.unwrap();
                assert!(done.numbered_here);
                numbers.push(done.order.order_number);
            }
            numbers.sort();
            let first = numbers[0];
            assert!(first > 0);
            assert_eq!(numbers, (first..first + 6).collect::<Vec<_>>());
            // Every checkout has its answer: nothing of the site is in hand any more.
            assert_eq!(numbering.queues(), 0, "round {round}");
            let mut captured = payments.0.lock().unwrap().clone();
            captured.sort();
            let mut expected: Vec<String> = (0..=round)
                .flat_map(|r| (0..6).map(move |i| format!("ref-{r}-{i}")))
                .collect();
            expected.sort();
            assert_eq!(captured, expected);
        }
        // An order numbered elsewhere first is not captured here.
        let order = waiting_order(&store, tenant, "ref-elsewhere").await;
        let mut numbered = store
            .number_orders(tenant, vec![(order, |_: &Order| Vec::new())])
            .await
            .unwrap();
        let mut done = numbered.pop().unwrap();
        done.numbered_here = false;
        capture_numbered(payments.as_ref(), tenant, &done).await;
        assert_eq!(payments.0.lock().unwrap().len(), 12);
        site.close().await;
    }
}
