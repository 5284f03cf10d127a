//! The formula's parser: precedence (NOT, NEAR, AND, OR, tightest first), implicit AND, and the
//! lowering of the parse tree to numbered leaf clauses.
//!
//! **In:** the lexer's tokens. **Out:** the evaluation tree and its distinct leaf clauses (a clause
//! written twice is one leaf), or a [`FormulaError`].
//!
//! **Invariants:** nesting deeper than [`MAX_DEPTH`] is a parse error, never a stack overflow.

use std::collections::HashMap;

use super::lex::{Tok, TokKind};
use super::{Clause, ClauseKey, FormulaError, Leaf, MAX_DEPTH, Node, Term, error};

/// The parse tree before leaves are numbered.
#[derive(Debug)]
pub(super) enum Ast {
    Term(Term),
    Near(Term, Term, u32),
    Not(Box<Ast>),
    And(Vec<Ast>),
    Or(Vec<Ast>),
}

/// Builds an n-ary AND or OR, splicing operands that are the same operator, so that
/// `(a AND b) AND c` and `a AND b AND c` are one tree (and `Display` round-trips).
fn combine(items: Vec<Ast>, and: bool) -> Ast {
    let mut flat = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Ast::And(inner) if and => flat.extend(inner),
            Ast::Or(inner) if !and => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if flat.len() == 1
        && let Some(only) = flat.pop()
    {
        return only;
    }
    if and { Ast::And(flat) } else { Ast::Or(flat) }
}

pub(super) struct Parser {
    pub(super) toks: Vec<Tok>,
    pub(super) pos: usize,
    /// Current nesting of parentheses and NOTs.
    pub(super) depth: usize,
}

impl Parser {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn prev(&self) -> Option<&Tok> {
        self.pos.checked_sub(1).and_then(|p| self.toks.get(p))
    }

