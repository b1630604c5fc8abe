//! [`ThreadPoolBuilder`]: rayon-core's builder, translated to magpie's.
//!
//! rayon's settings map one to one onto `magpie::ThreadPoolBuilder`, which starts from the
//! `MAGPIE_*` variables (`magpie::ThreadPoolBuilder::from_env`); magpie's own settings are
//! set through [`MagpieBuilderExt`]. The rules that differ between the two are rayon's here:
//! `num_threads(0)` means "the default" (`RAYON_NUM_THREADS`, else the CPUs), a count above
//! [`crate::max_num_threads`] is lowered to it, a spawned job's panic with no handler aborts
//! the process, the deque is Chase-Lev unless `MAGPIE_DEQUE` or [`MagpieBuilderExt::deque`]
//! chose one (`magpie::ThreadPoolBuilder::rayon_defaults` says why), and the default spawn
//! starts plain `std` threads that nobody joins.

use std::any::Any;
use std::error::Error;
use std::fmt;
use std::io;

use magpie::{BuildError, IntoDequeKind};

use crate::{ThreadBuilder, ThreadPool};

type PanicHandler = dyn Fn(Box<dyn Any + Send>) + Send + Sync;
type ThreadHandler = dyn Fn(usize) + Send + Sync;

/// Configures a pool (rayon-core's `ThreadPoolBuilder`); `S` is how its threads are
/// spawned ([`DefaultSpawn`], or [`CustomSpawn`] from
/// [`ThreadPoolBuilder::spawn_handler`]).
///
/// A bad `MAGPIE_*` variable makes [`ThreadPoolBuilder::build`] and
/// [`ThreadPoolBuilder::build_global`] fail, naming the variable, its value and what is
/// accepted, unless a [`MagpieBuilderExt`] setter replaced that setting.
///
/// ```
/// let pool = rayon_core::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .thread_name(|i| format!("worker-{i}"))
///     .build()
///     .unwrap();
/// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
/// assert!(name.unwrap().starts_with("worker-"));
/// ```
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    num_threads: usize,
    use_current_thread: bool,
    panic_handler: Option<Box<PanicHandler>>,
    get_thread_name: Option<Box<dyn FnMut(usize) -> String>>,
    stack_size: Option<usize>,
    start_handler: Option<Box<ThreadHandler>>,
    exit_handler: Option<Box<ThreadHandler>>,
    spawn_handler: S,
    breadth_first: bool,
    /// magpie's settings: the `MAGPIE_*` variables, then [`MagpieBuilderExt`]'s setters.
    magpie: magpie::ThreadPoolBuilder,
}

impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        ThreadPoolBuilder {
            num_threads: 0,
            use_current_thread: false,
            panic_handler: None,
            get_thread_name: None,
            stack_size: None,
            start_handler: None,
            exit_handler: None,
            spawn_handler: DefaultSpawn,
            breadth_first: false,
            magpie: magpie::ThreadPoolBuilder::from_env().rayon_defaults(),
        }
    }
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let set = |o: bool| if o { "Some(<closure>)" } else { "None" };
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.num_threads)
            .field("use_current_thread", &self.use_current_thread)
            .field("get_thread_name", &set(self.get_thread_name.is_some()))
            .field("panic_handler", &set(self.panic_handler.is_some()))
            .field("stack_size", &self.stack_size)
            .field("start_handler", &set(self.start_handler.is_some()))
            .field("exit_handler", &set(self.exit_handler.is_some()))
            .field("breadth_first", &self.breadth_first)
            .field("magpie", &self.magpie)
            .finish()
    }
}

impl ThreadPoolBuilder {
    /// A builder with rayon's defaults and the `MAGPIE_*` variables' settings.
    pub fn new() -> Self {
        Self::default()
    }

    /// rayon's defaults without the `MAGPIE_*` variables (the global pool's fallback when
    /// one of them is bad).
    pub(crate) fn from_defaults() -> Self {
        ThreadPoolBuilder {
            magpie: magpie::ThreadPoolBuilder::new().rayon_defaults(),
            ..Self::default()
        }
    }

