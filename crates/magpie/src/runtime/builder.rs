//! `ThreadPoolBuilder`: every setting validated at `build()`, with a message naming the
//! problem.

use std::any::Any;
use std::fmt;
use std::os::raw::c_int;
use std::str::FromStr;
use std::sync::Arc;

use std::io;
use std::thread::JoinHandle;

use super::pool::ThreadPool;
use super::registry::{PanicHandler, Registry, RegistryConfig, ThreadHandler};
use super::thread::ThreadBuilder;
use crate::deque::signal::{self, SignalError, DEFAULT_SIGNAL};
use crate::deque::{DequeKind, UnknownName};
use crate::policy::{idle, victim, IdlePolicy, PolicyError, SpecError, VictimPolicy};

/// Why a pool could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// `num_workers(0)`.
    #[error("a pool needs at least 1 worker (num_workers was 0)")]
    ZeroWorkers,
    /// An unknown deque, victim or idle policy name.
    #[error(transparent)]
    UnknownName(#[from] UnknownName),
    /// A known policy name with bad parameters (`linear:step=fast`).
    #[error(transparent)]
    Policy(SpecError),
    /// A bad environment variable (`from_env`).
    #[error("environment variable {var}={value:?}: {problem}")]
    Env {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The signal-based deque could not take its signal.
    #[error("deque {deque}: {source}")]
    Signal {
        /// The deque that needs the signal.
        deque: DequeKind,
        /// Why the signal could not be used.
        source: SignalError,
    },
    /// `num_workers(n)` with `n` above [`MAX_WORKERS`].
    #[error("{requested} workers is more than a pool can have (at most {MAX_WORKERS})")]
    TooManyWorkers {
        /// The number asked for.
        requested: usize,
    },
    /// The OS refused to start a worker thread (the threads already started were stopped
    /// and joined).
    #[error("could not start worker thread {index} of {count}: {source}")]
    Spawn {
        /// The worker's index.
        index: usize,
        /// The number of workers the pool was to have.
        count: usize,
        /// The OS error.
        source: std::io::Error,
    },
    /// `join_push_limit(0)`.
    #[error("join_push_limit must be at least 1 (0 would never create a task); use usize::MAX to push every join")]
    ZeroJoinPushLimit,
    /// `build_global` was called after the global pool already existed.
    #[error("the global pool is already initialised")]
    GlobalAlreadyInitialized,
    /// `use_current_thread`, called on a thread that is a worker of a pool already.
    #[error("use_current_thread: this thread is already a worker of a pool")]
    CurrentThreadInPool,
}

/// Something that names a deque: a [`DequeKind`] or its name (`"lcws-signal"`).
pub trait IntoDequeKind {
    /// Resolves the name.
    fn into_deque_kind(self) -> Result<DequeKind, UnknownName>;
}

impl IntoDequeKind for DequeKind {
    fn into_deque_kind(self) -> Result<DequeKind, UnknownName> {
        Ok(self)
    }
}

impl IntoDequeKind for &str {
    fn into_deque_kind(self) -> Result<DequeKind, UnknownName> {
        self.parse()
    }
}

impl IntoDequeKind for String {
    fn into_deque_kind(self) -> Result<DequeKind, UnknownName> {
        self.parse()
    }
}

/// Configures and builds a [`ThreadPool`].
///
/// ```
/// let pool = magpie::ThreadPoolBuilder::new()
///     .num_workers(2)
///     .deque("lcws-user")
///     .victims("random")
///     .idle("park")
///     .build()
///     .unwrap();
/// assert_eq!(pool.install(|| magpie::join(|| 1, || 2)), (1, 2));
///
/// let err = magpie::ThreadPoolBuilder::new().deque("abp").build().unwrap_err();
/// assert!(err.to_string().contains("unknown deque \"abp\""));
/// assert!(magpie::ThreadPoolBuilder::new().num_workers(0).build().is_err());
/// ```
pub struct ThreadPoolBuilder {
    // Each setting keeps its own error (bad name, bad environment value) until `build()`, so
    // a later setter replaces an earlier mistake.
    num_workers: Result<Option<usize>, BuildError>,
    deque: Result<DequeKind, BuildError>,
    victims: Result<Arc<dyn VictimPolicy>, BuildError>,
    idle: Result<Arc<dyn IdlePolicy>, BuildError>,
    signal: Result<c_int, BuildError>,
    thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    panic_handler: Option<Arc<PanicHandler>>,
    join_push_limit: Result<usize, BuildError>,
    start_handler: Option<Arc<ThreadHandler>>,
    exit_handler: Option<Arc<ThreadHandler>>,
    use_current_thread: bool,
}

/// What `Registry::start` takes: the config, thread namer and stack size.
type StartArgs = (
    RegistryConfig,
    Option<Box<dyn FnMut(usize) -> String>>,
    Option<usize>,
);

/// The most workers a pool can have: `num_workers` above it fails at `build()` with
/// [`BuildError::TooManyWorkers`], at once, instead of spending seconds or minutes starting
/// threads the machine cannot serve.
///
/// Why 4096: the largest machines have a few hundred to a thousand hardware threads, so this
/// still allows several workers per CPU on them; each worker reserves
/// [`DEFAULT_STACK_SIZE`] of address space (4096 of them: 32 GiB, still only address space),
/// and pool start-up and the victim policies cost time and memory growing with the count
/// (1,000 workers already take seconds to start a search on two cores).
///
/// ```
/// use magpie::{BuildError, MAX_WORKERS};
/// let err = magpie::ThreadPoolBuilder::new().num_workers(MAX_WORKERS + 1).build().unwrap_err();
/// assert!(matches!(err, BuildError::TooManyWorkers { requested } if requested == MAX_WORKERS + 1));
/// assert!(err.to_string().contains("4097 workers") && err.to_string().contains("at most 4096"));
/// ```
pub const MAX_WORKERS: usize = 4096;

/// Worker stack size unless set: generous, because a worker waiting in `join` runs stolen
/// jobs on top of its own stack (only address space is reserved up front).
pub const DEFAULT_STACK_SIZE: usize = 8 << 20;

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_workers", &self.num_workers)
            .field("deque", &self.deque)
            .field(
                "victims",
                &self.victims.as_ref().map(|p| p.name().to_string()),
            )
            .field("idle", &self.idle.as_ref().map(|p| p.name().to_string()))
            .field("signal", &self.signal)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

impl ThreadPoolBuilder {
    /// The environment variables read by [`ThreadPoolBuilder::from_env`] and the global
    /// pool (for instance, to clear them before starting a child process).
    ///
    /// ```
    /// assert!(magpie::ThreadPoolBuilder::ENV_VARS.contains(&"MAGPIE_DEQUE"));
    /// ```
    pub const ENV_VARS: [&'static str; 6] = [
        "MAGPIE_NUM_WORKERS",
        "MAGPIE_JOIN_LIMIT",
        "MAGPIE_DEQUE",
        "MAGPIE_VICTIMS",
        "MAGPIE_IDLE",
        "MAGPIE_SIGNAL",
    ];

    /// Defaults: one worker per available CPU, `lcws-user`, `random`, `park`, `SIGUSR1`.
    pub fn new() -> Self {
        ThreadPoolBuilder {
            num_workers: Ok(None),
            deque: Ok(DequeKind::Default),
            victims: Ok(Arc::new(victim::RandomVictims)),
            idle: Ok(Arc::new(idle::ParkIdle::default())),
            signal: Ok(DEFAULT_SIGNAL),
            thread_name: None,
            stack_size: None,
            panic_handler: None,
            join_push_limit: Ok(DEFAULT_JOIN_PUSH_LIMIT),
            start_handler: None,
            exit_handler: None,
            use_current_thread: false,
        }
    }

    /// Defaults overridden by `MAGPIE_NUM_WORKERS`, `MAGPIE_DEQUE`, `MAGPIE_VICTIMS`,
    /// `MAGPIE_IDLE`, `MAGPIE_SIGNAL`. A bad value makes `build()` fail naming the variable,
    /// unless a setter called afterwards replaces that setting.
    ///
    /// ```
    /// std::env::set_var("MAGPIE_DEQUE", "nonsense");
    /// let err = magpie::ThreadPoolBuilder::from_env().build().unwrap_err();
    /// assert!(err.to_string().contains("MAGPIE_DEQUE"));
    /// // A setter overrides the bad variable.
    /// assert!(magpie::ThreadPoolBuilder::from_env().deque("chase-lev").num_workers(1).build().is_ok());
    /// std::env::remove_var("MAGPIE_DEQUE");
    /// ```
    pub fn from_env() -> Self {
        let mut b = Self::new();
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let env = |name: &'static str, v: &str, problem: String| BuildError::Env {
            var: name,
            value: v.to_string(),
            problem,
        };
        if let Some(v) = var("MAGPIE_NUM_WORKERS") {
            b.num_workers = v
                .trim()
                .parse::<usize>()
                .map(Some)
                .map_err(|e| env("MAGPIE_NUM_WORKERS", &v, e.to_string()));
        } else if let Some(n) = rayon_num_threads() {
            b.num_workers = Ok(Some(n));
        }
        if let Some(v) = var("MAGPIE_DEQUE") {
            b.deque = v
                .parse::<DequeKind>()
                .map_err(|e| env("MAGPIE_DEQUE", &v, e.to_string()));
        }
        if let Some(v) = var("MAGPIE_VICTIMS") {
            b.victims = victim::by_name(&v).map_err(|e| env("MAGPIE_VICTIMS", &v, e.to_string()));
        }
        if let Some(v) = var("MAGPIE_IDLE") {
            b.idle = idle::by_name(&v).map_err(|e| env("MAGPIE_IDLE", &v, e.to_string()));
        }
        if let Some(v) = var("MAGPIE_JOIN_LIMIT") {
            b.join_push_limit = v
                .parse::<JoinLimit>()
                .map(JoinLimit::get)
                .map_err(|p| env("MAGPIE_JOIN_LIMIT", &v, p.0));
        }
        if let Some(v) = var("MAGPIE_SIGNAL") {
            b.signal = v
                .parse::<Signal>()
                .map(Signal::number)
                .map_err(|p| env("MAGPIE_SIGNAL", &v, p.0));
        }
        b
    }

    /// Number of workers, 1 to [`MAX_WORKERS`] (0, or more than
    /// that, is an error at `build()`). Default:
    /// available parallelism.
    pub fn num_workers(mut self, n: usize) -> Self {
        self.num_workers = Ok(Some(n));
        self
    }

    /// The deque, by [`DequeKind`] or name (`chase-lev`, `lcws-user`, `lcws-signal`,
    /// `lcws-conservative`, `lcws-half`). An unknown name fails at `build()`.
    pub fn deque(mut self, deque: impl IntoDequeKind) -> Self {
        self.deque = deque.into_deque_kind().map_err(BuildError::from);
        self
    }

    /// The victim-selection policy by name, with optional parameters
    /// (`random`, `sticky`, `last-victim`, `hierarchical`, `locality`, `perf`,
    /// `perf:refresh-max=100ms`; see [`crate::policy::victim::by_name`]). An unknown name or a
    /// bad parameter fails at `build()`.
    pub fn victims(mut self, name: &str) -> Self {
        self.victims = victim_by_name(name);
        self
    }

    /// A victim-selection policy value (your own implementation, for instance).
    pub fn victim_policy(mut self, policy: impl VictimPolicy + 'static) -> Self {
        self.victims = Ok(Arc::new(policy));
        self
    }

    /// The idle policy by name, with optional parameters (`park`, `spin`, `yield`,
    /// `linear:min=10us,step=50us,max=500us`, `dynamic-quanta`, …; see
    /// [`crate::policy::idle::by_name`]). An unknown name or a bad parameter fails at
    /// `build()`.
    pub fn idle(mut self, name: &str) -> Self {
        self.idle = idle_by_name(name);
        self
    }

    /// An idle policy value.
    pub fn idle_policy(mut self, policy: impl IdlePolicy + 'static) -> Self {
        self.idle = Ok(Arc::new(policy));
        self
    }

    /// The signal the signal-based deques use (default `SIGUSR1`). The pool refuses to start
    /// if a handler magpie did not install already owns it.
    pub fn signal(mut self, signal: c_int) -> Self {
        self.signal = Ok(signal);
        self
    }

    /// Names worker threads (default `magpie-worker-{index}`).
    pub fn thread_name(mut self, f: impl FnMut(usize) -> String + 'static) -> Self {
        self.thread_name = Some(Box::new(f));
        self
    }

    /// Worker stack size in bytes (default [`DEFAULT_STACK_SIZE`]; at least 64 KiB).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.stack_size = Some(bytes.max(64 << 10));
        self
    }

    /// Runs `handler` on every worker thread as it starts, with the worker's index (the
    /// worker is already one: `current_worker_index()` answers). A panic in it goes to the
    /// panic handler, and the worker starts anyway.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let s = Arc::clone(&started);
    /// let pool = magpie::ThreadPoolBuilder::new()
    ///     .num_workers(3)
    ///     .start_handler(move |_| { s.fetch_add(1, Ordering::SeqCst); })
    ///     .build()
    ///     .unwrap();
    /// drop(pool); // joins the workers: all of them started
    /// assert_eq!(started.load(Ordering::SeqCst), 3);
    /// ```
    pub fn start_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.start_handler = Some(Arc::new(handler));
        self
    }

    /// Runs `handler` on every worker thread as it exits (after the pool shut down and the
    /// worker finished its queued jobs), with the worker's index. A panic in it goes to the
    /// panic handler.
    pub fn exit_handler(mut self, handler: impl Fn(usize) + Send + Sync + 'static) -> Self {
        self.exit_handler = Some(Arc::new(handler));
        self
    }

    /// Makes the thread that calls `build` worker 0 of the pool: `num_workers - 1` threads
    /// are started, and the calling thread runs the pool's jobs whenever it waits in it
    /// (`install` runs right there; `join`, `scope` and the yields run and steal jobs). It
    /// runs no worker loop, so jobs it spawns are taken by the other workers (its deque is
    /// Chase-Lev, whatever the pool's: every job in it can be stolen without asking). The
    /// thread stays worker 0 until it exits, even after the pool is dropped, and cannot
    /// become a worker of another pool: `build` fails if it is a worker already. Start and
    /// exit handlers do not run for it.
    ///
    /// ```
    /// std::thread::spawn(|| {
    ///     let pool = magpie::ThreadPoolBuilder::new().num_workers(2).use_current_thread().build().unwrap();
    ///     assert_eq!(magpie::current_worker_index(), Some(0));
    ///     assert_eq!(pool.install(magpie::current_worker_index), Some(0));
    ///     assert!(magpie::ThreadPoolBuilder::new().use_current_thread().build().is_err());
    /// }).join().unwrap();
    /// ```
    pub fn use_current_thread(mut self) -> Self {
        self.use_current_thread = true;
        self
    }

    /// Task coarsening for `join`: `join(a, b)` makes `b` a task (pushes it on the worker's
    /// deque) only while the worker holds fewer than `limit` tasks that no thief can take
    /// without asking (the whole Chase-Lev deque; the private part of a split deque), or when
    /// a thief has asked for work; otherwise it runs `a` then `b` in sequence, as chili's
    /// heartbeat join does. The tasks kept are the shallowest pending ones, which are what
    /// thieves get anyway, so parallelism is kept while deep joins cost almost nothing.
    /// `usize::MAX` (or `"eager"` in `MAGPIE_JOIN_LIMIT`) pushes every `b`: the classic
    /// work-first join that the LCWS paper measures. Default 4 ([`JoinLimit::default`]);
    /// 0 is an error at `build()`.
    ///
    /// ```
    /// let eager = magpie::ThreadPoolBuilder::new().num_workers(2).join_push_limit(usize::MAX).build().unwrap();
    /// assert_eq!(eager.install(|| magpie::join(|| 1, || 2)), (1, 2));
    /// assert_eq!(eager.stats().total().pushes, 1);
    /// assert!(magpie::ThreadPoolBuilder::new().join_push_limit(0).build().is_err());
    /// ```
    pub fn join_push_limit(mut self, limit: usize) -> Self {
        self.join_push_limit = Ok(limit);
        self
    }

    /// Receives panics of `spawn`ed jobs (which have no caller); default: print to stderr.
    pub fn panic_handler(
        mut self,
        h: impl Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    ) -> Self {
        self.panic_handler = Some(Arc::new(h));
        self
    }

    /// Aborts the process when a `spawn`ed job panics and no panic handler is set, after
    /// printing the panic on stderr: rayon-core's rule ("panics should not go unobserved"),
    /// where magpie's default prints and carries on. Replaces any panic handler set before.
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().abort_on_unhandled_panic().num_workers(1).build().unwrap();
    /// assert_eq!(pool.install(|| 1 + 1), 2);
    /// ```
    pub fn abort_on_unhandled_panic(self) -> Self {
        self.panic_handler(|payload| {
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "magpie: a spawned job panicked and no panic handler is set: {}; aborting",
                panic_message(&*payload)
            );
            std::process::abort();
        })
    }

    /// rayon-core's defaults, for programs written for rayon (the rayon-core replacement
    /// builds every pool from them): a spawned job's panic with no handler aborts
    /// ([`ThreadPoolBuilder::abort_on_unhandled_panic`]), and the deque is Chase-Lev unless
    /// one was chosen (by `MAGPIE_DEQUE` or a setter). Why Chase-Lev: rayon code runs long
    /// sequential stretches (a parallel iterator's fold) without ever calling
    /// [`crate::expose_work`], and a split deque's owner then keeps its private tasks to
    /// itself on `lcws-user`; Chase-Lev tasks can always be stolen, as rayon's are. The
    /// signal-based split deques (`lcws-signal`, …) expose work without the owner's help too,
    /// and are one `MAGPIE_DEQUE` away.
    ///
    /// ```
    /// let pool = magpie::ThreadPoolBuilder::new().rayon_defaults().num_workers(1).build().unwrap();
    /// assert_eq!(pool.deque().to_string(), "chase-lev");
    /// let pool = magpie::ThreadPoolBuilder::new().deque("lcws-half").rayon_defaults().num_workers(1).build().unwrap();
    /// assert_eq!(pool.deque().to_string(), "lcws-half");
    /// ```
    /// The worker count, when none was set, is `RAYON_NUM_THREADS`'s if it names one.
    pub fn rayon_defaults(mut self) -> Self {
        if matches!(self.num_workers, Ok(None)) {
            self.num_workers = Ok(rayon_num_threads());
        }
        if matches!(self.deque, Ok(DequeKind::Default)) {
            self = self.deque(DequeKind::ChaseLev);
        }
        self.abort_on_unhandled_panic()
    }

    fn into_config(self) -> Result<StartArgs, BuildError> {
        let num_workers = match self.num_workers? {
            Some(0) => return Err(BuildError::ZeroWorkers),
            Some(n) if n > MAX_WORKERS => return Err(BuildError::TooManyWorkers { requested: n }),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS)),
        };
        let deque = self.deque?.resolve();
        let victims = self.victims?;
        let idle = self.idle?;
        let signal = self.signal?;
        let join_push_limit = match self.join_push_limit? {
            0 => return Err(BuildError::ZeroJoinPushLimit),
            n => n,
        };
        if let DequeKind::Split(e) = deque {
            if e.uses_signal() {
                signal::install(signal).map_err(|source| BuildError::Signal { deque, source })?;
            }
        }
        let config = RegistryConfig {
            num_workers,
            deque,
            victims,
            idle,
            signal,
            join_push_limit,
            panic_handler: self.panic_handler,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            use_current_thread: self.use_current_thread,
        };
        Ok((config, self.thread_name, self.stack_size))
    }

    /// Starts the registry, each worker on the thread `spawn` gives it.
    fn start(
        self,
        spawn: impl FnMut(ThreadBuilder) -> io::Result<()>,
    ) -> Result<Arc<Registry>, BuildError> {
        let (config, names, stack) = self.into_config()?;
        Registry::start(config, names, stack, spawn)
    }

    /// Starts the registry on `std` threads; their handles go to `handles` (joined here if
    /// the start fails).
    fn start_std(self, handles: &mut Vec<JoinHandle<()>>) -> Result<Arc<Registry>, BuildError> {
        let started = self.start(|worker| {
            handles.push(worker.spawn_std()?);
            Ok(())
        });
        if started.is_err() {
            // The registry was terminated: the threads that started exit at once.
            for h in handles.drain(..) {
                let _ = h.join();
            }
        }
        started
    }

    /// Builds the pool and starts its workers.
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        let mut handles = Vec::new();
        let registry = self.start_std(&mut handles)?;
        Ok(ThreadPool::from_parts(registry, handles))
    }

    /// Builds the pool with `spawn` starting each worker: it gets a [`ThreadBuilder`] per
    /// worker and must run it ([`ThreadBuilder::run`]) on a thread of its own (a thread with
    /// a given affinity, priority or thread-local state, a thread of a scope...). An error
    /// it returns fails the build (the workers started so far exit). The pool does not join
    /// these threads when dropped: whoever spawned them does.
    pub fn build_with_spawn_handler(
        self,
        spawn: impl FnMut(ThreadBuilder) -> io::Result<()>,
    ) -> Result<ThreadPool, BuildError> {
        let registry = self.start(spawn)?;
        Ok(ThreadPool::from_parts(registry, Vec::new()))
    }

    /// Builds a pool whose workers are scoped threads of this call: each runs
    /// `wrapper(worker)` (which must call [`ThreadBuilder::run`]), so they may borrow from
    /// the caller's stack; `with_pool` gets the pool, and when it returns the pool shuts
    /// down and every worker has exited before this returns. A panic of `with_pool`
    /// propagates after that.
    ///
    /// ```
    /// let label = String::from("scoped");
    /// let n = magpie::ThreadPoolBuilder::new()
    ///     .num_workers(2)
    ///     .build_scoped(
    ///         |worker| {
    ///             assert_eq!(label, "scoped"); // borrowed by every worker
    ///             worker.run()
    ///         },
    ///         |pool| pool.install(|| magpie::join(|| 20, || 22)),
    ///     )
    ///     .unwrap();
    /// assert_eq!(n, (20, 22));
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, BuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        self.build_scoped_as(wrapper, |pool| pool, with_pool)
    }

    /// [`ThreadPoolBuilder::build_scoped`] for a layer that wraps magpie's pool in a type of
    /// its own (the rayon-core replacement does): `wrap` turns the pool into it, `with_pool`
    /// gets that, and dropping it must shut the pool down (dropping the `ThreadPool` inside
    /// does).
    pub fn build_scoped_as<P, W, F, R>(
        self,
        wrapper: W,
        wrap: impl FnOnce(ThreadPool) -> P,
        with_pool: F,
    ) -> Result<R, BuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&P) -> R,
    {
        std::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = wrap(self.build_with_spawn_handler(|worker| {
                worker
                    .std_builder()
                    .spawn_scoped(scope, move || wrapper(worker))
                    .map(drop)
            })?);
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| with_pool(&pool)));
            // Shut the workers down; the scope joins them before it returns.
            drop(pool);
            match result {
                Ok(r) => Ok(r),
                Err(p) => std::panic::resume_unwind(p),
            }
        })
    }

    /// Starts a registry whose threads are never joined (the global pool).
    pub(crate) fn into_registry(self) -> Result<Arc<Registry>, BuildError> {
        self.start_std(&mut Vec::new())
    }

    /// Makes this configuration the global pool (used by the free functions outside any
    /// pool). Fails if the global pool already exists.
    ///
    /// ```
    /// // The first call wins; later ones report an error.
    /// let _ = magpie::ThreadPoolBuilder::new().num_workers(2).build_global();
    /// assert!(magpie::ThreadPoolBuilder::new().build_global().is_err());
    /// ```
    pub fn build_global(self) -> Result<(), BuildError> {
        // Start the workers only once it is known there is no global pool yet.
        super::set_global(|| self.into_registry())
    }

    /// [`ThreadPoolBuilder::build_global`] with `spawn` starting each worker (see
    /// [`ThreadPoolBuilder::build_with_spawn_handler`]).
    pub fn build_global_with_spawn_handler(
        self,
        spawn: impl FnMut(ThreadBuilder) -> io::Result<()>,
    ) -> Result<(), BuildError> {
        super::set_global(|| self.start(spawn))
    }
}

