//! Worksharing loops, sections and `ordered`: every `GOMP_loop_*` form GCC 12 emits, on
//! magpie's loop dispensers.
//!
//! A loop is translated to its iteration *numbers* `0..n` (its trip count); a chunk of
//! numbers `lo..hi` goes back to the caller as `start + lo·incr .. start + hi·incr`, the last
//! one ending exactly at `end`. The first member to reach the construct makes its
//! [`magpie::loops::Dispenser`] (for the team's size); every member takes chunks from it with
//! its own cursor. `dynamic` is SS, `guided` GSS, `static` static, `runtime` the runtime
//! schedule (`OMP_SCHEDULE`, `omp_set_schedule`). A loop that must be monotonic (`ordered`,
//! a `monotonic:` runtime schedule, `GOMP_loop_runtime_*`) runs the stealing and automatic
//! schedules as `static`, since a thief's chunks would go backwards.
//!
//! Adaptive schedules learn across executions of the same loop: the loop's state is kept
//! per construct, identified by the region's outlined function and the construct's number
//! among the region's worksharing constructs (the GNU ABI passes no loop identity).

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use magpie::loops::{Cursor, Dispenser, Loop, Schedule};
use magpie::team;

use crate::icv::icv;
use crate::region::{run_combined, OutlinedFn, OMP};

/// A loop's bounds, as the caller gave them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Bounds {
    /// `long` iteration variables.
    Long { start: i64, end: i64, incr: i64 },
    /// `unsigned long long` ones; `up` says which way they go (`incr` wraps when down).
    Ull {
        start: u64,
        end: u64,
        incr: u64,
        up: bool,
    },
}

impl Bounds {
    /// The trip count.
    pub(crate) fn trips(&self) -> usize {
        let n: u128 = match *self {
            Bounds::Long { start, end, incr } => {
                let (s, e, i) = (start as i128, end as i128, incr as i128);
                if i > 0 && s < e {
                    ((e - s + i - 1) / i) as u128
                } else if i < 0 && s > e {
                    ((s - e - i - 1) / -i) as u128
                } else {
                    0
                }
            }
            Bounds::Ull {
                start,
                end,
                incr,
                up,
            } => {
                if up && start < end && incr != 0 {
                    u128::from(end - start).div_ceil(u128::from(incr))
                } else if !up && start > end && incr != 0 {
                    let step = u128::from(incr.wrapping_neg());
                    u128::from(start - end).div_ceil(step)
                } else {
                    0
                }
            }
        };
        usize::try_from(n).unwrap_or(usize::MAX)
    }

    /// The iteration values of numbers `lo..hi` (the end clamped to the loop's end).
    pub(crate) fn values(&self, lo: usize, hi: usize, n: usize) -> (u64, u64) {
        match *self {
            Bounds::Long { start, end, incr } => {
                let at = |k: usize| (start as i128 + k as i128 * incr as i128) as i64;
                let e = if hi >= n { end } else { at(hi) };
                (at(lo) as u64, e as u64)
            }
            Bounds::Ull {
                start, end, incr, ..
            } => {
                let at = |k: usize| start.wrapping_add((k as u64).wrapping_mul(incr));
                let e = if hi >= n { end } else { at(hi) };
                (at(lo), e)
            }
        }
    }
}

/// A worksharing construct's shared state.
pub(crate) struct Ws {
    bounds: Bounds,
    n: usize,
    dispenser: Dispenser,
    /// The loop whose state persists (adaptive schedules), to learn from this execution.
    learner: Option<Arc<Loop>>,
    /// Members that have not left the construct.
    left: AtomicUsize,
    /// `ordered`: the iteration number whose chunk may run its ordered blocks.
    turn: Option<AtomicUsize>,
    /// `GOMP_loop_start`'s team-shared scratch memory (zeroed), made by the first asker.
    mem: OnceLock<Box<[u64]>>,
}

