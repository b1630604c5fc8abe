//! Stress tests for every deque, in the style of crossbeam-deque's tests.
//!
//! One generic suite ([`smoke`], [`spsc`], [`stampede`], [`stress`], [`no_starvation`],
//! [`destructors`]) is instantiated for each deque by the `suite!` macro at the bottom.
//!
//! The test thread is always the owner. For the signal-based split deques it installs the
//! exposure handler and stays bound (see [`Kind::bind`]) while thieves run. Thieves never
//! wait for a particular outcome: they stop when a shared `done` count reaches the number of
//! values pushed, and the owner keeps calling `pop` until then (for `lcws-user`, a push or
//! a pop is the only moment the owner exposes work), so every test terminates for every
//! variant.

use crate::deque::signal::{self, DEFAULT_SIGNAL};
use crate::deque::{chase_lev, split, DequeOwner, DequeStealer, Exposure, Steal};
use crate::stats::WorkerCounters;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering::SeqCst};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How a test creates one kind of deque and prepares its owner thread.
trait Kind: Sync {
    /// The owner handle.
    type Owner<T: Send + 'static>: DequeOwner<T>;

    /// A new, empty deque.
    fn make<T: Send + 'static>(&self) -> Self::Owner<T>;

    /// Binds the calling (owner) thread for exposure by signal, where the deque needs it.
    fn bind<'a, T: Send + 'static>(
        &self,
        w: &'a Self::Owner<T>,
        c: &'a WorkerCounters,
    ) -> Option<split::BindGuard<'a>>;

    /// Whether a steal that finds work can only be answered `Success` (Chase-Lev).
    fn steals_are_immediate(&self) -> bool;

    /// Whether thieves need the owner to push or pop before they can see private work.
    fn owner_must_poll(&self) -> bool;
}

struct ChaseLev;

impl Kind for ChaseLev {
    type Owner<T: Send + 'static> = chase_lev::Worker<T>;

    fn make<T: Send + 'static>(&self) -> Self::Owner<T> {
        chase_lev::Worker::new()
    }

    fn bind<'a, T: Send + 'static>(
        &self,
        _w: &'a Self::Owner<T>,
        _c: &'a WorkerCounters,
    ) -> Option<split::BindGuard<'a>> {
        None
    }

    fn steals_are_immediate(&self) -> bool {
        true
    }

    fn owner_must_poll(&self) -> bool {
        false
    }
}

struct Split(Exposure);

impl Kind for Split {
    type Owner<T: Send + 'static> = split::Worker<T>;

    fn make<T: Send + 'static>(&self) -> Self::Owner<T> {
        split::Worker::new(self.0)
    }

    fn bind<'a, T: Send + 'static>(
        &self,
        w: &'a Self::Owner<T>,
        c: &'a WorkerCounters,
    ) -> Option<split::BindGuard<'a>> {
        if !self.0.uses_signal() {
            return None;
        }
        signal::install(DEFAULT_SIGNAL).expect("install the exposure handler");
        // SAFETY: callers keep the guard in a local that is dropped (never leaked) before
        // the deque and the counters.
        Some(unsafe { w.bind_current_thread(DEFAULT_SIGNAL, c) }.expect("bind the owner thread"))
    }

    fn steals_are_immediate(&self) -> bool {
        false
    }

    fn owner_must_poll(&self) -> bool {
        // User exposes only when the owner pushes or pops; Conservative never exposes the
        // last private task (LCWS §4.1.1), so its owner must take that one back itself.
        matches!(self.0, Exposure::User | Exposure::Conservative)
    }
}

/// Fails the test instead of hanging forever if a loop makes no progress for 60 s. Progress
/// is a count the caller passes (values obtained, thieves served): any change restarts the
/// clock, so a slow but moving run on a loaded machine passes (a fixed 60 s for the whole
/// loop failed the signal variant's `spsc`, 50,000 signalled steals, under load).
struct Deadline {
    progress: Cell<usize>,
    since: Cell<Instant>,
}

impl Deadline {
    fn new() -> Self {
        Deadline {
            progress: Cell::new(0),
            since: Cell::new(Instant::now()),
        }
    }

    fn check(&self, what: &str, progress: usize) {
        if progress != self.progress.get() {
            self.progress.set(progress);
            self.since.set(Instant::now());
        } else {
            assert!(
                self.since.get().elapsed() < Duration::from_secs(60),
                "no progress for 60 s: {what} (progress {progress})"
            );
        }
    }
}