/// A panic payload's message (`&str` or `String`), or a placeholder.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "<non-string panic payload>".into())
}

/// The worker count that `RAYON_NUM_THREADS` (or its old name `RAYON_RS_NUM_CPUS`) asks
/// for, as rayon reads it: a positive number, else nothing (0 or a non-number means "the
/// default").
pub(crate) fn rayon_num_threads() -> Option<usize> {
    ["RAYON_NUM_THREADS", "RAYON_RS_NUM_CPUS"]
        .iter()
        .find_map(|var| std::env::var(var).ok()?.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

fn victim_by_name(name: &str) -> Result<Arc<dyn VictimPolicy>, BuildError> {
    victim::by_name(name).map_err(BuildError::from)
}

fn idle_by_name(name: &str) -> Result<Arc<dyn IdlePolicy>, BuildError> {
    idle::by_name(name).map_err(BuildError::from)
}

impl From<PolicyError> for BuildError {
    fn from(e: PolicyError) -> Self {
        match e {
            PolicyError::UnknownName(u) => BuildError::UnknownName(u),
            PolicyError::Spec(s) => BuildError::Policy(s),
        }
    }
}

/// The default of [`ThreadPoolBuilder::join_push_limit`].
pub(crate) const DEFAULT_JOIN_PUSH_LIMIT: usize = 4;

/// A value of a pool setting that does not parse ([`Signal`], [`JoinLimit`]); its message
/// says what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseSettingError(String);

/// A join push limit ([`ThreadPoolBuilder::join_push_limit`]) as `MAGPIE_JOIN_LIMIT` and the
/// `magpie` binary's `--join-limit` write it: a number of tasks (at least 1), or `eager` /
/// `unlimited` / `max` for no limit (`usize::MAX`, the classic work-first join).
///
/// ```
/// use magpie::JoinLimit;
/// assert_eq!("8".parse::<JoinLimit>().unwrap().get(), 8);
/// assert_eq!("eager".parse::<JoinLimit>().unwrap().get(), usize::MAX);
/// assert_eq!(JoinLimit::default().get(), 4);
/// let err = "0".parse::<JoinLimit>().unwrap_err();
/// assert_eq!(err.to_string(), "expected a number of tasks (at least 1) or `eager`");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JoinLimit(usize);

impl JoinLimit {
    /// The limit, in tasks (`usize::MAX` for no limit).
    pub fn get(self) -> usize {
        self.0
    }
}

impl Default for JoinLimit {
    /// The builder's default, 4 tasks.
    fn default() -> Self {
        JoinLimit(DEFAULT_JOIN_PUSH_LIMIT)
    }
}

impl FromStr for JoinLimit {
    type Err = ParseSettingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "eager" | "unlimited" | "max" => Ok(JoinLimit(usize::MAX)),
            t => match t.parse::<usize>() {
                Ok(n) if n >= 1 => Ok(JoinLimit(n)),
                _ => Err(ParseSettingError(
                    "expected a number of tasks (at least 1) or `eager`".to_string(),
                )),
            },
        }
    }
}

