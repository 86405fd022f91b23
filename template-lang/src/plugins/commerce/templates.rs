//! The commerce formatters that render markup through built-in templates (the `.html`
//! files beside this module), compiled once on first use.

use std::borrow::Cow;
use std::sync::{Arc, LazyLock, OnceLock};

use super::money::push_money_string;
use super::product::{self, Money, Product, ProductType, get};
use crate::compile::Template;
use crate::exec::Ctx;
use crate::exec::context::PartialTarget;
use crate::plugins::date::DEFAULT_TIME_ZONE;
use crate::plugins::i18n::push_message;
use crate::syntax::path::VarPath;
use crate::syntax::tag::Args;
use crate::value::{Key, Node, Val, View, key};

/// A built-in template. Files end with a newline for editors; the markup ends with the
/// file's last non-blank character.
struct Builtin {
    name: &'static str,
    template: LazyLock<Arc<Template>>,
}

macro_rules! builtin {
    ($name:literal) => {
        Builtin {
            name: $name,
            template: LazyLock::new(|| {
                compile(include_str!(concat!("templates/", $name, ".html")))
            }),
        }
    };
}

fn compile(source: &str) -> Arc<Template> {
    // The sources are ours and covered by tests; a broken one renders nothing.
    Arc::new(Template::parse_strict(source.trim_end()).unwrap_or_else(|_| Template::empty()))
}

static ADD_TO_CART_BTN: Builtin = builtin!("add-to-cart-btn");
static PRODUCT_CHECKOUT: Builtin = builtin!("product-checkout");
/// The definition of `product-price`'s markup, which [`product_price_out`] writes directly;
/// tests render it and compare.
#[cfg(test)]
static PRODUCT_PRICE: Builtin = builtin!("product-price");
static PRODUCT_RESTOCK_NOTIFICATION: Builtin = builtin!("product-restock-notification");
static PRODUCT_SCARCITY: Builtin = builtin!("product-scarcity");
static QUANTITY_INPUT: Builtin = builtin!("quantity-input");
static SUBSCRIPTION_PRICE: Builtin = builtin!("subscription-price");
static VARIANTS_SELECT: Builtin = builtin!("variants-select");
static SUMMARY_ADDRESS: Builtin = builtin!("summary-form-field-address");
static SUMMARY_CHECKBOX: Builtin = builtin!("summary-form-field-checkbox");
static SUMMARY_DATE: Builtin = builtin!("summary-form-field-date");
static SUMMARY_LIKERT: Builtin = builtin!("summary-form-field-likert");
static SUMMARY_NAME: Builtin = builtin!("summary-form-field-name");
static SUMMARY_PHONE: Builtin = builtin!("summary-form-field-phone");
static SUMMARY_TIME: Builtin = builtin!("summary-form-field-time");

/// Every built-in template, for tests.
#[cfg(test)]
pub(super) fn all_sources() -> Vec<(&'static str, &'static str)> {
    macro_rules! src {
        ($($name:literal),*) => { vec![$(($name, include_str!(concat!("templates/", $name, ".html")))),*] };
    }
    src!(
        "add-to-cart-btn",
        "product-checkout",
        "product-price",
        "product-restock-notification",
        "product-scarcity",
        "quantity-input",
        "subscription-price",
        "variants-select",
        "summary-form-field-address",
        "summary-form-field-checkbox",
        "summary-form-field-date",
        "summary-form-field-likert",
        "summary-form-field-name",
        "summary-form-field-phone",
        "summary-form-field-time"
    )
}

/// Renders a built-in template against `node` on a new frame and returns its text.
/// `private` stops variable lookups at that frame.
fn render<'a>(ctx: &mut Ctx<'a>, b: &'static Builtin, node: Val<'a>, private: bool) -> String {
    let template: &'static Arc<Template> = &b.template;
    ctx.render_partial(
        b.name,
        PartialTarget::Template(template),
        node,
        private,
        None,
    )
}