/// Steals once; `Some` on success. Backs off on anything else.
fn steal_one<T, S: DequeStealer<T>>(s: &S, c: &WorkerCounters) -> Option<T> {
    match s.steal(c) {
        Steal::Success(v) => Some(v),
        Steal::Retry => {
            std::hint::spin_loop();
            None
        }
        Steal::Empty | Steal::Private => {
            thread::yield_now();
            None
        }
    }
}

/// Records one obtained value: each value must be obtained exactly once.
struct Tally {
    hits: Vec<AtomicU8>,
    done: AtomicUsize,
    sum: AtomicU64,
    /// Set when any participant panics, so that the others stop instead of spinning.
    abort: AtomicBool,
}

/// Sets a flag if the thread holding it unwinds.
struct AbortOnPanic<'a>(&'a AtomicBool);

impl Drop for AbortOnPanic<'_> {
    fn drop(&mut self) {
        if thread::panicking() {
            self.0.store(true, SeqCst);
        }
    }
}

impl Tally {
    fn new(n: usize) -> Self {
        Tally {
            hits: (0..n).map(|_| AtomicU8::new(0)).collect(),
            done: AtomicUsize::new(0),
            sum: AtomicU64::new(0),
            abort: AtomicBool::new(false),
        }
    }

    fn record(&self, v: usize) {
        let before = self.hits[v].fetch_add(1, SeqCst);
        assert_eq!(before, 0, "value {v} obtained twice");
        self.sum.fetch_add(v as u64, SeqCst);
        self.done.fetch_add(1, SeqCst);
    }

    /// Whether every value has been obtained. Panics if another participant panicked.
    fn finished(&self) -> bool {
        assert!(
            !self.abort.load(SeqCst),
            "another thread of this test panicked"
        );
        self.done.load(SeqCst) == self.hits.len()
    }

    /// Guard for each participant thread: a panic stops the others.
    fn guard(&self) -> AbortOnPanic<'_> {
        AbortOnPanic(&self.abort)
    }

    /// How many values have been obtained so far (a [`Deadline`]'s progress).
    fn progress(&self) -> usize {
        self.done.load(SeqCst)
    }

    fn check(&self) {
        let n = self.hits.len();
        for (v, h) in self.hits.iter().enumerate() {
            assert_eq!(
                h.load(SeqCst),
                1,
                "value {v} obtained {} times",
                h.load(SeqCst)
            );
        }
        assert_eq!(self.done.load(SeqCst), n);
        assert_eq!(
            self.sum.load(SeqCst),
            (n as u64) * (n as u64).saturating_sub(1) / 2
        );
    }
}

/// The owner pops (recording) until every value has been obtained by someone.
fn owner_drain<W: DequeOwner<usize>>(w: &W, c: &WorkerCounters, tally: &Tally) {
    let deadline = Deadline::new();
    while !tally.finished() {
        match w.pop(c) {
            Some(v) => tally.record(v),
            None => {
                deadline.check("owner waiting for thieves", tally.progress());
                thread::yield_now();
            }
        }
    }
    assert!(w.is_empty());
    assert_eq!(w.len(), 0);
    assert!(w.pop(c).is_none());
}

/// Counter sanity where the counts are exact: every value pushed once by the owner, and
/// taken exactly once by an owner pop or a steal.
fn check_counters(n: usize, owner: &WorkerCounters, thieves: &[WorkerCounters]) {
    let o = owner.snapshot();
    assert_eq!(o.pushes, n as u64, "owner pushes");
    let steals: u64 = thieves.iter().map(|t| t.steals.get()).sum();
    assert_eq!(
        o.private_pops + o.public_pops + steals,
        n as u64,
        "owner pops + steals"
    );
    for t in thieves {
        assert!(t.steals.get() <= t.steal_attempts.get());
        assert_eq!(t.pushes.get(), 0);
    }
}

// ---------------------------------------------------------------------------------------
// The suite.
// ---------------------------------------------------------------------------------------

