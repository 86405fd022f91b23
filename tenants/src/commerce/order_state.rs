//! An order's state machine, as plain functions: what the owner may do to an order in each
//! state, and why not (the message the owner reads).
//!
//! An order has three parts of state:
//! * **payment**: `awaiting-payment → paid` (Mark as paid), `awaiting-payment → expired`
//!   (the expiry sweep), `paid → partially-refunded → refunded` (Refund);
//! * **fulfilment**: `unfulfilled → partially-fulfilled → fulfilled`, by line and quantity,
//!   for the lines that ship (physical products); an order with none is `not-required`
//!   (digital files, services and gift cards are delivered on payment);
//! * **cancelled**: a flag. Any order that is not delivered yet may be cancelled: its
//!   unshipped units go back to stock, and a paid one is refunded what is left first.
//!
//! [`check`] says whether an [`Action`] is legal in a [`State`]; [`allowed`] lists the legal
//! ones. The amounts and quantities an action names are checked by [`check_fulfilment`] and
//! [`refund_amount`].

use std::fmt;

use serde::{Deserialize, Serialize};

use super::pricing::product_type;

/// Where an order's payment stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Payment {
    /// Placed with a pay-later method; delivered once the owner marks it paid.
    AwaitingPayment,
    /// Paid: gift cards are issued, subscriptions started, downloads open.
    Paid,
    /// Paid, and part of the charge given back.
    PartiallyRefunded,
    /// Paid, and all of the charge given back.
    Refunded,
    /// A pay-later order not paid in time: its units went back on sale.
    Expired,
}

impl Payment {
    /// The stored and JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Payment::AwaitingPayment => "awaiting-payment",
            Payment::Paid => "paid",
            Payment::PartiallyRefunded => "partially-refunded",
            Payment::Refunded => "refunded",
            Payment::Expired => "expired",
        }
    }

    /// From [`Payment::as_str`]'s spelling.
    pub fn parse(s: &str) -> Option<Payment> {
        Some(match s {
            "awaiting-payment" => Payment::AwaitingPayment,
            "paid" => Payment::Paid,
            "partially-refunded" => Payment::PartiallyRefunded,
            "refunded" => Payment::Refunded,
            "expired" => Payment::Expired,
            _ => return None,
        })
    }

    /// Money was taken (and not all of it necessarily given back).
    pub fn was_paid(self) -> bool {
        matches!(
            self,
            Payment::Paid | Payment::PartiallyRefunded | Payment::Refunded
        )
    }
}

/// Where an order's shipping stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fulfilment {
    /// Nothing shipped yet.
    Unfulfilled,
    /// Some units shipped.
    PartiallyFulfilled,
    /// Every unit that ships has shipped.
    Fulfilled,
    /// Nothing in it ships.
    NotRequired,
}

impl Fulfilment {
    /// The stored and JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Fulfilment::Unfulfilled => "unfulfilled",
            Fulfilment::PartiallyFulfilled => "partially-fulfilled",
            Fulfilment::Fulfilled => "fulfilled",
            Fulfilment::NotRequired => "not-required",
        }
    }

    /// From [`Fulfilment::as_str`]'s spelling.
    pub fn parse(s: &str) -> Option<Fulfilment> {
        Some(match s {
            "unfulfilled" => Fulfilment::Unfulfilled,
            "partially-fulfilled" => Fulfilment::PartiallyFulfilled,
            "fulfilled" => Fulfilment::Fulfilled,
            "not-required" => Fulfilment::NotRequired,
            _ => return None,
        })
    }
}

/// An order's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    /// Its payment.
    pub payment: Payment,
    /// Its shipping.
    pub fulfilment: Fulfilment,
    /// It was cancelled.
    pub cancelled: bool,
    /// What the payment method was charged, minor units (the grand total less what gift
    /// cards paid).
    pub charged_minor: i64,
    /// What was given back of it.
    pub refunded_minor: i64,
}

/// What the owner does to an order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// "Mark as paid".
    MarkPaid,
    /// "Mark as fulfilled".
    Fulfil,
    /// "Cancel order".
    Cancel,
    /// "Refund".
    Refund,
    /// "Resend confirmation".
    ResendConfirmation,
}

