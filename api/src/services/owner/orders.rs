//! The owner's moves on an order: "Mark as paid", "Mark as fulfilled", "Cancel order",
//! "Refund" and "Resend confirmation". The store applies the state machine
//! ([`tenants::commerce::order_state`]) and puts each move's emails in the outbox in the
//! move's transaction; this module adds what lies outside the store: the payment provider,
//! asked between the two steps of a refund (and before cancelling a paid order, which
//! gives back what is left of its charge first).

use tenants::commerce::order_state::{Illegal, RefundRequest};
use tenants::{Order, OrderMail, PaymentMethod, RestockNotice, Store, StoreError, TenantId};

use crate::services::commerce::payment::{PaymentError, PaymentProvider, Refund};

/// Why a move was not made.
#[derive(Debug, thiserror::Error)]
pub enum OrderMoveError {
    /// No such order on this site.
    #[error("no such order")]
    NotFound,
    /// The order's state does not allow it (the message names the state).
    #[error("{0}")]
    Illegal(Illegal),
    /// A value the store refuses (too long, a control character).
    #[error("{0}")]
    Invalid(String),
    /// The payment provider did not give the money back; nothing was refunded.
    #[error("the payment provider did not refund: {0}")]
    Provider(String),
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for OrderMoveError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(_) => OrderMoveError::NotFound,
            StoreError::Illegal(i) => OrderMoveError::Illegal(i),
            StoreError::Invalid(m) => OrderMoveError::Invalid(m),
            e => OrderMoveError::Store(e),
        }
    }
}

/// Who acts, and where: what every move needs.
pub struct Mover<'a> {
    pub store: &'a Store,
    pub tenant: TenantId,
    /// The owner's email or the token's name, for the history.
    pub actor: &'a str,
}

/// "Refund": checks and reserves the amount, asks the provider of the order's payment
/// (`payments`: the test provider for test-mode orders), and records its answer. A
/// pay-later payment is refunded by the owner outside the store: it is recorded as given
/// back with the reference `manual`. `Provider` when the provider refused (the amount is
/// refundable again, and the history says so).
pub async fn refund(
    m: &Mover<'_>,
    payments: &dyn PaymentProvider,
    order_id: &str,
    request: &RefundRequest,
    reason: &str,
    mail: OrderMail<'_>,
) -> Result<Order, OrderMoveError> {
    let (order, pending) = m
        .store
        .begin_refund(m.tenant, order_id, request, reason)
        .await?;
    let outcome = match &order.details.payment {
        PaymentMethod::Card { reference, .. } => payments
            .refund(&Refund {
                payment_reference: reference.clone(),
                amount_minor: pending.amount_minor,
                currency: order.currency.clone(),
                description: format!("Refund of order #{}", order.order_number),
            })
            .await
            .map_err(|e| match e {
                PaymentError::Invalid { message, .. }
                | PaymentError::Declined(message)
                | PaymentError::Unavailable(message) => message,
            }),
        PaymentMethod::Manual { .. } | PaymentMethod::None => Ok("manual".to_owned()),
    };
    let failed = outcome.as_ref().err().cloned();
    let order = m
        .store
        .finish_refund(m.tenant, order_id, &pending.id, outcome, m.actor, mail)
        .await?;
    match failed {
        Some(message) => Err(OrderMoveError::Provider(message)),
        None => Ok(order),
    }
}

/// "Cancel order": a paid order first gets back what is left of its charge (through the
/// provider, with `refund_mail`), then it is cancelled: units not shipped back to stock
/// (a variant that comes back from sold out sends its restock notices when `notice` is
/// given), the gift-card part back on the card, the subscriptions it started cancelled
/// (`cancel_mail`).
pub async fn cancel(
    m: &Mover<'_>,
    payments: &dyn PaymentProvider,
    order_id: &str,
    refund_mail: OrderMail<'_>,
    cancel_mail: OrderMail<'_>,
    notice: Option<&RestockNotice<'_>>,
) -> Result<Order, OrderMoveError> {
    let order = m
        .store
        .order(m.tenant, order_id)
        .await?
        .ok_or(OrderMoveError::NotFound)?;
    // Refused before any money moves when the order cannot be cancelled.
    tenants::commerce::order_state::check(
        &order.state(),
        tenants::commerce::order_state::Action::Cancel,
    )
    .map_err(OrderMoveError::Illegal)?;
    let left = order.charged_minor() - order.refunded_minor;
    if order.status.was_paid() && left > 0 {
        refund(
            m,
            payments,
            order_id,
            &RefundRequest::Amount(left),
            "Order cancelled",
            refund_mail,
        )
        .await?;
    }
    Ok(m.store
        .cancel_order_notifying(m.tenant, order_id, m.actor, cancel_mail, notice)
        .await?)
}
