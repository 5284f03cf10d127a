//! The Corpus Query Language (CQL) of CQP, Sketch Engine and BlackLab, parsed into a [`Query`].
//!
//! **In:** a query string such as `[lemma="graphe" & pos="NOUN"] []{0,3} [pos="ADJ"] within s`.
//!
//! **Out:** a [`Query`]: a sequence of items (a token pattern or a parenthesised group of
//! alternative sequences, each with a repetition), and an optional `within` clause (a region
//! such as `s`, `p`, `text`/`doc`, or `<doc host="…"/>` with attribute conditions).
//!
//! What is understood, with the syntax users of those tools know:
//! - token patterns: `[attr="regex"]`, `[attr!="regex"]`, `"word"` or `'word'` alone, flags `%c`
//!   (ignore case), `%d` (ignore diacritics), `%l` (literal: no regex operator), combined;
//!   conditions combined with `&`, `|`, `!` and parentheses; `[]` is any
//!   token; a bare `"regex"` is `[word="regex"]`;
//! - repetition of an item: `?`, `*`, `+`, `{n}`, `{n,}`, `{n,m}`, `{,m}`;
//! - groups of alternative sequences: `([word="a"] | [word="b"] [word="c"])`;
//! - `within s`, `within p`, `within text` (`doc` is a synonym), `within <doc host="x.*"/>`.
//!
//! Regular expressions are those of the `regex` crate and match the whole value (as in CQP).
//!
//! **Invariants:** never panics (nesting deeper than [`MAX_DEPTH`] is an error, not a stack
//! overflow); an error names the character position in the query and what was expected there.

use std::fmt;

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The sequence of items a hit must match, in order.
    pub sequence: Sequence,
    /// The region a hit must lie in, if any.
    pub within: Option<Within>,
}

/// Items matched one after the other.
pub type Sequence = Vec<Item>;

/// One item of a sequence with its repetition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What is repeated.
    pub atom: Atom,
    /// Least number of repetitions.
    pub min: u32,
    /// Most repetitions; `None` for `*`, `+`, `{n,}` (bounded by the engine's longest hit).
    pub max: Option<u32>,
}

/// A token pattern or a group of alternative sequences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    /// One token satisfying the condition (`[]` is [`Cond::Any`]).
    Token(Cond),
    /// One of several sequences: `(a b | c)`.
    Group(Vec<Sequence>),
}

/// A condition on one token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cond {
    /// Any token: `[]`.
    Any,
    /// `attr="regex"` (`negated` for `attr!="regex"`).
    Test(Test),
    /// All of them (two or more: `a & b & c` is one list, so a long chain is not a deep tree).
    And(Vec<Cond>),
    /// One of them at least (two or more).
    Or(Vec<Cond>),
    /// Not.
    Not(Box<Cond>),
}

/// `attr="regex"%flags` or `attr!="regex"%flags`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Test {
    /// Attribute name: `word`, `lc`, `lemma`, `pos`, … (whatever the index holds).
    pub attr: String,
    /// The regular expression, matched against the whole value.
    pub pattern: String,
    /// `%c`.
    pub ignore_case: bool,
    /// `%d`.
    pub ignore_diacritics: bool,
    /// `!=`.
    pub negated: bool,
}

/// The region a hit must lie in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Within {
    /// Region name as written (`s`, `p`, `text`, `doc`, …).
    pub region: String,
    /// Conditions on the region's attributes (`<doc host="x"/>`), all required.
    pub attrs: Vec<Test>,
}

/// Why a query could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("query, at character {at}: {message}")]
pub struct CqlError {
    /// 1-based character position in the query.
    pub at: usize,
    /// What was wrong.
    pub message: String,
}