impl Action {
    /// Every action, in the order the app offers them.
    pub const ALL: [Action; 5] = [
        Action::MarkPaid,
        Action::Fulfil,
        Action::Cancel,
        Action::Refund,
        Action::ResendConfirmation,
    ];

    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Action::MarkPaid => "mark-paid",
            Action::Fulfil => "fulfil",
            Action::Cancel => "cancel",
            Action::Refund => "refund",
            Action::ResendConfirmation => "resend-confirmation",
        }
    }
}

/// Why a move is refused; [`fmt::Display`] is the owner's message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Illegal {
    /// Marking paid an order that is paid.
    AlreadyPaid,
    /// Shipping or refunding an order awaiting payment.
    NotPaid,
    /// Any move on an expired order.
    Expired,
    /// Any move on a cancelled order.
    Cancelled,
    /// Shipping or cancelling a delivered order.
    AlreadyFulfilled,
    /// Shipping an order of which nothing ships.
    NothingToShip,
    /// Refunding (or shipping) an order refunded in full.
    AlreadyRefunded,
    /// Refunding an order of which nothing was charged (gift cards paid it all).
    NothingCharged,
    /// A line the request names is not in the order.
    NoSuchLine(i64),
    /// A line that does not ship (a digital file, a service, a gift card).
    LineDoesNotShip(i64),
    /// More units than the line has left to ship (what is left).
    TooManyToShip {
        /// The line.
        position: i64,
        /// Its units left to ship.
        left: i64,
    },
    /// More units than the line has left to refund (what is left).
    TooManyToRefund {
        /// The line.
        position: i64,
        /// Its units left to refund.
        left: i64,
    },
    /// A quantity below 1.
    BadQuantity,
    /// No line named.
    NoLines,
    /// A refund amount below 1 minor unit.
    BadAmount,
    /// More than is left to refund (what is left, minor units).
    MoreThanCharged {
        /// What is left to refund, minor units.
        left_minor: i64,
    },
    /// Cancelling a paid order whose charge is not all given back.
    RefundFirst,
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::AlreadyPaid => f.write_str("This order is already paid."),
            Illegal::NotPaid => {
                f.write_str("This order is awaiting payment: mark it as paid first.")
            }
            Illegal::Expired => f.write_str("This order expired unpaid."),
            Illegal::Cancelled => f.write_str("This order is cancelled."),
            Illegal::AlreadyFulfilled => f.write_str("This order is already fulfilled."),
            Illegal::NothingToShip => f.write_str("Nothing in this order ships."),
            Illegal::AlreadyRefunded => f.write_str("This order is already refunded."),
            Illegal::NothingCharged => f.write_str("Nothing was charged for this order."),
            Illegal::NoSuchLine(p) => write!(f, "This order has no line {p}."),
            Illegal::LineDoesNotShip(p) => write!(f, "Line {p} does not ship."),
            Illegal::TooManyToShip { position, left } => {
                write!(f, "Line {position} has {left} left to ship.")
            }
            Illegal::TooManyToRefund { position, left } => {
                write!(f, "Line {position} has {left} left to refund.")
            }
            Illegal::BadQuantity => f.write_str("Each quantity must be at least 1."),
            Illegal::NoLines => f.write_str("Name at least one line."),
            Illegal::BadAmount => f.write_str("The amount must be more than zero."),
            Illegal::MoreThanCharged { .. } => f.write_str("That is more than is left to refund."),
            Illegal::RefundFirst => {
                f.write_str("Refund what is left of the charge before cancelling this order.")
            }
        }
    }
}

impl std::error::Error for Illegal {}

