//! Cart totals: subtotal, coupons, shipping, tax and the grand total, as plain functions of
//! the cart's lines and the store's [`CommerceSettings`].
//!
//! The rules, in the order they apply:
//!
//! 1. **Subtotal**: the sum of `quantity × unit price` over the lines.
//! 2. **Coupons**, in the order the buyer added them, on the *discountable subtotal* (every
//!    line but gift cards): a percentage takes that share, a fixed coupon its amount; the
//!    discounts together never exceed the discountable subtotal. A free-shipping coupon
//!    makes shipping free. A coupon that does not apply now (not started, expired, a
//!    subtotal below its minimum, nothing for it to discount) is listed with its reason in
//!    `invalid_coupons` and takes nothing off; it stays on the cart and may apply later.
//! 3. **Shipping**, only when something physical is in the cart: the options that ship to
//!    the location (all options while the location is unknown), each priced flat, free from
//!    a subtotal (after discounts) up, or by the total weight of the physical lines. Once
//!    the location is known, the buyer's choice when it is offered, else the cheapest;
//!    before, none is chosen or charged. None offered: shipping cannot be worked out and
//!    checkout refuses the location. A store with no shipping options at
//!    all charges nothing for shipping.
//! 4. **Tax**, once the location is known: the most specific rule (country and region, then
//!    country, then `*`) on the taxable amount — the discounted subtotal of taxable lines
//!    (gift cards are not taxed), plus shipping when the rule says so. With prices that
//!    include tax, the tax is the part of that amount that is tax (`amount × rate / (100 +
//!    rate)`) and is not added again.
//! 5. **Grand total** = subtotal − discount + shipping + tax (when prices exclude tax).
//!
//! Every computed amount (each coupon's percentage, the tax) is rounded once, on the cart as
//! a whole, to a whole minor unit with halves away from zero ([`round_minor`]).

use rust_decimal::Decimal;

use super::money::{percent_of, round_minor};
use super::settings::{
    CommerceSettings, Coupon, CouponKind, ShippingOption, ShippingRate, TaxRule,
};

/// Product types (SPEC.md §3 "Product type").
pub mod product_type {
    /// Shipped goods.
    pub const PHYSICAL: i64 = 1;
    /// A download.
    pub const DIGITAL: i64 = 2;
    /// Performed, not shipped.
    pub const SERVICE: i64 = 3;
    /// A gift card: paid for like goods, spent like money.
    pub const GIFT_CARD: i64 = 4;
    /// Access to paid content.
    pub const PAYWALL: i64 = 5;
}

/// One line of a cart, as pricing sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// [`product_type`].
    pub product_type: i64,
    /// Units.
    pub quantity: i64,
    /// Price of one unit, minor units.
    pub unit_price_minor: i64,
    /// Shipping weight of one unit, grams.
    pub weight_grams: i64,
}

/// Where the order goes (or, with nothing to ship, where the buyer is).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// ISO country code, upper case.
    pub country: String,
    /// State or province, if the country has them.
    pub region: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
}

/// What to price.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// The cart's lines.
    pub lines: &'a [Line],
    /// Coupon codes on the cart, in the order they were added.
    pub coupons: &'a [String],
    /// The shipping location, once known.
    pub location: Option<&'a Location>,
    /// The buyer's shipping choice (an option id).
    pub shipping_option: Option<&'a str>,
    /// Now, epoch ms (coupon dates).
    pub now_ms: i64,
}

/// An offered shipping option with its price for this cart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShippingQuote {
    /// Option id.
    pub id: String,
    /// Shown name.
    pub name: String,
    /// Its price for this cart, minor units (before a free-shipping coupon).
    pub cost_minor: i64,
}

/// A tax rule that applies, with what it adds (or, with prices that include tax, holds).
#[derive(Clone, Debug, PartialEq)]
pub struct AppliedTax {
    /// The rule.
    pub rule: TaxRule,
    /// The taxable amount it applied to, minor units.
    pub taxable_minor: i64,
    /// The tax, minor units.
    pub tax_minor: i64,
}

/// A coupon that applies.
#[derive(Clone, Debug, PartialEq)]
pub struct AppliedCoupon {
    /// The coupon.
    pub coupon: Coupon,
    /// What it takes off the merchandise, minor units.
    pub discount_minor: i64,
}