/// A member's place in its current construct.
pub(crate) struct Current {
    ws: Arc<Ws>,
    cursor: Cursor,
    /// An ordered chunk this member holds whose turn it has not passed on yet.
    owes_turn: bool,
}

/// What a loop's schedule clause said.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Kind {
    Static,
    Dynamic,
    Guided,
    Runtime,
    Auto,
}

/// The schedule a construct runs, and whether it must be monotonic.
fn schedule_of(kind: Kind, chunk: u64, monotonic: bool) -> (Schedule, bool) {
    let (s, mono) = match kind {
        Kind::Static => (
            Schedule::Static {
                chunk: (chunk > 0).then_some(chunk),
            },
            monotonic,
        ),
        Kind::Dynamic => (
            Schedule::Ss {
                chunk: chunk.max(1),
            },
            monotonic,
        ),
        Kind::Guided => (
            Schedule::Gss {
                min_chunk: chunk.max(1),
            },
            monotonic,
        ),
        Kind::Auto => (Schedule::Auto, monotonic),
        Kind::Runtime => {
            let r = icv().run_sched();
            (r.schedule, monotonic || r.monotonic)
        }
    };
    (s, mono)
}

/// Whether a schedule keeps state across executions of its loop.
fn learns(s: &Schedule) -> bool {
    s.is_selector()
        || matches!(
            s,
            Schedule::Fac { .. }
                | Schedule::Mfac { .. }
                | Schedule::Awf { .. }
                | Schedule::AwfB { .. }
                | Schedule::AwfC { .. }
                | Schedule::AwfD { .. }
                | Schedule::AwfE { .. }
                | Schedule::Af { .. }
        )
}

/// Stealing and automatic schedules hand a thief chunks below its earlier ones.
fn monotonic_version(s: Schedule, chunk: u64) -> Schedule {
    let steals = matches!(
        s,
        Schedule::StaticSteal { .. }
            | Schedule::Rws { .. }
            | Schedule::Laws { .. }
            | Schedule::Auto
    );
    if steals || s.is_selector() {
        Schedule::Static {
            chunk: (chunk > 0).then_some(chunk),
        }
    } else {
        s
    }
}

/// The loops whose schedule learns, by construct (region function, construct number,
/// schedule): at most this many, then further loops start from nothing each time.
const MAX_LEARNING_LOOPS: usize = 4096;

/// A loop construct: its region's function, its number there, and its schedule.
type LoopKey = (usize, u64, String);

fn learner(key: LoopKey, schedule: &Schedule) -> Arc<Loop> {
    static LOOPS: OnceLock<Mutex<HashMap<LoopKey, Arc<Loop>>>> = OnceLock::new();
    let mut loops = LOOPS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(l) = loops.get(&key) {
        return Arc::clone(l);
    }
    let l = Arc::new(Loop::new(schedule.clone()));
    if loops.len() < MAX_LEARNING_LOOPS {
        loops.insert(key, Arc::clone(&l));
    }
    l
}

/// Makes a loop construct's shared state for a team of `size`.
fn make_ws(
    bounds: Bounds,
    kind: Kind,
    chunk: u64,
    monotonic: bool,
    ordered: bool,
    size: usize,
    construct: (usize, u64),
) -> Ws {
    let (mut schedule, mono) = schedule_of(kind, chunk, monotonic);
    if mono || ordered {
        schedule = monotonic_version(schedule, chunk);
    }
    let n = bounds.trips();
    let (dispenser, learner) = if learns(&schedule) && construct.0 != 0 {
        let l = learner((construct.0, construct.1, schedule.to_string()), &schedule);
        (l.dispense(n, size), Some(l))
    } else {
        (Loop::new(schedule).dispense(n, size), None)
    };
    Ws {
        bounds,
        n,
        dispenser,
        learner,
        left: AtomicUsize::new(size),
        turn: ordered.then(|| AtomicUsize::new(0)),
        mem: OnceLock::new(),
    }
}