fn smoke<K: Kind>(k: &K) {
    let c = WorkerCounters::default();
    let tc = WorkerCounters::default();
    let w = k.make::<usize>();
    let s = w.stealer();
    assert!(w.is_empty());
    assert_eq!(w.pop(&c), None);
    assert_eq!(s.steal(&tc), Steal::Empty);

    w.push(1, &c);
    w.push(2, &c);
    w.push(3, &c);
    assert_eq!(w.len(), 3);
    assert!(!w.is_empty());
    assert_eq!(w.pop(&c), Some(3));
    assert_eq!(s.len_hint(), 2);
    if k.steals_are_immediate() {
        assert_eq!(s.steal(&tc), Steal::Success(1));
        assert_eq!(w.pop(&c), Some(2));
    } else {
        // The split deque's tasks are private at first: a steal may be refused (`Private`),
        // and never finds the deque empty.
        match s.steal(&tc) {
            Steal::Success(v) => {
                assert_eq!(v, 1);
                assert_eq!(w.pop(&c), Some(2));
            }
            Steal::Private | Steal::Retry => {
                assert_eq!(w.pop(&c), Some(2));
                assert_eq!(w.pop(&c), Some(1));
            }
            Steal::Empty => panic!("steal found a non-empty deque empty"),
        }
    }
    assert_eq!(w.pop(&c), None);
    assert!(w.is_empty());
    assert_eq!(s.steal(&tc), Steal::Empty);

    w.push(4, &c);
    assert_eq!(w.pop(&c), Some(4));
    assert_eq!(w.pop(&c), None);
}

/// One thief steals while the owner pushes `N`: the thief sees values in FIFO order.
fn spsc<K: Kind>(k: &K) {
    const N: usize = 50_000;
    let c = WorkerCounters::default();
    let tc = WorkerCounters::default();
    let w = k.make::<usize>();
    let tally = Tally::new(N);
    let _guard = k.bind(&w, &c);
    let s = w.stealer();
    thread::scope(|scope| {
        scope.spawn(|| {
            let _abort = tally.guard();
            let deadline = Deadline::new();
            let mut last = None;
            while !tally.finished() {
                if let Some(v) = steal_one(&s, &tc) {
                    assert!(last < Some(v), "thief saw {v} after {last:?}: not FIFO");
                    last = Some(v);
                    tally.record(v);
                } else {
                    deadline.check("spsc thief", tally.progress());
                }
            }
        });
        let _abort = tally.guard();
        for i in 0..N {
            w.push(i, &c);
        }
        if k.owner_must_poll() {
            owner_drain(&w, &c, &tally);
        } else {
            // The thief can get everything on its own: let it.
            let deadline = Deadline::new();
            while !tally.finished() {
                deadline.check("spsc owner waiting", tally.progress());
                thread::yield_now();
            }
        }
    });
    tally.check();
    check_counters(N, &c, std::slice::from_ref(&tc));
    if !k.owner_must_poll() {
        assert_eq!(tc.steals.get(), N as u64, "the thief took everything");
    }
}

/// The owner fills the deque first, then pops while several thieves steal.
fn stampede<K: Kind>(k: &K) {
    const N: usize = 20_000;
    const THIEVES: usize = 3;
    let c = WorkerCounters::default();
    let tcs: Vec<WorkerCounters> = (0..THIEVES).map(|_| WorkerCounters::default()).collect();
    let w = k.make::<usize>();
    let tally = Tally::new(N);
    let _guard = k.bind(&w, &c);
    for i in 0..N {
        w.push(i, &c);
    }
    assert_eq!(w.len(), N);
    thread::scope(|scope| {
        for tc in &tcs {
            let s = w.stealer();
            let tally = &tally;
            scope.spawn(move || {
                let _abort = tally.guard();
                let deadline = Deadline::new();
                let mut last = None;
                while !tally.finished() {
                    if let Some(v) = steal_one(&s, tc) {
                        assert!(last < Some(v), "a thief's steals must be FIFO");
                        last = Some(v);
                        tally.record(v);
                    } else {
                        deadline.check("stampede thief", tally.progress());
                    }
                }
            });
        }
        let _abort = tally.guard();
        let mut last = None;
        let deadline = Deadline::new();
        while !tally.finished() {
            match w.pop(&c) {
                Some(v) => {
                    if let Some(l) = last {
                        assert!(v < l, "owner pops must be LIFO");
                    }
                    last = Some(v);
                    tally.record(v);
                }
                None => {
                    deadline.check("stampede owner", tally.progress());
                    thread::yield_now();
                }
            }
        }
    });
    tally.check();
    check_counters(N, &c, &tcs);
}

