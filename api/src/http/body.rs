//! Reading a JSON request body: at most a set size (413 beyond it, before reading a byte
//! when `Content-Length` says so, else as soon as the bytes read pass it, so a chunked
//! body is never read whole), in the time the server gives bodies (408 past it), and a 400
//! that names the field for a body that does not have the expected shape.

use axum::body::Body;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

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