/// Joins the calling member's next worksharing construct (made by `make(team size)` if it
/// is the first there) and makes it the member's current one; with `fetch`, takes the
/// first chunk.
pub(crate) fn join(make: &(dyn Fn(usize) -> Ws + Sync), _fetch: bool) {
    let size = team::info().size;
    let (ws, _) = team::workshare(|| make(size));
    let cursor = ws.dispenser.cursor(team::info().member);
    OMP.with(|o| {
        o.borrow_mut().ws = Some(Current {
            ws,
            cursor,
            owes_turn: false,
        })
    });
}

/// Starts a loop construct for the calling member.
fn start(bounds: Bounds, kind: Kind, chunk: u64, monotonic: bool, ordered: bool) {
    let construct = OMP.with(|o| {
        let mut o = o.borrow_mut();
        (o.region_fn, o.next_ordinal())
    });
    join(
        &|size| make_ws(bounds, kind, chunk, monotonic, ordered, size, construct),
        true,
    );
}

/// Waits until `turn` reaches `at`.
fn wait_turn(turn: &AtomicUsize, at: usize) {
    let mut spins = 0u32;
    while turn.load(Ordering::Acquire) != at {
        if spins < 200 {
            std::hint::spin_loop();
            spins += 1;
        } else {
            std::thread::yield_now();
        }
    }
}

/// Passes the ordered turn on past the member's current chunk, if it owes it.
fn pass_turn(cur: &mut Current) {
    if let (true, Some(turn)) = (cur.owes_turn, &cur.ws.turn) {
        let chunk = cur.cursor.current();
        wait_turn(turn, chunk.start);
        turn.store(chunk.end, Ordering::Release);
        cur.owes_turn = false;
    }
}

/// The member's next chunk of its current construct, as iteration values.
fn next_values() -> Option<(u64, u64)> {
    OMP.with(|o| {
        let mut o = o.borrow_mut();
        let cur = o.ws.as_mut()?;
        pass_turn(cur);
        let chunk = cur.ws.dispenser.next(&mut cur.cursor)?;
        cur.owes_turn = cur.ws.turn.is_some();
        Some(cur.ws.bounds.values(chunk.start, chunk.end, cur.ws.n))
    })
}

/// Leaves the member's current construct; the last member lets the schedule learn.
fn leave() {
    let cur = OMP.with(|o| o.borrow_mut().ws.take());
    if let Some(mut cur) = cur {
        pass_turn(&mut cur);
        if cur.ws.left.fetch_sub(1, Ordering::AcqRel) == 1 {
            if let Some(l) = &cur.ws.learner {
                l.finish(&cur.ws.dispenser);
            }
        }
    }
}

/// Writes a chunk to the caller's `long` bounds; false when there is none.
///
/// # Safety
/// `istart` and `iend` are writable.
unsafe fn write_long(v: Option<(u64, u64)>, istart: *mut i64, iend: *mut i64) -> bool {
    match v {
        Some((s, e)) => {
            // SAFETY: the caller's bound variables.
            unsafe {
                istart.write(s as i64);
                iend.write(e as i64);
            }
            true
        }
        None => false,
    }
}

/// As [`write_long`], for `unsigned long long` bounds.
///
/// # Safety
/// `istart` and `iend` are writable.
unsafe fn write_ull(v: Option<(u64, u64)>, istart: *mut u64, iend: *mut u64) -> bool {
    match v {
        Some((s, e)) => {
            // SAFETY: the caller's bound variables.
            unsafe {
                istart.write(s);
                iend.write(e);
            }
            true
        }
        None => false,
    }
}

// ---- the loop entry points ----

