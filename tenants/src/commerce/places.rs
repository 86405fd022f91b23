//! Countries (ISO 3166-1 alpha-2) and their regions (ISO 3166-2 subdivisions): the lists an
//! address's country and region are chosen from, and the codes tax rules and shipping
//! options name.
//!
//! The data is the `rust_iso3166` crate's (ISO 3166-1 and every ISO 3166-2 subdivision with
//! its English name, as compile-time maps): it is kept up by the rust-iso project, which
//! regenerates it from the ISO's own tables with each change of the standard (0.2.0, 2025),
//! has no dependency but `phf`, and builds on our toolchain. Nothing here is typed by hand.
//!
//! A region is written as its code within the country, the part of the ISO 3166-2 code after
//! the country and the dash: `ME` for `US-ME` (Maine), `NH` for `NL-NH`. The full code is
//! taken too, and so is any case.

use rust_iso3166::iso3166_2::Subdivision;

/// A country: its alpha-2 code and English short name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Country {
    /// Upper case, two letters.
    pub code: &'static str,
    /// English short name, as ISO 3166-1 gives it.
    pub name: &'static str,
}

/// A region of a country: its code within the country and its English name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// The part of the ISO 3166-2 code after the dash (`ME`).
    pub code: &'static str,
    /// English name (`Maine`).
    pub name: &'static str,
}

/// Every ISO 3166-1 country, in the standard's order (by code).
pub fn countries() -> impl Iterator<Item = Country> {
    rust_iso3166::ALL.iter().map(|c| Country {
        code: c.alpha2,
        name: c.name,
    })
}

/// The country with this alpha-2 code (any case, spaces around ignored).
pub fn country(code: &str) -> Option<Country> {
    let up = code.trim().to_ascii_uppercase();
    rust_iso3166::from_alpha2(&up).map(|c| Country {
        code: c.alpha2,
        name: c.name,
    })
}

fn subdivisions(country: &str) -> &'static [Subdivision] {
    rust_iso3166::iso3166_2::SUBDIVISION_COUNTRY_MAP
        .get(country.trim().to_ascii_uppercase().as_str())
        .copied()
        .unwrap_or(&[])
}

/// The regions of a country (ISO 3166-2), by name; none for a country without them (or a
/// code that is no country).
pub fn regions(country: &str) -> Vec<Region> {
    let mut out: Vec<Region> = subdivisions(country)
        .iter()
        .map(|s| Region {
            code: s.region_code,
            name: s.name,
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(b.name).then(a.code.cmp(b.code)));
    out
}

/// Whether the country has regions to choose from.
pub fn has_regions(country: &str) -> bool {
    !subdivisions(country).is_empty()
}

/// The region of `country` that `text` names by code (`ME`, `us-me`), as its code within the
/// country; `None` when it is none of the country's.
pub fn region(country: &str, text: &str) -> Option<Region> {
    let country = country.trim().to_ascii_uppercase();
    let up = text.trim().to_ascii_uppercase();
    let short = up
        .strip_prefix(&country)
        .and_then(|rest| rest.strip_prefix('-'))
        .unwrap_or(&up);
    subdivisions(&country)
        .iter()
        .find(|s| s.region_code.eq_ignore_ascii_case(short))
        .map(|s| Region {
            code: s.region_code,
            name: s.name,
        })
}

/// A region's code as rules compare it: upper case, without the country's `CC-` prefix.
/// Text that is no code of the country is only upper-cased (it matches no rule's code).
pub fn region_key(country: &str, text: &str) -> String {
    match region(country, text) {
        Some(r) => r.code.to_owned(),
        None => text.trim().to_ascii_uppercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countries_and_regions_come_from_the_iso_lists() {
        assert_eq!(country("us").unwrap().code, "US");
        assert!(country("XX").is_none());
        assert!(countries().count() > 240);
        let us = regions("US");
        assert!(us.contains(&Region {
            code: "ME",
            name: "Maine"
        }));
        assert!(us.windows(2).all(|w| w[0].name <= w[1].name));
        assert!(has_regions("US"));
        assert_eq!(region("US", "me").unwrap().code, "ME");
        assert_eq!(region("US", "US-ME").unwrap().name, "Maine");
        assert!(region("US", "Maine").is_none());
        assert!(region("US", "NH-X").is_none());
        assert_eq!(region_key("us", "us-me"), "ME");
        assert_eq!(region_key("US", "maine"), "MAINE");
    }
}
