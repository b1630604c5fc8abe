//! The data description of a distributed loop: how the data of stolen iterations travels
//! with them.

use std::ops::Range;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::codec::{decode, encode};
use crate::Error;

/// A user serialization of the data of a range of iterations (see [`DataDescription`]).
pub trait DataSerializer<T>: Sync {
    /// The bytes that carry the data of the iterations `range` (`items` are their elements,
    /// `items[j]` for iteration `range.start + j`).
    fn serialize(&self, range: Range<usize>, items: &[T]) -> Vec<u8>;
    /// The elements of the iterations `range` rebuilt from [`DataSerializer::serialize`]'s
    /// bytes (exactly `range.len()` of them).
    fn deserialize(&self, range: Range<usize>, bytes: &[u8]) -> Result<Vec<T>, Error>;
}

/// [`DataDescription::Range`]'s encoder: the elements of an iteration range to bytes.
pub type ToBytes<T> = fn(Range<usize>, &[T]) -> Vec<u8>;
/// [`DataDescription::Range`]'s decoder: the elements of an iteration range from bytes.
pub type FromBytes<T> = fn(Range<usize>, &[u8]) -> Result<Vec<T>, Error>;

/// How the data of stolen iterations travels with them (the thesis' `DLS_DataSetup`). In
/// memory a rank always holds one element `T` per iteration it may run; the description
/// decides what goes over the wire:
///
/// - [`DataDescription::OneToOne`] (default): one element per iteration, serialized by serde
///   (postcard, [`crate::codec`]).
/// - [`DataDescription::Range`]: two plain functions map an iteration range and its elements
///   to bytes and back: for data whose wire form is a contiguous block (e.g. packed
///   little-endian numbers, or an N-to-one mapping that sends a range's worth of something
///   else and rebuilds the elements from it).
/// - [`DataDescription::Serialize`]: a [`DataSerializer`] object, for a serialization with
///   state (a codec, a compression level, a reference to other data).
pub enum DataDescription<'a, T> {
    /// One element per iteration, by serde.
    OneToOne,
    /// A range's elements to bytes and back, by two functions.
    Range {
        /// `(range, elements) → bytes`.
        to_bytes: ToBytes<T>,
        /// `(range, bytes) → elements` (exactly `range.len()`).
        from_bytes: FromBytes<T>,
    },
    /// A user serializer.
    Serialize(&'a dyn DataSerializer<T>),
}

impl<T: Serialize + DeserializeOwned> DataDescription<'_, T> {
    /// The name used in reports: `one-to-one`, `range` or `serialize`.
    pub fn name(&self) -> &'static str {
        match self {
            DataDescription::OneToOne => "one-to-one",
            DataDescription::Range { .. } => "range",
            DataDescription::Serialize(_) => "serialize",
        }
    }

    /// The bytes of the data of `range` (`items` its elements).
    pub fn encode(&self, range: Range<usize>, items: &[T]) -> Vec<u8> {
        match self {
            DataDescription::OneToOne => encode(&items),
            DataDescription::Range { to_bytes, .. } => to_bytes(range, items),
            DataDescription::Serialize(s) => s.serialize(range, items),
        }
    }

    /// The elements of `range` from [`DataDescription::encode`]'s bytes; checks the count.
    pub fn decode(&self, range: Range<usize>, bytes: &[u8]) -> Result<Vec<T>, Error> {
        let n = range.len();
        let items = match self {
            DataDescription::OneToOne => decode::<Vec<T>>(bytes, "iteration data")?,
            DataDescription::Range { from_bytes, .. } => from_bytes(range, bytes)?,
            DataDescription::Serialize(s) => s.deserialize(range, bytes)?,
        };
        if items.len() != n {
            return Err(Error::DataCount {
                got: items.len(),
                iterations: n,
            });
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_descriptions_round_trip() {
        fn to_bytes(_: Range<usize>, items: &[u64]) -> Vec<u8> {
            items.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        fn from_bytes(_: Range<usize>, b: &[u8]) -> Result<Vec<u64>, Error> {
            Ok(b.chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect())
        }
        struct Plus(u64);
        impl DataSerializer<u64> for Plus {
            fn serialize(&self, _: Range<usize>, items: &[u64]) -> Vec<u8> {
                encode(&items.iter().map(|x| x + self.0).collect::<Vec<_>>())
            }
            fn deserialize(&self, _: Range<usize>, b: &[u8]) -> Result<Vec<u64>, Error> {
                let v: Vec<u64> = decode(b, "data")?;
                Ok(v.into_iter().map(|x| x - self.0).collect())
            }
        }
        let items = [5u64, 7, 1 << 40];
        let plus = Plus(3);
        for d in [
            DataDescription::OneToOne,
            DataDescription::Range {
                to_bytes,
                from_bytes,
            },
            DataDescription::Serialize(&plus),
        ] {
            let b = d.encode(4..7, &items);
            assert_eq!(d.decode(4..7, &b).unwrap(), items, "{}", d.name());
            assert!(d.decode(4..8, &b).is_err(), "the count is checked");
        }
    }
}
