//! The models' vocabularies: one table per enum a user names (a policy, a metric, a model
//! kind), read by the command line, by the claim language and by the messages.
//!
//! The table is the enum itself, through strum's derives: `IntoStaticStr` gives a
//! variant's name, `VariantNames` the list of names (a `const`, so claim signatures can
//! hold it), `VariantArray` the variants in the same order, and `EnumMessage` a one-line
//! help (`#[strum(message = "…")]`, shown by `--help` beside the name when given). An enum
//! joins by being declared inside `vocabulary!`, which derives those and implements
//! [`Vocabulary`] (what one of its values is called) and `FromStr` through [`parse`];
//! clap reads it through the command line's `named` value parser, the claims through
//! [`Vocabulary::NAMES`]. A new variant is then named everywhere at once, and every
//! `match` on it is reported by the compiler.
//!
//! ```
//! use taskassign::optimize::OptPolicy;
//! use taskassign::vocab::Vocabulary;
//! assert_eq!("tags-minmax".parse::<OptPolicy>(), Ok(OptPolicy::TagsMinmax));
//! assert_eq!(OptPolicy::NAMES, &["sita", "sita-e", "tags", "tags-minmax"]);
//! let e = "sjf".parse::<OptPolicy>().unwrap_err();
//! assert_eq!(e.to_string(), "unknown policy 'sjf' (known: sita, sita-e, tags, tags-minmax)");
//! ```

use crate::error::{Classify, ErrorKind};
use strum::{EnumMessage, VariantArray, VariantNames};
use thiserror::Error;

/// An enum whose variants are named on the command line and in claim files.
pub trait Vocabulary:
    Copy + PartialEq + VariantArray + VariantNames + EnumMessage + Into<&'static str> + 'static
{
    /// What one of its values is called in messages (`policy`, `metric`).
    const WHAT: &'static str;

    /// The names, in the order of the variants.
    const NAMES: &'static [&'static str] = <Self as VariantNames>::VARIANTS;

    /// The variants, in declaration order.
    fn all() -> &'static [Self] {
        <Self as VariantArray>::VARIANTS
    }

    /// The name of `self`.
    fn name(self) -> &'static str {
        self.into()
    }

    /// One line of help for `self`, if it has one.
    fn help(self) -> Option<&'static str> {
        self.get_message()
    }
}

/// A name that is none of a vocabulary's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown {what} '{got}'{context} (known: {})", known.join(", "))]
pub struct UnknownName {
    /// What was named (`policy`).
    pub what: &'static str,
    /// The name given (trimmed).
    pub got: String,
    /// Where it was given, as words after the name (` for opt`), or empty.
    pub context: String,
    /// Every name that would have been accepted.
    pub known: &'static [&'static str],
}

impl UnknownName {
    /// The same error, saying where the name was given (`for opt`).
    pub fn within(mut self, context: &str) -> Self {
        self.context = format!(" {context}");
        self
    }
}

impl Classify for UnknownName {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Input
    }
}

impl From<UnknownName> for crate::error::Error {
    fn from(e: UnknownName) -> Self {
        crate::error::Error::input(e.to_string())
    }
}

/// Declares an enum as a [`Vocabulary`] whose values are called `$what` in messages: the
/// enum gets the derives every vocabulary has (`Debug`, `Clone`, `Copy`, `PartialEq`, `Eq`
/// and strum's four, names in kebab case), the trait, and `FromStr` through [`parse`].
/// Further derives go in a `#[derive(…)]` of their own after the enum's doc.
///
/// ```text
/// vocabulary! {
///     "metric",
///     /// What is averaged.
///     pub enum Metric { Waiting, Response, Slowdown }
/// }
/// ```
macro_rules! vocabulary {
    ($what:literal, $(#[$meta:meta])* $vis:vis enum $t:ident { $($body:tt)* }) => {
        $(#[$meta])*
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            strum::IntoStaticStr,
            strum::VariantNames,
            strum::VariantArray,
            strum::EnumMessage,
        )]
        #[strum(serialize_all = "kebab-case")]
        $vis enum $t { $($body)* }

        impl $crate::vocab::Vocabulary for $t {
            const WHAT: &'static str = $what;
        }

        impl std::str::FromStr for $t {
            type Err = $crate::vocab::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $crate::vocab::parse(s)
            }
        }
    };
}
pub(crate) use vocabulary;

