//! The instalment pill as visitors get it: in the cart JSON and on product items in page
//! contexts (SPEC.md §4 "Instalment pill", §5 "Instalment availability text").

use serde::Serialize;
use serde_json::{Value, json};
use tenants::commerce::instalments::InstalmentQuote;

use super::money::money_text;

/// The instalment pill: the provider and its brand in this market, whether the cart may
/// be paid in instalments, the provider's limits, one payment, and the text to show.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstalmentPill {
    /// Provider key (`afterpay`).
    pub provider: String,
    /// The provider's name in this market ("Afterpay", "Clearpay").
    pub brand: &'static str,
    /// What is priced can be paid this way (its product types allow it).
    pub eligible: bool,
    /// Number of payments.
    pub payments: i64,
    pub minimum_cents: i64,
    pub maximum_cents: i64,
    /// The amount is within the provider's limits.
    pub in_range: bool,
    /// One payment, minor units.
    pub installment_cents: i64,
    /// "or {installment} with", "available for orders up to {amount}" or "available for
    /// orders over {amount}".
    pub text: String,
}

/// The instalment pill for `amount_minor`: provider, brand, limits, whether the amount is in
/// range, one payment, and SPEC's text ("or {installment} with", "available for orders up
/// to {amount}", "available for orders over {amount}").
pub fn instalment_pill(
    q: &InstalmentQuote,
    eligible: bool,
    currency: &str,
    locale: &icu_locale::Locale,
) -> InstalmentPill {
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
    InstalmentPill {
        provider: q.provider.clone(),
        brand: q.brand,
        eligible,
        payments: q.payments,
        minimum_cents: q.minimum_minor,
        maximum_cents: q.maximum_minor,
        in_range: q.in_range,
        installment_cents: q.installment_minor,
        text,
    }
}

/// [`instalment_pill`] as JSON (product items in page contexts carry it).
pub fn instalments_json(
    q: &InstalmentQuote,
    eligible: bool,
    currency: &str,
    locale: &icu_locale::Locale,
) -> Value {
    json!(instalment_pill(q, eligible, currency, locale))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tenants::commerce::instalments::quote;
    use tenants::commerce::settings::Instalments;

    #[test]
    fn the_three_texts() {
        let limits = Instalments {
            provider: "afterpay".into(),
            minimum_minor: 100,
            maximum_minor: 200_000,
            payments: 4,
        };
        let en = icu_locale::locale!("en-US");
        let text = |amount: i64| {
            let q = quote(Some(&limits), "en-US", amount).unwrap();
            instalments_json(&q, true, "USD", &en)["text"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        assert_eq!(text(5000), "or $12.50 with");
        assert_eq!(text(200_001), "available for orders up to $2,000.00");
        assert_eq!(text(50), "available for orders over $1.00");
        let q = quote(Some(&limits), "en-GB", 5000).unwrap();
        let pill = instalments_json(&q, false, "GBP", &icu_locale::locale!("en-GB"));
        assert_eq!(
            (pill["brand"].as_str(), pill["eligible"].as_bool()),
            (Some("Clearpay"), Some(false))
        );
        assert_eq!(pill["text"], "or £12.50 with");
    }
}