/// What a built-in formatter prints: a built-in template rendered against a node (on a
/// new frame, `private` or not), or a plain value.
enum Out<'a> {
    Builtin(&'static Builtin, Val<'a>, bool),
    Value(Val<'a>),
    /// Text kept with the item ([`crate::plugins::kept`]).
    Kept(&'a str),
}

/// Defines the formatter `$name` and its emitting twin `$emit` from `$out`, which says what
/// to print. The formatter returns the text; the twin, used when the formatter ends a
/// `{var|...}` chain, renders straight into the output, skipping a buffer and a copy per
/// product on store pages.
macro_rules! builtin_formatter {
    ($(#[$doc:meta])* $name:ident, $emit:ident, $out:ident) => {
        $(#[$doc])*
        pub fn $name<'a>(ctx: &mut Ctx<'a>, args: &'a Args, vars: &mut [Val<'a>]) {
            let item = std::mem::take(&mut vars[0]);
            vars[0] = match $out(ctx, args, item) {
                Out::Builtin(b, node, private) => Val::Text(render(ctx, b, node, private)),
                Out::Value(v) => v,
                Out::Kept(text) => Val::Text(text.to_owned()),
            };
        }

        pub fn $emit<'a>(ctx: &mut Ctx<'a>, args: &'a Args, item: Val<'a>) {
            match $out(ctx, args, item) {
                // `product-checkout` prints the same over a product on every page: with a
                // host whose items outlive the execution, its output is kept with the item.
                Out::Builtin(b, node, false)
                    if std::ptr::eq(b, &PRODUCT_CHECKOUT)
                        && ctx.env.keep_applied
                        && !ctx.env.npm_compat =>
                {
                    crate::plugins::kept::render_kept(
                        ctx,
                        |k| &k.checkout,
                        b.name,
                        PartialTarget::Template(&b.template),
                        node,
                    )
                }
                Out::Builtin(b, node, private) => ctx.render_partial_here(
                    b.name,
                    PartialTarget::Template(&b.template),
                    node,
                    private,
                    None,
                ),
                Out::Value(v) => v.view().print(&mut ctx.out),
                Out::Kept(text) => View::Str(text).print(&mut ctx.out),
            }
        }
    };
}

fn path_of(text: &'static str) -> VarPath {
    VarPath::from_dotted(text)
}

/// An object node from entries, skipping absent values (as JavaScript drops `undefined`).
fn object(entries: Vec<(&str, Option<Node>)>) -> Node {
    Node::object(
        entries
            .into_iter()
            .filter_map(|(k, v)| Some((Arc::from(k), v?)))
            .collect(),
    )
}

builtin_formatter!(
    /// `add-to-cart-btn`: the add-to-cart button ("Add To Cart", "Subscribe" for
    /// subscriptions, or the merchant's custom label).
    add_to_cart_btn,
    add_to_cart_btn_emit,
    add_to_cart_btn_out
);

fn add_to_cart_btn_out<'a>(_: &mut Ctx<'a>, _: &'a Args, item: Val<'a>) -> Out<'a> {
    Out::Builtin(&ADD_TO_CART_BTN, item, false)
}

builtin_formatter!(
    /// `product-checkout`: variant selects, quantity input and add-to-cart button.
    product_checkout,
    product_checkout_emit,
    product_checkout_out
);

fn product_checkout_out<'a>(_: &mut Ctx<'a>, _: &'a Args, item: Val<'a>) -> Out<'a> {
    Out::Builtin(&PRODUCT_CHECKOUT, item, false)
}

builtin_formatter!(
    /// `quantity-input`: shown for physical products, and for services when the store allows
    /// several of them (the default); never for subscriptions, nor with one unit or less in
    /// stock (SPEC §2 "Quantity input").
    quantity_input,
    quantity_input_emit,
    quantity_input_out
);

fn quantity_input_out<'a>(ctx: &mut Ctx<'a>, _: &'a Args, item: Val<'a>) -> Out<'a> {
    static SETTINGS: LazyLock<VarPath> = LazyLock::new(|| path_of("websiteSettings"));
    let product = Product::of(item.view());
    let settings = ctx.resolve(&*SETTINGS);
    let allowed = match product.kind {
        Some(ProductType::Physical) => true,
        Some(ProductType::Service) => {
            product::multiple_quantity_allowed_for_services(settings.view())
        }
        _ => false,
    } && !product::is_subscribable(&product);
    if !allowed || product::total_stock(&product) <= 1.0 {
        return Out::Value(Val::Missing);
    }
    Out::Builtin(&QUANTITY_INPUT, item, false)
}

builtin_formatter!(
    /// `variants-select`: one dropdown (and radio group) per variant option, with the
    /// "Select {variantName}" placeholder ("Select Value" for gift cards). Nothing for items
    /// with fewer than two variants.
    variants_select,
    variants_select_emit,
    variants_select_out
);

