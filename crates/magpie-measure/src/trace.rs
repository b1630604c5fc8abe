//! The one Chrome trace-event codec of magpie's traces (`--trace FILE` of `magpie search`,
//! `magpie loop` and `magpie-bench forkjoin`): [`write_chrome`] writes [`magpie::Trace`]s as
//! a trace-event JSON object that Perfetto (<https://ui.perfetto.dev>) and
//! `chrome://tracing` open; [`TraceFile`] creates the file before the run, so that a bad path
//! fails at once.
//!
//! The format (fixed; `docs/observability.md` describes it for users):
//!
//! ```text
//! {"traceEvents":[ ... ],
//!  "displayTimeUnit":"ms",
//!  "otherData":{"magpie_trace":1,"command":"magpie search …","workers":2,"ranks":1}}
//! ```
//!
//! `ts` and `dur` are microseconds since the start of the recording; `pid` is the process
//! (the MPI rank, 0 for a local run), `tid` the worker index. Metadata events name each
//! process and worker; spans are complete events (`"ph":"X"`), instants thread-scoped
//! instant events (`"ph":"i","s":"t"`). The category and name of each event are
//! [`magpie::trace::EventKind::category`] and [`magpie::trace::EventKind::name`]; the
//! arguments: a chunk's `start`, `end`, `size` (iterations `[start, end)`), a run of steal
//! attempts' `attempts`, a steal's, exposure request's or signal's `victim`, a mark's own.
//! A distributed run ([`write_chrome_ranks`]) gives each process one more thread, `comm`
//! (`tid` = its number of workers), with one zero-length `mpi` span per message and flow
//! events (`"ph":"s"` at the sender, `"ph":"f"` with `"bp":"e"` at the receiver, one `id`)
//! between the two ends of a message.
//!
//! ```
//! use magpie_measure::trace::{write_chrome, Meta, Process};
//!
//! let pool = magpie::ThreadPoolBuilder::new().num_workers(2).build().unwrap();
//! pool.start_trace();
//! pool.scope(|s| s.spawn(|_| {}));
//! let trace = pool.take_trace();
//! let meta = Meta { command: "example".into(), workers: 2, ranks: 1 };
//! let mut out = Vec::new();
//! write_chrome(&[Process::rank(0, &trace)], &meta, &mut out).unwrap();
//! let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
//! assert_eq!(json["otherData"]["magpie_trace"], 1);
//! let tasks = json["traceEvents"].as_array().unwrap().iter()
//!     .filter(|e| e["ph"] == "X" && e["cat"] == "task").count();
//! assert_eq!(tasks, 2); // the spawned job and the scope's own
//! ```

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use magpie::trace::{Event, EventKind};
use magpie::Trace;
use serde_json::{json, Map, Value};

/// What the file says about the run (its `otherData`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    /// The command line that made the trace.
    pub command: String,
    /// Workers per process (the most, if they differ).
    pub workers: usize,
    /// Processes (MPI ranks; configurations for `magpie-bench`).
    pub ranks: usize,
}

