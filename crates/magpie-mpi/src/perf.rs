//! The Performance-Driven inter-rank victim policy (Xie, "Performance-Driven Workstealing
//! Policy in YewPar", MSc Glasgow 2023, Ch. 3), at the level of ranks (YewPar's nodes).
//!
//! - **Worker load** (§3.2.1): each worker keeps a `workRate`, updated at the end of every
//!   task from the cycle that ended — the idle time before the task and the task itself, in
//!   µs: `rate = ln(e + work/(work+idle)) · ln(e + (work+idle)) · s + rate · (1 − s)`
//!   ([`PerfParams::smoothing`] `s` = 0.65, [`PerfParams::e`] = 2.72, start value
//!   [`PerfParams::initial_rate`] = 1.0). A rank's load is the mean of its workers' rates.
//! - **Monitor** (§3.2.2): a refresh asks every other rank for its load and its residual
//!   task count (the length of its depth pool) and times the round trip:
//!   `delay_i = ln(e + rtt_µs · local_workers) · s + delay_i · (1 − s)`.
//! - **Score** (§3.3): `score_i = max(load_i, min_load) · tasks_i − delay_i`; the rank with the
//!   highest score is cached as the target if that score is positive, else nothing is cached
//!   and a steal goes to a random rank (as the thesis' code does).
//! - **Refresh** (§3.4): automatic, with a dynamic interval — after a refresh whose best
//!   score is positive the interval grows by [`PerfParams::grow`], otherwise it shrinks by
//!   [`PerfParams::shrink`], within [[`PerfParams::min_interval`], [`PerfParams::max_interval`]],
//!   the first one [`PerfParams::start`] after the search starts; and auxiliary — a steal
//!   from the cached target that fails starts a refresh at once (single flight: never a
//!   second while one is out), then one more steal at the new target; if that fails too the
//!   rank sleeps before it asks again ([`PerfParams::sleep`], doubling up to
//!   [`PerfParams::max_sleep`], YewPar's worker backoff; reset by a successful steal; cut
//!   short when an automatic refresh finds a target worth stealing from).
//!
//! Ranks, not workers, steal from each other in magpie-mpi (the rank's main thread asks on
//! behalf of its idle workers), so the auxiliary refresh is done by the main thread when its
//! rank is idle and the cached target refused — the thesis' "worker that failed" is the rank.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

/// Every constant of the policy (defaults: the thesis' code).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerfParams {
    /// The weight of a new sample in the exponential smoothing of rates and delays (0.65).
    pub smoothing: f64,
    /// The constant added inside each logarithm (2.72).
    pub e: f64,
    /// The floor of a rank's load in the score (0.0001).
    pub min_load: f64,
    /// A worker's rate before its first task (1.0).
    pub initial_rate: f64,
    /// The first automatic refresh, after the start (1 ms).
    pub start: Duration,
    /// Added to the refresh interval after a good refresh (60 ms).
    pub grow: Duration,
    /// Taken from the refresh interval after a bad refresh (120 ms).
    pub shrink: Duration,
    /// The shortest refresh interval (5 ms).
    pub min_interval: Duration,
    /// The longest refresh interval (240 ms).
    pub max_interval: Duration,
    /// The first sleep after a failed steal that followed an auxiliary refresh (100 µs).
    pub sleep: Duration,
    /// The longest such sleep (500 ms); each failed round doubles it.
    pub max_sleep: Duration,
}

impl Default for PerfParams {
    fn default() -> Self {
        PerfParams {
            smoothing: 0.65,
            e: 2.72,
            min_load: 0.0001,
            initial_rate: 1.0,
            start: Duration::from_millis(1),
            grow: Duration::from_millis(60),
            shrink: Duration::from_millis(120),
            min_interval: Duration::from_millis(5),
            max_interval: Duration::from_millis(240),
            sleep: Duration::from_micros(100),
            max_sleep: Duration::from_millis(500),
        }
    }
}

impl PerfParams {
    /// The parameter names accepted by [`PerfParams::set`].
    pub const KEYS: [&'static str; 11] = [
        "smoothing",
        "e",
        "min-load",
        "initial-rate",
        "start",
        "grow",
        "shrink",
        "min",
        "max",
        "sleep",
        "max-sleep",
    ];

