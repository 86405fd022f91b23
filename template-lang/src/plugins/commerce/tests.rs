//! Commerce formatters and predicates against the reference. Every expected string was
//! produced by running the reference (template-engine 2.10.10 with @phensley/cldr 1.14)
//! on the same template and data.

use icu_locale::Locale;

use crate::compile::Template;
use crate::exec::{Env, execute};
use crate::value::Node;

/// Renders `template` against `json` with `locale` (`None`: no locale data).
fn render_in(template: &str, json: &str, locale: Option<Locale>) -> String {
    let t = Template::parse_strict(template).expect("test templates compile");
    let data = Node::from_json_str(json).expect("test data is JSON");
    let env = Env {
        locale,
        ..Env::default()
    };
    let mut out = String::new();
    execute(&t, &data, &env, &mut out);
    out
}

/// One table case: a template, its data and locale, and the reference's output.
pub(super) struct Case {
    pub name: &'static str,
    pub template: &'static str,
    pub data: &'static str,
    pub locale: &'static str,
    pub expected: &'static str,
}

/// The SPEC rules (derived status, quantity input, add-to-cart labels, variant
/// placeholders, subscription periods, money) and the formatters' edge cases, each
/// compared with the reference's output for the same input (`tests_data.rs`).
#[test]
fn reference_table() {
    let mut failures = Vec::new();
    for case in super::tests_data::CASES {
        let locale: Locale = case.locale.parse().expect("test locales parse");
        let got = render_in(case.template, case.data, Some(locale));
        if got != case.expected {
            failures.push(format!(
                "{}:\n  expected {:?}\n       got {:?}",
                case.name, case.expected, got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A likert field without answers makes the reference fail: the formatter prints
/// nothing and records an error.
#[test]
fn likert_without_values() {
    let t = "[{f|summary-form-field}]";
    assert_eq!(render(t, r#"{"f":{"rawTitle":"Q","type":"likert"}}"#), "[]");
    assert_eq!(
        render(t, r#"{"f":{"rawTitle":"Q","type":"likert","values":null}}"#),
        "[]"
    );
}

fn render(template: &str, json: &str) -> String {
    render_in(template, json, Some(icu_locale::locale!("en")))
}

#[test]
fn table_covers_the_spec_strings() {
    let all: String = super::tests_data::CASES
        .iter()
        .map(|c| c.expected)
        .collect();
    for s in [
        "Add To Cart",
        "Subscribe",
        "Select Size",
        "Select Value",
        "sold out",
        "product-mark sale",
        "max=\"9999\" min=\"1\" value=\"1\" type=\"number\" step=\"1\"",
        "Unavailable",
        "every month",
        "for 1 year",
        "N/A",
        "Strongly Agree",
        "¥2,500",
    ] {
        assert!(all.contains(s), "no case prints {s:?}");
    }
}

/// Without locale data the CLDR formatters print nothing, and neither does the price
/// block: its template prints the prices through `message`, which needs locale data (the
/// reference's runner cannot run without a locale; this follows its source).
#[test]
fn no_locale() {
    let t = "[{@|bookkeeper-money-format}][{@|percentage-format}]";
    assert_eq!(render_in(t, "12345", None), "[][]");
    let t = "{@|product-price}";
    let d = r#"{"structuredContent":{"productType":2,"priceMoney":{"value":"5","currency":"EUR"}},"featureFlags":{"useCLDRMoneyFormat":true}}"#;
    assert_eq!(
        render_in(t, d, None),
        "\n\n\n<div class=\"product-price\">\n\n</div>"
    );
    let d =
        r#"{"structuredContent":{"productType":2,"priceMoney":{"value":"5","currency":"EUR"}}}"#;
    assert_eq!(
        render_in(t, d, None),
        "\n\n\n<div class=\"product-price\">\n\n</div>"
    );
    assert_eq!(render_in("{@|from-price}", d, None), "500");
}

#[test]
fn builtin_templates_compile_strictly() {
    for (name, source) in super::templates::all_sources() {
        if let Err(e) = Template::parse_strict(source.trim_end()) {
            panic!("{name}: {:?}", e.first().map(|d| &d.message));
        }
    }
}

/// The built-in formatters print through their emitting twins when they end a chain and
/// return text otherwise: both ways must print the same. Each single-tag case of the table
/// runs again with `|str` after its formatter, which leaves text as it is.
#[test]
fn chained_and_emitted_builtins_print_the_same() {
    let mut checked = 0;
    for case in super::tests_data::CASES {
        let t = case.template;
        if !(t.starts_with('{') && t.ends_with('}') && t.matches('{').count() == 1) {
            continue;
        }
        let chained = format!("{}|str}}", &t[..t.len() - 1]);
        let locale: Locale = case.locale.parse().expect("test locales parse");
        let got = render_in(&chained, case.data, Some(locale));
        assert_eq!(got, case.expected, "{}: {chained}", case.name);
        checked += 1;
    }
    assert!(checked > 40, "only {checked} single-tag cases");
}

/// The formatters `product-price` needs, and `product-price-by-template`, which renders
/// its built-in template.
fn registry_with_price_oracle() -> crate::plugins::Registry {
    let mut registry = crate::plugins::Registry::default();
    crate::plugins::core::register(&mut registry);
    crate::plugins::i18n::register(&mut registry);
    super::register(&mut registry);
    registry.add_formatter(
        "product-price-by-template",
        super::templates::product_price_by_template,
    );
    registry
}

/// `product-price` writes its markup directly; its built-in template stays the definition.
/// Every combination of product type, variant prices, sale state, subscription plan, money
/// format, localized texts and locale prints the same both ways, through the formatter and
/// through its emitting twin.
#[test]
fn direct_product_price_matches_its_template() {
    let registry = registry_with_price_oracle();
    let compile = |source: &str| {
        let c = Template::compile(source, &registry);
        assert!(c.errors.is_empty(), "{source}: {:?}", c.errors);
        c.template
    };
    let oracle = compile("{@|product-price-by-template}");
    let forms = [
        compile("{@|product-price}"),
        compile("{@|product-price|str}"),
        compile("{@|product-price-by-template}"),
    ];
    let money = |v: &str| format!(r#"{{"value":"{v}","currency":"EUR"}}"#);
    let variant = |price: &str, sale: Option<&str>| {
        format!(
            r#"{{"price":{p},"priceMoney":{pm},"onSale":{on},"salePrice":{s},"salePriceMoney":{sm}}}"#,
            p = price.replace('.', ""),
            pm = money(price),
            on = sale.is_some(),
            s = sale.unwrap_or("0").replace('.', ""),
            sm = money(sale.unwrap_or("0")),
        )
    };
    let variant_sets = [
        vec![],
        vec![variant("12.50", None)],
        vec![variant("12.50", None), variant("12.50", None)],
        vec![variant("12.50", None), variant("1400", None)],
        vec![variant("12.50", Some("9.99")), variant("12.50", None)],
        vec![variant("20", Some("15")), variant("20", Some("15"))],
    ];
    let mut products = Vec::new();
    for kind in [
        "",
        r#""productType":-1,"#,
        r#""productType":1,"#,
        r#""productType":3,"#,
        r#""productType":4,"#,
        r#""productType":9,"#,
    ] {
        for variants in &variant_sets {
            products.push(format!(r#"{{{kind}"variants":[{}]}}"#, variants.join(",")));
        }
    }
    for on_sale in [false, true] {
        products.push(format!(
            r#"{{"productType":2,"priceMoney":{},"salePriceMoney":{},"onSale":{on_sale}}}"#,
            money("30"),
            money("25.5")
        ));
    }
    // Subscriptions: every month until cancelled, every two weeks six times, monthly for a
    // year (a whole number of years), and a plan without a billing period.
    let plans = [
        r#"{"billingPeriod":{"value":1,"unit":"MONTH"}}"#,
        r#"{"billingPeriod":{"value":2,"unit":"WEEK"},"numBillingCycles":6}"#,
        r#"{"billingPeriod":{"value":1,"unit":"MONTH"},"numBillingCycles":12}"#,
        r#"{}"#,
    ];
    for plan in plans {
        for variants in &variant_sets[1..] {
            products.push(format!(
                r#"{{"productType":1,"isSubscribable":true,"subscriptionPlan":{plan},"variants":[{}]}}"#,
                variants.join(",")
            ));
        }
    }
    let contexts = [
        "",
        r#","featureFlags":{"useCLDRMoneyFormat":true}"#,
        r#","localizedStrings":{"productPriceFromText":"ab {fromPrice}"}"#,
        r#","localizedStrings":{"productPriceFromText":"{0} und mehr, {price}"},"featureFlags":{"useCLDRMoneyFormat":true}"#,
        r#","localizedStrings":{"salePriceText":"Angebot","originalPriceText":"Vorher"}"#,
        concat!(
            r#","localizedStrings":{"productPriceUnavailable":"Nicht verfügbar","#,
            r#""productPrice__singlePrice__1Monthly__indefinite":"{price} im Monat","#,
            r#""productPrice__multiplePrices__1Monthly__limited__1Years":"ab {fromPrice}, {duration} Jahr","#,
            r#""productPrice__singlePrice__nWeekly__limited__nWeeks":"{price} alle {billingPeriodValue} Wochen, {duration} Wochen"}"#,
            r#","featureFlags":{"useCLDRMoneyFormat":true}"#
        ),
    ];
    let mut checked = 0;
    for product in &products {
        for context in contexts {
            let json = format!(r#"{{"structuredContent":{product}{context}}}"#);
            let data = Node::from_json_str(&json).expect("test data is JSON");
            for locale in [
                Some(icu_locale::locale!("en")),
                Some(icu_locale::locale!("de")),
                None,
            ] {
                let env = Env {
                    locale,
                    ..Env::default()
                };
                let run = |t: &Template| {
                    let mut out = String::new();
                    let errors = execute(t, &data, &env, &mut out);
                    assert!(errors.is_empty(), "{json}: {errors:?}");
                    out
                };
                let expected = run(&oracle);
                assert!(expected.contains("product-price"), "{json}");
                for form in &forms {
                    assert_eq!(run(form), expected, "{json} in {:?}", env.locale);
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, (6 * 6 + 2 + 4 * 5) * 6 * 3);
}

/// The product rules' answers are kept with each item object. Rendering the same data again
/// reuses them; items with other stock, sale state or prices (as a new content version
/// builds) get their own, even under the same id.
#[test]
fn kept_product_facts_belong_to_their_item() {
    let template = "{.repeated section items}{.sold-out?}S{.or}{.on-sale?}O{.or}-{.end}{.end} {@|product-price}|{.end}";
    let t = Template::parse_strict(template).expect("the template compiles");
    let product = |stock: u32, on_sale: bool, price: &str| {
        format!(
            r#"{{"id": "p1", "structuredContent": {{"productType": 1, "variants": [
                {{"qtyInStock": {stock}, "onSale": {on_sale}, "priceMoney": {{"value": "20.00", "currency": "USD"}},
                  "salePriceMoney": {{"value": "1.00", "currency": "USD"}}}},
                {{"qtyInStock": {stock}, "onSale": false, "priceMoney": {{"value": "{price}", "currency": "USD"}}}}]}}}}"#
        )
    };
    let data = |items: &[String]| {
        Node::from_json_str(&format!(r#"{{"items": [{}]}}"#, items.join(",")))
            .expect("test data is JSON")
    };
    let run = |data: &Node| {
        let mut out = String::new();
        execute(&t, data, &Env::default(), &mut out);
        out
    };
    let before = data(&[product(3, false, "50.00"), product(3, true, "50.00")]);
    let first = run(&before);
    assert!(first.starts_with("- "), "{first}");
    assert!(first.contains("|O "), "{first}");
    assert_eq!(
        run(&before),
        first,
        "a second render reuses the kept answers"
    );

    let after = data(&[product(0, false, "60.00"), product(3, false, "50.00")]);
    let changed = run(&after);
    assert!(changed.starts_with("S "), "{changed}");
    assert!(changed.contains("60.00"), "{changed}");
    assert!(!changed.contains("|O "), "{changed}");
    // The same answers as for objects that never rendered before.
    assert_eq!(
        changed,
        run(&data(&[
            product(0, false, "60.00"),
            product(3, false, "50.00")
        ]))
    );
}

/// `product-price` keeps a product's markup with the item, with what it was written for.
/// One item object priced in scopes with other site texts (the "from" message, a plan's
/// message, "Unavailable"), with CLDR money, with formatter arguments and in another
/// locale prints what its template prints in each, whichever of them kept its markup
/// first: for a product whose prices differ, a subscription and a subscription without a
/// billing period.
#[test]
fn kept_product_price_is_written_for_its_scope_arguments_and_locale() {
    let registry = registry_with_price_oracle();
    let compile = |source: &str| {
        let c = Template::compile(source, &registry);
        assert!(c.errors.is_empty(), "{source}: {:?}", c.errors);
        c.template
    };
    let json = r#"{
        "varied": {"structuredContent": {"productType": 1, "variants": [
            {"price": 1250, "priceMoney": {"value": "12.50", "currency": "EUR"}},
            {"price": 140000, "priceMoney": {"value": "1400", "currency": "EUR"}}]}},
        "monthly": {"structuredContent": {"productType": 1, "isSubscribable": true,
            "subscriptionPlan": {"billingPeriod": {"value": 1, "unit": "MONTH"}},
            "variants": [{"price": 1250, "priceMoney": {"value": "12.50", "currency": "EUR"}}]}},
        "unavailable": {"structuredContent": {"productType": 1, "isSubscribable": true,
            "subscriptionPlan": {},
            "variants": [{"price": 1250, "priceMoney": {"value": "12.50", "currency": "EUR"}}]}},
        "localizedStrings": {"productPriceFromText": "ab {fromPrice}"},
        "other": {"localizedStrings": {"productPriceFromText": "von {fromPrice}",
            "productPrice__singlePrice__1Monthly__indefinite": "{price} im Monat",
            "productPriceUnavailable": "Nicht lieferbar"}},
        "cldr": {"featureFlags": {"useCLDRMoneyFormat": true}}}"#;
    let scopes = [
        "{ITEM|FORMATTER}",
        "{.section other}{ITEM|FORMATTER}{.end}",
        "{.section cldr}{ITEM|FORMATTER}{.end}",
        "{.section cldr}{ITEM|FORMATTER style:code}{.end}",
    ];
    let locales = [
        Some(icu_locale::locale!("en")),
        Some(icu_locale::locale!("de")),
    ];
    let run = |t: &Template, data: &Node, locale: &Option<Locale>| {
        let env = Env {
            locale: locale.clone(),
            ..Env::default()
        };
        let mut out = String::new();
        assert!(execute(t, data, &env, &mut out).is_empty());
        out
    };
    let fresh = || Node::from_json_str(json).expect("test data is JSON");
    for item in ["varied", "monthly", "unavailable"] {
        // Each case: the template, its locale, and what the built-in template prints.
        let cases: Vec<(Template, Option<Locale>, String)> = scopes
            .iter()
            .flat_map(|scope| {
                locales
                    .iter()
                    .map(move |l| (scope.replace("ITEM", item), l))
            })
            .map(|(scope, locale)| {
                let oracle = compile(&scope.replace("FORMATTER", "product-price-by-template"));
                let want = run(&oracle, &fresh(), locale);
                let direct = compile(&scope.replace("FORMATTER", "product-price"));
                (direct, locale.clone(), want)
            })
            .collect();
        for first in 0..cases.len() {
            // A new item object, whose markup the case `first` keeps.
            let data = fresh();
            for (t, locale, want) in cases[first..].iter().chain(&cases[..first]) {
                assert_eq!(
                    &run(t, &data, locale),
                    want,
                    "{item}, kept first by case {first}"
                );
            }
        }
        // The scopes print different things (an unavailable plan prints no money, and
        // legacy money reads the same in both locales), so a markup kept for one and
        // printed for another would show.
        let distinct: std::collections::HashSet<_> = cases.iter().map(|c| &c.2).collect();
        let least = if item == "unavailable" { 2 } else { 4 };
        assert!(distinct.len() >= least, "{item}: {distinct:?}");
    }
}