/// Parses a CQL query.
pub fn parse(query: &str) -> Result<Query, CqlError> {
    let mut p = Parser {
        chars: query.chars().collect(),
        pos: 0,
        depth: 0,
    };
    let sequence = p.sequence()?;
    if sequence.is_empty() {
        return Err(p.error("expected a token pattern such as [word=\"graphe\"]"));
    }
    p.skip_space();
    let within = if p.keyword("within") {
        Some(p.within()?)
    } else {
        None
    };
    p.skip_space();
    if p.pos < p.chars.len() {
        return Err(p.error(&format!("unexpected `{}`", p.chars[p.pos])));
    }
    Ok(Query { sequence, within })
}

impl Query {
    /// The positional attributes the query tests, each once, in order of appearance.
    pub fn attributes(&self) -> Vec<String> {
        fn cond(c: &Cond, out: &mut Vec<String>) {
            match c {
                Cond::Any => {}
                Cond::Test(t) => {
                    if !out.contains(&t.attr) {
                        out.push(t.attr.clone());
                    }
                }
                Cond::And(all) | Cond::Or(all) => all.iter().for_each(|c| cond(c, out)),
                Cond::Not(a) => cond(a, out),
            }
        }
        fn sequence(seq: &[Item], out: &mut Vec<String>) {
            for item in seq {
                match &item.atom {
                    Atom::Token(c) => cond(c, out),
                    Atom::Group(alts) => alts.iter().for_each(|a| sequence(a, out)),
                }
            }
        }
        let mut out = Vec::new();
        sequence(&self.sequence, &mut out);
        out
    }
}

