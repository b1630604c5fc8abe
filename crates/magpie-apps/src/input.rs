//! Errors for bad input files: every reader reports the file, the line and the problem.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem with an input file (or parameter), naming where it is.
///
/// Displays as `FILE:LINE: message` (or `FILE: message` when no line applies).
///
/// ```
/// use magpie_apps::input::InputError;
/// let e = InputError::at("g.clq", 7, "vertex 301 out of range 1..=300");
/// assert_eq!(e.to_string(), "g.clq:7: vertex 301 out of range 1..=300");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// The file (or a description of the input, e.g. `--genus`).
    pub path: PathBuf,
    /// 1-based line number, if the problem is on a line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl InputError {
    /// A problem on line `line` (1-based) of `path`.
    pub fn at(path: impl AsRef<Path>, line: usize, message: impl Into<String>) -> Self {
        InputError {
            path: path.as_ref().to_path_buf(),
            line: Some(line),
            message: message.into(),
        }
    }

    /// A problem with the file as a whole (missing, unreadable, truncated…).
    pub fn file(path: impl AsRef<Path>, message: impl Into<String>) -> Self {
        InputError {
            path: path.as_ref().to_path_buf(),
            line: None,
            message: message.into(),
        }
    }

    /// Reads a whole file, mapping I/O errors to an `InputError` naming it.
    pub fn read_to_string(path: impl AsRef<Path>) -> Result<String, InputError> {
        let path = path.as_ref();
        std::fs::read_to_string(path)
            .map_err(|e| InputError::file(path, format!("cannot read: {e}")))
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.path.display(), l, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for InputError {}
