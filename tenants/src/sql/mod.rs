//! The thin layer that lets one SQL text run on both backends.
//!
//! Repository code writes PostgreSQL-style SQL with `$1, $2 ...` placeholders and portable
//! types ([`SqlValue`]); `Tx` runs it on a pooled PostgreSQL connection
//! (tokio-postgres + deadpool-postgres) or on a pooled SQLite connection (rusqlite through
//! deadpool-sqlite, with `$N` rewritten to `?N`). Only the DDL differs per backend
//! (see `migrations/`).

mod postgres;
mod sqlite;
mod value;

pub use value::{Row, SqlValue};

pub(crate) use postgres::PgDb;
pub(crate) use sqlite::LiteDb;

use crate::error::{Result, StoreError};

/// Which backend a store talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A PostgreSQL server shared by many nodes.
    Postgres,
    /// The embedded SQLite file under the data directory.
    Sqlite,
}

/// What a transaction is for; decides `BEGIN` flavour and locking.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Single statements in autocommit mode (no BEGIN): the cheapest read.
    Auto,
    /// A consistent read of several statements.
    Snapshot,
    /// A read-write transaction (SQLite: `BEGIN IMMEDIATE` under the process write lock).
    Write,
}

/// A connection pool on one of the two backends.
pub(crate) enum Db {
    Pg(Box<PgDb>),
    Lite(LiteDb),
}

impl Db {
    pub(crate) fn backend(&self) -> Backend {
        match self {
            Db::Pg(_) => Backend::Postgres,
            Db::Lite(_) => Backend::Sqlite,
        }
    }

    /// Starts a unit of work. Dropping the returned [`Tx`] without [`Tx::commit`] rolls back.
    pub(crate) async fn begin(&self, mode: Mode) -> Result<Tx> {
        match self {
            Db::Pg(db) => {
                let (obj, begin) = db.begin(mode).await?;
                Ok(Tx {
                    conn: Some(Conn::Pg(obj)),
                    // Open once the first statement has sent the `BEGIN`.
                    open: false,
                    begin,
                    _guard: None,
                })
            }
            Db::Lite(db) => {
                let (obj, guard) = db.begin(mode).await?;
                Ok(Tx {
                    conn: Some(Conn::Lite(obj)),
                    open: mode != Mode::Auto,
                    begin: None,
                    _guard: guard,
                })
            }
        }
    }
}

impl Db {
    /// Runs read statements inside one consistent snapshot and returns each one's rows, in
    /// order, in one hop to the database: on SQLite `BEGIN`, the statements and `COMMIT` (or
    /// `ROLLBACK` on an error) are one blocking call; on PostgreSQL they are pipelined on one
    /// connection, so the `COMMIT` goes out with the reads instead of a round trip after
    /// them. What a cold site's content load uses: under load it waits for the database, and
    /// then for a worker, once instead of three times.
    pub(crate) async fn read_all(
        &self,
        statements: Vec<(String, Vec<SqlValue>)>,
    ) -> Result<Vec<Vec<Row>>> {
        for (_, params) in &statements {
            nul_free(params)?;
        }
        match self {
            Db::Pg(db) => db.read_all(statements).await,
            Db::Lite(db) => db.read_all(statements).await,
        }
    }
}

enum Conn {
    Pg(deadpool_postgres::Object),
    Lite(deadpool_sqlite::Object),
}

