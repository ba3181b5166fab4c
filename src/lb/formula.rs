//! The d(N) formula of JSQ(d(N)): a tiny expression language in N (numbers, `N`,
//! `+ - * / ^`, parentheses, `log` = `ln`, `log2`, `sqrt`) read by recursive descent and
//! evaluated in f64; [`super::model::DSpec`] rounds its value up and caps it at N.

use super::model::LbError;

/// A formula for d in N: a tiny expression language (numbers, `N`, `+ - * / ^`,
/// parentheses, `log` = `ln`, `log2`, `sqrt`).
#[derive(Debug, Clone, PartialEq)]
pub enum Formula {
    /// A number.
    Num(f64),
    /// N.
    N,
    /// Natural logarithm.
    Ln(Box<Formula>),
    /// Base-2 logarithm.
    Log2(Box<Formula>),
    /// Square root.
    Sqrt(Box<Formula>),
    /// a + b.
    Add(Box<Formula>, Box<Formula>),
    /// a − b.
    Sub(Box<Formula>, Box<Formula>),
    /// a · b.
    Mul(Box<Formula>, Box<Formula>),
    /// a / b.
    Div(Box<Formula>, Box<Formula>),
    /// a ^ b.
    Pow(Box<Formula>, Box<Formula>),
    /// −a.
    Neg(Box<Formula>),
}

impl Formula {
    /// The value at N.
    ///
    /// ```
    /// use taskassign::lb::Formula;
    /// let f = Formula::parse("sqrt(N)*log(N)").unwrap();
    /// let v = f.eval(100.0);
    /// assert!((v - 10.0 * 100f64.ln()).abs() < 1e-12);
    /// ```
    pub fn eval(&self, n: f64) -> f64 {
        match self {
            Formula::Num(x) => *x,
            Formula::N => n,
            Formula::Ln(a) => a.eval(n).ln(),
            Formula::Log2(a) => a.eval(n).log2(),
            Formula::Sqrt(a) => a.eval(n).sqrt(),
            Formula::Add(a, b) => a.eval(n) + b.eval(n),
            Formula::Sub(a, b) => a.eval(n) - b.eval(n),
            Formula::Mul(a, b) => a.eval(n) * b.eval(n),
            Formula::Div(a, b) => a.eval(n) / b.eval(n),
            Formula::Pow(a, b) => a.eval(n).powf(b.eval(n)),
            Formula::Neg(a) => -a.eval(n),
        }
    }

    /// True when the formula does not mention N.
    pub fn is_constant(&self) -> bool {
        match self {
            Formula::Num(_) => true,
            Formula::N => false,
            Formula::Ln(a) | Formula::Log2(a) | Formula::Sqrt(a) | Formula::Neg(a) => {
                a.is_constant()
            }
            Formula::Add(a, b)
            | Formula::Sub(a, b)
            | Formula::Mul(a, b)
            | Formula::Div(a, b)
            | Formula::Pow(a, b) => a.is_constant() && b.is_constant(),
        }
    }

    /// Parses a formula (recursive descent; `^` binds tighter than unary minus and is
    /// right-associative).
    pub fn parse(text: &str) -> Result<Formula, LbError> {
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
            text,
        };
        let f = p.expr()?;
        p.skip_ws();
        if p.pos != p.s.len() {
            return Err(p.err(&format!("unexpected '{}'", &text[p.pos..])));
        }
        Ok(f)
    }
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    text: &'a str,
}

/// The constructor of a binary node (`Formula::Add`, …).
type BinaryNode = fn(Box<Formula>, Box<Formula>) -> Formula;

