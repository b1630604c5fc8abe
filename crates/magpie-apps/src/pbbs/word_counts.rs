//! PBBS wordCounts: how many times each word of a text occurs. Words are maximal runs of
//! bytes that are not ASCII whitespace. In parallel: each block of the text counts the words
//! that start in it, prefix sums place them, and each block writes its words (start,
//! length, hash) into one array (tokenize); a [`scatter`] groups the words by the top bits
//! of their hash into [`WORD_BUCKETS`] buckets (equal words share a bucket); each bucket
//! counts its words in its own hash table (count).
//!
//! ```
//! use magpie_apps::join::Sequential;
//! use magpie_apps::pbbs::word_counts::word_counts;
//!
//! let text = b"the cat and the hat\nand the bat";
//! let mut counts: Vec<(&[u8], u64)> =
//!     word_counts(&mut Sequential, text).iter().map(|w| (w.word(text), w.count)).collect();
//! counts.sort();
//! assert_eq!(counts, [(&b"and"[..], 2), (b"bat", 1), (b"cat", 1), (b"hat", 1), (b"the", 3)]);
//! ```

use super::gen;
use super::par::{par_chunks, par_pieces, reduce, scatter};
use crate::join::Join;
use crate::registry::{digest, fits, Kernel};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// Bytes of text per tokenizing task.
pub const TOKEN_BLOCK: usize = 1 << 16;

/// Buckets of words counted apart (by the top 8 bits of their hash).
pub const WORD_BUCKETS: usize = 256;

/// A distinct word of the text and its number of occurrences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordCount {
    /// Where one occurrence of the word starts in the text.
    pub start: usize,
    /// The word's length in bytes.
    pub len: usize,
    /// How many times it occurs.
    pub count: u64,
}

impl WordCount {
    /// The word, in `text` (the text it was counted in).
    pub fn word<'t>(&self, text: &'t [u8]) -> &'t [u8] {
        &text[self.start..self.start + self.len]
    }
}

/// One occurrence of a word: where, how long, its hash.
#[derive(Debug, Clone, Copy, Default)]
struct Token {
    hash: u64,
    start: usize,
    len: usize,
}

/// The words of `text` with their counts, each once, in no particular order.
pub fn word_counts<J: Join>(j: &mut J, text: &[u8]) -> Vec<WordCount> {
    let tokens = tokenize(j, text);
    let mut grouped = vec![Token::default(); tokens.len()];
    let starts = scatter(j, &tokens, &mut grouped, WORD_BUCKETS, &|t: &Token| {
        (t.hash >> 56) as usize
    });
    drop(tokens);
    let buckets: Vec<&[Token]> = starts.windows(2).map(|w| &grouped[w[0]..w[1]]).collect();
    reduce(
        j,
        &buckets,
        1,
        &|piece: &[&[Token]]| piece.iter().flat_map(|b| count_bucket(text, b)).collect(),
        &|mut a: Vec<WordCount>, b| {
            a.extend(b);
            a
        },
    )
}

/// Whether a word starts at `i`.
fn starts_word(text: &[u8], i: usize) -> bool {
    !text[i].is_ascii_whitespace() && (i == 0 || text[i - 1].is_ascii_whitespace())
}

/// Every word of `text`, in order.
fn tokenize<J: Join>(j: &mut J, text: &[u8]) -> Vec<Token> {
    let blocks = text.len().div_ceil(TOKEN_BLOCK);
    let range = |b: usize| b * TOKEN_BLOCK..text.len().min((b + 1) * TOKEN_BLOCK);
    let mut offsets = vec![0usize; blocks + 1];
    par_chunks(j, &mut offsets[1..], 1, &|b, c: &mut [usize]| {
        c[0] = range(b).filter(|&i| starts_word(text, i)).count();
    });
    for b in 0..blocks {
        offsets[b + 1] += offsets[b];
    }
    let mut tokens = vec![Token::default(); offsets[blocks]];
    par_pieces(j, &mut tokens, &offsets, &|b, out: &mut [Token]| {
        let mut out = out.iter_mut();
        for start in range(b).filter(|&i| starts_word(text, i)) {
            let len = text[start..]
                .iter()
                .position(u8::is_ascii_whitespace)
                .unwrap_or(text.len() - start);
            *out.next().expect("as many words as counted") = Token {
                hash: hash_word(&text[start..start + len]),
                start,
                len,
            };
        }
    });
    tokens
}