fn variants_select_out<'a>(ctx: &mut Ctx<'a>, _: &'a Args, item: Val<'a>) -> Out<'a> {
    static GIFT_SELECT: LazyLock<VarPath> =
        LazyLock::new(|| path_of("localizedStrings.giftCardVariantSelectText"));
    static GIFT_DISPLAY: LazyLock<VarPath> =
        LazyLock::new(|| path_of("localizedStrings.giftCardValueDisplayText"));
    static PRODUCT_SELECT: LazyLock<VarPath> =
        LazyLock::new(|| path_of("localizedStrings.productVariantSelectText"));
    let view = item.view();
    let options = product::variant_options(view);
    if options.is_empty() {
        return Out::Value(Val::Missing);
    }
    let gift = product::product_type(view) == Some(ProductType::GiftCard);
    let localized = |ctx: &Ctx<'a>, p: &'static VarPath, fallback: &str| {
        let v = ctx.resolve(p);
        let s = v.view().to_str();
        if s.is_empty() {
            fallback.to_owned()
        } else {
            s.into_owned()
        }
    };
    let (select, display) = if gift {
        (
            localized(ctx, &GIFT_SELECT, "Select Value"),
            localized(ctx, &GIFT_DISPLAY, "Value"),
        )
    } else {
        (
            localized(ctx, &PRODUCT_SELECT, "Select {variantName}"),
            "{name}".to_owned(),
        )
    };
    let options: Vec<Node> = options
        .into_iter()
        .map(|o| {
            let values = o.values.iter().map(|v| Node::string(&**v)).collect();
            object(vec![
                ("name", Some(Node::string(&*o.name))),
                ("values", Some(Node::array(values))),
            ])
        })
        .collect();
    let node = object(vec![
        ("item", item.to_node()),
        ("options", Some(Node::array(options))),
        ("selectText", Some(Node::from(select))),
        ("displayText", Some(Node::from(display))),
    ]);
    Out::Builtin(&VARIANTS_SELECT, Val::Own(node), false)
}

builtin_formatter!(
    /// `product-restock-notification`: the back-in-stock signup forms configured for the
    /// product in `productMerchandisingContext`.
    product_restock_notification,
    product_restock_notification_emit,
    product_restock_notification_out
);

fn product_restock_notification_out<'a>(ctx: &mut Ctx<'a>, _: &'a Args, item: Val<'a>) -> Out<'a> {
    static WEBSITE: LazyLock<VarPath> = LazyLock::new(|| path_of("website"));
    static MERCH: LazyLock<VarPath> = LazyLock::new(|| path_of("productMerchandisingContext"));
    let website = ctx.resolve(&*WEBSITE);
    let merch = ctx.resolve(&*MERCH);
    let id = get(item.view(), key!("id")).to_str().into_owned();
    let product = merch.child(&id, None);
    let node = object(vec![
        ("product", item.to_node()),
        (
            "views",
            product.child("restockNotificationViews", None).to_node(),
        ),
        (
            "messages",
            product.child("restockNotificationMessages", None).to_node(),
        ),
        (
            "mailingListSignUpEnabled",
            product.child("mailingListSignUpEnabled", None).to_node(),
        ),
        (
            "mailingListOptInByDefault",
            product.child("mailingListOptInByDefault", None).to_node(),
        ),
        (
            "captchaSiteKey",
            website
                .child("captchaSettings", None)
                .child("siteKey", None)
                .to_node(),
        ),
    ]);
    Out::Builtin(&PRODUCT_RESTOCK_NOTIFICATION, Val::Own(node), false)
}

builtin_formatter!(
    /// `product-scarcity`: the low-stock messages, when scarcity is enabled for the product.
    /// Otherwise the value is left as it is.
    product_scarcity,
    product_scarcity_emit,
    product_scarcity_out
);

fn product_scarcity_out<'a>(ctx: &mut Ctx<'a>, _: &'a Args, item: Val<'a>) -> Out<'a> {
    static MERCH: LazyLock<VarPath> = LazyLock::new(|| path_of("productMerchandisingContext"));
    let merch = ctx.resolve(&*MERCH);
    if merch.is_missing() {
        return Out::Value(item);
    }
    let id = get(item.view(), key!("id")).to_str().into_owned();
    let product = match merch.view() {
        View::Obj(_) | View::Arr(_) => merch.child(&id, id.parse().ok()),
        _ => Val::Missing,
    };
    if product.is_missing() || !product.child("scarcityEnabled", None).view().to_bool() {
        return Out::Value(item);
    }
    let node = object(vec![
        (
            "scarcityTemplateViews",
            product.child("scarcityTemplateViews", None).to_node(),
        ),
        (
            "scarcityText",
            product.child("scarcityText", None).to_node(),
        ),
        (
            "scarcityShownByDefault",
            product.child("scarcityShownByDefault", None).to_node(),
        ),
    ]);
    Out::Builtin(&PRODUCT_SCARCITY, Val::Own(node), false)
}

// ---- prices ---------------------------------------------------------------------------

static FROM_TEXT: LazyLock<VarPath> =
    LazyLock::new(|| path_of("localizedStrings.productPriceFromText"));

fn money_string(ctx: &Ctx<'_>, money: Money<'_>, args: &Args) -> Node {
    Node::from(money_text(ctx, money, args))
}