/// A connection checked out of the pool, inside a transaction unless opened with
/// [`Mode::Auto`].
pub(crate) struct Tx {
    conn: Option<Conn>,
    open: bool,
    /// PostgreSQL: the `BEGIN` not sent yet; the first statement sends it ahead of itself.
    begin: Option<&'static str>,
    _guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl Tx {
    /// The connection, and the `BEGIN` the next statement must send first (the
    /// transaction counts as open from then on, so that it is rolled back if dropped).
    fn conn_and_begin(&mut self) -> (&mut Conn, Option<&'static str>) {
        let begin = self.begin.take();
        if begin.is_some() {
            self.open = true;
        }
        (
            self.conn.as_mut().expect("connection present until drop"),
            begin,
        )
    }

    /// Which backend this transaction runs on (for the few dialect-specific statements).
    pub(crate) fn backend(&self) -> Backend {
        match self.conn.as_ref() {
            Some(Conn::Pg(_)) => Backend::Postgres,
            _ => Backend::Sqlite,
        }
    }

    /// Runs a statement and returns its rows.
    pub(crate) async fn query(&mut self, sql: &str, params: Vec<SqlValue>) -> Result<Vec<Row>> {
        nul_free(&params)?;
        match self.conn_and_begin() {
            (Conn::Pg(c), begin) => postgres::query(c, begin, sql, params).await,
            (Conn::Lite(c), _) => sqlite::query(c, sql, params).await,
        }
    }

    /// Runs several read statements and returns each one's rows, in order: one hop to the
    /// database for all of them (one blocking call on SQLite; pipelined on one PostgreSQL
    /// connection) rather than one per statement. A cold page loads a whole site this
    /// way, so under load it waits for the database, and then for a worker, a few times
    /// instead of a dozen.
    pub(crate) async fn query_all(
        &mut self,
        statements: Vec<(String, Vec<SqlValue>)>,
    ) -> Result<Vec<Vec<Row>>> {
        for (_, params) in &statements {
            nul_free(params)?;
        }
        match self.conn_and_begin() {
            (Conn::Pg(c), begin) => postgres::query_all(c, begin, statements).await,
            (Conn::Lite(c), _) => sqlite::query_all(c, statements).await,
        }
    }

    /// Runs a statement and returns the number of rows it changed.
    pub(crate) async fn execute(&mut self, sql: &str, params: Vec<SqlValue>) -> Result<u64> {
        nul_free(&params)?;
        match self.conn_and_begin() {
            (Conn::Pg(c), begin) => postgres::execute(c, begin, sql, params).await,
            (Conn::Lite(c), _) => sqlite::execute(c, sql, params).await,
        }
    }

    /// Runs a statement expected to return at most one row.
    pub(crate) async fn query_opt(
        &mut self,
        sql: &str,
        params: Vec<SqlValue>,
    ) -> Result<Option<Row>> {
        let mut rows = self.query(sql, params).await?;
        if rows.len() > 1 {
            return Err(StoreError::decode(format!(
                "expected at most one row, got {}",
                rows.len()
            )));
        }
        Ok(rows.pop())
    }

    /// Runs a statement expected to return exactly one row.
    pub(crate) async fn query_one(&mut self, sql: &str, params: Vec<SqlValue>) -> Result<Row> {
        self.query_opt(sql, params)
            .await?
            .ok_or_else(|| StoreError::decode("expected one row, got none"))
    }

    /// Runs several statements without parameters (DDL in migrations).
    pub(crate) async fn batch(&mut self, sql: &str) -> Result<()> {
        match self.conn_and_begin() {
            (Conn::Pg(c), Some(begin)) => c
                .batch_execute(&format!("{begin}; {sql}"))
                .await
                .map_err(Into::into),
            (Conn::Pg(c), None) => c.batch_execute(sql).await.map_err(Into::into),
            (Conn::Lite(c), _) => sqlite::batch(c, sql.to_owned()).await,
        }
    }

    /// Commits the transaction (a no-op in [`Mode::Auto`]).
    pub(crate) async fn commit(mut self) -> Result<()> {
        // A transaction that ran no statement never began: nothing to commit.
        self.begin = None;
        if self.open {
            self.batch("COMMIT").await?;
            self.open = false;
        }
        Ok(())
    }

    /// Runs `statements` (writes, in order) and commits, in one hop to the database: on
    /// PostgreSQL the statements and the `COMMIT` are pipelined on the connection, so a
    /// transaction that holds a lock other writers wait for (a site's order counter) holds it
    /// for one round trip and the commit instead of one round trip per statement more. All
    /// or nothing: when a statement fails, PostgreSQL ends the transaction without
    /// committing (a `COMMIT` in a failed transaction rolls back) and its error is returned;
    /// on SQLite the statements run one by one and a failure rolls back.
    pub(crate) async fn commit_after(self, statements: Vec<(String, Vec<SqlValue>)>) -> Result<()> {
        self.commit_after_counting(statements).await.map(|_| ())
    }

    /// [`Tx::commit_after`], answering how many rows each statement changed, in order: for
    /// a caller whose last hop decides something by a count (a write that takes stock or
    /// writes nothing, say).
    pub(crate) async fn commit_after_counting(
        mut self,
        statements: Vec<(String, Vec<SqlValue>)>,
    ) -> Result<Vec<u64>> {
        for (_, params) in &statements {
            nul_free(params)?;
        }
        if statements.is_empty() {
            return self.commit().await.map(|()| Vec::new());
        }
        match self.conn_and_begin() {
            (Conn::Pg(c), begin) => {
                let sent = postgres::execute_then_commit(c, begin, statements).await;
                // Once the pipeline went out the transaction is over, committed or not; a
                // failure before (preparing) leaves it open, for `Drop` to roll back.
                if !matches!(sent, Err((false, _))) {
                    self.open = false;
                }
                sent.map_err(|(_, e)| e)
            }
            (Conn::Lite(c), _) => {
                let mut counts = Vec::with_capacity(statements.len());
                for (sql, params) in statements {
                    counts.push(sqlite::execute(c, &sql, params).await?);
                }
                self.commit().await?;
                Ok(counts)
            }
        }
    }

    /// Rolls the transaction back explicitly, keeping the connection for reuse.
    pub(crate) async fn rollback(mut self) -> Result<()> {
        self.begin = None;
        if self.open {
            self.batch("ROLLBACK").await?;
            self.open = false;
        }
        Ok(())
    }
}

/// `Invalid` for a text parameter with U+0000, on both backends alike: PostgreSQL cannot
/// store it in TEXT (its error would read as the database failing), SQLite would keep it.
/// The HTTP layer refuses such text first, naming the field (`api/src/http/body.rs`); this
/// is the backstop for any other way text reaches the store.
fn nul_free(params: &[SqlValue]) -> Result<()> {
    if params
        .iter()
        .any(|p| matches!(p, SqlValue::Text(t) if t.contains('\0')))
    {
        return Err(StoreError::Invalid(
            "text may not contain the NUL character (U+0000)".to_owned(),
        ));
    }
    Ok(())
}

impl Drop for Tx {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        match self.conn.take() {
            // An error path left the transaction open: roll back on a task, then the
            // connection returns to the pool. Without a runtime (or if ROLLBACK fails) the
            // connection is closed instead, which makes the server roll back.
            Some(Conn::Pg(obj)) => match tokio::runtime::Handle::try_current() {
                Ok(rt) => {
                    rt.spawn(async move {
                        if obj.batch_execute("ROLLBACK").await.is_err() {
                            drop(deadpool_postgres::Object::take(obj));
                        }
                    });
                }
                Err(_) => drop(deadpool_postgres::Object::take(obj)),
            },
            Some(Conn::Lite(obj)) => sqlite::rollback_now(&obj),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Db, LiteDb, Mode, PgDb};
    use crate::params;

