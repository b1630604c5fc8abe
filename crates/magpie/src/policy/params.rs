//! Policy specifications: [`PolicySpec`] and its errors.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A policy name with its `key=value` parameters, as written by the user.
///
/// The one syntax for naming a policy with parameters: `name` or `name:key=value,key=value`,
/// for example `linear:min=10us,step=50us,max=500us` or `perf:refresh-max=100ms`.
///
/// A policy's constructor takes a [`PolicySpec`], reads each parameter it knows with a typed
/// getter (which records the key as used and falls back to the default when the key is
/// absent), then calls [`PolicySpec::finish`], which rejects any key it did not read. Every
/// error names the policy, the key and what was expected.
///
/// ```
/// use magpie::policy::PolicySpec;
/// use std::time::Duration;
///
/// let mut spec: PolicySpec = "linear:min=10us,max=0.5ms".parse().unwrap();
/// assert_eq!(spec.name(), "linear");
/// assert_eq!(spec.duration("min", Duration::ZERO).unwrap(), Duration::from_micros(10));
/// assert_eq!(spec.duration("step", Duration::from_micros(50)).unwrap(), Duration::from_micros(50));
/// assert_eq!(spec.duration("max", Duration::ZERO).unwrap(), Duration::from_micros(500));
/// spec.finish().unwrap();
///
/// let mut bad: PolicySpec = "linear:mni=10us".parse().unwrap();
/// let _ = bad.duration("min", Duration::ZERO);
/// assert!(bad.finish().unwrap_err().to_string().contains("unknown parameter \"mni\""));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct PolicySpec {
    name: String,
    params: Vec<(String, String)>,
    used: Vec<bool>,
}

/// A malformed policy specification or parameter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SpecError {
    message: String,
}

/// Why a policy specification was refused: an unknown name, or bad parameters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// No policy has this name.
    #[error(transparent)]
    UnknownName(#[from] crate::deque::UnknownName),
    /// The name is known but its parameters are not.
    #[error(transparent)]
    Spec(#[from] SpecError),
}

impl SpecError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        SpecError {
            message: message.into(),
        }
    }
}

impl FromStr for PolicySpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        let s = s.trim();
        let (name, rest) = match s.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (s, None),
        };
        if name.is_empty() {
            return Err(SpecError::new(format!("{s:?}: the policy name is empty")));
        }
        let name = name.to_ascii_lowercase();
        let mut params: Vec<(String, String)> = Vec::new();
        for item in rest.into_iter().flat_map(|r| r.split(',')) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let Some((k, v)) = item.split_once('=') else {
                return Err(SpecError::new(format!(
                    "{name}: parameter {item:?} is not of the form key=value"
                )));
            };
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
            if k.is_empty() || v.is_empty() {
                return Err(SpecError::new(format!(
                    "{name}: parameter {item:?} needs both a key and a value"
                )));
            }
            if params.iter().any(|(p, _)| *p == k) {
                return Err(SpecError::new(format!(
                    "{name}: parameter {k:?} is given twice"
                )));
            }
            params.push((k, v));
        }
        let used = vec![false; params.len()];
        Ok(PolicySpec { name, params, used })
    }
}

impl fmt::Display for PolicySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            f.write_str(if i == 0 { ":" } else { "," })?;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

impl PolicySpec {
    /// The policy's name, lower-cased.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether any parameters were given.
    pub fn has_params(&self) -> bool {
        !self.params.is_empty()
    }

    fn raw(&mut self, key: &str) -> Option<String> {
        let i = self.params.iter().position(|(k, _)| k == key)?;
        self.used[i] = true;
        Some(self.params[i].1.clone())
    }

    fn bad(&self, key: &str, value: &str, expected: &str) -> SpecError {
        SpecError::new(format!(
            "{}: parameter {key}={value:?}: expected {expected}",
            self.name
        ))
    }

    /// A duration such as `100ns`, `10us` (or `10µs`), `1.5ms`, `2s`.
    pub fn duration(&mut self, key: &str, default: Duration) -> Result<Duration, SpecError> {
        match self.raw(key) {
            None => Ok(default),
            Some(v) => parse_duration(&v)
                .ok_or_else(|| self.bad(key, &v, "a duration such as 100ns, 10us, 1.5ms or 2s")),
        }
    }

