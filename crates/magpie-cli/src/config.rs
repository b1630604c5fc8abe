//! The pool configuration of the `magpie` binary: each setting comes from its flag, else
//! its `MAGPIE_*` environment variable, else the library default, and remembers which.
//!
//! The values are resolved here rather than by `ThreadPoolBuilder::from_env()` because
//! `info` and the error messages need the resolved values and where each came from (flag,
//! variable or default), which the builder does not expose. The parsing is the library's
//! own (`DequeKind::from_str`, the policies' `by_name`, `Signal::from_str`, `JoinLimit::from_str`), with the same
//! conventions as `from_env`: values are trimmed and an empty variable counts as unset.

use std::fmt;
use std::os::raw::c_int;

use magpie::deque::DequeKind;
use magpie::policy::{idle, victim, PolicyError};
use magpie::{BuildError, JoinLimit, Signal, ThreadPool, ThreadPoolBuilder, MAX_WORKERS};

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag (its spelling).
    Flag(&'static str),
    /// An environment variable (its name).
    Env(&'static str),
    /// The library default.
    Default,
}

impl Source {
    /// Whether the user chose this value (flag or environment).
    pub fn is_given(self) -> bool {
        !matches!(self, Source::Default)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Flag(s) | Source::Env(s) => f.write_str(s),
            Source::Default => f.write_str("default"),
        }
    }
}

/// A resolved value and its source.
#[derive(Debug, Clone)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

/// The raw strings given on the command line (`None` where the flag is absent).
#[derive(Debug, Default, Clone)]
pub struct Flags {
    /// `--workers`.
    pub workers: Option<String>,
    /// `--deque`.
    pub deque: Option<String>,
    /// `--victims`.
    pub victims: Option<String>,
    /// `--idle`.
    pub idle: Option<String>,
    /// `--signal`.
    pub signal: Option<String>,
    /// `--join-limit`.
    pub join_limit: Option<String>,
}

/// A fully resolved and validated pool configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Number of workers.
    pub workers: Setting<usize>,
    /// The deque.
    pub deque: Setting<DequeKind>,
    /// The victim policy's name.
    pub victims: Setting<String>,
    /// The idle policy's name.
    pub idle: Setting<String>,
    /// The exposure signal of the signal-based deques.
    pub signal: Setting<c_int>,
    /// `join`'s task-coarsening limit (`usize::MAX`: push every join).
    pub join_limit: Setting<usize>,
}

/// A configuration problem: a message naming the bad value and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<BuildError> for ConfigError {
    fn from(e: BuildError) -> Self {
        ConfigError(e.to_string())
    }
}

/// The accepted signal spellings, for help and errors.
pub const SIGNAL_NAMES: &str = "a number, SIGUSR1, SIGUSR2, SIGURG, SIGWINCH or SIGRTMIN+k";

/// Picks the flag, else the (non-empty) environment variable read through `env`.
fn pick(
    flag: &Option<String>,
    flag_name: &'static str,
    var: &'static str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, Source)> {
    if let Some(v) = flag {
        return Some((v.trim().to_string(), Source::Flag(flag_name)));
    }
    env(var)
        .filter(|v| !v.trim().is_empty())
        .map(|v| (v.trim().to_string(), Source::Env(var)))
}

fn unknown(source: Source, what: &str, given: &str, accepted: &[&str]) -> ConfigError {
    ConfigError(format!(
        "{source}: unknown {what} {given:?}; expected one of: {}",
        accepted.join(", ")
    ))
}

impl Config {
    /// Resolves `flags` over the process environment.
    pub fn resolve(flags: &Flags) -> Result<Config, ConfigError> {
        Self::resolve_with(flags, &|name| std::env::var(name).ok())
    }

