//! SQLite side of [`super::Tx`]: pool with durability pragmas, the single-writer lock,
//! `$N` → `?N` rewriting and row decoding.

use std::path::Path;
use std::sync::Arc;

use deadpool_sqlite::rusqlite::types::{ToSqlOutput, ValueRef};
use deadpool_sqlite::rusqlite::{self, ToSql};
use deadpool_sqlite::{Config, Hook, HookError, Pool, Runtime};

use super::{Mode, Row, SqlValue};
use crate::error::{Result, StoreError};

/// Pragmas run on every new connection. `synchronous=FULL` with WAL makes every COMMIT
/// durable before it returns (survives `kill -9` and power loss); `busy_timeout` covers a
/// second process (e.g. `tessera import`) writing to the same file.
const PRAGMAS: &str = "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; \
                       PRAGMA busy_timeout=10000;";

/// Prepared statements each connection keeps (rusqlite's default is 16). A cold site's
/// content load alone runs 16 statements, so with the host lookup, the secret and a page's
/// other reads the default cache turned over on every cold page and prepared each of them
/// again: 8 % of a cold page's time on the embedded store.
const STATEMENT_CACHE: usize = 64;

/// A deadpool-sqlite pool plus the in-process write lock: SQLite has one writer at a time,
/// so write transactions queue here (async) instead of spinning on `SQLITE_BUSY`.
pub(crate) struct LiteDb {
    pub(crate) pool: Pool,
    pub(crate) write_lock: Arc<tokio::sync::Mutex<()>>,
}

impl LiteDb {
    pub(crate) fn open(path: &Path, max_size: usize) -> Result<Self> {
        let pool = Config::new(path)
            .builder(Runtime::Tokio1)
            .map_err(|e| StoreError::Sqlite(e.to_string()))?
            .max_size(max_size)
            .post_create(Hook::async_fn(|conn, _| {
                Box::pin(async move {
                    conn.interact(|c| {
                        c.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
                        c.execute_batch(PRAGMAS)
                    })
                    .await
                    .map_err(|e| HookError::message(e.to_string()))?
                    .map_err(HookError::Backend)
                })
            }))
            .build()
            .map_err(|e| StoreError::Sqlite(e.to_string()))?;
        Ok(LiteDb {
            pool,
            write_lock: Arc::new(tokio::sync::Mutex::new(())),
        })
    }

    pub(crate) async fn begin(
        &self,
        mode: Mode,
    ) -> Result<(
        deadpool_sqlite::Object,
        Option<tokio::sync::OwnedMutexGuard<()>>,
    )> {
        let guard = match mode {
            Mode::Write => Some(self.write_lock.clone().lock_owned().await),
            _ => None,
        };
        let obj = self
            .pool
            .get()
            .await
            .map_err(|e| StoreError::Sqlite(format!("pool: {e}")))?;
        let begin = match mode {
            Mode::Auto => None,
            Mode::Snapshot => Some("BEGIN DEFERRED"),
            Mode::Write => Some("BEGIN IMMEDIATE"),
        };
        if let Some(begin) = begin {
            obj.interact(move |c| {
                // A transaction left open by a cancelled caller must not leak into this one.
                if !c.is_autocommit() {
                    c.execute_batch("ROLLBACK")?;
                }
                c.execute_batch(begin)
            })
            .await
            .map_err(interact_err)??;
        }
        Ok((obj, guard))
    }
}

impl LiteDb {
    /// [`super::Db::read_all`]: `BEGIN DEFERRED`, the statements and `COMMIT` in one
    /// blocking call (a call that fails rolls back in the same call, so the connection goes
    /// back to the pool clean even if the caller stopped waiting).
    pub(crate) async fn read_all(
        &self,
        statements: Vec<(String, Vec<SqlValue>)>,
    ) -> Result<Vec<Vec<Row>>> {
        let statements: Vec<_> = statements
            .into_iter()
            .map(|(sql, params)| (rewrite_placeholders(&sql), params))
            .collect();
        let obj = self
            .pool
            .get()
            .await
            .map_err(|e| StoreError::Sqlite(format!("pool: {e}")))?;
        obj.interact(move |c| -> Result<Vec<Vec<Row>>> {
            if !c.is_autocommit() {
                c.execute_batch("ROLLBACK")?;
            }
            c.execute_batch("BEGIN DEFERRED")?;
            let sets: Result<Vec<Vec<Row>>> = statements
                .iter()
                .map(|(sql, params)| rows_of(c, sql, params))
                .collect();
            match sets {
                Ok(sets) => {
                    c.execute_batch("COMMIT")?;
                    Ok(sets)
                }
                Err(e) => {
                    let _ = c.execute_batch("ROLLBACK");
                    Err(e)
                }
            }
        })
        .await
        .map_err(interact_err)?
    }
}

fn interact_err(e: deadpool_sqlite::InteractError) -> StoreError {
    StoreError::Sqlite(format!("interact: {e}"))
}

