//! Servers, job classes and their redundancy sets: the system a redundancy command or
//! claim describes.
//!
//! A [`ClassSystem`] has K servers with rates μ_s (decimal strings, read at any precision;
//! default 1) and classes c, each a redundancy set S_c (a [`ServerSet`], servers numbered
//! from 1 in every text) with a Poisson arrival rate λ_c. It is validated once: every set
//! is non-empty and inside 1..=K, every rate finite and positive (as a decimal and in
//! f64, for the simulator), and no two classes share a set (a class *is* its set in
//! [ARV22]'s nested systems; two classes with one set are one class with the summed rate).
//!
//! [`ClassSystem::nestedness`] checks [ARV22]'s assumption: any two sets are disjoint or one
//! contains the other. Presets: the N-model ({1}, {1,2}), the W-model ({1}, {2}, {1,2}),
//! a nested 4-server system (four singletons, {1,2}, {3,4}, {1,2,3,4}), redundancy-d
//! (every d-subset of k servers) and a single fully redundant class. A system can also be
//! read from a TOML file ([`ClassSystem::from_toml`]).

use super::RedundancyError;
use crate::num::certify::to_sci;
use crate::num::parse_decimal;
use rug::Float;
use serde::Deserialize;
use std::fmt;

/// Most servers: a set is a 32-bit mask.
pub const MAX_SERVERS: usize = 32;
/// Most classes: the exact methods and the simulator keep per-class arrays, and
/// redundancy-d with k = 8, d = 4 (70 classes) should fit.
pub const MAX_CLASSES: usize = 256;
/// Precision at which rates are validated (they are kept as the decimals typed).
const CHECK_BITS: u32 = 128;
/// The presets named by a word ([`ClassSystem::preset`]).
pub const PRESET_NAMES: &[&str] = &["n-model", "w-model", "nested-4"];
/// The preset families, `family:key=value,…` ([`ClassSystem::preset`]).
pub const PRESET_FAMILIES: &[&str] = &["redundancy-d", "full"];
/// The presets as a message lists them.
pub const PRESETS: &str = "n-model, w-model, nested-4, redundancy-d:k=K,d=D, full:k=K";
/// Significant digits with which a computed rate (a scaled one) is written back as a
/// decimal.
const RATE_DIGITS: u32 = 40;

/// A set of servers as a bit mask (bit s is server s + 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ServerSet(u32);

impl ServerSet {
    /// The empty set.
    pub const EMPTY: ServerSet = ServerSet(0);

    /// The set with mask `mask` (bit s is server s + 1).
    pub const fn from_mask(mask: u32) -> Self {
        ServerSet(mask)
    }

    /// The servers 0..k (all of a k-server system).
    pub fn full(k: usize) -> Self {
        if k >= 32 {
            ServerSet(u32::MAX)
        } else {
            ServerSet((1u32 << k) - 1)
        }
    }

    /// The set of the 0-based servers `servers`; `None` if one is beyond [`MAX_SERVERS`].
    pub fn of(servers: &[usize]) -> Option<Self> {
        let mut m = 0u32;
        for &s in servers {
            if s >= MAX_SERVERS {
                return None;
            }
            m |= 1 << s;
        }
        Some(ServerSet(m))
    }

    /// The mask.
    pub const fn mask(self) -> u32 {
        self.0
    }

    /// |S|.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True for the empty set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// True when server `s` (0-based) is in the set.
    pub const fn contains(self, s: usize) -> bool {
        s < 32 && (self.0 >> s) & 1 == 1
    }

    /// S ∪ T.
    pub const fn union(self, other: ServerSet) -> ServerSet {
        ServerSet(self.0 | other.0)
    }

    /// S ⊆ T.
    pub const fn is_subset_of(self, other: ServerSet) -> bool {
        self.0 & !other.0 == 0
    }

    /// S ∩ T ≠ ∅.
    pub const fn intersects(self, other: ServerSet) -> bool {
        self.0 & other.0 != 0
    }

