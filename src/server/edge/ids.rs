//! Request ids as the client wrote them.
//!
//! JSON-RPC lets an id be any number or string, and the answer must carry
//! it back as sent; lsp-server's `RequestId` holds an `i32` or a string.
//! An id it cannot hold exactly (`2147483648`, `1.5`, `-0`, `1e3`, a string
//! with escapes) is given to the main loop as a stand-in string id, and
//! its text is kept here until the answer is written with it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use lsp_server::RequestId;
use serde_json::value::RawValue;
use serde_json::Value;

/// The stand-ins begin so; a client's own string id that does too is
/// given a stand-in of its own, so they can never be confused.
const STAND_IN: &str = "\u{0}hydra-request-id:";

/// An id that no answer can carry (`null`, `true`, an object, an array).
#[derive(Debug, PartialEq, Eq)]
pub struct Unusable;

#[derive(Default)]
pub struct IdBook {
    next: AtomicU64,
    /// Stand-in → the id's JSON text, until its answer is written.
    waiting: Mutex<HashMap<RequestId, Box<RawValue>>>,
}

impl IdBook {
    /// The id the main loop sees for the request id `raw`.
    pub fn intake(&self, raw: Box<RawValue>) -> Result<RequestId, Unusable> {
        let text = raw.get();
        let exact = match text.as_bytes().first() {
            Some(b'"') => serde_json::from_str::<String>(text)
                .ok()
                .filter(|s| !s.starts_with(STAND_IN))
                .filter(|s| serde_json::to_string(s).is_ok_and(|again| again == text))
                .map(RequestId::from),
            Some(b'-' | b'0'..=b'9') => text
                .parse::<i32>()
                .ok()
                .filter(|n| n.to_string() == text)
                .map(RequestId::from),
            _ => return Err(Unusable),
        };
        if let Some(id) = exact {
            return Ok(id);
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let stand_in = RequestId::from(format!("{STAND_IN}{n}"));
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.insert(stand_in.clone(), raw);
        }
        Ok(stand_in)
    }

    /// The text of the id `id` stands in for, once: its answer is being
    /// written. `None` for an id the client sent as it is.
    pub fn answered(&self, id: &RequestId) -> Option<Box<RawValue>> {
        self.waiting.lock().ok()?.remove(id)
    }

    /// The stand-in of a waiting request whose id is `id` (as
    /// `$/cancelRequest` names it).
    pub fn stand_in(&self, id: &Value) -> Option<RequestId> {
        let waiting = self.waiting.lock().ok()?;
        waiting.iter().find_map(|(stand_in, raw)| {
            let same = serde_json::from_str::<Value>(raw.get()).is_ok_and(|v| &v == id);
            same.then(|| stand_in.clone())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn ids_lsp_server_holds_exactly_pass_as_they_are() {
        let book = IdBook::default();
        assert_eq!(book.intake(raw("7")), Ok(RequestId::from(7)));
        assert_eq!(book.intake(raw("-3")), Ok(RequestId::from(-3)));
        assert_eq!(
            book.intake(raw("\"a b\"")),
            Ok(RequestId::from("a b".to_string()))
        );
        assert!(book.waiting.lock().unwrap().is_empty());
    }

    #[test]
    fn other_numbers_and_strings_stand_in_and_come_back_verbatim() {
        let book = IdBook::default();
        for text in [
            "2147483648",
            "-2147483649",
            "1.5",
            "-0",
            "1e3",
            "123456789012345678901234567890",
            r#""caf\u00e9""#,
            "\"\\u0000hydra-request-id:0\"",
        ] {
            let id = book.intake(raw(text)).unwrap();
            assert!(book.answered(&RequestId::from(1)).is_none());
            let back = book.answered(&id).expect("kept");
            assert_eq!(back.get(), text);
            assert!(book.answered(&id).is_none(), "given back once");
        }
    }

    #[test]
    fn ids_no_answer_can_carry_are_unusable() {
        let book = IdBook::default();
        for text in ["null", "true", "{}", "[1]"] {
            assert_eq!(book.intake(raw(text)), Err(Unusable), "{text}");
        }
    }

    #[test]
    fn a_cancel_finds_the_stand_in() {
        let book = IdBook::default();
        let id = book.intake(raw("4294967296")).unwrap();
        assert_eq!(book.stand_in(&serde_json::json!(4294967296u64)), Some(id));
        assert_eq!(book.stand_in(&serde_json::json!(5)), None);
    }
}
