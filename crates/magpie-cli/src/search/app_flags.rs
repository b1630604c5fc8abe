//! The command-line flags of the search applications (`--target`, `--n`, …), built from
//! their declarations in the registry ([`registry::app_options`]): `magpie search` and
//! `magpie experiment` parse every one of them through [`augment`], and show the help each
//! application declares.

use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use magpie_apps::registry::{self, AppArgs};

/// The clap id and long name of an application flag (`--target` is `target`).
pub(crate) fn id(flag: &'static str) -> &'static str {
    flag.trim_start_matches('-')
}

/// Adds one argument per distinct flag of the search applications to `cmd`, under
/// `heading`. With `repeat`, each may be given several times (a switch then has the value
/// `true`). `more` adds the help of other applications that take the same flag (`--n`:
/// `fib: the argument`), after the search applications' own. A value that is a name
/// (`--tree NAME`) does not start with a hyphen; any other value may (`--target -1` is then
/// the application's error, not clap's).
pub(crate) fn augment(
    cmd: Command,
    heading: &'static str,
    repeat: bool,
    more: &[(&str, &str)],
) -> Command {
    registry::app_options().iter().fold(cmd, |cmd, o| {
        let mut help = o.help.to_string();
        for (_, h) in more.iter().filter(|(f, _)| *f == o.flag) {
            help.push_str("; ");
            help.push_str(h);
        }
        let arg = Arg::new(id(o.flag))
            .long(id(o.flag))
            .help(help)
            .help_heading(heading);
        let arg = match o.value {
            Some(v) => arg
                .value_name(v)
                .allow_hyphen_values(!v.contains("NAME"))
                .action(if repeat {
                    ArgAction::Append
                } else {
                    ArgAction::Set
                }),
            None if repeat => arg
                .num_args(0)
                .default_missing_value("true")
                .action(ArgAction::Append),
            None => arg.action(ArgAction::SetTrue),
        };
        cmd.arg(arg)
    })
}

/// The application flags given to `magpie search`, in the order of
/// [`registry::app_options`]: each with its value (empty for a switch).
#[derive(Debug, Clone, Default)]
pub struct AppFlags {
    given: Vec<(&'static str, String)>,
}

impl AppFlags {
    /// The value given to `flag`, if it was given (empty for a switch).
    pub fn get(&self, flag: &str) -> Option<&str> {
        self.given
            .iter()
            .find(|(f, _)| *f == flag)
            .map(|(_, v)| v.as_str())
    }

    /// `args` with every flag given.
    pub(crate) fn onto(&self, args: AppArgs) -> AppArgs {
        self.given
            .iter()
            .fold(args, |args, (flag, value)| args.with(flag, Some(value)))
    }
}

impl FromArgMatches for AppFlags {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Vec::new();
        for o in registry::app_options() {
            let value = match o.value {
                Some(_) => m.get_one::<String>(id(o.flag)).cloned(),
                None => m.get_flag(id(o.flag)).then(String::new),
            };
            given.extend(value.map(|v| (o.flag, v)));
        }
        Ok(AppFlags { given })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for AppFlags {
    fn augment_args(cmd: Command) -> Command {
        augment(cmd, "Application", false, &[])
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
