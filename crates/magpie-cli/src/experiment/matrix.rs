//! The configurations of an experiment: the lists given to --workers, --deque, --victims
//! and --idle (or their `MAGPIE_*` variables), each element validated by the library's own
//! parsing (through [`Config::resolve_with`], so errors read as everywhere else), the loop
//! schedules of --schedule, and their product. A schedule is a configuration like a deque
//! or a policy: the rows of one application under different schedules are compared with
//! each other (relative time, Welch's test, aggregated result). An application that takes
//! no schedule (a search, a kernel) sees only the other axes: the setups that differ only
//! in the schedule share one [`Setup::config`], and it runs once per such configuration
//! (see [`super::runner::Plan::row_setup`]).
//!
//! List syntax: elements are separated by commas, but a piece of the form `key=value`
//! (an `=` before any `:`) continues the policy before it, which must have parameters
//! (`name:key=value`): `park,linear:min=10us,step=50us,dynamic-quanta` is three policies.

use crate::config::{Config, Flags};

use super::apps::App;
use crate::error::{usage, Failure};
use magpie::loops::Schedule;

/// A runtime other than magpie, run beside it (`--peers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Peer {
    /// rayon's `ThreadPool`, with its default idle behaviour.
    Rayon,
}

impl Peer {
    /// The name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Peer::Rayon => "rayon",
        }
    }
}

/// The peers named by `--peers`.
pub fn peers(list: Option<&str>) -> Result<Vec<Peer>, Failure> {
    let Some(list) = list else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for item in split_plain("--peers", list)? {
        let peer = match item.as_str() {
            "rayon" => Peer::Rayon,
            other => {
                return usage(format!(
                    "--peers: unknown peer {other:?}; expected one of: rayon"
                ))
            }
        };
        out.push(peer);
    }
    Ok(out)
}

/// The runtime of one configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runtime {
    /// A magpie pool.
    Magpie {
        /// The deque's name.
        deque: String,
        /// The victim policy, as given (with its parameters).
        victims: String,
        /// The idle policy, as given (with its parameters).
        idle: String,
    },
    /// A peer runtime.
    Peer(Peer),
}

/// One configuration: a runtime and a worker count, and the global options that give it to
/// a child process.
#[derive(Debug, Clone)]
pub struct Setup {
    /// The runtime.
    pub runtime: Runtime,
    /// The number of workers (threads).
    pub workers: usize,
    /// `--workers N --deque D --victims V --idle I --signal S --join-limit J`: every setting
    /// explicit, so the child's environment cannot change it.
    pub global_flags: Vec<String>,
    /// The loop schedule (canonical) from `--schedule`: given to the loop applications
    /// (`None` without `--schedule`, and for a peer).
    pub schedule: Option<String>,
    /// The configuration of the other axes (runtime, workers, deque, victims, idle), numbered
    /// from 0 in order: the setups that differ only in the schedule share it.
    pub config: usize,
}

impl Setup {
    /// `magpie`, or the peer's name.
    pub fn runtime_name(&self) -> &'static str {
        match &self.runtime {
            Runtime::Magpie { .. } => "magpie",
            Runtime::Peer(p) => p.name(),
        }
    }

    /// The deque, victim and idle policies (`None` for a peer).
    pub fn policies(&self) -> Option<(&str, &str, &str)> {
        match &self.runtime {
            Runtime::Magpie {
                deque,
                victims,
                idle,
            } => Some((deque, victims, idle)),
            Runtime::Peer(_) => None,
        }
    }

    /// The configuration as `app` runs on it, for messages: `2 workers, chase-lev random
    /// park` (`…, schedule gss` for a loop application under a schedule of the axis) or `2
    /// workers, rayon`.
    pub fn describe_for(&self, app: &App) -> String {
        self.describe_with(self.schedule_for(app))
    }

    fn describe_with(&self, schedule: Option<&str>) -> String {
        let schedule = match schedule {
            Some(s) => format!(", schedule {s}"),
            None => String::new(),
        };
        match self.policies() {
            Some((d, v, i)) => format!("{} workers, {d} {v} {i}{schedule}", self.workers),
            None => format!(
                "{} workers, {}{schedule}",
                self.workers,
                self.runtime_name()
            ),
        }
    }

    /// The schedule of the axis this configuration gives `app`: its schedule for a loop
    /// application, none for the others (they take no schedule).
    pub fn schedule_for(&self, app: &App) -> Option<&str> {
        self.schedule.as_deref().filter(|_| app.is_loop())
    }

    /// The options this configuration adds to `app`'s tokens: `--schedule S` for a loop
    /// application under a schedule of the axis, else none.
    pub fn app_flags(&self, app: &App) -> Vec<String> {
        match self.schedule_for(app) {
            Some(s) => vec!["--schedule".to_string(), s.to_string()],
            None => Vec::new(),
        }
    }
}