    /// The servers, 0-based, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..32).filter(move |&s| (self.0 >> s) & 1 == 1)
    }

    /// Parses `1+2` (servers numbered from 1, joined by `+`) for a system of `servers`
    /// servers.
    ///
    /// ```
    /// use taskassign::redundancy::ServerSet;
    /// let s = ServerSet::parse("1+3", 3).unwrap();
    /// assert_eq!((s.len(), s.contains(0), s.contains(1), s.to_string()), (2, true, false, "1+3".into()));
    /// assert!(ServerSet::parse("4", 3).is_err());
    /// assert!(ServerSet::parse("", 3).is_err());
    /// ```
    pub fn parse(text: &str, servers: usize) -> Result<Self, RedundancyError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(RedundancyError::BadSystem(
                "empty server set: give servers joined by '+', e.g. 1+2".into(),
            ));
        }
        let mut m = 0u32;
        for part in t.split('+') {
            let p = part.trim();
            let s: usize = p.parse().map_err(|_| {
                RedundancyError::BadSystem(format!(
                    "server set '{t}': '{p}' is not a server number (servers are 1..{servers}, joined by '+')"
                ))
            })?;
            if s < 1 || s > servers {
                return Err(RedundancyError::BadSystem(format!(
                    "server set '{t}': server {s} is out of range 1..{servers}"
                )));
            }
            let bit = 1u32 << (s - 1);
            if m & bit != 0 {
                return Err(RedundancyError::BadSystem(format!(
                    "server set '{t}': server {s} appears twice"
                )));
            }
            m |= bit;
        }
        Ok(ServerSet(m))
    }
}

/// `1+2` (1-based); `{}` for the empty set.
impl fmt::Display for ServerSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return write!(f, "{{}}");
        }
        let parts: Vec<String> = self.iter().map(|s| (s + 1).to_string()).collect();
        write!(f, "{}", parts.join("+"))
    }
}

/// A job class: its redundancy set and its arrival rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Class {
    /// S_c, the servers that each job of the class sends a copy to (Gardner et al.'s
    /// redundancy set; the job leaves when its first copy completes).
    pub set: ServerSet,
    rate: String,
    rate_f64: f64,
}

impl Class {
    /// λ_c as the decimal given.
    pub fn rate_text(&self) -> &str {
        &self.rate
    }

    /// λ_c in f64.
    pub fn rate_f64(&self) -> f64 {
        self.rate_f64
    }

    /// λ_c at `bits`.
    pub fn rate(&self, bits: u32) -> Float {
        // Validated at construction.
        parse_decimal(&self.rate, bits).unwrap_or_else(|_| Float::with_val(bits, self.rate_f64))
    }
}

/// Whether a system is nested ([ARV22]'s assumption).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nestedness {
    /// Any two sets are disjoint or one contains the other.
    Nested,
    /// Classes `a` and `b` (0-based) overlap without one containing the other.
    NotNested {
        /// A class.
        a: usize,
        /// Another.
        b: usize,
    },
}

impl Nestedness {
    /// True for [`Nestedness::Nested`].
    pub fn is_nested(self) -> bool {
        matches!(self, Nestedness::Nested)
    }
}

/// Servers with rates and the job classes.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSystem {
    rates: Vec<String>,
    rates_f64: Vec<f64>,
    classes: Vec<Class>,
}

/// Checks a rate given as a decimal: finite and positive at [`CHECK_BITS`] and in f64.
fn check_rate(what: &str, text: &str) -> Result<f64, RedundancyError> {
    let t = text.trim();
    let x = parse_decimal(t, CHECK_BITS).map_err(|_| {
        RedundancyError::BadSystem(format!("{what} '{t}' is not a finite decimal number"))
    })?;
    if !(x > 0) {
        return Err(RedundancyError::BadSystem(format!(
            "{what} must be positive, got {t}"
        )));
    }
    let v = x.to_f64();
    if !(v.is_finite() && v > 0.0) {
        return Err(RedundancyError::BadSystem(format!(
            "{what} {t} does not fit in f64 (the simulator needs it)"
        )));
    }
    Ok(v)
}