/// Why a coupon on the cart takes nothing off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CouponProblem {
    /// The store has no such code (any more).
    Unknown,
    /// Its start date is still ahead.
    NotStarted,
    /// Its end date has passed.
    Expired,
    /// The subtotal is below its minimum (minor units).
    BelowMinimum(i64),
    /// There is nothing it could take off (free shipping with nothing to ship; a
    /// discount on a cart of gift cards only).
    NothingToDiscount,
}

/// A coupon on the cart that takes nothing off, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectedCoupon {
    /// As stored on the cart.
    pub code: String,
    /// Why.
    pub problem: CouponProblem,
}

/// The priced cart.
#[derive(Clone, Debug, PartialEq)]
pub struct Totals {
    /// Sum of the lines.
    pub subtotal_minor: i64,
    /// Taken off by coupons.
    pub discount_minor: i64,
    /// Charged for shipping.
    pub shipping_minor: i64,
    /// Tax (added on top, or the part of the total that is tax).
    pub tax_minor: i64,
    /// What the buyer pays.
    pub grand_total_minor: i64,
    /// Sum of the quantities.
    pub total_quantity: i64,
    /// Some line is a digital product.
    pub has_digital: bool,
    /// Every line is digital or a gift card (nothing to ship or perform); false when empty.
    pub purely_digital: bool,
    /// Some line is a physical product.
    pub requires_shipping: bool,
    /// Options offered for this cart and location (empty when nothing ships).
    pub shipping_options: Vec<ShippingQuote>,
    /// The option charged.
    pub selected_shipping_option: Option<String>,
    /// Something must ship but no option ships to the location.
    pub shipping_unavailable: bool,
    /// The tax rules that apply (at most one today).
    pub applied_taxes: Vec<AppliedTax>,
    /// Tax is included in the prices rather than added.
    pub prices_include_tax: bool,
    /// Coupons that take something off.
    pub valid_coupons: Vec<AppliedCoupon>,
    /// Coupons on the cart that take nothing off.
    pub invalid_coupons: Vec<RejectedCoupon>,
}

