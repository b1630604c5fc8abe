//! The Performance-Driven inter-rank victim policy (Xie, "Performance-Driven Workstealing
//! Policy in YewPar", MSc Glasgow 2023, Ch. 3), at the level of ranks (YewPar's nodes).
//!
//! The formulas and their constants are the core's, [`magpie::policy::victim::PerfVictims`] (the
//! same policy among one pool's workers), under the same parameter names; this module adds
//! the rank's monitor and its backoff after refused steals.
//!
//! - **Worker load** (§3.2.1, `work_rate`): each worker keeps a `workRate`, updated at the
//!   end of every task from the cycle that ended — the idle time before the task and the
//!   task itself, in µs: `rate = ln(e + work/(work+idle)) · ln(e + (work+idle)) · alpha +
//!   rate · (1 − alpha)` (`alpha` = 0.65, `e` = 2.72, start value `rate-start` = 1.0). A
//!   cycle of zero length carries no information and leaves the rate as it was (the core's
//!   rule). A rank's load is the mean of its workers' rates.
//! - **Monitor** (§3.2.2, `smoothed_delay`): a refresh asks every other rank for its load
//!   and its residual task count (the length of its depth pool) and times the round trip:
//!   `delay_i = ln(e + rtt_µs · workers) · alpha + delay_i · (1 − alpha)`, `workers` the
//!   rank's local workers unless the `workers` parameter says otherwise.
//! - **Score** (§3.3, `score`): `score_i = max(load_i, min-load) · tasks_i − delay_i`; the
//!   rank with the highest score is cached as the target if that score is positive, else
//!   nothing is cached and a steal goes to a random rank (as the thesis' code does).
//! - **Refresh** (§3.4, `next_interval`): automatic, with a dynamic interval — after a
//!   refresh whose best score is positive the interval grows by `refresh-good`, otherwise it
//!   shrinks by `refresh-bad`, within [`refresh-min`, `refresh-max`]; the first refresh comes
//!   `refresh-start` after the search starts, and the interval it adjusts starts at
//!   `refresh-min`. Auxiliary — a steal from the cached target that fails starts a refresh
//!   at once (single flight: never a second while one is out), then one more steal at the
//!   new target; if that fails too the rank sleeps before it asks again
//!   ([`RankPerfParams::sleep`], doubling up to [`RankPerfParams::max_sleep`], YewPar's
//!   worker backoff; reset by a successful steal; cut short when an automatic refresh finds a
//!   target worth stealing from).
//!
//! Ranks, not workers, steal from each other in magpie-mpi (the rank's main thread asks on
//! behalf of its idle workers), so the auxiliary refresh is done by the main thread when its
//! rank is idle and the cached target refused — the thesis' "worker that failed" is the rank.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

pub use magpie::policy::victim::PerfParams;
pub(crate) use magpie::policy::victim::{next_interval, score, smoothed_delay, work_rate};

use crate::Error;

/// Every constant of the inter-rank policy (defaults: the thesis' code): the core's
/// [`PerfParams`] and the backoff of a rank whose steals were refused.
///
/// Written `key=value,…` ([`FromStr`]), with the core's keys — `e`, `alpha`, `min-load`,
/// `rate-start`, `refresh-start`, `refresh-good`, `refresh-bad`, `refresh-min`,
/// `refresh-max`, `workers` — and `sleep`, `max-sleep`. Durations take a unit (`ns`, `us`,
/// `ms` or `s`). The names of earlier versions are still accepted: `smoothing` (`alpha`),
/// `initial-rate` (`rate-start`), `start`, `grow`, `shrink`, `min`, `max`
/// (`refresh-start` … `refresh-max`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankPerfParams {
    /// The formulas' constants and the refresh schedule, as the core's policy has them.
    pub formulas: PerfParams,
    /// The first sleep after a failed steal that followed an auxiliary refresh (100 µs).
    pub sleep: Duration,
    /// The longest such sleep (500 ms); each failed round doubles it.
    pub max_sleep: Duration,
}

impl RankPerfParams {
    /// The defaults: the core's [`PerfParams::default`], sleeps of 100 µs up to 500 ms.
    pub fn new() -> RankPerfParams {
        RankPerfParams {
            formulas: PerfParams::default(),
            sleep: Duration::from_micros(100),
            max_sleep: Duration::from_millis(500),
        }
    }

