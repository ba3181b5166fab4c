//! What a quantity declares ([`Signature`]): its name, the model it needs, what it takes
//! positionally, its named arguments and its fields. The compiler validates calls against
//! it and the evaluator reads its arguments through it.

/// What a quantity takes positionally.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positional {
    /// Nothing (only named arguments).
    None,
    /// One word out of `choices` (`opt(tags)`); `what` names it in messages.
    Word {
        /// What the word is (`policy`).
        what: &'static str,
        /// The words accepted.
        choices: &'static [&'static str],
    },
    /// One number, an expression (`moment(2)`); `what` names it in messages.
    Number {
        /// The number's name (`j`).
        what: &'static str,
    },
}

/// A named argument a quantity reads itself (not a setup override).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamedArg {
    /// The name (`cutoffs`, `jobs`).
    pub name: &'static str,
    /// Bare words it accepts besides expressions and strings (`balanced`, policy names).
    pub words: &'static [&'static str],
}

/// A field of a quantity's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    /// The name after the dot.
    pub name: &'static str,
    /// Whether it is a vector (read as `name[i]`).
    pub indexed: bool,
    /// For a vector with one entry per host (or per cutoff): its length is h + this
    /// (`cutoff[i]`: h − 1), so that the compiler refuses an index past the end where h
    /// is known when the file is compiled. `None`: the length is known only at run time.
    pub per_host: Option<i64>,
}

impl FieldSpec {
    /// A scalar field.
    pub const fn scalar(name: &'static str) -> Self {
        FieldSpec {
            name,
            indexed: false,
            per_host: None,
        }
    }
    /// A vector field.
    pub const fn vector(name: &'static str) -> Self {
        FieldSpec {
            name,
            indexed: true,
            per_host: None,
        }
    }
    /// A vector field with h + `offset` entries, h the number of hosts (`cutoff`: −1).
    pub const fn per_host(name: &'static str, offset: i64) -> Self {
        FieldSpec {
            name,
            indexed: true,
            per_host: Some(offset),
        }
    }
    /// As a claim file writes it (`cutoff[i]`).
    pub fn shown(&self) -> String {
        if self.indexed {
            format!("{}[i]", self.name)
        } else {
            self.name.to_string()
        }
    }
}

/// The scalar field `value` alone (most quantities).
pub const VALUE_ONLY: &[FieldSpec] = &[FieldSpec::scalar("value")];

/// What a quantity declares: its name, the model it needs, its arguments and fields.
#[derive(Debug, Clone, Copy)]
pub struct Signature {
    /// The name a claim calls.
    pub name: &'static str,
    /// The system model whose `[setup]` it reads (`None`: any).
    pub model: Option<&'static str>,
    /// What it takes positionally.
    pub positional: Positional,
    /// The named arguments it reads itself.
    pub named: &'static [NamedArg],
    /// Its fields.
    pub fields: &'static [FieldSpec],
    /// The field read when the expression names none.
    pub default_field: &'static str,
    /// One line: what it computes.
    pub summary: &'static str,
}

impl Signature {
    /// The declaration of a quantity that takes no argument and has one field, `value`:
    /// its name, the model whose `[setup]` it reads (`None`: any) and its one-line summary.
    pub const fn value_only(
        name: &'static str,
        model: Option<&'static str>,
        summary: &'static str,
    ) -> Signature {
        Signature {
            name,
            model,
            positional: Positional::None,
            named: &[],
            fields: VALUE_ONLY,
            default_field: "value",
            summary,
        }
    }

    /// Whether `name` is one of the quantity's own named arguments.
    pub fn takes(&self, name: &str) -> bool {
        self.named.iter().any(|a| a.name == name)
    }
    /// Whether the quantity declares field `name`.
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }
    /// The call as a claim writes it: `opt(sita|sita-e|tags|tags-minmax)`,
    /// `lwl_sim(jobs=, replications=, seed=, warmup=)`.
    pub fn usage(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        match self.positional {
            Positional::None => {}
            Positional::Word { choices, .. } => parts.push(choices.join("|")),
            Positional::Number { what } => parts.push(what.to_string()),
        }
        parts.extend(self.named.iter().map(|a| format!("{}=", a.name)));
        format!("{}({})", self.name, parts.join(", "))
    }

    /// The fields as a claim writes them, for messages.
    pub fn fields_shown(&self) -> String {
        self.fields
            .iter()
            .map(FieldSpec::shown)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What a system model declares: its name and the constants its `[setup]` and its values
/// are read with (a model's counterpart of a quantity's [`Signature`]).
#[derive(Debug, Clone, Copy)]
pub struct ModelSignature {
    /// The name `model = "…"` gives.
    pub name: &'static str,
    /// The setup keys a call may override (`opt(tags, hosts=3)`).
    pub keys: &'static [&'static str],
    /// Groups of keys of which one value holds at a time: overriding one clears the
    /// others (`load`, `lambda`, `load_per_host`).
    pub exclusive: &'static [&'static [&'static str]],
    /// The names with a value at every point of the model's claims (`hosts`, `rho`;
    /// reserved: no grid variable may take them).
    pub variables: &'static [&'static str],
    /// Bare words the model's values take (metric names, `inf`): the compiler accepts
    /// them in expressions.
    pub words: &'static [&'static str],
    /// Every key its `[setup]` may give besides the shared `model` and `digits` (those of
    /// its serde type: the compiler names each other key as unknown, all in one run).
    pub setup_keys: &'static [&'static str],
    /// The keys its `[setup]` must give.
    pub required: &'static [&'static str],
}
