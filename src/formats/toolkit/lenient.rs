//! Lenient JSON values (agent-logs.md "Stores and formats"): a field of the
//! wrong type reads as absent, never as an error, and what nobody reads is
//! skipped without being built. Strings without escapes are borrowed.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::model::MAX_SAFE_INTEGER;

/// Visitor methods that turn every scalar into `$v` (a wrong type reads as
/// absent); `str` adds strings. For visitors of objects or lists whose
/// other shapes mean "nothing here".
macro_rules! other_scalars {
    ($t:ty, $v:expr, str) => {
        fn visit_str<E>(self, _: &str) -> Result<$t, E> {
            Ok($v)
        }
        $crate::formats::toolkit::lenient::other_scalars!($t, $v);
    };
    ($t:ty, $v:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_i64<E>(self, _: i64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_u64<E>(self, _: u64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_f64<E>(self, _: f64) -> Result<$t, E> {
            Ok($v)
        }
        fn visit_unit<E>(self) -> Result<$t, E> {
            Ok($v)
        }
    };
}
pub(crate) use other_scalars;

/// Any JSON value, keeping only what a reader may use: a string, a boolean
/// or a whole number; lists and objects are skipped unread.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub enum Loose<'a> {
    /// Absent (with `#[serde(default)]`) or `null`.
    #[default]
    Null,
    Str(Cow<'a, str>),
    Bool(bool),
    /// An *integer* of the contract: written without fraction or exponent,
    /// from 0 to 2^53 − 1.
    Int(u64),
    /// A number written with a fraction or exponent whose value is whole,
    /// from 0 to 2^53 − 1 (`258400.0`).
    WholeFloat(u64),
    /// Any other number.
    Number,
    /// A list or an object.
    Other,
}

impl<'a> Loose<'a> {
    /// The string, if this is one.
    pub fn into_str(self) -> Option<Cow<'a, str>> {
        match self {
            Loose::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_true(&self) -> bool {
        matches!(self, Loose::Bool(true))
    }

    /// The value when it is a whole number from 0 to 2^53 − 1, written as
    /// an integer or not.
    pub fn whole(&self) -> Option<u64> {
        match *self {
            Loose::Int(v) | Loose::WholeFloat(v) => Some(v),
            _ => None,
        }
    }

    /// Whether this is a number of any kind.
    pub fn is_number(&self) -> bool {
        matches!(self, Loose::Int(_) | Loose::WholeFloat(_) | Loose::Number)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Loose<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct LooseVisitor<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for LooseVisitor<'a> {
            type Value = Loose<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Loose<'a>, E> {
                Ok(Loose::Str(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Loose<'a>, E> {
                Ok(Loose::Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Loose<'a>, E> {
                Ok(Loose::Str(Cow::Owned(v)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Loose<'a>, E> {
                Ok(Loose::Bool(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Loose<'a>, E> {
                Ok(if v <= MAX_SAFE_INTEGER {
                    Loose::Int(v)
                } else {
                    Loose::Number
                })
            }
            fn visit_i64<E>(self, v: i64) -> Result<Loose<'a>, E> {
                Ok(match u64::try_from(v) {
                    Ok(v) if v <= MAX_SAFE_INTEGER => Loose::Int(v),
                    _ => Loose::Number,
                })
            }
            fn visit_f64<E>(self, v: f64) -> Result<Loose<'a>, E> {
                Ok(
                    if v.fract() == 0.0 && (0.0..=MAX_SAFE_INTEGER as f64).contains(&v) {
                        Loose::WholeFloat(v as u64)
                    } else {
                        Loose::Number
                    },
                )
            }
            fn visit_unit<E>(self) -> Result<Loose<'a>, E> {
                Ok(Loose::Null)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Loose<'a>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Loose<'a>, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Loose::Other)
            }
        }
        d.deserialize_any(LooseVisitor(PhantomData))
    }
}

/// Any JSON value, read as `T` when it is an object.
#[derive(Debug, Default)]
pub enum Shape<T> {
    /// Absent or `null`.
    #[default]
    Null,
    Map(T),
    Str,
    Other,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Shape<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ShapeVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ShapeVisitor<T> {
            type Value = Shape<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Shape<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Shape::Map)
            }
            fn visit_unit<E>(self) -> Result<Shape<T>, E> {
                Ok(Shape::Null)
            }
            fn visit_str<E>(self, _: &str) -> Result<Shape<T>, E> {
                Ok(Shape::Str)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Shape<T>, E> {
                Ok(Shape::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Shape<T>, E> {
                Ok(Shape::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Shape<T>, E> {
                Ok(Shape::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Shape<T>, E> {
                Ok(Shape::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape<T>, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Shape::Other)
            }
        }
        d.deserialize_any(ShapeVisitor(PhantomData))
    }
}

/// A struct that must be written as a JSON object (serde would otherwise
/// also build structs from lists).
pub struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = Object<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Object)
            }
        }
        d.deserialize_any(ObjectVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loose(json: &str) -> Loose<'_> {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn values_keep_only_what_a_reader_may_use() {
        assert_eq!(loose(r#""a""#), Loose::Str(Cow::Borrowed("a")));
        assert_eq!(loose(r#""a\n""#).into_str().as_deref(), Some("a\n"));
        assert_eq!(loose("true"), Loose::Bool(true));
        assert_eq!(loose("null"), Loose::Null);
        assert_eq!(loose("5"), Loose::Int(5));
        assert_eq!(loose("5.0"), Loose::WholeFloat(5));
        assert_eq!(loose("5.5"), Loose::Number);
        assert_eq!(loose("-1"), Loose::Number);
        assert_eq!(loose("9007199254740992"), Loose::Number);
        assert_eq!(loose("9007199254740991").whole(), Some(MAX_SAFE_INTEGER));
        assert_eq!(loose(r#"[1,{"a":2}]"#), Loose::Other);
        assert_eq!(loose(r#"{"a":[]}"#), Loose::Other);
    }

    #[test]
    fn shapes_read_objects_only() {
        #[derive(serde::Deserialize)]
        struct A {
            a: u64,
        }
        assert!(matches!(
            serde_json::from_str::<Shape<A>>(r#"{"a":1}"#),
            Ok(Shape::Map(A { a: 1 }))
        ));
        assert!(matches!(
            serde_json::from_str::<Shape<A>>("null"),
            Ok(Shape::Null)
        ));
        assert!(matches!(
            serde_json::from_str::<Shape<A>>(r#""x""#),
            Ok(Shape::Str)
        ));
        assert!(matches!(
            serde_json::from_str::<Shape<A>>("[1]"),
            Ok(Shape::Other)
        ));
        assert!(serde_json::from_str::<Object<A>>("[1]").is_err());
        assert!(serde_json::from_str::<Object<A>>(r#"{"a":2}"#).is_ok_and(|o| o.0.a == 2));
    }
}
