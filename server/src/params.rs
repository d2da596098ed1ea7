//! Query strings and request bodies, read without trusting them: every malformed value is a
//! typed 400, never a panic or a plain-text rejection.

use axum::body::Bytes;
use idmint::codec::Codec;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, ApiResult};

/// A request's query parameters.
#[derive(Debug, Default)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Parses a raw query string (`None` for none).
    pub fn parse(raw: Option<&str>) -> ApiResult<Params> {
        match raw {
            None | Some("") => Ok(Params::default()),
            Some(q) => serde_urlencoded::from_str(q)
                .map(Params)
                .map_err(|_| ApiError::bad_arg("the query string is not valid URL encoding")),
        }
    }

    /// The value of `name`, if given (the first, if given twice).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// `count`: `default` when absent; a whole number from 1 to `max`.
    pub fn count(&self, default: u64, max: u64) -> ApiResult<u64> {
        let Some(text) = self.get("count") else {
            return Ok(default.min(max));
        };
        let n: u64 = text
            .parse()
            .map_err(|_| ApiError::bad_arg("`count` must be a whole number from 1 up"))?;
        if n == 0 {
            return Err(ApiError::bad_arg("`count` must be at least 1"));
        }
        if n > max {
            return Err(idmint::Error::LimitExceeded {
                what: "`count` of one request",
                limit: max,
            }
            .into());
        }
        Ok(n)
    }

    /// `format`: a codec name (`dec`, `hex`, `base32`, `base62`); decimal when absent.
    pub fn codec(&self) -> ApiResult<Codec> {
        match self.get("format") {
            None => Ok(Codec::Decimal),
            Some(name) => Ok(Codec::parse(name)?),
        }
    }
}

/// A JSON request body of type `T`; an empty body is `T::default()`.
pub fn json_body<T: DeserializeOwned + Default>(body: &Bytes) -> ApiResult<T> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_arg(format!("the request body is not the JSON expected: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_checked() {
        let p = |q: &str| Params::parse(Some(q)).unwrap();
        assert_eq!(p("").count(1, 10).unwrap(), 1);
        assert_eq!(p("count=10").count(1, 10).unwrap(), 10);
        assert_eq!(
            p("count=11").count(1, 10).unwrap_err().code,
            "ERR_LIMIT_EXCEEDED"
        );
        for bad in [
            "count=0",
            "count=-1",
            "count=1e3",
            "count=99999999999999999999999",
        ] {
            assert_eq!(
                p(bad).count(1, 10).unwrap_err().code,
                "ERR_INVALID_ARGUMENT",
                "{bad}"
            );
        }
        assert_eq!(p("format=base62").codec().unwrap(), Codec::Base62);
        assert_eq!(
            p("format=rot13").codec().unwrap_err().code,
            "ERR_INVALID_CONFIG"
        );
    }
}
