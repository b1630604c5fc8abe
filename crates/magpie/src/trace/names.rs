//! Feature `serde`: a [`Mark`](super::EventKind::Mark)'s names are `&'static str`, so a
//! decoded trace (another MPI rank's) interns each distinct name once, in a table of at most
//! [`MAX_NAMES`] names of at most [`MAX_NAME_LEN`] bytes: a corrupt or hostile message cannot
//! make the process leak more than that, however many it sends (it fails to decode instead).

use std::collections::HashSet;
use std::sync::Mutex;

use serde::de::Error;
use serde::{Deserialize, Deserializer};

/// The most distinct mark names a process interns.
pub const MAX_NAMES: usize = 256;

/// The longest mark name, in bytes.
pub const MAX_NAME_LEN: usize = 64;

static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);

/// `name` as a `&'static str`: the interned copy (made on its first use).
fn intern(name: &str) -> Result<&'static str, String> {
    if name.len() > MAX_NAME_LEN {
        return Err(format!(
            "a mark name of {} bytes (at most {MAX_NAME_LEN})",
            name.len()
        ));
    }
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    if let Some(&n) = names.get(name) {
        return Ok(n);
    }
    if names.len() >= MAX_NAMES {
        return Err(format!("more than {MAX_NAMES} distinct mark names"));
    }
    let n: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(n);
    Ok(n)
}

/// Deserializes a mark's category or name.
pub(super) fn name<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let s = String::deserialize(d)?;
    intern(&s).map_err(D::Error::custom)
}

/// Deserializes a mark's named values.
pub(super) fn args<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(&'static str, i64)>, D::Error> {
    let v = Vec::<(String, i64)>::deserialize(d)?;
    v.into_iter()
        .map(|(k, x)| intern(&k).map(|k| (k, x)).map_err(D::Error::custom))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_interned_once_and_a_long_one_refused() {
        let a = intern("incumbent").unwrap();
        let b = intern(&String::from("incumbent")).unwrap();
        assert!(std::ptr::eq(a, b));
        assert!(intern(&"x".repeat(MAX_NAME_LEN + 1)).is_err());
    }
}