/// Whether `action` is legal in `state`: `Err` names the state that forbids it.
pub fn check(state: &State, action: Action) -> Result<(), Illegal> {
    use Payment::*;
    let s = state;
    match action {
        Action::MarkPaid => match s.payment {
            _ if s.cancelled => Err(Illegal::Cancelled),
            AwaitingPayment => Ok(()),
            Expired => Err(Illegal::Expired),
            Paid | PartiallyRefunded | Refunded => Err(Illegal::AlreadyPaid),
        },
        Action::Fulfil => match (s.payment, s.fulfilment) {
            _ if s.cancelled => Err(Illegal::Cancelled),
            (Expired, _) => Err(Illegal::Expired),
            (_, Fulfilment::Fulfilled) => Err(Illegal::AlreadyFulfilled),
            (_, Fulfilment::NotRequired) => Err(Illegal::NothingToShip),
            (AwaitingPayment, _) => Err(Illegal::NotPaid),
            (Refunded, _) => Err(Illegal::AlreadyRefunded),
            (Paid | PartiallyRefunded, _) => Ok(()),
        },
        Action::Cancel => match (s.payment, s.fulfilment) {
            _ if s.cancelled => Err(Illegal::Cancelled),
            (Expired, _) => Err(Illegal::Expired),
            (_, Fulfilment::Fulfilled) => Err(Illegal::AlreadyFulfilled),
            // What does not ship was delivered when it was paid.
            (Paid | PartiallyRefunded | Refunded, Fulfilment::NotRequired) => {
                Err(Illegal::AlreadyFulfilled)
            }
            _ => Ok(()),
        },
        Action::Refund => match s.payment {
            _ if s.cancelled => Err(Illegal::Cancelled),
            AwaitingPayment => Err(Illegal::NotPaid),
            Expired => Err(Illegal::Expired),
            Refunded => Err(Illegal::AlreadyRefunded),
            Paid | PartiallyRefunded if s.charged_minor <= 0 => Err(Illegal::NothingCharged),
            Paid | PartiallyRefunded if s.refunded_minor >= s.charged_minor => {
                Err(Illegal::AlreadyRefunded)
            }
            Paid | PartiallyRefunded => Ok(()),
        },
        Action::ResendConfirmation => match s.payment {
            _ if s.cancelled => Err(Illegal::Cancelled),
            Expired => Err(Illegal::Expired),
            _ => Ok(()),
        },
    }
}

/// The actions legal in `state`, in [`Action::ALL`]'s order.
pub fn allowed(state: &State) -> Vec<Action> {
    Action::ALL
        .into_iter()
        .filter(|a| check(state, *a).is_ok())
        .collect()
}

/// The payment state once `refunded_minor` of `charged_minor` is given back.
pub fn payment_after_refund(charged_minor: i64, refunded_minor: i64) -> Payment {
    if refunded_minor <= 0 {
        Payment::Paid
    } else if refunded_minor >= charged_minor {
        Payment::Refunded
    } else {
        Payment::PartiallyRefunded
    }
}

/// A line as the state machine sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineState {
    /// Its position in the order.
    pub position: i64,
    /// Its product type ([`product_type`]).
    pub product_type: i64,
    /// Units ordered.
    pub quantity: i64,
    /// Price per unit, minor units.
    pub unit_price_minor: i64,
    /// Units shipped.
    pub fulfilled: i64,
    /// Units refunded.
    pub refunded: i64,
}

impl LineState {
    /// Whether it ships (a physical product).
    pub fn ships(&self) -> bool {
        self.product_type == product_type::PHYSICAL
    }

    /// Units still to ship: not shipped, and not refunded before they shipped.
    pub fn left_to_ship(&self) -> i64 {
        if !self.ships() {
            return 0;
        }
        (self.quantity - self.fulfilled - self.refunded).max(0)
    }
}

/// The fulfilment state of `lines`.
pub fn fulfilment_of(lines: &[LineState]) -> Fulfilment {
    let shipping: Vec<_> = lines.iter().filter(|l| l.ships()).collect();
    if shipping.is_empty() {
        return Fulfilment::NotRequired;
    }
    let shipped: i64 = shipping.iter().map(|l| l.fulfilled).sum();
    let left: i64 = shipping.iter().map(|l| l.left_to_ship()).sum();
    match (shipped, left) {
        (_, 0) if shipped > 0 => Fulfilment::Fulfilled,
        (0, _) => Fulfilment::Unfulfilled,
        _ => Fulfilment::PartiallyFulfilled,
    }
}

