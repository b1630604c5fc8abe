//! `magpie`: the command-line front end of the magpie work-stealing runtime.
//!
//! Subcommands: `demo` (a checked tour of the search applications), `search` (one exact
//! search with a chosen skeleton, see `search.rs`), `loop` (a loop application with a
//! chosen schedule, see `loops.rs`), `experiment policies` (timed
//! comparisons of configurations, see `experiment/`), `plot` (pictures of traces, incumbent
//! logs and reports, see `plot.rs`), `omp` (an OpenMP program on libmagpie_omp, see
//! `omp.rs`) and `info`.
//!
//! Exit codes: 0 success; 1 a result failed its check (a bug: `demo` or `search` computed a
//! wrong answer, `loop`'s result differs from the sequential one, or a measured process of `experiment` failed); 2 bad configuration, usage
//! or input (a one-line `magpie: error: …`).

mod config;
mod counters;
mod demo;
mod error;
mod experiment;
mod incumbents;
mod loops;
mod omp;
mod plot;
mod search;
mod stop;
mod trace;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use magpie::deque::DequeKind;
use magpie::policy::{idle, victim};

use config::{signal_name, Config, Flags, Setting, SIGNAL_NAMES};

/// The accepted names of every setting, shown after `--help` and by `info`.
fn accepted_names() -> String {
    format!(
        "Accepted names:\n  deques:   {}\n  victims:  {}\n  idle:     {}\n  signals:  {SIGNAL_NAMES}\n\n\
         Every option can also be set by its environment variable; a flag wins over the variable.\n\
         Exit codes: 0 ok, 1 a result failed its check, 2 bad configuration, usage or input.",
        DequeKind::names().join(", "),
        victim::NAMES.join(", "),
        idle::NAMES.join(", "),
    )
}

fn deque_help() -> String {
    format!(
        "Deque: {} [env: MAGPIE_DEQUE] [default: {}]",
        DequeKind::names().join(", "),
        DequeKind::default().name()
    )
}

fn victims_help() -> String {
    format!(
        "Victim-selection policy: {} [env: MAGPIE_VICTIMS] [default: {}]",
        victim::NAMES.join(", "),
        victim::NAMES[0]
    )
}

fn idle_help() -> String {
    format!(
        "Idle policy: {} [env: MAGPIE_IDLE] [default: {}]",
        idle::NAMES.join(", "),
        idle::NAMES[0]
    )
}

/// magpie: a work-stealing runtime for irregular parallel work.
#[derive(Debug, Parser)]
#[command(
    name = "magpie",
    version,
    after_help = accepted_names(),
    subcommand_required = true,
    arg_required_else_help = true
)]
struct Cli {
    /// Number of worker threads [env: MAGPIE_NUM_WORKERS] [default: one per CPU]
    #[arg(long, global = true, value_name = "N")]
    workers: Option<String>,

    #[arg(long, global = true, value_name = "NAME", help = deque_help())]
    deque: Option<String>,

    #[arg(long, global = true, value_name = "NAME", help = victims_help())]
    victims: Option<String>,

    #[arg(long, global = true, value_name = "NAME", help = idle_help())]
    idle: Option<String>,

    /// Exposure signal of the lcws-signal/-conservative/-half deques: a number or SIGUSR1,
    /// SIGUSR2, SIGURG, SIGWINCH, SIGRTMIN+k [env: MAGPIE_SIGNAL] [default: SIGUSR1]
    #[arg(long, global = true, value_name = "SIG")]
    signal: Option<String>,