impl ClassSystem {
    /// A system of servers with rates `rates` (decimals) and classes (set, rate).
    ///
    /// ```
    /// use taskassign::redundancy::{ClassSystem, ServerSet};
    /// let s = ClassSystem::new(
    ///     vec!["1".into(), "1".into()],
    ///     vec![(ServerSet::parse("1", 2).unwrap(), "0.3".into()),
    ///          (ServerSet::parse("1+2", 2).unwrap(), "0.6".into())],
    /// ).unwrap();
    /// assert_eq!(s.servers(), 2);
    /// assert!(s.nestedness().is_nested());
    /// ```
    pub fn new(
        rates: Vec<String>,
        classes: Vec<(ServerSet, String)>,
    ) -> Result<Self, RedundancyError> {
        let k = rates.len();
        if k == 0 {
            return Err(RedundancyError::BadSystem(
                "a system needs at least one server".into(),
            ));
        }
        if k > MAX_SERVERS {
            return Err(RedundancyError::BadSystem(format!(
                "at most {MAX_SERVERS} servers, got {k}"
            )));
        }
        let mut rates_f64 = Vec::with_capacity(k);
        let mut texts = Vec::with_capacity(k);
        for (s, r) in rates.iter().enumerate() {
            rates_f64.push(check_rate(&format!("the rate of server {}", s + 1), r)?);
            texts.push(r.trim().to_string());
        }
        if classes.is_empty() {
            return Err(RedundancyError::BadSystem(
                "a system needs at least one class (--class SET:RATE)".into(),
            ));
        }
        if classes.len() > MAX_CLASSES {
            return Err(RedundancyError::BadSystem(format!(
                "at most {MAX_CLASSES} classes, got {}",
                classes.len()
            )));
        }
        let full = ServerSet::full(k);
        let mut out: Vec<Class> = Vec::with_capacity(classes.len());
        for (set, rate) in classes {
            if set.is_empty() {
                return Err(RedundancyError::BadSystem(
                    "a class has an empty server set".into(),
                ));
            }
            if !set.is_subset_of(full) {
                return Err(RedundancyError::BadSystem(format!(
                    "class {set}: a server is out of range 1..{k}"
                )));
            }
            if out.iter().any(|c| c.set == set) {
                return Err(RedundancyError::BadSystem(format!(
                    "two classes have the set {set}: give it once with the summed rate"
                )));
            }
            let rate_f64 = check_rate(&format!("the rate of class {set}"), &rate)?;
            out.push(Class {
                set,
                rate: rate.trim().to_string(),
                rate_f64,
            });
        }
        Ok(ClassSystem {
            rates: texts,
            rates_f64,
            classes: out,
        })
    }

    /// `servers` servers of rate 1.
    pub fn unit_rates(servers: usize) -> Vec<String> {
        vec!["1".to_string(); servers]
    }

    /// For the room's unit tests: `k` servers of rate 1 and the classes (server set as
    /// written, arrival rate), panicking on a bad one.
    #[cfg(test)]
    pub(crate) fn unit_for_tests(k: usize, classes: &[(&str, &str)]) -> Self {
        ClassSystem::new(
            ClassSystem::unit_rates(k),
            classes
                .iter()
                .map(|(s, r)| (ServerSet::parse(s, k).expect("a server set"), r.to_string()))
                .collect(),
        )
        .expect("a valid system")
    }

    /// K, the number of servers (each with its rate μ_s).
    pub fn servers(&self) -> usize {
        self.rates.len()
    }

    /// The classes, in the order given.
    pub fn classes(&self) -> &[Class] {
        &self.classes
    }

    /// μ_s as the decimals given.
    pub fn rate_texts(&self) -> &[String] {
        &self.rates
    }

    /// μ_s in f64.
    pub fn mu_f64(&self) -> &[f64] {
        &self.rates_f64
    }

    /// λ_c in f64.
    pub fn lambda_f64(&self) -> Vec<f64> {
        self.classes.iter().map(|c| c.rate_f64).collect()
    }

    /// μ_s at `bits`.
    pub fn mu(&self, bits: u32) -> Vec<Float> {
        self.rates
            .iter()
            .zip(&self.rates_f64)
            .map(|(t, &v)| parse_decimal(t, bits).unwrap_or_else(|_| Float::with_val(bits, v)))
            .collect()
    }

    /// λ_c at `bits`.
    pub fn lambda(&self, bits: u32) -> Vec<Float> {
        self.classes.iter().map(|c| c.rate(bits)).collect()
    }

