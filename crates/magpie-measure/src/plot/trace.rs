//! A trace file (Chrome trace-event JSON, the format of `--trace`) as the pictures need it:
//! the (rank, worker) rows, the state spans, the chunks and the successful steals.
//! Events and categories the pictures do not use are ignored.

use std::collections::BTreeSet;

use serde_json::Value;

use super::InputError;

/// What a worker is doing, as the pictures colour it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    /// Running a task or a loop chunk (`task`, `chunk` spans).
    Working,
    /// A run of failed steal attempts (`steal` spans).
    Stealing,
    /// Spinning, yielding, backing off or dozing (`idle`, `doze` spans).
    Idle,
    /// Parked (`park` spans).
    Parked,
}

impl State {
    /// Every state, in the order of the legends and of the stacked utilisation.
    pub const ALL: [State; 4] = [State::Working, State::Stealing, State::Idle, State::Parked];

    /// The state's name in legends.
    pub fn name(self) -> &'static str {
        match self {
            State::Working => "working",
            State::Stealing => "stealing",
            State::Idle => "idle",
            State::Parked => "parked",
        }
    }

    /// The state of a span of category `cat`, if the pictures draw it.
    fn of_category(cat: &str) -> Option<State> {
        match cat {
            "task" | "chunk" => Some(State::Working),
            "steal" => Some(State::Stealing),
            "idle" | "doze" => Some(State::Idle),
            "park" => Some(State::Parked),
            _ => None,
        }
    }
}

/// A loop chunk: iterations `[start, end)`, `size` of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// First iteration.
    pub start: u64,
    /// One past the last iteration.
    pub end: u64,
    /// Iterations in the chunk.
    pub size: u64,
}

/// A span of one worker in one state, times in microseconds since the recording started.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    /// Index into [`Trace::rows`].
    pub row: usize,
    /// Start, µs.
    pub start: f64,
    /// End, µs.
    pub end: f64,
    /// The state.
    pub state: State,
    /// The chunk, for a `chunk` span.
    pub chunk: Option<Chunk>,
}

/// A trace, as the pictures draw it.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The rows: (rank, worker), sorted.
    pub rows: Vec<(u64, u64)>,
    /// The spans, in file order.
    pub spans: Vec<Span>,
    /// Successful steals: (row, time in µs).
    pub steals: Vec<(usize, f64)>,
    /// The end of the last span or event, µs (0 for an empty trace).
    pub end: f64,
    /// The recorded command (`otherData.command`), if any.
    pub command: Option<String>,
}

impl Trace {
    /// Whether the trace has `chunk` spans (a loop's trace).
    pub fn has_chunks(&self) -> bool {
        self.spans.iter().any(|s| s.chunk.is_some())
    }

    /// Whether there is more than one rank (the rows' labels then name the rank).
    pub fn several_ranks(&self) -> bool {
        self.rows.first().map(|r| r.0) != self.rows.last().map(|r| r.0)
    }

    /// The label of row `i`: `w3`, or `r1 w3` with several ranks.
    pub fn row_label(&self, i: usize) -> String {
        let (rank, worker) = self.rows[i];
        if self.several_ranks() {
            format!("r{rank} w{worker}")
        } else {
            format!("w{worker}")
        }
    }

    /// Per row, the innermost state in time order: non-overlapping `(start, end, state)`
    /// segments. Spans nest (a worker steals while its task waits at a join): where spans
    /// overlap, the one that started later (the inner one) is what the worker does.
    pub fn segments(&self) -> Vec<Vec<(f64, f64, State)>> {
        let mut per_row: Vec<Vec<&Span>> = vec![Vec::new(); self.rows.len()];
        for s in &self.spans {
            per_row[s.row].push(s);
        }
        per_row
            .into_iter()
            .map(|mut spans| {
                // Outer spans first at equal starts.
                spans.sort_by(|a, b| a.start.total_cmp(&b.start).then(b.end.total_cmp(&a.end)));
                let mut out: Vec<(f64, f64, State)> = Vec::new();
                let mut emit = |from: f64, to: f64, state: State| {
                    if to <= from {
                        return;
                    }
                    match out.last_mut() {
                        Some(last) if last.2 == state && last.1 == from => last.1 = to,
                        _ => out.push((from, to, state)),
                    }
                };
                let mut stack: Vec<&Span> = Vec::new();
                let mut now = f64::NEG_INFINITY;
                for s in spans {
                    while let Some(top) = stack.last().filter(|t| t.end <= s.start) {
                        emit(now, top.end, top.state);
                        now = now.max(top.end);
                        stack.pop();
                    }
                    if let Some(top) = stack.last() {
                        emit(now, s.start, top.state);
                    }
                    now = now.max(s.start);
                    stack.push(s);
                }
                while let Some(top) = stack.pop() {
                    emit(now, top.end, top.state);
                    now = now.max(top.end);
                }
                out
            })
            .collect()
    }
}