    /// Sets the parameter `key` from `value` (a number; durations take a unit: `us`, `ms`
    /// or `s`).
    ///
    /// ```
    /// use magpie_mpi::perf::PerfParams;
    /// use std::time::Duration;
    /// let mut p = PerfParams::default();
    /// p.set("max", "1s").unwrap();
    /// p.set("smoothing", "0.5").unwrap();
    /// assert_eq!(p.max_interval, Duration::from_secs(1));
    /// assert!(p.set("shrink", "3").unwrap_err().contains("unit"));
    /// assert!(p.set("speed", "1").unwrap_err().contains("smoothing"));
    /// ```
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let number = |v: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| format!("perf parameter {key}: {v:?} is not a non-negative number"))
        };
        let duration = |v: &str| -> Result<Duration, String> {
            let (digits, scale) = if let Some(d) = v.strip_suffix("us") {
                (d, 1e-6)
            } else if let Some(d) = v.strip_suffix("ms") {
                (d, 1e-3)
            } else if let Some(d) = v.strip_suffix('s') {
                (d, 1.0)
            } else {
                return Err(format!(
                    "perf parameter {key}: {v:?} needs a unit (us, ms or s)"
                ));
            };
            Ok(Duration::from_secs_f64(number(digits)? * scale))
        };
        match key {
            "smoothing" => {
                let s = number(value)?;
                if s > 1.0 {
                    return Err(format!("perf parameter smoothing: {s} is above 1"));
                }
                self.smoothing = s;
            }
            "e" => self.e = number(value)?,
            "min-load" => self.min_load = number(value)?,
            "initial-rate" => self.initial_rate = number(value)?,
            "start" => self.start = duration(value)?,
            "grow" => self.grow = duration(value)?,
            "shrink" => self.shrink = duration(value)?,
            "min" => self.min_interval = duration(value)?,
            "max" => self.max_interval = duration(value)?,
            "sleep" => self.sleep = duration(value)?,
            "max-sleep" => self.max_sleep = duration(value)?,
            other => {
                return Err(format!(
                    "unknown perf parameter {other:?}; expected one of {}",
                    Self::KEYS.join(", ")
                ))
            }
        }
        if self.min_interval > self.max_interval {
            return Err(format!(
                "perf parameters: min {:?} is above max {:?}",
                self.min_interval, self.max_interval
            ));
        }
        Ok(())
    }

    /// A worker's new rate after a cycle of `idle` then `work` (§3.2.1, times in µs).
    ///
    /// ```
    /// use magpie_mpi::perf::PerfParams;
    /// use std::time::Duration;
    /// let p = PerfParams::default();
    /// let busy = p.work_rate(1.0, Duration::ZERO, Duration::from_millis(1));
    /// let idle = p.work_rate(1.0, Duration::from_micros(900), Duration::from_micros(100));
    /// assert!(busy > idle);
    /// ```
    pub fn work_rate(&self, rate: f64, idle: Duration, work: Duration) -> f64 {
        let work = work.as_secs_f64() * 1e6;
        let cycle = work + idle.as_secs_f64() * 1e6;
        let share = if cycle > 0.0 { work / cycle } else { 0.0 };
        let sample = (self.e + share).ln() * (self.e + cycle).ln();
        sample * self.smoothing + rate * (1.0 - self.smoothing)
    }

    /// A rank's new smoothed delay after a round trip of `rtt` (§3.2.2).
    pub fn delay(&self, delay: f64, rtt: Duration, local_workers: usize) -> f64 {
        let sample = (self.e + rtt.as_secs_f64() * 1e6 * local_workers as f64).ln();
        sample * self.smoothing + delay * (1.0 - self.smoothing)
    }

    /// The score of a rank (§3.3).
    pub fn score(&self, load: f64, tasks: u64, delay: f64) -> f64 {
        load.max(self.min_load) * tasks as f64 - delay
    }
}

impl fmt::Display for PerfParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "smoothing={},e={},min-load={},initial-rate={},start={}us,grow={}us,shrink={}us,\
             min={}us,max={}us,sleep={}us,max-sleep={}us",
            self.smoothing,
            self.e,
            self.min_load,
            self.initial_rate,
            self.start.as_micros(),
            self.grow.as_micros(),
            self.shrink.as_micros(),
            self.min_interval.as_micros(),
            self.max_interval.as_micros(),
            self.sleep.as_micros(),
            self.max_sleep.as_micros()
        )
    }
}

impl FromStr for PerfParams {
    type Err = String;

