//! Reading a JSON request body: at most a set size (413 beyond it, before reading a byte
//! when `Content-Length` says so, else as soon as the bytes read pass it, so a chunked
//! body is never read whole), in the time the server gives bodies (408 past it), and a 400
//! that names the field for a body that does not have the expected shape.
//!
//! Text with U+0000 (NUL) is refused here with a 400 naming where it is, in a JSON body's
//! keys and values at any depth, in form-urlencoded bodies ([`form_pairs`]) and in JSON
//! carried inside a string ([`refuse_nul`]): PostgreSQL cannot store it in TEXT (a 503
//! there, stored as-is on SQLite), and no honest client sends it. The request's path and
//! query are checked once for every route ([`nul_free_uri`]).

use axum::body::Body;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::ApiError;

/// The largest JSON body a visitor call reads.
pub const MAX_JSON_BODY: usize = 64 * 1024;

/// The body's bytes, at most `limit` of them.
pub async fn bytes(body: Body, limit: usize) -> Result<axum::body::Bytes, ApiError> {
    use axum::body::HttpBody;
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "The request body is too large (at most {} KB).",
                limit / 1024
            ),
        )
    };
    // A declared length over the limit is refused unread.
    if body.size_hint().lower() > limit as u64 {
        return Err(too_large());
    }
    match axum::body::to_bytes(body, limit).await {
        Ok(b) => Ok(b),
        Err(e) => {
            let mut causes =
                std::iter::successors(Some(&e as &(dyn std::error::Error + 'static)), |e| {
                    e.source()
                });
            match causes.find_map(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    Some(too_large())
                } else if e.is::<tower_http::timeout::TimeoutError>() {
                    // The server's body timeout (`--body-timeout`).
                    Some(ApiError::new(
                        StatusCode::REQUEST_TIMEOUT,
                        "The request body was not sent in time.",
                    ))
                } else {
                    None
                }
            }) {
                Some(e) => Err(e),
                None => Err(ApiError::bad_request("The request body could not be read.")),
            }
        }
    }
}

/// The body parsed as `T`. A syntax error says where; a value of the wrong shape names its
/// field (`shippingAddress.country`) in the message and in `errors`.
pub async fn json<T: DeserializeOwned>(body: Body, limit: usize) -> Result<T, ApiError> {
    let bytes = bytes(body, limit).await?;
    parse(&bytes)
}

/// [`json`] on bytes already read.
pub fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            "The request body must be a JSON object.",
        ));
    }
    if has_escaped_nul(bytes)
        && let Ok(v) = serde_json::from_slice::<Value>(bytes)
    {
        refuse_nul(&v, "")?;
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(&mut de) {
        Ok(v) => match de.end() {
            Ok(()) => Ok(v),
            Err(e) => Err(ApiError::bad_request(format!(
                "The request body is not valid JSON: {e}."
            ))),
        },
        Err(e) => {
            let inner = e.inner();
            if inner.is_syntax() || inner.is_eof() {
                return Err(ApiError::bad_request(format!(
                    "The request body is not valid JSON: {inner}."
                )));
            }
            let path = e.path().to_string();
            if path == "." || path.is_empty() {
                Err(ApiError::bad_request(format!(
                    "The request body is not valid: {inner}."
                )))
            } else {
                Err(ApiError::field(&path, format!("{path}: {inner}.")))
            }
        }
    }
}

/// What a 400 for text with U+0000 says, `where_` naming the field.
fn nul_refused(where_: &str) -> ApiError {
    let message = "Text may not contain the NUL character (U+0000).";
    if where_.is_empty() {
        ApiError::bad_request(message)
    } else {
        ApiError::field(where_, format!("{where_}: {message}"))
    }
}

/// Whether JSON text may hold a NUL: a `\u0000` escape (a raw NUL byte is no valid JSON
/// and fails to parse anyway). An escaped backslash before `u0000` is no escape, so the
/// backslashes before it are counted. Cheap, so only bodies that have one are walked.
fn has_escaped_nul(bytes: &[u8]) -> bool {
    bytes.windows(6).enumerate().any(|(i, w)| {
        w == b"\\u0000" && bytes[..i].iter().rev().take_while(|b| **b == b'\\').count() % 2 == 0
    })
}