    /// join makes its second closure a task only while the worker holds fewer than N private
    /// tasks (or a thief asked for work); `eager` pushes every join [env: MAGPIE_JOIN_LIMIT]
    /// [default: 4]
    #[arg(long, global = true, value_name = "N|eager")]
    join_limit: Option<String>,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// A tour of the search applications (about ten seconds), every result checked
    ///
    /// Runs UTS T1, numerical semigroups to genus 30, N-Queens 13 and maximum clique on a
    /// generated random graph, each sequentially on one worker and then in parallel on every
    /// deque (or only --deque) with --workers workers, checks every result against its known
    /// value and prints them as a table (about ten seconds on two cores).
    Demo {
        /// Small sizes: a fraction of a second instead of about ten seconds
        #[arg(long)]
        quick: bool,
    },
    /// Run one exact search (max clique, knapsack, TSP, UTS, numerical semigroups,
    /// N-Queens) with a chosen skeleton
    ///
    /// Runs the application's search on a pool built from the global options (--workers,
    /// --deque, --victims, --idle, --signal, --join-limit), checks the answer and prints it
    /// with the time and the node counts, as text or (--json) as one JSON object.
    #[command(after_help = search::after_help())]
    Search(Box<search::SearchArgs>),
    /// Run a loop application (mandelbrot, dist, dist-d, histogram, spmv) with a chosen loop
    /// schedule
    ///
    /// Runs the application's parallel loop for --steps time steps through one loop handle
    /// (adaptive schedules and selectors learn across the steps) on a pool built from the
    /// global options (--workers, --deque, ...), checks the result against the sequential
    /// version and prints the times, the loop statistics (chunks, steals, c.o.v. of the
    /// workers' busy times) and the result, as text or (--json) as one JSON object.
    #[command(after_help = loops::after_help())]
    Loop(Box<loops::LoopArgs>),
    /// Timed experiments over lists of configurations (`experiment policies --help`)
    ///
    /// `experiment policies` runs every combination of the comma-separated lists given to
    /// --workers, --deque, --victims and --idle on one or more applications, each run in
    /// fresh processes, and reports the times with confidence intervals, the pools'
    /// counters, Welch t-tests and the aggregated result.
    Experiment(experiment::ExperimentArgs),
    /// Draw a trace, an incumbent log or a run-time report as a PNG or SVG picture
    #[command(after_help = plot::AFTER_HELP)]
    Plot(plot::PlotArgs),
    /// Run an OpenMP program (gcc -fopenmp, unchanged) on magpie's OpenMP runtime
    ///
    /// Runs PROG with libmagpie_omp (crates/magpie-omp) as its OpenMP runtime: as
    /// libgomp.so.1 through LD_LIBRARY_PATH when its libgomp.so.1 form is built, else by
    /// LD_PRELOAD; the global pool options become OMP_NUM_THREADS and MAGPIE_* for it.
    #[command(after_help = omp::AFTER_HELP)]
    Omp(omp::OmpArgs),
    /// Print the configuration that would be used and the accepted names
    Info,
}

fn show<T>(s: &Setting<T>, value: impl std::fmt::Display) -> String {
    format!("{value:<20} ({})", s.source)
}

fn info(c: &Config) {
    println!("magpie {}", env!("CARGO_PKG_VERSION"));
    println!("workers  {}", show(&c.workers, c.workers.value));
    println!("deque    {}", show(&c.deque, c.deque.value.name()));
    println!("victims  {}", show(&c.victims, &c.victims.value));
    println!("idle     {}", show(&c.idle, &c.idle.value));
    println!("signal   {}", show(&c.signal, signal_name(c.signal.value)));
    let limit = match c.join_limit.value {
        usize::MAX => "eager".to_string(),
        n => n.to_string(),
    };
    println!("join     {}", show(&c.join_limit, limit));
    println!("omp      {}", omp::info_line());
    println!();
    println!("{}", accepted_names());
}

fn main() -> ExitCode {
    // The matches are kept for `experiment policies`, whose application options belong to
    // the `--app` they follow (their positions are in the matches only).
    reset_sigpipe();
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => return clap_exit(e),
    };
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let mut flags = Flags {
        workers: cli.workers,
        deque: cli.deque,
        victims: cli.victims,
        idle: cli.idle,
        signal: cli.signal,
        join_limit: cli.join_limit,
    };
    let fail = |e: config::ConfigError| {
        eprintln!("magpie: error: {e}");
        ExitCode::from(2)
    };
    if let Command::Experiment(experiment::ExperimentArgs {
        command: experiment::ExperimentCommand::Policies(args),
    }) = &cli.command
    {
        // The pool options are lists here: the experiment resolves each element itself.
        let m = matches
            .subcommand_matches("experiment")
            .and_then(|m| m.subcommand_matches("policies"))
            .expect("clap parsed `experiment policies`");
        return error::Failure::exit_code(experiment::policies(args, m, &flags), true);
    }
    if let Command::Loop(args) = &mut cli.command {
        // A distributed loop's `--victims coordinator|random` is the inter-rank victim choice
        // of steal mode (as `--remote-victims`); the pool's workers keep their default (or
        // MAGPIE_VICTIMS). In share mode, and for other names, it is the pool's policy.
        let inter_rank = flags
            .victims
            .as_deref()
            .map(str::trim)
            .filter(|v| ["coordinator", "random"].contains(v));
        let share = args
            .mode
            .as_deref()
            .is_some_and(|m| m.trim().eq_ignore_ascii_case("share"));
        if args.distributed && !share {
            if let (Some(v), Some(r)) = (inter_rank, &args.remote_victims) {
                // Both name the inter-rank choice: refuse rather than pick one silently.
                return fail(config::ConfigError(format!(
                    "--victims {v} and --remote-victims {}: a distributed steal loop takes \
                     --victims {v} as its inter-rank victim choice, so give it once \
                     (--remote-victims alone)",
                    r.trim()
                )));
            }
            if inter_rank.is_some() {
                args.remote_victims = flags.victims.take();
            }
        }
    }
    let config = match Config::resolve(&flags) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    match cli.command {
        Command::Info => {
            info(&config);
            ExitCode::SUCCESS
        }
        Command::Plot(args) => error::Failure::exit_code(plot::run(&args), true),
        Command::Omp(args) => omp::run(&args, &flags, &config),
        Command::Demo { quick } => match demo::demo(&config, quick) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => fail(e),
        },
        Command::Search(args) if args.distributed => distributed(&args, &config),
        Command::Search(args) => error::Failure::exit_code(search::run(&args, &config), true),
        Command::Loop(args) if args.distributed => distributed_loop(&args, &config),
        Command::Loop(args) => error::Failure::exit_code(loops::run(&args, &config), true),
        Command::Experiment(experiment::ExperimentArgs { command }) => match command {
            experiment::ExperimentCommand::RunOne(args) => {
                error::Failure::exit_code(experiment::run_one(&args, &config), true)
            }
            experiment::ExperimentCommand::Policies(_) => unreachable!("handled above"),
        },
    }
}