fn money_text(ctx: &Ctx<'_>, money: Money<'_>, args: &Args) -> String {
    // Room for the legacy markup of a price (`<span class="sqs-money-native">…</span>`).
    let mut s = String::with_capacity(64);
    push_money_string(ctx, money, args, &mut s);
    s
}

/// A localized string, or `fallback` when the data has none.
fn localized_or(ctx: &Ctx<'_>, p: &'static VarPath, fallback: &str) -> Node {
    match ctx.resolve(p) {
        Val::Missing => Node::from(fallback),
        v => Node::from(v.view().to_str().into_owned()),
    }
}

builtin_formatter!(
    /// `product-price`: the price block: "from" the lowest price when variants differ, else
    /// the sale price with the original price, else the price. Subscriptions say how often
    /// they bill and for how long (SPEC §9 "Subscriptions").
    product_price,
    product_price_emit,
    product_price_out
);

/// The built-in `product-price` template's markup, written directly: it is most of the
/// time of a store's product list, and its template runs in a private frame, so what it
/// prints depends on nothing but the fields `product_price_by_template` gives it (its
/// `localizedStrings` labels always fall back to the English ones). Tests render the
/// template for every case and compare.
///
/// The markup is kept with the item object, with what it was written for from outside the
/// item: the money format flag, the locale, the formatter's arguments and the site's text
/// ([`price_text`]). A call where any of them differs writes the markup anew; the first
/// markup written stays kept.
fn product_price_out<'a>(ctx: &mut Ctx<'a>, args: &'a Args, item: Val<'a>) -> Out<'a> {
    let product = Product::of(item.view());
    let subscription = product::is_subscribable(&product);
    let cldr = super::money::cldr_money(ctx);
    let slot = match item {
        Val::Ref(Node::Object(object)) => crate::plugins::kept::kept(object).map(|k| &k.price),
        _ => None,
    };
    if let Some(kept) = slot.and_then(OnceLock::get) {
        let text = price_text(ctx, &product, subscription, kept.plan_key.as_deref());
        if kept.cldr == cldr
            && kept.locale == ctx.env.locale
            && kept.args == *args
            && kept.text.as_deref() == text.as_deref()
        {
            return Out::Kept(&kept.markup);
        }
    }
    let plan_key: Option<Box<str>> = subscription
        .then(|| subscription_plan(&product))
        .flatten()
        .map(|plan| plan.string_key(product::has_varied_prices(&product)).into());
    let text = price_text(ctx, &product, subscription, plan_key.as_deref());
    let mut out = String::with_capacity(PRODUCT_PRICE_CAPACITY);
    push_price(ctx, args, &product, subscription, text.as_deref(), &mut out);
    if let Some(slot) = slot {
        let mut stored = false;
        let kept = slot.get_or_init(|| {
            stored = true;
            KeptPrice {
                cldr,
                locale: ctx.env.locale.clone(),
                args: args.clone(),
                text: text.as_deref().map(Box::from),
                plan_key,
                markup: std::mem::take(&mut out).into(),
            }
        });
        // Another render of the same item may have kept its markup first.
        if stored {
            return Out::Kept(&kept.markup);
        }
    }
    Out::Value(Val::Text(out))
}

/// A product's `product-price` markup and what it was written for besides the item.
pub(crate) struct KeptPrice {
    cldr: bool,
    locale: Option<icu_locale::Locale>,
    args: Args,
    /// The [`price_text`] it was written with.
    text: Option<Box<str>>,
    /// For a subscription with a billing period: the key of its plan's translation.
    plan_key: Option<Box<str>>,
    markup: Box<str>,
}

/// The price markup of any product; `text` is its [`price_text`].
fn push_price(
    ctx: &mut Ctx<'_>,
    args: &Args,
    p: &Product<'_>,
    subscription: bool,
    text: Option<&str>,
    out: &mut String,
) {
    if subscription {
        push_subscription_product_price(ctx, args, p, text, out);
    } else {
        push_product_price(ctx, args, p, text, out);
    }
}

/// The text a product's price markup takes from the site, borrowed from the data where it
/// is a string there: for a product whose variants' prices differ, the "from" message
/// (or its English fallback); for a subscription, the translation of its plan's message
/// (`plan_key`) or, without a billing period, of "Unavailable" (`None`: no translation).
fn price_text<'a>(
    ctx: &Ctx<'a>,
    p: &Product<'_>,
    subscription: bool,
    plan_key: Option<&str>,
) -> Option<Cow<'a, str>> {
    static STRINGS: LazyLock<VarPath> = LazyLock::new(|| path_of("localizedStrings"));
    let text = |v: Val<'a>| match v {
        Val::Missing => None,
        Val::Ref(node) => Some(View::of(node).to_str()),
        v => Some(Cow::Owned(v.view().to_str().into_owned())),
    };
    if subscription {
        return match plan_key {
            Some(key) => text(ctx.resolve(&*STRINGS).child(key, None)),
            None => text(ctx.resolve(&*UNAVAILABLE)),
        };
    }
    if p.kind == Some(ProductType::Undefined) || !product::has_varied_prices(p) {
        return None;
    }
    Some(text(ctx.resolve(&*FROM_TEXT)).unwrap_or(Cow::Borrowed("from {fromPrice}")))
}

