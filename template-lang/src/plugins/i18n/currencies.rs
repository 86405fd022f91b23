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

/// Store currencies (SPEC §3) that the reference's CLDR writes with their ISO code where
/// ICU4X's newer data has a symbol (German `PHP` rather than `₱`, Spanish `GBP` rather
/// than `£`), by language. Found by formatting every store currency in every language
/// the reference ships.
#[rustfmt::skip]
const ISO_CODE_SYMBOLS: &[(&str, &str)] = &[
    ("af", "USD CAD MXN PHP"),
    ("am", "PHP"),
    ("ar", "COP IDR"),
    ("as", "PHP"),
    ("az", "PHP"),
    ("ba", "NOK DKK CHF SGD SEK CZK RUB PLN THB MYR ARS ZAR"),
    ("be", "CAD NZD PHP BRL"),
    ("bg", "AUD CAD NZD GBP HKD MXN ILS PHP BRL INR JPY"),
    ("bn", "PHP"),
    ("bs", "USD AUD CAD NZD GBP HKD MXN ILS PHP BRL"),
    ("ca", "USD CAD MXN PHP BRL"),
    ("chr", "PHP"),
    ("cs", "ILS PHP INR"),
    ("cy", "PHP"),
    ("da", "PHP"),
    ("de", "PHP"),
    ("dsb", "AUD"),
    ("el", "PHP"),
    ("es", "AUD CAD NZD GBP HKD MXN ILS PHP BRL INR JPY"),
    ("et", "PHP"),
    ("eu", "PHP"),
    ("fi", "AUD CAD NZD HKD MXN ILS PHP BRL INR"),
    ("fr", "HKD PHP JPY"),
    ("gd", "PHP"),
    ("gl", "PHP"),
    ("gu", "PHP"),
    ("he", "PHP"),
    ("hi", "PHP"),
    ("hr", "USD AUD CAD NZD GBP HKD MXN ILS PHP BRL INR JPY"),
    ("hsb", "AUD"),
    ("ht", "NOK DKK HKD CHF SEK CZK PHP RUB PLN THB MYR IDR JPY ZAR"),
    ("hu", "EUR USD AUD CAD NZD GBP HKD MXN ILS PHP BRL INR"),
    ("hy", "PHP"),
    ("id", "PHP"),
    ("is", "EUR USD AUD CAD NZD GBP MXN PHP BRL INR"),
    ("it", "USD HKD MXN BRL INR JPY"),
    ("ja", "PHP"),
    ("ka", "AUD NZD HKD ILS PHP INR JPY"),
    ("kk", "PHP"),
    ("km", "PHP"),
    ("kn", "PHP"),
    ("ko", "PHP"),
    ("kok", "PHP"),
    ("ky", "USD AUD CAD NZD GBP HKD MXN ILS PHP BRL INR"),
    ("lo", "PHP"),
    ("lt", "USD AUD CAD NZD GBP HKD MXN ILS PHP BRL INR JPY"),
    ("lv", "PHP"),
    ("mk", "AUD NZD GBP HKD ILS PHP INR JPY"),
    ("ml", "PHP"),
    ("mn", "PHP"),
    ("mr", "PHP"),
    ("ms", "USD CAD MXN PHP"),
    ("nb", "USD AUD CAD NZD HKD MXN ILS PHP BRL INR JPY"),
    ("ne", "PHP"),
    ("nl", "PHP"),
    ("nn", "USD AUD CAD NZD GBP HKD MXN ILS PHP BRL INR JPY"),
    ("no", "USD AUD CAD NZD HKD MXN ILS PHP BRL INR JPY"),
    ("or", "PHP"),
    ("pa", "PHP"),
    ("pcm", "PHP"),
    ("pl", "USD AUD CAD NZD GBP HKD MXN ILS PHP INR JPY"),
    ("pt", "PHP"),
    ("qu", "PHP"),
    ("ro", "EUR USD AUD CAD NZD GBP HKD MXN ILS PHP BRL INR JPY"),
    ("ru", "PHP"),
    ("sd", "PHP"),
    ("si", "PHP"),
    ("sk", "USD AUD CAD NZD GBP HKD PHP BRL INR JPY"),
    ("sl", "AUD CAD NZD GBP MXN PHP BRL"),
    ("sq", "PHP BRL"),
    ("sr", "AUD NZD PHP"),
    ("sv", "AUD NZD GBP HKD PHP INR JPY"),
    ("sw", "PHP"),
    ("ta", "PHP"),
    ("te", "PHP"),
    ("th", "PHP"),
    ("ti", "JPY"),
    ("tk", "EUR GBP PHP"),
    ("tr", "PHP"),
    ("uk", "EUR USD AUD CAD NZD GBP HKD MXN ILS PHP BRL INR"),
    ("ur", "PHP"),
    ("uz", "PHP"),
    ("vi", "PHP"),
    ("yue", "PHP"),
    ("zh", "PHP"),
    ("zu", "PHP"),
];

