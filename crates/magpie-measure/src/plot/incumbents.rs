//! An incumbent log (the JSON lines of `--incumbents`): one improvement per line, in time
//! order.

use serde::Serialize;
use serde_json::Value;

use super::InputError;

/// One line of an incumbent log as `--incumbents` writes it (the format's one definition:
/// the plot's reader reads what this writes, and more leniently). `worker` is `null` for an
/// incumbent another rank sent to rank 0.
///
/// ```
/// use magpie_measure::plot::IncumbentLine;
/// let line = IncumbentLine { time_s: 0.5, value: 25, worker: Some(1), rank: 0, nodes: 12 };
/// assert_eq!(
///     serde_json::to_string(&line).unwrap(),
///     r#"{"time_s":0.5,"value":25,"worker":1,"rank":0,"nodes":12}"#
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IncumbentLine {
    /// Seconds since the search started.
    pub time_s: f64,
    /// The new incumbent's objective value.
    pub value: i64,
    /// The worker that found it, if a worker of rank 0's process (or of the one process).
    pub worker: Option<usize>,
    /// The MPI rank where it was found (0 for one process).
    pub rank: usize,
    /// Nodes expanded so far (on rank 0 of a distributed search, 0: ranks count their
    /// nodes only at the end).
    pub nodes: u64,
}

/// One improvement of the incumbent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Incumbent {
    /// Seconds since the search started.
    pub time_s: f64,
    /// The new incumbent's objective value.
    pub value: f64,
    /// The worker that found it.
    pub worker: Option<u64>,
    /// Its MPI rank (0 locally).
    pub rank: Option<u64>,
    /// Nodes expanded so far.
    pub nodes: Option<u64>,
}

/// Parses the log: every non-blank line one JSON object with numbers `time_s` (≥ 0, not
/// decreasing) and `value`; `worker`, `rank`, `nodes` are optional; other fields are ignored.
pub(crate) fn parse(text: &str) -> Result<Vec<Incumbent>, InputError> {
    let mut out: Vec<Incumbent> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| InputError::json(n, &e))?;
        let num = |k: &str| v.get(k).and_then(Value::as_f64).filter(|x| x.is_finite());
        let whole = |k: &str| v.get(k).and_then(Value::as_u64);
        let Some(time_s) = num("time_s").filter(|t| *t >= 0.0) else {
            return Err(InputError::at(
                n,
                "an incumbent without a non-negative number \"time_s\"",
            ));
        };
        let Some(value) = num("value") else {
            return Err(InputError::at(n, "an incumbent without a number \"value\""));
        };
        if let Some(prev) = out.last().filter(|p| p.time_s > time_s) {
            return Err(InputError::at(
                n,
                format!(
                    "time_s {time_s} is before the previous line's {} (the log is in time order)",
                    prev.time_s
                ),
            ));
        }
        out.push(Incumbent {
            time_s,
            value,
            worker: whole("worker"),
            rank: whole("rank"),
            nodes: whole("nodes"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_writer_writes_the_reader_reads() {
        let written: Vec<IncumbentLine> = vec![
            IncumbentLine {
                time_s: 0.25,
                value: -7,
                worker: Some(0),
                rank: 0,
                nodes: 3,
            },
            IncumbentLine {
                time_s: 1.5,
                value: 12,
                worker: None,
                rank: 2,
                nodes: 0,
            },
        ];
        let text: String = written
            .iter()
            .map(|l| serde_json::to_string(l).unwrap() + "\n")
            .collect();
        let read = parse(&text).unwrap();
        let back: Vec<_> = read
            .iter()
            .map(|i| (i.time_s, i.value, i.worker, i.rank, i.nodes))
            .collect();
        assert_eq!(
            back,
            [
                (0.25, -7.0, Some(0), Some(0), Some(3)),
                (1.5, 12.0, None, Some(2), Some(0))
            ]
        );
    }

    #[test]
    fn lines_parse_and_errors_name_their_line() {
        let log = "{\"time_s\":0.5,\"value\":25,\"worker\":1,\"rank\":0,\"nodes\":12}\n\n\
                   {\"time_s\":1.25,\"value\":27}\n";
        let v = parse(log).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(
            (v[0].time_s, v[0].value, v[0].worker, v[0].nodes),
            (0.5, 25.0, Some(1), Some(12))
        );
        assert_eq!((v[1].time_s, v[1].value, v[1].worker), (1.25, 27.0, None));
        let bad = "{\"time_s\":1,\"value\":2}\n{\"time_s\":0.5,\"value\":3}\n";
        assert_eq!(
            parse(bad).unwrap_err().to_string(),
            "line 2: time_s 0.5 is before the previous line's 1 (the log is in time order)"
        );
        let broken = "{\"time_s\":1,\"value\":2}\n{\"time_s\":2,\"value\":\n";
        assert_eq!(parse(broken).unwrap_err().line, Some(2));
    }
}
