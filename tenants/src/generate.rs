//! Many tenants at once, for the tenant-scale benchmark (`benches/tenant-scale.sh`) and its
//! test: each generated tenant is one of the demo folders (a [`Design`]: a store, a blog, a
//! business site ...) with its own identifier, host, name, product titles, prices and text,
//! written in batched transactions through one store handle.
//!
//! Tenant `i` (from 1) is `t{i:05}` at `t{i:05}.scale.test` and uses design
//! `designs[(i - 1) % designs.len()]` ([`design_of`]), so any range of tenants mixes every
//! design and a load tool can tell a tenant's pages from its number alone.

use std::ops::RangeInclusive;
use std::path::Path;

use serde_json::Value;

use crate::cache::Change;
use crate::error::StoreError;
use crate::import::{DomainEntry, ImportError, Parsed, TemplateBuild, parse_dir, write_parsed};
use crate::store::Store;

/// One demo folder, parsed (and its template built) once, to stamp out many tenants.
pub struct Design {
    /// The folder's name (e.g. `skyward`).
    pub name: String,
    parsed: Parsed,
}

/// A page a design's tenants serve, for load tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Page {
    /// `home`, `collection` or `item`.
    pub kind: &'static str,
    /// The path (`/`, `/shop`, `/shop/mug`).
    pub path: String,
}

impl Design {
    /// Parses and checks the tenant folder `dir` (as `tessera import` does) and adds what
    /// `build` makes of its template (the compiled stylesheet).
    pub fn load(dir: &Path, build: &TemplateBuild<'_>) -> Result<Design, ImportError> {
        let mut parsed = parse_dir(dir, &mut |_| {})?;
        let no_settings = serde_json::Map::new();
        let settings = parsed
            .site
            .as_ref()
            .map_or(&no_settings, |s| &s.website_settings);
        let built = build(&parsed.template, settings)?;
        parsed.template.extend(built);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Design { name, parsed })
    }

    /// The home page, each enabled collection that lists items, and those items.
    pub fn pages(&self) -> Vec<Page> {
        let mut pages = vec![Page {
            kind: "home",
            path: "/".into(),
        }];
        for (_, c, _, items, _) in &self.parsed.collections {
            if !c.enabled || items.is_empty() || c.password_hash.is_some() || c.homepage {
                continue;
            }
            if c.data.contains_key("memberAreaId") {
                continue;
            }
            pages.push(Page {
                kind: "collection",
                path: format!("/{}", c.url_id),
            });
            for item in items {
                pages.push(Page {
                    kind: "item",
                    path: format!("/{}/{}", c.url_id, item.url_id),
                });
            }
        }
        pages
    }

    /// Tenant `i`'s copy of this design: its own identity, names, prices and text.
    fn tenant(&self, i: usize) -> Parsed {
        let mut p = self.parsed.clone();
        let mut rng = SplitMix(i as u64);
        let name = format!(
            "{} {} {}",
            pick(&mut rng, ADJECTIVES),
            pick(&mut rng, NOUNS),
            pick(&mut rng, KINDS)
        );
        let town = pick(&mut rng, TOWNS);
        p.tenant.identifier = identifier(i);
        p.tenant.name = name.clone();
        p.tenant.domains = vec![DomainEntry::Host(host(i))];
        if let Some(site) = &mut p.site {
            site.website
                .insert("siteTitle".into(), Value::String(name.clone()));
            site.website.insert(
                "siteTagLine".into(),
                Value::String(format!("Made in {town}")),
            );
        }
        // Prices move by -40 % .. +60 % in steps of 5 %, per tenant.
        let percent = 60 + 5 * (rng.next() % 21) as i64;
        let word = pick(&mut rng, ADJECTIVES);
        for (_, _, _, items, _) in &mut p.collections {
            for item in items {
                if !item.variants.is_empty() {
                    item.title = format!("{word} {}", item.title);
                }
                for v in &mut item.variants {
                    v.price_minor = round_price(v.price_minor * percent / 100);
                    v.sale_price_minor = round_price(v.sale_price_minor * percent / 100);
                }
                if !item.body.is_empty() {
                    item.body = format!("<p>From {name}, {town}.</p>{}", item.body);
                }
            }
        }
        p
    }
}