/// Restores the default action of `SIGPIPE` (the Rust runtime ignores it), so that a write
/// to a closed pipe (`magpie info | head -3`) ends the process quietly, as every Unix tool
/// does, instead of failing the write with `EPIPE` and panicking in `println!`. The child
/// processes of `magpie experiment` inherit the default too.
fn reset_sigpipe() {
    // SAFETY: `signal` with `SIG_DFL` installs no Rust code as a handler; it runs before any
    // other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A clap error as the one line `magpie: error: …` (exit 2), its tip (`a similar argument
/// exists: '--skeleton'`) and the missing arguments kept on that line; `--help`,
/// `--version` and a bare `magpie` print clap's full text as usual.
fn clap_exit(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    eprintln!("magpie: error: {}", one_line(&e.render().to_string()));
    ExitCode::from(2)
}

/// Clap's multi-line error text in one line: the `error:` line, the lines indented under it
/// (missing arguments, tips), without the usage and the `--help` hint.
fn one_line(rendered: &str) -> String {
    let mut parts = Vec::new();
    for line in rendered.lines() {
        let t = line.trim();
        if t.starts_with("Usage:") || t.starts_with("For more information") {
            break;
        }
        if !t.is_empty() {
            parts.push(t.strip_prefix("error: ").unwrap_or(t).to_string());
        }
    }
    let mut line = String::new();
    for p in parts {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(&p);
    }
    line
}

/// `magpie search … --distributed`: over MPI when built with the `mpi` feature.
#[cfg(feature = "mpi")]
fn distributed(args: &search::SearchArgs, config: &Config) -> ExitCode {
    search::distributed::run(args, config)
}

/// `magpie loop … --distributed`: over MPI when built with the `mpi` feature.
#[cfg(feature = "mpi")]
fn distributed_loop(args: &loops::LoopArgs, config: &Config) -> ExitCode {
    loops::distributed::run(args, config)
}

/// `magpie loop … --distributed` in a build without MPI: one clear error.
#[cfg(not(feature = "mpi"))]
fn distributed_loop(_: &loops::LoopArgs, _: &Config) -> ExitCode {
    no_mpi()
}

/// `magpie search … --distributed` in a build without MPI: one clear error.
#[cfg(not(feature = "mpi"))]
fn distributed(_: &search::SearchArgs, _: &Config) -> ExitCode {
    no_mpi()
}

/// The error of `--distributed` in a build without the `mpi` feature.
#[cfg(not(feature = "mpi"))]
fn no_mpi() -> ExitCode {
    eprintln!(
        "magpie: error: --distributed: this magpie was built without MPI; build it with \
         `cargo build --release -p magpie-cli --features mpi` (needs the system's MPI, on \
         Debian: apt-get install libopenmpi-dev openmpi-bin libclang-dev)"
    );
    ExitCode::from(2)
}

#[cfg(test)]
mod tests {
    /// clap's own consistency checks over the whole command line, the application flags the
    /// registry declares included: a flag an application adds cannot clash with a command's
    /// own option or another application's (clap checks this in debug builds only, when the
    /// command is built, so a test is where it is caught before a user runs into it).
    #[test]
    fn the_command_line_passes_clap_s_checks() {
        use clap::CommandFactory;
        let cmd = super::Cli::command();
        // clap lets a subcommand's own argument shadow a global one of the same name, so
        // that clash is checked here: `magpie search APP --workers 2` must stay the pool's.
        let globals: Vec<String> = cmd
            .get_arguments()
            .filter(|a| a.is_global_set())
            .map(|a| a.get_id().to_string())
            .collect();
        for o in magpie_apps::registry::app_options() {
            let id = o.flag.trim_start_matches('-');
            assert!(
                !globals.iter().any(|g| g == id),
                "the application flag {} shadows the global option --{id}",
                o.flag
            );
        }
        cmd.debug_assert();
    }
}