/// The lists as resolved (for the report's header).
#[derive(Debug, Clone)]
pub struct Lists {
    pub workers: Vec<usize>,
    pub deques: Vec<String>,
    pub victims: Vec<String>,
    pub idle: Vec<String>,
    pub peers: Vec<&'static str>,
    /// The loop schedules of `--schedule` (empty without it).
    pub schedules: Vec<String>,
    /// The exposure signal, as a number.
    pub signal: i32,
    /// `join`'s limit (`eager` or a number).
    pub join_limit: String,
}

/// The experiment's configurations.
#[derive(Debug, Clone)]
pub struct Matrix {
    /// Worker count by worker count (in the order given); within one, every deque × victims
    /// × idle × schedule combination in the order given (the schedules innermost), then the
    /// peers.
    pub setups: Vec<Setup>,
    /// The lists.
    pub lists: Lists,
}

/// A list setting: its elements (`None`: the default) and where it came from.
struct List {
    items: Vec<Option<String>>,
    /// The environment variable, when the list came from it (else the flag, or nothing).
    from_env: Option<&'static str>,
}

/// Splits a plain list (`1,2,4`, `chase-lev,lcws-user`), refusing empty and repeated
/// elements.
pub fn split_plain(flag: &str, list: &str) -> Result<Vec<String>, Failure> {
    let mut out: Vec<String> = Vec::new();
    for piece in list.split(',') {
        let piece = piece.trim();
        if piece.is_empty() {
            return usage(format!("{flag} {list:?}: an element of the list is empty"));
        }
        if out.iter().any(|o| o == piece) {
            return usage(format!("{flag} {list:?}: {piece:?} is listed twice"));
        }
        out.push(piece.to_string());
    }
    Ok(out)
}