/// Room for the markup of one price (a sale price with both labels is about 300 bytes).
const PRODUCT_PRICE_CAPACITY: usize = 384;

/// What the template prints around the branch that applies.
const PRICE_OPEN: &str = "\n\n\n<div class=\"product-price\">\n";
const PRICE_CLOSE: &str = "\n</div>";

/// The messages a price prints with, and the message arguments besides the price.
struct PriceTexts<'t> {
    /// The "from" branch's message (`fromPrice:` and `price:` are the lowest price).
    from: &'t str,
    /// The sale and regular branches' message (`price:`).
    single: &'t str,
    /// `billingPeriodValue:` and `duration:` (missing except for subscriptions).
    extra: [View<'t>; 2],
}

/// A product without subscription plans; `from` is its [`price_text`].
fn push_product_price(
    ctx: &mut Ctx<'_>,
    args: &Args,
    p: &Product<'_>,
    from: Option<&str>,
    out: &mut String,
) {
    out.push_str(PRICE_OPEN);
    if p.kind != Some(ProductType::Undefined) {
        let texts = PriceTexts {
            from: from.unwrap_or_default(),
            single: "{price}",
            extra: [View::Missing; 2],
        };
        push_price_branch(ctx, args, p, &texts, out);
    }
    out.push_str(PRICE_CLOSE);
}

/// A subscription product: every branch prints the plan's message (`translation`, the
/// site's translation for the plan's key, or English), with the billing period and
/// duration; a plan without a billing period is "Unavailable" (or `translation`).
fn push_subscription_product_price(
    ctx: &mut Ctx<'_>,
    args: &Args,
    p: &Product<'_>,
    translation: Option<&str>,
    out: &mut String,
) {
    out.push_str(PRICE_OPEN);
    match subscription_plan(p) {
        None => {
            // The template's "from" branch, with the price field set to "true".
            let text = translation.unwrap_or("Unavailable");
            price_message(ctx, text, View::Str("true"), true, &[View::Missing; 2], out);
            out.push('\n');
        }
        Some(plan) => {
            let english;
            let text = match translation {
                Some(t) => t,
                None => {
                    english = plan.english(product::has_varied_prices(p));
                    &english
                }
            };
            let texts = PriceTexts {
                from: text,
                single: text,
                extra: [View::Num(plan.period), View::Num(plan.duration().0)],
            };
            push_price_branch(ctx, args, p, &texts, out);
        }
    }
    out.push_str(PRICE_CLOSE);
}

/// The first of the template's branches whose price is there (not empty: CLDR money
/// without a locale prints nothing), formatting only the prices that branch prints.
fn push_price_branch(
    ctx: &mut Ctx<'_>,
    args: &Args,
    p: &Product<'_>,
    texts: &PriceTexts<'_>,
    out: &mut String,
) {
    const HIDDEN: &str = "<span class=\"visually-hidden v6-visually-hidden\">";
    if product::has_varied_prices(p) {
        let from = money_text(ctx, product::from_price(p), args);
        if !from.is_empty() {
            price_message(ctx, texts.from, View::Str(&from), true, &texts.extra, out);
            out.push('\n');
            return;
        }
    }
    if product::is_on_sale(p) {
        let sale = money_text(ctx, product::sale_price(p), args);
        if !sale.is_empty() {
            let normal = money_text(ctx, product::normal_price(p), args);
            out.push_str(HIDDEN);
            out.push_str("Sale Price:</span>");
            price_message(
                ctx,
                texts.single,
                View::Str(&sale),
                false,
                &texts.extra,
                out,
            );
            out.push(' ');
            out.push_str(HIDDEN);
            out.push_str("Original Price:</span><span class=\"original-price\">");
            price_message(
                ctx,
                texts.single,
                View::Str(&normal),
                false,
                &texts.extra,
                out,
            );
            out.push_str("</span>\n");
            return;
        }
    }
    let normal = money_text(ctx, product::normal_price(p), args);
    if !normal.is_empty() {
        price_message(
            ctx,
            texts.single,
            View::Str(&normal),
            false,
            &texts.extra,
            out,
        );
    }
}