    /// μ(S) = Σ_{s∈S} μ_s at `bits`.
    pub fn capacity(&self, set: ServerSet, bits: u32) -> Float {
        let mu = self.mu(bits);
        let mut t = Float::with_val(bits, 0);
        for s in set.iter() {
            if let Some(m) = mu.get(s) {
                t += m;
            }
        }
        t
    }

    /// Whether any two sets are disjoint or nested.
    pub fn nestedness(&self) -> Nestedness {
        for a in 0..self.classes.len() {
            for b in a + 1..self.classes.len() {
                let (x, y) = (self.classes[a].set, self.classes[b].set);
                if x.intersects(y) && !x.is_subset_of(y) && !y.is_subset_of(x) {
                    return Nestedness::NotNested { a, b };
                }
            }
        }
        Nestedness::Nested
    }

    /// The same servers and sets with the arrival rates `lambdas` (decimals, one per
    /// class).
    pub fn with_lambdas(&self, lambdas: &[String]) -> Result<ClassSystem, RedundancyError> {
        if lambdas.len() != self.classes.len() {
            return Err(RedundancyError::BadSystem(format!(
                "{} arrival rates for {} classes",
                lambdas.len(),
                self.classes.len()
            )));
        }
        ClassSystem::new(
            self.rates.clone(),
            self.classes
                .iter()
                .zip(lambdas)
                .map(|(c, l)| (c.set, l.clone()))
                .collect(),
        )
    }

    /// The same system with every λ_c multiplied by `factor` (computed at high precision
    /// and written back with [`RATE_DIGITS`] digits).
    pub fn scaled(&self, factor: &Float) -> Result<ClassSystem, RedundancyError> {
        let bits = factor.prec().max(CHECK_BITS) + 64;
        let l: Vec<String> = self
            .lambda(bits)
            .into_iter()
            .map(|x| to_sci(&Float::with_val(bits, x * factor), RATE_DIGITS))
            .collect();
        self.with_lambdas(&l)
    }

    /// The same classes on servers with the rates `rates`.
    pub fn with_rates(&self, rates: Vec<String>) -> Result<ClassSystem, RedundancyError> {
        if rates.len() != self.servers() {
            return Err(RedundancyError::BadSystem(format!(
                "{} server rates for a system of {} servers",
                rates.len(),
                self.servers()
            )));
        }
        ClassSystem::new(
            rates,
            self.classes
                .iter()
                .map(|c| (c.set, c.rate.clone()))
                .collect(),
        )
    }

    /// `{1}, {1+2}`: the sets of the classes `idx`.
    pub fn describe(&self, idx: &[usize]) -> String {
        let v: Vec<String> = idx
            .iter()
            .filter_map(|&i| self.classes.get(i))
            .map(|c| format!("{{{}}}", c.set))
            .collect();
        v.join(", ")
    }

    /// True when `name` names a preset (`n-model`, `w-model`, `nested-4`, or a family
    /// `redundancy-d:…`, `full:…`; its keys are checked by [`ClassSystem::preset`]).
    pub fn is_preset(name: &str) -> bool {
        let n = name.trim();
        PRESET_NAMES.contains(&n)
            || n.split_once(':')
                .is_some_and(|(f, _)| PRESET_FAMILIES.contains(&f.trim()))
    }