    /// A finite real number.
    pub fn float(&mut self, key: &str, default: f64) -> Result<f64, SpecError> {
        match self.raw(key) {
            None => Ok(default),
            Some(v) => match v.parse::<f64>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(self.bad(key, &v, "a number")),
            },
        }
    }

    /// A non-negative integer.
    pub fn uint(&mut self, key: &str, default: u64) -> Result<u64, SpecError> {
        match self.raw(key) {
            None => Ok(default),
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| self.bad(key, &v, "a non-negative integer")),
        }
    }

    /// A boolean (`true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0`).
    pub fn flag(&mut self, key: &str, default: bool) -> Result<bool, SpecError> {
        match self.raw(key) {
            None => Ok(default),
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(true),
                "false" | "no" | "off" | "0" => Ok(false),
                _ => Err(self.bad(key, &v, "true or false")),
            },
        }
    }

    /// A free-form string.
    pub fn string(&mut self, key: &str, default: &str) -> String {
        self.raw(key).unwrap_or_else(|| default.to_string())
    }

    /// Fails with a clear error unless `ok`: for constraints between parameters.
    pub fn check(&self, ok: bool, problem: &str) -> Result<(), SpecError> {
        if ok {
            Ok(())
        } else {
            Err(SpecError::new(format!("{}: {problem}", self.name)))
        }
    }

    /// Rejects any parameter that no getter asked for (a typo, or a key of another policy).
    pub fn finish(&self) -> Result<(), SpecError> {
        let unknown: Vec<&str> = self
            .params
            .iter()
            .zip(&self.used)
            .filter(|(_, u)| !**u)
            .map(|((k, _), _)| k.as_str())
            .collect();
        match unknown.as_slice() {
            [] => Ok(()),
            [k] => Err(SpecError::new(format!(
                "{}: unknown parameter {k:?}",
                self.name
            ))),
            ks => Err(SpecError::new(format!(
                "{}: unknown parameters {}",
                self.name,
                ks.iter()
                    .map(|k| format!("{k:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
}

/// Parses `100ns`, `10us`, `10µs`, `1.5ms`, `2s` (a bare number is an error: units matter),
/// the durations of every policy spec string (and of magpie-mpi's rank policies).
///
/// Hidden from the documentation: it is public for the workspace's own crates only
/// (magpie-mpi reads its rank policies' durations with it, so that they have the same
/// syntax). A policy of your own reads its durations with [`PolicySpec::duration`].
#[doc(hidden)]
///
/// ```
/// use std::time::Duration;
/// use magpie::policy::parse_duration;
/// assert_eq!(parse_duration("1.5ms"), Some(Duration::from_micros(1500)));
/// assert_eq!(parse_duration("10µs"), Some(Duration::from_micros(10)));
/// assert_eq!(parse_duration("10"), None);
/// ```
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let x: f64 = num.parse().ok()?;
    let scale = match unit.trim() {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    };
    let secs = x * scale;
    (secs.is_finite() && (0.0..1e9).contains(&secs)).then(|| Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("100ns"), Some(Duration::from_nanos(100)));
        assert_eq!(parse_duration("10us"), Some(Duration::from_micros(10)));
        assert_eq!(parse_duration("10µs"), Some(Duration::from_micros(10)));
        assert_eq!(parse_duration("1.5ms"), Some(Duration::from_micros(1500)));
        assert_eq!(parse_duration("2s"), Some(Duration::from_secs(2)));
        assert_eq!(parse_duration("10"), None);
        assert_eq!(parse_duration("ms"), None);
        assert_eq!(parse_duration("-1ms"), None);
        assert_eq!(parse_duration("10 hours"), None);
    }

    #[test]
    fn specs() {
        let s: PolicySpec = " Linear ".parse().unwrap();
        assert_eq!(s.name(), "linear");
        assert!(!s.has_params());
        let s: PolicySpec = "x:a=1,b=2".parse().unwrap();
        assert!(s.has_params());
        assert_eq!(s.to_string(), "x:a=1,b=2");
        for bad in ["", ":a=1", "x:a", "x:a=", "x:=1", "x:a=1,a=2"] {
            assert!(bad.parse::<PolicySpec>().is_err(), "{bad:?} parsed");
        }
        let mut s: PolicySpec = "x:r=abc,n=-1,f=maybe".parse().unwrap();
        assert!(s
            .float("r", 1.0)
            .unwrap_err()
            .to_string()
            .contains("x: parameter r=\"abc\": expected a number"));
        assert!(s.uint("n", 1).is_err());
        assert!(s.flag("f", true).is_err());
        s.finish().unwrap();
    }
}
