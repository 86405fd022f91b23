//! Reading products: type, variants, prices, stock and the derived status rules (SPEC §3
//! "Product", §4 "Derived product status"), as the reference's commerce helpers do.
//!
//! Everything works on borrowed [`View`]s of the item; nothing is copied.

use fixed_decimal::Decimal;

use std::cmp::Ordering;

use crate::plugins::i18n::numbers::{move_point, parse_decimal};
use crate::value::{Key, View, key};

/// Product types (SPEC §3 "Enumerations"). The reference's helpers know 1–4 and -1; any
/// other code, paywall products included, is "no type" to them (see [`product_type`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProductType {
    Undefined = -1,
    Physical = 1,
    Digital = 2,
    Service = 3,
    GiftCard = 4,
    Paywall = 5,
}

impl ProductType {
    pub fn from_code(code: f64) -> Option<ProductType> {
        Some(match code {
            -1.0 => ProductType::Undefined,
            1.0 => ProductType::Physical,
            2.0 => ProductType::Digital,
            3.0 => ProductType::Service,
            4.0 => ProductType::GiftCard,
            5.0 => ProductType::Paywall,
            _ => return None,
        })
    }
}

/// An object member (or array element by index text), or missing.
pub fn get<'x>(v: View<'x>, key: Key<'_>) -> View<'x> {
    match v {
        View::Obj(o) => o
            .get_hashed(key.name, key.hash)
            .map_or(View::Missing, View::of),
        View::Arr(a) => {
            let key = key.name;
            key.parse::<usize>()
                .ok()
                .filter(|_| !key.starts_with('+') && (key == "0" || !key.starts_with('0')))
                .and_then(|i| a.get(i))
                .map_or(View::Missing, View::of)
        }
        _ => View::Missing,
    }
}

/// The elements of an array value (empty for anything else).
pub fn elements(v: View<'_>) -> &[crate::value::Node] {
    match v {
        View::Arr(a) => a,
        _ => &[],
    }
}

/// A store item with the parts every product rule reads, looked up once: a formatter that
/// asks for the type, sale state and prices would otherwise walk to `structuredContent`
/// and its `productType` for each question.
#[derive(Clone, Copy)]
pub struct Product<'x> {
    /// `structuredContent`.
    pub content: View<'x>,
    /// `structuredContent.productType`, as the reference's product helpers see it: `None`
    /// for codes they do not know (paywall included).
    pub kind: Option<ProductType>,
    /// The rules' conclusions, kept with the item object ([`Facts`]); `None` for an item
    /// that is not an object, whose rules are computed on each call.
    facts: Option<&'x Facts>,
}