/// Whether amounts in `code` show the ISO code as their symbol in `locale` (the
/// language's main region; other regions keep ICU4X's symbols).
pub fn shows_iso_code(locale: &icu_locale::Locale, code: &str) -> bool {
    let language = locale.id.language.as_str();
    let Some((_, codes)) = ISO_CODE_SYMBOLS.iter().find(|(l, _)| *l == language) else {
        return false;
    };
    if !codes.split(' ').any(|c| c == code) {
        return false;
    }
    let Some(region) = locale.id.region else {
        return true;
    };
    let mut likely = icu_locale::LanguageIdentifier::from(locale.id.language);
    icu_locale::LocaleExpander::new_extended().maximize(&mut likely);
    likely.region == Some(region)
}

/// Every currency code the reference's CLDR knows, sorted, three letters and a space each.
/// Amounts in other codes (lower-case ones included) print with no symbol.
const KNOWN: &str = "ADP AED AFA AFN ALK ALL AMD ANG AOA AOK AON AOR ARA ARL ARM ARP ARS ATS AUD AWG AZM AZN \
    BAD BAM BAN BBD BDT BEC BEF BEL BGL BGM BGN BGO BHD BIF BMD BND BOB BOL BOP BOV BRB BRC BRE \
    BRL BRN BRR BRZ BSD BTN BUK BWP BYB BYN BYR BZD CAD CDF CHE CHF CHW CLE CLF CLP CNH CNX CNY \
    COP COU CRC CSD CSK CUC CUP CVE CYP CZK DDM DEM DJF DKK DOP DZD ECS ECV EEK EGP ERN ESA ESB \
    ESP ETB EUR FIM FJD FKP FRF GBP GEK GEL GHC GHS GIP GMD GNF GNS GQE GRD GTQ GWE GWP GYD HKD \
    HNL HRD HRK HTG HUF IDR IEP ILP ILR ILS INR IQD IRR ISJ ISK ITL JMD JOD JPY KES KGS KHR KMF \
    KPW KRH KRO KRW KWD KYD KZT LAK LBP LKR LRD LSL LTL LTT LUC LUF LUL LVL LVR LYD MAD MAF MCF \
    MDC MDL MGA MGF MKD MKN MLF MMK MNT MOP MRO MRU MTL MTP MUR MVP MVR MWK MXN MXP MXV MYR MZE \
    MZM MZN NAD NGN NIC NIO NLG NOK NPR NZD OMR PAB PEI PEN PES PGK PHP PKR PLN PLZ PTE PYG QAR \
    RHD ROL RON RSD RUB RUR RWF SAR SBD SCR SDD SDG SDP SEK SGD SHP SIT SKK SLE SLL SOS SRD SRG \
    SSP STD STN SUR SVC SYP SZL THB TJR TJS TMM TMT TND TOP TPE TRL TRY TTD TWD TZS UAH UAK UGS \
    UGX USD USN USS UYI UYP UYU UYW UZS VEB VED VEF VES VND VNN VUV WST XAF XAG XAU XBA XBB XBC \
    XBD XCD XCG XDR XEU XFO XFU XOF XPD XPF XPT XRE XSU XTS XUA XXX YDD YER YUD YUM YUN YUR ZAL \
    ZAR ZMK ZMW ZRN ZRZ ZWD ZWG ZWL ZWR";

/// Whether the reference knows the currency `code` (exactly as written: `usd` is unknown).
pub fn is_known_currency(code: &str) -> bool {
    if code.len() != 3 {
        return false;
    }
    let count = KNOWN.len().div_ceil(4);
    let (mut lo, mut hi) = (0, count);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match KNOWN[mid * 4..mid * 4 + 3].cmp(code) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    false
}

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
    fn iso_code_symbols() {
        use icu_locale::locale;
        assert!(shows_iso_code(&locale!("de"), "PHP"));
        assert!(shows_iso_code(&locale!("de-DE"), "PHP"));
        assert!(!shows_iso_code(&locale!("de-AT"), "PHP"));
        assert!(!shows_iso_code(&locale!("de"), "USD"));
        assert!(shows_iso_code(&locale!("es"), "GBP"));
        assert!(!shows_iso_code(&locale!("en"), "PHP"));
        assert!(ISO_CODE_SYMBOLS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn known_currencies() {
        assert!(KNOWN.len() % 4 == 3 && KNOWN.split(' ').all(|c| c.len() == 3));
        assert!(KNOWN.split(' ').collect::<Vec<_>>().is_sorted());
        for code in ["ADP", "USD", "EUR", "JPY", "XXX", "ZWR"] {
            assert!(is_known_currency(code), "{code}");
        }
        for code in ["usd", "XYZ", "", "US", "EURO", "ZZZ", "AAA"] {
            assert!(!is_known_currency(code), "{code}");
        }
    }

    #[test]
    fn digits() {
        assert_eq!(fraction_digits("USD"), 2);
        assert_eq!(fraction_digits("JPY"), 0);
        assert_eq!(fraction_digits("KWD"), 3);
        assert_eq!(fraction_digits("XXX-not-a-code"), 2);
    }
}
