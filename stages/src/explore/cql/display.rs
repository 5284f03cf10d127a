//! The canonical text of a query: what [`super::parse`] reads back to the same [`Query`].
//!
//! **In:** a parsed query. **Out:** its text. **Invariants:** `parse(q.to_string()) == q`.

use std::fmt;

use super::{Atom, Cond, Constraint, Item, Operand, Query, Reference, Test, Within};

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

/// `(a OP b OP c)`.
fn write_joined<T: fmt::Display>(f: &mut fmt::Formatter<'_>, all: &[T], op: &str) -> fmt::Result {
    f.write_str("(")?;
    for (i, c) in all.iter().enumerate() {
        if i > 0 {
            f.write_str(op)?;
        }
        write!(f, "{c}")?;
    }
    f.write_str(")")
}

impl fmt::Display for Cond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Any => Ok(()),
            Cond::Test(t) => write!(f, "{t}"),
            Cond::And(all) => write_joined(f, all, " & "),
            Cond::Or(all) => write_joined(f, all, " | "),
            Cond::Not(a) => write!(f, "!({a})"),
        }
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = &self.label {
            write!(f, "{l}:")?;
        }
        match &self.atom {
            Atom::Tag(t) => {
                let slash = if t.close { "/" } else { "" };
                write!(f, "<{slash}{}", t.region)?;
                for a in &t.attrs {
                    write!(f, " {a}")?;
                }
                f.write_str(">")?;
            }
            Atom::Region(w) => write_region(f, w)?,
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

fn write_region(f: &mut fmt::Formatter<'_>, w: &Within) -> fmt::Result {
    write!(f, "<{}", w.region)?;
    for t in &w.attrs {
        write!(f, " {t}")?;
    }
    f.write_str("/>")
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.label, self.attr)
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Constraint::Set(l) => f.write_str(l),
            Constraint::Compare(c) => {
                let op = if c.negated { "!=" } else { "=" };
                write!(f, "{} {op} ", c.left)?;
                match &c.right {
                    Operand::Reference(r) => write!(f, "{r}"),
                    Operand::Pattern(t) => {
                        let shown = Test {
                            attr: String::new(),
                            negated: false,
                            ..t.clone()
                        };
                        // `="…"%c` without its `=`: the test's display with an empty name.
                        let text = shown.to_string();
                        f.write_str(text.strip_prefix('=').unwrap_or(&text))
                    }
                }
            }
            Constraint::And(all) => write_joined(f, all, " & "),
            Constraint::Or(all) => write_joined(f, all, " | "),
            Constraint::Not(c) => write!(f, "!({c})"),
        }
    }
}

impl fmt::Display for Query {
    /// The query in a canonical form that [`super::parse`] reads back to the same [`Query`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_sequence(f, &self.sequence)?;
        if let Some(c) = &self.constraint {
            write!(f, " :: {c}")?;
        }
        if let Some(w) = &self.within {
            if w.attrs.is_empty() {
                write!(f, " within {}", w.region)?;
            } else {
                f.write_str(" within ")?;
                write_region(f, w)?;
            }
        }
        for c in &self.containing {
            let not = if c.negated { "not " } else { "" };
            // The inner query in parentheses-free form: its sequence and its constraint.
            write!(f, " {not}containing ")?;
            write_sequence(f, &c.query.sequence)?;
            if let Some(k) = &c.query.constraint {
                write!(f, " :: {k}")?;
            }
        }
        Ok(())
    }
}
