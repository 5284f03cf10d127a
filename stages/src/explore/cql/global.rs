//! The global constraint after `::` (CQP's): comparisons between labelled tokens and values.
//!
//! **In:** the characters after `::`. **Out:** a [`Constraint`] tree.
//!
//! **Invariants:** every label named is defined by the sequence before `::` or is `match` /
//! `matchend`, else the error points at it; nesting is bounded like the token conditions'.

use super::parser::Parser;
use super::{BUILT_IN_LABELS, CqlError, Test};

/// A global constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Constraint {
    /// `a.lemma = b.lemma`, `a.word != "x"`.
    Compare(Compare),
    /// A bare label: true when its (optional) token was matched.
    Set(String),
    /// All of them.
    And(Vec<Constraint>),
    /// One of them at least.
    Or(Vec<Constraint>),
    /// Not.
    Not(Box<Constraint>),
}

/// `left = right` or `left != right`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compare {
    /// The labelled token's attribute.
    pub left: Reference,
    /// Another labelled token's attribute, or a regular expression.
    pub right: Operand,
    /// `!=`.
    pub negated: bool,
}

/// `label.attr`: a positional attribute (`lemma`) or a region's (`text_host`, `s_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// A label of the sequence, `match` or `matchend`.
    pub label: String,
    /// The attribute's name.
    pub attr: String,
}

/// The right side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// Equal values.
    Reference(Reference),
    /// A value matching the regular expression (the test's `attr` is empty).
    Pattern(Test),
}

impl Parser {
    pub(super) fn constraint(&mut self) -> Result<Constraint, CqlError> {
        let mut all = vec![self.constraint_and()?];
        while self.eat('|') {
            all.push(self.constraint_and()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Constraint::Or(all)
        })
    }

    fn constraint_and(&mut self) -> Result<Constraint, CqlError> {
        let mut all = vec![self.constraint_not()?];
        while self.eat('&') {
            all.push(self.constraint_not()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Constraint::And(all)
        })
    }

    fn constraint_not(&mut self) -> Result<Constraint, CqlError> {
        self.deeper()?;
        let c = if self.eat('!') {
            Constraint::Not(Box::new(self.constraint_not()?))
        } else if self.eat('(') {
            let c = self.constraint()?;
            self.expect(')')?;
            c
        } else {
            self.comparison()?
        };
        self.depth -= 1;
        Ok(c)
    }

    fn comparison(&mut self) -> Result<Constraint, CqlError> {
        let (label, attr) = self.reference()?;
        let Some(attr) = attr else {
            if self.peek().is_some_and(|c| c == '=' || c == '!') {
                return Err(self.error(&format!(
                    "compare an attribute of `{label}`: {label}.lemma = …"
                )));
            }
            return Ok(Constraint::Set(label));
        };
        let left = Reference { label, attr };
        let negated = if self.eat('!') {
            self.expect('=')?;
            true
        } else {
            if !self.eat('=') {
                return Err(self.error(&format!(
                    "expected = or != after {}.{}",
                    left.label, left.attr
                )));
            }
            false
        };
        let right = if matches!(self.peek(), Some('"' | '\'')) {
            let (pattern, ignore_case, ignore_diacritics) = self.pattern()?;
            Operand::Pattern(Test {
                attr: String::new(),
                pattern,
                ignore_case,
                ignore_diacritics,
                negated: false,
            })
        } else {
            match self.reference()? {
                (label, Some(attr)) => Operand::Reference(Reference { label, attr }),
                (label, None) => {
                    return Err(self.error(&format!(
                        "compare with an attribute: {label}.lemma, or a quoted value"
                    )));
                }
            }
        };
        Ok(Constraint::Compare(Compare {
            left,
            right,
            negated,
        }))
    }

    /// `label` or `label.attr`, the label checked against those the sequence defines.
    fn reference(&mut self) -> Result<(String, Option<String>), CqlError> {
        self.skip_space();
        let at = self.pos;
        if !self
            .chars
            .get(self.pos)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
        {
            return Err(self.error("expected a label (a.lemma, match.text_host) after ::"));
        }
        let label = self.ident()?;
        if !self.labels.contains(&label) && !BUILT_IN_LABELS.contains(&label.as_str()) {
            let end = self.pos;
            self.pos = at;
            let mut known: Vec<&str> = self.labels.iter().map(String::as_str).collect();
            known.extend(BUILT_IN_LABELS);
            let e = self.error(&format!(
                "the label `{label}` is not defined before :: (labels here: {})",
                known.join(", ")
            ));
            self.pos = end;
            return Err(e);
        }
        let attr = if self.chars.get(self.pos) == Some(&'.') {
            self.pos += 1;
            Some(self.ident()?)
        } else {
            None
        };
        Ok((label, attr))
    }
}