    /// The parameter names accepted by [`RankPerfParams::set`] (the earlier names aside).
    pub const KEYS: [&'static str; 12] = [
        "e",
        "alpha",
        "min-load",
        "rate-start",
        "refresh-start",
        "refresh-good",
        "refresh-bad",
        "refresh-min",
        "refresh-max",
        "workers",
        "sleep",
        "max-sleep",
    ];

    /// Sets the parameter `key` from `value` (a number; durations take a unit: `ns`, `us`,
    /// `ms` or `s`). The constraints between parameters are checked by
    /// [`RankPerfParams::validate`] ([`FromStr`] calls it).
    ///
    /// ```
    /// use magpie_mpi::perf::RankPerfParams;
    /// use std::time::Duration;
    /// let mut p = RankPerfParams::default();
    /// p.set("refresh-max", "1s").unwrap();
    /// p.set("smoothing", "0.5").unwrap(); // the earlier name of alpha
    /// assert_eq!(p.formulas.refresh_max, Duration::from_secs(1));
    /// assert_eq!(p.formulas.alpha, 0.5);
    /// assert!(p.set("shrink", "3").unwrap_err().to_string().contains("unit"));
    /// assert!(p.set("speed", "1").unwrap_err().to_string().contains("alpha"));
    /// ```
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), Error> {
        let number = |v: &str| -> Result<f64, Error> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| Error::NotANumber {
                    key: key.to_string(),
                    value: v.to_string(),
                })
        };
        let duration = |v: &str| -> Result<Duration, Error> {
            if v.trim().parse::<f64>().is_ok() {
                return Err(Error::NeedsUnit {
                    key: key.to_string(),
                    value: v.to_string(),
                });
            }
            magpie::policy::parse_duration(v).ok_or_else(|| Error::NotANumber {
                key: key.to_string(),
                value: v.to_string(),
            })
        };
        let f = &mut self.formulas;
        match key {
            "e" => f.e = number(value)?,
            "alpha" | "smoothing" => f.alpha = number(value)?,
            "min-load" => f.min_load = number(value)?,
            "rate-start" | "initial-rate" => f.rate_start = number(value)?,
            "refresh-start" | "start" => f.refresh_start = duration(value)?,
            "refresh-good" | "grow" => f.refresh_good = duration(value)?,
            "refresh-bad" | "shrink" => f.refresh_bad = duration(value)?,
            "refresh-min" | "min" => f.refresh_min = duration(value)?,
            "refresh-max" | "max" => f.refresh_max = duration(value)?,
            "workers" => {
                let w = number(value)?;
                if w.fract() != 0.0 {
                    return Err(Error::NotANumber {
                        key: key.to_string(),
                        value: value.to_string(),
                    });
                }
                f.workers = Some(w as usize);
            }
            "sleep" => self.sleep = duration(value)?,
            "max-sleep" => self.max_sleep = duration(value)?,
            other => return Err(Error::unknown("perf parameter", other, &Self::KEYS)),
        }
        Ok(())
    }

    /// Checks the constraints on and between the parameters: the core's
    /// [`PerfParams::validate`] (`e` ≥ 1, `alpha` in (0, 1], `min-load` > 0, `refresh-min`
    /// ≤ `refresh-max`, `workers` ≥ 1).
    pub fn validate(&self) -> Result<(), Error> {
        Ok(self.formulas.validate()?)
    }
}

impl Default for RankPerfParams {
    fn default() -> Self {
        RankPerfParams::new()
    }
}

impl fmt::Display for RankPerfParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.formulas;
        write!(
            f,
            "e={},alpha={},min-load={},rate-start={},refresh-start={}us,refresh-good={}us,\
             refresh-bad={}us,refresh-min={}us,refresh-max={}us,sleep={}us,max-sleep={}us",
            p.e,
            p.alpha,
            p.min_load,
            p.rate_start,
            p.refresh_start.as_micros(),
            p.refresh_good.as_micros(),
            p.refresh_bad.as_micros(),
            p.refresh_min.as_micros(),
            p.refresh_max.as_micros(),
            self.sleep.as_micros(),
            self.max_sleep.as_micros()
        )?;
        if let Some(w) = p.workers {
            write!(f, ",workers={w}")?;
        }
        Ok(())
    }
}

impl FromStr for RankPerfParams {
    type Err = Error;