/// The owner mixes pushes and pops at random while several thieves steal.
fn stress<K: Kind>(k: &K) {
    const N: usize = 100_000;
    const THIEVES: usize = 3;
    let c = WorkerCounters::default();
    let tcs: Vec<WorkerCounters> = (0..THIEVES).map(|_| WorkerCounters::default()).collect();
    let w = k.make::<usize>();
    let tally = Tally::new(N);
    let _guard = k.bind(&w, &c);
    thread::scope(|scope| {
        for tc in &tcs {
            let s = w.stealer();
            let tally = &tally;
            scope.spawn(move || {
                let _abort = tally.guard();
                let deadline = Deadline::new();
                while !tally.finished() {
                    match steal_one(&s, tc) {
                        Some(v) => tally.record(v),
                        None => deadline.check("stress thief", tally.progress()),
                    }
                }
            });
        }
        let _abort = tally.guard();
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = 0;
        while next < N {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            // Push a small burst, then pop a few: the deque keeps moving up and down.
            for _ in 0..(rng % 8) {
                if next < N {
                    w.push(next, &c);
                    next += 1;
                }
            }
            for _ in 0..((rng >> 8) % 6) {
                if let Some(v) = w.pop(&c) {
                    tally.record(v);
                }
            }
        }
        owner_drain(&w, &c, &tally);
    });
    tally.check();
    check_counters(N, &c, &tcs);
}

/// Under a steady load every thief gets some work and so does the owner.
fn no_starvation<K: Kind>(k: &K) {
    const THIEVES: usize = 3;
    const MAX: usize = 1_000_000;
    let c = WorkerCounters::default();
    let tcs: Vec<WorkerCounters> = (0..THIEVES).map(|_| WorkerCounters::default()).collect();
    let w = k.make::<usize>();
    let tally = Tally::new(MAX);
    let stop = AtomicBool::new(false);
    let stolen: Vec<AtomicUsize> = (0..THIEVES).map(|_| AtomicUsize::new(0)).collect();
    let _guard = k.bind(&w, &c);
    let mut pushed = 0;
    let mut popped = 0;
    thread::scope(|scope| {
        for (tc, mine) in tcs.iter().zip(&stolen) {
            let s = w.stealer();
            let (tally, stop) = (&tally, &stop);
            scope.spawn(move || {
                let _abort = tally.guard();
                while !stop.load(SeqCst) {
                    if let Some(v) = steal_one(&s, tc) {
                        tally.record(v);
                        mine.fetch_add(1, SeqCst);
                    }
                }
            });
        }
        // A panic here must stop the thieves, or the scope would wait for them forever.
        let _stop = AbortOnPanic(&stop);
        let deadline = Deadline::new();
        loop {
            assert!(!tally.abort.load(SeqCst), "a thief panicked");
            // Keep a few dozen tasks around, popping some of our own each round.
            for _ in 0..50 {
                assert!(pushed < MAX, "thieves starved after {MAX} pushes");
                w.push(pushed, &c);
                pushed += 1;
            }
            for _ in 0..10 {
                if let Some(v) = w.pop(&c) {
                    tally.record(v);
                    popped += 1;
                }
            }
            while w.len() > 200 {
                if let Some(v) = w.pop(&c) {
                    tally.record(v);
                    popped += 1;
                }
            }
            if popped > 0 && stolen.iter().all(|s| s.load(SeqCst) > 0) {
                break;
            }
            deadline.check(
                "no_starvation",
                stolen.iter().filter(|s| s.load(SeqCst) > 0).count() + usize::from(popped > 0),
            );
            // Give the thieves the CPU: with more threads than cores, a thief may not even
            // have been scheduled yet.
            thread::sleep(Duration::from_micros(50));
        }
        stop.store(true, SeqCst);
    });
    // Thieves are gone: the owner takes the rest.
    while let Some(v) = w.pop(&c) {
        tally.record(v);
    }
    assert!(w.is_empty());
    assert_eq!(tally.done.load(SeqCst), pushed);
    for (v, h) in tally.hits.iter().enumerate() {
        assert_eq!(h.load(SeqCst), u8::from(v < pushed), "value {v}");
    }
    check_counters(pushed, &c, &tcs);
}

