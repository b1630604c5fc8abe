//! The `omp_*` user API of GCC's `omp.h` that a CPU runtime answers, and the Fortran
//! `omp_lib` twins (trailing underscore, arguments by reference; `_8_` for 8-byte integers).

use std::ffi::c_int;
use std::sync::atomic::Ordering;
use std::sync::OnceLock;
use std::time::Instant;

use magpie::loops::Schedule;
use magpie::team;

use crate::icv::{icv, RunSchedule};

fn num_procs() -> c_int {
    std::thread::available_parallelism().map_or(1, |n| n.get()) as c_int
}

/// The ABI's `omp_sched_t` kinds.
const SCHED_STATIC: c_int = 1;
const SCHED_DYNAMIC: c_int = 2;
const SCHED_GUIDED: c_int = 3;
const SCHED_AUTO: c_int = 4;
const SCHED_MONOTONIC: u32 = 0x8000_0000;

fn wtime_epoch() -> &'static Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now)
}

/// Defines a C entry point and its Fortran twin (same value, no arguments).
macro_rules! getter {
    ($(#[$doc:meta])* $c:ident, $f:ident, $ty:ty, $body:expr) => {
        $(#[$doc])*
        #[no_mangle]
        pub extern "C" fn $c() -> $ty {
            crate::ffi(stringify!($c), || $body)
        }

        /// The Fortran `omp_lib` form of the function of the same name.
        #[no_mangle]
        pub extern "C" fn $f() -> $ty {
            $c()
        }
    };
}

getter!(
    /// `int omp_get_thread_num (void)`: the member's number in its team.
    omp_get_thread_num, omp_get_thread_num_, c_int, team::info().member as c_int
);
getter!(
    /// `int omp_get_num_threads (void)`: the size of the current team.
    omp_get_num_threads, omp_get_num_threads_, c_int, team::info().size as c_int
);
getter!(
    /// `int omp_get_max_threads (void)`: the size of the next region's team.
    omp_get_max_threads,
    omp_get_max_threads_,
    c_int,
    {
        let info = team::info();
        if info.active_level >= 1 && info.size > 1 {
            // A nested region is serialized.
            1
        } else {
            icv().nthreads.load(Ordering::Relaxed) as c_int
        }
    }
);
getter!(
    /// `int omp_get_num_procs (void)`.
    omp_get_num_procs, omp_get_num_procs_, c_int, num_procs()
);
getter!(
    /// `int omp_in_parallel (void)`: 1 inside an active region (one of several members).
    omp_in_parallel, omp_in_parallel_, c_int, c_int::from(team::info().active_level > 0)
);
getter!(
    /// `int omp_get_level (void)`: enclosing regions, serialized ones included.
    omp_get_level, omp_get_level_, c_int, team::info().level as c_int
);
getter!(
    /// `int omp_get_active_level (void)`: enclosing regions with more than one member.
    omp_get_active_level, omp_get_active_level_, c_int, team::info().active_level as c_int
);
getter!(
    /// `int omp_get_dynamic (void)`.
    omp_get_dynamic, omp_get_dynamic_, c_int, c_int::from(icv().dynamic.load(Ordering::Relaxed))
);
getter!(
    /// `int omp_get_nested (void)`: nested regions are serialized, so 0 unless levels were
    /// asked for (they are still serialized).
    omp_get_nested,
    omp_get_nested_,
    c_int,
    c_int::from(icv().max_active_levels.load(Ordering::Relaxed) > 1)
);
getter!(
    /// `int omp_get_max_active_levels (void)`.
    omp_get_max_active_levels,
    omp_get_max_active_levels_,
    c_int,
    icv().max_active_levels.load(Ordering::Relaxed) as c_int
);
getter!(
    /// `int omp_get_supported_active_levels (void)`: magpie runs one active level.
    omp_get_supported_active_levels, omp_get_supported_active_levels_, c_int, 1
);
getter!(
    /// `int omp_get_thread_limit (void)`: the most members a team can have (the pool's size,
    /// `OMP_THREAD_LIMIT` or else `OMP_NUM_THREADS`).
    omp_get_thread_limit, omp_get_thread_limit_, c_int, icv().thread_limit as c_int
);
getter!(
    /// `int omp_in_final (void)`: whether the current task is final.
    omp_in_final, omp_in_final_, c_int, c_int::from(team::in_final())
);
getter!(
    /// `int omp_get_cancellation (void)`: cancellation is off.
    omp_get_cancellation, omp_get_cancellation_, c_int, 0
);
getter!(
    /// `omp_proc_bind_t omp_get_proc_bind (void)`: what `OMP_PROC_BIND` said.
    omp_get_proc_bind, omp_get_proc_bind_, c_int, icv().proc_bind
);
getter!(
    /// `int omp_get_num_places (void)`: no places are defined.
    omp_get_num_places, omp_get_num_places_, c_int, 0
);
getter!(
    /// `int omp_get_place_num (void)`: -1, not bound to a place.
    omp_get_place_num, omp_get_place_num_, c_int, -1
);
getter!(
    /// `int omp_get_partition_num_places (void)`.
    omp_get_partition_num_places, omp_get_partition_num_places_, c_int, 0
);
getter!(
    /// `int omp_get_default_device (void)`.
    omp_get_default_device, omp_get_default_device_, c_int, 0
);
getter!(
    /// `int omp_get_num_devices (void)`: no offload devices.
    omp_get_num_devices, omp_get_num_devices_, c_int, 0
);
getter!(
    /// `int omp_get_num_teams (void)`.
    omp_get_num_teams, omp_get_num_teams_, c_int, 1
);
getter!(
    /// `int omp_get_team_num (void)`.
    omp_get_team_num, omp_get_team_num_, c_int, 0
);
getter!(
    /// `int omp_is_initial_device (void)`.
    omp_is_initial_device, omp_is_initial_device_, c_int, 1
);
getter!(
    /// `int omp_get_initial_device (void)`: the host, numbered after the (zero) devices.
    omp_get_initial_device, omp_get_initial_device_, c_int, 0
);
getter!(
    /// `int omp_get_device_num (void)`: the host.
    omp_get_device_num, omp_get_device_num_, c_int, 0
);
getter!(
    /// `int omp_get_max_task_priority (void)`: priorities are honoured at any size.
    omp_get_max_task_priority, omp_get_max_task_priority_, c_int, c_int::MAX
);
getter!(
    /// `double omp_get_wtime (void)`: seconds since a fixed moment.
    omp_get_wtime, omp_get_wtime_, f64, wtime_epoch().elapsed().as_secs_f64()
);
getter!(
    /// `double omp_get_wtick (void)`: the timer's resolution.
    omp_get_wtick, omp_get_wtick_, f64, 1e-9
);

/// `void omp_set_num_threads (int n)`: the size of later regions' teams (at most the pool's).
#[no_mangle]
pub extern "C" fn omp_set_num_threads(n: c_int) {
    crate::ffi("omp_set_num_threads", || {
        if n >= 1 {
            icv().nthreads.store(n as usize, Ordering::Relaxed);
        }
    })
}

/// `void omp_set_dynamic (int)`.
#[no_mangle]
pub extern "C" fn omp_set_dynamic(on: c_int) {
    crate::ffi("omp_set_dynamic", || {
        icv().dynamic.store(on != 0, Ordering::Relaxed)
    })
}

/// `void omp_set_nested (int)`: accepted; nested regions stay serialized.
#[no_mangle]
pub extern "C" fn omp_set_nested(on: c_int) {
    crate::ffi("omp_set_nested", || {
        icv()
            .max_active_levels
            .store(if on != 0 { 2 } else { 1 }, Ordering::Relaxed)
    })
}

/// `void omp_set_max_active_levels (int)`: accepted; nested regions stay serialized.
#[no_mangle]
pub extern "C" fn omp_set_max_active_levels(n: c_int) {
    crate::ffi("omp_set_max_active_levels", || {
        if n >= 0 {
            icv().max_active_levels.store(n as usize, Ordering::Relaxed)
        }
    })
}

/// `void omp_set_default_device (int)`: there is only the host.
#[no_mangle]
pub extern "C" fn omp_set_default_device(_device: c_int) {}

/// `int omp_get_ancestor_thread_num (int level)`: the member number, at nesting `level`,
/// of the calling thread or its ancestor; -1 beyond the current level.
#[no_mangle]
pub extern "C" fn omp_get_ancestor_thread_num(level: c_int) -> c_int {
    crate::ffi("omp_get_ancestor_thread_num", || {
        ancestor(level).map_or(-1, |(m, _)| m as c_int)
    })
}

fn ancestor(level: c_int) -> Option<(usize, usize)> {
    usize::try_from(level).ok().and_then(team::ancestor)
}

/// `int omp_get_team_size (int level)`: the size of the team at nesting `level`; -1 beyond
/// the current level.
#[no_mangle]
pub extern "C" fn omp_get_team_size(level: c_int) -> c_int {
    crate::ffi("omp_get_team_size", || {
        ancestor(level).map_or(-1, |(_, s)| s as c_int)
    })
}

/// `void omp_set_schedule (omp_sched_t kind, int chunk)`: the runtime schedule.
#[no_mangle]
pub extern "C" fn omp_set_schedule(kind: c_int, chunk: c_int) {
    crate::ffi("omp_set_schedule", || {
        let monotonic = kind as u32 & SCHED_MONOTONIC != 0;
        let chunk = u64::try_from(chunk).ok().filter(|&c| c > 0);
        let schedule = match (kind as u32 & !SCHED_MONOTONIC) as c_int {
            SCHED_STATIC => Schedule::Static { chunk },
            SCHED_DYNAMIC => Schedule::Ss {
                chunk: chunk.unwrap_or(1),
            },
            SCHED_GUIDED => Schedule::Gss {
                min_chunk: chunk.unwrap_or(1),
            },
            SCHED_AUTO => Schedule::Auto,
            _ => return,
        };
        *icv().run_sched.lock().unwrap_or_else(|e| e.into_inner()) = RunSchedule {
            schedule,
            monotonic,
        };
    })
}

/// `void omp_get_schedule (omp_sched_t *kind, int *chunk)`: the runtime schedule; magpie's
/// own schedules (fac2, awf, …) report `omp_sched_auto` with their chunk or 0.
///
/// # Safety
/// `kind` and `chunk` are writable.
#[no_mangle]
pub unsafe extern "C" fn omp_get_schedule(kind: *mut c_int, chunk: *mut c_int) {
    crate::ffi("omp_get_schedule", || {
        let r = icv().run_sched();
        let (k, c) = match r.schedule {
            Schedule::Static { chunk } => (SCHED_STATIC, chunk.unwrap_or(0)),
            Schedule::Ss { chunk } => (SCHED_DYNAMIC, chunk),
            Schedule::Gss { min_chunk } => (SCHED_GUIDED, min_chunk),
            _ => (SCHED_AUTO, 0),
        };
        let k = if r.monotonic {
            (k as u32 | SCHED_MONOTONIC) as c_int
        } else {
            k
        };
        // SAFETY: the caller's variables.
        unsafe {
            kind.write(k);
            chunk.write(c_int::try_from(c).unwrap_or(c_int::MAX));
        }
    })
}

// ---- Fortran setters: arguments by reference ----

macro_rules! fortran_setter {
    ($f:ident, $f8:ident, $c:ident) => {
        /// The Fortran `omp_lib` form (argument by reference, 4-byte integer).
        ///
        /// # Safety
        /// `v` points to the argument.
        #[no_mangle]
        pub unsafe extern "C" fn $f(v: *const c_int) {
            // SAFETY: the caller's argument.
            $c(unsafe { v.read() })
        }

        /// The Fortran `omp_lib` form for an 8-byte integer argument.
        ///
        /// # Safety
        /// `v` points to the argument.
        #[no_mangle]
        pub unsafe extern "C" fn $f8(v: *const i64) {
            // SAFETY: the caller's argument.
            let v = unsafe { v.read() };
            $c(v.clamp(c_int::MIN.into(), c_int::MAX.into()) as c_int)
        }
    };
}

fortran_setter!(
    omp_set_num_threads_,
    omp_set_num_threads_8_,
    omp_set_num_threads
);
fortran_setter!(omp_set_dynamic_, omp_set_dynamic_8_, omp_set_dynamic);
fortran_setter!(omp_set_nested_, omp_set_nested_8_, omp_set_nested);
fortran_setter!(
    omp_set_max_active_levels_,
    omp_set_max_active_levels_8_,
    omp_set_max_active_levels
);
fortran_setter!(
    omp_set_default_device_,
    omp_set_default_device_8_,
    omp_set_default_device
);

/// Fortran `omp_get_ancestor_thread_num(level)`.
///
/// # Safety
/// `level` points to the argument.
#[no_mangle]
pub unsafe extern "C" fn omp_get_ancestor_thread_num_(level: *const c_int) -> c_int {
    // SAFETY: the caller's argument.
    omp_get_ancestor_thread_num(unsafe { level.read() })
}

/// Fortran `omp_get_team_size(level)`.
///
/// # Safety
/// `level` points to the argument.
#[no_mangle]
pub unsafe extern "C" fn omp_get_team_size_(level: *const c_int) -> c_int {
    // SAFETY: the caller's argument.
    omp_get_team_size(unsafe { level.read() })
}

/// Fortran `omp_set_schedule(kind, chunk)`.
///
/// # Safety
/// Both point to the arguments.
#[no_mangle]
pub unsafe extern "C" fn omp_set_schedule_(kind: *const c_int, chunk: *const c_int) {
    // SAFETY: the caller's arguments.
    unsafe { omp_set_schedule(kind.read(), chunk.read()) }
}

/// Fortran `omp_get_schedule(kind, chunk)`.
///
/// # Safety
/// Both are writable.
#[no_mangle]
pub unsafe extern "C" fn omp_get_schedule_(kind: *mut c_int, chunk: *mut c_int) {
    // SAFETY: forwarded.
    unsafe { omp_get_schedule(kind, chunk) }
}