    /// A preset system: `n-model` (2 rates: {1}, {1+2}), `w-model` (3: {1}, {2}, {1+2}),
    /// `nested-4` (7 rates for {1}, {2}, {3}, {4}, {1+2}, {3+4}, {1+2+3+4}, or 3 rates
    /// for the singletons, the pairs and the full set), `redundancy-d:k=K,d=D` (one total
    /// rate split evenly over the C(k, d) sets of d servers) and `full:k=K` (one class on
    /// all K servers), all on servers of rate 1.
    ///
    /// ```
    /// use taskassign::redundancy::ClassSystem;
    /// let w = ClassSystem::preset("w-model", &["0.3".into(), "0.3".into(), "0.6".into()]).unwrap();
    /// assert_eq!(w.classes().len(), 3);
    /// let d = ClassSystem::preset("redundancy-d:k=4,d=2", &["1.2".into()]).unwrap();
    /// assert_eq!(d.classes().len(), 6);
    /// assert!(!d.nestedness().is_nested());
    /// ```
    pub fn preset(name: &str, lambdas: &[String]) -> Result<ClassSystem, RedundancyError> {
        let n = name.trim();
        let bad = |why: String| RedundancyError::BadSystem(format!("--system {n}: {why}"));
        let want = |k: usize| -> Result<(), RedundancyError> {
            if lambdas.len() == k {
                Ok(())
            } else {
                Err(bad(format!(
                    "needs {k} arrival rate{} (--lambdas), got {}",
                    if k == 1 { "" } else { "s" },
                    lambdas.len()
                )))
            }
        };
        let sets = |v: &[&[usize]]| -> Vec<ServerSet> {
            v.iter()
                .map(|s| {
                    ServerSet::of(&s.iter().map(|x| x - 1).collect::<Vec<_>>()).unwrap_or_default()
                })
                .collect()
        };
        let build = |k: usize, sets: Vec<ServerSet>, l: Vec<String>| {
            ClassSystem::new(
                ClassSystem::unit_rates(k),
                sets.into_iter().zip(l).collect(),
            )
        };
        match n {
            "n-model" => {
                want(2)?;
                build(2, sets(&[&[1], &[1, 2]]), lambdas.to_vec())
            }
            "w-model" => {
                want(3)?;
                build(2, sets(&[&[1], &[2], &[1, 2]]), lambdas.to_vec())
            }
            "nested-4" => {
                let s = sets(&[&[1], &[2], &[3], &[4], &[1, 2], &[3, 4], &[1, 2, 3, 4]]);
                let l = match lambdas.len() {
                    7 => lambdas.to_vec(),
                    3 => {
                        let (a, b, c) = (&lambdas[0], &lambdas[1], &lambdas[2]);
                        vec![a, a, a, a, b, b, c].into_iter().cloned().collect()
                    }
                    m => {
                        return Err(bad(format!(
                            "needs 7 arrival rates (one per class) or 3 (singletons, pairs, all four), got {m}"
                        )))
                    }
                };
                build(4, s, l)
            }
            _ => {
                let (fam, rest) = n
                    .split_once(':')
                    .ok_or_else(|| bad(format!("unknown preset (known: {PRESETS})")))?;
                let mut k: Option<usize> = None;
                let mut d: Option<usize> = None;
                for kv in rest.split(',').filter(|s| !s.trim().is_empty()) {
                    let (key, v) = kv
                        .split_once('=')
                        .ok_or_else(|| bad(format!("'{kv}' is not key=value")))?;
                    let v: usize = v
                        .trim()
                        .parse()
                        .map_err(|_| bad(format!("{key} must be a positive integer")))?;
                    match key.trim() {
                        "k" => k = Some(v),
                        "d" if fam == "redundancy-d" => d = Some(v),
                        other => return Err(bad(format!("unknown key '{other}'"))),
                    }
                }
                let k = k.ok_or_else(|| bad("give k=K".into()))?;
                if !(1..=MAX_SERVERS).contains(&k) {
                    return Err(bad(format!("k must be in 1..{MAX_SERVERS}")));
                }
                want(1)?;
                match fam {
                    "full" => build(k, vec![ServerSet::full(k)], lambdas.to_vec()),
                    "redundancy-d" => {
                        let d = d.ok_or_else(|| bad("give d=D".into()))?;
                        if d < 1 || d > k {
                            return Err(bad(format!("d must be in 1..{k}")));
                        }
                        let subsets: Vec<ServerSet> = (0u64..(1u64 << k))
                            .filter(|m| m.count_ones() as usize == d)
                            .map(|m| ServerSet::from_mask(m as u32))
                            .collect();
                        if subsets.len() > MAX_CLASSES {
                            return Err(bad(format!(
                                "C({k}, {d}) = {} classes exceeds {MAX_CLASSES}",
                                subsets.len()
                            )));
                        }
                        let total = parse_decimal(&lambdas[0], CHECK_BITS + 64).map_err(|_| {
                            bad(format!("'{}' is not a finite decimal number", lambdas[0]))
                        })?;
                        let each = to_sci(
                            &Float::with_val(CHECK_BITS + 64, &total / subsets.len() as u32),
                            RATE_DIGITS,
                        );
                        let n = subsets.len();
                        build(k, subsets, vec![each; n])
                    }
                    _ => Err(bad(
                        "unknown preset (known: n-model, w-model, nested-4, redundancy-d:k=K,d=D, full:k=K)"
                            .into(),
                    )),
                }
            }
        }
    }

