//! Versioned schema migrations, applied on start and by `tessera migrate`.
//!
//! Hand-written rather than refinery: about sixty lines, one SQL text per migration for both
//! backends (`@AUTOID@` / `@BYTES@` are replaced per dialect; a line starting `@PG@ ` or
//! `@SQLITE@ ` is kept for that backend only, for DDL one of them cannot run), and all pending migrations
//! applied in one transaction (both backends have transactional DDL), under a PostgreSQL
//! advisory lock so that nodes starting together do not race. Each applied migration is
//! recorded with a checksum of its text; an edited migration fails loudly.

use crate::error::{Result, StoreError};
use crate::ids::now_ms;
use crate::params;
use crate::sql::{Backend, Db, Mode};

/// One migration: its version number, a short name and its SQL text.
struct Migration {
    version: i64,
    name: &'static str,
    sql: &'static str,
}

/// Every migration, in order. Append only; never edit a released one.
const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "init",
        sql: include_str!("../migrations/0001_init.sql"),
    },
    Migration {
        version: 2,
        name: "collection_password",
        sql: include_str!("../migrations/0002_collection_password.sql"),
    },
    Migration {
        version: 3,
        name: "commerce",
        sql: include_str!("../migrations/0003_commerce.sql"),
    },
    Migration {
        version: 4,
        name: "mailing_list",
        sql: include_str!("../migrations/0004_mailing_list.sql"),
    },
    Migration {
        version: 5,
        name: "outbox_captcha",
        sql: include_str!("../migrations/0005_outbox_captcha.sql"),
    },
    Migration {
        version: 6,
        name: "members_analytics",
        sql: include_str!("../migrations/0006_members_analytics.sql"),
    },
    Migration {
        version: 7,
        name: "members_comments",
        sql: include_str!("../migrations/0007_members_comments.sql"),
    },
    Migration {
        version: 8,
        name: "analytics_days",
        sql: include_str!("../migrations/0008_analytics_days.sql"),
    },
    Migration {
        version: 9,
        name: "api_tokens",
        sql: include_str!("../migrations/0009_api_tokens.sql"),
    },
    Migration {
        version: 10,
        name: "site_assets",
        sql: include_str!("../migrations/0010_site_assets.sql"),
    },
    Migration {
        version: 11,
        name: "tenant_keys_rate_limits",
        sql: include_str!("../migrations/0011_tenant_keys_rate_limits.sql"),
    },
    Migration {
        version: 12,
        name: "template_hash",
        sql: include_str!("../migrations/0012_template_hash.sql"),
    },
    Migration {
        version: 13,
        name: "session_token_hash",
        sql: include_str!("../migrations/0013_session_token_hash.sql"),
    },
    Migration {
        version: 14,
        name: "cart_entry_lines",
        sql: include_str!("../migrations/0014_cart_entry_lines.sql"),
    },
    Migration {
        version: 15,
        name: "owner_accounts",
        sql: include_str!("../migrations/0015_owner_accounts.sql"),
    },
    Migration {
        version: 16,
        name: "order_admin",
        sql: include_str!("../migrations/0016_order_admin.sql"),
    },
    Migration {
        version: 17,
        name: "analytics_slots",
        sql: include_str!("../migrations/0017_analytics_slots.sql"),
    },
    Migration {
        version: 18,
        name: "customers",
        sql: include_str!("../migrations/0018_customers.sql"),
    },
    Migration {
        version: 19,
        name: "item_visibility",
        sql: include_str!("../migrations/0019_item_visibility.sql"),
    },
    Migration {
        version: 20,
        name: "customer_summary",
        sql: include_str!("../migrations/0020_customer_summary.sql"),
    },
    Migration {
        version: 21,
        name: "paid_member_areas",
        sql: include_str!("../migrations/0021_paid_member_areas.sql"),
    },
    Migration {
        version: 22,
        name: "orders_waiting",
        sql: include_str!("../migrations/0022_orders_waiting.sql"),
    },
    Migration {
        version: 23,
        name: "cart_site_user_partial",
        sql: include_str!("../migrations/0023_cart_site_user_partial.sql"),
    },
    Migration {
        version: 24,
        name: "outbox_due_per_site",
        sql: include_str!("../migrations/0024_outbox_due_per_site.sql"),
    },
];

/// The latest schema version this binary knows.
pub const LATEST_VERSION: i64 = 24;

/// An arbitrary constant naming Tessera's advisory lock on PostgreSQL.
const PG_LOCK_KEY: i64 = 0x7e55_e4a0_0001;

/// What a migration run did ([`crate::Store::migrate`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigrationReport {
    /// Versions applied by this call (empty when the schema was already current).
    pub applied: Vec<i64>,
    /// The schema version after the call.
    pub current: i64,
}

