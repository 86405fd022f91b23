//! Currency data the reference takes from CLDR's supplemental `currencyData` (the release
//! `@phensley/cldr` 1.14 ships): fraction digits per currency, and each region's current
//! currency. ICU4X carries a newer CLDR whose digits differ for a few currencies (COP and
//! IDR have 2 there, 0 here), so the reference's values are kept as data.

/// Currencies whose amounts do not have two fraction digits.
#[rustfmt::skip]
const FRACTION_DIGITS: &[(&str, i32)] = &[
    ("ADP", 0), ("AFN", 0), ("ALL", 0), ("BHD", 3), ("BIF", 0), ("BYR", 0), ("CLF", 4), ("CLP", 0),
    ("COP", 0), ("DJF", 0), ("ESP", 0), ("GNF", 0), ("HUF", 0), ("IDR", 0), ("IQD", 0), ("IRR", 0),
    ("ISK", 0), ("ITL", 0), ("JOD", 3), ("JPY", 0), ("KMF", 0), ("KPW", 0), ("KRW", 0), ("KWD", 3),
    ("LAK", 0), ("LBP", 0), ("LUF", 0), ("LYD", 3), ("MGA", 0), ("MGF", 0), ("MMK", 0), ("MRO", 0),
    ("OMR", 3), ("PKR", 0), ("PYG", 0), ("RSD", 0), ("RWF", 0), ("SLL", 0), ("SOS", 0), ("STD", 0),
    ("SYP", 0), ("TMM", 0), ("TND", 3), ("TRL", 0), ("UGX", 0), ("UYI", 0), ("UYW", 4), ("VND", 0),
    ("VUV", 0), ("XAF", 0), ("XOF", 0), ("XPF", 0), ("YER", 0), ("ZMK", 0), ("ZWD", 0),
];

