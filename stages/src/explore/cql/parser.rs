//! The parser of [`super::Query`]: a hand-written recursive descent over the query's
//! characters, so that every error can name its position.
//!
//! **In:** the query's characters. **Out:** the query's parts, or a [`CqlError`] at a position.
//!
//! **Invariants:** nesting is bounded by [`MAX_DEPTH`]; no input panics.

use super::{Atom, Cond, CqlError, Item, MAX_DEPTH, Query, Sequence, Tag, Test, Within};

pub(super) struct Parser {
    pub(super) chars: Vec<char>,
    pub(super) pos: usize,
    pub(super) depth: usize,
    /// The labels the sequence being parsed defines (for the constraint's check).
    pub(super) labels: Vec<String>,
}

impl Parser {
    pub(super) fn error(&self, message: &str) -> CqlError {
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

    pub(super) fn skip_space(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    pub(super) fn peek(&mut self) -> Option<char> {
        self.skip_space();
        self.chars.get(self.pos).copied()
    }

    pub(super) fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, c: char) -> Result<(), CqlError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected `{c}`")))
        }
    }

    /// A keyword followed by a non-identifier character.
    pub(super) fn keyword(&mut self, word: &str) -> bool {
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

    pub(super) fn ident(&mut self) -> Result<String, CqlError> {
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

    pub(super) fn new(query: &str) -> Parser {
        Parser {
            chars: query.chars().collect(),
            pos: 0,
            depth: 0,
            labels: Vec::new(),
        }
    }

    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.chars.len()
    }

    pub(super) fn current(&self) -> char {
        self.chars.get(self.pos).copied().unwrap_or(' ')
    }

    /// A sequence and its clauses: `:: constraint`, and at the top level `within …`,
    /// `containing …`, `not containing …`, in any order.
    pub(super) fn query(&mut self, top: bool) -> Result<Query, CqlError> {
        let outer = std::mem::take(&mut self.labels);
        let start = self.pos;
        let sequence = self.sequence()?;
        if sequence.is_empty() {
            return Err(self.error("expected a token pattern such as [word=\"graphe\"]"));
        }
        if !consumes_a_token(&sequence) {
            let at = self.pos;
            self.pos = start;
            self.skip_space();
            let e = self.error("a query needs a token pattern, not tags alone (as <s> [] or <s/>)");
            self.pos = at;
            return Err(e);
        }
        let mut query = Query::of_sequence(sequence);
        loop {
            self.skip_space();
            if self.chars.get(self.pos) == Some(&':') && self.chars.get(self.pos + 1) == Some(&':')
            {
                if query.constraint.is_some() {
                    return Err(self.error("one global constraint after ::, joined with & or |"));
                }
                self.pos += 2;
                query.constraint = Some(self.constraint()?);
            } else if top && self.keyword("within") {
                if query.within.is_some() {
                    return Err(self.error("one within clause per query"));
                }
                query.within = Some(self.within()?);
            } else if top && self.keyword("containing") {
                let inner = self.query(false)?;
                query.containing.push(super::Containing {
                    negated: false,
                    query: Box::new(inner),
                });
            } else if top && self.keyword("not") {
                if !self.keyword("containing") {
                    return Err(self.error("expected `containing` after `not`"));
                }
                let inner = self.query(false)?;
                query.containing.push(super::Containing {
                    negated: true,
                    query: Box::new(inner),
                });
            } else {
                break;
            }
        }
        self.labels = outer;
        Ok(query)
    }

    fn sequence(&mut self) -> Result<Sequence, CqlError> {
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some('[') | Some('"') | Some('\'') | Some('(') | Some('<') => {
                    items.push(self.item(None)?);
                }
                Some('@') => {
                    self.pos += 1;
                    let item = self.labelled("target")?;
                    items.push(item);
                }
                Some(c) if c.is_alphanumeric() || c == '_' => {
                    let back = self.pos;
                    let name = self.ident()?;
                    let colon = self.chars.get(self.pos) == Some(&':')
                        && self.chars.get(self.pos + 1) != Some(&':');
                    if !colon {
                        self.pos = back;
                        return Ok(items);
                    }
                    self.pos += 1;
                    let item = self.labelled(&name)?;
                    items.push(item);
                }
                _ => return Ok(items),
            }
        }
    }

    /// The token pattern after `name:` (or `@`).
    fn labelled(&mut self, name: &str) -> Result<Item, CqlError> {
        if super::BUILT_IN_LABELS.contains(&name) {
            return Err(self.error(&format!(
                "`{name}` is set by the engine (the hit's first or last token): choose another label"
            )));
        }
        if !matches!(self.peek(), Some('[' | '"' | '\'')) {
            return Err(self.error(&format!("a label names one token pattern: {name}:[…]")));
        }
        if !self.labels.iter().any(|l| l == name) {
            self.labels.push(name.to_string());
        }
        self.item(Some(name.to_string()))
    }

    fn item(&mut self, label: Option<String>) -> Result<Item, CqlError> {
        let atom = match self.peek() {
            Some('<') => {
                let atom = self.tag()?;
                if matches!(atom, Atom::Tag(_))
                    && matches!(self.chars.get(self.pos), Some('?' | '*' | '+' | '{'))
                {
                    return Err(self.error("a tag such as <s> or </s> cannot be repeated"));
                }
                atom
            }
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
        Ok(Item {
            atom,
            min,
            max,
            label,
        })
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

    pub(super) fn number(&mut self) -> Result<Option<u32>, CqlError> {
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

    pub(super) fn deeper(&mut self) -> Result<(), CqlError> {
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

    pub(super) fn test(&mut self) -> Result<Test, CqlError> {
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
    pub(super) fn pattern(&mut self) -> Result<(String, bool, bool), CqlError> {
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
        if self.peek() == Some('<') {
            return match self.tag()? {
                Atom::Region(w) => Ok(w),
                _ => Err(self.error("within takes a region: s, p, text or <doc host=\"…\"/>")),
            };
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

    /// `<s>`, `</s>`, `<text host="x">`, `<text_host="x">`, `<s/>`, `<doc host="x"/>`.
    fn tag(&mut self) -> Result<Atom, CqlError> {
        self.expect('<')?;
        let close = self.eat('/');
        let mut region = self.ident()?;
        let mut attrs = Vec::new();
        // CQP's `<text_host="x">`: the region's attribute joined to its name.
        if !close && matches!(self.peek(), Some('=' | '!')) {
            let Some((r, a)) = region.split_once('_') else {
                return Err(self.error(&format!(
                    "expected <{region} attribute=\"value\"> or <region_attribute=\"value\">"
                )));
            };
            let (r, a) = (r.to_string(), a.to_string());
            let negated = self.eat('!');
            self.expect('=')?;
            let (pattern, ignore_case, ignore_diacritics) = self.pattern()?;
            attrs.push(Test {
                attr: a,
                pattern,
                ignore_case,
                ignore_diacritics,
                negated,
            });
            region = r;
        }
        loop {
            if !close && self.eat('/') {
                self.expect('>')?;
                return Ok(Atom::Region(Within { region, attrs }));
            }
            if self.eat('>') {
                return Ok(Atom::Tag(Tag {
                    region,
                    close,
                    attrs,
                }));
            }
            if close {
                return Err(self.error("expected `>`: a closing tag has no attributes"));
            }
            attrs.push(self.test()?);
        }
    }
}

/// Whether a sequence holds something else than tags (a hit holds at least one token).
fn consumes_a_token(seq: &[Item]) -> bool {
    seq.iter().any(|item| !matches!(item.atom, Atom::Tag(_)))
}