    /// `key=value` pairs separated by commas (empty: the defaults).
    ///
    /// ```
    /// use magpie_mpi::perf::PerfParams;
    /// let p: PerfParams = "min=1ms,grow=10ms".parse().unwrap();
    /// assert_eq!(p.grow.as_millis(), 10);
    /// assert_eq!(p.to_string().parse::<PerfParams>(), Ok(p));
    /// ```
    fn from_str(s: &str) -> Result<Self, String> {
        let mut p = PerfParams::default();
        for pair in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| format!("perf parameter {pair:?} is not key=value"))?;
            p.set(k.trim(), v.trim())?;
        }
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
    params: PerfParams,
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
    pub fn new(params: PerfParams, rank: i32, size: i32, local_workers: usize) -> Monitor {
        let n = size.max(1) as usize;
        Monitor {
            params,
            rank,
            local_workers: local_workers.max(1),
            load: vec![params.initial_rate; n],
            tasks: vec![0; n],
            delay: vec![0.0; n],
            replied: vec![false; n],
            best: None,
            interval: params.min_interval,
            next_refresh: Instant::now() + params.start,
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
        self.delay[i] = self
            .params
            .delay(self.delay[i], now - sent, self.local_workers);
        if waiting > 1 {
            self.in_flight = Some((sent, waiting - 1));
            return;
        }
        self.in_flight = None;
        let best = (0..self.load.len())
            .filter(|&r| r != self.rank as usize)
            .map(|r| {
                let s = self
                    .params
                    .score(self.load[r], self.tasks[r], self.delay[r]);
                (r, s)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let good = matches!(best, Some((_, s)) if s > 0.0);
        self.best = best.filter(|_| good).map(|(r, _)| r as i32);
        self.interval = if good {
            (self.interval + self.params.grow).min(self.params.max_interval)
        } else {
            self.interval
                .saturating_sub(self.params.shrink)
                .max(self.params.min_interval)
        };
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

    fn refresh(m: &mut Monitor, now: Instant, answers: &[(i32, f64, u64)], rtt: Duration) {
        assert!(m.refresh_due(now));
        m.refresh_sent(now);
        for &(r, load, tasks) in answers {
            m.reply(r, load, tasks, now + rtt);
        }
    }

    #[test]
    fn the_score_picks_the_loaded_rank_with_work() {
        let p = PerfParams::default();
        let mut m = Monitor::new(p, 0, 4, 1);
        let t = Instant::now() + p.start;
        // Rank 2: few tasks but heavily loaded; rank 3: many tasks, lightly loaded.
        refresh(
            &mut m,
            t,
            &[(1, 9.0, 0), (2, 9.0, 3), (3, 1.0, 40)],
            Duration::from_micros(100),
        );
        // delays: ln(2.72 + 100)·0.65 ≈ 3.01; scores: −3.01, 24.0, 37.0.
        assert_eq!(m.target(), Some(3));
        assert_eq!(m.interval(), p.min_interval + p.grow);
        assert!((m.delay[1] - (2.72f64 + 100.0).ln() * 0.65).abs() < 1e-9);
    }

    #[test]
    fn nothing_is_cached_when_no_score_is_positive_and_the_interval_shrinks() {
        let p = PerfParams::default();
        let mut m = Monitor::new(p, 1, 3, 2);
        let t = Instant::now() + p.start;
        refresh(&mut m, t, &[(0, 9.0, 5), (2, 1.0, 1)], Duration::ZERO);
        assert_eq!(m.target(), Some(0));
        let grown = m.interval();
        let t2 = t + grown;
        assert!(!m.refresh_due(t2 - Duration::from_micros(1)));
        refresh(&mut m, t2, &[(0, 9.0, 0), (2, 1.0, 0)], Duration::ZERO);
        assert_eq!(m.target(), None);
        assert_eq!(
            m.interval(),
            grown.saturating_sub(p.shrink).max(p.min_interval)
        );
    }

    #[test]
    fn a_refused_steal_refreshes_once_then_tries_once_more_then_sleeps() {
        let p = PerfParams::default();
        let mut m = Monitor::new(p, 0, 3, 1);
        let t = Instant::now() + p.start;
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
        let p = PerfParams::default();
        let mut m = Monitor::new(p, 0, 2, 1);
        let t = Instant::now() + p.start;
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
    fn work_rate_follows_the_formula() {
        let p = PerfParams::default();
        let r = p.work_rate(1.0, Duration::from_micros(100), Duration::from_micros(300));
        let expect = (2.72f64 + 0.75).ln() * (2.72f64 + 400.0).ln() * 0.65 + 0.35;
        assert!((r - expect).abs() < 1e-9);
    }
}
