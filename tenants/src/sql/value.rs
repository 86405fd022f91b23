//! Backend-neutral parameter and row values, so repository SQL is written once.

use crate::error::{Result, StoreError};
use crate::ids::{TemplateVersion, TenantId};

/// A parameter or column value. The schema only uses these portable types: BIGINT, BOOLEAN,
/// TEXT (also for JSON documents) and BYTEA/BLOB.
#[derive(Clone, Debug, PartialEq)]
pub enum SqlValue {
    /// SQL NULL.
    Null,
    /// BIGINT (money in minor units, instants in epoch milliseconds, counters).
    I64(i64),
    /// BOOLEAN (SQLite stores 0/1).
    Bool(bool),
    /// TEXT.
    Text(String),
    /// BYTEA / BLOB (template asset files).
    Bytes(Vec<u8>),
}

impl From<i64> for SqlValue {
    fn from(v: i64) -> Self {
        SqlValue::I64(v)
    }
}
impl From<bool> for SqlValue {
    fn from(v: bool) -> Self {
        SqlValue::Bool(v)
    }
}
impl From<&str> for SqlValue {
    fn from(v: &str) -> Self {
        SqlValue::Text(v.to_owned())
    }
}
impl From<String> for SqlValue {
    fn from(v: String) -> Self {
        SqlValue::Text(v)
    }
}
impl From<&String> for SqlValue {
    fn from(v: &String) -> Self {
        SqlValue::Text(v.clone())
    }
}
impl From<Vec<u8>> for SqlValue {
    fn from(v: Vec<u8>) -> Self {
        SqlValue::Bytes(v)
    }
}
impl From<TenantId> for SqlValue {
    fn from(v: TenantId) -> Self {
        SqlValue::I64(v.0)
    }
}
impl From<TemplateVersion> for SqlValue {
    fn from(v: TemplateVersion) -> Self {
        SqlValue::I64(v.0)
    }
}
impl From<&serde_json::Value> for SqlValue {
    fn from(v: &serde_json::Value) -> Self {
        SqlValue::Text(v.to_string())
    }
}
impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(SqlValue::Null, Into::into)
    }
}

/// Builds a `Vec<SqlValue>` from anything convertible: `params![tenant, "x", 3_i64]`.
#[macro_export]
#[doc(hidden)]
macro_rules! params {
    ($($v:expr),* $(,)?) => { vec![$($crate::sql::SqlValue::from($v)),*] };
}

/// One result row, decoded to owned values by the backend.
#[derive(Clone, Debug)]
pub struct Row(pub(crate) Vec<SqlValue>);

impl Row {
    fn at(&self, i: usize) -> Result<&SqlValue> {
        self.0
            .get(i)
            .ok_or_else(|| StoreError::decode(format!("no column {i}")))
    }

    /// A BIGINT column.
    pub fn i64(&self, i: usize) -> Result<i64> {
        match self.at(i)? {
            SqlValue::I64(v) => Ok(*v),
            SqlValue::Bool(b) => Ok(*b as i64),
            other => Err(StoreError::decode(format!(
                "column {i}: expected integer, got {other:?}"
            ))),
        }
    }

    /// A nullable BIGINT column.
    pub fn opt_i64(&self, i: usize) -> Result<Option<i64>> {
        match self.at(i)? {
            SqlValue::Null => Ok(None),
            _ => self.i64(i).map(Some),
        }
    }

    /// A BOOLEAN column (SQLite gives 0/1).
    pub fn bool(&self, i: usize) -> Result<bool> {
        match self.at(i)? {
            SqlValue::Bool(b) => Ok(*b),
            SqlValue::I64(v) => Ok(*v != 0),
            other => Err(StoreError::decode(format!(
                "column {i}: expected boolean, got {other:?}"
            ))),
        }
    }

    /// A TEXT column.
    pub fn text(&self, i: usize) -> Result<String> {
        match self.at(i)? {
            SqlValue::Text(s) => Ok(s.clone()),
            other => Err(StoreError::decode(format!(
                "column {i}: expected text, got {other:?}"
            ))),
        }
    }

    /// A nullable TEXT column.
    pub fn opt_text(&self, i: usize) -> Result<Option<String>> {
        match self.at(i)? {
            SqlValue::Null => Ok(None),
            _ => self.text(i).map(Some),
        }
    }

    /// A BYTEA / BLOB column.
    pub fn bytes(&self, i: usize) -> Result<Vec<u8>> {
        match self.at(i)? {
            SqlValue::Bytes(b) => Ok(b.clone()),
            SqlValue::Text(s) => Ok(s.clone().into_bytes()),
            other => Err(StoreError::decode(format!(
                "column {i}: expected bytes, got {other:?}"
            ))),
        }
    }

    /// A nullable BYTEA / BLOB column.
    pub fn opt_bytes(&self, i: usize) -> Result<Option<Vec<u8>>> {
        match self.at(i)? {
            SqlValue::Null => Ok(None),
            _ => self.bytes(i).map(Some),
        }
    }

    /// A TEXT column holding a JSON document.
    pub fn json<T: serde::de::DeserializeOwned>(&self, i: usize) -> Result<T> {
        let s = self.text(i)?;
        serde_json::from_str(&s).map_err(|e| StoreError::decode(format!("column {i}: {e}")))
    }
}
