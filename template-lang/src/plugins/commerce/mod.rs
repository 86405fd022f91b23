//! The commerce family: product prices and status, the add-to-cart button, variant
//! selects, quantity input, scarcity and restock notices, cart helpers and order-summary
//! form fields, plus the product predicates. The store rules they apply are SPEC §2–§5
//! and §9; product data is read by [`product`], money by [`money`], and the markup-heavy
//! formatters render built-in templates ([`templates`], `templates/*.html`).

mod formatters;
pub mod money;
pub mod product;
pub(crate) mod templates;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_data;

use super::Registry;
use crate::exec::Ctx;
use crate::syntax::tag::Args;

pub fn register(r: &mut Registry) {
    r.add_emitting_formatter(
        "add-to-cart-btn",
        templates::add_to_cart_btn,
        templates::add_to_cart_btn_emit,
    );
    r.add_formatter("bookkeeper-money-format", money::bookkeeper_money_format);
    r.add_formatter("cart-quantity", formatters::cart_quantity);
    r.add_formatter("cart-subtotal", formatters::cart_subtotal);
    r.add_formatter("cart-url", formatters::cart_url);
    r.add_formatter("from-price", formatters::from_price);
    r.add_formatter("normal-price", formatters::normal_price);
    r.add_formatter("percentage-format", money::percentage_format);
    r.add_emitting_formatter(
        "product-checkout",
        templates::product_checkout,
        templates::product_checkout_emit,
    );
    r.add_emitting_formatter(
        "product-price",
        templates::product_price,
        templates::product_price_emit,
    );
    r.add_emitting_formatter(
        "subscription-price",
        templates::subscription_price,
        templates::subscription_price_emit,
    );
    r.add_formatter("product-quick-view", formatters::product_quick_view);
    r.add_emitting_formatter(
        "product-restock-notification",
        templates::product_restock_notification,
        templates::product_restock_notification_emit,
    );
    r.add_emitting_formatter(
        "product-scarcity",
        templates::product_scarcity,
        templates::product_scarcity_emit,
    );
    r.add_formatter("product-status", formatters::product_status);
    r.add_emitting_formatter(
        "quantity-input",
        templates::quantity_input,
        templates::quantity_input_emit,
    );
    r.add_formatter("sale-price", formatters::sale_price);
    r.add_formatter("summary-form-field", templates::summary_form_field);
    r.add_formatter("variant-descriptor", formatters::variant_descriptor_fmt);
    r.add_emitting_formatter(
        "variants-select",
        templates::variants_select,
        templates::variants_select_emit,
    );

    r.add_predicate("has-variants?", has_variants);
    r.add_predicate("on-sale?", on_sale);
    r.add_predicate("sold-out?", sold_out);
    r.add_predicate("varied-prices?", varied_prices);
}

/// `has-variants?`: the current item has more than one variant (never a digital good).
fn has_variants<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    product::has_variants(&product::Product::of(ctx.node().view()))
}

/// `on-sale?`: any variant on sale, or a digital good on sale.
fn on_sale<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    product::is_on_sale(&product::Product::of(ctx.node().view()))
}

/// `sold-out?`: every variant of a physical product or service is out of stock.
fn sold_out<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    product::is_sold_out(&product::Product::of(ctx.node().view()))
}

/// `varied-prices?`: the variants differ in price or sale status.
fn varied_prices<'a>(ctx: &mut Ctx<'a>, _: &'a Args) -> bool {
    product::has_varied_prices(&product::Product::of(ctx.node().view()))
}