/// A 400 naming the first string (key or value, at any depth) of `v` with U+0000, its
/// path written as the body's shape errors write it (`form.email`, `files[2].path`) under
/// `at` (`""` for the body itself).
pub fn refuse_nul(v: &Value, at: &str) -> Result<(), ApiError> {
    let join = |key: &str| {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    };
    match v {
        Value::String(s) if s.contains('\0') => Err(nul_refused(at)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| refuse_nul(item, &format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().try_for_each(|(k, item)| {
            if k.contains('\0') {
                return Err(nul_refused(&join(&k.replace('\0', "\\u0000"))));
            }
            refuse_nul(item, &join(k))
        }),
        _ => Ok(()),
    }
}

/// A form-urlencoded body's (or query's) pairs, decoded; a 400 naming the first name or
/// value with U+0000 (`%00`).
pub fn form_pairs(bytes: &[u8]) -> Result<Vec<(String, String)>, ApiError> {
    let pairs: Vec<(String, String)> = form_urlencoded::parse(bytes).into_owned().collect();
    if let Some((k, _)) = pairs
        .iter()
        .find(|(k, v)| k.contains('\0') || v.contains('\0'))
    {
        return Err(nul_refused(&k.replace('\0', "\\u0000")));
    }
    Ok(pairs)
}

/// Middleware on every route: a 400 for a request whose path or query has U+0000 (`%00`;
/// a raw NUL cannot be in a request line), so no path parameter or query value a handler
/// reads can carry one to the store.
pub async fn nul_free_uri(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let uri = req.uri();
    if uri.path().contains("%00") {
        return nul_refused("").into_response();
    }
    if let Some(q) = uri.query()
        && q.contains("%00")
        && let Err(e) = form_pairs(q.as_bytes())
    {
        return e.into_response();
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    #[serde(rename_all = "camelCase")]
    #[allow(dead_code)]
    struct Add {
        item_id: String,
        address: Option<Inner>,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        country: String,
    }

    #[test]
    fn shape_errors_name_the_field() {
        let e = parse::<Add>(br#"{"itemId": 5}"#).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(e.body["errors"]["itemId"].is_string(), "{:?}", e.body);
        assert!(
            e.message().starts_with("itemId: invalid type"),
            "{}",
            e.message()
        );
        let e = parse::<Add>(br#"{"itemId": "a", "address": {"country": 1}}"#).unwrap_err();
        assert!(
            e.body["errors"]["address.country"].is_string(),
            "{:?}",
            e.body
        );
        let e = parse::<Add>(br#"{}"#).unwrap_err();
        assert!(
            e.message().contains("missing field `itemId`"),
            "{}",
            e.message()
        );
    }

    #[test]
    fn syntax_errors_say_where() {
        let e = parse::<Add>(br#"{"itemId": "#).unwrap_err();
        assert!(
            e.message()
                .starts_with("The request body is not valid JSON"),
            "{}",
            e.message()
        );
        let e = parse::<Add>(br#"{"itemId": "a"} trailing"#).unwrap_err();
        assert!(e.message().contains("not valid JSON"), "{}", e.message());
        assert_eq!(
            parse::<Add>(b"  ").unwrap_err().message(),
            "The request body must be a JSON object."
        );
    }

    #[test]
    fn nul_is_refused_anywhere_in_a_json_body() {
        for (body, path) in [
            (r#"{"itemId": "a\u0000b"}"#, "itemId"),
            (
                r#"{"itemId": "a", "address": {"country": "\u0000"}}"#,
                "address.country",
            ),
            (
                r#"{"itemId": "a", "x": [1, {"y": ["ok", "\u0000"]}]}"#,
                "x[1].y[1]",
            ),
            (r#"{"itemId": "a", "k\u0000": 1}"#, "k\\u0000"),
        ] {
            let e = parse::<Add>(body.as_bytes()).unwrap_err();
            assert_eq!(e.status, StatusCode::BAD_REQUEST, "{body}");
            assert!(e.body["errors"][path].is_string(), "{body}: {:?}", e.body);
        }
        let e = parse::<String>(br#""\u0000""#).unwrap_err();
        assert!(e.message().contains("U+0000"), "{}", e.message());
        // An escaped backslash before `u0000` is text, not a NUL.
        let ok = parse::<Add>(br#"{"itemId": "a\\u0000"}"#).unwrap();
        assert_eq!(ok.item_id, "a\\u0000");
        assert!(parse::<Add>(br#"{"itemId": "a\\\u0000"}"#).is_err());
    }

    #[test]
    fn nul_is_refused_in_form_bodies() {
        assert_eq!(
            form_pairs(b"a=1&b=x+y").unwrap(),
            [("a".into(), "1".into()), ("b".into(), "x y".into())]
        );
        let e = form_pairs(b"a=1&email=x%00y").unwrap_err();
        assert!(e.body["errors"]["email"].is_string(), "{:?}", e.body);
    }

    #[tokio::test]
    async fn large_bodies_are_refused_with_413() {
        let e = json::<Add>(Body::from(vec![b' '; 2048]), 1024)
            .await
            .unwrap_err();
        assert_eq!(e.status, StatusCode::PAYLOAD_TOO_LARGE);
    }

    #[tokio::test]
    async fn slow_bodies_are_refused_with_408() {
        // A body that never ends, behind the server's deadline.
        let never = Body::from_stream(futures_util::stream::pending::<
            Result<axum::body::Bytes, std::io::Error>,
        >());
        let body = Body::new(tower_http::timeout::DeadlineBody::new(
            std::time::Duration::from_millis(10),
            never,
        ));
        let e = bytes(body, 1024).await.unwrap_err();
        assert_eq!(e.status, StatusCode::REQUEST_TIMEOUT, "{:?}", e.body);
    }
}