/// One loop entry point that starts the construct (`self::start` with `$bounds`, `$kind`,
/// the chunk `$chunk`, `$mono` and `$ordered`) and writes the member's first chunk with
/// `$write` into `istart`, `iend` of type `$it` (false: none). The parameters before those
/// two are `$p: $pt`, the compiler's arguments.
macro_rules! start_entry {
    ($name:ident, $abi:literal, ($($p:ident: $pt:ty),*) => $bounds:expr, $chunk:expr,
     $it:ty, $write:ident, $kind:expr, $mono:expr, $ordered:expr) => {
        #[doc = concat!("ABI: `bool NAME (", $abi, ")`: starts the loop construct and takes")]
        /// the member's first chunk (false: none).
        ///
        /// # Safety
        /// `istart` and `iend` are writable.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($p: $pt,)* istart: *mut $it, iend: *mut $it) -> bool {
            crate::ffi(stringify!($name), || {
                self::start($bounds, $kind, $chunk, $mono, $ordered);
                // SAFETY: forwarded.
                unsafe { $write(next_values(), istart, iend) }
            })
        }
    };
}

/// One loop entry point that takes the member's next chunk (false: none) into `istart`,
/// `iend` of type `$it`.
macro_rules! next_entry {
    ($name:ident, $abi:literal, $it:ty, $write:ident) => {
        #[doc = concat!("ABI: `bool NAME (", $abi, ")`: the member's next chunk (false: none).")]
        ///
        /// # Safety
        /// `istart` and `iend` are writable.
        #[no_mangle]
        pub unsafe extern "C" fn $name(istart: *mut $it, iend: *mut $it) -> bool {
            // SAFETY: forwarded.
            crate::ffi(stringify!($name), || unsafe {
                $write(next_values(), istart, iend)
            })
        }
    };
}

/// The `long` and `unsigned long long` start entry points of each schedule with a chunk
/// argument: `long_name, ull_name: kind, monotonic, ordered;`.
macro_rules! loop_starts {
    ($($long:ident, $ull:ident: $kind:expr, $mono:expr, $ordered:expr;)*) => {$(
        start_entry!($long, "long start, long end, long incr, long chunk_size, long *istart, long *iend",
            (start: i64, end: i64, incr: i64, chunk: i64) => Bounds::Long { start, end, incr },
            chunk.max(0) as u64, i64, write_long, $kind, $mono, $ordered);
        start_entry!($ull, "bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk_size, unsigned long long *istart, unsigned long long *iend",
            (up: bool, start: u64, end: u64, incr: u64, chunk: u64) => Bounds::Ull { start, end, incr, up },
            chunk, u64, write_ull, $kind, $mono, $ordered);
    )*};
}

/// The `long` and `unsigned long long` start entry points of `schedule(runtime)` loops (no
/// chunk argument): `long_name, ull_name: monotonic, ordered;`.
macro_rules! runtime_starts {
    ($($long:ident, $ull:ident: $mono:expr, $ordered:expr;)*) => {$(
        start_entry!($long, "long start, long end, long incr, long *istart, long *iend",
            (start: i64, end: i64, incr: i64) => Bounds::Long { start, end, incr },
            0, i64, write_long, Kind::Runtime, $mono, $ordered);
        start_entry!($ull, "bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long *istart, unsigned long long *iend",
            (up: bool, start: u64, end: u64, incr: u64) => Bounds::Ull { start, end, incr, up },
            0, u64, write_ull, Kind::Runtime, $mono, $ordered);
    )*};
}

/// The `long` and `unsigned long long` next-chunk entry points: `long_name, ull_name;`.
macro_rules! loop_nexts {
    ($($long:ident, $ull:ident;)*) => {$(
        next_entry!($long, "long *istart, long *iend", i64, write_long);
        next_entry!($ull, "unsigned long long *istart, unsigned long long *iend", u64, write_ull);
    )*};
}

