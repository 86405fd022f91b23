//! The instalment pill as visitors get it: in the cart JSON and on product items in page
//! contexts (SPEC.md §4 "Instalment pill", §5 "Instalment availability text").

use serde_json::{Value, json};
use tenants::commerce::instalments::InstalmentQuote;

use super::money::money_text;

/// The instalment pill for `amount_minor`: provider, brand, limits, whether the amount is in
/// range, one payment, and SPEC's text ("or {installment} with", "available for orders up
/// to {amount}", "available for orders over {amount}").
pub fn instalments_json(
    q: &InstalmentQuote,
    eligible: bool,
    currency: &str,
    locale: &icu_locale::Locale,
) -> Value {
    let text = if q.in_range {
        format!(
            "or {} with",
            money_text(q.installment_minor, currency, locale)
        )
    } else if q.over_maximum {
        format!(
            "available for orders up to {}",
            money_text(q.limit_minor(), currency, locale)
        )
    } else {
        format!(
            "available for orders over {}",
            money_text(q.limit_minor(), currency, locale)
        )
    };
    json!({
        "provider": q.provider,
        "brand": q.brand,
        "eligible": eligible,
        "payments": q.payments,
        "minimumCents": q.minimum_minor,
        "maximumCents": q.maximum_minor,
        "inRange": q.in_range,
        "installmentCents": q.installment_minor,
        "text": text,
    })
}
