//! The quantity language of claim files: arithmetic over computed quantities.
//!
//! ```text
//! expr    := term (('+' | '-') term)*
//! term    := unary (('*' | '/') unary)*
//! unary   := '-' unary | power
//! power   := primary ('^' unary)?
//! primary := NUMBER | NAME | NAME '(' args? ')' field? | '(' expr ')'
//! args    := arg (',' arg)*          arg := NAME '=' (expr | STRING) | expr | STRING
//! field   := '.' NAME ('[' INTEGER ']')?
//! ```
//!
//! Numbers are decimal literals read at the working precision (never through `f64`).
//! A bare NAME is a grid variable (or `h`, `load`, …, see the schema). Calls are either
//! mathematical functions (`ln`, `log10`, `exp`, `sqrt`, `abs`, `min`, `max`) or computed
//! quantities (`opt(tags).value`, `threshold(hosts=inf)`, …; see [`super::compute`]).
//! Words of the language that contain a hyphen (policy names such as `sita-e` and
//! `tags-minmax`) are single names: the caller passes the language's words to [`parse`].

use std::fmt;

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `^`
    Pow,
}

/// A field selected from a computed quantity: `.value`, `.cutoff[1]`, `.host_load[-1]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// 1-based index (negative counts from the end: −1 is the last).
    pub index: Option<i64>,
}

