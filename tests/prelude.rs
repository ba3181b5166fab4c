//! `use taskassign::prelude::*;` shadows nothing a program takes for granted: a glob import
//! silently hides a name of the standard prelude (an exported `Result` alias, a `Box`, an
//! `Option`), so this file writes every such name in its standard shape beside the glob,
//! together with the usual explicit `std` imports, and only compiles while the prelude
//! leaves them alone.

use std::collections::{BTreeMap, HashMap};
use std::fmt::{self, Display};
use std::path::{Path, PathBuf};
use std::time::Duration;
use taskassign::prelude::*;

/// A `Display` written with `std::fmt`'s `Result` and `Formatter` next to the glob.
struct Shown(u8);

impl Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[test]
fn the_prelude_leaves_the_standard_names_alone() {
    // The standard prelude's types in their standard shapes: a two-parameter `Result`,
    // `Option`, `Vec`, `String`, `Box`, with the iterator and conversion traits.
    let r: Result<u8, String> = Err(String::from("e"));
    let o: Option<Box<u8>> = Some(Box::new(1));
    let v: Vec<u16> = [1u8, 2].into_iter().map(u16::from).collect();
    let t = u16::try_from(300u32).ok();
    assert!(r.is_err() && o.is_some() && v.len() == 2 && t == Some(300));
    // Each is the standard type itself, not a look-alike with the same methods.
    let _: std::result::Result<u8, std::string::String> = r;
    let _: std::option::Option<std::boxed::Box<u8>> = o;
    let _: std::vec::Vec<u16> = v;
    // The explicit std imports beside the glob.
    let mut m: HashMap<&str, Duration> = HashMap::new();
    m.insert("a", Duration::from_secs(1));
    let b: BTreeMap<PathBuf, &Path> = BTreeMap::new();
    assert_eq!((m.len(), b.len()), (1, 0));
    assert_eq!(Shown(7).to_string(), "7");
    // And the prelude's own names, which a program uses through it.
    let e: Error = DistSpec::parse("no-such-family:x=1")
        .map(|_| ())
        .unwrap_err()
        .into();
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(matches!("waiting".parse::<Metric>(), Ok(Metric::Waiting)));
}
