//! The one error type of the JSON API: a status and a JSON body, `{"message": ...}` with the
//! SPEC.md wording where there is one, `errors` (field → message) for field validation,
//! `crumbFail` for CSRF failures, and `Retry-After` on 429 and 503.

use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// SPEC.md §8: what a visitor whose crumb failed is told (the cookies-enabled wording; the
/// browser side picks the cookies-off wording when it sees cookies are off).
pub const CRUMB_FAIL: &str = "Your session has expired. Please reload the page and try again.";

/// SPEC.md §8: the answer to a visitor over a rate limit.
pub const TRY_AGAIN: &str = "Please try again in a few seconds.";

/// SPEC.md §5: the whole form blocks with this when a field is invalid.
pub const FIELDS_INVALID: &str = "One or more fields is invalid, please check your entries.";

/// How long a client is asked to wait (`Retry-After`) when the store cannot be reached:
/// about how long a database restart takes.
pub const RETRY_AFTER_UNAVAILABLE: Duration = Duration::from_secs(5);

/// A failed API call.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: Value,
    pub retry_after: Option<Duration>,
}

impl ApiError {
    /// `{"message": message}` with `status`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: json!({ "message": message.into() }),
            retry_after: None,
        }
    }

    /// 400 with a message.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404 with a message.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, message)
    }

    /// 403 `{"crumbFail": true, "message": ...}`: the request's crumb is missing or wrong.
    pub fn crumb_fail() -> ApiError {
        ApiError {
            status: StatusCode::FORBIDDEN,
            body: json!({ "crumbFail": true, "message": CRUMB_FAIL }),
            retry_after: None,
        }
    }

    /// 429 with `Retry-After` (whole seconds, at least 1).
    pub fn too_many(retry_after: Duration) -> ApiError {
        ApiError {
            status: StatusCode::TOO_MANY_REQUESTS,
            body: json!({ "message": TRY_AGAIN }),
            retry_after: Some(retry_after),
        }
    }

    /// 400 `{"message": FIELDS_INVALID, "errors": {field: message}}`.
    pub fn fields(errors: Map<String, Value>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            body: json!({ "message": FIELDS_INVALID, "errors": errors }),
            retry_after: None,
        }
    }

    /// 400 naming one field: `{"message": message, "errors": {field: message}}`.
    pub fn field(field: &str, message: impl Into<String>) -> ApiError {
        let message = message.into();
        let mut errors = Map::new();
        errors.insert(field.to_owned(), Value::String(message.clone()));
        ApiError {
            status: StatusCode::BAD_REQUEST,
            body: json!({ "message": message, "errors": errors }),
            retry_after: None,
        }
    }

    /// 503: the store could not be reached; nothing was changed.
    pub fn unavailable() -> ApiError {
        let mut e = ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "The store is not available right now. Please try again in a moment.",
        );
        e.retry_after = Some(RETRY_AFTER_UNAVAILABLE);
        e
    }

    /// The message, for logs and tests.
    pub fn message(&self) -> &str {
        self.body
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// A JSON response that no cache keeps (answers to visitors' API calls are personal).
pub fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut r = (status, axum::Json(body)).into_response();
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = json_response(self.status, &self.body);
        if let Some(after) = self.retry_after {
            let secs = after.as_secs() + u64::from(after.subsec_nanos() > 0);
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
        }
        r
    }
}

/// A store failure that is not the visitor's doing: logged, and answered with 503.
pub fn store_failure(e: &tenants::StoreError) -> ApiError {
    tracing::error!(error = %e, "store call failed");
    ApiError::unavailable()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_rounds_up_to_whole_seconds() {
        let r = ApiError::too_many(Duration::from_millis(1200)).into_response();
        assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(r.headers()[header::RETRY_AFTER], "2");
        let r = ApiError::too_many(Duration::ZERO).into_response();
        assert_eq!(r.headers()[header::RETRY_AFTER], "1");
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
    }

    #[test]
    fn an_unreachable_store_is_a_503_to_retry_later() {
        let r = ApiError::unavailable().into_response();
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            r.headers()[header::RETRY_AFTER],
            RETRY_AFTER_UNAVAILABLE.as_secs().to_string()
        );
        assert_eq!(r.headers()[header::CACHE_CONTROL], "no-store");
    }

    #[test]
    fn field_errors_name_their_field() {
        let e = ApiError::field("quantity", "Quantity must be a number.");
        assert_eq!(e.body["errors"]["quantity"], "Quantity must be a number.");
        assert_eq!(e.message(), "Quantity must be a number.");
        assert_eq!(ApiError::crumb_fail().body["crumbFail"], true);
    }
}