    /// Builds a pool whose threads are scoped threads of this call, each running
    /// `wrapper(thread)` (which must call [`ThreadBuilder::run`]); `with_pool` gets the pool,
    /// and every thread has exited before this returns. A panic of `with_pool` propagates
    /// after that.
    ///
    /// ```
    /// let v = vec![1, 2, 3];
    /// let sum = rayon_core::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(|t| { assert_eq!(v.len(), 3); t.run() }, |pool| pool.install(|| v.iter().sum::<i32>()))
    ///     .unwrap();
    /// assert_eq!(sum, 6);
    /// ```
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        let (magpie, DefaultSpawn) = self.into_magpie();
        magpie
            .build_scoped_as(wrapper, ThreadPool::from_magpie, with_pool)
            .map_err(ThreadPoolBuildError::from)
    }

    /// Spawns the pool's threads with `spawn`: it gets a [`ThreadBuilder`] per thread and
    /// must run it on a thread of its own (or return an error, which fails the build).
    ///
    /// ```
    /// let pool = rayon_core::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(|thread| {
    ///         std::thread::spawn(|| thread.run());
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 6 * 7), 42);
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> io::Result<()>,
    {
        ThreadPoolBuilder {
            num_threads: self.num_threads,
            use_current_thread: self.use_current_thread,
            panic_handler: self.panic_handler,
            get_thread_name: self.get_thread_name,
            stack_size: self.stack_size,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            spawn_handler: CustomSpawn(spawn),
            breadth_first: self.breadth_first,
            magpie: self.magpie,
        }
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds the pool and starts its threads.
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let (magpie, mut spawn) = self.into_magpie();
        magpie
            .build_with_spawn_handler(|thread| spawn.spawn(thread))
            .map(ThreadPool::from_magpie)
            .map_err(ThreadPoolBuildError::from)
    }

    /// Makes this configuration the global pool, which the free functions use outside any
    /// pool. Fails if the global pool exists already (it is built on first use).
    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let (magpie, mut spawn) = self.into_magpie();
        magpie
            .build_global_with_spawn_handler(|thread| spawn.spawn(thread))
            .map_err(ThreadPoolBuildError::from)
    }

    /// The magpie builder with every rayon setting applied, and the spawner.
    fn into_magpie(self) -> (magpie::ThreadPoolBuilder, S) {
        let mut b = self.magpie;
        if self.num_threads > 0 {
            b = b.num_workers(self.num_threads.min(crate::max_num_threads()));
        }
        if let Some(f) = self.get_thread_name {
            b = b.thread_name(f);
        }
        if let Some(bytes) = self.stack_size {
            b = b.stack_size(bytes);
        }
        // Without a handler, rayon_defaults' abort stays.
        if let Some(h) = self.panic_handler {
            b = b.panic_handler(h);
        }
        if let Some(h) = self.start_handler {
            b = b.start_handler(h);
        }
        if let Some(h) = self.exit_handler {
            b = b.exit_handler(h);
        }
        if self.use_current_thread {
            b = b.use_current_thread();
        }
        (b, self.spawn_handler)
    }

    /// The number of threads: a positive number, or 0 for the default (`MAGPIE_NUM_WORKERS`,
    /// else `RAYON_NUM_THREADS`, else the number of CPUs). More than
    /// [`crate::max_num_threads`] is lowered to it.
    pub fn num_threads(mut self, num_threads: usize) -> Self {
        self.num_threads = num_threads;
        self
    }

    /// Makes the calling thread thread 0 of the pool: it runs the pool's jobs when it waits
    /// in the pool (`install`, `join`, `scope`, the yields) but no worker loop, and stays
    /// the pool's thread until it exits. `build` fails if it is a pool's thread already.
    pub fn use_current_thread(mut self) -> Self {
        self.use_current_thread = true;
        self
    }

    /// Names the pool's threads (`f` gets the thread index).
    pub fn thread_name<F>(mut self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.get_thread_name = Some(Box::new(closure));
        self
    }

    /// Handles the panics of spawned jobs, which have no caller to propagate to. Without
    /// one, such a panic aborts the process.
    pub fn panic_handler<H>(mut self, panic_handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.panic_handler = Some(Box::new(panic_handler));
        self
    }

    /// The stack size of the pool's threads, in bytes.
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.stack_size = Some(stack_size);
        self
    }

    /// Accepted for compatibility; magpie's deques stay last-in first-out for their owner.
    /// rayon deprecates it in favour of [`crate::scope_fifo`] and [`crate::spawn_fifo`],
    /// which magpie implements.
    #[deprecated(note = "use `scope_fifo` and `spawn_fifo` for similar effect")]
    pub fn breadth_first(mut self) -> Self {
        self.breadth_first = true;
        self
    }

    /// Runs `start_handler` on every thread of the pool as it starts (with its index).
    pub fn start_handler<H>(mut self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.start_handler = Some(Box::new(start_handler));
        self
    }

    /// Runs `exit_handler` on every thread of the pool as it exits (with its index).
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.exit_handler = Some(Box::new(exit_handler));
        self
    }
}

