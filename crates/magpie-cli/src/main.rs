//! `magpie`: the command-line front end of the magpie work-stealing runtime.
//!
//! Exit codes: 0 success, 1 a demo result was wrong, 2 bad configuration or usage.

mod config;
mod demo;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use magpie::deque::DequeKind;
use magpie::policy::{idle, victim};

use config::{signal_name, Config, Flags, Setting, SIGNAL_NAMES};

/// The accepted names of every setting, shown after `--help` and by `info`.
fn accepted_names() -> String {
    format!(
        "Accepted names:\n  deques:   {}\n  victims:  {}\n  idle:     {}\n  signals:  {SIGNAL_NAMES}\n\n\
         Every option can also be set by its environment variable; a flag wins over the variable.\n\
         Exit codes: 0 ok, 1 a demo result was wrong, 2 bad configuration.",
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
    /// A short fork-join tour over the deques, every result checked
    ///
    /// Runs fib(30), nqueens(10), a quicksort of 1M u64 and a sum of 10M u64 on every deque
    /// (or only --deque / MAGPIE_DEQUE) with 1 and 2 workers (or only --workers /
    /// MAGPIE_NUM_WORKERS), checks each result against its known or sequential value and
    /// prints time and scheduler counters (steals, exposure requests, fences, CAS).
    Demo {
        /// Small sizes: a few seconds instead of about half a minute
        #[arg(long)]
        quick: bool,
    },
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
    println!();
    println!("{}", accepted_names());
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let flags = Flags {
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
    let config = match Config::resolve(&flags) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    match cli.command {
        Command::Info => {
            info(&config);
            ExitCode::SUCCESS
        }
        Command::Demo { quick } => match demo::demo(&config, quick) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => fail(e),
        },
    }
}
