//! The one wire format of every message the ranks exchange: bincode 1 with fixed-size
//! integers, little-endian — byte for byte what `bincode::serialize` writes.
//!
//! Decoding trusts nothing in the bytes: it never reads past them, refuses trailing bytes,
//! and caps what a length prefix may claim at the message's own size, so a garbage prefix
//! (`u64::MAX` elements) fails at once instead of allocating gigabytes. A failure names the
//! kind of message; the receiver adds the peer's rank ([`decode_from`]).
//!
//! ```
//! use magpie_mpi::codec::{decode, encode};
//! let bytes = encode(&(7u64, vec![1i32, -2]));
//! assert_eq!(bytes, bincode::serialize(&(7u64, vec![1i32, -2])).unwrap());
//! assert_eq!(decode::<(u64, Vec<i32>)>(&bytes, "result").unwrap(), (7, vec![1, -2]));
//! let e = decode::<Vec<u64>>(&[255; 8], "result").unwrap_err();
//! assert!(e.to_string().starts_with("a corrupt result message (8 bytes): "), "{e}");
//! ```

use std::fmt;

use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// A message that does not decode: what kind it was meant to be and why it does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The kind of message (`work`, `result`, …).
    pub what: &'static str,
    /// The message's size in bytes.
    pub len: usize,
    /// bincode's reason.
    pub reason: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a corrupt {} message ({} bytes): {}",
            self.what, self.len, self.reason
        )
    }
}

impl std::error::Error for DecodeError {}

/// bincode 1's legacy layout (as `bincode::serialize`) with a limit on what it may read.
fn options(limit: u64) -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .reject_trailing_bytes()
        .with_limit(limit)
}

/// The bytes of `value`, exactly as `bincode::serialize` writes them.
///
/// # Panics
/// Only if `value`'s `Serialize` implementation itself fails (plain data never does).
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .with_little_endian()
        .serialize(value)
        .expect("serializing plain data to memory cannot fail")
}

/// Decodes a `what` message from `bytes` (see the module docs for what is checked).
///
/// # Errors
/// A [`DecodeError`] naming `what` if `bytes` are not exactly one encoded `T`.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], what: &'static str) -> Result<T, DecodeError> {
    options(bytes.len() as u64)
        .deserialize(bytes)
        .map_err(|e| DecodeError {
            what,
            len: bytes.len(),
            reason: e.to_string(),
        })
}

/// Decodes a `what` message that rank `peer` sent.
///
/// # Panics
/// If the message is corrupt, with `rank PEER sent a corrupt WHAT message (N bytes): …`:
/// the receiving rank cannot go on without it, and [`crate::Cluster::abort_on_panic`] turns
/// this into one error line and the end of the job (never an out-of-bounds read).
pub fn decode_from<T: DeserializeOwned>(bytes: &[u8], what: &'static str, peer: i32) -> T {
    decode(bytes, what).unwrap_or_else(|e| panic!("rank {peer} sent {e}"))
}

/// For fuzzing: decodes `bytes` as a `what` message of type `T` and, if that succeeds,
/// checks that the value's encoding decodes to a value with the same encoding. (Not always
/// `bytes` itself: serde normalises a `Duration` whose nanoseconds exceed a second.)
///
/// # Panics
/// If the re-encoded value does not decode, or decodes to a different encoding.
#[doc(hidden)]
pub fn check_decode<T: Serialize + DeserializeOwned>(
    bytes: &[u8],
    what: &'static str,
) -> Result<(), DecodeError> {
    let value: T = decode(bytes, what)?;
    let again = encode(&value);
    let value: T = decode(&again, what).expect("an encoded value decodes");
    assert_eq!(
        encode(&value),
        again,
        "a {what} message re-encodes differently"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Msg {
        owner: i32,
        range: (u64, u64),
        data: Vec<u8>,
        load: f64,
        name: String,
        tasks: Vec<(u32, Option<i64>)>,
    }

    fn sample() -> Msg {
        Msg {
            owner: -3,
            range: (4, 1 << 40),
            data: vec![0, 255, 7],
            load: 0.25,
            name: "tsp".into(),
            tasks: vec![(1, Some(-9)), (2, None)],
        }
    }

    #[test]
    fn round_trip_with_the_wire_format_of_bincode_serialize() {
        let m = sample();
        let bytes = encode(&m);
        assert_eq!(bytes, bincode::serialize(&m).unwrap(), "same wire format");
        assert_eq!(decode::<Msg>(&bytes, "work").unwrap(), m);
        // What the old decoder (bincode::deserialize) read, the new one reads the same.
        let old: Msg = bincode::deserialize(&bincode::serialize(&m).unwrap()).unwrap();
        assert_eq!(decode::<Msg>(&encode(&old), "work").unwrap(), m);
    }

    #[test]
    fn every_truncation_and_trailing_byte_is_an_error_naming_the_kind() {
        let bytes = encode(&sample());
        for cut in 0..bytes.len() {
            let e = decode::<Msg>(&bytes[..cut], "work").unwrap_err();
            assert_eq!((e.what, e.len), ("work", cut));
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode::<Msg>(&longer, "work").is_err(), "trailing bytes");
    }

    #[test]
    fn a_huge_length_prefix_fails_without_allocating() {
        // A Vec<u8> claiming 2^60 elements, then 8 bytes of data.
        let mut bytes = (1u64 << 60).to_le_bytes().to_vec();
        bytes.extend([1; 8]);
        let e = decode::<Vec<u8>>(&bytes, "data").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a corrupt data message (16 bytes): "),
            "{e}"
        );
        let e = decode::<String>(&bytes, "name").unwrap_err();
        assert_eq!(e.what, "name");
    }

    #[test]
    fn a_duration_beyond_a_second_of_nanoseconds_is_normalised() {
        // What the fuzzer found: serde carries nanoseconds >= 10^9 into the seconds, so the
        // bytes re-encode differently, but the value is sound and re-encodes stably.
        let mut bytes = encode(&std::time::Duration::from_secs(1));
        bytes[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        let d: std::time::Duration = decode(&bytes, "statistics").unwrap();
        assert_eq!(d, std::time::Duration::new(1, u32::MAX));
        assert_eq!((d.as_secs(), d.subsec_nanos()), (5, 294_967_295));
        check_decode::<std::time::Duration>(&bytes, "statistics").unwrap();
    }

    #[test]
    #[should_panic(expected = "rank 3 sent a corrupt bound message (2 bytes): ")]
    fn decode_from_names_the_peer() {
        let _: i64 = decode_from(&[1, 2], "bound", 3);
    }
}