    /// Parses a class `SET:RATE` (`1+2:0.6`) for a system of `servers` servers.
    pub fn parse_class(text: &str, servers: usize) -> Result<(ServerSet, String), RedundancyError> {
        let (set, rate) = text.split_once(':').ok_or_else(|| {
            RedundancyError::BadSystem(format!("class '{text}': expected SET:RATE, e.g. 1+2:0.6"))
        })?;
        let s = ServerSet::parse(set, servers)?;
        check_rate(&format!("the rate of class {s}"), rate)?;
        Ok((s, rate.trim().to_string()))
    }

    /// Reads a system from TOML text:
    ///
    /// ```toml
    /// rates = ["1", "2"]        # or: servers = 2 (rates 1)
    /// [[class]]
    /// set = "1"                 # servers joined by '+', or a list [1, 2]
    /// rate = "0.3"              # a decimal string (or a number)
    /// [[class]]
    /// set = [1, 2]
    /// rate = "0.6"
    /// ```
    ///
    /// `origin` names the text in errors (a file path).
    pub fn from_toml(text: &str, origin: &str) -> Result<ClassSystem, RedundancyError> {
        let f: SystemFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .and_then(|s| text.get(..s.start))
                .map_or(1, |t| t.matches('\n').count() + 1);
            RedundancyError::BadSystem(format!(
                "{origin}:{line}: {}",
                crate::error::toml_reason(&e, text)
            ))
        })?;
        let rates = match (f.rates, f.servers) {
            (Some(_), Some(_)) => {
                return Err(RedundancyError::BadSystem(format!(
                    "{origin}: give either rates or servers, not both"
                )))
            }
            (Some(r), None) => r
                .iter()
                .map(number_text)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| RedundancyError::BadSystem(format!("{origin}: rates: {e}")))?,
            (None, Some(k)) => {
                if k < 1 || k as usize > MAX_SERVERS {
                    return Err(RedundancyError::BadSystem(format!(
                        "{origin}: servers must be in 1..{MAX_SERVERS}"
                    )));
                }
                ClassSystem::unit_rates(k as usize)
            }
            (None, None) => {
                return Err(RedundancyError::BadSystem(format!(
                    "{origin}: give rates = [...] or servers = K"
                )))
            }
        };
        let k = rates.len();
        let mut classes = Vec::new();
        for (i, c) in f.class.iter().enumerate() {
            let set = match &c.set {
                toml::Value::String(s) => ServerSet::parse(s, k),
                toml::Value::Array(a) => {
                    let mut v = Vec::new();
                    for x in a {
                        match x.as_integer() {
                            Some(s) if s >= 1 && (s as usize) <= k => v.push(s as usize - 1),
                            _ => {
                                return Err(RedundancyError::BadSystem(format!(
                                    "{origin}: class {}: set entries must be server numbers 1..{k}",
                                    i + 1
                                )))
                            }
                        }
                    }
                    Ok(ServerSet::of(&v).unwrap_or_default())
                }
                _ => Err(RedundancyError::BadSystem(
                    "set must be a string like \"1+2\" or a list [1, 2]".into(),
                )),
            }
            .map_err(|e| RedundancyError::BadSystem(format!("{origin}: class {}: {e}", i + 1)))?;
            let rate = number_text(&c.rate).map_err(|e| {
                RedundancyError::BadSystem(format!("{origin}: class {}: rate: {e}", i + 1))
            })?;
            classes.push((set, rate));
        }
        ClassSystem::new(rates, classes)
            .map_err(|e| RedundancyError::BadSystem(format!("{origin}: {e}")))
    }
}

/// A TOML system file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SystemFile {
    #[serde(default)]
    rates: Option<Vec<toml::Value>>,
    #[serde(default)]
    servers: Option<i64>,
    #[serde(default)]
    class: Vec<ClassEntry>,
}

/// One `[[class]]` of a system file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClassEntry {
    set: toml::Value,
    rate: toml::Value,
}

