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
//! ([`crate::routes::commerce::checkout::number_waiting_orders`], at `serve`'s start and
//! every minute) numbers it; two nodes or sweeps numbering the same order number it once
//! ([`tenants::Numbered::numbered_here`] says which one did, and only that one captures its
//! payment).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tenants::{Email, Numbered, Order, Store, StoreError, TenantId};
use tokio::sync::oneshot;

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

/// The node's numbering queues, one per site (made on a site's first order); cloned
/// handles share them.
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
        answer
            .await
            .map_err(|_| StoreError::Io("numbering the order stopped".into()))?
            .map_err(StoreError::Io)
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
