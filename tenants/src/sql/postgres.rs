//! PostgreSQL side of [`super::Tx`]: pool, parameter binding by the statement's inferred
//! types, and row decoding to [`SqlValue`].

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;
use tokio_postgres::types::{ToSql, Type};

use super::{Mode, Row, SqlValue};
use crate::error::{Result, StoreError};

/// How long opening a connection may take (unless the URL says `connect_timeout`): a
/// database that does not answer fails the call instead of holding it.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

/// How long a call waits for a pooled connection when all are busy, then fails (503) rather
/// than queueing without bound.
pub(crate) const POOL_WAIT: Duration = Duration::from_secs(3);

/// How long checking a pooled connection before reuse may take.
const RECYCLE_TIMEOUT: Duration = Duration::from_secs(2);

/// A deadpool-postgres pool plus the URL (the invalidation listener opens its own
/// connection from it).
pub(crate) struct PgDb {
    pub(crate) pool: Pool,
    pub(crate) config: tokio_postgres::Config,
}

impl PgDb {
    /// A pool on `url` whose calls never hang on an unreachable database: opening a
    /// connection, waiting for one and recycling one are all bounded, so while PostgreSQL is
    /// down or restarting every call fails within seconds (the server answers 503) and the
    /// pool reconnects by itself once it is back.
    pub(crate) fn open(url: &str, max_size: usize) -> Result<Self> {
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e| StoreError::Invalid(format!("database URL: {e}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let mgr = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(mgr)
            .max_size(max_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(RECYCLE_TIMEOUT))
            .build()
            .map_err(|e| StoreError::Postgres(e.to_string()))?;
        Ok(PgDb { pool, config })
    }

    /// A pooled connection for a unit of work in `mode`, and the `BEGIN` it still needs
    /// (none in [`Mode::Auto`]). The `BEGIN` is not sent here: the transaction's first
    /// statement sends it ahead of itself in the same write ([`with_begin`]), which saves
    /// every transaction one round trip to the server.
    pub(crate) async fn begin(
        &self,
        mode: Mode,
    ) -> Result<(deadpool_postgres::Object, Option<&'static str>)> {
        let obj = self
            .pool
            .get()
            .await
            .map_err(|e| StoreError::Postgres(format!("pool: {e}")))?;
        let begin = match mode {
            Mode::Auto => None,
            Mode::Snapshot => Some("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"),
            Mode::Write => Some("BEGIN"),
        };
        Ok((obj, begin))
    }
}

/// Runs `request` on `c`, with the transaction's pending `begin` pipelined ahead of it:
/// tokio-postgres sends requests in the order they are first polled and the server answers
/// in order, so `BEGIN` and the statement go out together and the statement runs inside the
/// transaction. Statements are prepared (cached per connection) before either is sent.
async fn with_begin<T>(
    c: &tokio_postgres::Client,
    begin: Option<&'static str>,
    request: impl std::future::Future<Output = std::result::Result<T, tokio_postgres::Error>>,
) -> Result<T> {
    match begin {
        None => Ok(request.await?),
        Some(begin) => {
            let (begun, answer) = futures_util::future::join(c.batch_execute(begin), request).await;
            begun?;
            Ok(answer?)
        }
    }
}

type Param = Box<dyn ToSql + Sync + Send>;

fn bind(v: SqlValue, ty: &Type) -> Result<Param> {
    let mismatch =
        |what: &str| StoreError::Invalid(format!("cannot bind {what} to a {ty} parameter"));
    Ok(match v {
        SqlValue::Null => match *ty {
            Type::INT8 => Box::new(None::<i64>),
            Type::INT4 => Box::new(None::<i32>),
            Type::BOOL => Box::new(None::<bool>),
            Type::BYTEA => Box::new(None::<Vec<u8>>),
            _ => Box::new(None::<String>),
        },
        SqlValue::I64(i) => match *ty {
            Type::INT8 => Box::new(i),
            Type::INT4 => Box::new(i32::try_from(i).map_err(|_| mismatch("a large integer"))?),
            Type::INT2 => Box::new(i16::try_from(i).map_err(|_| mismatch("a large integer"))?),
            _ => return Err(mismatch("an integer")),
        },
        SqlValue::Bool(b) if *ty == Type::BOOL => Box::new(b),
        SqlValue::Bool(_) => return Err(mismatch("a boolean")),
        SqlValue::Text(s) => Box::new(s),
        SqlValue::Bytes(b) if *ty == Type::BYTEA => Box::new(b),
        SqlValue::Bytes(_) => return Err(mismatch("bytes")),
    })
}

fn decode(row: &tokio_postgres::Row) -> Result<Row> {
    let mut out = Vec::with_capacity(row.len());
    for (i, col) in row.columns().iter().enumerate() {
        let v = match *col.type_() {
            Type::INT8 => row.try_get::<_, Option<i64>>(i)?.map(SqlValue::I64),
            Type::INT4 => row
                .try_get::<_, Option<i32>>(i)?
                .map(|v| SqlValue::I64(v.into())),
            Type::INT2 => row
                .try_get::<_, Option<i16>>(i)?
                .map(|v| SqlValue::I64(v.into())),
            Type::BOOL => row.try_get::<_, Option<bool>>(i)?.map(SqlValue::Bool),
            Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i)?.map(SqlValue::Bytes),
            Type::VOID => None,
            Type::TEXT | Type::VARCHAR | Type::NAME | Type::BPCHAR => {
                row.try_get::<_, Option<String>>(i)?.map(SqlValue::Text)
            }
            ref other => {
                return Err(StoreError::decode(format!(
                    "unsupported column type {other} ({})",
                    col.name()
                )));
            }
        };
        out.push(v.unwrap_or(SqlValue::Null));
    }
    Ok(Row(out))
}

async fn prepare(
    c: &deadpool_postgres::Object,
    sql: &str,
    params: Vec<SqlValue>,
) -> Result<(tokio_postgres::Statement, Vec<Param>)> {
    let stmt = c.prepare_cached(sql).await?;
    if stmt.params().len() != params.len() {
        return Err(StoreError::Invalid(format!(
            "statement wants {} parameters, got {}: {sql}",
            stmt.params().len(),
            params.len()
        )));
    }
    let bound = params
        .into_iter()
        .zip(stmt.params())
        .map(|(v, t)| bind(v, t))
        .collect::<Result<Vec<_>>>()?;
    Ok((stmt, bound))
}

fn refs(bound: &[Param]) -> Vec<&(dyn ToSql + Sync)> {
    bound
        .iter()
        .map(|b| b.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

pub(super) async fn query(
    c: &mut deadpool_postgres::Object,
    begin: Option<&'static str>,
    sql: &str,
    params: Vec<SqlValue>,
) -> Result<Vec<Row>> {
    let (stmt, bound) = prepare(c, sql, params).await?;
    let rows = with_begin(c, begin, c.query(&stmt, &refs(&bound))).await?;
    rows.iter().map(decode).collect()
}

pub(super) async fn query_all(
    c: &mut deadpool_postgres::Object,
    begin: Option<&'static str>,
    statements: Vec<(String, Vec<SqlValue>)>,
) -> Result<Vec<Vec<Row>>> {
    // Statements are prepared once per connection (cached); the queries are then sent
    // together: tokio-postgres pipelines requests made at the same time on one client.
    let mut prepared = Vec::with_capacity(statements.len());
    for (sql, params) in statements {
        prepared.push(prepare(c, &sql, params).await?);
    }
    let client: &tokio_postgres::Client = c;
    let results = with_begin(
        client,
        begin,
        futures_util::future::try_join_all(
            prepared
                .iter()
                .map(|(stmt, bound)| async move { client.query(stmt, &refs(bound)).await }),
        ),
    )
    .await?;
    results
        .iter()
        .map(|rows| rows.iter().map(decode).collect())
        .collect()
}

impl PgDb {
    /// [`super::Db::read_all`]: `BEGIN` (a read-only snapshot), the statements and `COMMIT`
    /// pipelined on one connection (tokio-postgres sends requests in the order they are
    /// first polled, and the server answers in order). After a failed statement the server
    /// answers the `COMMIT` with a rollback, so the connection goes back to the pool clean.
    pub(crate) async fn read_all(
        &self,
        statements: Vec<(String, Vec<SqlValue>)>,
    ) -> Result<Vec<Vec<Row>>> {
        let (c, begin) = self.begin(Mode::Snapshot).await?;
        let mut prepared = Vec::with_capacity(statements.len());
        for (sql, params) in statements {
            prepared.push(prepare(&c, &sql, params).await?);
        }
        let client: &tokio_postgres::Client = &c;
        let (begun, results, committed) = futures_util::future::join3(
            client.batch_execute(begin.unwrap_or("BEGIN")),
            futures_util::future::try_join_all(
                prepared
                    .iter()
                    .map(|(stmt, bound)| async move { client.query(stmt, &refs(bound)).await }),
            ),
            client.batch_execute("COMMIT"),
        )
        .await;
        begun?;
        let results = results?;
        committed?;
        results
            .iter()
            .map(|rows| rows.iter().map(decode).collect())
            .collect()
    }
}

pub(super) async fn execute(
    c: &mut deadpool_postgres::Object,
    begin: Option<&'static str>,
    sql: &str,
    params: Vec<SqlValue>,
) -> Result<u64> {
    let (stmt, bound) = prepare(c, sql, params).await?;
    with_begin(c, begin, c.execute(&stmt, &refs(&bound))).await
}

/// Runs `statements` and then `COMMIT`, all sent together (after the transaction's pending
/// `begin`): one round trip; how many rows each statement changed. The error says whether
/// the pipeline was sent (`true`: the transaction is over, committed only if every statement
/// and the `COMMIT` succeeded).
pub(super) async fn execute_then_commit(
    c: &mut deadpool_postgres::Object,
    begin: Option<&'static str>,
    statements: Vec<(String, Vec<SqlValue>)>,
) -> std::result::Result<Vec<u64>, (bool, StoreError)> {
    let mut prepared = Vec::with_capacity(statements.len());
    for (sql, params) in statements {
        prepared.push(prepare(c, &sql, params).await.map_err(|e| (false, e))?);
    }
    let client: &tokio_postgres::Client = c;
    let writes = futures_util::future::try_join_all(
        prepared
            .iter()
            .map(|(stmt, bound)| async move { client.execute(stmt, &refs(bound)).await }),
    );
    // Polled in this order, so sent in this order: BEGIN (if pending), the writes, COMMIT.
    let (begun, written, committed) = futures_util::future::join3(
        async {
            match begin {
                Some(b) => client.batch_execute(b).await,
                None => Ok(()),
            }
        },
        writes,
        client.batch_execute("COMMIT"),
    )
    .await;
    let sent = |e: tokio_postgres::Error| (true, StoreError::from(e));
    begun.map_err(sent)?;
    // A failed write makes the COMMIT a rollback: its error is the one to report.
    let counts = written.map_err(sent)?;
    committed.map_err(sent)?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    /// A "database" that takes the connection (the kernel's listen queue does) and never
    /// says a word, as a hung or half-dead server would.
    fn silent_server() -> (std::net::TcpListener, String) {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!(
            "postgres://postgres@127.0.0.1:{}/db",
            l.local_addr().unwrap().port()
        );
        (l, url)
    }

    #[tokio::test]
    async fn a_database_that_never_answers_fails_calls_within_the_connect_timeout() {
        let (_listener, url) = silent_server();
        let db = PgDb::open(&url, 2).unwrap();
        let started = Instant::now();
        let called = tokio::time::timeout(Duration::from_secs(20), db.begin(Mode::Auto)).await;
        let Ok(Err(err)) = called else {
            panic!("the call hangs, or connected to a server that never answers");
        };
        let took = started.elapsed();
        assert!(matches!(err, StoreError::Postgres(_)), "{err}");
        assert!(
            took >= CONNECT_TIMEOUT - Duration::from_millis(100)
                && took < CONNECT_TIMEOUT + Duration::from_secs(3),
            "failed after {took:?}"
        );
    }

    #[tokio::test]
    async fn a_call_waits_for_a_busy_pool_only_so_long() {
        let url = crate::testing::PgServer::shared().create_database();
        let db = PgDb::open(&url, 1).unwrap();
        let held = db.begin(Mode::Auto).await.unwrap();
        let started = Instant::now();
        let waited = tokio::time::timeout(Duration::from_secs(20), db.begin(Mode::Auto))
            .await
            .expect("the call hangs");
        let took = started.elapsed();
        assert!(matches!(waited, Err(StoreError::Postgres(_))));
        assert!(
            took >= POOL_WAIT - Duration::from_millis(100)
                && took < POOL_WAIT + Duration::from_secs(3),
            "gave up after {took:?}"
        );
        drop(held);
        assert!(db.begin(Mode::Auto).await.is_ok(), "free again");
    }

    #[tokio::test]
    async fn a_connect_timeout_in_the_url_wins() {
        let db = PgDb::open("postgres://postgres@127.0.0.1:1/db?connect_timeout=1", 1).unwrap();
        assert_eq!(
            db.config.get_connect_timeout(),
            Some(&Duration::from_secs(1))
        );
        let db = PgDb::open("postgres://postgres@127.0.0.1:1/db", 1).unwrap();
        assert_eq!(db.config.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
    }
}