/// The signal of the signal-based deques ([`ThreadPoolBuilder::signal`]) as `MAGPIE_SIGNAL`
/// and the `magpie` binary's `--signal` write it: a number (`10`) or a name (`SIGUSR2`,
/// `USR2`, `SIGRTMIN+1`).
///
/// ```
/// use magpie::Signal;
/// let usr2 = "SIGUSR2".parse::<Signal>().unwrap();
/// assert_eq!(usr2, "usr2".parse().unwrap());
/// assert_eq!("12".parse::<Signal>().unwrap().number(), 12);
/// let pool = magpie::ThreadPoolBuilder::new().num_workers(1).signal(usr2.number()).build();
/// assert!(pool.is_ok());
/// assert!("SIGFOO".parse::<Signal>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signal(c_int);

impl Signal {
    /// The signal's number.
    pub fn number(self) -> c_int {
        self.0
    }
}

impl Default for Signal {
    /// The builder's default, `SIGUSR1`.
    fn default() -> Self {
        Signal(DEFAULT_SIGNAL)
    }
}

impl FromStr for Signal {
    type Err = ParseSettingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_signal(s).map(Signal).map_err(ParseSettingError)
    }
}

fn parse_signal(s: &str) -> Result<c_int, String> {
    let t = s.trim().to_ascii_uppercase();
    let t = t.strip_prefix("SIG").unwrap_or(&t);
    if let Ok(n) = t.parse::<c_int>() {
        return Ok(n);
    }
    let rt = |off: &str| -> Result<c_int, String> {
        let k: c_int = if off.is_empty() {
            0
        } else {
            off.parse().map_err(|_| format!("bad offset in {s:?}"))?
        };
        Ok(libc::SIGRTMIN() + k)
    };
    match t {
        "USR1" => Ok(libc::SIGUSR1),
        "USR2" => Ok(libc::SIGUSR2),
        "URG" => Ok(libc::SIGURG),
        "WINCH" => Ok(libc::SIGWINCH),
        _ => match t.strip_prefix("RTMIN") {
            Some(off) => rt(off.trim_start_matches('+')),
            None => Err(
                "expected a signal number or one of SIGUSR1, SIGUSR2, SIGURG, SIGWINCH, SIGRTMIN+k"
                    .into(),
            ),
        },
    }
}
