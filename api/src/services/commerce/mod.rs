//! The store's flows: checkout ([`checkout`]), numbering its orders ([`numbering`]) and
//! those left waiting ([`waiting`]), the context of an order's emails ([`confirmation`]),
//! and taking payment ([`payment`]); and what the server keeps for them ([`CommerceState`]).

pub mod checkout;
pub mod confirmation;
pub mod numbering;
pub mod payment;
pub mod sweeper;
pub mod waiting;

use std::sync::Arc;
use std::time::Duration;

use payment::{NoLiveProvider, PaymentProvider, TestProvider};

/// How long a cart holds its stock after its last change, unless `serve` is told otherwise.
pub const DEFAULT_CART_HOLD: Duration = Duration::from_secs(60 * 60);

/// How long a pay-later order waits for payment before it expires and gives its stock
/// back, unless `serve` is told otherwise (`--pay-later-expiry`): a week.
pub const DEFAULT_PAY_LATER_EXPIRY: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The commerce part of the server's state.
pub struct CommerceState {
    /// Cards of stores in test mode.
    pub test_payments: Arc<dyn PaymentProvider>,
    /// Cards of stores not in test mode.
    pub live_payments: Arc<dyn PaymentProvider>,
    /// How long an idle cart holds its stock.
    pub cart_hold: Duration,
    /// How long a pay-later order waits for payment.
    pub pay_later_expiry: Duration,
    /// Orders waiting for their numbers, per site.
    pub numbering: numbering::Numbering,
}

impl CommerceState {
    pub fn new(cart_hold: Duration) -> CommerceState {
        CommerceState {
            test_payments: Arc::new(TestProvider),
            live_payments: Arc::new(NoLiveProvider),
            cart_hold,
            pay_later_expiry: DEFAULT_PAY_LATER_EXPIRY,
            numbering: numbering::Numbering::default(),
        }
    }

    /// The card provider of a store in test mode (`test_mode`) or not, shared: for work
    /// that must go on after the request that started it is gone.
    pub fn payments_shared(&self, test_mode: bool) -> Arc<dyn PaymentProvider> {
        if test_mode {
            self.test_payments.clone()
        } else {
            self.live_payments.clone()
        }
    }

    /// The card provider of a store in test mode (`test_mode`) or not.
    pub fn payments(&self, test_mode: bool) -> &dyn PaymentProvider {
        if test_mode {
            self.test_payments.as_ref()
        } else {
            self.live_payments.as_ref()
        }
    }

    /// With pay-later orders expiring after `expiry` unpaid.
    pub fn with_pay_later_expiry(mut self, expiry: Duration) -> CommerceState {
        self.pay_later_expiry = expiry;
        self
    }
}

impl Default for CommerceState {
    fn default() -> Self {
        CommerceState::new(DEFAULT_CART_HOLD)
    }
}
