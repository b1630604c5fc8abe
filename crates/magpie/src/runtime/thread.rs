//! [`ThreadBuilder`]: one worker thread of a pool about to start, handed to a spawn handler
//! (`ThreadPoolBuilder::build_with_spawn_handler`, `build_scoped`) that runs it on a thread
//! of its choosing.

use std::fmt;
use std::io;
use std::thread::JoinHandle;

use super::worker::{main_loop, WorkerSeed};
use super::DEFAULT_STACK_SIZE;

/// A worker of a pool that is being built, waiting for a thread: a spawn handler receives one
/// per worker and must call [`ThreadBuilder::run`] on a new thread (the thread then is that
/// worker until the pool shuts down). The name and stack size are what the pool's builder
/// was given, for the handler to apply.
///
/// ```
/// use std::sync::Mutex;
/// let handles = Mutex::new(Vec::new());
/// let pool = magpie::ThreadPoolBuilder::new()
///     .num_workers(2)
///     .thread_name(|i| format!("mine-{i}"))
///     .build_with_spawn_handler(|worker| {
///         let name = worker.name().unwrap().to_string();
///         let h = std::thread::Builder::new().name(name).spawn(|| worker.run())?;
///         handles.lock().unwrap().push(h);
///         Ok(())
///     })
///     .unwrap();
/// let name = pool.install(|| std::thread::current().name().unwrap().to_string());
/// assert!(name.starts_with("mine-"));
/// drop(pool); // the workers exit; join the threads
/// for h in handles.into_inner().unwrap() {
///     h.join().unwrap();
/// }
/// ```
pub struct ThreadBuilder {
    name: Option<String>,
    stack_size: Option<usize>,
    seed: WorkerSeed,
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index())
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

impl ThreadBuilder {
    pub(crate) fn new(name: Option<String>, stack_size: Option<usize>, seed: WorkerSeed) -> Self {
        ThreadBuilder {
            name,
            stack_size,
            seed,
        }
    }

    /// The index of this worker in its pool.
    pub fn index(&self) -> usize {
        self.seed.index
    }

    /// The name the builder's `thread_name` gave this worker, if it was given one.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The stack size the builder was given, if it was given one.
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the worker on the current thread until its pool shuts down (and it finished the
    /// jobs already queued); its start and exit handlers run here.
    pub fn run(self) {
        main_loop(self.seed)
    }

    /// Runs the worker on a new `std` thread named `magpie-worker-{index}` unless the
    /// builder named it, with the builder's stack size or [`DEFAULT_STACK_SIZE`] (the
    /// pools' default spawn).
    pub(crate) fn spawn_std(self) -> io::Result<JoinHandle<()>> {
        self.std_builder().spawn(move || self.run())
    }

    /// The `std` thread builder with this worker's name and stack size.
    pub(crate) fn std_builder(&self) -> std::thread::Builder {
        let name = match &self.name {
            Some(n) => n.clone(),
            None => format!("magpie-worker-{}", self.index()),
        };
        std::thread::Builder::new()
            .name(name)
            .stack_size(self.stack_size.unwrap_or(DEFAULT_STACK_SIZE))
    }
}