/// magpie's settings on a rayon builder, which rayon's API has no names for.
///
/// ```
/// use rayon_core::MagpieBuilderExt;
/// let pool = rayon_core::ThreadPoolBuilder::new()
///     .num_threads(2)
///     .deque("lcws-user")
///     .victims("sticky")
///     .idle("linear")
///     .build()
///     .unwrap();
/// assert_eq!(pool.magpie().deque().to_string(), "lcws-user");
/// // A bad name fails the build with a message, never a panic.
/// let err = rayon_core::ThreadPoolBuilder::new().deque("nonsense").build().unwrap_err();
/// assert!(err.to_string().contains("nonsense"));
/// ```
pub trait MagpieBuilderExt: Sized {
    /// Applies any of magpie's builder settings.
    fn magpie(self, f: impl FnOnce(magpie::ThreadPoolBuilder) -> magpie::ThreadPoolBuilder)
        -> Self;

    /// The deque, by kind or name (`magpie::ThreadPoolBuilder::deque`).
    fn deque(self, deque: impl IntoDequeKind) -> Self {
        self.magpie(|b| b.deque(deque))
    }

    /// The victim policy, by name (`magpie::ThreadPoolBuilder::victims`).
    fn victims(self, name: &str) -> Self {
        self.magpie(|b| b.victims(name))
    }

    /// The idle policy, by name (`magpie::ThreadPoolBuilder::idle`).
    fn idle(self, name: &str) -> Self {
        self.magpie(|b| b.idle(name))
    }

    /// The join coarsening limit (`magpie::ThreadPoolBuilder::join_push_limit`).
    fn join_push_limit(self, limit: usize) -> Self {
        self.magpie(|b| b.join_push_limit(limit))
    }
}

impl<S> MagpieBuilderExt for ThreadPoolBuilder<S> {
    fn magpie(
        mut self,
        f: impl FnOnce(magpie::ThreadPoolBuilder) -> magpie::ThreadPoolBuilder,
    ) -> Self {
        self.magpie = f(self.magpie);
        self
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::DefaultSpawn {}
    impl<F> Sealed for super::CustomSpawn<F> {}
}

/// How a builder spawns its threads ([`DefaultSpawn`] or [`CustomSpawn`]); sealed, as in
/// rayon-core.
pub trait ThreadSpawn: sealed::Sealed {
    /// Runs `thread` on a new thread.
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()>;
}

/// rayon-core's default spawn: a `std` thread with the builder's name and stack size, which
/// nobody joins.
#[derive(Debug, Default)]
pub struct DefaultSpawn;

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        std_builder(&thread).spawn(|| thread.run())?;
        Ok(())
    }
}

/// A spawn handler given to [`ThreadPoolBuilder::spawn_handler`].
#[derive(Debug)]
pub struct CustomSpawn<F>(F);

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<()> {
        (self.0)(thread)
    }
}

/// A `std` thread builder with the thread's name and stack size where the pool's builder
/// gave them (rayon's default spawn).
fn std_builder(thread: &ThreadBuilder) -> std::thread::Builder {
    let mut b = std::thread::Builder::new();
    if let Some(name) = thread.name() {
        b = b.name(name.to_owned());
    }
    if let Some(bytes) = thread.stack_size() {
        b = b.stack_size(bytes);
    }
    b
}