loop_starts! {
    GOMP_loop_static_start, GOMP_loop_ull_static_start: Kind::Static, true, false;
    GOMP_loop_dynamic_start, GOMP_loop_ull_dynamic_start: Kind::Dynamic, true, false;
    GOMP_loop_guided_start, GOMP_loop_ull_guided_start: Kind::Guided, true, false;
    GOMP_loop_nonmonotonic_dynamic_start, GOMP_loop_ull_nonmonotonic_dynamic_start:
        Kind::Dynamic, false, false;
    GOMP_loop_nonmonotonic_guided_start, GOMP_loop_ull_nonmonotonic_guided_start:
        Kind::Guided, false, false;
    GOMP_loop_ordered_static_start, GOMP_loop_ull_ordered_static_start: Kind::Static, true, true;
    GOMP_loop_ordered_dynamic_start, GOMP_loop_ull_ordered_dynamic_start:
        Kind::Dynamic, true, true;
    GOMP_loop_ordered_guided_start, GOMP_loop_ull_ordered_guided_start: Kind::Guided, true, true;
}

runtime_starts! {
    GOMP_loop_runtime_start, GOMP_loop_ull_runtime_start: true, false;
    GOMP_loop_nonmonotonic_runtime_start, GOMP_loop_ull_nonmonotonic_runtime_start: false, false;
    GOMP_loop_maybe_nonmonotonic_runtime_start, GOMP_loop_ull_maybe_nonmonotonic_runtime_start:
        false, false;
    GOMP_loop_ordered_runtime_start, GOMP_loop_ull_ordered_runtime_start: true, true;
}

loop_nexts! {
    GOMP_loop_static_next, GOMP_loop_ull_static_next;
    GOMP_loop_dynamic_next, GOMP_loop_ull_dynamic_next;
    GOMP_loop_guided_next, GOMP_loop_ull_guided_next;
    GOMP_loop_runtime_next, GOMP_loop_ull_runtime_next;
    GOMP_loop_nonmonotonic_dynamic_next, GOMP_loop_ull_nonmonotonic_dynamic_next;
    GOMP_loop_nonmonotonic_guided_next, GOMP_loop_ull_nonmonotonic_guided_next;
    GOMP_loop_nonmonotonic_runtime_next, GOMP_loop_ull_nonmonotonic_runtime_next;
    GOMP_loop_maybe_nonmonotonic_runtime_next, GOMP_loop_ull_maybe_nonmonotonic_runtime_next;
    GOMP_loop_ordered_static_next, GOMP_loop_ull_ordered_static_next;
    GOMP_loop_ordered_dynamic_next, GOMP_loop_ull_ordered_dynamic_next;
    GOMP_loop_ordered_guided_next, GOMP_loop_ull_ordered_guided_next;
    GOMP_loop_ordered_runtime_next, GOMP_loop_ull_ordered_runtime_next;
}

/// GOMP_loop_start's `sched` codes (gomp_schedule_type) and its monotonic flag.
fn sched_kind(sched: i64) -> (Kind, bool) {
    let monotonic = sched as u64 & 0x8000_0000 != 0;
    let kind = match sched & 0x7fff_ffff {
        1 => Kind::Static,
        2 => Kind::Dynamic,
        3 => Kind::Guided,
        4 => Kind::Auto,
        _ => Kind::Runtime,
    };
    (kind, monotonic)
}

/// `GOMP_loop_start`'s scratch memory and reductions.
///
/// # Safety
/// `mem` is null or points to the requested size, replaced by the team-shared block.
unsafe fn start_extras(reductions: *mut usize, mem: *mut *mut c_void, entry: &str) {
    if !reductions.is_null() {
        crate::fatal(&format!(
            "{entry}: task reductions on worksharing constructs are not supported by magpie"
        ));
    }
    if mem.is_null() {
        return;
    }
    // SAFETY: the caller's size word.
    let size = unsafe { mem.read() } as usize;
    let ptr = OMP.with(|o| {
        let o = o.borrow();
        o.ws.as_ref().map(|cur| {
            cur.ws
                .mem
                .get_or_init(|| vec![0u64; size.div_ceil(8).max(1)].into_boxed_slice())
                .as_ptr() as *mut c_void
        })
    });
    // SAFETY: as above; the block lives as long as the construct.
    unsafe { mem.write(ptr.unwrap_or(std::ptr::null_mut())) };
}