fn number(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// The trace of `events` (each with its line), with `otherData` (`workers` × `ranks` rows
/// are shown even if some recorded nothing).
pub(crate) fn from_events(
    events: &[(usize, Value)],
    other: Option<&Value>,
) -> Result<Trace, InputError> {
    let mut rows: BTreeSet<(u64, u64)> = BTreeSet::new();
    if let Some(o) = other {
        let n = |k: &str| o.get(k).and_then(Value::as_u64);
        if let Some(workers) = n("workers").filter(|&w| w <= 4096) {
            for rank in 0..n("ranks").unwrap_or(1).clamp(1, 1024) {
                rows.extend((0..workers).map(|w| (rank, w)));
            }
        }
    }
    // (rank, worker, start, end, state, chunk) and (rank, worker, time) of steals.
    let mut spans = Vec::new();
    let mut steals = Vec::new();
    let mut end: f64 = 0.0;
    for (line, e) in events {
        let line = *line;
        let Some(ph) = e.get("ph").and_then(Value::as_str) else {
            return Err(InputError::at(line, "a trace event without \"ph\""));
        };
        let cat = e.get("cat").and_then(Value::as_str).unwrap_or("");
        let name = e.get("name").and_then(Value::as_str).unwrap_or("");
        let id = |what: &str| -> Result<(u64, u64), InputError> {
            let get = |k: &str| {
                e.get(k).and_then(Value::as_u64).ok_or_else(|| {
                    InputError::at(
                        line,
                        format!("{what} without a whole, non-negative \"{k}\""),
                    )
                })
            };
            Ok((get("pid")?, get("tid")?))
        };
        let time = |k: &str, what: &str| -> Result<f64, InputError> {
            number(e, k)
                .filter(|t| t.is_finite() && *t >= 0.0)
                .ok_or_else(|| {
                    InputError::at(
                        line,
                        format!("{what} without a non-negative number \"{k}\""),
                    )
                })
        };
        match ph {
            "X" => {
                let Some(state) = State::of_category(cat) else {
                    continue;
                };
                let what = format!("a `{cat}` span");
                let (rank, worker) = id(&what)?;
                let ts = time("ts", &what)?;
                let dur = time("dur", &what)?;
                let chunk = if cat == "chunk" {
                    let args = e.get("args");
                    let arg = |k: &str| args.and_then(|a| a.get(k)).and_then(Value::as_u64);
                    match (arg("start"), arg("end")) {
                        (Some(start), Some(stop)) if stop >= start => Some(Chunk {
                            start,
                            end: stop,
                            size: arg("size").unwrap_or(stop - start),
                        }),
                        _ => {
                            return Err(InputError::at(
                                line,
                                "a `chunk` span without args {\"start\":i,\"end\":j} (j >= i)",
                            ))
                        }
                    }
                } else {
                    None
                };
                rows.insert((rank, worker));
                end = end.max(ts + dur);
                spans.push((rank, worker, ts, ts + dur, state, chunk));
            }
            "i" | "I" if cat == "steal" && name == "steal" => {
                let (rank, worker) = id("a `steal` instant")?;
                let ts = time("ts", "a `steal` instant")?;
                rows.insert((rank, worker));
                end = end.max(ts);
                steals.push((rank, worker, ts));
            }
            // A worker's row, even if it recorded nothing; a distributed trace's `comm`
            // thread (a rank's MPI messages) is not a worker.
            "M" if name == "thread_name" => {
                let thread = e
                    .get("args")
                    .and_then(|a| a.get("name"))
                    .and_then(Value::as_str);
                if thread != Some("comm") {
                    rows.insert(id("a thread_name event")?);
                }
            }
            _ => {}
        }
    }
    let rows: Vec<(u64, u64)> = rows.into_iter().collect();
    let row = |rank: u64, worker: u64| {
        rows.binary_search(&(rank, worker))
            .expect("every span's row was inserted")
    };
    Ok(Trace {
        spans: spans
            .into_iter()
            .map(|(r, w, start, end, state, chunk)| Span {
                row: row(r, w),
                start,
                end,
                state,
                chunk,
            })
            .collect(),
        steals: steals.into_iter().map(|(r, w, t)| (row(r, w), t)).collect(),
        rows,
        end,
        command: other
            .and_then(|o| o.get("command"))
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace(spans: &[(u64, f64, f64, &str)]) -> Trace {
        let events: Vec<(usize, Value)> = spans
            .iter()
            .enumerate()
            .map(|(i, &(tid, ts, dur, cat))| {
                (
                    i + 1,
                    serde_json::json!({"ph":"X","cat":cat,"name":cat,"pid":0,"tid":tid,"ts":ts,"dur":dur}),
                )
            })
            .collect();
        from_events(&events, None).unwrap()
    }

    #[test]
    fn inner_spans_win_and_the_outer_resumes() {
        // A task [0, 100) that steals during [20, 30) and runs a stolen task [30, 60).
        let t = trace(&[
            (0, 0.0, 100.0, "task"),
            (0, 20.0, 10.0, "steal"),
            (0, 30.0, 30.0, "task"),
            (1, 5.0, 10.0, "park"),
        ]);
        let s = t.segments();
        assert_eq!(
            s[0],
            [
                (0.0, 20.0, State::Working),
                (20.0, 30.0, State::Stealing),
                (30.0, 100.0, State::Working)
            ]
        );
        assert_eq!(s[1], [(5.0, 15.0, State::Parked)]);
        assert_eq!(t.end, 100.0);
        assert_eq!(t.rows, [(0, 0), (0, 1)]);
    }

    #[test]
    fn unknown_events_are_ignored_and_bad_spans_named_by_line() {
        let events = vec![
            (
                1,
                serde_json::json!({"ph":"X","cat":"gpu","name":"x","ts":"soon"}),
            ),
            (2, serde_json::json!({"ph":"s","cat":"mpi","id":3})),
        ];
        assert!(from_events(&events, None).unwrap().spans.is_empty());
        let bad = vec![(
            7,
            serde_json::json!({"ph":"X","cat":"task","pid":0,"tid":0,"ts":1}),
        )];
        assert_eq!(
            from_events(&bad, None).unwrap_err().to_string(),
            "line 7: a `task` span without a non-negative number \"dur\""
        );
    }

    #[test]
    fn a_distributed_traces_comm_thread_is_not_a_row() {
        let events: Vec<(usize, Value)> = [
            serde_json::json!({"ph":"M","name":"thread_name","pid":0,"tid":0,"args":{"name":"worker 0"}}),
            serde_json::json!({"ph":"M","name":"thread_name","pid":0,"tid":1,"args":{"name":"comm"}}),
            serde_json::json!({"ph":"M","name":"thread_name","pid":1,"tid":0,"args":{"name":"worker 0"}}),
            serde_json::json!({"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"comm"}}),
            serde_json::json!({"ph":"X","cat":"mpi","name":"steal request sent","pid":1,"tid":1,"ts":5,"dur":0}),
            serde_json::json!({"ph":"X","cat":"task","name":"task","pid":1,"tid":0,"ts":0,"dur":9}),
        ]
        .into_iter()
        .enumerate()
        .collect();
        let t = from_events(&events, None).unwrap();
        assert_eq!(t.rows, [(0, 0), (1, 0)]);
    }
}
