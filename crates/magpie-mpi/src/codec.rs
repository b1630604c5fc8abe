//! The one wire format of every message the ranks exchange: postcard (serde's compact
//! format: variable-length integers, length-prefixed sequences), a maintained crate.
//!
//! Decoding trusts nothing in the bytes: it never reads past them and refuses trailing
//! bytes; a length prefix that claims more elements than the message holds fails when the
//! bytes run out, and serde never preallocates more than a small bound for it, so a garbage
//! prefix (`u64::MAX` elements) fails at once instead of allocating gigabytes. A failure
//! names the kind of message; the receiver adds the peer's rank ([`decode_from`]).
//!
//! ```
//! use magpie_mpi::codec::{decode, encode};
//! let bytes = encode(&(7u64, vec![1i32, -2]));
//! assert_eq!(bytes, [7, 2, 2, 3]); // 7, two elements, zigzag 1 and -2
//! assert_eq!(decode::<(u64, Vec<i32>)>(&bytes, "result").unwrap(), (7, vec![1, -2]));
//! let e = decode::<Vec<u64>>(&[255; 8], "result").unwrap_err();
//! assert!(e.to_string().starts_with("a corrupt result message (8 bytes): "), "{e}");
//! ```

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A message that does not decode: what kind it was meant to be and why it does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// The kind of message (`work`, `result`, …).
    pub what: &'static str,
    /// The message's size in bytes.
    pub len: usize,
    /// The decoder's reason.
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

/// The bytes of `value`.
///
/// # Panics
/// Only if `value`'s `Serialize` implementation itself fails (plain data never does).
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    postcard::to_stdvec(value).expect("serializing plain data to memory cannot fail")
}

/// Decodes a `what` message from `bytes` (see the module docs for what is checked).
///
/// # Errors
/// A [`DecodeError`] naming `what` if `bytes` are not exactly one encoded `T`.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], what: &'static str) -> Result<T, DecodeError> {
    let error = |reason: String| DecodeError {
        what,
        len: bytes.len(),
        reason,
    };
    match postcard::take_from_bytes(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(error(format!("{} trailing bytes", rest.len()))),
        Err(e) => Err(error(e.to_string())),
    }
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
    fn round_trip() {
        let m = sample();
        let bytes = encode(&m);
        assert_eq!(decode::<Msg>(&bytes, "work").unwrap(), m);
        // Variable-length integers: (4, 2^40) takes 1 + 6 bytes, not 16.
        assert_eq!(encode(&m.range).len(), 7);
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
        let mut bytes = encode(&(1u64 << 60));
        bytes.extend([1; 8]);
        let e = decode::<Vec<u8>>(&bytes, "data").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("a corrupt data message (17 bytes): "),
            "{e}"
        );
        let e = decode::<String>(&bytes, "name").unwrap_err();
        assert_eq!(e.what, "name");
        let e = decode::<Vec<u64>>(&bytes, "data").unwrap_err();
        assert_eq!(e.len, 17);
    }

    #[test]
    fn a_duration_beyond_a_second_of_nanoseconds_is_normalised() {
        // What the fuzzer found: serde carries nanoseconds >= 10^9 into the seconds, so the
        // bytes re-encode differently, but the value is sound and re-encodes stably.
        let bytes = encode(&(1u64, u32::MAX));
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
