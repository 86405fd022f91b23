//! An order's emails as its numbering writes them ([`order_mail`]), and the sweep of orders
//! left waiting for their numbers ([`number_waiting_orders`]), which `serve` runs before it
//! takes requests and every minute after: a node that stopped between placing an order and
//! numbering it, or whose numbering failed, leaves the order stored under its provisional
//! number and hidden, and the sweep numbers, mails and captures it as its checkout would
//! have ([`super::numbering`]).

use super::confirmation::{confirmation_data, gift_card_data};
use super::numbering::{Mail, capture_numbered};
use crate::http::site::Site;
use crate::server::state::App;

/// What writes an order's emails, in the site's own templates: the buyer's confirmation,
/// the gift cards' codes to the recipient the buyer named, and the owner's notice when the
/// store sends one (`notifications`, on by default, to the
/// site's contact address unless it names another). Links in both are absolute, from the
/// site's origin the checkout came in on (`host`, `origin`: the call's, or as kept with an
/// order waiting for its number).
pub async fn order_mail(app: &App, site: &Site, host: &str, origin: &str) -> Mail {
    let folder = app.caches.folder(&app.store, site).await.ok().flatten();
    let composer = crate::email::Composer::new(folder, site, host.to_owned());
    let title = crate::email::site_title_of(site).to_owned();
    let origin = origin.to_owned();
    let notify = site.content.commerce.notifications.clone();
    let site = site.clone();
    Box::new(move |order: &tenants::Order| {
        let data = confirmation_data(order, &site, &title, &origin);
        let mut mail = vec![composer.email(
            crate::email::compose::ORDER_CONFIRMATION,
            &data,
            &order.customer_email,
            None,
        )];
        // The gift cards' codes, to the recipient the buyer named (the buyer has them in
        // the confirmation; a pay-later order's cards come with payment, on its page).
        if let Some(to) = order
            .details
            .gift_card_recipient
            .as_ref()
            .filter(|_| !order.gift_cards.is_empty())
        {
            let gift = gift_card_data(order, &site, &title, &origin);
            mail.push(composer.email(
                crate::email::compose::GIFT_CARD,
                &gift,
                &to.email,
                Some(order.customer_email.clone()),
            ));
        }
        if let Some(owner) = notify.order_email_to.filter(|_| notify.order_email) {
            mail.push(composer.email(
                crate::email::compose::ORDER_NOTIFICATION,
                &data,
                &owner,
                Some(order.customer_email.clone()),
            ));
        }
        mail
    })
}

/// Numbers the orders left waiting for their numbers (placed before `placed_before_ms`) by
/// a node that stopped between placing and numbering them, or whose numbering failed: each
/// gets its number and its emails (written for the site address its checkout came in on),
/// and its card payment is captured, as its checkout would have done. Numbered with the
/// site's other waiting orders ([`super::numbering`]); an order another node or sweep
/// numbers first is left to it. Returns how many this call numbered.
pub async fn number_waiting_orders(app: &App, placed_before_ms: i64) -> tenants::Result<u64> {
    let mut numbered = 0;
    for tenant in app
        .store
        .tenants_with_provisional_orders(placed_before_ms)
        .await?
    {
        for order in app
            .store
            .provisional_orders(tenant, placed_before_ms)
            .await?
        {
            let from = order.details.placed_from.clone();
            let site = match &from {
                Some(f) => crate::server::site::resolve(app, Some(f.host.clone()))
                    .await
                    .ok(),
                None => None,
            };
            let mail: Mail = match (site, from) {
                (Some(site), Some(f)) if site.tenant.id == tenant => {
                    order_mail(app, &site, &f.host, &f.origin).await
                }
                _ => {
                    // The site's address is gone (or never kept): numbered without emails
                    // rather than never; the owner finds it in the list.
                    tracing::warn!(%tenant, order = %order.id, "numbering a waiting order without its emails: its site address no longer finds the site");
                    Box::new(|_: &tenants::Order| Vec::new())
                }
            };
            let done = app
                .commerce
                .numbering
                .number(&app.store, tenant, order, mail)
                .await?;
            if !done.numbered_here {
                continue;
            }
            numbered += 1;
            app.outbox.nudge();
            capture_numbered(app.commerce.payments(done.order.test_mode), tenant, &done).await;
        }
    }
    Ok(numbered)
}