impl<'x> Product<'x> {
    pub fn of(item: View<'x>) -> Product<'x> {
        if let View::Obj(o) = item
            && let Some(kept) = crate::plugins::kept::kept(o)
        {
            let facts = kept.product.get_or_init(|| Facts::of(o));
            let content = facts
                .content_at
                .map_or(View::Missing, |at| View::of(o.value_at(at)));
            return Product {
                content,
                kind: facts.kind,
                facts: Some(facts),
            };
        }
        Product::read(item)
    }

    /// The product without its kept facts.
    fn read(item: View<'x>) -> Product<'x> {
        let content = get(item, key!("structuredContent"));
        let kind = match content {
            View::Obj(_) => ProductType::from_code(get(content, key!("productType")).to_number())
                .filter(|t| *t != ProductType::Paywall),
            _ => None,
        };
        Product {
            content,
            kind,
            facts: None,
        }
    }

    /// `structuredContent.variants`.
    pub fn variants(&self) -> &'x [crate::value::Node] {
        match self.content {
            View::Obj(_) => elements(get(self.content, key!("variants"))),
            _ => &[],
        }
    }
}

/// What the product rules conclude about an item. A product card asks several formatters
/// and predicates (classes, status, price, sale and sold-out notes) the same questions,
/// each a walk over the variants, and a list page asks them for every product on every
/// request; cached content keeps the item objects, so the answers are worked out once per
/// item and content version ([`crate::plugins::kept`]).
pub(crate) struct Facts {
    /// The position of `structuredContent` in the item.
    content_at: Option<usize>,
    kind: Option<ProductType>,
    on_sale: bool,
    sold_out: bool,
    varied_prices: bool,
    total_stock: f64,
    from: PriceAt,
    normal: PriceAt,
    sale: PriceAt,
}

impl Facts {
    fn of(item: &crate::value::Object) -> Facts {
        let p = &Product::read(View::Obj(item));
        Facts {
            content_at: item.position("structuredContent"),
            kind: p.kind,
            on_sale: rules::is_on_sale(p),
            sold_out: rules::is_sold_out(p),
            varied_prices: rules::has_varied_prices(p),
            total_stock: rules::total_stock(p),
            from: rules::from_price(p),
            normal: rules::normal_price(p),
            sale: rules::sale_price(p),
        }
    }
}

/// Where a rule found a price, so that kept facts can point into the item instead of
/// borrowing from it.
#[derive(Clone, Copy)]
enum PriceAt {
    /// The default money (0 USD).
    Default,
    /// Variant `.0`'s money under key `.1`.
    Variant(usize, Key<'static>),
    /// A digital good's money under the key in `structuredContent`.
    Content(Key<'static>),
}

impl PriceAt {
    fn money<'x>(self, p: &Product<'x>) -> Money<'x> {
        match self {
            PriceAt::Default => Money::Default,
            PriceAt::Variant(i, key) => Money::Node(get(View::of(&p.variants()[i]), key)),
            PriceAt::Content(key) => match get(p.content, key) {
                View::Missing => Money::Default,
                m => Money::Node(m),
            },
        }
    }
}

/// `structuredContent.productType` of `item` (see [`Product::kind`]).
pub fn product_type(item: View<'_>) -> Option<ProductType> {
    Product::of(item).kind
}

pub fn is_subscribable(p: &Product<'_>) -> bool {
    matches!(p.content, View::Obj(_)) && get(p.content, key!("isSubscribable")).to_bool()
}

/// More than one variant, except for digital goods (which have a single price).
pub fn has_variants(p: &Product<'_>) -> bool {
    p.kind != Some(ProductType::Digital) && p.variants().len() > 1
}

/// A price: a money object (`value` + `currency`) from the data, or the default money
/// (0 USD) the reference falls back to.
#[derive(Clone, Copy)]
pub enum Money<'x> {
    Node(View<'x>),
    Default,
}

impl<'x> Money<'x> {
    /// The amount; 0 when it is missing, empty or not a number.
    pub fn amount(self) -> Decimal {
        match self {
            Money::Node(_) => parse_decimal(&self.amount_text()).unwrap_or_default(),
            Money::Default => Decimal::default(),
        }
    }

    /// The text [`Money::amount`] parses ("" for the default money, which is 0).
    pub fn amount_text(self) -> std::borrow::Cow<'x, str> {
        match self {
            Money::Node(v) => get(v, key!("value")).to_str(),
            Money::Default => "".into(),
        }
    }

    /// The currency code, trimmed; USD when there is none.
    pub fn currency(self) -> String {
        match self {
            Money::Node(v) => match get(v, key!("currency")) {
                View::Missing => "USD".into(),
                c => c.to_str().trim().to_owned(),
            },
            Money::Default => "USD".into(),
        }
    }

    /// The amount in minor units, the legacy price formatters' number (`19.99` → `1999`).
    pub fn legacy_cents(self) -> Decimal {
        let mut d = self.amount();
        move_point(&mut d, 2);
        d
    }
}

