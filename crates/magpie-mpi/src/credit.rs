//! Termination detection by credit recovery (Mattern 1989, "Global quiescence detection
//! based on credit distribution and recovery").
//!
//! The whole computation owns a credit of exactly 1, held at the start by rank 0 with the
//! root task. A rank holds credit exactly while it holds work: a rank that sends work to a
//! thief halves one of its credit terms and sends one half with the work; a rank that runs
//! out of work returns all its credit to rank 0. Credit never appears or vanishes, so when
//! rank 0 has recovered a total of exactly 1, no rank holds work and no work is in flight:
//! the computation is over. No timeout is involved.
//!
//! Credit is kept exact as dyadic terms `2^-k` (an exponent `k` per term).

use std::collections::BTreeSet;

/// The credit a rank holds: a multiset of terms `2^-k`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Credit {
    terms: Vec<u32>,
}

impl Credit {
    /// The whole credit, 1.
    pub fn whole() -> Credit {
        Credit { terms: vec![0] }
    }

    /// Whether this rank holds no credit.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Halves the largest term (so exponents grow slowly) and returns one half, to send with
    /// work. `None` if no credit is held.
    ///
    /// ```
    /// use magpie_mpi::credit::Credit;
    /// let mut c = Credit::whole();
    /// let half = c.split().unwrap();
    /// assert_eq!(half.exponents(), [1]);
    /// assert_eq!(c.exponents(), [1]);
    /// ```
    pub fn split(&mut self) -> Option<Credit> {
        let (i, _) = self.terms.iter().enumerate().min_by_key(|(_, &k)| k)?;
        let k = self.terms[i]
            .checked_add(1)
            .expect("credit split 2^32 times");
        self.terms[i] = k;
        Some(Credit { terms: vec![k] })
    }

    /// Adds `other`'s terms to this credit.
    pub fn absorb(&mut self, other: Credit) {
        self.terms.extend(other.terms);
    }

    /// Takes all the credit out, leaving none.
    pub fn take(&mut self) -> Credit {
        std::mem::take(self)
    }

    /// The exponents of the terms.
    pub fn exponents(&self) -> &[u32] {
        &self.terms
    }

    /// The credit with the given exponents (as received in a message).
    pub fn from_exponents(terms: Vec<u32>) -> Credit {
        Credit { terms }
    }
}

/// Rank 0's sum of the credit returned to it, exact: a binary number with a bit per
/// exponent (carrying two `2^-k` into one `2^-(k-1)`).
#[derive(Debug, Default)]
pub struct Recovered {
    bits: BTreeSet<u32>,
}

impl Recovered {
    /// Adds returned credit.
    ///
    /// ```
    /// use magpie_mpi::credit::{Credit, Recovered};
    /// let mut whole = Credit::whole();
    /// let a = whole.split().unwrap(); // 1/2
    /// let b = whole.split().unwrap(); // 1/4, whole keeps 1/4
    /// let mut r = Recovered::default();
    /// r.add(a);
    /// r.add(b);
    /// assert!(!r.is_whole());
    /// r.add(whole.take());
    /// assert!(r.is_whole());
    /// ```
    pub fn add(&mut self, credit: Credit) {
        for mut k in credit.terms {
            while self.bits.remove(&k) {
                assert!(k > 0, "more than the whole credit was returned");
                k -= 1;
            }
            self.bits.insert(k);
        }
    }

    /// Whether exactly the whole credit, 1, has been recovered.
    pub fn is_whole(&self) -> bool {
        self.bits.len() == 1 && self.bits.contains(&0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_split_tree_sums_back_to_one() {
        // Split repeatedly in an irregular pattern, return every piece in a scrambled order.
        let mut pieces = vec![Credit::whole()];
        for round in 0..200usize {
            let i = (round * 7919) % pieces.len();
            let half = pieces[i].split().unwrap();
            pieces.push(half);
            if round % 5 == 0 {
                let j = (round * 31) % pieces.len();
                let taken = pieces.remove(j);
                let k = (round * 17) % pieces.len();
                pieces[k].absorb(taken);
            }
        }
        let mut r = Recovered::default();
        let n = pieces.len();
        for (step, p) in pieces.into_iter().enumerate() {
            assert!(
                !r.is_whole() || step == n,
                "whole before every piece came back"
            );
            r.add(p);
        }
        assert!(r.is_whole());
    }

    #[test]
    fn missing_piece_is_not_whole() {
        let mut c = Credit::whole();
        let lost = c.split().unwrap();
        let mut r = Recovered::default();
        r.add(c);
        assert!(!r.is_whole());
        r.add(lost);
        assert!(r.is_whole());
    }
}