/// A call argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A positional expression (a bare word such as `tags` is an [`Expr::Var`]).
    Pos(Expr),
    /// A positional string literal.
    Str(String),
    /// `name = expr`.
    Named(String, Box<Arg>),
}

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A decimal literal, kept as written.
    Num(String),
    /// A name.
    Var(String),
    /// Unary minus.
    Neg(Box<Expr>),
    /// A binary operation.
    Bin(Op, Box<Expr>, Box<Expr>),
    /// A call, with an optional field.
    Call {
        /// Function or quantity name.
        name: String,
        /// Arguments.
        args: Vec<Arg>,
        /// Selected field.
        field: Option<Field>,
    },
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Num(s) | Expr::Var(s) => write!(f, "{s}"),
            Expr::Neg(e) => write!(f, "-({e})"),
            Expr::Bin(op, a, b) => {
                let o = match op {
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                    Op::Pow => "^",
                };
                write!(f, "({a} {o} {b})")
            }
            Expr::Call { name, args, field } => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")?;
                if let Some(fl) = field {
                    write!(f, ".{}", fl.name)?;
                    if let Some(i) = fl.index {
                        write!(f, "[{i}]")?;
                    }
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Pos(e) => write!(f, "{e}"),
            Arg::Str(s) => write!(f, "\"{s}\""),
            Arg::Named(n, a) => write!(f, "{n}={a}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(String),
    Name(String),
    Str(String),
    Sym(char),
}

/// The tokens of `s`; a word of `words` that contains a hyphen (`sita-e`) is one name.
fn lex(s: &str, words: &[&str]) -> Result<Vec<Tok>, String> {
    let hyphenated: Vec<&str> = words.iter().copied().filter(|w| w.contains('-')).collect();
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch.is_ascii_digit()
            || (ch == '.' && c.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let st = i;
            while i < c.len() && (c[i].is_ascii_digit() || c[i] == '.') {
                i += 1;
            }
            if i < c.len() && (c[i] == 'e' || c[i] == 'E') {
                let mut j = i + 1;
                if j < c.len() && (c[j] == '+' || c[j] == '-') {
                    j += 1;
                }
                if j < c.len() && c[j].is_ascii_digit() {
                    i = j;
                    while i < c.len() && c[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            out.push(Tok::Num(c[st..i].iter().collect()));
        } else if ch.is_ascii_alphabetic() || ch == '_' {
            let st = i;
            while i < c.len() && (c[i].is_ascii_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let mut word: String = c[st..i].iter().collect();
            for &hw in &hyphenated {
                let n = hw.chars().count();
                let rest: String = c[st..].iter().take(n).collect();
                let after = c.get(st + n);
                if rest == hw && !after.is_some_and(|a| a.is_ascii_alphanumeric() || *a == '_') {
                    word = hw.to_string();
                    i = st + n;
                }
            }
            out.push(Tok::Name(word));
        } else if ch == '"' || ch == '\'' {
            let st = i + 1;
            i += 1;
            while i < c.len() && c[i] != ch {
                i += 1;
            }
            if i >= c.len() {
                return Err("unterminated string".into());
            }
            out.push(Tok::Str(c[st..i].iter().collect()));
            i += 1;
        } else if "+-*/^(),.=[]".contains(ch) {
            out.push(Tok::Sym(ch));
            i += 1;
        } else {
            return Err(format!("unexpected character '{ch}'"));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn sym(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Sym(c))
    }
    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.sym(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected '{c}'{}", self.here()))
        }
    }
    fn here(&self) -> String {
        match self.peek() {
            None => " at the end".into(),
            Some(Tok::Num(s)) | Some(Tok::Name(s)) => format!(" before '{s}'"),
            Some(Tok::Str(s)) => format!(" before \"{s}\""),
            Some(Tok::Sym(c)) => format!(" before '{c}'"),
        }
    }
    fn expr(&mut self) -> Result<Expr, String> {
        self.left_assoc([('+', Op::Add), ('-', Op::Sub)], Self::term)
    }
    fn term(&mut self) -> Result<Expr, String> {
        self.left_assoc([('*', Op::Mul), ('/', Op::Div)], Self::unary)
    }
    /// One level of left-associative binary operators: operands parsed by `operand`,
    /// joined by the symbols of `ops` (each with its operator) from the left.
    fn left_assoc(
        &mut self,
        ops: [(char, Op); 2],
        operand: fn(&mut Self) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        let mut a = operand(self)?;
        while let Some(&(_, op)) = ops.iter().find(|(c, _)| self.sym(*c)) {
            self.pos += 1;
            let b = operand(self)?;
            a = Expr::Bin(op, Box::new(a), Box::new(b));
        }
        Ok(a)
    }
    fn unary(&mut self) -> Result<Expr, String> {
        if self.sym('-') {
            self.pos += 1;
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.sym('+') {
            self.pos += 1;
            return self.unary();
        }
        let base = self.primary()?;
        if self.sym('^') {
            self.pos += 1;
            let e = self.unary()?;
            return Ok(Expr::Bin(Op::Pow, Box::new(base), Box::new(e)));
        }
        Ok(base)
    }
    fn arg(&mut self) -> Result<Arg, String> {
        if let Some(Tok::Str(s)) = self.peek() {
            let s = s.clone();
            self.pos += 1;
            return Ok(Arg::Str(s));
        }
        if let (Some(Tok::Name(n)), Some(Tok::Sym('='))) =
            (self.toks.get(self.pos), self.toks.get(self.pos + 1))
        {
            let n = n.clone();
            self.pos += 2;
            let v = if let Some(Tok::Str(s)) = self.peek() {
                let s = s.clone();
                self.pos += 1;
                Arg::Str(s)
            } else {
                Arg::Pos(self.expr()?)
            };
            return Ok(Arg::Named(n, Box::new(v)));
        }
        Ok(Arg::Pos(self.expr()?))
    }
    fn primary(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Tok::Num(s)) => {
                self.pos += 1;
                Ok(Expr::Num(s))
            }
            Some(Tok::Sym('(')) => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect(')')?;
                Ok(e)
            }
            Some(Tok::Name(n)) => {
                self.pos += 1;
                if !self.sym('(') {
                    return Ok(Expr::Var(n));
                }
                self.pos += 1;
                let mut args = Vec::new();
                if !self.sym(')') {
                    loop {
                        args.push(self.arg()?);
                        if self.sym(',') {
                            self.pos += 1;
                        } else {
                            break;
                        }
                    }
                }
                self.expect(')')?;
                let field = if self.sym('.') {
                    self.pos += 1;
                    let name = match self.peek().cloned() {
                        Some(Tok::Name(f)) => f,
                        _ => return Err(format!("expected a field name after '.'{}", self.here())),
                    };
                    self.pos += 1;
                    let index = if self.sym('[') {
                        self.pos += 1;
                        let neg = if self.sym('-') {
                            self.pos += 1;
                            true
                        } else {
                            false
                        };
                        let i = match self.peek().cloned() {
                            Some(Tok::Num(d)) => d
                                .parse::<i64>()
                                .map_err(|_| format!("index '{d}' is not an integer"))?,
                            _ => return Err(format!("expected an index{}", self.here())),
                        };
                        self.pos += 1;
                        self.expect(']')?;
                        if i == 0 {
                            return Err("indices start at 1 (use -1 for the last)".into());
                        }
                        Some(if neg { -i } else { i })
                    } else {
                        None
                    };
                    Some(Field { name, index })
                } else {
                    None
                };
                Ok(Expr::Call {
                    name: n,
                    args,
                    field,
                })
            }
            _ => Err(format!("expected a number, a name or '('{}", self.here())),
        }
    }
}

/// Parses an expression. `words` are the language's bare words (the registry's,
/// [`crate::claims::Registry::words`]): one that contains a hyphen is read as one name
/// (`sita-e`), any other hyphen is a minus.
///
/// ```
/// use taskassign::claims::parse_expr as parse;
/// let words = taskassign::claims::registry().words();
/// let e = parse("opt(tags).value / opt(sita-e).value", &words).unwrap();
/// assert_eq!(e.to_string(), "(opt(tags).value / opt(sita-e).value)");
/// assert_eq!(parse("sita-e", &[]).unwrap().to_string(), "(sita - e)");
/// assert!(parse("1 +", &words).is_err());
/// ```
pub fn parse(s: &str, words: &[&str]) -> Result<Expr, String> {
    let toks = lex(s, words)?;
    if toks.is_empty() {
        return Err("empty expression".into());
    }
    let mut p = Parser { toks, pos: 0 };
    let e = p.expr()?;
    if p.pos != p.toks.len() {
        return Err(format!("unexpected text{}", p.here()));
    }
    Ok(e)
}

/// The names of the variables an expression reads (outside call arguments' names).
pub fn variables(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Num(_) => {}
        Expr::Var(v) => {
            if !out.contains(v) {
                out.push(v.clone())
            }
        }
        Expr::Neg(a) => variables(a, out),
        Expr::Bin(_, a, b) => {
            variables(a, out);
            variables(b, out);
        }
        Expr::Call { args, .. } => {
            for a in args {
                let inner = match a {
                    Arg::Named(_, v) => v.as_ref(),
                    other => other,
                };
                if let Arg::Pos(x) = inner {
                    variables(x, out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hyphenated words as the registry has them.
    const WORDS: &[&str] = &["sita-e", "tags-minmax", "inf"];

    #[test]
    fn precedence() {
        assert_eq!(
            parse("1 + 2 * 3", WORDS).unwrap().to_string(),
            "(1 + (2 * 3))"
        );
        assert_eq!(parse("-2 ^ 2", WORDS).unwrap().to_string(), "-((2 ^ 2))");
        assert_eq!(
            parse("a - b - c", WORDS).unwrap().to_string(),
            "((a - b) - c)"
        );
        assert_eq!(parse("1e-3 * p", WORDS).unwrap().to_string(), "(1e-3 * p)");
    }

    #[test]
    fn calls_and_fields() {
        let e = parse(
            "opt(sita, alpha=1, dist=\"exp:rate=1\").host_load[-1]",
            WORDS,
        )
        .unwrap();
        assert_eq!(
            e.to_string(),
            "opt(sita, alpha=1, dist=\"exp:rate=1\").host_load[-1]"
        );
        assert!(parse("opt(tags).cutoff[0]", WORDS).is_err());
        assert!(parse("opt(tags).", WORDS).is_err());
        assert!(parse("x $ y", WORDS).is_err());
    }

    #[test]
    fn hyphen_words_do_not_eat_subtraction() {
        assert_eq!(parse("sita-e", WORDS).unwrap(), Expr::Var("sita-e".into()));
        assert_eq!(parse("sita-e2", WORDS).unwrap().to_string(), "(sita - e2)");
        assert_eq!(parse("p-k", WORDS).unwrap().to_string(), "(p - k)");
    }
}