/// Prices a cart.
pub fn price(settings: &CommerceSettings, req: &Request<'_>) -> Totals {
    let lines = req.lines;
    let sum = |keep: &dyn Fn(&Line) -> bool| -> i64 {
        lines
            .iter()
            .filter(|l| keep(l))
            .map(|l| l.quantity.saturating_mul(l.unit_price_minor))
            .fold(0i64, i64::saturating_add)
    };
    let is = |t: i64| move |l: &Line| l.product_type == t;
    let subtotal_minor = sum(&|_| true);
    let discountable = sum(&|l| l.product_type != product_type::GIFT_CARD);
    let requires_shipping = lines.iter().any(is(product_type::PHYSICAL));
    let has_digital = lines.iter().any(is(product_type::DIGITAL));
    let purely_digital = !lines.is_empty()
        && lines.iter().all(|l| {
            l.product_type == product_type::DIGITAL || l.product_type == product_type::GIFT_CARD
        });

    // 2. Coupons.
    let mut valid_coupons = Vec::new();
    let mut invalid_coupons = Vec::new();
    let mut discount_minor = 0i64;
    let mut free_shipping = false;
    for code in req.coupons {
        let reject = |problem| RejectedCoupon {
            code: code.clone(),
            problem,
        };
        let Some(coupon) = settings.coupon(code) else {
            invalid_coupons.push(reject(CouponProblem::Unknown));
            continue;
        };
        if let Some(problem) = coupon_problem(coupon, req.now_ms, subtotal_minor) {
            invalid_coupons.push(reject(problem));
            continue;
        }
        let room = discountable - discount_minor;
        let off = match &coupon.kind {
            CouponKind::Percent(p) => percent_of(discountable, *p).min(room),
            CouponKind::Fixed(amount) => (*amount).min(room),
            CouponKind::FreeShipping => 0,
        };
        let useful = match coupon.kind {
            CouponKind::FreeShipping => requires_shipping,
            _ => discountable > 0,
        };
        if !useful {
            invalid_coupons.push(reject(CouponProblem::NothingToDiscount));
            continue;
        }
        free_shipping |= coupon.kind == CouponKind::FreeShipping;
        discount_minor += off;
        valid_coupons.push(AppliedCoupon {
            coupon: coupon.clone(),
            discount_minor: off,
        });
    }
    let after_discount = subtotal_minor - discount_minor;

    // 3. Shipping.
    let weight: i64 = lines
        .iter()
        .filter(|l| l.product_type == product_type::PHYSICAL)
        .map(|l| l.quantity.saturating_mul(l.weight_grams))
        .fold(0i64, i64::saturating_add);
    let shipping_options: Vec<ShippingQuote> = if requires_shipping {
        settings
            .shipping
            .iter()
            .filter(|o| ships_to(o, req.location))
            .filter_map(|o| {
                Some(ShippingQuote {
                    id: o.id.clone(),
                    name: o.name.clone(),
                    cost_minor: shipping_cost(&o.rate, after_discount, weight)?,
                })
            })
            .collect()
    } else {
        Vec::new()
    };
    // Nothing is chosen (nor charged) before the location is known: the options are listed
    // as what may ship, but the buyer has not been offered any yet.
    let chosen = req.location.and_then(|_| {
        req.shipping_option
            .and_then(|id| shipping_options.iter().find(|q| q.id == id))
            .or_else(|| shipping_options.iter().min_by_key(|q| q.cost_minor))
    });
    // A store with no shipping options does not charge for shipping (it arranges delivery
    // itself); one with options must have one that ships to the location.
    let shipping_unavailable = requires_shipping
        && req.location.is_some()
        && !settings.shipping.is_empty()
        && chosen.is_none();
    let shipping_minor = match chosen {
        Some(_) if free_shipping => 0,
        Some(q) => q.cost_minor,
        None => 0,
    };
    let selected_shipping_option = chosen.map(|q| q.id.clone());

    // 4. Tax.
    let taxable_goods = discountable - discount_minor;
    let prices_include_tax = settings.taxes.prices_include_tax;
    let mut applied_taxes = Vec::new();
    let mut tax_minor = 0;
    if let Some(rule) = req
        .location
        .and_then(|l| tax_rule(&settings.taxes.rules, l))
    {
        let taxable_minor = taxable_goods
            + if rule.applies_to_shipping {
                shipping_minor
            } else {
                0
            };
        let tax = if prices_include_tax {
            round_minor(
                Decimal::from(taxable_minor) * rule.rate / (Decimal::ONE_HUNDRED + rule.rate),
            )
        } else {
            percent_of(taxable_minor, rule.rate)
        };
        tax_minor = tax;
        applied_taxes.push(AppliedTax {
            rule: rule.clone(),
            taxable_minor,
            tax_minor: tax,
        });
    }

    // 5. Grand total.
    // Saturating: carts are bounded (`money::MAX_CART_MINOR`), so this never saturates for
    // a cart the store accepted; it never wraps for one it did not.
    let grand_total_minor = after_discount
        .saturating_add(shipping_minor)
        .saturating_add(if prices_include_tax { 0 } else { tax_minor });
    Totals {
        subtotal_minor,
        discount_minor,
        shipping_minor,
        tax_minor,
        grand_total_minor,
        total_quantity: lines.iter().fold(0i64, |a, l| a.saturating_add(l.quantity)),
        has_digital,
        purely_digital,
        requires_shipping,
        shipping_options,
        selected_shipping_option,
        shipping_unavailable,
        applied_taxes,
        prices_include_tax,
        valid_coupons,
        invalid_coupons,
    }
}

/// Why `coupon` does not apply at `now` to a cart with this subtotal, if it does not.
pub fn coupon_problem(coupon: &Coupon, now_ms: i64, subtotal_minor: i64) -> Option<CouponProblem> {
    if coupon.starts_ms.is_some_and(|s| now_ms < s) {
        return Some(CouponProblem::NotStarted);
    }
    if coupon.expires_ms.is_some_and(|e| now_ms >= e) {
        return Some(CouponProblem::Expired);
    }
    match coupon.minimum_subtotal_minor {
        Some(min) if subtotal_minor < min => Some(CouponProblem::BelowMinimum(min)),
        _ => None,
    }
}

fn ships_to(option: &ShippingOption, location: Option<&Location>) -> bool {
    match location {
        None => true,
        Some(l) => option.countries.is_empty() || option.countries.contains(&l.country),
    }
}

/// The price of one option for goods worth `goods_minor` (after discounts) weighing
/// `grams`; `None` when the option does not take that weight.
fn shipping_cost(rate: &ShippingRate, goods_minor: i64, grams: i64) -> Option<i64> {
    match rate {
        ShippingRate::Flat { price_minor } => Some(*price_minor),
        ShippingRate::FreeAbove {
            price_minor,
            free_above_minor,
        } => Some(if goods_minor >= *free_above_minor {
            0
        } else {
            *price_minor
        }),
        ShippingRate::ByWeight { brackets } => brackets
            .iter()
            .find(|b| grams <= b.up_to_grams)
            .map(|b| b.price_minor),
    }
}