/// Why a pool could not be built (rayon-core's `ThreadPoolBuildError`).
#[derive(Debug)]
pub struct ThreadPoolBuildError {
    kind: ErrorKind,
}

#[derive(Debug)]
enum ErrorKind {
    GlobalPoolAlreadyInitialized,
    CurrentThreadAlreadyInPool,
    IOError(io::Error),
    /// magpie's configuration (a `MAGPIE_*` variable, a policy name).
    Magpie(BuildError),
}

impl ThreadPoolBuildError {
    /// Whether magpie's configuration (a `MAGPIE_*` variable, a policy name) is what failed.
    pub(crate) fn is_config(&self) -> bool {
        matches!(self.kind, ErrorKind::Magpie(_))
    }
}

impl From<BuildError> for ThreadPoolBuildError {
    fn from(e: BuildError) -> Self {
        let kind = match e {
            BuildError::GlobalAlreadyInitialized => ErrorKind::GlobalPoolAlreadyInitialized,
            BuildError::CurrentThreadInPool => ErrorKind::CurrentThreadAlreadyInPool,
            BuildError::Spawn { source, .. } => ErrorKind::IOError(source),
            other => ErrorKind::Magpie(other),
        };
        ThreadPoolBuildError { kind }
    }
}

impl fmt::Display for ThreadPoolBuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            ErrorKind::CurrentThreadAlreadyInPool => {
                f.write_str("The current thread is already part of another thread pool.")
            }
            ErrorKind::IOError(e) => e.fmt(f),
            ErrorKind::Magpie(e) => write!(f, "magpie: {e}"),
        }
    }
}

impl Error for ThreadPoolBuildError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.kind {
            ErrorKind::IOError(e) => Some(e),
            _ => None,
        }
    }
}

/// rayon-core's deprecated builder.
#[deprecated(note = "Use `ThreadPoolBuilder`")]
#[derive(Default)]
pub struct Configuration {
    builder: ThreadPoolBuilder,
}

#[allow(deprecated)]
impl fmt::Debug for Configuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.builder.fmt(f)
    }
}

#[allow(deprecated)]
impl Configuration {
    /// A configuration with the defaults.
    pub fn new() -> Configuration {
        Configuration::default()
    }

    /// Builds a pool.
    pub fn build(self) -> Result<ThreadPool, Box<dyn Error + 'static>> {
        self.builder.build().map_err(Box::from)
    }

    /// See [`ThreadPoolBuilder::thread_name`].
    pub fn thread_name<F>(mut self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.builder = self.builder.thread_name(closure);
        self
    }

    /// See [`ThreadPoolBuilder::num_threads`].
    pub fn num_threads(mut self, num_threads: usize) -> Configuration {
        self.builder = self.builder.num_threads(num_threads);
        self
    }

    /// See [`ThreadPoolBuilder::panic_handler`].
    pub fn panic_handler<H>(mut self, panic_handler: H) -> Configuration
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.builder = self.builder.panic_handler(panic_handler);
        self
    }

    /// See [`ThreadPoolBuilder::stack_size`].
    pub fn stack_size(mut self, stack_size: usize) -> Self {
        self.builder = self.builder.stack_size(stack_size);
        self
    }

    /// See [`ThreadPoolBuilder::breadth_first`].
    pub fn breadth_first(mut self) -> Self {
        self.builder = self.builder.breadth_first();
        self
    }

    /// See [`ThreadPoolBuilder::start_handler`].
    pub fn start_handler<H>(mut self, start_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.builder = self.builder.start_handler(start_handler);
        self
    }

    /// See [`ThreadPoolBuilder::exit_handler`].
    pub fn exit_handler<H>(mut self, exit_handler: H) -> Configuration
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.builder = self.builder.exit_handler(exit_handler);
        self
    }
}

/// Builds the global pool from a deprecated [`Configuration`].
#[deprecated(note = "use `ThreadPoolBuilder::build_global`")]
#[allow(deprecated)]
pub fn initialize(config: Configuration) -> Result<(), Box<dyn Error>> {
    config.builder.build_global().map_err(Box::from)
}