/// The order the reference's price comparisons use. It is numeric order except for zero,
/// which it places as if it were a number between 0.99… and 1 (of its own sign): so a
/// positive amount below one sorts *before* a zero amount, and `-0` before `-0.5`. The
/// "from" (lowest) and "normal" (highest) prices pick variants by this order.
fn reference_order(a: &Decimal, b: &Decimal) -> Ordering {
    let (x, y) = (&a.absolute, &b.absolute);
    if x.is_zero() && y.is_zero() {
        return Ordering::Equal;
    }
    let negative = |d: &Decimal| d.sign == fixed_decimal::Sign::Negative;
    match (negative(a), negative(b)) {
        (true, false) => return Ordering::Less,
        (false, true) => return Ordering::Greater,
        _ => {}
    }
    let top = |u: &fixed_decimal::UnsignedDecimal| {
        if u.is_zero() {
            0
        } else {
            u.nonzero_magnitude_start()
        }
    };
    let mut order = top(x).cmp(&top(y));
    if order == Ordering::Equal {
        let high = top(x);
        let low = x
            .nonzero_magnitude_end()
            .min(y.nonzero_magnitude_end())
            .min(high);
        order = (low..=high)
            .rev()
            .map(|m| x.digit_at(m).cmp(&y.digit_at(m)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal);
    }
    if negative(a) { order.reverse() } else { order }
}

/// The price a variant sells at: its sale price when on sale.
pub fn selling_price(variant: View<'_>) -> View<'_> {
    get(variant, selling_key(variant))
}

/// The key of the price a variant sells at.
fn selling_key(variant: View<'_>) -> Key<'static> {
    if get(variant, key!("onSale")).truthy() {
        key!("salePriceMoney")
    } else {
        key!("priceMoney")
    }
}

/// The lowest selling price among the variants (the first on ties); a digital good's price.
pub fn from_price<'x>(p: &Product<'x>) -> Money<'x> {
    p.facts
        .map_or_else(|| rules::from_price(p), |f| f.from)
        .money(p)
}

/// The highest regular price among the variants (the first on ties).
pub fn normal_price<'x>(p: &Product<'x>) -> Money<'x> {
    p.facts
        .map_or_else(|| rules::normal_price(p), |f| f.normal)
        .money(p)
}

/// The lowest sale price among the variants on sale; a digital good's sale price.
pub fn sale_price<'x>(p: &Product<'x>) -> Money<'x> {
    p.facts
        .map_or_else(|| rules::sale_price(p), |f| f.sale)
        .money(p)
}

/// Units in stock over all variants; unlimited (`u64::MAX`) for digital goods, gift cards
/// and any variant with unlimited stock.
pub fn total_stock(p: &Product<'_>) -> f64 {
    p.facts
        .map_or_else(|| rules::total_stock(p), |f| f.total_stock)
}

/// Whether variants differ in price, sale price (when on sale) or sale status.
pub fn has_varied_prices(p: &Product<'_>) -> bool {
    p.facts
        .map_or_else(|| rules::has_varied_prices(p), |f| f.varied_prices)
}

/// On sale: any variant on sale, or a digital good on sale. Gift cards never are.
pub fn is_on_sale(p: &Product<'_>) -> bool {
    p.facts.map_or_else(|| rules::is_on_sale(p), |f| f.on_sale)
}

/// Sold out: a physical product or service whose every variant is limited with no stock
/// left. Digital goods and gift cards never are; items of no known type always are.
pub fn is_sold_out(p: &Product<'_>) -> bool {
    p.facts
        .map_or_else(|| rules::is_sold_out(p), |f| f.sold_out)
}

/// The product rules themselves, read straight from the item ([`Facts`] keeps their
/// answers).
mod rules {
    use super::*;

    pub(super) fn from_price(p: &Product<'_>) -> PriceAt {
        match p.kind {
            Some(ProductType::GiftCard | ProductType::Physical | ProductType::Service) => {
                pick(p.variants(), selling_key, Ordering::Less)
            }
            Some(ProductType::Digital) => PriceAt::Content(key!("priceMoney")),
            _ => PriceAt::Default,
        }
    }

    pub(super) fn normal_price(p: &Product<'_>) -> PriceAt {
        match p.kind {
            Some(ProductType::GiftCard | ProductType::Physical | ProductType::Service) => {
                let regular = |_: View<'_>| key!("priceMoney");
                pick(p.variants(), regular, Ordering::Greater)
            }
            Some(ProductType::Digital) => PriceAt::Content(key!("priceMoney")),
            _ => PriceAt::Default,
        }
    }