fn render(sql: &str, backend: Backend) -> String {
    let (autoid, bytes) = match backend {
        Backend::Postgres => (
            "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
            "BYTEA",
        ),
        // AUTOINCREMENT: ids of deleted tenants are never reused.
        Backend::Sqlite => ("INTEGER PRIMARY KEY AUTOINCREMENT", "BLOB"),
    };
    let (mine, other) = match backend {
        Backend::Postgres => ("@PG@ ", "@SQLITE@ "),
        Backend::Sqlite => ("@SQLITE@ ", "@PG@ "),
    };
    // Texts without per-backend lines come back unchanged, so released checksums hold.
    let text: String = if sql.contains(mine) || sql.contains(other) {
        sql.lines()
            .filter(|l| !l.starts_with(other))
            .map(|l| l.strip_prefix(mine).unwrap_or(l))
            .flat_map(|l| [l, "\n"])
            .collect()
    } else {
        sql.to_owned()
    };
    text.replace("@AUTOID@", autoid).replace("@BYTES@", bytes)
}

/// FNV-1a 64 of the rendered text: stable across builds and platforms.
fn checksum(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Applies every pending migration in one transaction. Idempotent: a second call applies
/// nothing. Fails if the database has a migration this binary does not know, or if a
/// recorded checksum differs from the migration text.
pub(crate) async fn run(db: &Db) -> Result<MigrationReport> {
    let backend = db.backend();
    let mut tx = db.begin(Mode::Write).await?;
    if backend == Backend::Postgres {
        tx.query("SELECT pg_advisory_xact_lock($1)", params![PG_LOCK_KEY])
            .await?;
    }
    tx.batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, \
         checksum TEXT NOT NULL, applied_ms BIGINT NOT NULL)",
    )
    .await?;
    let rows = tx
        .query(
            "SELECT version, checksum FROM schema_migrations ORDER BY version",
            params![],
        )
        .await?;
    let mut recorded = Vec::new();
    for r in rows {
        recorded.push((r.i64(0)?, r.text(1)?));
    }
    for (version, sum) in &recorded {
        let Some(m) = MIGRATIONS.iter().find(|m| m.version == *version) else {
            return Err(StoreError::Migration(format!(
                "the database has schema version {version}, newer than this binary (latest {LATEST_VERSION})"
            )));
        };
        if *sum != checksum(&render(m.sql, backend)) {
            return Err(StoreError::Migration(format!(
                "migration {} ({}) was edited after it was applied (checksum differs)",
                m.version, m.name
            )));
        }
    }
    let mut applied = Vec::new();
    for m in MIGRATIONS
        .iter()
        .filter(|m| !recorded.iter().any(|(v, _)| *v == m.version))
    {
        let sql = render(m.sql, backend);
        tx.batch(&sql).await.map_err(|e| {
            StoreError::Migration(format!("migration {} ({}): {e}", m.version, m.name))
        })?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_ms) VALUES ($1, $2, $3, $4)",
            params![m.version, m.name, checksum(&sql), now_ms()],
        )
        .await?;
        applied.push(m.version);
    }
    // Data the schema cannot compute in SQL alike on both backends (SHA-256).
    crate::repo::templates::backfill_hashes_in(&mut tx).await?;
    tx.commit().await?;
    let current = recorded
        .iter()
        .map(|(v, _)| *v)
        .chain(applied.iter().copied())
        .max()
        .unwrap_or(0);
    Ok(MigrationReport { applied, current })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_lines_are_kept_for_their_backend_only() {
        let sql = "CREATE TABLE t (a BIGINT);\n@PG@ SELECT 'pg';\n@SQLITE@ SELECT 'lite';\n";
        assert_eq!(
            render(sql, Backend::Postgres),
            "CREATE TABLE t (a BIGINT);\nSELECT 'pg';\n"
        );
        assert_eq!(
            render(sql, Backend::Sqlite),
            "CREATE TABLE t (a BIGINT);\nSELECT 'lite';\n"
        );
        // A text without them is untouched (released migrations keep their checksums).
        assert_eq!(render("SELECT 1;", Backend::Sqlite), "SELECT 1;");
    }

    #[test]
    fn rendering_replaces_every_dialect_token() {
        for m in MIGRATIONS {
            for b in [Backend::Postgres, Backend::Sqlite] {
                let sql = render(m.sql, b);
                assert!(!sql.contains('@'), "{} on {b:?} still has a token", m.name);
            }
        }
        assert_ne!(
            checksum(&render(MIGRATIONS[0].sql, Backend::Postgres)),
            checksum(&render(MIGRATIONS[0].sql, Backend::Sqlite))
        );
    }

    #[test]
    fn latest_version_matches_the_list() {
        assert_eq!(MIGRATIONS.last().map(|m| m.version), Some(LATEST_VERSION));
        // Versions count up from 1 without gaps.
        for (i, m) in MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, i as i64 + 1, "{}", m.name);
        }
    }
}
