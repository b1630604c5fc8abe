//! Telling the inputs apart, and the errors of reading them (with the line they are on).

use std::fmt;

use serde_json::value::RawValue;
use serde_json::Value;

use super::{incumbents, runs, trace, Data};

/// A problem in an input file: its line (from 1) where known, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The line the problem is on, from 1.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl InputError {
    pub(crate) fn at(line: usize, message: impl Into<String>) -> InputError {
        InputError {
            line: Some(line),
            message: message.into(),
        }
    }

    /// The error of serde_json `e` in a text that starts on line `first` of the file.
    pub(crate) fn json(first: usize, e: &serde_json::Error) -> InputError {
        let text = e.to_string();
        // serde_json ends its message with " at line L column C": the line is ours to say.
        let message = match text.rfind(" at line ") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        InputError::at(first + e.line().max(1) - 1, message)
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for InputError {}

/// The line (from 1) on which `part`, a slice of `text`, starts.
pub(crate) fn line_of(text: &str, part: &str) -> usize {
    let offset = (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The items of a JSON array or an array field, each with its line and value. The lines
/// are counted on from one item to the next (the items are in file order), so that a
/// large trace is read in linear time.
pub(crate) fn items<'a>(
    text: &'a str,
    raws: &[&'a RawValue],
) -> Result<Vec<(usize, Value)>, InputError> {
    let (mut at, mut line) = (0usize, 1usize);
    raws.iter()
        .map(|raw| {
            let offset = (raw.get().as_ptr() as usize)
                .saturating_sub(text.as_ptr() as usize)
                .clamp(at, text.len());
            line += text.as_bytes()[at..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            at = offset;
            serde_json::from_str(raw.get())
                .map(|v| (line, v))
                .map_err(|e| InputError::json(line, &e))
        })
        .collect()
}

#[derive(serde::Deserialize)]
struct Object<'a> {
    #[serde(borrow, rename = "traceEvents")]
    trace_events: Option<Vec<&'a RawValue>>,
    #[serde(borrow)]
    rows: Option<Vec<&'a RawValue>>,
    #[serde(rename = "otherData")]
    other_data: Option<Value>,
    experiment: Option<Value>,
    time_s: Option<Value>,
}

const UNKNOWN: &str = "not a magpie trace (an object with traceEvents), an incumbent log \
                       (JSON lines with time_s and value), an experiment report (--format json) \
                       or a magpie-bench forkjoin/loops/search/distributed --json report";

/// Reads any of the inputs (see [`Data::parse`]).
pub(crate) fn parse(text: &str) -> Result<Data, InputError> {
    let body = text.trim_start();
    if body.is_empty() {
        return Ok(Data::Incumbents(Vec::new()));
    }
    let first_line = line_of(text, body);
    if body.starts_with('[') {
        let raws: Vec<&RawValue> =
            serde_json::from_str(text).map_err(|e| InputError::json(1, &e))?;
        let items = items(text, &raws)?;
        // The JSON array form of a trace: events with "ph".
        if items.first().is_some_and(|(_, v)| v.get("ph").is_some()) {
            return trace::from_events(&items, None).map(Data::Trace);
        }
        return runs::from_bench_rows(&items).map(Data::Runs);
    }
    if !body.starts_with('{') {
        return Err(InputError::at(first_line, UNKNOWN));
    }
    // One object (a trace, an experiment report), or JSON lines (an incumbent log).
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Object>();
    let object = match stream.next() {
        Some(Ok(o)) => o,
        Some(Err(e)) => return Err(InputError::json(1, &e)),
        None => return Ok(Data::Incumbents(Vec::new())),
    };
    let single = stream.next().is_none();
    if single {
        if let Some(events) = &object.trace_events {
            let items = items(text, events)?;
            return trace::from_events(&items, object.other_data.as_ref()).map(Data::Trace);
        }
        if let (Some(_), Some(rows)) = (&object.experiment, &object.rows) {
            let items = items(text, rows)?;
            return runs::from_experiment_rows(&items).map(Data::Runs);
        }
    }
    if object.time_s.is_some() {
        return incumbents::parse(text).map(Data::Incumbents);
    }
    Err(InputError::at(first_line, UNKNOWN))
}
