//! Every failure as an HTTP answer: a status, the stable `ERR_...` code every idmint surface
//! uses, and a message, as JSON `{"code": …, "message": …}`; 503s carry `Retry-After`.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use idmint::{Error, ErrorKind};

/// A failed request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// The stable code (`ERR_STORE_UNAVAILABLE`, `ERR_NOT_FOUND`, …).
    pub code: &'static str,
    /// What went wrong, for a human.
    pub message: String,
    /// Seconds after which a retry may succeed (503 only).
    pub retry_after: Option<u32>,
}

/// A handler's result.
pub type ApiResult<T> = std::result::Result<T, ApiError>;

impl ApiError {
    /// An error with no retry hint.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    /// 404: no such route, key or ID.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "ERR_NOT_FOUND", message)
    }

    /// 400: a malformed argument.
    pub fn bad_arg(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "ERR_INVALID_ARGUMENT", message)
    }

    /// 401: a missing or wrong bearer token.
    pub fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "ERR_UNAUTHORIZED",
            "a valid bearer token is required (Authorization: Bearer …)",
        )
    }

    /// 503 with a retry hint: the service cannot answer now.
    pub fn unavailable(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            retry_after: Some(1),
            ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, code, message)
        }
    }
}

impl ApiError {
    /// An error of the service's own generator: a lost or unobtainable node lease is a
    /// passing state of this instance (its renewer is already acquiring a new node), so it is
    /// a 503 with a retry hint, not the 409 a client's own superseded lease gets.
    pub fn own(e: Error) -> ApiError {
        match e.kind() {
            ErrorKind::LeaseLost | ErrorKind::NoFreeNode => {
                ApiError::unavailable(e.code(), e.to_string())
            }
            _ => ApiError::from(e),
        }
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        use ErrorKind::*;
        let status = match e.kind() {
            InvalidLayout | InvalidConfig | InvalidEncoding | OutOfRange | BeforeEpoch
            | BufferTooSmall | LimitExceeded | InvalidArgument => StatusCode::BAD_REQUEST,
            LeaseLost | NoFreeNode => StatusCode::CONFLICT,
            // The service's own state (its store, clock, lease, layout): a retry or another
            // instance may succeed.
            _ => StatusCode::SERVICE_UNAVAILABLE,
        };
        let mut err = ApiError::new(status, e.code(), e.to_string());
        if status == StatusCode::SERVICE_UNAVAILABLE {
            err.retry_after = Some(1);
        }
        err
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "code": self.code, "message": self.message });
        let mut res = (self.status, axum::Json(body)).into_response();
        if let Some(s) = self.retry_after {
            res.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(s));
        }
        res
    }
}