    pub(super) fn sale_price(p: &Product<'_>) -> PriceAt {
        match p.kind {
            Some(ProductType::Physical | ProductType::Service) => {
                let mut best: Option<(usize, Decimal)> = None;
                for (i, v) in p.variants().iter().enumerate() {
                    let v = View::of(v);
                    if !get(v, key!("onSale")).truthy() {
                        continue;
                    }
                    let amount = Money::Node(get(v, key!("salePriceMoney"))).amount();
                    if best
                        .as_ref()
                        .is_none_or(|(_, b)| reference_order(&amount, b).is_lt())
                    {
                        best = Some((i, amount));
                    }
                }
                best.map_or(PriceAt::Default, |(i, _)| {
                    PriceAt::Variant(i, key!("salePriceMoney"))
                })
            }
            Some(ProductType::Digital) => PriceAt::Content(key!("salePriceMoney")),
            _ => PriceAt::Default,
        }
    }

    /// The variant money whose amount compares `better` than all others (the first on
    /// ties) under the reference's order; the default money when there are no variants.
    fn pick(
        vs: &[crate::value::Node],
        key_of: impl Fn(View<'_>) -> Key<'static>,
        better: Ordering,
    ) -> PriceAt {
        let Some(first) = vs.first() else {
            return PriceAt::Default;
        };
        let first = View::of(first);
        let mut best = (0, key_of(first));
        if vs.len() == 1 {
            // Nothing to compare with: skip reading the amount.
            return PriceAt::Variant(best.0, best.1);
        }
        let mut price = Money::Node(get(first, best.1)).amount();
        for (i, v) in vs.iter().enumerate().skip(1) {
            let v = View::of(v);
            let key = key_of(v);
            let amount = Money::Node(get(v, key)).amount();
            if reference_order(&amount, &price) == better {
                best = (i, key);
                price = amount;
            }
        }
        PriceAt::Variant(best.0, best.1)
    }

    /// Units in stock over all variants; unlimited (`u64::MAX`) for digital goods, gift cards
    /// and any variant with unlimited stock.
    pub(super) fn total_stock(p: &Product<'_>) -> f64 {
        const UNLIMITED: f64 = 9007199254740991.0;
        if matches!(p.kind, Some(ProductType::Digital | ProductType::GiftCard)) {
            return UNLIMITED;
        }
        let mut total = 0.0;
        for v in p.variants() {
            let v = View::of(v);
            if get(v, key!("unlimited")).truthy() {
                return UNLIMITED;
            }
            total += get(v, key!("qtyInStock")).to_number();
        }
        total
    }

    /// Whether variants differ in price, sale price (when on sale) or sale status.
    pub(super) fn has_varied_prices(p: &Product<'_>) -> bool {
        match p.kind {
            Some(ProductType::GiftCard | ProductType::Physical | ProductType::Service) => {
                let vs = p.variants();
                let Some(first) = vs.first() else {
                    return false;
                };
                let first = View::of(first);
                let (on_sale, sale, price) = (
                    get(first, key!("onSale")),
                    get(first, key!("salePrice")),
                    get(first, key!("price")),
                );
                vs[1..].iter().map(View::of).any(|v| {
                    !get(v, key!("onSale")).equals(on_sale)
                        || (on_sale.truthy() && !get(v, key!("salePrice")).equals(sale))
                        || !get(v, key!("price")).equals(price)
                })
            }
            _ => false,
        }
    }

    /// On sale: any variant on sale, or a digital good on sale. Gift cards never are.
    pub(super) fn is_on_sale(p: &Product<'_>) -> bool {
        match p.kind {
            Some(ProductType::Physical | ProductType::Service) => p
                .variants()
                .iter()
                .any(|v| get(View::of(v), key!("onSale")).truthy()),
            Some(ProductType::Digital) => get(p.content, key!("onSale")).truthy(),
            _ => false,
        }
    }

    /// Sold out: a physical product or service whose every variant is limited with no stock
    /// left. Digital goods and gift cards never are; items of no known type always are.
    pub(super) fn is_sold_out(p: &Product<'_>) -> bool {
        match p.kind {
            Some(ProductType::Physical | ProductType::Service) => !p.variants().iter().any(|v| {
                let v = View::of(v);
                get(v, key!("unlimited")).truthy() || get(v, key!("qtyInStock")).to_number() > 0.0
            }),
            Some(ProductType::Digital | ProductType::GiftCard) => false,
            _ => true,
        }
    }
}

/// `websiteSettings.storeSettings.multipleQuantityAllowedForServices`, true unless set.
pub fn multiple_quantity_allowed_for_services(website_settings: View<'_>) -> bool {
    let store = get(website_settings, key!("storeSettings"));
    if !matches!(store, View::Obj(_)) {
        return true;
    }
    match get(store, key!("multipleQuantityAllowedForServices")) {
        View::Missing | View::Null => true,
        v => v.to_bool(),
    }
}

/// A variant option the shopper chooses (from `variantOptionOrdering`) and the values the
/// variants offer for it, in order of first appearance.
pub struct VariantOption<'x> {
    pub name: std::borrow::Cow<'x, str>,
    pub values: Vec<std::borrow::Cow<'x, str>>,
}