impl Parser<'_> {
    fn err(&self, reason: &str) -> LbError {
        LbError::BadFormula {
            text: self.text.to_string(),
            reason: reason.to_string(),
        }
    }

    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn expr(&mut self) -> Result<Formula, LbError> {
        self.left_assoc([(b'+', Formula::Add), (b'-', Formula::Sub)], Self::term)
    }

    fn term(&mut self) -> Result<Formula, LbError> {
        self.left_assoc([(b'*', Formula::Mul), (b'/', Formula::Div)], Self::unary)
    }

    /// One level of left-associative binary operators: operands parsed by `operand`,
    /// joined by the bytes of `ops` (each with the node it builds) from the left.
    fn left_assoc(
        &mut self,
        ops: [(u8, BinaryNode); 2],
        operand: fn(&mut Self) -> Result<Formula, LbError>,
    ) -> Result<Formula, LbError> {
        let mut a = operand(self)?;
        while let Some(c) = self.peek() {
            let Some(&(_, node)) = ops.iter().find(|(o, _)| *o == c) else {
                break;
            };
            self.pos += 1;
            a = node(Box::new(a), Box::new(operand(self)?));
        }
        Ok(a)
    }

    fn unary(&mut self) -> Result<Formula, LbError> {
        if self.peek() == Some(b'-') {
            self.pos += 1;
            return Ok(Formula::Neg(Box::new(self.unary()?)));
        }
        self.power()
    }

    fn power(&mut self) -> Result<Formula, LbError> {
        let base = self.primary()?;
        if self.peek() == Some(b'^') {
            self.pos += 1;
            let exp = self.unary()?;
            return Ok(Formula::Pow(Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Formula, LbError> {
        match self.peek() {
            None => Err(self.err("unexpected end")),
            Some(b'(') => {
                self.pos += 1;
                let e = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err(self.err("missing ')'"));
                }
                self.pos += 1;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                let start = self.pos;
                while self.pos < self.s.len()
                    && (self.s[self.pos].is_ascii_digit() || self.s[self.pos] == b'.')
                {
                    self.pos += 1;
                }
                // An exponent part: e or E, optional sign, digits.
                if self.pos < self.s.len() && matches!(self.s[self.pos], b'e' | b'E') {
                    let save = self.pos;
                    self.pos += 1;
                    if self.pos < self.s.len() && matches!(self.s[self.pos], b'+' | b'-') {
                        self.pos += 1;
                    }
                    let digits = self.pos;
                    while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
                        self.pos += 1;
                    }
                    if self.pos == digits {
                        self.pos = save;
                    }
                }
                let t = &self.text[start..self.pos];
                t.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .map(Formula::Num)
                    .ok_or_else(|| self.err(&format!("'{t}' is not a number")))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.pos < self.s.len() && self.s[self.pos].is_ascii_alphanumeric() {
                    self.pos += 1;
                }
                let name = &self.text[start..self.pos];
                if name == "N" || name == "n" {
                    return Ok(Formula::N);
                }
                let make: fn(Box<Formula>) -> Formula = match name {
                    "log" | "ln" => Formula::Ln,
                    "log2" => Formula::Log2,
                    "sqrt" => Formula::Sqrt,
                    _ => return Err(self.err(&format!("unknown name '{name}'"))),
                };
                if self.peek() != Some(b'(') {
                    return Err(self.err(&format!("'{name}' needs '('")));
                }
                self.pos += 1;
                let arg = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err(self.err("missing ')'"));
                }
                self.pos += 1;
                Ok(make(Box::new(arg)))
            }
            Some(c) => Err(self.err(&format!("unexpected '{}'", c as char))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_parse_and_evaluate() {
        // Values computed by hand at N = 10^4.
        let n: f64 = 1e4;
        let cases = [
            ("2", 2.0),
            ("log(N)", n.ln()),
            ("sqrt(N)", 100.0),
            ("sqrt(N)*log(N)", 100.0 * n.ln()),
            ("N^0.75", 1000.0),
            ("N", n),
            ("2*N/4 - 1", n / 2.0 - 1.0),
            ("sqrt(N)*log(N)^2", 100.0 * n.ln() * n.ln()),
            ("-(-3)", 3.0),
            ("1e1", 10.0),
        ];
        for (t, v) in cases {
            let f = Formula::parse(t).unwrap();
            assert!((f.eval(n) - v).abs() <= 1e-9 * v.abs(), "{t}");
        }
        for bad in ["", "sqrt(N", "foo(N)", "N N", "2 +", "sqrt N", "1e", "*"] {
            let e = Formula::parse(bad);
            assert!(
                matches!(e, Err(LbError::BadFormula { .. })) || (bad == "1e" && e.is_err()),
                "{bad}: {e:?}"
            );
        }
    }
}
