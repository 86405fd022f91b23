//! The store's flows: checkout ([`checkout`]), and taking payment ([`payment`]).

pub mod checkout;
pub mod payment;
