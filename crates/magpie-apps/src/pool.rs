//! Recycled word buffers for search nodes and child generators, so that a search allocates
//! per depth reached, not per node.
//!
//! A [`Words`] is a `Vec<u64>` that, when dropped, goes back to a free list of its thread
//! (at most [`MAX_POOLED`] buffers and [`MAX_POOLED_WORDS`] words per thread), and that
//! [`Words::take`] and [`Clone`] reuse. A depth-first search holds one node and one
//! generator per open depth, so after the first descent every node's buffer comes from the
//! free list: the allocations are O(depth), not O(nodes). Buffers that a parallel search
//! moves to another thread are recycled there. Any size works (so graphs of 65,536 vertices
//! are fine); a buffer grows, once, when a reused one is too small.
//!
//! ```
//! use magpie_apps::pool::Words;
//! let mut w = Words::take(3);
//! w.extend_from_slice(&[1, 2, 3]);
//! let c = w.clone();
//! drop(w); // back to this thread's free list
//! let again = Words::take(3); // the same buffer, emptied
//! assert!(again.is_empty() && again.capacity() >= 3);
//! assert_eq!(&c[..], &[1, 2, 3]);
//! ```

use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

/// The most buffers a thread's free list keeps.
pub const MAX_POOLED: usize = 4096;

/// The most words (of capacity) a thread's free list keeps, in all (32 MiB).
pub const MAX_POOLED_WORDS: usize = 1 << 22;

struct FreeList {
    buffers: Vec<Vec<u64>>,
    words: usize,
}

thread_local! {
    static FREE: RefCell<FreeList> = const {
        RefCell::new(FreeList { buffers: Vec::new(), words: 0 })
    };
}

/// A `Vec<u64>` recycled through its thread's free list (see the [module](self) docs). It
/// dereferences to the `Vec`, compares, hashes and serialises as its contents.
#[derive(PartialEq, Eq, Hash, Default)]
pub struct Words(Vec<u64>);

impl Words {
    /// An empty buffer with room for at least `capacity` words, from the free list when it
    /// has one (allocating only when it is empty or the buffer must grow).
    pub fn take(capacity: usize) -> Words {
        let reused = FREE
            .try_with(|f| {
                let mut f = f.try_borrow_mut().ok()?;
                let v = f.buffers.pop()?;
                f.words -= v.capacity();
                Some(v)
            })
            .ok()
            .flatten();
        let mut v = reused.unwrap_or_default();
        v.clear();
        v.reserve(capacity);
        Words(v)
    }

    /// A recycled buffer holding a copy of `words`.
    pub fn from_slice(words: &[u64]) -> Words {
        let mut w = Words::take(words.len());
        w.0.extend_from_slice(words);
        w
    }

    /// An empty buffer that owns no memory (never touches the free list).
    pub const fn new() -> Words {
        Words(Vec::new())
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        let cap = self.0.capacity();
        if cap == 0 {
            return;
        }
        let v = std::mem::take(&mut self.0);
        // A full free list, a borrowed one or a thread being torn down: just free it.
        let _ = FREE.try_with(|f| {
            if let Ok(mut f) = f.try_borrow_mut() {
                if f.buffers.len() < MAX_POOLED && f.words + cap <= MAX_POOLED_WORDS {
                    f.words += cap;
                    f.buffers.push(v);
                }
            }
        });
    }
}

impl Clone for Words {
    fn clone(&self) -> Words {
        Words::from_slice(&self.0)
    }
}

impl Deref for Words {
    type Target = Vec<u64>;
    fn deref(&self) -> &Vec<u64> {
        &self.0
    }
}

impl DerefMut for Words {
    fn deref_mut(&mut self) -> &mut Vec<u64> {
        &mut self.0
    }
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl serde::Serialize for Words {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for Words {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Words, D::Error> {
        Vec::<u64>::deserialize(d).map(Words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_and_the_list_is_bounded() {
        let w = Words::from_slice(&[7; 10]);
        let p = w.as_ptr();
        drop(w);
        let again = Words::take(5);
        assert_eq!(again.as_ptr(), p, "the freed buffer is handed out again");
        let many: Vec<Words> = (0..MAX_POOLED + 10).map(|_| Words::take(1)).collect();
        drop(many);
        FREE.with(|f| assert!(f.borrow().buffers.len() <= MAX_POOLED));
        assert!(Words::new().capacity() == 0);
    }
}
