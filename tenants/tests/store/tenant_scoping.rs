//! Every query of the store filters by tenant_id: what running the schema distributed by
//! tenant_id (Citus, see README "Running many nodes") and tenant isolation both rest on.
//!
//! The test reads every SQL text in the crate's sources (string literals that start with
//! SELECT, INSERT, UPDATE, DELETE or WITH), finds the tenant tables each one touches, and
//! requires:
//! * an INSERT into a tenant table names `tenant_id` among its columns;
//! * any other statement has at least one `tenant_id = …` / `tenant_id IN (…)` predicate
//!   per tenant table it names (so a join is tied on tenant_id too, not only its first
//!   table); the names a statement gives its common table expressions (`WITH o AS (…)`)
//!   are not tables, what they read is.
//!
//! The tenant directory (`tenant`, `tenant_domain`: host → tenant) and the migration
//! bookkeeping are not tenant tables, so their lookups pass as they are. The other
//! exceptions are [`ALLOWED`]: cross-tenant maintenance that lists which tenants have work.
//! Each is named by a piece of its SQL with the reason; a new query without tenant_id
//! fails here until it is fixed or listed.

use std::path::{Path, PathBuf};

/// Tables that are not tenant data: the tenant directory (reference tables on Citus) and
/// the migration bookkeeping.
const DIRECTORY: &[&str] = &["tenant", "tenant_domain", "schema_migrations"];