/// A rate written as a string or a TOML number (a float's shortest decimal form is the
/// number as typed).
fn number_text(v: &toml::Value) -> Result<String, String> {
    match v {
        toml::Value::String(s) => Ok(s.clone()),
        toml::Value::Integer(i) => Ok(i.to_string()),
        toml::Value::Float(f) => Ok(format!("{f}")),
        _ => Err("expected a number or a decimal string".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn presets_have_the_papers_sets() {
        let n = ClassSystem::preset("n-model", &s(&["0.3", "0.6"])).unwrap();
        let sets: Vec<String> = n.classes().iter().map(|c| c.set.to_string()).collect();
        assert_eq!(sets, ["1", "1+2"]);
        let q = ClassSystem::preset("nested-4", &s(&["0.1", "0.2", "0.3"])).unwrap();
        let sets: Vec<String> = q.classes().iter().map(|c| c.set.to_string()).collect();
        assert_eq!(sets, ["1", "2", "3", "4", "1+2", "3+4", "1+2+3+4"]);
        assert!(q.nestedness().is_nested());
        assert_eq!(q.classes()[4].rate_text(), "0.2");
        let f = ClassSystem::preset("full:k=3", &s(&["1.5"])).unwrap();
        assert_eq!(f.classes()[0].set.to_string(), "1+2+3");
        // Redundancy-d: C(4,2) = 6 classes of rate 1.2/6 = 0.2.
        let d = ClassSystem::preset("redundancy-d:k=4,d=2", &s(&["1.2"])).unwrap();
        assert!(d
            .classes()
            .iter()
            .all(|c| (c.rate_f64() - 0.2).abs() < 1e-15));
        assert!(matches!(d.nestedness(), Nestedness::NotNested { .. }));
    }

    #[test]
    fn bad_systems_are_input_errors() {
        let one = |x: &str| ClassSystem::parse_class(x, 2);
        assert!(one("3:0.5").is_err());
        assert!(one(":0.5").is_err());
        assert!(one("1:-0.5").is_err());
        assert!(one("1:abc").is_err());
        assert!(one("1+1:0.5").is_err());
        assert!(one("1").is_err());
        let set = ServerSet::parse("1", 2).unwrap();
        assert!(ClassSystem::new(s(&["1", "0"]), vec![(set, "0.1".into())]).is_err());
        assert!(ClassSystem::new(s(&["1"]), vec![]).is_err());
        assert!(
            ClassSystem::new(s(&["1"]), vec![(set, "0.1".into()), (set, "0.2".into())]).is_err()
        );
        assert!(ClassSystem::preset("w-model", &s(&["0.1"])).is_err());
        assert!(ClassSystem::preset("v-model", &s(&["0.1"])).is_err());
        assert!(ClassSystem::preset("redundancy-d:k=3,d=4", &s(&["0.1"])).is_err());
    }

    #[test]
    fn toml_files() {
        let t = "rates = [\"1\", 2]\n[[class]]\nset = \"1\"\nrate = 0.3\n[[class]]\nset = [1, 2]\nrate = \"0.6\"\n";
        let sys = ClassSystem::from_toml(t, "x.toml").unwrap();
        assert_eq!(sys.rate_texts(), ["1", "2"]);
        assert_eq!(sys.classes()[0].rate_text(), "0.3");
        assert_eq!(sys.classes()[1].set.to_string(), "1+2");
        assert!(
            ClassSystem::from_toml("servers = 2\n[[class]]\nset = \"3\"\nrate = \"1\"\n", "y")
                .is_err()
        );
        assert!(ClassSystem::from_toml("servers = 2\nbogus = 1\n", "y").is_err());
    }

    #[test]
    fn nestedness_finds_the_overlapping_pair() {
        let sys = ClassSystem::new(
            ClassSystem::unit_rates(3),
            vec![
                (ServerSet::parse("1+2", 3).unwrap(), "0.1".into()),
                (ServerSet::parse("3", 3).unwrap(), "0.1".into()),
                (ServerSet::parse("2+3", 3).unwrap(), "0.1".into()),
            ],
        )
        .unwrap();
        assert_eq!(sys.nestedness(), Nestedness::NotNested { a: 0, b: 2 });
    }
}