/// One of the product-price template's `{text|message ...}` tags: the `from` branch
/// passes `fromPrice:` and `price:`, the others `price:`, all then `billingPeriodValue:`
/// and `duration:`. The template's private frame hides the website, so nested dates would
/// use the default time zone.
fn price_message(
    ctx: &mut Ctx<'_>,
    text: &str,
    price: View<'_>,
    from: bool,
    extra: &[View<'_>; 2],
    out: &mut String,
) {
    // A message that is the price argument alone prints it as it is (and, like every
    // message, not at all without a locale).
    if let (false, "{price}", View::Str(price)) = (from, text, price) {
        if ctx.env.locale.is_some() {
            out.push_str(price);
        }
        return;
    }
    let [period, duration] = *extra;
    let tail = [("billingPeriodValue", period), ("duration", duration)];
    let (positional, keyword): (&[View<'_>], &[(&str, View<'_>)]) = if from {
        (
            &[price, price, period, duration],
            &[("fromPrice", price), ("price", price), tail[0], tail[1]],
        )
    } else {
        (
            &[price, period, duration],
            &[("price", price), tail[0], tail[1]],
        )
    };
    push_message(ctx, text, positional, keyword, DEFAULT_TIME_ZONE, out);
}

/// `product-price` through its built-in template, with the fields the template reads, for
/// tests to compare [`push_product_price`] against.
#[cfg(test)]
pub(super) fn product_price_by_template<'a>(
    ctx: &mut Ctx<'a>,
    args: &'a Args,
    vars: &mut [Val<'a>],
) {
    let item = std::mem::take(&mut vars[0]);
    let p = Product::of(item.view());
    let mut data: Vec<(&str, Option<Node>)> = Vec::new();
    if product::is_subscribable(&p) {
        subscription_fields(ctx, args, &p, &mut data);
    } else if p.kind != Some(ProductType::Undefined) {
        if product::has_varied_prices(&p) {
            let text = localized_or(ctx, &FROM_TEXT, "from {fromPrice}");
            data.push(("fromText", Some(text)));
            let from = money_string(ctx, product::from_price(&p), args);
            data.push(("formattedFromPrice", Some(from)));
        }
        if product::is_on_sale(&p) {
            data.push(("formattedSalePriceText", Some(Node::from("{price}"))));
            let sale = money_string(ctx, product::sale_price(&p), args);
            data.push(("formattedSalePrice", Some(sale)));
        }
        data.push(("formattedNormalPriceText", Some(Node::from("{price}"))));
        let normal = money_string(ctx, product::normal_price(&p), args);
        data.push(("formattedNormalPrice", Some(normal)));
    }
    let text = render(ctx, &PRODUCT_PRICE, Val::Own(object(data)), true);
    vars[0] = Val::Text(text);
}

/// Billing periods per year (SPEC §9 "Subscriptions").
fn periods_per_year(unit: &str) -> Option<f64> {
    match unit {
        "WEEK" => Some(52.0),
        "MONTH" => Some(12.0),
        _ => None,
    }
}

/// `Month` from `MONTH`: the first letter upper-cased, the rest lower-cased.
fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// A subscription's billing plan: every `period` `unit`s, `cycles` times (0: until
/// cancelled).
struct Plan {
    period: f64,
    unit: String,
    cycles: f64,
}

impl Plan {
    /// How long the plan runs, in years when it is a whole number of years.
    fn duration(&self) -> (f64, String) {
        let value = self.period * self.cycles;
        if value > 0.0
            && let Some(per_year) = periods_per_year(&self.unit)
            && value % per_year == 0.0
        {
            return (value / per_year, "YEAR".to_owned());
        }
        (value, self.unit.clone())
    }

    /// The English price text when the site has no translation:
    /// `[from ]{price} every [{billingPeriodValue} ]months[ for {duration} years]`.
    fn english(&self, multiple_prices: bool) -> String {
        let plural = self.period > 1.0;
        let mut s = String::new();
        if multiple_prices {
            s.push_str("from ");
        }
        s.push_str("{price} every ");
        if plural {
            s.push_str("{billingPeriodValue} ");
        }
        s.push_str(&self.unit.to_lowercase());
        if plural {
            s.push('s');
        }
        if self.cycles > 0.0 {
            let (value, unit) = self.duration();
            s.push_str(" for {duration} ");
            s.push_str(&unit.to_lowercase());
            if value != 1.0 {
                s.push('s');
            }
        }
        s
    }

    /// The key of the site's translation for this plan, e.g.
    /// `productPrice__singlePrice__nMonthly__limited__1Years`.
    fn string_key(&self, multiple_prices: bool) -> String {
        let (value, unit) = self.duration();
        let mut key = format!(
            "productPrice__{}__{}{}ly__",
            if multiple_prices {
                "multiplePrices"
            } else {
                "singlePrice"
            },
            if self.period == 1.0 { "1" } else { "n" },
            capitalize(&self.unit),
        );
        if value == 0.0 {
            key.push_str("indefinite");
        } else {
            key.push_str("limited__");
            key.push_str(if value == 1.0 { "1" } else { "n" });
            key.push_str(&capitalize(&unit));
            key.push('s');
        }
        key
    }
}