/// Statements allowed without a tenant_id filter: (a piece of the SQL, why).
const ALLOWED: &[(&str, &str)] = &[
    // Cross-tenant maintenance lists the tenants with work first, then works one tenant at
    // a time with scoped statements: the expiry sweeps (repo/sweep.rs), the abandoned-cart
    // sweep and the outbox worker's due mail.
    (
        "SELECT DISTINCT tenant_id FROM",
        "listing the tenants that have expired rows, idle carts or due mail",
    ),
    // The outbox worker's sites with due mail (repo/outbox.rs): the same listing as above,
    // by skipping through the per-site due index (migration 24) from one site to the next.
    (
        "WITH RECURSIVE due_site (id) AS",
        "listing the tenants that have due mail",
    ),
    // Migration 12's backfill (repo/templates.rs) hashes every version stored before it,
    // whichever tenant's, once, inside the migration transaction.
    (
        "FROM template_version WHERE content_hash IS NULL",
        "the one-time backfill of template hashes after migration 12",
    ),
];

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The contents of the string literals of Rust source `src` (plain and raw), with `\`
/// line continuations joined as the compiler joins them.
fn string_literals(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            // Line comments: skip to the end of the line.
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            // Char literals ('"', '\'') would otherwise open a string.
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 3,
            b'\'' if b.get(i + 1) == Some(&b'\\') && b.get(i + 3) == Some(&b'\'') => i += 4,
            b'r' if matches!(b.get(i + 1), Some(b'"') | Some(b'#'))
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric() && b[i - 1] != b'_') =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                let end = src[start..].find(&close).map_or(b.len(), |n| start + n);
                out.push(src[start..end].to_owned());
                i = end + close.len();
            }
            b'"' => {
                let mut s = String::new();
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        match b.get(i + 1) {
                            // A continuation: the newline and the next line's indent go.
                            Some(b'\n') => {
                                i += 2;
                                while i < b.len() && b[i].is_ascii_whitespace() {
                                    i += 1;
                                }
                                continue;
                            }
                            Some(&c) => {
                                s.push('\\');
                                s.push(c as char);
                                i += 2;
                                continue;
                            }
                            None => break,
                        }
                    }
                    let ch = src[i..].chars().next().unwrap();
                    s.push(ch);
                    i += ch.len_utf8();
                }
                out.push(s);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether a literal is a SQL statement.
fn is_sql(text: &str) -> bool {
    let t = text.trim_start().to_ascii_uppercase();
    ["SELECT ", "INSERT ", "UPDATE ", "DELETE ", "WITH "]
        .iter()
        .any(|k| t.starts_with(k))
}

/// Lower-cased words of `sql` (identifiers, keywords, `$1`), dropping punctuation but
/// keeping `=` and `(` as words of their own.
fn words(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut w = String::new();
    for c in sql.chars() {
        if c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.' {
            w.push(c.to_ascii_lowercase());
        } else {
            if !w.is_empty() {
                out.push(std::mem::take(&mut w));
            }
            if c == '=' || c == '(' {
                out.push(c.to_string());
            }
        }
    }
    if !w.is_empty() {
        out.push(w);
    }
    out
}

/// What is wrong with `sql` (None: it is scoped by tenant).
fn problem(sql: &str) -> Option<String> {
    let w = words(sql);
    // A common table expression (`WITH o AS (…)`) is the statement's own name for a
    // subquery: the tables it reads are counted (and must be scoped) inside it.
    let ctes: Vec<&str> = w
        .windows(3)
        .filter(|p| p[1] == "as" && p[2] == "(")
        .map(|p| p[0].as_str())
        .collect();
    // Tables: the word after FROM, JOIN, UPDATE, INTO (a `(` after FROM is a subquery).
    let tables: Vec<&str> = w
        .windows(2)
        .filter(|p| matches!(p[0].as_str(), "from" | "join" | "update" | "into"))
        .map(|p| p[1].as_str())
        .filter(|t| *t != "(" && !t.starts_with('$'))
        .filter(|t| !DIRECTORY.contains(t) && !ctes.contains(t))
        .collect();
    if tables.is_empty() {
        return None;
    }
    let is_tenant_id = |x: &str| x == "tenant_id" || x.ends_with(".tenant_id");
    if w[0] == "insert" {
        // The column list follows the table: INSERT INTO t (a, b, ...).
        let cols_named = w
            .iter()
            .skip_while(|x| *x != "(")
            .take_while(|x| *x != "values" && *x != "select")
            .any(|x| is_tenant_id(x));
        return (!cols_named).then(|| format!("an INSERT into {} names no tenant_id", tables[0]));
    }
    let predicates = w
        .windows(2)
        .filter(|p| is_tenant_id(&p[0]) && (p[1] == "=" || p[1] == "in"))
        .count();
    (predicates < tables.len()).then(|| {
        format!(
            "{} tenant table(s) ({}) but {predicates} tenant_id predicate(s)",
            tables.len(),
            tables.join(", ")
        )
    })
}

#[test]
fn every_query_filters_by_tenant_id() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    let mut checked = 0;
    let mut used = vec![false; ALLOWED.len()];
    let mut failures = Vec::new();
    for f in &files {
        // Test helpers that build throwaway databases are not the store's queries.
        if f.ends_with("testing.rs") {
            continue;
        }
        let src = std::fs::read_to_string(f).unwrap();
        // A module's unit tests (at its end, by convention) run their SQL on scratch tables
        // of a throwaway database, not on the store's schema.
        let src = src
            .split("\n#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        for sql in string_literals(src).into_iter().filter(|s| is_sql(s)) {
            checked += 1;
            let Some(why) = problem(&sql) else { continue };
            if let Some(n) = ALLOWED.iter().position(|(piece, _)| sql.contains(piece)) {
                used[n] = true;
                continue;
            }
            failures.push(format!(
                "{}: {why}:\n    {sql}",
                f.strip_prefix(&root).unwrap().display()
            ));
        }
    }
    assert!(
        checked > 100,
        "only {checked} SQL texts found: is the scan broken?"
    );
    assert!(
        failures.is_empty(),
        "queries without a tenant_id filter (fix them, or list them in ALLOWED with why):\n{}",
        failures.join("\n")
    );
    for ((piece, _), used) in ALLOWED.iter().zip(used) {
        assert!(
            used,
            "ALLOWED entry {piece:?} matches nothing any more: remove it"
        );
    }
}

/// The checker catches what it is for (and passes what it should).
#[test]
fn unscoped_samples_are_caught() {
    for bad in [
        "SELECT title FROM item WHERE id = $1",
        "UPDATE product_variant SET qty_in_stock = 0 WHERE sku = $1",
        "DELETE FROM cart WHERE updated_ms < $1",
        "INSERT INTO item (id, title) VALUES ($1, $2)",
        // The join's second table is not tied by tenant.
        "SELECT i.title FROM item i JOIN collection c ON c.id = i.collection_id WHERE i.tenant_id = $1",
    ] {
        assert!(problem(bad).is_some(), "not caught: {bad}");
    }
    for good in [
        "SELECT title FROM item WHERE tenant_id = $1 AND id = $2",
        "SELECT i.title FROM item i JOIN collection c ON c.tenant_id = i.tenant_id AND c.id = i.collection_id WHERE i.tenant_id = $1",
        "INSERT INTO item (tenant_id, id, title) VALUES ($1, $2, $3)",
        "DELETE FROM cart WHERE tenant_id IN ($1, $2)",
        "SELECT id FROM tenant WHERE identifier = $1",
        "SELECT t.id FROM tenant_domain d JOIN tenant t ON t.id = d.tenant_id WHERE d.host = $1",
    ] {
        assert_eq!(problem(good), None, "{good}");
    }
    let src = "let a = \"SELECT 1 \\\n    FROM item\"; let c = '\"'; let r = r#\"DELETE FROM x\"#;";
    assert_eq!(
        string_literals(src),
        vec!["SELECT 1 FROM item".to_owned(), "DELETE FROM x".to_owned()]
    );
}