/// The body of the GOMP_5.0 `*_start` entry points: starts the construct, hands out its
/// scratch memory, and takes the first chunk unless `fetch` is false (a null `istart`).
///
/// # Safety
/// As [`GOMP_loop_start`].
unsafe fn start5(
    bounds: Bounds,
    sched: i64,
    chunk: u64,
    ordered: bool,
    extras: (*mut usize, *mut *mut c_void),
    entry: &str,
    fetch: bool,
) -> Option<Option<(u64, u64)>> {
    let (kind, mono) = sched_kind(sched);
    start(bounds, kind, chunk, mono, ordered);
    // SAFETY: forwarded.
    unsafe { start_extras(extras.0, extras.1, entry) };
    fetch.then(next_values)
}

/// GOMP_5.0's loop start entry points: `NAME(params) -> iteration type, write: bounds,
/// sched, chunk, ordered;` each. Each starts the construct with `start5` (the schedule from
/// `sched`, then the reductions and memory extras) and, unless `istart` is null, writes the
/// member's first chunk with `write`.
macro_rules! start5_entries {
    ($($(#[$doc:meta])* $name:ident($($p:ident: $pt:ty),*) -> $it:ty, $write:ident:
        $bounds:expr, $sched:ident, $chunk:expr, $ordered:expr;)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name(
            $($p: $pt,)*
            istart: *mut $it,
            iend: *mut $it,
            reductions: *mut usize,
            mem: *mut *mut c_void,
        ) -> bool {
            crate::ffi(stringify!($name), || {
                let (b, x, e) = ($bounds, (reductions, mem), stringify!($name));
                // SAFETY: forwarded.
                match unsafe { start5(b, $sched, $chunk, $ordered, x, e, !istart.is_null()) } {
                    // SAFETY: forwarded.
                    Some(v) => unsafe { $write(v, istart, iend) },
                    None => true,
                }
            })
        }
    )*};
}

start5_entries! {
    /// ABI (GOMP_5.0): `bool GOMP_loop_start (long start, long end, long incr, long sched,
    /// long chunk_size, long *istart, long *iend, uintptr_t *reductions, void **mem)`. A null
    /// `istart` starts the construct without taking a chunk.
    ///
    /// # Safety
    /// Pointers as libgomp documents them.
    GOMP_loop_start(start: i64, end: i64, incr: i64, sched: i64, chunk: i64) -> i64, write_long:
        Bounds::Long { start, end, incr }, sched, chunk.max(0) as u64, false;

    /// ABI (GOMP_5.0): `bool GOMP_loop_ordered_start (...)`, as [`GOMP_loop_start`] for an
    /// `ordered` loop.
    ///
    /// # Safety
    /// As [`GOMP_loop_start`].
    GOMP_loop_ordered_start(start: i64, end: i64, incr: i64, sched: i64, chunk: i64) -> i64,
        write_long: Bounds::Long { start, end, incr }, sched, chunk.max(0) as u64, true;

    /// ABI (GOMP_5.0): `bool GOMP_loop_ull_start (bool up, unsigned long long start, unsigned
    /// long long end, unsigned long long incr, long sched, unsigned long long chunk_size,
    /// unsigned long long *istart, unsigned long long *iend, uintptr_t *reductions, void
    /// **mem)`.
    ///
    /// # Safety
    /// As [`GOMP_loop_start`].
    GOMP_loop_ull_start(up: bool, start: u64, end: u64, incr: u64, sched: i64, chunk: u64)
        -> u64, write_ull: Bounds::Ull { start, end, incr, up }, sched, chunk, false;
}