/// The most specific rule for a location: country and region, then country, then `*`.
/// Regions compare by their ISO 3166-2 code within the country (`ME`, `us-me` and `US-ME`
/// are one region); a region that is no code of the country (a name, "Maine") matches no
/// region's rule.
pub fn tax_rule<'r>(rules: &'r [TaxRule], location: &Location) -> Option<&'r TaxRule> {
    let country = location.country.trim().to_ascii_uppercase();
    let region = location
        .region
        .as_deref()
        .map(|r| super::places::region_key(&country, r));
    let exact = rules.iter().find(|r| {
        r.country == country && r.region.is_some() && r.region.as_deref() == region.as_deref()
    });
    exact
        .or_else(|| {
            rules
                .iter()
                .find(|r| r.country == country && r.region.is_none())
        })
        .or_else(|| rules.iter().find(|r| r.country == "*"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commerce::settings::{Taxes, WeightBracket};

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    fn line(product_type: i64, quantity: i64, unit: i64, grams: i64) -> Line {
        Line {
            product_type,
            quantity,
            unit_price_minor: unit,
            weight_grams: grams,
        }
    }

    fn rule(country: &str, region: Option<&str>, rate: &str, shipping: bool) -> TaxRule {
        TaxRule {
            name: format!("Tax {country}"),
            country: country.into(),
            region: region.map(str::to_owned),
            rate: d(rate),
            applies_to_shipping: shipping,
        }
    }

    fn coupon(code: &str, kind: CouponKind) -> Coupon {
        Coupon {
            code: code.into(),
            kind,
            minimum_subtotal_minor: None,
            starts_ms: None,
            expires_ms: None,
        }
    }

    fn store() -> CommerceSettings {
        let mut s = CommerceSettings::plain("EUR");
        s.taxes = Taxes {
            prices_include_tax: false,
            rules: vec![
                rule("NL", None, "21", true),
                rule("US", Some("NY"), "8.875", false),
                rule("US", None, "0", false),
                rule("*", None, "10", false),
            ],
        };
        s.shipping = vec![
            ShippingOption {
                id: "local".into(),
                name: "Local".into(),
                countries: vec!["NL".into()],
                rate: ShippingRate::FreeAbove {
                    price_minor: 495,
                    free_above_minor: 6000,
                },
            },
            ShippingOption {
                id: "parcel".into(),
                name: "Parcel".into(),
                countries: vec![],
                rate: ShippingRate::ByWeight {
                    brackets: vec![
                        WeightBracket {
                            up_to_grams: 1000,
                            price_minor: 695,
                        },
                        WeightBracket {
                            up_to_grams: 5000,
                            price_minor: 995,
                        },
                    ],
                },
            },
        ];
        s.coupons = vec![
            coupon("TEN", CouponKind::Percent(d("10"))),
            coupon("FIVE", CouponKind::Fixed(500)),
            coupon("SHIP", CouponKind::FreeShipping),
            Coupon {
                minimum_subtotal_minor: Some(5000),
                ..coupon("BIG", CouponKind::Fixed(1000))
            },
            Coupon {
                starts_ms: Some(1000),
                expires_ms: Some(2000),
                ..coupon("WINDOW", CouponKind::Fixed(100))
            },
        ];
        s
    }

    fn nl() -> Location {
        Location {
            country: "NL".into(),
            ..Default::default()
        }
    }

    fn priced(
        s: &CommerceSettings,
        lines: &[Line],
        coupons: &[&str],
        loc: Option<&Location>,
        opt: Option<&str>,
    ) -> Totals {
        let coupons: Vec<String> = coupons.iter().map(|c| c.to_string()).collect();
        price(
            s,
            &Request {
                lines,
                coupons: &coupons,
                location: loc,
                shipping_option: opt,
                now_ms: 1500,
            },
        )
    }

    #[test]
    fn an_empty_cart_costs_nothing() {
        let t = priced(&store(), &[], &[], None, None);
        assert_eq!(t.grand_total_minor, 0);
        assert!(!t.purely_digital && !t.requires_shipping && !t.has_digital);
        assert!(t.shipping_options.is_empty());
        assert!(!t.shipping_unavailable);
    }

    #[test]
    fn physical_goods_ship_and_are_taxed_with_shipping() {
        // 2 × 12.50 + 1 × 9.95, 900 g in all: local delivery 4.95 (under 60), parcel 6.95.
        let lines = [line(1, 2, 1250, 300), line(1, 1, 995, 300)];
        let t = priced(&store(), &lines, &[], Some(&nl()), None);
        assert_eq!(t.subtotal_minor, 3495);
        assert_eq!(
            t.shipping_options
                .iter()
                .map(|q| (q.id.as_str(), q.cost_minor))
                .collect::<Vec<_>>(),
            [("local", 495), ("parcel", 695)]
        );
        assert_eq!(t.selected_shipping_option.as_deref(), Some("local"));
        assert_eq!(t.shipping_minor, 495);
        // 21% of (34.95 + 4.95) = 8.379 → 8.38.
        assert_eq!(t.tax_minor, 838);
        assert_eq!(t.grand_total_minor, 3495 + 495 + 838);
        assert!(t.requires_shipping && !t.purely_digital);
        // The buyer's choice wins when offered; an unknown choice falls back.
        let t = priced(&store(), &lines, &[], Some(&nl()), Some("parcel"));
        assert_eq!(t.shipping_minor, 695);
        let t = priced(&store(), &lines, &[], Some(&nl()), Some("nope"));
        assert_eq!(t.selected_shipping_option.as_deref(), Some("local"));
    }

    #[test]
    fn free_above_and_weight_brackets() {
        let s = store();
        let heavy = [line(1, 3, 2500, 2000)]; // 75.00, 6 kg
        let t = priced(&s, &heavy, &[], Some(&nl()), None);
        // Local is free above 60; parcel does not take 6 kg.
        assert_eq!(t.shipping_options.len(), 1);
        assert_eq!(t.shipping_options[0].cost_minor, 0);
        // Outside NL only the parcel option ships, and 6 kg is too heavy: nothing ships.
        let de = Location {
            country: "DE".into(),
            ..Default::default()
        };
        let t = priced(&s, &heavy, &[], Some(&de), None);
        assert!(t.shipping_unavailable);
        assert_eq!(t.shipping_minor, 0);
        // Unknown location: every option is shown, none chosen or charged yet.
        let light = [line(1, 1, 1000, 100)];
        let t = priced(&s, &light, &[], None, None);
        assert_eq!(t.shipping_options.len(), 2);
        assert_eq!((t.selected_shipping_option, t.shipping_minor), (None, 0));
        assert!(!t.shipping_unavailable);
        assert_eq!(t.tax_minor, 0, "no tax before the location is known");
        assert!(t.applied_taxes.is_empty());
    }

    #[test]
    fn a_store_without_shipping_options_charges_no_shipping() {
        let s = CommerceSettings::plain("EUR");
        let t = priced(&s, &[line(1, 1, 1000, 100)], &[], Some(&nl()), None);
        assert!(t.requires_shipping);
        assert!(!t.shipping_unavailable);
        assert_eq!((t.shipping_minor, t.grand_total_minor), (0, 1000));
    }

    #[test]
    fn digital_goods_and_services_do_not_ship() {
        let t = priced(
            &store(),
            &[line(2, 1, 900, 0), line(4, 1, 2500, 0)],
            &[],
            Some(&nl()),
            None,
        );
        assert!(t.purely_digital && t.has_digital && !t.requires_shipping);
        assert!(t.shipping_options.is_empty());
        assert!(!t.shipping_unavailable);
        // Gift cards are not taxed: 21% of 9.00 only.
        assert_eq!(t.tax_minor, 189);
        let t = priced(&store(), &[line(3, 1, 3500, 0)], &[], Some(&nl()), None);
        assert!(!t.purely_digital && !t.requires_shipping && !t.has_digital);
        assert_eq!(t.grand_total_minor, 3500 + 735);
    }

    #[test]
    fn coupons_discount_in_order_and_never_below_zero() {
        let s = store();
        let lines = [line(3, 1, 3000, 0)];
        let t = priced(&s, &lines, &["TEN", "five"], None, None);
        assert_eq!(t.discount_minor, 300 + 500);
        assert_eq!(t.grand_total_minor, 2200);
        assert_eq!(t.valid_coupons.len(), 2);
        // A fixed coupon larger than what is left takes only what is left.
        let small = [line(3, 1, 300, 0)];
        let t = priced(&s, &small, &["FIVE", "TEN"], None, None);
        assert_eq!(t.discount_minor, 300);
        assert_eq!(t.grand_total_minor, 0);
        // Percentages round halves away from zero: 10% of 0.05 → 1 cent.
        let t = priced(&s, &[line(3, 1, 5, 0)], &["TEN"], None, None);
        assert_eq!(t.discount_minor, 1);
    }

    #[test]
    fn coupons_that_do_not_apply_say_why() {
        let s = store();
        let lines = [line(3, 1, 3000, 0)];
        let t = priced(&s, &lines, &["BIG", "NOPE", "SHIP"], None, None);
        assert_eq!(t.discount_minor, 0);
        assert_eq!(
            t.invalid_coupons
                .iter()
                .map(|r| (r.code.as_str(), r.problem.clone()))
                .collect::<Vec<_>>(),
            [
                ("BIG", CouponProblem::BelowMinimum(5000)),
                ("NOPE", CouponProblem::Unknown),
                ("SHIP", CouponProblem::NothingToDiscount),
            ]
        );
        let mut windowed = price(
            &s,
            &Request {
                lines: &lines,
                coupons: &["WINDOW".to_string()],
                location: None,
                shipping_option: None,
                now_ms: 999,
            },
        );
        assert_eq!(
            windowed.invalid_coupons[0].problem,
            CouponProblem::NotStarted
        );
        windowed = price(
            &s,
            &Request {
                now_ms: 2000,
                ..Request {
                    lines: &lines,
                    coupons: &["WINDOW".to_string()],
                    location: None,
                    shipping_option: None,
                    now_ms: 0,
                }
            },
        );
        assert_eq!(windowed.invalid_coupons[0].problem, CouponProblem::Expired);
        // A discount coupon on gift cards alone has nothing to take off.
        let t = priced(&s, &[line(4, 1, 2500, 0)], &["TEN"], None, None);
        assert_eq!(
            t.invalid_coupons[0].problem,
            CouponProblem::NothingToDiscount
        );
    }

    #[test]
    fn free_shipping_coupons_zero_the_shipping_and_its_tax() {
        let lines = [line(1, 1, 2000, 500)];
        let t = priced(&store(), &lines, &["SHIP"], Some(&nl()), None);
        assert_eq!(t.shipping_options[0].cost_minor, 495, "the quote is kept");
        assert_eq!(t.shipping_minor, 0);
        assert_eq!(t.tax_minor, 420);
        assert_eq!(t.grand_total_minor, 2420);
    }

    #[test]
    fn the_most_specific_tax_rule_applies() {
        let lines = [line(3, 1, 10000, 0)];
        let ny = Location {
            country: "us".into(),
            region: Some("ny".into()),
            postal_code: None,
        };
        let t = priced(&store(), &lines, &[], Some(&ny), None);
        assert_eq!(t.tax_minor, 888); // 8.875% of 100.00 = 8.875 → 8.88
        let ca = Location {
            region: Some("CA".into()),
            ..ny.clone()
        };
        assert_eq!(priced(&store(), &lines, &[], Some(&ca), None).tax_minor, 0);
        let full_code = Location {
            region: Some("US-NY".into()),
            ..ny.clone()
        };
        assert_eq!(
            priced(&store(), &lines, &[], Some(&full_code), None).tax_minor,
            888
        );
        let by_name = Location {
            region: Some("New York".into()),
            ..ny.clone()
        };
        assert_eq!(
            priced(&store(), &lines, &[], Some(&by_name), None).tax_minor,
            0
        );
        let fr = Location {
            country: "FR".into(),
            ..Default::default()
        };
        let t = priced(&store(), &lines, &[], Some(&fr), None);
        assert_eq!(t.tax_minor, 1000);
        assert_eq!(t.applied_taxes[0].rule.country, "*");
    }

    #[test]
    fn tax_included_in_prices_is_not_added_again() {
        let mut s = store();
        s.taxes.prices_include_tax = true;
        // 121.00 including 21% → 21.00 of it is tax.
        let t = priced(&s, &[line(3, 1, 12100, 0)], &[], Some(&nl()), None);
        assert_eq!(t.tax_minor, 2100);
        assert_eq!(t.grand_total_minor, 12100);
        assert!(t.prices_include_tax);
    }

    #[test]
    fn tax_is_rounded_once_per_cart_not_per_line() {
        // Three lines of 0.10 at 21%: per line 2.1 → 2 cents each (6); on the whole 6.3 → 6.
        // Seven lines of 0.05 at 10% ("*"): per line 0.5 → 1 each (7); whole 3.5 → 4.
        let fr = Location {
            country: "FR".into(),
            ..Default::default()
        };
        let lines: Vec<Line> = (0..7).map(|_| line(3, 1, 5, 0)).collect();
        assert_eq!(priced(&store(), &lines, &[], Some(&fr), None).tax_minor, 4);
    }
}