/// The price fields of a subscription product; "Unavailable" (or its translation) when
/// the plan has no billing period.
static UNAVAILABLE: LazyLock<VarPath> =
    LazyLock::new(|| path_of("localizedStrings.productPriceUnavailable"));

/// A subscription product's billing plan; `None` when it has no billing period.
fn subscription_plan(p: &Product<'_>) -> Option<Plan> {
    let plan = get(p.content, key!("subscriptionPlan"));
    let period = get(plan, key!("billingPeriod"));
    if period.is_missing() {
        return None;
    }
    Some(Plan {
        period: get(period, key!("value")).to_number(),
        unit: get(period, key!("unit")).to_str().into_owned(),
        cycles: get(plan, key!("numBillingCycles")).to_number(),
    })
}

/// The message a plan's prices print with: the site's translation for the plan's key,
/// else English.
#[cfg(test)]
fn plan_text(ctx: &Ctx<'_>, plan: &Plan, multiple: bool) -> Node {
    static STRINGS: LazyLock<VarPath> = LazyLock::new(|| path_of("localizedStrings"));
    match ctx
        .resolve(&*STRINGS)
        .child(&plan.string_key(multiple), None)
    {
        Val::Missing => Node::from(plan.english(multiple)),
        v => Node::from(v.view().to_str().into_owned()),
    }
}

/// The fields the built-in template reads for a subscription product: "Unavailable" (or its
/// translation) when the plan has no billing period.
#[cfg(test)]
fn subscription_fields(
    ctx: &Ctx<'_>,
    args: &Args,
    p: &Product<'_>,
    data: &mut Vec<(&'static str, Option<Node>)>,
) {
    let Some(plan) = subscription_plan(p) else {
        data.push((
            "fromText",
            Some(localized_or(ctx, &UNAVAILABLE, "Unavailable")),
        ));
        data.push(("formattedFromPrice", Some(Node::from("true"))));
        return;
    };
    let multiple = product::has_varied_prices(p);
    data.push(("billingPeriodValue", Some(Node::Number(plan.period))));
    data.push(("duration", Some(Node::Number(plan.duration().0))));
    let text = plan_text(ctx, &plan, multiple);
    if multiple {
        data.push(("fromText", Some(text.clone())));
        let from = money_string(ctx, product::from_price(p), args);
        data.push(("formattedFromPrice", Some(from)));
    }
    if product::is_on_sale(p) {
        data.push(("formattedSalePriceText", Some(text.clone())));
        let sale = money_string(ctx, product::sale_price(p), args);
        data.push(("formattedSalePrice", Some(sale)));
    }
    data.push(("formattedNormalPriceText", Some(text)));
    let normal = money_string(ctx, product::normal_price(p), args);
    data.push(("formattedNormalPrice", Some(normal)));
}

builtin_formatter!(
    /// `subscription-price`: the price of the cheapest variant's subscription pricing
    /// options: "from" when variants differ, the sale price with the original, or the price.
    subscription_price,
    subscription_price_emit,
    subscription_price_out
);

fn subscription_price_out<'a>(ctx: &mut Ctx<'a>, args: &'a Args, item: Val<'a>) -> Out<'a> {
    let p = Product::of(item.view());
    let mut data: Vec<(&str, Option<Node>)> = Vec::new();
    let options = product::pricing_options_of_lowest_variant(&p);
    if let Some(View::Arr(options)) = options
        && let Some(first) = options.first()
    {
        let first = View::of(first);
        if product::has_varied_prices(&p) {
            data.push((
                "fromText",
                Some(localized_or(ctx, &FROM_TEXT, "from {fromPrice}")),
            ));
            let from = Money::Node(product::selling_price(first));
            data.push(("formattedFromPrice", Some(money_string(ctx, from, args))));
        }
        if get(first, key!("onSale")).truthy() {
            data.push((
                "formattedSubscriptionSalePriceText",
                Some(Node::from("{price}")),
            ));
            let sale = Money::Node(get(first, key!("salePriceMoney")));
            data.push((
                "formattedSubscriptionSalePrice",
                Some(money_string(ctx, sale, args)),
            ));
        }
        data.push((
            "formattedNormalSubscriptionPriceText",
            Some(Node::from("{price}")),
        ));
        let normal = Money::Node(get(first, key!("priceMoney")));
        data.push((
            "formattedNormalSubscriptionPrice",
            Some(money_string(ctx, normal, args)),
        ));
    }
    let node = object(data);
    Out::Builtin(&SUBSCRIPTION_PRICE, Val::Own(node), true)
}