/// Deepest nesting of parentheses, groups and `!` a query may have.
pub const MAX_DEPTH: usize = 100;

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn error(&self, message: &str) -> CqlError {
        let end = if self.pos >= self.chars.len() {
            " at the end of the query"
        } else {
            ""
        };
        CqlError {
            at: self.pos + 1,
            message: format!("{message}{end}"),
        }
    }

    fn skip_space(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), CqlError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{c}`")))
        }
    }

    /// A keyword followed by a non-identifier character.
    fn keyword(&mut self, word: &str) -> bool {
        self.skip_space();
        let end = self.pos + word.chars().count();
        if end > self.chars.len() {
            return false;
        }
        let here: String = self.chars[self.pos..end].iter().collect();
        let boundary = self
            .chars
            .get(end)
            .is_none_or(|c| !(c.is_alphanumeric() || *c == '_'));
        if here == word && boundary {
            self.pos = end;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Result<String, CqlError> {
        self.skip_space();
        let start = self.pos;
        while self
            .chars
            .get(self.pos)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '-')
        {
            self.pos += 1;
        }
        if start == self.pos {
            return Err(self.error("expected an attribute name such as word, lemma or pos"));
        }
        Ok(self.chars[start..self.pos].iter().collect())
    }

    fn sequence(&mut self) -> Result<Sequence, CqlError> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some('[') | Some('"') | Some('\'') | Some('(') => items.push(self.item()?),
                _ => return Ok(items),
            }
        }
    }

    fn item(&mut self) -> Result<Item, CqlError> {
        let atom = match self.peek() {
            Some('[') => {
                self.pos += 1;
                let cond = if self.eat(']') {
                    Cond::Any
                } else {
                    let c = self.or()?;
                    self.expect(']')?;
                    c
                };
                Atom::Token(cond)
            }
            Some('"' | '\'') => {
                let (pattern, ignore_case, ignore_diacritics) = self.pattern()?;
                Atom::Token(Cond::Test(Test {
                    attr: "word".to_string(),
                    pattern,
                    ignore_case,
                    ignore_diacritics,
                    negated: false,
                }))
            }
            _ => {
                self.expect('(')?;
                self.deeper()?;
                let mut alternatives = vec![self.sequence()?];
                while self.eat('|') {
                    alternatives.push(self.sequence()?);
                }
                if alternatives.iter().any(Vec::is_empty) {
                    return Err(self.error("an alternative in ( … | … ) is empty"));
                }
                self.expect(')')?;
                self.depth -= 1;
                Atom::Group(alternatives)
            }
        };
        let (min, max) = self.repetition()?;
        Ok(Item { atom, min, max })
    }

    fn repetition(&mut self) -> Result<(u32, Option<u32>), CqlError> {
        // A repetition sign follows its item directly, as in CQP.
        match self.chars.get(self.pos) {
            Some('?') => {
                self.pos += 1;
                Ok((0, Some(1)))
            }
            Some('*') => {
                self.pos += 1;
                Ok((0, None))
            }
            Some('+') => {
                self.pos += 1;
                Ok((1, None))
            }
            Some('{') => {
                self.pos += 1;
                let min = self.number()?.unwrap_or(0);
                let max = if self.eat(',') {
                    self.number()?
                } else {
                    Some(min)
                };
                self.expect('}')?;
                if let Some(max) = max
                    && max < min
                {
                    return Err(self.error(&format!(
                        "{{{min},{max}}}: the maximum is below the minimum"
                    )));
                }
                if max == Some(0) {
                    return Err(self.error("a repetition of at most 0 matches nothing"));
                }
                Ok((min, max))
            }
            _ => Ok((1, Some(1))),
        }
    }

    fn number(&mut self) -> Result<Option<u32>, CqlError> {
        self.skip_space();
        let start = self.pos;
        while self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
            self.pos += 1;
        }
        if start == self.pos {
            return Ok(None);
        }
        let digits: String = self.chars[start..self.pos].iter().collect();
        digits
            .parse::<u32>()
            .map(Some)
            .map_err(|_| self.error(&format!("{digits} is too large a repetition")))
    }

    fn or(&mut self) -> Result<Cond, CqlError> {
        let mut all = vec![self.and()?];
        while self.eat('|') {
            all.push(self.and()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Cond::Or(all)
        })
    }

    fn and(&mut self) -> Result<Cond, CqlError> {
        let mut all = vec![self.not()?];
        while self.eat('&') {
            all.push(self.not()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Cond::And(all)
        })
    }

    fn deeper(&mut self) -> Result<(), CqlError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(&format!("nested more than {MAX_DEPTH} levels deep")));
        }
        Ok(())
    }

    fn not(&mut self) -> Result<Cond, CqlError> {
        self.deeper()?;
        let cond = if self.eat('!') {
            Cond::Not(Box::new(self.not()?))
        } else if self.eat('(') {
            let c = self.or()?;
            self.expect(')')?;
            c
        } else {
            Cond::Test(self.test()?)
        };
        self.depth -= 1;
        Ok(cond)
    }

    fn test(&mut self) -> Result<Test, CqlError> {
        let attr = self.ident()?;
        let negated = self.eat('!');
        self.expect('=')?;
        let (pattern, ignore_case, ignore_diacritics) = self.pattern()?;
        Ok(Test {
            attr,
            pattern,
            ignore_case,
            ignore_diacritics,
            negated,
        })
    }

    /// `"…"` or `'…'` with `\` escapes kept for the regex, then optional `%c`, `%d`, `%cd`.
    fn pattern(&mut self) -> Result<(String, bool, bool), CqlError> {
        let quote = match self.peek() {
            Some(q @ ('"' | '\'')) => q,
            _ => return Err(self.error("expected a quoted regular expression")),
        };
        self.pos += 1;
        let mut pattern = String::new();
        loop {
            match self.chars.get(self.pos) {
                None => return Err(self.error("the quoted expression is not closed")),
                Some('\\') => {
                    // `\"` is a quote inside the pattern; other escapes go to the regex.
                    match self.chars.get(self.pos + 1) {
                        Some(&c) if c == quote => pattern.push(c),
                        Some(&c) => {
                            pattern.push('\\');
                            pattern.push(c);
                        }
                        None => return Err(self.error("the quoted expression is not closed")),
                    }
                    self.pos += 2;
                }
                Some(&c) if c == quote => {
                    self.pos += 1;
                    break;
                }
                Some(&c) => {
                    pattern.push(c);
                    self.pos += 1;
                }
            }
        }
        let (mut case, mut diacritics, mut literal) = (false, false, false);
        if self.chars.get(self.pos) == Some(&'%') {
            self.pos += 1;
            let start = self.pos;
            while let Some(&c) = self.chars.get(self.pos) {
                match c {
                    'c' => case = true,
                    'd' => diacritics = true,
                    'l' => literal = true,
                    _ if c.is_alphanumeric() => {
                        return Err(self.error(&format!(
                            "unknown flag %{c}: %c ignores case, %d diacritics, %l takes the \
                             value literally"
                        )));
                    }
                    _ => break,
                }
                self.pos += 1;
            }
            if start == self.pos {
                return Err(self.error("expected c, d or l after %"));
            }
        }
        if literal {
            // `%l`: the characters themselves, none of them a regex operator (CQP's flag).
            pattern = regex::escape(&pattern.replace("\\\\", "\\"));
        }
        Ok((pattern, case, diacritics))
    }

    fn within(&mut self) -> Result<Within, CqlError> {
        if self.eat('<') {
            let region = self.ident()?;
            let mut attrs = Vec::new();
            loop {
                if self.eat('/') {
                    self.expect('>')?;
                    break;
                }
                if self.eat('>') {
                    break;
                }
                attrs.push(self.test()?);
            }
            return Ok(Within { region, attrs });
        }
        self.skip_space();
        if !self
            .chars
            .get(self.pos)
            .is_some_and(|c| c.is_alphanumeric())
        {
            return Err(self.error("expected a region after within: s, p, text (doc) or <doc …/>"));
        }
        Ok(Within {
            region: self.ident()?,
            attrs: Vec::new(),
        })
    }
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = if self.negated { "!=" } else { "=" };
        write!(
            f,
            "{}{op}\"{}\"",
            self.attr,
            self.pattern.replace('"', "\\\"")
        )?;
        if self.ignore_case || self.ignore_diacritics {
            f.write_str("%")?;
            if self.ignore_case {
                f.write_str("c")?;
            }
            if self.ignore_diacritics {
                f.write_str("d")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Any => Ok(()),
            Cond::Test(t) => write!(f, "{t}"),
            Cond::And(all) | Cond::Or(all) => {
                let op = if matches!(self, Cond::And(_)) {
                    " & "
                } else {
                    " | "
                };
                f.write_str("(")?;
                for (i, c) in all.iter().enumerate() {
                    if i > 0 {
                        f.write_str(op)?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_str(")")
            }
            Cond::Not(a) => write!(f, "!({a})"),
        }
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.atom {
            Atom::Token(c) => write!(f, "[{c}]")?,
            Atom::Group(alternatives) => {
                f.write_str("(")?;
                for (i, seq) in alternatives.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write_sequence(f, seq)?;
                }
                f.write_str(")")?;
            }
        }
        match (self.min, self.max) {
            (1, Some(1)) => Ok(()),
            (min, Some(max)) => write!(f, "{{{min},{max}}}"),
            (min, None) => write!(f, "{{{min},}}"),
        }
    }
}

fn write_sequence(f: &mut fmt::Formatter<'_>, seq: &[Item]) -> fmt::Result {
    for (i, item) in seq.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl fmt::Display for Query {
    /// The query in a canonical form that [`parse`] reads back to the same [`Query`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_sequence(f, &self.sequence)?;
        if let Some(w) = &self.within {
            if w.attrs.is_empty() {
                write!(f, " within {}", w.region)?;
            } else {
                write!(f, " within <{}", w.region)?;
                for t in &w.attrs {
                    write!(f, " {t}")?;
                }
                f.write_str("/>")?;
            }
        }
        Ok(())
    }
}