/// The variant of `T` named `s` (surrounding blanks ignored, case significant, as clap
/// takes them); the error lists the names.
pub fn parse<T: Vocabulary>(s: &str) -> Result<T, UnknownName> {
    let got = s.trim();
    T::all()
        .iter()
        .copied()
        .find(|v| v.name() == got)
        .ok_or_else(|| UnknownName {
            what: T::WHAT,
            got: got.to_string(),
            context: String::new(),
            known: T::NAMES,
        })
}

/// `a` followed by `b`, in a `const` (a claim signature's words: `inf` and the metric
/// names, `balanced` and the `opt` policies). `N` must be `a.len() + b.len()`; any other
/// length fails at compile time.
pub const fn concat<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    let mut j = 0;
    while j < b.len() {
        out[a.len() + j] = b[j];
        j += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lb::model::{ModelKind, Sampling};
    use crate::optimize::OptPolicy;
    use crate::policy::host_term::ChainKind;
    use crate::policy::{Metric, PolicyKind};
    use crate::sim::dispatch::SimPolicy;

    /// Every name parses back to its variant, the names are distinct, and an unknown name
    /// is refused with the list.
    fn round_trip<T: Vocabulary + std::fmt::Debug>() {
        assert_eq!(T::all().len(), T::NAMES.len());
        for (v, n) in T::all().iter().zip(T::NAMES) {
            assert_eq!(v.name(), *n);
            assert_eq!(parse::<T>(n), Ok(*v));
            assert_eq!(parse::<T>(&format!(" {n} ")), Ok(*v));
        }
        let mut sorted = T::NAMES.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), T::NAMES.len(), "{:?}", T::NAMES);
        let e = parse::<T>("no-such-name").unwrap_err();
        assert!(e.to_string().contains(&T::NAMES.join(", ")), "{e}");
        assert_eq!(e.kind(), ErrorKind::Input);
    }

    #[test]
    fn every_vocabulary_round_trips() {
        round_trip::<PolicyKind>();
        round_trip::<OptPolicy>();
        round_trip::<SimPolicy>();
        round_trip::<ChainKind>();
        round_trip::<Metric>();
        round_trip::<ModelKind>();
        round_trip::<Sampling>();
    }

    #[test]
    fn the_command_line_names_are_the_documented_ones() {
        // ARCHITECTURE.md and the README name these on the command line.
        assert_eq!(PolicyKind::NAMES, &["sita", "tags", "random"]);
        assert_eq!(OptPolicy::NAMES, &["sita", "sita-e", "tags", "tags-minmax"]);
        assert_eq!(
            SimPolicy::NAMES,
            &["sita", "tags", "random", "rr", "lwl", "jsq"]
        );
        assert_eq!(Metric::NAMES, &["waiting", "response", "slowdown"]);
        assert_eq!(ModelKind::NAMES, &["queues", "pools"]);
        assert_eq!(Sampling::NAMES, &["without", "with"]);
    }

    #[test]
    fn an_unknown_name_says_where_and_what_is_known() {
        let e = parse::<Metric>("mean").unwrap_err().within("for opt");
        assert_eq!(
            e.to_string(),
            "unknown metric 'mean' for opt (known: waiting, response, slowdown)"
        );
        const W: &[&str] = &concat::<4>(&["inf"], Metric::NAMES);
        assert_eq!(W, &["inf", "waiting", "response", "slowdown"]);
    }
}
