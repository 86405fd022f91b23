//! The commerce formatters that print text directly (no built-in template).

use std::sync::LazyLock;

use super::product::{self, Money, Product, get, variant_descriptor};
use crate::exec::Ctx;
use crate::plugins::util::escape_attr;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::number::push_number;
use crate::value::{Key, Val, View, key};

/// `cart-quantity`: the total quantity over the cart's entries, in a span.
pub fn cart_quantity<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let entries = get(vars[0].view(), key!("entries"));
    let count: f64 = product::elements(entries)
        .iter()
        .map(|e| get(View::of(e), key!("quantity")).to_number())
        .sum();
    let mut out = String::from("<span class=\"sqs-cart-quantity\">");
    push_number(count, &mut out);
    out.push_str("</span>");
    vars[0] = Val::Text(out);
}

/// `cart-subtotal`: retired; prints a notice instead of the subtotal.
pub fn cart_subtotal<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::text("deprecated, do not use");
}

/// `cart-url`: the cart page (SPEC §2 "Routes").
pub fn cart_url<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    vars[0] = Val::text("/cart");
}

fn legacy_price<'a>(vars: &mut [Val<'a>], pick: for<'x> fn(&Product<'x>) -> Money<'x>) {
    let text = pick(&Product::of(vars[0].view()))
        .legacy_cents()
        .to_string();
    vars[0] = Val::Text(text);
}

/// `from-price`: the lowest selling price, in minor units (`1999`).
pub fn from_price<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    legacy_price(vars, product::from_price);
}

/// `normal-price`: the highest regular price, in minor units.
pub fn normal_price<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    legacy_price(vars, product::normal_price);
}

/// `sale-price`: the lowest sale price, in minor units (0 when nothing is on sale).
pub fn sale_price<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    legacy_price(vars, product::sale_price);
}

/// `variant-descriptor`: a variant's option values, `Red / Large`.
pub fn variant_descriptor_fmt<'a>(_: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    let mut out = String::new();
    variant_descriptor(vars[0].view(), &mut out);
    vars[0] = Val::Text(out);
}

/// `product-quick-view [GROUP]`: the "Quick View" button. The group is the item's member
/// named by the argument, else the variable it names, else the argument itself.
pub fn product_quick_view<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
    static TEXT: LazyLock<VarPath> =
        LazyLock::new(|| VarPath::from_dotted("localizedStrings.productQuickViewText"));
    let item = vars[0].view();
    let mut group = args.get(0).unwrap_or_default().to_owned();
    match get(item, Key::new(&group)) {
        View::Missing => {
            let found = ctx.resolve_transient(&single_key(&group));
            if !found.is_missing() {
                group = found.view().to_str().into_owned();
            }
        }
        v => group = v.to_str().into_owned(),
    }
    let mut out = String::from(
        "<span class=\"sqs-product-quick-view-button\" role=\"button\" tabindex=\"0\" data-id=\"",
    );
    out.push_str(&get(item, key!("id")).to_str());
    out.push_str("\" data-group=\"");
    out.push_str(&group);
    out.push_str("\">");
    match ctx.resolve(&*TEXT) {
        Val::Missing => out.push_str("Quick View"),
        v => out.push_str(&v.view().to_str()),
    }
    out.push_str("</span>");
    vars[0] = Val::Text(out);
}

/// A reference to one key, dots and all (the reference resolves `[name]` here).
fn single_key(name: &str) -> VarPath {
    if !name.contains('.') {
        return VarPath::from_dotted(name);
    }
    VarPath::key(name)
}

/// `product-status`: the product mark (SPEC §4 "Derived product status"): sold out first
/// (the merchant's custom text, else the localized text, else "sold out"), then sale.
/// Nothing for other products.
pub fn product_status<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static MERCH: LazyLock<VarPath> =
        LazyLock::new(|| VarPath::from_dotted("productMerchandisingContext"));
    static SOLD_OUT: LazyLock<VarPath> =
        LazyLock::new(|| VarPath::from_dotted("localizedStrings.productSoldOutText"));
    static SALE: LazyLock<VarPath> =
        LazyLock::new(|| VarPath::from_dotted("localizedStrings.productSaleText"));
    let item = vars[0].view();
    let product = Product::of(item);
    if product::is_sold_out(&product) {
        let id = get(item, key!("id")).to_str();
        let merch = ctx.resolve(&*MERCH);
        let custom = if !id.is_empty() && !merch.is_missing() {
            get(get(merch.view(), Key::new(&id)), key!("customSoldOutText"))
                .to_str()
                .into_owned()
        } else {
            String::new()
        };
        let localized = ctx.resolve(&*SOLD_OUT);
        let localized = localized.view().to_str();
        let text = [custom.as_str(), &localized]
            .into_iter()
            .find(|s| !s.is_empty())
            .unwrap_or("sold out");
        let mut out = String::from("<div class=\"product-mark sold-out\">");
        escape_attr(text, &mut out);
        out.push_str("</div>");
        vars[0] = Val::Text(out);
    } else if product::is_on_sale(&product) {
        let localized = ctx.resolve(&*SALE);
        let localized = localized.view().to_str();
        let text = if localized.is_empty() {
            "sale"
        } else {
            &localized
        };
        vars[0] = Val::Text(format!("<div class=\"product-mark sale\">{text}</div>"));
    } else {
        vars[0] = Val::Missing;
    }
}