/// Checks a fulfilment of `(position, quantity)` pairs against `lines`: each line exists,
/// ships, and has that many left to ship (a position named twice counts twice).
pub fn check_fulfilment(lines: &[LineState], request: &[(i64, i64)]) -> Result<(), Illegal> {
    if request.is_empty() {
        return Err(Illegal::NoLines);
    }
    let mut asked: std::collections::BTreeMap<i64, i64> = Default::default();
    for &(position, quantity) in request {
        if quantity < 1 {
            return Err(Illegal::BadQuantity);
        }
        let line = lines
            .iter()
            .find(|l| l.position == position)
            .ok_or(Illegal::NoSuchLine(position))?;
        if !line.ships() {
            return Err(Illegal::LineDoesNotShip(position));
        }
        let total = asked.entry(position).or_default();
        *total = total.saturating_add(quantity);
        if *total > line.left_to_ship() {
            return Err(Illegal::TooManyToShip {
                position,
                left: line.left_to_ship(),
            });
        }
    }
    Ok(())
}

/// What a refund asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefundRequest {
    /// An amount, minor units.
    Amount(i64),
    /// Units of lines `(position, quantity)`: their unit prices, capped at what is left.
    Lines(Vec<(i64, i64)>),
}

/// The amount a refund gives back (minor units), checked against what is left of the
/// charge (`state`) and, for lines, what each line has left to refund.
pub fn refund_amount(
    state: &State,
    lines: &[LineState],
    request: &RefundRequest,
) -> Result<i64, Illegal> {
    check(state, Action::Refund)?;
    let left_minor = state.charged_minor - state.refunded_minor;
    match request {
        RefundRequest::Amount(a) if *a < 1 => Err(Illegal::BadAmount),
        RefundRequest::Amount(a) if *a > left_minor => Err(Illegal::MoreThanCharged { left_minor }),
        RefundRequest::Amount(a) => Ok(*a),
        RefundRequest::Lines(req) => {
            if req.is_empty() {
                return Err(Illegal::NoLines);
            }
            let mut asked: std::collections::BTreeMap<i64, i64> = Default::default();
            let mut sum: i64 = 0;
            for &(position, quantity) in req {
                if quantity < 1 {
                    return Err(Illegal::BadQuantity);
                }
                let line = lines
                    .iter()
                    .find(|l| l.position == position)
                    .ok_or(Illegal::NoSuchLine(position))?;
                let left = (line.quantity - line.refunded).max(0);
                let total = asked.entry(position).or_default();
                *total = total.saturating_add(quantity);
                if *total > left {
                    return Err(Illegal::TooManyToRefund { position, left });
                }
                sum = sum.saturating_add(line.unit_price_minor.saturating_mul(quantity));
            }
            // Discounts and gift cards make the lines' prices more than was charged: the
            // refund stops at what is left.
            let amount = sum.min(left_minor);
            if amount < 1 {
                return Err(Illegal::BadAmount);
            }
            Ok(amount)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Action::*;
    use Fulfilment::*;
    use Payment::*;

    fn state(payment: Payment, fulfilment: Fulfilment, cancelled: bool) -> State {
        State {
            payment,
            fulfilment,
            cancelled,
            charged_minor: 1000,
            refunded_minor: match payment {
                PartiallyRefunded => 400,
                Refunded => 1000,
                _ => 0,
            },
        }
    }

    const PAYMENTS: [Payment; 5] = [AwaitingPayment, Paid, PartiallyRefunded, Refunded, Expired];
    const FULFILMENTS: [Fulfilment; 4] = [Unfulfilled, PartiallyFulfilled, Fulfilled, NotRequired];

    /// Every state, every action: the expected answer written out as a table.
    #[test]
    fn every_move_in_every_state() {
        for p in PAYMENTS {
            for f in FULFILMENTS {
                for cancelled in [false, true] {
                    let s = state(p, f, cancelled);
                    for a in Action::ALL {
                        let want: Result<(), Illegal> = if cancelled {
                            Err(Illegal::Cancelled)
                        } else {
                            match a {
                                MarkPaid => match p {
                                    AwaitingPayment => Ok(()),
                                    Expired => Err(Illegal::Expired),
                                    _ => Err(Illegal::AlreadyPaid),
                                },
                                Fulfil => match (p, f) {
                                    (Expired, _) => Err(Illegal::Expired),
                                    (_, Fulfilled) => Err(Illegal::AlreadyFulfilled),
                                    (_, NotRequired) => Err(Illegal::NothingToShip),
                                    (AwaitingPayment, _) => Err(Illegal::NotPaid),
                                    (Refunded, _) => Err(Illegal::AlreadyRefunded),
                                    _ => Ok(()),
                                },
                                Cancel => match (p, f) {
                                    (Expired, _) => Err(Illegal::Expired),
                                    (_, Fulfilled) => Err(Illegal::AlreadyFulfilled),
                                    (AwaitingPayment, NotRequired) => Ok(()),
                                    (_, NotRequired) => Err(Illegal::AlreadyFulfilled),
                                    _ => Ok(()),
                                },
                                Refund => match p {
                                    Paid | PartiallyRefunded => Ok(()),
                                    AwaitingPayment => Err(Illegal::NotPaid),
                                    Expired => Err(Illegal::Expired),
                                    Refunded => Err(Illegal::AlreadyRefunded),
                                },
                                ResendConfirmation => match p {
                                    Expired => Err(Illegal::Expired),
                                    _ => Ok(()),
                                },
                            }
                        };
                        assert_eq!(
                            check(&s, a),
                            want,
                            "{p:?} {f:?} cancelled={cancelled} {a:?}"
                        );
                        assert_eq!(allowed(&s).contains(&a), want.is_ok());
                    }
                }
            }
        }
    }

    #[test]
    fn the_messages_name_the_state() {
        let paid = state(Paid, Fulfilled, false);
        assert_eq!(
            check(&paid, Fulfil).unwrap_err().to_string(),
            "This order is already fulfilled."
        );
        assert_eq!(
            check(&paid, MarkPaid).unwrap_err().to_string(),
            "This order is already paid."
        );
        assert_eq!(
            check(&state(Paid, Unfulfilled, true), Cancel)
                .unwrap_err()
                .to_string(),
            "This order is cancelled."
        );
        assert_eq!(
            check(&state(Refunded, Unfulfilled, false), Refund)
                .unwrap_err()
                .to_string(),
            "This order is already refunded."
        );
        assert_eq!(
            check(&state(AwaitingPayment, Unfulfilled, false), Fulfil)
                .unwrap_err()
                .to_string(),
            "This order is awaiting payment: mark it as paid first."
        );
        assert_eq!(
            check(&state(Expired, Unfulfilled, false), MarkPaid)
                .unwrap_err()
                .to_string(),
            "This order expired unpaid."
        );
        assert_eq!(
            Illegal::TooManyToShip {
                position: 2,
                left: 1
            }
            .to_string(),
            "Line 2 has 1 left to ship."
        );
    }

    #[test]
    fn nothing_charged_nothing_to_refund() {
        let mut s = state(Paid, Unfulfilled, false);
        s.charged_minor = 0;
        assert_eq!(check(&s, Refund), Err(Illegal::NothingCharged));
        // Paid with refunds that reached the charge reads as refunded.
        let mut s = state(Paid, Unfulfilled, false);
        s.refunded_minor = 1000;
        assert_eq!(check(&s, Refund), Err(Illegal::AlreadyRefunded));
    }

    #[test]
    fn spellings_round_trip() {
        for p in PAYMENTS {
            assert_eq!(Payment::parse(p.as_str()), Some(p));
        }
        for f in FULFILMENTS {
            assert_eq!(Fulfilment::parse(f.as_str()), Some(f));
        }
        assert_eq!(Payment::parse("Paid"), None);
        assert_eq!(
            serde_json::to_string(&ResendConfirmation).unwrap(),
            "\"resend-confirmation\""
        );
        assert_eq!(
            serde_json::to_string(&PartiallyRefunded).unwrap(),
            "\"partially-refunded\""
        );
    }

    fn line(position: i64, product_type: i64, quantity: i64, fulfilled: i64) -> LineState {
        LineState {
            position,
            product_type,
            quantity,
            unit_price_minor: 500,
            fulfilled,
            refunded: 0,
        }
    }

    #[test]
    fn fulfilment_follows_the_lines_that_ship() {
        assert_eq!(fulfilment_of(&[line(0, 2, 1, 0)]), NotRequired);
        assert_eq!(
            fulfilment_of(&[line(0, 1, 2, 0), line(1, 2, 1, 1)]),
            Unfulfilled
        );
        assert_eq!(fulfilment_of(&[line(0, 1, 2, 1)]), PartiallyFulfilled);
        assert_eq!(
            fulfilment_of(&[line(0, 1, 2, 2), line(1, 1, 1, 0)]),
            PartiallyFulfilled
        );
        assert_eq!(
            fulfilment_of(&[line(0, 1, 2, 2), line(1, 1, 1, 1)]),
            Fulfilled
        );
        // Refunded units no longer wait to ship.
        let mut l = line(0, 1, 3, 2);
        l.refunded = 1;
        assert_eq!(fulfilment_of(&[l]), Fulfilled);
        // All refunded before any shipped: nothing shipped, nothing left.
        let mut l = line(0, 1, 3, 0);
        l.refunded = 3;
        assert_eq!(fulfilment_of(&[l]), Unfulfilled);
    }

    #[test]
    fn a_fulfilment_ships_what_is_left() {
        let lines = [line(0, 1, 3, 1), line(1, 2, 1, 1)];
        assert_eq!(check_fulfilment(&lines, &[(0, 2)]), Ok(()));
        assert_eq!(
            check_fulfilment(&lines, &[(0, 1), (0, 2)]),
            Err(Illegal::TooManyToShip {
                position: 0,
                left: 2
            })
        );
        assert_eq!(
            check_fulfilment(&lines, &[(1, 1)]),
            Err(Illegal::LineDoesNotShip(1))
        );
        assert_eq!(
            check_fulfilment(&lines, &[(7, 1)]),
            Err(Illegal::NoSuchLine(7))
        );
        assert_eq!(
            check_fulfilment(&lines, &[(0, 0)]),
            Err(Illegal::BadQuantity)
        );
        assert_eq!(check_fulfilment(&lines, &[]), Err(Illegal::NoLines));
    }

    #[test]
    fn refunds_stop_at_what_was_charged() {
        let s = state(PartiallyRefunded, Unfulfilled, false); // 400 of 1000 back
        let lines = [line(0, 1, 3, 0), line(1, 2, 1, 1)];
        assert_eq!(
            refund_amount(&s, &lines, &RefundRequest::Amount(600)),
            Ok(600)
        );
        assert_eq!(
            refund_amount(&s, &lines, &RefundRequest::Amount(601)),
            Err(Illegal::MoreThanCharged { left_minor: 600 })
        );
        assert_eq!(
            refund_amount(&s, &lines, &RefundRequest::Amount(0)),
            Err(Illegal::BadAmount)
        );
        assert_eq!(
            refund_amount(&s, &lines, &RefundRequest::Lines(vec![(0, 1)])),
            Ok(500)
        );
        // Two units at 500 is 1000, capped at the 600 left.
        assert_eq!(
            refund_amount(&s, &lines, &RefundRequest::Lines(vec![(0, 2)])),
            Ok(600)
        );
        assert_eq!(
            refund_amount(&s, &lines, &RefundRequest::Lines(vec![(1, 2)])),
            Err(Illegal::TooManyToRefund {
                position: 1,
                left: 1
            })
        );
        assert_eq!(
            refund_amount(
                &state(AwaitingPayment, Unfulfilled, false),
                &lines,
                &RefundRequest::Amount(1)
            ),
            Err(Illegal::NotPaid)
        );
        assert_eq!(payment_after_refund(1000, 0), Paid);
        assert_eq!(payment_after_refund(1000, 1), PartiallyRefunded);
        assert_eq!(payment_after_refund(1000, 1000), Refunded);
    }
}