/// FNV-1a over the bytes, then a 64-bit mixer so that the top bits (the bucket) are good.
fn hash_word(word: &[u8]) -> u64 {
    let h = word.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    let h = (h ^ (h >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^ (h >> 33)
}

/// A word in a bucket's table: equal words have equal hashes, which the table uses as is.
#[derive(PartialEq, Eq)]
struct Key<'t> {
    hash: u64,
    word: &'t [u8],
}

impl Hash for Key<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// A hasher that passes on the one `u64` it is given (the word's own hash).
#[derive(Default)]
struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | b as u64;
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// The counts of one bucket's tokens.
fn count_bucket(text: &[u8], tokens: &[Token]) -> Vec<WordCount> {
    let mut table: HashMap<Key, WordCount, BuildHasherDefault<PassThrough>> = HashMap::default();
    for t in tokens {
        let word = &text[t.start..t.start + t.len];
        table
            .entry(Key { hash: t.hash, word })
            .or_insert(WordCount {
                start: t.start,
                len: t.len,
                count: 0,
            })
            .count += 1;
    }
    table.into_values().collect()
}

/// The vocabulary of the `word-counts` kernel's text.
pub const KERNEL_VOCABULARY: usize = 1 << 16;

/// The `word-counts` kernel: [`word_counts`] of a [`gen::zipf_text`] of `size` words over
/// [`KERNEL_VOCABULARY`] words.
#[derive(Debug)]
pub struct WordCounts {
    words: usize,
    text: Vec<u8>,
    counts: Vec<WordCount>,
}

impl Kernel for WordCounts {
    const NAME: &'static str = "word-counts";
    const ABOUT: &'static str =
        "PBBS wordCounts: occurrences of each word of a generated Zipf-like text";
    const FULL: usize = 5_000_000;
    const QUICK: usize = 100_000;

    fn build(size: usize, seed: u64) -> Result<Self, String> {
        // About 11 bytes of text and 24 + 24 of tokens per word.
        fits(&format!("a text of {size} words"), size, 60)?;
        Ok(WordCounts {
            words: size,
            text: gen::zipf_text(size, KERNEL_VOCABULARY, seed),
            counts: Vec::new(),
        })
    }

    fn describe(&self) -> String {
        format!(
            "word counts of a Zipf text of {} words ({} bytes) over {KERNEL_VOCABULARY} \
             words, {WORD_BUCKETS} hash buckets",
            self.words,
            self.text.len()
        )
    }

    fn run<J: Join>(&mut self, j: &mut J) -> u64 {
        self.counts = word_counts(j, &self.text);
        self.counts.len() as u64
    }

    /// The distinct words sorted, each with its count (untimed).
    fn digest(&self, ret: u64) -> Result<u64, String> {
        let mut counts: Vec<(&[u8], u64)> = self
            .counts
            .iter()
            .map(|w| (w.word(&self.text), w.count))
            .collect();
        counts.sort_unstable();
        let total: u64 = counts.iter().map(|c| c.1).sum();
        if total != self.words as u64 || counts.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(format!(
                "word-counts: {total} words counted of {}, or a word counted twice",
                self.words
            ));
        }
        Ok(digest(std::iter::once(ret).chain(counts.iter().flat_map(
            |(w, c)| {
                w.iter()
                    .map(|&b| b as u64)
                    .chain(std::iter::once(*c | 1 << 63))
            },
        ))))
    }
}