impl ToSql for SqlValue {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self {
            SqlValue::Null => ValueRef::Null,
            SqlValue::I64(v) => ValueRef::Integer(*v),
            SqlValue::Bool(b) => ValueRef::Integer(*b as i64),
            SqlValue::Text(s) => ValueRef::Text(s.as_bytes()),
            SqlValue::Bytes(b) => ValueRef::Blob(b),
        }))
    }
}

/// Rewrites PostgreSQL `$N` placeholders to SQLite's `?N` (outside string literals), so
/// binding is by number on both backends.
pub(crate) fn rewrite_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut in_str = false;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_str = !in_str;
                out.push(c);
            }
            '$' if !in_str && chars.peek().is_some_and(|n| n.is_ascii_digit()) => out.push('?'),
            _ => out.push(c),
        }
    }
    out
}

fn decode(row: &rusqlite::Row<'_>, n: usize) -> rusqlite::Result<Row> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(match row.get_ref(i)? {
            ValueRef::Null => SqlValue::Null,
            ValueRef::Integer(v) => SqlValue::I64(v),
            ValueRef::Real(f) => SqlValue::I64(f as i64),
            ValueRef::Text(t) => SqlValue::Text(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => SqlValue::Bytes(b.to_vec()),
        });
    }
    Ok(Row(out))
}

pub(super) async fn query(
    c: &mut deadpool_sqlite::Object,
    sql: &str,
    params: Vec<SqlValue>,
) -> Result<Vec<Row>> {
    let sql = rewrite_placeholders(sql);
    c.interact(move |c| rows_of(c, &sql, &params))
        .await
        .map_err(interact_err)?
}

/// The rows of one statement (placeholders already rewritten), on the blocking thread.
fn rows_of(c: &rusqlite::Connection, sql: &str, params: &[SqlValue]) -> Result<Vec<Row>> {
    let mut st = c.prepare_cached(sql)?;
    let n = st.column_count();
    let rows = st.query_map(rusqlite::params_from_iter(params.iter()), |r| decode(r, n))?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}

pub(super) async fn query_all(
    c: &mut deadpool_sqlite::Object,
    statements: Vec<(String, Vec<SqlValue>)>,
) -> Result<Vec<Vec<Row>>> {
    let statements: Vec<_> = statements
        .into_iter()
        .map(|(sql, params)| (rewrite_placeholders(&sql), params))
        .collect();
    c.interact(move |c| -> Result<Vec<Vec<Row>>> {
        statements
            .iter()
            .map(|(sql, params)| rows_of(c, sql, params))
            .collect()
    })
    .await
    .map_err(interact_err)?
}

pub(super) async fn execute(
    c: &mut deadpool_sqlite::Object,
    sql: &str,
    params: Vec<SqlValue>,
) -> Result<u64> {
    let sql = rewrite_placeholders(sql);
    c.interact(move |c| -> Result<u64> {
        let mut st = c.prepare_cached(&sql)?;
        Ok(st.execute(rusqlite::params_from_iter(params.iter()))? as u64)
    })
    .await
    .map_err(interact_err)?
}

pub(super) async fn batch(c: &mut deadpool_sqlite::Object, sql: String) -> Result<()> {
    c.interact(move |c| c.execute_batch(&sql))
        .await
        .map_err(interact_err)?
        .map_err(Into::into)
}

/// Synchronous rollback for `Drop`: the connection is ours, so the lock is uncontended.
pub(super) fn rollback_now(obj: &deadpool_sqlite::Object) {
    if let Ok(c) = obj.lock()
        && !c.is_autocommit()
    {
        let _ = c.execute_batch("ROLLBACK");
    }
}

#[cfg(test)]
mod tests {
    use super::{LiteDb, rewrite_placeholders, rusqlite};
    use crate::sql::Mode;

    /// Every pooled connection runs with the durability settings the crate docs promise.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn connections_are_durable_wal_with_foreign_keys() {
        let dir = std::env::temp_dir().join(format!("tessera-pragma-{}", crate::ids::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = LiteDb::open(&dir.join("t.sqlite3"), 2).unwrap();
        let (obj, _) = db.begin(Mode::Auto).await.unwrap();
        let got = obj
            .interact(|c| {
                let one = |p: &str| {
                    c.query_row(&format!("PRAGMA {p}"), [], |r| {
                        r.get::<_, rusqlite::types::Value>(0)
                    })
                };
                (
                    one("journal_mode"),
                    one("synchronous"),
                    one("foreign_keys"),
                    one("busy_timeout"),
                )
            })
            .await
            .unwrap();
        use rusqlite::types::Value::{Integer, Text};
        assert_eq!(got.0.unwrap(), Text("wal".into()));
        assert_eq!(got.1.unwrap(), Integer(2), "synchronous=FULL");
        assert_eq!(got.2.unwrap(), Integer(1));
        assert_eq!(got.3.unwrap(), Integer(10000));
        drop(obj);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn placeholders_become_numbered_question_marks_outside_literals() {
        assert_eq!(
            rewrite_placeholders("SELECT $1, '$2', $10 WHERE a = $2"),
            "SELECT ?1, '$2', ?10 WHERE a = ?2"
        );
    }
}
