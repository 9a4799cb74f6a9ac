//! The canonical `hydra-session:` URI (reference.md §1).
//!
//! `encode(id)` is `hydra-session:` + unpadded base64url of the UTF-8 of
//! `JSON.stringify(id)`. Decoding accepts exactly the images of `encode`;
//! anything else is *malformed* or, when it still decodes to an id,
//! *noncanonical* (and then carries the canonical form as the fix).

use base64::alphabet::URL_SAFE;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;

use super::error::{ErrorCode, ReferenceError};
use super::json;

pub const SCHEME: &str = "hydra-session:";

/// Writes without padding; reads without padding and ignores non-zero
/// trailing bits, so such a payload decodes and is then found noncanonical.
const ENCODER: GeneralPurpose = GeneralPurpose::new(
    &URL_SAFE,
    GeneralPurposeConfig::new()
        .with_encode_padding(false)
        .with_decode_padding_mode(DecodePaddingMode::RequireNone)
        .with_decode_allow_trailing_bits(true),
);

/// The canonical URI of a session id.
pub fn encode(session_id: &str) -> String {
    let payload = json::stringify(session_id);
    let mut out = String::with_capacity(SCHEME.len() + payload.len().div_ceil(3) * 4);
    out.push_str(SCHEME);
    ENCODER.encode_string(payload.as_bytes(), &mut out);
    out
}

/// Why a URI is not canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// Not a `hydra-session:` URI of any id.
    Malformed,
    /// Decodes to `session_id`, but `encode(session_id)` is `canonical`.
    Noncanonical {
        session_id: String,
        canonical: String,
    },
}

impl DecodeError {
    /// The session-reference error for `uri`, carrying the canonical fix.
    pub fn into_reference_error(self, uri: &str) -> ReferenceError {
        let mut error = invalid_uri(uri);
        if let DecodeError::Noncanonical { canonical, .. } = self {
            error.canonical = Some(canonical);
        }
        error
    }
}

/// The error for an invalid URI, before its kind is known.
pub fn invalid_uri(uri: &str) -> ReferenceError {
    ReferenceError::new(
        ErrorCode::InvalidReference,
        format!("invalid session reference URI {}", json::stringify(uri)),
    )
}

/// Decodes a canonical URI to its session id.
pub fn decode(uri: &str) -> Result<String, DecodeError> {
    let payload = uri.strip_prefix(SCHEME).ok_or(DecodeError::Malformed)?;
    if !is_base64url_payload(payload) || payload.len() % 4 == 1 {
        return Err(DecodeError::Malformed);
    }
    let bytes = ENCODER
        .decode(payload)
        .map_err(|_| DecodeError::Malformed)?;
    let text = std::str::from_utf8(&bytes).map_err(|_| DecodeError::Malformed)?;
    // serde_json rejects unpaired surrogate escapes, as the contract wants,
    // and allows the same surrounding white space as `JSON.parse`.
    let session_id: String = serde_json::from_str(text).map_err(|_| DecodeError::Malformed)?;
    let canonical = encode(&session_id);
    if canonical == uri {
        Ok(session_id)
    } else {
        Err(DecodeError::Noncanonical {
            session_id,
            canonical,
        })
    }
}

/// `decode`, with the session-reference error on failure.
pub fn decode_reference(uri: &str) -> Result<String, ReferenceError> {
    decode(uri).map_err(|e| e.into_reference_error(uri))
}

/// Whether `payload` is a non-empty run of base64url characters.
pub fn is_base64url_payload(payload: &str) -> bool {
    !payload.is_empty() && payload.bytes().all(is_base64url_byte)
}

#[inline]
pub fn is_base64url_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_the_reference() {
        assert_eq!(encode("abc"), "hydra-session:ImFiYyI");
        assert_eq!(encode("a\"b\\c"), "hydra-session:ImFcImJcXGMi");
        assert_eq!(encode("😀 emoji"), "hydra-session:IvCfmIAgZW1vamki");
    }

    #[test]
    fn decodes_canonical() {
        assert_eq!(decode("hydra-session:ImEi"), Ok("a".to_string()));
        assert_eq!(decode("hydra-session:IiI"), Ok(String::new()));
    }

    #[test]
    fn tells_malformed_from_noncanonical() {
        for bad in [
            "hydra-session:",
            "HYDRA-SESSION:ImEi",
            "hydra-session:ImEi=",
            "hydra-session:/w",
            "hydra-session:ImEiI",
            "hydra-session:gICA",
            "hydra-session:eyJhIjoxfQ",
            "hydra-session:IC",
        ] {
            assert_eq!(decode(bad), Err(DecodeError::Malformed), "{bad}");
        }
        let fix = |uri: &str| match decode(uri) {
            Err(DecodeError::Noncanonical { canonical, .. }) => canonical,
            other => panic!("{uri}: {other:?}"),
        };
        assert_eq!(fix("hydra-session:Ilx1MDA2MSI"), "hydra-session:ImEi");
        assert_eq!(fix("hydra-session:ImEiIA"), "hydra-session:ImEi");
        assert_eq!(fix("hydra-session:ImFiYyJ"), "hydra-session:ImFiYyI");
    }
}