    /// Resolves `flags` over the environment given by `env` (a lookup by variable name).
    pub fn resolve_with(
        flags: &Flags,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Config, ConfigError> {
        let workers = match pick(&flags.workers, "--workers", "MAGPIE_NUM_WORKERS", env) {
            None => Setting {
                value: std::thread::available_parallelism().map_or(1, |n| n.get()),
                source: Source::Default,
            },
            Some((v, source)) => match v.parse::<usize>() {
                Ok(0) => {
                    return Err(ConfigError(format!(
                        "{source} 0: a pool needs at least 1 worker"
                    )))
                }
                Ok(n) if n > MAX_WORKERS => {
                    return Err(ConfigError(format!(
                        "{source} {n}: more workers than a pool can have (at most {MAX_WORKERS})"
                    )))
                }
                Ok(n) => Setting { value: n, source },
                Err(_) => {
                    return Err(ConfigError(format!(
                        "{source} {v:?}: expected a number of workers (1 to {MAX_WORKERS})"
                    )))
                }
            },
        };

        let deque = match pick(&flags.deque, "--deque", "MAGPIE_DEQUE", env) {
            None => Setting {
                value: DequeKind::default().resolve(),
                source: Source::Default,
            },
            Some((v, source)) => match v.parse::<DequeKind>() {
                Ok(k) => Setting { value: k, source },
                Err(_) => return Err(unknown(source, "deque", &v, &DequeKind::names())),
            },
        };

        let named = |flag: &Option<String>,
                     flag_name: &'static str,
                     var: &'static str,
                     what: &str,
                     names: &[&'static str],
                     parse: &dyn Fn(&str) -> Result<(), PolicyError>|
         -> Result<Setting<String>, ConfigError> {
            match pick(flag, flag_name, var, env) {
                None => Ok(Setting {
                    value: names[0].to_string(),
                    source: Source::Default,
                }),
                Some((v, source)) => match parse(&v) {
                    Ok(()) => Ok(Setting {
                        value: v.trim().to_string(),
                        source,
                    }),
                    Err(PolicyError::UnknownName(_)) => Err(unknown(source, what, v.trim(), names)),
                    Err(PolicyError::Spec(e)) => Err(ConfigError(format!("{source}: {e}"))),
                },
            }
        };
        let victims = named(
            &flags.victims,
            "--victims",
            "MAGPIE_VICTIMS",
            "victim policy",
            victim::NAMES,
            &|n| victim::by_name(n).map(drop),
        )?;
        let idle = named(
            &flags.idle,
            "--idle",
            "MAGPIE_IDLE",
            "idle policy",
            idle::NAMES,
            &|n| idle::by_name(n).map(drop),
        )?;

        let signal = match pick(&flags.signal, "--signal", "MAGPIE_SIGNAL", env) {
            None => Setting {
                value: Signal::default().number(),
                source: Source::Default,
            },
            Some((v, source)) => match v.parse::<Signal>() {
                Ok(s) => Setting {
                    value: s.number(),
                    source,
                },
                Err(_) => {
                    return Err(ConfigError(format!(
                        "{source}: unknown signal {v:?}; expected {SIGNAL_NAMES}"
                    )))
                }
            },
        };

        let join_limit = match pick(&flags.join_limit, "--join-limit", "MAGPIE_JOIN_LIMIT", env) {
            None => Setting {
                value: JoinLimit::default().get(),
                source: Source::Default,
            },
            Some((v, source)) => match v.parse::<JoinLimit>().map(JoinLimit::get) {
                Ok(0) | Err(_) => {
                    return Err(ConfigError(format!(
                        "{source}: bad join limit {v:?}; expected a number of tasks (at least 1) or `eager`"
                    )))
                }
                Ok(n) => Setting { value: n, source },
            },
        };

        Ok(Config {
            workers,
            deque,
            victims,
            idle,
            signal,
            join_limit,
        })
    }

    /// A builder with every setting of this configuration, for `deque` and `workers`.
    pub fn builder(&self, deque: DequeKind, workers: usize) -> ThreadPoolBuilder {
        ThreadPoolBuilder::new()
            .num_workers(workers)
            .deque(deque)
            .victims(&self.victims.value)
            .idle(&self.idle.value)
            .signal(self.signal.value)
            .join_push_limit(self.join_limit.value)
    }

    /// Builds a pool for `deque` and `workers`.
    pub fn build(&self, deque: DequeKind, workers: usize) -> Result<ThreadPool, ConfigError> {
        self.builder(deque, workers)
            .build()
            .map_err(ConfigError::from)
    }
}

/// A signal number as a name where it has one: `SIGUSR1 (10)`, `SIGRTMIN+2 (36)`.
pub fn signal_name(sig: c_int) -> String {
    let name = match sig {
        s if s == libc::SIGUSR1 => "SIGUSR1".to_string(),
        s if s == libc::SIGUSR2 => "SIGUSR2".to_string(),
        s if s == libc::SIGURG => "SIGURG".to_string(),
        s if s == libc::SIGWINCH => "SIGWINCH".to_string(),
        s if s == libc::SIGRTMIN() => "SIGRTMIN".to_string(),
        s if s > libc::SIGRTMIN() && s <= libc::SIGRTMAX() => {
            format!("SIGRTMIN+{}", s - libc::SIGRTMIN())
        }
        s => return format!("signal {s}"),
    };
    format!("{name} ({sig})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn defaults() {
        let c = Config::resolve_with(&Flags::default(), &env_of(&[])).unwrap();
        assert_eq!(c.deque.value.name(), "lcws-user");
        assert_eq!(c.deque.source, Source::Default);
        assert_eq!(c.victims.value, "random");
        assert_eq!(c.idle.value, "park");
        assert_eq!(c.signal.value, libc::SIGUSR1);
        assert!(c.workers.value >= 1);
    }

    #[test]
    fn env_then_flag() {
        let env = env_of(&[
            ("MAGPIE_DEQUE", " chase-lev "),
            ("MAGPIE_NUM_WORKERS", "3"),
            ("MAGPIE_SIGNAL", "SIGUSR2"),
            ("MAGPIE_IDLE", ""),
        ]);
        let c = Config::resolve_with(&Flags::default(), &env).unwrap();
        assert_eq!(c.deque.value.name(), "chase-lev");
        assert_eq!(c.deque.source, Source::Env("MAGPIE_DEQUE"));
        assert_eq!(c.workers.value, 3);
        assert_eq!(c.signal.value, libc::SIGUSR2);
        assert_eq!(
            c.idle.source,
            Source::Default,
            "empty variable counts as unset"
        );

        let flags = Flags {
            deque: Some("lcws-half".into()),
            workers: Some("2".into()),
            ..Flags::default()
        };
        let c = Config::resolve_with(&flags, &env).unwrap();
        assert_eq!(c.deque.value.name(), "lcws-half");
        assert_eq!(c.deque.source, Source::Flag("--deque"));
        assert_eq!(c.workers.value, 2);
    }

    #[test]
    fn flag_overrides_bad_env() {
        let env = env_of(&[("MAGPIE_DEQUE", "nonsense")]);
        assert!(Config::resolve_with(&Flags::default(), &env).is_err());
        let flags = Flags {
            deque: Some("chase-lev".into()),
            ..Flags::default()
        };
        assert!(Config::resolve_with(&flags, &env).is_ok());
    }

    #[test]
    fn errors_name_value_source_and_accepted() {
        let bad = |flags: Flags, env: &'static [(&'static str, &'static str)]| {
            Config::resolve_with(&flags, &env_of(env))
                .unwrap_err()
                .to_string()
        };
        let e = bad(
            Flags {
                deque: Some("nonsense".into()),
                ..Flags::default()
            },
            &[],
        );
        assert!(e.starts_with("--deque: unknown deque \"nonsense\""), "{e}");
        for name in DequeKind::names() {
            assert!(e.contains(name), "{e}");
        }
        let e = bad(Flags::default(), &[("MAGPIE_VICTIMS", "nearest")]);
        assert!(e.contains("MAGPIE_VICTIMS") && e.contains("\"nearest\"") && e.contains("random"));
        let e = bad(Flags::default(), &[("MAGPIE_IDLE", "nap")]);
        assert!(e.contains("\"nap\"") && e.contains("park"), "{e}");
        let e = bad(
            Flags {
                workers: Some("0".into()),
                ..Flags::default()
            },
            &[],
        );
        assert!(e.contains("--workers 0") && e.contains("at least 1"), "{e}");
        let e = bad(
            Flags {
                workers: Some("100000".into()),
                ..Flags::default()
            },
            &[],
        );
        assert!(
            e.contains("--workers 100000") && e.contains("at most 4096"),
            "{e}"
        );
        let e = bad(Flags::default(), &[("MAGPIE_NUM_WORKERS", "4097")]);
        assert!(
            e.contains("MAGPIE_NUM_WORKERS 4097") && e.contains("at most"),
            "{e}"
        );
        let e = bad(Flags::default(), &[("MAGPIE_NUM_WORKERS", "many")]);
        assert!(e.contains("MAGPIE_NUM_WORKERS \"many\""), "{e}");
        let e = bad(
            Flags {
                signal: Some("SIGFOO".into()),
                ..Flags::default()
            },
            &[],
        );
        assert!(e.contains("\"SIGFOO\"") && e.contains("SIGUSR2"), "{e}");
    }

    #[test]
    fn signal_names() {
        assert_eq!(
            signal_name(libc::SIGUSR1),
            format!("SIGUSR1 ({})", libc::SIGUSR1)
        );
        assert!(signal_name(libc::SIGRTMIN() + 2).starts_with("SIGRTMIN+2 "));
        assert_eq!(signal_name(9), "signal 9");
    }
}