// ---- form fields ----------------------------------------------------------------------

/// Likert answers -2..2 and their localized labels (SPEC §9 "Formats and time").
const LIKERT: [(&str, &str, &str); 5] = [
    (
        "-2",
        "productAnswerMapStronglyDisagree",
        "Strongly Disagree",
    ),
    ("-1", "productAnswerMapDisagree", "Disagree"),
    ("0", "productAnswerMapNeutral", "Neutral"),
    ("1", "productAnswerMapAgree", "Agree"),
    ("2", "productAnswerMapStronglyAgree", "Strongly Agree"),
];

/// `summary-form-field`: one answer of a product form in an order summary: the field's
/// title and its value rendered by type ("N/A", or the site's text, when unanswered).
pub fn summary_form_field<'a>(ctx: &mut Ctx<'a>, _: &'a Args, vars: &mut [Val<'a>]) {
    static STRINGS: LazyLock<VarPath> = LazyLock::new(|| path_of("localizedStrings"));
    let strings = ctx.resolve(&*STRINGS);
    let field = vars[0].view();
    let builtin = match &*get(field, key!("type")).to_str() {
        "address" => Some(&SUMMARY_ADDRESS),
        "checkbox" => Some(&SUMMARY_CHECKBOX),
        "date" => Some(&SUMMARY_DATE),
        "likert" => Some(&SUMMARY_LIKERT),
        "name" => Some(&SUMMARY_NAME),
        "phone" => Some(&SUMMARY_PHONE),
        "time" => Some(&SUMMARY_TIME),
        _ => None,
    };
    let value = match builtin {
        None => get(field, key!("value")).to_str().into_owned(),
        Some(b) => {
            let node = if std::ptr::eq(b, &SUMMARY_LIKERT) {
                let Some(rows) = likert_answers(strings.view(), get(field, key!("values"))) else {
                    ctx.error(
                        "summary-form-field: a likert field has no values".into(),
                        None,
                    );
                    vars[0] = Val::Missing;
                    return;
                };
                Val::Own(rows)
            } else {
                vars[0].clone()
            };
            render(ctx, b, node, true)
        }
    };
    let field = vars[0].view();
    let mut out = String::from(
        "<div style=\"font-size:11px; margin-top:3px\">\n  <span style=\"font-weight:bold;\">",
    );
    out.push_str(&get(field, key!("rawTitle")).to_str());
    out.push_str(":</span> ");
    if value.is_empty() {
        let text = get(strings.view(), key!("productSummaryFormNoAnswerText")).to_str();
        let text = crate::value::number::js_trim(&text);
        out.push_str(if text.is_empty() { "N/A" } else { text });
    } else {
        out.push_str(&value);
    }
    out.push_str("\n</div>");
    vars[0] = Val::Text(out);
}

/// The likert answers as `[{question, answer}]`, answers by their label (neutral when
/// the answer is not one of -2..2). Questions are the keys of `values` as JavaScript's
/// `Object.keys` lists them (array and string indexes too); `None` when `values` is
/// missing or null, where the reference fails.
fn likert_answers(strings: View<'_>, values: View<'_>) -> Option<Node> {
    let label = |i: usize| -> Node {
        let (_, key, fallback) = LIKERT[i];
        match get(strings, Key::new(key)) {
            View::Str(s) => Node::from(s),
            _ => Node::from(fallback),
        }
    };
    let row = |question: &str, answer: View<'_>| {
        let answer = answer.to_str();
        let i = LIKERT
            .iter()
            .position(|(k, _, _)| *k == answer)
            .unwrap_or(2);
        let mut answer = label(i);
        // An empty label falls back to the neutral one, as the reference's `||` does.
        if answer.as_str() == Some("") {
            answer = label(2);
        }
        object(vec![
            ("question", Some(Node::from(question))),
            ("answer", Some(answer)),
        ])
    };
    let rows = match values {
        View::Missing | View::Null => return None,
        View::Obj(o) => o.iter().map(|(q, a)| row(q, View::of(a))).collect(),
        View::Arr(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| row(&i.to_string(), View::of(v)))
            .collect(),
        View::Str(s) => {
            // UTF-16 code units, as JavaScript indexes strings.
            let units: Vec<u16> = s.encode_utf16().collect();
            (0..units.len())
                .map(|i| {
                    let unit = String::from_utf16_lossy(&units[i..=i]);
                    row(&i.to_string(), View::Str(&unit))
                })
                .collect()
        }
        View::Bool(_) | View::Num(_) => Vec::new(),
    };
    Some(Node::array(rows))
}