    /// `key=value` pairs separated by commas (empty: the defaults), then
    /// [`RankPerfParams::validate`].
    ///
    /// ```
    /// use magpie_mpi::perf::RankPerfParams;
    /// let p: RankPerfParams = "refresh-min=1ms,grow=10ms".parse().unwrap();
    /// assert_eq!(p.formulas.refresh_good.as_millis(), 10);
    /// assert_eq!(p.to_string().parse::<RankPerfParams>(), Ok(p));
    /// assert!("alpha=0".parse::<RankPerfParams>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Error> {
        let mut p = RankPerfParams::default();
        for pair in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            let (k, v) = pair.split_once('=').ok_or_else(|| Error::NotKeyValue {
                item: pair.to_string(),
            })?;
            p.set(k.trim(), v.trim())?;
        }
        p.validate()?;
        Ok(p)
    }
}

/// Where an idle rank's stealing stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Steal from the cached target (or a random rank if none).
    Steal,
    /// The cached target refused: wait for the auxiliary refresh.
    AwaitRefresh,
    /// The auxiliary refresh is done: one more steal; a refusal means sleep.
    LastChance,
    /// Sleeping until the instant (or a good automatic refresh).
    Sleep(Instant),
}

/// One rank's performance monitor and policy state (driven by the rank's main thread).
#[derive(Debug)]
pub struct Monitor {
    params: RankPerfParams,
    rank: i32,
    local_workers: usize,
    load: Vec<f64>,
    tasks: Vec<u64>,
    delay: Vec<f64>,
    replied: Vec<bool>,
    best: Option<i32>,
    interval: Duration,
    next_refresh: Instant,
    /// When the refresh in flight was sent, and how many replies it still waits for.
    in_flight: Option<(Instant, usize)>,
    aux_wanted: bool,
    phase: Phase,
    next_sleep: Duration,
    /// Refreshes done: automatic, auxiliary.
    pub refreshes: (u64, u64),
}

impl Monitor {
    /// The monitor of `rank` of `size` ranks, with `local_workers` workers, from `now`.
    /// (The `workers` parameter, if given, replaces `local_workers` in the delays.)
    pub fn new(params: RankPerfParams, rank: i32, size: i32, local_workers: usize) -> Monitor {
        let n = size.max(1) as usize;
        let f = &params.formulas;
        Monitor {
            params,
            rank,
            local_workers: f.workers.unwrap_or(local_workers).max(1),
            load: vec![f.rate_start; n],
            tasks: vec![0; n],
            delay: vec![0.0; n],
            replied: vec![false; n],
            best: None,
            interval: f.refresh_min,
            next_refresh: Instant::now() + f.refresh_start,
            in_flight: None,
            aux_wanted: false,
            phase: Phase::Steal,
            next_sleep: params.sleep,
            refreshes: (0, 0),
        }
    }

    /// The cached target, if the last refresh found one worth stealing from.
    pub fn target(&self) -> Option<i32> {
        self.best
    }

    /// Whether a refresh should be sent now (automatic, or auxiliary; never two at once).
    pub fn refresh_due(&self, now: Instant) -> bool {
        self.in_flight.is_none() && (self.aux_wanted || now >= self.next_refresh)
    }

    /// A refresh was sent to every other rank at `now`.
    pub fn refresh_sent(&mut self, now: Instant) {
        let others = self.load.len() - 1;
        self.replied.iter_mut().for_each(|r| *r = false);
        self.in_flight = Some((now, others));
        if self.aux_wanted {
            self.aux_wanted = false;
            self.refreshes.1 += 1;
        } else {
            self.refreshes.0 += 1;
        }
    }