/// The options of an item with more than one variant (none otherwise).
pub fn variant_options(item: View<'_>) -> Vec<VariantOption<'_>> {
    let content = get(item, key!("structuredContent"));
    let vs = elements(get(content, key!("variants")));
    if vs.len() <= 1 {
        return Vec::new();
    }
    let mut options: Vec<VariantOption<'_>> = ordering(get(content, key!("variantOptionOrdering")))
        .map(|name| VariantOption {
            name,
            values: Vec::new(),
        })
        .collect();
    for v in vs {
        let View::Obj(attrs) = get(View::of(v), key!("attributes")) else {
            continue;
        };
        for (field, value) in attrs.iter() {
            let Some(option) = options.iter_mut().find(|o| *o.name == **field) else {
                continue;
            };
            let value = View::of(value).to_str();
            if !option.values.contains(&value) {
                option.values.push(value);
            }
        }
    }
    options
}

/// The option names of `variantOptionOrdering` (an array) as text.
fn ordering(v: View<'_>) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    let n = match v {
        View::Arr(a) => a.len(),
        _ => 0,
    };
    (0..n).map(move |i| match v {
        View::Arr(a) => View::of(&a[i]).to_str(),
        _ => std::borrow::Cow::Borrowed(""),
    })
}

/// A variant's option values joined with " / " (`Red / Large`).
pub fn variant_descriptor(variant: View<'_>, out: &mut String) {
    for (i, o) in elements(get(variant, key!("optionValues")))
        .iter()
        .enumerate()
    {
        if i > 0 {
            out.push_str(" / ");
        }
        out.push_str(&get(View::of(o), key!("value")).to_str());
    }
}

/// The `pricingOptions` of the variant with the lowest selling price (the first on ties),
/// for physical products and services with variants.
pub fn pricing_options_of_lowest_variant<'x>(p: &Product<'x>) -> Option<View<'x>> {
    if !matches!(p.kind, Some(ProductType::Physical | ProductType::Service)) {
        return None;
    }
    // The lowest-priced variant is the one whose price `from_price` gives.
    match p.facts.map_or_else(|| rules::from_price(p), |f| f.from) {
        PriceAt::Variant(i, _) => Some(get(View::of(&p.variants()[i]), key!("pricingOptions"))),
        PriceAt::Default | PriceAt::Content(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Orders checked against the reference's decimal `compare`.
    #[test]
    fn reference_order_of_amounts() {
        let d = |s: &str| parse_decimal(s).unwrap();
        let cases = [
            ("0", "0.5", Ordering::Greater),
            ("0.00", "0.5", Ordering::Greater),
            ("-0", "0.5", Ordering::Less),
            ("-0", "-0.5", Ordering::Less),
            ("0", "-0.5", Ordering::Greater),
            ("0", "1", Ordering::Less),
            ("0", "0.99", Ordering::Greater),
            ("0", "10", Ordering::Less),
            ("-0", "0", Ordering::Equal),
            ("-0.5", "0", Ordering::Less),
            ("1.50", "1.5", Ordering::Equal),
            ("9.99", "10", Ordering::Less),
            ("-2", "-1.5", Ordering::Less),
            ("100.01", "100.009", Ordering::Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(reference_order(&d(a), &d(b)), want, "{a} vs {b}");
        }
    }
}