/// Each region's currency, sorted by region code.
#[rustfmt::skip]
const REGION_CURRENCY: &[(&str, &str)] = &[
    ("AC", "SHP"), ("AD", "EUR"), ("AE", "AED"), ("AF", "AFN"), ("AG", "XCD"), ("AI", "XCD"),
    ("AL", "ALL"), ("AM", "AMD"), ("AO", "AOA"), ("AR", "ARS"), ("AS", "USD"), ("AT", "EUR"),
    ("AU", "AUD"), ("AW", "AWG"), ("AX", "EUR"), ("AZ", "AZN"), ("BA", "BAM"), ("BB", "BBD"),
    ("BD", "BDT"), ("BE", "EUR"), ("BF", "XOF"), ("BG", "EUR"), ("BH", "BHD"), ("BI", "BIF"),
    ("BJ", "XOF"), ("BL", "EUR"), ("BM", "BMD"), ("BN", "BND"), ("BO", "BOB"), ("BQ", "USD"),
    ("BR", "BRL"), ("BS", "BSD"), ("BT", "BTN"), ("BV", "NOK"), ("BW", "BWP"), ("BY", "BYN"),
    ("BZ", "BZD"), ("CA", "CAD"), ("CC", "AUD"), ("CD", "CDF"), ("CF", "XAF"), ("CG", "XAF"),
    ("CH", "CHF"), ("CI", "XOF"), ("CK", "NZD"), ("CL", "CLP"), ("CM", "XAF"), ("CN", "CNY"),
    ("CO", "COP"), ("CR", "CRC"), ("CU", "CUP"), ("CV", "CVE"), ("CW", "XCG"), ("CX", "AUD"),
    ("CY", "EUR"), ("CZ", "CZK"), ("DE", "EUR"), ("DG", "USD"), ("DJ", "DJF"), ("DK", "DKK"),
    ("DM", "XCD"), ("DO", "DOP"), ("DZ", "DZD"), ("EA", "EUR"), ("EC", "USD"), ("EE", "EUR"),
    ("EG", "EGP"), ("EH", "MAD"), ("ER", "ERN"), ("ES", "EUR"), ("ET", "ETB"), ("EU", "EUR"),
    ("FI", "EUR"), ("FJ", "FJD"), ("FK", "FKP"), ("FM", "USD"), ("FO", "DKK"), ("FR", "EUR"),
    ("GA", "XAF"), ("GB", "GBP"), ("GD", "XCD"), ("GE", "GEL"), ("GF", "EUR"), ("GG", "GBP"),
    ("GH", "GHS"), ("GI", "GIP"), ("GL", "DKK"), ("GM", "GMD"), ("GN", "GNF"), ("GP", "EUR"),
    ("GQ", "XAF"), ("GR", "EUR"), ("GS", "GBP"), ("GT", "GTQ"), ("GU", "USD"), ("GW", "XOF"),
    ("GY", "GYD"), ("HK", "HKD"), ("HM", "AUD"), ("HN", "HNL"), ("HR", "EUR"), ("HT", "HTG"),
    ("HU", "HUF"), ("IC", "EUR"), ("ID", "IDR"), ("IE", "EUR"), ("IL", "ILS"), ("IM", "GBP"),
    ("IN", "INR"), ("IO", "USD"), ("IQ", "IQD"), ("IR", "IRR"), ("IS", "ISK"), ("IT", "EUR"),
    ("JE", "GBP"), ("JM", "JMD"), ("JO", "JOD"), ("JP", "JPY"), ("KE", "KES"), ("KG", "KGS"),
    ("KH", "KHR"), ("KI", "AUD"), ("KM", "KMF"), ("KN", "XCD"), ("KP", "KPW"), ("KR", "KRW"),
    ("KW", "KWD"), ("KY", "KYD"), ("KZ", "KZT"), ("LA", "LAK"), ("LB", "LBP"), ("LC", "XCD"),
    ("LI", "CHF"), ("LK", "LKR"), ("LR", "LRD"), ("LS", "ZAR"), ("LT", "EUR"), ("LU", "EUR"),
    ("LV", "EUR"), ("LY", "LYD"), ("MA", "MAD"), ("MC", "EUR"), ("MD", "MDL"), ("ME", "EUR"),
    ("MF", "EUR"), ("MG", "MGA"), ("MH", "USD"), ("MK", "MKD"), ("ML", "XOF"), ("MM", "MMK"),
    ("MN", "MNT"), ("MO", "MOP"), ("MP", "USD"), ("MQ", "EUR"), ("MR", "MRU"), ("MS", "XCD"),
    ("MT", "EUR"), ("MU", "MUR"), ("MV", "MVR"), ("MW", "MWK"), ("MX", "MXN"), ("MY", "MYR"),
    ("MZ", "MZN"), ("NA", "NAD"), ("NC", "XPF"), ("NE", "XOF"), ("NF", "AUD"), ("NG", "NGN"),
    ("NI", "NIO"), ("NL", "EUR"), ("NO", "NOK"), ("NP", "NPR"), ("NR", "AUD"), ("NU", "NZD"),
    ("NZ", "NZD"), ("OM", "OMR"), ("PA", "PAB"), ("PE", "PEN"), ("PF", "XPF"), ("PG", "PGK"),
    ("PH", "PHP"), ("PK", "PKR"), ("PL", "PLN"), ("PM", "EUR"), ("PN", "NZD"), ("PR", "USD"),
    ("PS", "ILS"), ("PT", "EUR"), ("PW", "USD"), ("PY", "PYG"), ("QA", "QAR"), ("RE", "EUR"),
    ("RO", "RON"), ("RS", "RSD"), ("RU", "RUB"), ("RW", "RWF"), ("SA", "SAR"), ("SB", "SBD"),
    ("SC", "SCR"), ("SD", "SDG"), ("SE", "SEK"), ("SG", "SGD"), ("SH", "SHP"), ("SI", "EUR"),
    ("SJ", "NOK"), ("SK", "EUR"), ("SL", "SLE"), ("SM", "EUR"), ("SN", "XOF"), ("SO", "SOS"),
    ("SR", "SRD"), ("SS", "SSP"), ("ST", "STN"), ("SV", "USD"), ("SX", "XCG"), ("SY", "SYP"),
    ("SZ", "SZL"), ("TA", "GBP"), ("TC", "USD"), ("TD", "XAF"), ("TF", "EUR"), ("TG", "XOF"),
    ("TH", "THB"), ("TJ", "TJS"), ("TK", "NZD"), ("TL", "USD"), ("TM", "TMT"), ("TN", "TND"),
    ("TO", "TOP"), ("TR", "TRY"), ("TT", "TTD"), ("TV", "AUD"), ("TW", "TWD"), ("TZ", "TZS"),
    ("UA", "UAH"), ("UG", "UGX"), ("UM", "USD"), ("US", "USD"), ("UY", "UYU"), ("UZ", "UZS"),
    ("VA", "EUR"), ("VC", "XCD"), ("VE", "VES"), ("VG", "USD"), ("VI", "USD"), ("VN", "VND"),
    ("VU", "VUV"), ("WF", "XPF"), ("WS", "WST"), ("XK", "EUR"), ("YE", "YER"), ("YT", "EUR"),
    ("ZA", "ZAR"), ("ZM", "ZMW"), ("ZW", "ZWG"), ("ZZ", "XAD"),
];

/// Fraction digits of amounts in `code` (2 unless the currency says otherwise).
pub fn fraction_digits(code: &str) -> i32 {
    FRACTION_DIGITS
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(2, |(_, d)| *d)
}

/// The currency of a region (`US`, `DE`...); USD for unknown regions, as the reference.
pub fn currency_for_region(region: &str) -> &'static str {
    if region == "ZZ" {
        return "USD";
    }
    REGION_CURRENCY
        .binary_search_by(|(r, _)| (*r).cmp(region))
        .map_or("USD", |i| REGION_CURRENCY[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_are_sorted_for_binary_search() {
        assert!(REGION_CURRENCY.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn region_currencies() {
        assert_eq!(currency_for_region("US"), "USD");
        assert_eq!(currency_for_region("DE"), "EUR");
        assert_eq!(currency_for_region("JP"), "JPY");
        assert_eq!(currency_for_region("GB"), "GBP");
        assert_eq!(currency_for_region("ZZ"), "USD");
        assert_eq!(currency_for_region(""), "USD");
    }

    #[test]
    fn digits() {
        assert_eq!(fraction_digits("USD"), 2);
        assert_eq!(fraction_digits("JPY"), 0);
        assert_eq!(fraction_digits("KWD"), 3);
        assert_eq!(fraction_digits("XXX-not-a-code"), 2);
    }
}