    fn enter(&mut self, col: usize) -> Result<(), FormulaError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(error(
                col,
                format!(
                    "the formula is nested too deeply (more than {MAX_DEPTH} parentheses or NOTs \
                     inside each other); simplify it"
                ),
            ));
        }
        Ok(())
    }

    pub(super) fn parse_or(&mut self) -> Result<Ast, FormulaError> {
        let mut items = vec![self.parse_and()?];
        while self.peek().is_some_and(|t| matches!(t.kind, TokKind::Or)) {
            self.pos += 1;
            items.push(self.parse_and()?);
        }
        Ok(combine(items, false))
    }

    fn parse_and(&mut self) -> Result<Ast, FormulaError> {
        let mut items = vec![self.parse_near()?];
        while let Some(tok) = self.peek() {
            match tok.kind {
                TokKind::And => {
                    self.pos += 1;
                    items.push(self.parse_near()?);
                }
                // Two operands side by side: implicit AND, as in search engines.
                TokKind::Term(_) | TokKind::LParen | TokKind::Not => {
                    items.push(self.parse_near()?);
                }
                _ => break,
            }
        }
        Ok(combine(items, true))
    }

    fn parse_near(&mut self) -> Result<Ast, FormulaError> {
        let left = self.parse_unary()?;
        let Some(tok) = self.peek() else {
            return Ok(left);
        };
        let TokKind::Near(distance) = tok.kind else {
            return Ok(left);
        };
        let near_col = tok.col;
        let near_text = tok.text.clone();
        self.pos += 1;
        let right = self.parse_unary()?;
        if let Some(next) = self.peek()
            && matches!(next.kind, TokKind::Near(_))
        {
            return Err(error(
                next.col,
                "NEAR clauses cannot be chained: write (a NEAR b) AND (b NEAR c)",
            ));
        }
        match (left, right) {
            (Ast::Term(left), Ast::Term(right)) => Ok(Ast::Near(left, right, distance)),
            (Ast::Term(_), _) => Err(error(
                near_col,
                format!(
                    "`{near_text}` needs a single term or phrase on its right, not NOT, NEAR or \
                     a group in parentheses; to exclude, write NOT (a NEAR b)"
                ),
            )),
            _ => Err(error(
                near_col,
                format!(
                    "`{near_text}` needs a single term or phrase on its left, not NOT, NEAR or \
                     a group in parentheses; to exclude, write NOT (a NEAR b)"
                ),
            )),
        }
    }

    fn parse_unary(&mut self) -> Result<Ast, FormulaError> {
        let Some(tok) = self.peek() else {
            return Err(self.missing_at_end());
        };
        let col = tok.col;
        match &tok.kind {
            TokKind::Term(term) => {
                let term = term.clone();
                self.pos += 1;
                Ok(Ast::Term(term))
            }
            TokKind::Not => {
                self.pos += 1;
                self.enter(col)?;
                let inner = self.parse_unary()?;
                self.depth -= 1;
                Ok(Ast::Not(Box::new(inner)))
            }
            TokKind::LParen => {
                self.pos += 1;
                self.enter(col)?;
                match self.peek() {
                    Some(next) if matches!(next.kind, TokKind::RParen) => {
                        return Err(error(
                            col,
                            "empty parentheses: put a term or a clause between ( and )",
                        ));
                    }
                    None => return Err(unclosed(col)),
                    Some(_) => {}
                }
                let inner = self.parse_or()?;
                match self.peek() {
                    Some(next) if matches!(next.kind, TokKind::RParen) => {
                        self.pos += 1;
                        self.depth -= 1;
                        Ok(inner)
                    }
                    _ => Err(unclosed(col)),
                }
            }
            TokKind::RParen => Err(match self.prev() {
                Some(prev) if prev.is_operator() => error(
                    prev.col,
                    format!("{} has no operand on its right", prev.quoted()),
                ),
                _ => error(col, "unbalanced parenthesis: this ) has no matching ("),
            }),
            TokKind::And | TokKind::Or | TokKind::Near(_) => Err(match self.prev() {
                Some(prev) if prev.is_operator() => error(
                    col,
                    format!(
                        "{} is followed by {}: a term is missing between them",
                        prev.quoted(),
                        tok.quoted()
                    ),
                ),
                _ => error(col, format!("{} has no operand on its left", tok.quoted())),
            }),
        }
    }

    fn missing_at_end(&self) -> FormulaError {
        match self.prev() {
            Some(prev) if prev.is_operator() => error(
                prev.col,
                format!("{} has no operand on its right", prev.quoted()),
            ),
            Some(prev) => error(
                prev.col,
                format!("the formula ends unexpectedly after {}", prev.quoted()),
            ),
            None => error(
                1,
                "the formula is empty: write at least one term, e.g. \"graphe\"",
            ),
        }
    }
}

fn unclosed(col: usize) -> FormulaError {
    error(
        col,
        "unbalanced parenthesis: this ( is never closed; add a ) after its clause",
    )
}

/// Numbers the leaves in formula order and records their polarity.
pub(super) struct Lowering {
    pub(super) leaves: Vec<Leaf>,
    pub(super) keys: HashMap<ClauseKey, usize>,
}

impl Lowering {
    fn leaf(&mut self, clause: Clause, negated: bool) -> Node {
        let index = self.leaves.len();
        let canonical = *self.keys.entry(clause.key()).or_insert(index);
        self.leaves.push(Leaf {
            clause,
            canonical,
            negated,
        });
        Node::Leaf(index)
    }

    pub(super) fn lower(&mut self, ast: Ast, negated: bool) -> Node {
        match ast {
            Ast::Term(term) => self.leaf(Clause::Term(term), negated),
            Ast::Near(left, right, distance) => self.leaf(
                Clause::Near {
                    left,
                    right,
                    distance,
                },
                negated,
            ),
            Ast::Not(inner) => Node::Not(Box::new(self.lower(*inner, !negated))),
            Ast::And(items) => Node::And(
                items
                    .into_iter()
                    .map(|item| self.lower(item, negated))
                    .collect(),
            ),
            Ast::Or(items) => Node::Or(
                items
                    .into_iter()
                    .map(|item| self.lower(item, negated))
                    .collect(),
            ),
        }
    }
}