/// Ends the member's loop and waits for the team. ABI: `void GOMP_loop_end (void)`.
#[no_mangle]
pub extern "C" fn GOMP_loop_end() {
    crate::ffi("GOMP_loop_end", || {
        leave();
        team::barrier();
    })
}

/// ABI: `bool GOMP_loop_end_cancel (void)`: as `GOMP_loop_end`; never cancelled.
#[no_mangle]
pub extern "C" fn GOMP_loop_end_cancel() -> bool {
    GOMP_loop_end();
    false
}

/// Ends the member's loop without waiting. ABI: `void GOMP_loop_end_nowait (void)`.
#[no_mangle]
pub extern "C" fn GOMP_loop_end_nowait() {
    crate::ffi("GOMP_loop_end_nowait", leave)
}

/// Waits for this iteration's turn in an `ordered` loop. ABI: `void GOMP_ordered_start (void)`.
#[no_mangle]
pub extern "C" fn GOMP_ordered_start() {
    crate::ffi("GOMP_ordered_start", || {
        let wait = OMP.with(|o| {
            let o = o.borrow();
            o.ws.as_ref().and_then(|cur| {
                cur.ws
                    .turn
                    .as_ref()
                    .map(|_| (Arc::clone(&cur.ws), cur.cursor.current().start))
            })
        });
        if let Some((ws, at)) = wait {
            if let Some(turn) = &ws.turn {
                wait_turn(turn, at);
            }
        }
    })
}

/// ABI: `void GOMP_ordered_end (void)`. The turn passes when the member's chunk is done.
#[no_mangle]
pub extern "C" fn GOMP_ordered_end() {}

// ---- combined parallel loops ----

/// One combined parallel loop entry point: a region whose members share one loop of
/// `$kind` (with the chunk `$chunk`, monotonic or not by `$mono`), set up before they ask
/// for chunks. The parameters between `num_threads` and `_flags` are `$p: i64`, the loop's
/// bounds `$bounds`.
macro_rules! parallel_entry {
    ($name:ident, $abi:literal, ($($p:ident),*) => $bounds:expr, $chunk:expr, $kind:expr,
     $mono:expr) => {
        #[doc = concat!("ABI: `void NAME (void (*fn) (void *), void *data, unsigned num_threads, ",
            $abi, ", unsigned flags)`: a region whose members share one loop, set up before")]
        /// they ask for chunks.
        ///
        /// # Safety
        /// `fn` is the compiler's outlined region and `data` its argument block.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name(
            f: OutlinedFn,
            data: *mut c_void,
            num_threads: u32,
            $($p: i64,)*
            _flags: u32,
        ) {
            crate::ffi(stringify!($name), || {
                let b = $bounds;
                let key = (f as usize, 0);
                run_combined(f, data, num_threads, &|size| {
                    make_ws(b, $kind, $chunk, $mono, false, size, key)
                })
            })
        }
    };
}

/// The combined loops with a chunk argument: `name: kind, monotonic;`.
macro_rules! parallel_loops {
    ($($name:ident: $kind:expr, $mono:expr;)*) => {$(
        parallel_entry!($name, "long start, long end, long incr, long chunk_size",
            (start, end, incr, chunk) => Bounds::Long { start, end, incr },
            chunk.max(0) as u64, $kind, $mono);
    )*};
}

/// The combined `schedule(runtime)` loops (no chunk argument): `name: monotonic;`.
macro_rules! parallel_runtime_loops {
    ($($name:ident: $mono:expr;)*) => {$(
        parallel_entry!($name, "long start, long end, long incr",
            (start, end, incr) => Bounds::Long { start, end, incr }, 0, Kind::Runtime, $mono);
    )*};
}

