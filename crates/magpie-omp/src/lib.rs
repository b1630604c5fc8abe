//! # libmagpie_omp
//!
//! The GNU OpenMP runtime ABI — the `GOMP_*` entry points that `gcc -fopenmp` (GCC 12)
//! compiles OpenMP directives to, and the `omp_*` user API of GCC's `omp.h` and Fortran's
//! `omp_lib` — implemented on magpie's scheduler. An unchanged OpenMP binary runs on magpie
//! with
//!
//! ```text
//! LD_PRELOAD=target/release/libmagpie_omp.so OMP_SCHEDULE=fac2 ./prog
//! ```
//!
//! (or `magpie omp -- ./prog`). This crate is a thin layer: it translates the ABI to
//! magpie's runtime and owns no scheduler of its own.
//!
//! - **Regions and tasks** run on [`magpie::team`]: the thread that starts the first region
//!   becomes worker 0 of a pool of `OMP_NUM_THREADS` workers; a region's members are workers
//!   of that pool; tasks go on the workers' work-stealing deques; a barrier's waiters run the
//!   team's tasks. Nested regions are serialized (a team of one, its level counted), as
//!   libgomp does by default (`OMP_MAX_ACTIVE_LEVELS` 1).
//! - **Worksharing loops** take their chunks from a [`magpie::loops::Dispenser`]: `dynamic`
//!   is SS, `guided` is GSS, `static` is static, and `runtime` is whatever `OMP_SCHEDULE`
//!   names — every `magpie::loops` schedule, with LB4OMP's spellings. Adaptive schedules
//!   learn across executions of the same loop, keyed by the loop's construct: the region's
//!   outlined function and the loop's position among the region's worksharing constructs.
//! - **What is not here fails loudly**: entry points magpie lacks (offloading, doacross
//!   loops, task reductions, `detach`) are not exported, so a binary that needs one fails at
//!   load with an unresolved symbol; a feature flag it cannot honour (a reduction passed to
//!   `GOMP_loop_start`) stops the program with one line naming it.
//!
//! ## The ABI contract of every entry point
//!
//! Each `extern "C"` function here has the C signature of libgomp's function of the same
//! name (GCC 12's `libgomp_g.h` and `omp.h`), is called by compiler-generated code or by
//! the user's program on any thread, and never unwinds: a Rust panic inside is caught and
//! ends the process with one line on stderr (unwinding into C is undefined behaviour).
//! Configuration never stops a program: a bad `OMP_*` or `MAGPIE_*` value prints one line
//! and the default runs.

#![deny(unsafe_op_in_unsafe_fn)]
#![deny(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]
// The entry points are named after libgomp's, not after Rust's conventions.
#![allow(non_snake_case)]

/// Entry points of the form `void NAME (void)`: each runs its body (a function or closure of
/// no arguments) through [`ffi`]. `$(#[$doc])* NAME => body;` each.
macro_rules! void_entries {
    ($($(#[$doc:meta])* $name:ident => $body:expr;)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub extern "C" fn $name() {
            crate::ffi(stringify!($name), $body)
        }
    )*};
}

mod api;
mod icv;
mod locks;
mod region;
mod tasks;
mod worksharing;

pub use icv::{parse_omp_schedule, RunSchedule};

/// Runs `f`, the body of an `extern "C"` entry point, and ends the process with one line
/// naming `entry` if it panics: nothing may unwind into the C caller.
#[inline]
pub(crate) fn ffi<R>(entry: &str, f: impl FnOnce() -> R) -> R {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            fatal(&format!("{entry}: {msg}"))
        }
    }
}

/// Prints one line and ends the process (what the ABI cannot report any other way).
#[cold]
pub(crate) fn fatal(msg: &str) -> ! {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "libmagpie_omp: {msg}");
    std::process::abort()
}

/// Prints one line on stderr (a warning the program goes on after).
#[cold]
pub(crate) fn warn(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "libmagpie_omp: {msg}");
}
