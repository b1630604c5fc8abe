//! One definition of a "kind named on the command line": [`named_kinds!`] gives a fieldless
//! enum its `ALL` and `NAMES` lists, `name()`, `Display` and a `FromStr` whose error (a
//! `String`, one line) names the accepted values, from one list of `Variant => "name"`
//! pairs. The input generators (`pbbs::graph_gen`, `pbbs::point_gen`, `sssp`) use it.

/// Implements `ALL`, `NAMES`, `name()`, `Display` and `FromStr` (error: `unknown WHAT
/// "INPUT" (expected one of a, b, c)`) for the fieldless enum `$t` from its
/// `Variant => "name"` pairs, in order.
macro_rules! named_kinds {
    ($t:ident, $what:literal, [$($v:ident => $name:literal),+ $(,)?]) => {
        impl $t {
            /// Every kind, in the order of [`Self::NAMES`].
            pub const ALL: [$t; [$($name),+].len()] = [$($t::$v),+];
            /// The kinds' names, as `FromStr` reads them.
            pub const NAMES: [&'static str; [$($name),+].len()] = [$($name),+];

            /// This kind's name (what `FromStr` reads).
            pub fn name(self) -> &'static str {
                match self {
                    $($t::$v => $name,)+
                }
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $t {
            type Err = String;

            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL
                    .into_iter()
                    .find(|k| k.name() == s)
                    .ok_or_else(|| {
                        format!(
                            concat!("unknown ", $what, " {:?} (expected one of {})"),
                            s,
                            Self::NAMES.join(", ")
                        )
                    })
            }
        }
    };
}

pub(crate) use named_kinds;