/// Prices end in 0 or 5 minor units, as shops price.
fn round_price(minor: i64) -> i64 {
    (minor + 2) / 5 * 5
}

/// The design tenant `i` (from 1) uses, of `designs` designs.
pub fn design_of(i: usize, designs: usize) -> usize {
    (i.max(1) - 1) % designs.max(1)
}

/// Tenant `i`'s identifier: `t00042`.
pub fn identifier(i: usize) -> String {
    format!("t{i:05}")
}

/// Tenant `i`'s host: `t00042.scale.test`.
pub fn host(i: usize) -> String {
    format!("{}.scale.test", identifier(i))
}

/// Writes tenants `range` (numbers from 1) from `designs`, `batch` tenants per transaction,
/// calling `progress` with the last tenant written after each batch. A batch commits as a
/// tenant change, so every node drops its host cache (a cached "no such host" included).
pub async fn generate(
    store: &Store,
    designs: &[Design],
    range: RangeInclusive<usize>,
    batch: usize,
    progress: &mut dyn FnMut(usize),
) -> Result<(), ImportError> {
    if designs.is_empty() {
        return Err(ImportError {
            file: "".into(),
            field: None,
            reason: "no designs to generate tenants from".into(),
        });
    }
    let db = |e: StoreError| ImportError {
        file: "tenant.json".into(),
        field: None,
        reason: e.to_string(),
    };
    let numbers: Vec<usize> = range.collect();
    for chunk in numbers.chunks(batch.max(1)) {
        let mut tx = store.write().await.map_err(db)?;
        let mut last = None;
        for &i in chunk {
            let p = designs[design_of(i, designs.len())].tenant(i);
            last = Some(write_parsed(&mut tx, &p, &mut |_| {}).await?.tenant);
        }
        match last {
            Some(t) => store.commit_change(tx, t, Change::Tenant).await.map(drop),
            None => tx.commit().await,
        }
        .map_err(db)?;
        progress(*chunk.last().unwrap_or(&0));
    }
    Ok(())
}

/// A small deterministic generator (SplitMix64), so tenant `i` is the same in every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn pick(rng: &mut SplitMix, words: &[&'static str]) -> &'static str {
    words[(rng.next() % words.len() as u64) as usize]
}

const ADJECTIVES: &[&str] = &[
    "Amber",
    "Birch",
    "Cobalt",
    "Copper",
    "Driftwood",
    "Ember",
    "Fern",
    "Granite",
    "Hazel",
    "Indigo",
    "Juniper",
    "Kestrel",
    "Linen",
    "Maple",
    "Northern",
    "Oak",
    "Pebble",
    "Quiet",
    "Rowan",
    "Saffron",
    "Tidal",
    "Umber",
    "Violet",
    "Willow",
    "Yarrow",
    "Zephyr",
];

const NOUNS: &[&str] = &[
    "Anchor",
    "Beacon",
    "Bramble",
    "Compass",
    "Dovetail",
    "Fieldstone",
    "Harbour",
    "Heron",
    "Lantern",
    "Meadow",
    "Orchard",
    "Quarry",
    "Ridge",
    "Sparrow",
    "Thistle",
    "Wharf",
];

const KINDS: &[&str] = &[
    "Studio",
    "Goods",
    "Works",
    "Notes",
    "Supply",
    "Collective",
    "Press",
    "Workshop",
];

const TOWNS: &[&str] = &[
    "Aldeburgh",
    "Bantry",
    "Cromer",
    "Dunmore",
    "Elgin",
    "Fowey",
    "Galway",
    "Hexham",
    "Ilkley",
    "Kendal",
    "Ludlow",
    "Mallaig",
    "Newlyn",
    "Oban",
    "Padstow",
    "Rye",
    "Stroud",
    "Tenby",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenants_get_distinct_hosts_and_every_design() {
        assert_eq!(host(42), "t00042.scale.test");
        let used: std::collections::HashSet<_> = (1..=8).map(|i| design_of(i, 4)).collect();
        assert_eq!(used.len(), 4);
        assert_eq!(design_of(1, 4), 0);
        assert_eq!(design_of(5, 4), 0);
        assert_eq!(round_price(1233), 1235);
        assert_eq!(round_price(1230), 1230);
    }
}