/// Splits a list of policy specifications, where `key=value` pieces continue the policy
/// before them (see the module doc).
pub fn split_specs(flag: &str, list: &str) -> Result<Vec<String>, Failure> {
    let mut out: Vec<String> = Vec::new();
    for piece in list.split(',') {
        let piece = piece.trim();
        if piece.is_empty() {
            return usage(format!("{flag} {list:?}: an element of the list is empty"));
        }
        let is_parameter = match (piece.find('='), piece.find(':')) {
            (Some(eq), Some(colon)) => eq < colon,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if is_parameter {
            match out.last_mut() {
                Some(last) if last.contains(':') => {
                    last.push(',');
                    last.push_str(piece);
                }
                _ => {
                    return usage(format!(
                        "{flag} {list:?}: {piece:?} is a parameter (key=value) but does not \
                         follow a policy with parameters (name:key=value)"
                    ))
                }
            }
        } else {
            out.push(piece.to_string());
        }
    }
    for (i, item) in out.iter().enumerate() {
        if out[..i].contains(item) {
            return usage(format!("{flag} {list:?}: {item:?} is listed twice"));
        }
    }
    Ok(out)
}

/// Splits a list of loop schedules (`--schedule ss,4,gss,rws,fac2,static`). Schedules
/// have their own comma (`name,argument`), so an element that is an argument rather than
/// a name continues the schedule before it: an element starting with a digit (a chunk, a
/// percentage, `wf` weights `1:2`) or `fac2` directly after a schedule that
/// [`Schedule`]'s parser reads as taking a steal amount (`rws`, `laws`). Every other
/// element starts a schedule. Each schedule is then parsed (errors name the element) and
/// given in canonical form; repeats are refused.
pub fn split_schedules(flag: &str, list: &str) -> Result<Vec<String>, Failure> {
    let mut pieces: Vec<(String, Option<String>)> = Vec::new();
    for piece in list.split(',') {
        let piece = piece.trim();
        if piece.is_empty() {
            return usage(format!("{flag} {list:?}: an element of the list is empty"));
        }
        // Which schedules take a steal amount is the schedule parser's knowledge, not ours.
        let after_stealing = matches!(
            pieces.last(),
            Some((name, None)) if matches!(
                name.parse::<Schedule>(),
                Ok(Schedule::Rws { .. } | Schedule::Laws { .. })
            )
        );
        let is_argument = piece.starts_with(|c: char| c.is_ascii_digit())
            || (after_stealing && piece.eq_ignore_ascii_case("fac2"));
        if !is_argument {
            pieces.push((piece.to_string(), None));
            continue;
        }
        match pieces.last_mut() {
            Some((_, arg @ None)) => *arg = Some(piece.to_string()),
            Some((name, Some(a))) => {
                return usage(format!(
                    "{flag} {list:?}: {piece:?} is an argument, but {name},{a} already has one"
                ))
            }
            None => {
                return usage(format!(
                    "{flag} {list:?}: {piece:?} is an argument, but no schedule name comes \
                     before it"
                ))
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for (name, arg) in pieces {
        let text = match arg {
            Some(a) => format!("{name},{a}"),
            None => name,
        };
        let s = crate::loops::parse_schedule(flag, &text)?.to_string();
        if out.contains(&s) {
            return usage(format!("{flag} {list:?}: {s:?} is listed twice"));
        }
        out.push(s);
    }
    Ok(out)
}

fn list(
    flag: &Option<String>,
    flag_name: &str,
    var: &'static str,
    env: &dyn Fn(&str) -> Option<String>,
    split: fn(&str, &str) -> Result<Vec<String>, Failure>,
) -> Result<List, Failure> {
    if let Some(v) = flag {
        let items = split(flag_name, v)?;
        return Ok(List {
            items: items.into_iter().map(Some).collect(),
            from_env: None,
        });
    }
    match env(var).filter(|v| !v.trim().is_empty()) {
        Some(v) => Ok(List {
            items: split(var, &v)?.into_iter().map(Some).collect(),
            from_env: Some(var),
        }),
        None => Ok(List {
            items: vec![None],
            from_env: None,
        }),
    }
}

/// The four list settings, in the order workers, deque, victims, idle.
struct Lists4 {
    lists: [List; 4],
}

const VARS: [&str; 4] = [
    "MAGPIE_NUM_WORKERS",
    "MAGPIE_DEQUE",
    "MAGPIE_VICTIMS",
    "MAGPIE_IDLE",
];

impl Lists4 {
    /// Resolves the configuration with element `pick[k]` of list `k`, through the same code
    /// as every other subcommand: a flag element goes in as the flag, an element of a
    /// variable's list as that variable.
    fn resolve(
        &self,
        base: &Flags,
        env: &dyn Fn(&str) -> Option<String>,
        pick: [usize; 4],
    ) -> Result<Config, Failure> {
        let mut flags = Flags {
            signal: base.signal.clone(),
            join_limit: base.join_limit.clone(),
            ..Flags::default()
        };
        let mut from_env: Vec<(&'static str, String)> = Vec::new();
        for (k, list) in self.lists.iter().enumerate() {
            let Some(item) = list.items[pick[k]].clone() else {
                continue;
            };
            match list.from_env {
                Some(var) => from_env.push((var, item)),
                None => {
                    let slot = match k {
                        0 => &mut flags.workers,
                        1 => &mut flags.deque,
                        2 => &mut flags.victims,
                        _ => &mut flags.idle,
                    };
                    *slot = Some(item);
                }
            }
        }
        let lookup = |name: &str| -> Option<String> {
            if let Some((_, v)) = from_env.iter().find(|(var, _)| *var == name) {
                return Some(v.clone());
            }
            // The list variables are taken care of above: one that was not a list source is
            // unset or was overridden by its flag.
            if VARS.contains(&name) {
                return None;
            }
            env(name)
        };
        Config::resolve_with(&flags, &lookup).map_err(|e| Failure::Usage(e.0))
    }
}

impl Matrix {
    /// Resolves the lists of `flags` (over the environment `env`) and their product with
    /// `schedules` (canonical, from [`split_schedules`]; empty: no schedule axis), with one
    /// row per peer and worker count after the magpie rows of that worker count.
    pub fn resolve(
        flags: &Flags,
        peers: &[Peer],
        schedules: &[String],
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Matrix, Failure> {
        let lists = Lists4 {
            lists: [
                list(
                    &flags.workers,
                    "--workers",
                    VARS[0],
                    env,
                    split_plain as fn(&str, &str) -> Result<Vec<String>, Failure>,
                )?,
                list(&flags.deque, "--deque", VARS[1], env, split_plain)?,
                list(&flags.victims, "--victims", VARS[2], env, split_specs)?,
                list(&flags.idle, "--idle", VARS[3], env, split_specs)?,
            ],
        };
        // Every element on its own first (the others at their first element, already
        // checked), so that the error names the bad one.
        for k in 0..4 {
            for i in 0..lists.lists[k].items.len() {
                let mut pick = [0; 4];
                pick[k] = i;
                lists.resolve(flags, env, pick)?;
            }
        }
        let n = lists.lists.each_ref().map(|l| l.items.len());
        let first = lists.resolve(flags, env, [0; 4])?;
        let signal = first.signal.value;
        let join_limit = match first.join_limit.value {
            usize::MAX => "eager".to_string(),
            v => v.to_string(),
        };
        let mut setups = Vec::new();
        // The configurations of the other axes so far (`Setup::config`).
        let mut configs = 0;
        let mut workers_list = Vec::new();
        let (mut deques, mut victims, mut idles) = (Vec::new(), Vec::new(), Vec::new());
        for w in 0..n[0] {
            let mut workers = 0;
            for d in 0..n[1] {
                for v in 0..n[2] {
                    for i in 0..n[3] {
                        let c = lists.resolve(flags, env, [w, d, v, i])?;
                        workers = c.workers.value;
                        let runtime = Runtime::Magpie {
                            deque: c.deque.value.name().to_string(),
                            victims: c.victims.value.clone(),
                            idle: c.idle.value.clone(),
                        };
                        remember(&mut deques, c.deque.value.name());
                        remember(&mut victims, &c.victims.value);
                        remember(&mut idles, &c.idle.value);
                        let config = configs;
                        configs += 1;
                        if schedules.is_empty() {
                            setups.push(setup(runtime.clone(), &c, &join_limit, None, config));
                        }
                        for s in schedules {
                            setups.push(setup(runtime.clone(), &c, &join_limit, Some(s), config));
                        }
                    }
                }
            }
            workers_list.push(workers);
            for &peer in peers {
                // The peer's child still resolves the global options: give it the first
                // magpie configuration's, which are valid.
                let c = lists.resolve(flags, env, [w, 0, 0, 0])?;
                setups.push(setup(Runtime::Peer(peer), &c, &join_limit, None, configs));
                configs += 1;
            }
        }
        if let Some(w) = workers_list
            .iter()
            .enumerate()
            .find_map(|(i, w)| workers_list[..i].contains(w).then_some(*w))
        {
            return usage(format!("--workers: {w} workers are listed twice"));
        }
        Ok(Matrix {
            setups,
            lists: Lists {
                workers: workers_list,
                deques,
                victims,
                idle: idles,
                peers: peers.iter().map(|p| p.name()).collect(),
                schedules: schedules.to_vec(),
                signal,
                join_limit,
            },
        })
    }
}

fn remember(list: &mut Vec<String>, value: &str) {
    if !list.iter().any(|v| v == value) {
        list.push(value.to_string());
    }
}

fn setup(
    runtime: Runtime,
    c: &Config,
    join_limit: &str,
    schedule: Option<&String>,
    config: usize,
) -> Setup {
    let global_flags = vec![
        "--workers".to_string(),
        c.workers.value.to_string(),
        "--deque".to_string(),
        c.deque.value.name().to_string(),
        "--victims".to_string(),
        c.victims.value.clone(),
        "--idle".to_string(),
        c.idle.value.clone(),
        "--signal".to_string(),
        c.signal.value.to_string(),
        "--join-limit".to_string(),
        join_limit.to_string(),
    ];
    Setup {
        runtime,
        workers: c.workers.value,
        global_flags,
        schedule: schedule.cloned(),
        config,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The setup with its schedule, if any (as a loop application runs on it).
    fn describe(s: &Setup) -> String {
        s.describe_with(s.schedule.as_deref())
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn message(r: Result<impl std::fmt::Debug, Failure>) -> String {
        match r {
            Err(Failure::Usage(e)) => e,
            other => panic!("expected a usage error, got {other:?}"),
        }
    }

    #[test]
    fn policy_lists_keep_their_parameters() {
        let s = |l: &str| split_specs("--idle", l).unwrap();
        assert_eq!(s("random,sticky"), ["random", "sticky"]);
        assert_eq!(
            s("park, linear:min=10us,step=50us ,dynamic-quanta"),
            ["park", "linear:min=10us,step=50us", "dynamic-quanta"]
        );
        assert_eq!(
            s("park:spin=0,yield=0,park"),
            ["park:spin=0,yield=0", "park"]
        );
        // A value may contain a colon: the `=` comes first.
        assert_eq!(s("a:levels=2:4,b"), ["a:levels=2:4", "b"]);
        let e = message(split_specs("--idle", "park,spin=3"));
        assert!(e.contains("\"spin=3\"") && e.contains("--idle"), "{e}");
        let e = message(split_specs("--idle", "park,,spin"));
        assert!(e.contains("empty"), "{e}");
        let e = message(split_specs("--victims", "random,random"));
        assert!(e.contains("twice"), "{e}");
        assert_eq!(split_plain("--workers", " 1, 2 ").unwrap(), ["1", "2"]);
    }

    #[test]
    fn schedule_lists_keep_their_arguments() {
        let s = |l: &str| split_schedules("--schedule", l).unwrap();
        assert_eq!(
            s("ss,4,gss,rws,fac2,static"),
            ["ss,4", "gss", "rws,fac2", "static"]
        );
        assert_eq!(
            s("laws, fac2 ,fac2,wf,1:2,static,8"),
            ["laws,fac2", "fac2", "wf,1:2", "static,8"]
        );
        // Canonical forms: default arguments are left out.
        assert_eq!(s("rws,25,dynamic,2,guided"), ["rws", "ss,2", "gss"]);
        let e = message(split_schedules("--schedule", "ss,4,fastest"));
        assert!(e.contains("--schedule") && e.contains("fastest"), "{e}");
        let e = message(split_schedules("--schedule", "ss,0"));
        assert!(e.contains("at least 1"), "{e}");
        let e = message(split_schedules("--schedule", "ss,4,5"));
        assert!(
            e.contains("\"5\" is an argument") && e.contains("ss,4"),
            "{e}"
        );
        let e = message(split_schedules("--schedule", "4,ss"));
        assert!(e.contains("no schedule name"), "{e}");
        let e = message(split_schedules("--schedule", "gss,guided"));
        assert!(e.contains("twice"), "{e}");
        let e = message(split_schedules("--schedule", "gss,,ss"));
        assert!(e.contains("empty"), "{e}");
    }

    #[test]
    fn the_product_in_order_with_peers_per_worker_count() {
        let flags = Flags {
            workers: Some("1,2".into()),
            deque: Some("chase-lev".into()),
            victims: Some("random,sticky".into()),
            idle: Some("park,park:spin=0,yield=0".into()),
            ..Flags::default()
        };
        let m = Matrix::resolve(&flags, &[Peer::Rayon], &[], &no_env).unwrap();
        assert_eq!(m.setups.len(), 2 * (4 + 1));
        // Without a schedule axis, every setup is a configuration of its own.
        let configs: Vec<usize> = m.setups.iter().map(|s| s.config).collect();
        assert_eq!(configs, (0..10).collect::<Vec<_>>());
        let names: Vec<String> = m.setups.iter().map(describe).collect();
        assert_eq!(names[0], "1 workers, chase-lev random park");
        assert_eq!(names[1], "1 workers, chase-lev random park:spin=0,yield=0");
        assert_eq!(names[2], "1 workers, chase-lev sticky park");
        assert_eq!(names[4], "1 workers, rayon");
        assert_eq!(names[5], "2 workers, chase-lev random park");
        assert_eq!(m.lists.workers, [1, 2]);
        assert_eq!(m.lists.idle, ["park", "park:spin=0,yield=0"]);
        let g = &m.setups[1].global_flags;
        let idle = g.iter().position(|f| f == "--idle").unwrap();
        assert_eq!(g[idle + 1], "park:spin=0,yield=0");
    }

    #[test]
    fn schedules_are_an_axis_of_the_configurations() {
        let flags = Flags {
            workers: Some("1,2".into()),
            deque: Some("chase-lev".into()),
            victims: Some("random".into()),
            idle: Some("park,yield".into()),
            ..Flags::default()
        };
        let schedules = split_schedules("--schedule", "ss,4,gss").unwrap();
        let m = Matrix::resolve(&flags, &[Peer::Rayon], &schedules, &no_env).unwrap();
        let names: Vec<String> = m.setups.iter().map(describe).collect();
        assert_eq!(
            names,
            [
                "1 workers, chase-lev random park, schedule ss,4",
                "1 workers, chase-lev random park, schedule gss",
                "1 workers, chase-lev random yield, schedule ss,4",
                "1 workers, chase-lev random yield, schedule gss",
                "1 workers, rayon",
                "2 workers, chase-lev random park, schedule ss,4",
                "2 workers, chase-lev random park, schedule gss",
                "2 workers, chase-lev random yield, schedule ss,4",
                "2 workers, chase-lev random yield, schedule gss",
                "2 workers, rayon",
            ]
        );
        assert_eq!(m.lists.schedules, ["ss,4", "gss"]);
        // The setups that differ only in the schedule share their configuration of the
        // other axes; each peer row is one of its own.
        let configs: Vec<usize> = m.setups.iter().map(|s| s.config).collect();
        assert_eq!(configs, [0, 0, 1, 1, 2, 3, 3, 4, 4, 5]);
    }

    #[test]
    fn every_element_is_checked_and_named() {
        let bad = |flags: Flags| message(Matrix::resolve(&flags, &[], &[], &no_env));
        let e = bad(Flags {
            victims: Some("random,nearest".into()),
            ..Flags::default()
        });
        assert!(
            e.contains("--victims") && e.contains("\"nearest\"") && e.contains("sticky"),
            "{e}"
        );
        let e = bad(Flags {
            idle: Some("park,park:nap=1".into()),
            ..Flags::default()
        });
        assert!(e.contains("nap"), "{e}");
        let e = bad(Flags {
            workers: Some("1,0".into()),
            ..Flags::default()
        });
        assert!(e.contains("--workers 0"), "{e}");
        let e = bad(Flags {
            deque: Some("chase-lev,abp".into()),
            ..Flags::default()
        });
        assert!(e.contains("\"abp\""), "{e}");
        let e = bad(Flags {
            workers: Some("2,02".into()),
            ..Flags::default()
        });
        assert!(e.contains("2 workers are listed twice"), "{e}");
    }

    #[test]
    fn lists_from_the_environment() {
        let env = |name: &str| match name {
            "MAGPIE_VICTIMS" => Some("random,sticky".to_string()),
            "MAGPIE_IDLE" => Some("park,bogus".to_string()),
            "MAGPIE_NUM_WORKERS" => Some("3".to_string()),
            _ => None,
        };
        let e = message(Matrix::resolve(&Flags::default(), &[], &[], &env));
        assert!(e.contains("MAGPIE_IDLE") && e.contains("bogus"), "{e}");
        let flags = Flags {
            idle: Some("park".into()),
            ..Flags::default()
        };
        let m = Matrix::resolve(&flags, &[], &[], &env).unwrap();
        assert_eq!(m.lists.victims, ["random", "sticky"]);
        assert_eq!(m.lists.workers, [3]);
        assert_eq!(m.setups.len(), 2);
    }
}