    async fn count(db: &Db) -> i64 {
        let mut tx = db.begin(Mode::Snapshot).await.unwrap();
        let n = tx
            .query_one("SELECT count(*) FROM t", params![])
            .await
            .unwrap()
            .i64(0)
            .unwrap();
        tx.commit().await.unwrap();
        n
    }

    fn insert(k: i64) -> (String, Vec<super::SqlValue>) {
        ("INSERT INTO t (k) VALUES ($1)".to_owned(), params![k])
    }

    /// `commit_after` commits its statements with the transaction's earlier work, or, when
    /// one of them fails, none of it; the connection (the pool has one) is clean afterwards.
    async fn all_or_nothing(db: Db) {
        let mut tx = db.begin(Mode::Write).await.unwrap();
        tx.batch("CREATE TABLE t (k BIGINT PRIMARY KEY)")
            .await
            .unwrap();
        tx.commit().await.unwrap();

        let mut tx = db.begin(Mode::Write).await.unwrap();
        tx.execute("INSERT INTO t (k) VALUES (1)", params![])
            .await
            .unwrap();
        let failed = tx.commit_after(vec![insert(2), insert(1), insert(3)]).await;
        assert!(failed.is_err(), "a duplicate key must fail the commit");
        assert_eq!(count(&db).await, 0, "nothing of a failed commit stays");

        // The first statements of a transaction (its BEGIN still pending) go in the same hop.
        let tx = db.begin(Mode::Write).await.unwrap();
        tx.commit_after(vec![insert(4), insert(5)]).await.unwrap();
        let mut tx = db.begin(Mode::Write).await.unwrap();
        tx.execute("INSERT INTO t (k) VALUES (6)", params![])
            .await
            .unwrap();
        tx.commit_after(vec![insert(7)]).await.unwrap();
        assert_eq!(count(&db).await, 4);

        // Counting: each statement's changed rows, in order (an insert of nothing counts 0).
        let tx = db.begin(Mode::Write).await.unwrap();
        let counts = tx
            .commit_after_counting(vec![
                insert(9),
                (
                    "INSERT INTO t (k) SELECT k + 100 FROM t WHERE k > $1".to_owned(),
                    params![1000],
                ),
                (
                    "INSERT INTO t (k) SELECT k + 100 FROM t WHERE k < $1".to_owned(),
                    params![6],
                ),
            ])
            .await
            .unwrap();
        assert_eq!(counts, vec![1, 0, 2]);
        assert_eq!(count(&db).await, 7);
        let mut tx = db.begin(Mode::Write).await.unwrap();
        tx.batch("DELETE FROM t WHERE k >= 9").await.unwrap();
        tx.commit().await.unwrap();
        assert_eq!(count(&db).await, 4);

        // A text with U+0000 is refused before anything is sent; the transaction rolls back.
        let mut tx = db.begin(Mode::Write).await.unwrap();
        tx.execute("INSERT INTO t (k) VALUES (8)", params![])
            .await
            .unwrap();
        let refused = tx
            .commit_after(vec![(
                "INSERT INTO t (k) VALUES (length($1))".to_owned(),
                params!["a\0b"],
            )])
            .await;
        assert!(refused.is_err());
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(count(&db).await, 4);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commit_after_is_all_or_nothing_on_postgres() {
        let url = crate::testing::PgServer::shared().create_database();
        all_or_nothing(Db::Pg(Box::new(PgDb::open(&url, 1).unwrap()))).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commit_after_is_all_or_nothing_on_sqlite() {
        let dir = std::env::temp_dir().join(format!("tessera-commit-{}", crate::ids::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        all_or_nothing(Db::Lite(LiteDb::open(&dir.join("t.sqlite3"), 1).unwrap())).await;
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
