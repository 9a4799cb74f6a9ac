//! Pinned session ids (issue 26 item 3): `<live id>@sha256:<64 hex>` names
//! exactly one published version of a session. The LAST `@sha256:`
//! followed by exactly 64 lower-case hex digits at the very end makes a
//! pin; anything else is an ordinary id. (Whether a session has that exact
//! id, which wins over a pin, is the resolver's to check.)

const MARK: &str = "@sha256:";

/// The live id and the hex digest of a pinned id; `None` when `id` is not
/// one.
pub fn split_pin(id: &str) -> Option<(&str, &str)> {
    let at = id.rfind(MARK)?;
    let hex = &id[at + MARK.len()..];
    let live = &id[..at];
    (!live.is_empty() && is_sha256_hex(hex)).then_some((live, hex))
}

/// The pinned id of version `sha` of `live`.
pub fn pinned_id(live: &str, sha: &str) -> String {
    format!("{live}{MARK}{sha}")
}

/// Whether `text` is a SHA-256 digest as the layout writes it: 64
/// lower-case hex digits.
pub fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn the_last_mark_with_64_lower_hex_at_the_end_is_a_pin() {
        let id = pinned_id("~ana/s1", HEX);
        assert_eq!(split_pin(&id), Some(("~ana/s1", HEX)));
        let twice = format!("~ana/x@sha256:{HEX}@sha256:{HEX}");
        assert_eq!(split_pin(&twice), Some((&twice[..twice.len() - 72], HEX)));
    }

    #[test]
    fn anything_else_is_an_ordinary_id() {
        assert_eq!(split_pin("~ana/s1"), None);
        assert_eq!(
            split_pin(&format!("~ana/s1@sha256:{}", HEX.to_uppercase())),
            None
        );
        assert_eq!(split_pin(&format!("~ana/s1@sha256:{}", &HEX[1..])), None);
        assert_eq!(split_pin(&format!("~ana/s1@sha256:{HEX}0")), None);
        assert_eq!(split_pin(&format!("@sha256:{HEX}")), None);
        assert_eq!(split_pin(&format!("~a/s@sha256:{HEX} ")), None);
    }
}