impl Meta {
    /// The current process's command line, its arguments separated by spaces (an argument
    /// with a space or a quote in it quoted).
    pub fn command_line() -> String {
        std::env::args()
            .map(|a| {
                if a.is_empty() || a.contains([' ', '"', '\'']) {
                    format!("{a:?}")
                } else {
                    a
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// One process of the file: its `pid`, its name, and what its pool recorded.
#[derive(Debug, Clone)]
pub struct Process<'a> {
    /// The `pid` of its events.
    pub pid: usize,
    /// Its `process_name`.
    pub name: String,
    /// Its workers' events (`tid` = worker index).
    pub trace: &'a Trace,
}

impl<'a> Process<'a> {
    /// MPI rank `rank` (0 for a local run), named `rank R`.
    pub fn rank(rank: usize, trace: &'a Trace) -> Process<'a> {
        Process {
            pid: rank,
            name: format!("rank {rank}"),
            trace,
        }
    }
}

/// One message of a process's communication thread (a distributed run's main thread, the
/// one that calls MPI): a zero-length complete event (`"ph":"X"`, `cat` `mpi`) on the
/// thread, and, when both of the message's ends were recorded, a flow event at it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Nanoseconds since the process started recording.
    pub ts_ns: u64,
    /// `steal request sent`, `work received`, `refusal sent`, …
    pub name: &'static str,
    /// Named values (`to` or `from`, `tasks`).
    pub args: Vec<(&'static str, u64)>,
    /// The flow event between the message's two ends.
    pub flow: Option<Flow>,
}

/// A flow event (an arrow from sender to receiver): `"ph":"s"` at the sender, `"ph":"f"`
/// with `"bp":"e"` at the receiver, the same `id`, `cat` `mpi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// Unique to the message in the file.
    pub id: u64,
    /// The message's name (`steal request`, `work`, `refusal`), the same at both ends.
    pub name: &'static str,
    /// The sender's end (`s`) or the receiver's (`f`).
    pub start: bool,
}

/// A process with a communication thread: its workers' events and its messages. The thread's
/// `tid` is the number of workers and its name `comm`.
#[derive(Debug, Clone)]
pub struct Rank<'a> {
    /// The process and its workers.
    pub process: Process<'a>,
    /// Its communication thread's messages.
    pub messages: &'a [Message],
}

/// Microseconds from nanoseconds.
fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// The arguments of an event of `kind`, if it has any.
fn args(kind: &EventKind) -> Option<Value> {
    Some(match kind {
        EventKind::Chunk { start, end } => {
            json!({"start": start, "end": end, "size": end.saturating_sub(*start)})
        }
        EventKind::StealAttempts { attempts } => json!({ "attempts": attempts }),
        EventKind::Steal { victim }
        | EventKind::ExposureRequest { victim }
        | EventKind::Signal { victim } => json!({ "victim": victim }),
        EventKind::Mark { args, .. } => Value::Object(
            args.iter()
                .map(|(k, v)| (k.to_string(), json!(v)))
                .collect(),
        ),
        _ => return None,
    })
}

/// One event of worker `tid` of process `pid` as a trace event.
fn event(pid: usize, tid: usize, e: &Event) -> Value {
    let mut m = Map::new();
    let span = e.kind.is_span();
    m.insert("ph".into(), json!(if span { "X" } else { "i" }));
    if !span {
        m.insert("s".into(), json!("t"));
    }
    m.insert("ts".into(), json!(us(e.start_ns)));
    if span {
        m.insert("dur".into(), json!(us(e.duration_ns())));
    }
    m.insert("pid".into(), json!(pid));
    m.insert("tid".into(), json!(tid));
    m.insert("cat".into(), json!(e.kind.category()));
    m.insert("name".into(), json!(e.kind.name()));
    if let Some(a) = args(&e.kind) {
        m.insert("args".into(), a);
    }
    Value::Object(m)
}

/// The events of message `m` on thread `tid` of process `pid`.
fn message(pid: usize, tid: usize, m: &Message) -> Vec<Value> {
    let ts = us(m.ts_ns);
    let args: Map<String, Value> = m
        .args
        .iter()
        .map(|(k, v)| (k.to_string(), json!(v)))
        .collect();
    let mut out = vec![
        json!({"ph": "X", "ts": ts, "dur": 0.0, "pid": pid, "tid": tid,
                              "cat": "mpi", "name": m.name, "args": args}),
    ];
    if let Some(f) = m.flow {
        let mut e = json!({"ph": if f.start { "s" } else { "f" }, "id": f.id, "ts": ts,
                           "pid": pid, "tid": tid, "cat": "mpi", "name": f.name});
        if !f.start {
            e["bp"] = json!("e");
        }
        out.push(e);
    }
    out
}

/// Writes `processes` as one Chrome trace-event JSON object to `out`, one event per line.
pub fn write_chrome(processes: &[Process<'_>], meta: &Meta, out: impl Write) -> io::Result<()> {
    let ranks: Vec<(&Process<'_>, Option<&[Message]>)> =
        processes.iter().map(|p| (p, None)).collect();
    write_all(&ranks, meta, out)
}

/// Writes `ranks` (a distributed run: each process with its communication thread, see
/// [`Rank`]) as one Chrome trace-event JSON object to `out`, one event per line.
///
/// ```
/// use magpie_measure::trace::{write_chrome_ranks, Flow, Message, Meta, Process, Rank};
///
/// let trace = magpie::Trace { workers: vec![Default::default()], duration_ns: 10 };
/// let sent = [Message { ts_ns: 1000, name: "steal request sent", args: vec![("to", 0)],
///                       flow: Some(Flow { id: 2, name: "steal request", start: true }) }];
/// let received = [Message { ts_ns: 1500, name: "steal request received", args: vec![("from", 1)],
///                           flow: Some(Flow { id: 2, name: "steal request", start: false }) }];
/// let ranks = [Rank { process: Process::rank(0, &trace), messages: &received },
///              Rank { process: Process::rank(1, &trace), messages: &sent }];
/// let meta = Meta { command: "example".into(), workers: 1, ranks: 2 };
/// let mut out = Vec::new();
/// write_chrome_ranks(&ranks, &meta, &mut out).unwrap();
/// let json: serde_json::Value = serde_json::from_slice(&out).unwrap();
/// let events = json["traceEvents"].as_array().unwrap();
/// let f = events.iter().find(|e| e["ph"] == "f").unwrap();
/// assert_eq!((&f["pid"], &f["tid"], &f["id"], &f["bp"]), (&0.into(), &1.into(), &2.into(), &"e".into()));
/// ```
pub fn write_chrome_ranks(ranks: &[Rank<'_>], meta: &Meta, out: impl Write) -> io::Result<()> {
    let ranks: Vec<(&Process<'_>, Option<&[Message]>)> = ranks
        .iter()
        .map(|r| (&r.process, Some(r.messages)))
        .collect();
    write_all(&ranks, meta, out)
}

/// [`write_chrome`] and [`write_chrome_ranks`]: processes, each with its communication
/// thread's messages if it has one.
fn write_all(
    processes: &[(&Process<'_>, Option<&[Message]>)],
    meta: &Meta,
    mut out: impl Write,
) -> io::Result<()> {
    let mut first = true;
    let mut put = |out: &mut dyn Write, v: &Value| -> io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        first = false;
        serde_json::to_writer(&mut *out, v)?;
        Ok(())
    };
    out.write_all(b"{\"traceEvents\":[")?;
    for &(p, messages) in processes {
        put(
            &mut out,
            &json!({"ph": "M", "name": "process_name", "pid": p.pid, "args": {"name": p.name}}),
        )?;
        for tid in 0..p.trace.workers.len() {
            put(
                &mut out,
                &json!({"ph": "M", "name": "thread_name", "pid": p.pid, "tid": tid,
                        "args": {"name": format!("worker {tid}")}}),
            )?;
        }
        for (tid, e) in p.trace.events() {
            put(&mut out, &event(p.pid, tid, e))?;
        }
        if let Some(messages) = messages {
            let tid = p.trace.workers.len();
            put(
                &mut out,
                &json!({"ph": "M", "name": "thread_name", "pid": p.pid, "tid": tid,
                        "args": {"name": "comm"}}),
            )?;
            for m in messages {
                for e in message(p.pid, tid, m) {
                    put(&mut out, &e)?;
                }
            }
        }
    }
    let other = json!({
        "magpie_trace": 1,
        "command": meta.command,
        "workers": meta.workers,
        "ranks": meta.ranks,
    });
    write!(
        out,
        "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{other}}}\n"
    )?;
    out.flush()
}

/// A trace file, created before the run (`--trace FILE`) and written after it.
#[derive(Debug)]
pub struct TraceFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl TraceFile {
    /// Creates (or truncates) the file at `path`; the error is the one line to print, naming
    /// `flag` and the path.
    pub fn create(flag: &str, path: &Path) -> Result<TraceFile, String> {
        match File::create(path) {
            Ok(f) => Ok(TraceFile {
                path: path.to_path_buf(),
                out: BufWriter::new(f),
            }),
            Err(e) => Err(format!(
                "{flag} {}: cannot create the file: {e}",
                path.display()
            )),
        }
    }

    /// Writes the trace ([`write_chrome`]); the error is the one line to print.
    pub fn write(self, processes: &[Process<'_>], meta: &Meta) -> Result<(), String> {
        let path = self.path;
        write_chrome(processes, meta, self.out)
            .map_err(|e| format!("cannot write the trace to {}: {e}", path.display()))
    }

    /// Writes a distributed run's trace ([`write_chrome_ranks`]); the error is the one line
    /// to print.
    pub fn write_ranks(self, ranks: &[Rank<'_>], meta: &Meta) -> Result<(), String> {
        let path = self.path;
        write_chrome_ranks(ranks, meta, self.out)
            .map_err(|e| format!("cannot write the trace to {}: {e}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use magpie::trace::WorkerTrace;

    #[test]
    fn events_have_the_fields_of_the_format() {
        let e = |start_ns, end_ns, kind| Event {
            start_ns,
            end_ns,
            kind,
        };
        let trace = Trace {
            workers: vec![
                WorkerTrace {
                    events: vec![
                        e(1000, 3500, EventKind::Task),
                        e(1500, 2500, EventKind::Chunk { start: 4, end: 10 }),
                    ],
                },
                WorkerTrace {
                    events: vec![
                        e(0, 900, EventKind::StealAttempts { attempts: 3 }),
                        e(900, 900, EventKind::Steal { victim: 0 }),
                    ],
                },
            ],
            duration_ns: 4000,
        };
        let meta = Meta {
            command: "magpie loop dist".into(),
            workers: 2,
            ranks: 1,
        };
        let mut out = Vec::new();
        write_chrome(&[Process::rank(0, &trace)], &meta, &mut out).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["displayTimeUnit"], "ms");
        assert_eq!(
            v["otherData"],
            json!({"magpie_trace": 1, "command": "magpie loop dist", "workers": 2, "ranks": 1})
        );
        let events = v["traceEvents"].as_array().unwrap();
        assert_eq!(
            events[..3],
            [
                json!({"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "rank 0"}}),
                json!({"ph": "M", "name": "thread_name", "pid": 0, "tid": 0, "args": {"name": "worker 0"}}),
                json!({"ph": "M", "name": "thread_name", "pid": 0, "tid": 1, "args": {"name": "worker 1"}}),
            ]
        );
        assert_eq!(
            events[3..],
            [
                json!({"ph": "X", "ts": 1.0, "dur": 2.5, "pid": 0, "tid": 0, "cat": "task", "name": "task"}),
                json!({"ph": "X", "ts": 1.5, "dur": 1.0, "pid": 0, "tid": 0, "cat": "chunk", "name": "chunk",
                       "args": {"start": 4, "end": 10, "size": 6}}),
                json!({"ph": "X", "ts": 0.0, "dur": 0.9, "pid": 0, "tid": 1, "cat": "steal",
                       "name": "steal attempts", "args": {"attempts": 3}}),
                json!({"ph": "i", "s": "t", "ts": 0.9, "pid": 0, "tid": 1, "cat": "steal", "name": "steal",
                       "args": {"victim": 0}}),
            ]
        );
    }

    #[test]
    fn a_rank_has_a_comm_thread_with_its_messages_and_flows() {
        let trace = Trace {
            workers: vec![WorkerTrace::default(), WorkerTrace::default()],
            duration_ns: 10_000,
        };
        let messages = [
            Message {
                ts_ns: 2000,
                name: "work sent",
                args: vec![("to", 1), ("tasks", 1)],
                flow: Some(Flow {
                    id: 7,
                    name: "work",
                    start: true,
                }),
            },
            Message {
                ts_ns: 2500,
                name: "refusal sent",
                args: vec![("to", 2)],
                flow: None,
            },
            Message {
                ts_ns: 3000,
                name: "steal request received",
                args: vec![("from", 1)],
                flow: Some(Flow {
                    id: 4,
                    name: "steal request",
                    start: false,
                }),
            },
        ];
        let ranks = [Rank {
            process: Process::rank(3, &trace),
            messages: &messages,
        }];
        let meta = Meta {
            command: "c".into(),
            workers: 2,
            ranks: 4,
        };
        let mut out = Vec::new();
        write_chrome_ranks(&ranks, &meta, &mut out).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        let events = v["traceEvents"].as_array().unwrap();
        assert_eq!(
            events[3..],
            [
                json!({"ph": "M", "name": "thread_name", "pid": 3, "tid": 2, "args": {"name": "comm"}}),
                json!({"ph": "X", "ts": 2.0, "dur": 0.0, "pid": 3, "tid": 2, "cat": "mpi",
                       "name": "work sent", "args": {"to": 1, "tasks": 1}}),
                json!({"ph": "s", "id": 7, "ts": 2.0, "pid": 3, "tid": 2, "cat": "mpi", "name": "work"}),
                json!({"ph": "X", "ts": 2.5, "dur": 0.0, "pid": 3, "tid": 2, "cat": "mpi",
                       "name": "refusal sent", "args": {"to": 2}}),
                json!({"ph": "X", "ts": 3.0, "dur": 0.0, "pid": 3, "tid": 2, "cat": "mpi",
                       "name": "steal request received", "args": {"from": 1}}),
                json!({"ph": "f", "bp": "e", "id": 4, "ts": 3.0, "pid": 3, "tid": 2, "cat": "mpi",
                       "name": "steal request"}),
            ]
        );
    }

    #[test]
    fn a_bad_path_is_one_line() {
        let e = TraceFile::create("--trace", Path::new("/nonexistent-dir/t.json")).unwrap_err();
        assert!(
            e.starts_with("--trace /nonexistent-dir/t.json: cannot create the file: "),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
}