    /// Rank `from`'s answer to the refresh in flight: its load and residual tasks, at `now`.
    /// When the last answer is in, scores are computed, the target cached and the next
    /// automatic refresh scheduled.
    pub fn reply(&mut self, from: i32, load: f64, tasks: u64, now: Instant) {
        let Some((sent, waiting)) = self.in_flight else {
            return;
        };
        let i = from as usize;
        if i >= self.load.len() || i == self.rank as usize || self.replied[i] {
            return;
        }
        self.replied[i] = true;
        self.load[i] = load;
        self.tasks[i] = tasks;
        let rtt_ns = u64::try_from((now - sent).as_nanos()).unwrap_or(u64::MAX);
        let f = &self.params.formulas;
        self.delay[i] = smoothed_delay(self.delay[i], rtt_ns, self.local_workers, f);
        if waiting > 1 {
            self.in_flight = Some((sent, waiting - 1));
            return;
        }
        self.in_flight = None;
        let best = (0..self.load.len())
            .filter(|&r| r != self.rank as usize)
            .map(|r| {
                let tasks = usize::try_from(self.tasks[r]).unwrap_or(usize::MAX);
                (r, score(self.load[r], tasks, self.delay[r], f))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let good = matches!(best, Some((_, s)) if s > 0.0);
        self.best = best.filter(|_| good).map(|(r, _)| r as i32);
        self.interval = next_interval(self.interval, good, f);
        self.next_refresh = now + self.interval;
        self.phase = match self.phase {
            Phase::AwaitRefresh => Phase::LastChance,
            Phase::Sleep(_) if good => Phase::LastChance,
            p => p,
        };
    }

    /// Whether the idle rank may send a steal request now.
    pub fn may_steal(&mut self, now: Instant) -> bool {
        match self.phase {
            Phase::Steal | Phase::LastChance => true,
            Phase::AwaitRefresh => false,
            Phase::Sleep(until) if now >= until => {
                self.phase = Phase::Steal;
                true
            }
            Phase::Sleep(_) => false,
        }
    }

    /// What a steal request at `victim` gave, at `now`.
    pub fn outcome(&mut self, victim: i32, got_work: bool, now: Instant) {
        if got_work {
            self.phase = Phase::Steal;
            self.next_sleep = self.params.sleep;
            return;
        }
        if self.best == Some(victim) {
            // Stale: do not ask it again before the next refresh says so.
            self.best = None;
        }
        self.phase = match self.phase {
            Phase::LastChance => {
                let until = now + self.next_sleep;
                self.next_sleep = (self.next_sleep * 2).min(self.params.max_sleep);
                Phase::Sleep(until)
            }
            _ => {
                self.aux_wanted = true;
                Phase::AwaitRefresh
            }
        };
    }

    /// The current automatic refresh interval.
    pub fn interval(&self) -> Duration {
        self.interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A monitor with the default parameters for `rank` of `ranks` ranks of `workers`
    /// workers each, its parameters (and their formulas'), and the time its first refresh
    /// is due.
    fn monitor(
        rank: i32,
        ranks: i32,
        workers: usize,
    ) -> (RankPerfParams, PerfParams, Monitor, Instant) {
        let p = RankPerfParams::default();
        let m = Monitor::new(p, rank, ranks, workers);
        (p, p.formulas, m, Instant::now() + p.formulas.refresh_start)
    }

    fn refresh(m: &mut Monitor, now: Instant, answers: &[(i32, f64, u64)], rtt: Duration) {
        assert!(m.refresh_due(now));
        m.refresh_sent(now);
        for &(r, load, tasks) in answers {
            m.reply(r, load, tasks, now + rtt);
        }
    }

    #[test]
    fn the_score_picks_the_loaded_rank_with_work() {
        let (_, f, mut m, t) = monitor(0, 4, 1);
        // Rank 2: few tasks but heavily loaded; rank 3: many tasks, lightly loaded.
        refresh(
            &mut m,
            t,
            &[(1, 9.0, 0), (2, 9.0, 3), (3, 1.0, 40)],
            Duration::from_micros(100),
        );
        // delays: ln(2.72 + 100)·0.65 ≈ 3.01; scores: −3.01, 24.0, 37.0.
        assert_eq!(m.target(), Some(3));
        assert_eq!(m.interval(), f.refresh_min + f.refresh_good);
        assert!((m.delay[1] - (2.72f64 + 100.0).ln() * 0.65).abs() < 1e-9);
    }

    #[test]
    fn nothing_is_cached_when_no_score_is_positive_and_the_interval_shrinks() {
        let (_, f, mut m, t) = monitor(1, 3, 2);
        refresh(&mut m, t, &[(0, 9.0, 5), (2, 1.0, 1)], Duration::ZERO);
        assert_eq!(m.target(), Some(0));
        let grown = m.interval();
        let t2 = t + grown;
        assert!(!m.refresh_due(t2 - Duration::from_micros(1)));
        refresh(&mut m, t2, &[(0, 9.0, 0), (2, 1.0, 0)], Duration::ZERO);
        assert_eq!(m.target(), None);
        assert_eq!(
            m.interval(),
            grown.saturating_sub(f.refresh_bad).max(f.refresh_min)
        );
    }

    #[test]
    fn a_refused_steal_refreshes_once_then_tries_once_more_then_sleeps() {
        let (p, _, mut m, t) = monitor(0, 3, 1);
        refresh(&mut m, t, &[(1, 5.0, 10), (2, 1.0, 0)], Duration::ZERO);
        assert_eq!(m.target(), Some(1));
        assert!(m.may_steal(t));
        m.outcome(1, false, t);
        assert_eq!(m.target(), None, "a refusing target is dropped");
        assert!(!m.may_steal(t), "waits for the auxiliary refresh");
        assert!(m.refresh_due(t));
        m.refresh_sent(t);
        assert!(!m.refresh_due(t), "single flight");
        assert_eq!(m.refreshes, (1, 1));
        m.reply(1, 5.0, 0, t);
        assert!(!m.may_steal(t), "still one answer out");
        m.reply(2, 1.0, 0, t);
        assert!(m.may_steal(t), "one more steal after the refresh");
        m.outcome(2, false, t);
        assert!(!m.may_steal(t + p.sleep / 2), "then it sleeps");
        assert!(m.may_steal(t + p.sleep));
        // The next round sleeps twice as long; a success resets it.
        m.outcome(2, false, t);
        m.refresh_sent(t);
        m.reply(1, 1.0, 0, t);
        m.reply(2, 1.0, 0, t);
        m.outcome(1, false, t);
        assert!(!m.may_steal(t + p.sleep));
        assert!(m.may_steal(t + p.sleep * 2));
        m.outcome(1, true, t);
        assert_eq!(m.next_sleep, p.sleep);
    }

    #[test]
    fn a_good_refresh_cuts_a_sleep_short() {
        let (_, _, mut m, t) = monitor(0, 2, 1);
        m.outcome(1, false, t);
        refresh(&mut m, t, &[(1, 1.0, 0)], Duration::ZERO);
        m.outcome(1, false, t);
        assert!(!m.may_steal(t));
        let later = t + m.interval();
        refresh(&mut m, later, &[(1, 9.0, 10)], Duration::ZERO);
        assert!(m.may_steal(later));
        assert_eq!(m.target(), Some(1));
    }

    #[test]
    fn the_core_names_the_earlier_names_and_the_cores_own_parser_agree() {
        let core = "e=3,alpha=0.5,min-load=0.01,rate-start=2,refresh-start=2ms,\
                    refresh-good=10ms,refresh-bad=20ms,refresh-min=1ms,refresh-max=1s";
        let earlier = "e=3,smoothing=0.5,min-load=0.01,initial-rate=2,start=2ms,grow=10ms,\
                       shrink=20ms,min=1ms,max=1s";
        let a: RankPerfParams = core.parse().unwrap();
        let b: RankPerfParams = earlier.parse().unwrap();
        assert_eq!(a, b);
        let mut spec: magpie::policy::PolicySpec = format!("perf:{core}").parse().unwrap();
        assert_eq!(PerfParams::from_spec(&mut spec).unwrap(), a.formulas);
        assert_eq!(a.to_string().parse::<RankPerfParams>(), Ok(a));
        // Checked once all keys are in, by the core's rules.
        assert!("min=300ms,max=1s".parse::<RankPerfParams>().is_ok());
        let e = "alpha=1.5"
            .parse::<RankPerfParams>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("alpha=1.5"), "{e}");
        let e = "grow=5".parse::<RankPerfParams>().unwrap_err().to_string();
        assert_eq!(e, "perf parameter grow: \"5\" needs a unit (us, ms or s)");
    }

    #[test]
    fn work_rate_follows_the_formula() {
        let p = RankPerfParams::default();
        let f = p.formulas;
        let cycle = |idle_ns, work_ns| magpie::policy::victim::TaskCycle { idle_ns, work_ns };
        let r = work_rate(1.0, cycle(100_000, 300_000), &f);
        let expect = (2.72f64 + 0.75).ln() * (2.72f64 + 400.0).ln() * 0.65 + 0.35;
        assert!((r - expect).abs() < 1e-9);
        // A cycle of zero length leaves the rate as it was (the core's rule).
        assert_eq!(work_rate(r, cycle(0, 0), &f), r);
        assert_eq!(p, RankPerfParams::default());
    }
}