/// Counts its own drops, per value.
struct Droppy {
    v: usize,
    drops: Arc<Vec<AtomicU8>>,
}

impl Drop for Droppy {
    fn drop(&mut self) {
        self.drops[self.v].fetch_add(1, SeqCst);
    }
}

/// Every element is dropped exactly once: those taken and those left in the deque.
fn destructors<K: Kind>(k: &K) {
    const N: usize = 10_000;
    const THIEVES: usize = 3;
    const PER_THIEF: usize = 500;
    const OWNER_POPS: usize = 1_000;
    let drops: Arc<Vec<AtomicU8>> = Arc::new((0..N).map(|_| AtomicU8::new(0)).collect());
    let c = WorkerCounters::default();
    let tcs: Vec<WorkerCounters> = (0..THIEVES).map(|_| WorkerCounters::default()).collect();
    let w = k.make::<Droppy>();
    let stop = AtomicBool::new(false);
    let taken = AtomicUsize::new(0);
    let leftover_stealer = w.stealer();
    {
        let _guard = k.bind(&w, &c);
        for v in 0..N {
            w.push(
                Droppy {
                    v,
                    drops: Arc::clone(&drops),
                },
                &c,
            );
        }
        thread::scope(|scope| {
            for tc in &tcs {
                let s = w.stealer();
                let (stop, taken) = (&stop, &taken);
                scope.spawn(move || {
                    let mut got = 0;
                    while got < PER_THIEF && !stop.load(SeqCst) {
                        if let Some(d) = steal_one(&s, tc) {
                            assert_eq!(d.drops[d.v].load(SeqCst), 0);
                            drop(d);
                            got += 1;
                            taken.fetch_add(1, SeqCst);
                        }
                    }
                });
            }
            let _stop = AbortOnPanic(&stop);
            for _ in 0..OWNER_POPS {
                let d = w.pop(&c).expect("the deque cannot run dry here");
                taken.fetch_add(1, SeqCst);
                drop(d);
                thread::yield_now();
            }
            stop.store(true, SeqCst);
        });
    }
    let taken = taken.load(SeqCst);
    assert_eq!(w.len(), N - taken);
    assert!(
        w.len() > 0,
        "some elements must be left for the deque's drop"
    );
    let dropped = drops.iter().filter(|d| d.load(SeqCst) == 1).count();
    assert_eq!(
        dropped, taken,
        "every element taken was dropped once, no other"
    );
    let o = c.snapshot();
    assert_eq!(o.pushes, N as u64);
    let steals: u64 = tcs.iter().map(|t| t.steals.get()).sum();
    assert_eq!(o.private_pops + o.public_pops + steals, taken as u64);
    // Drop the owner first, while a stealer still holds the deque, then the stealer.
    drop(w);
    drop(leftover_stealer);
    for (v, d) in drops.iter().enumerate() {
        assert_eq!(
            d.load(SeqCst),
            1,
            "element {v} dropped {} times",
            d.load(SeqCst)
        );
    }
}

// ---------------------------------------------------------------------------------------
// Split deque only: memory stays bounded on a deque that never empties (issue 13 §4).
// ---------------------------------------------------------------------------------------

/// Push/steal cycles per variant in the `split_memory_*` tests: `MAGPIE_MEMORY_CYCLES` if
/// set (a positive integer, e.g. fewer under a sanitizer), else 10^8 (the four variants took
/// 16.8 s together on an idle 2-core VM, 112–305 s on one shared with five builds; see
/// docs/results/2026-11-23-split-deque-memory.md).
fn memory_cycles() -> usize {
    match std::env::var("MAGPIE_MEMORY_CYCLES") {
        Ok(v) => v
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| panic!("MAGPIE_MEMORY_CYCLES={v:?}: not a positive integer")),
        Err(_) => 100_000_000,
    }
}

/// Sets a flag when dropped, also while unwinding: the owner's way to stop the thief.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, SeqCst);
    }
}