parallel_loops! {
    GOMP_parallel_loop_static: Kind::Static, true;
    GOMP_parallel_loop_dynamic: Kind::Dynamic, true;
    GOMP_parallel_loop_guided: Kind::Guided, true;
    GOMP_parallel_loop_nonmonotonic_dynamic: Kind::Dynamic, false;
    GOMP_parallel_loop_nonmonotonic_guided: Kind::Guided, false;
}

parallel_runtime_loops! {
    GOMP_parallel_loop_runtime: true;
    GOMP_parallel_loop_nonmonotonic_runtime: false;
    GOMP_parallel_loop_maybe_nonmonotonic_runtime: false;
}

// ---- sections ----

fn sections_ws(count: u32, size: usize, construct: (usize, u64)) -> Ws {
    make_ws(
        Bounds::Long {
            start: 1,
            end: i64::from(count) + 1,
            incr: 1,
        },
        Kind::Dynamic,
        1,
        true,
        false,
        size,
        construct,
    )
}

fn next_section() -> u32 {
    next_values().map_or(0, |(s, _)| s as u32)
}

/// ABI: `unsigned GOMP_sections_start (unsigned count)`: the member's first section
/// (numbered from 1), or 0 when none is left.
#[no_mangle]
pub extern "C" fn GOMP_sections_start(count: u32) -> u32 {
    crate::ffi("GOMP_sections_start", || {
        let construct = OMP.with(|o| {
            let mut o = o.borrow_mut();
            (o.region_fn, o.next_ordinal())
        });
        join(&|size| sections_ws(count, size, construct), true);
        next_section()
    })
}

/// ABI (GOMP_5.0): `unsigned GOMP_sections2_start (unsigned count, uintptr_t *reductions,
/// void **mem)`.
///
/// # Safety
/// As [`GOMP_loop_start`]'s `reductions` and `mem`.
#[no_mangle]
pub unsafe extern "C" fn GOMP_sections2_start(
    count: u32,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> u32 {
    crate::ffi("GOMP_sections2_start", || {
        let construct = OMP.with(|o| {
            let mut o = o.borrow_mut();
            (o.region_fn, o.next_ordinal())
        });
        join(&|size| sections_ws(count, size, construct), true);
        // SAFETY: forwarded.
        unsafe { start_extras(reductions, mem, "GOMP_sections2_start") };
        next_section()
    })
}

/// ABI: `unsigned GOMP_sections_next (void)`: the member's next section, or 0.
#[no_mangle]
pub extern "C" fn GOMP_sections_next() -> u32 {
    crate::ffi("GOMP_sections_next", next_section)
}

/// ABI: `void GOMP_sections_end (void)`: leaves the construct and waits for the team.
#[no_mangle]
pub extern "C" fn GOMP_sections_end() {
    GOMP_loop_end()
}

/// ABI: `bool GOMP_sections_end_cancel (void)`: as `GOMP_sections_end`; never cancelled.
#[no_mangle]
pub extern "C" fn GOMP_sections_end_cancel() -> bool {
    GOMP_loop_end();
    false
}

/// ABI: `void GOMP_sections_end_nowait (void)`.
#[no_mangle]
pub extern "C" fn GOMP_sections_end_nowait() {
    GOMP_loop_end_nowait()
}

/// ABI: `void GOMP_parallel_sections (void (*fn) (void *), void *data, unsigned
/// num_threads, unsigned count, unsigned flags)`.
///
/// # Safety
/// `fn` is the compiler's outlined region and `data` its argument block.
#[no_mangle]
pub unsafe extern "C" fn GOMP_parallel_sections(
    f: OutlinedFn,
    data: *mut c_void,
    num_threads: u32,
    count: u32,
    _flags: u32,
) {
    crate::ffi("GOMP_parallel_sections", || {
        let key = (f as usize, 0);
        run_combined(f, data, num_threads, &|size| sections_ws(count, size, key))
    })
}

#[cfg(test)]
mod tests;