/// A split deque that never empties while a thief keeps stealing its oldest task (the
/// pattern of long stack-stealing searches and loop participants): the owner keeps between
/// `KEEP` and `KEEP + BATCH` tasks, pushing `BATCH` values at a time and exposing them
/// (`expose_all` for `User`, the handler's own code for the signal variants, whose owner is
/// also bound so that real exposure signals land at random points), for `n` values in all.
/// The indices start near `isize::MAX` and wrap early on. After every batch the deque's
/// allocation must stay within the module's bound, `2 × max(initial, 2 × peak live)` slots:
/// with reset-on-empty absolute indices it grew by one slot per cycle.
///
/// One thief, so it must obtain `0, 1, 2, …` in order; the owner pops the rest at the end,
/// newest first: together every value exactly once, in O(1) memory.
fn never_empty(e: Exposure, n: usize) {
    const KEEP: usize = 64;
    const BATCH: usize = 32;
    const INITIAL: usize = 64;
    const BOUND: usize = 2 * 2 * (KEEP + BATCH);
    let c = WorkerCounters::default();
    let tc = WorkerCounters::default();
    let w = split::Worker::<usize>::with_start_index(e, INITIAL, isize::MAX - 1_000);
    let done = AtomicBool::new(false);
    let _guard = Split(e).bind(&w, &c);
    let (stolen, popped) = thread::scope(|scope| {
        let s = w.stealer();
        let (done, tc) = (&done, &tc);
        let thief = scope.spawn(move || {
            let mut expect = 0;
            loop {
                match s.steal(tc) {
                    Steal::Success(v) => {
                        assert_eq!(v, expect, "{e:?}: the thief takes the oldest task");
                        expect += 1;
                    }
                    Steal::Retry => std::hint::spin_loop(),
                    Steal::Empty | Steal::Private if done.load(SeqCst) => return expect,
                    Steal::Empty | Steal::Private => thread::yield_now(),
                }
            }
        });
        let _stop = SetOnDrop(done);
        let mut next = 0;
        while next < n {
            let mut spins = 0u32;
            let mut deadline = None;
            while w.len() >= KEEP {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    thread::yield_now();
                    deadline
                        .get_or_insert_with(Deadline::new)
                        .check("owner waiting for the thief", w.len());
                }
            }
            for _ in 0..BATCH.min(n - next) {
                w.push(next, &c);
                next += 1;
            }
            if e == Exposure::User {
                w.expose_all(&c);
            } else {
                for _ in 0..BATCH {
                    w.simulate_handler(&c);
                }
            }
            let slots = w.allocated_slots();
            assert!(slots <= BOUND, "{e:?}: {slots} slots after {next} pushes");
        }
        let mut popped = Vec::new();
        while let Some(v) = w.pop(&c) {
            popped.push(v);
        }
        assert!(w.is_empty());
        drop(_stop);
        (thief.join().expect("thief"), popped)
    });
    // The owner pops only at the end, when at most `KEEP + BATCH` tasks are left.
    assert!(
        stolen >= n - (KEEP + BATCH),
        "{e:?}: the thief took only {stolen} of {n}"
    );
    assert_eq!(
        popped,
        (stolen..n).rev().collect::<Vec<_>>(),
        "{e:?}: the owner takes back the rest, newest first"
    );
    assert_eq!(tc.steals.get(), stolen as u64);
    assert_eq!(c.snapshot().pushes, n as u64);
}

/// The memory test on each split variant: `test_name => exposure;`.
macro_rules! memory_bounded {
    ($($name:ident => $exposure:expr;)*) => {$(
        #[test]
        fn $name() {
            never_empty($exposure, memory_cycles());
        }
    )*};
}

memory_bounded! {
    split_memory_is_bounded_user => Exposure::User;
    split_memory_is_bounded_signal => Exposure::Signal;
    split_memory_is_bounded_conservative => Exposure::Conservative;
    split_memory_is_bounded_half => Exposure::Half;
}

/// Per-kind instantiation of the suite: in module `$module`, one test per function of the
/// suite, each run on `$kind`.
macro_rules! suite {
    ($($module:ident => $kind:expr;)*) => {$(
        mod $module {
            use super::*;

            suite!(@tests $kind; smoke spsc stampede stress no_starvation destructors);
        }
    )*};
    (@tests $kind:expr; $($test:ident)*) => {$(
        #[test]
        fn $test() {
            super::$test(&$kind)
        }
    )*};
}

suite! {
    chase_lev_ws => ChaseLev;
    lcws_user => Split(Exposure::User);
    lcws_signal => Split(Exposure::Signal);
    lcws_conservative => Split(Exposure::Conservative);
    lcws_half => Split(Exposure::Half);
}
