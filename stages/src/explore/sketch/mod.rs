//! Word sketches: a lemma's collocates by grammatical relation (object of, modifier, and/or…),
//! each scored by logDice, from a sketch grammar written in CQL.
//!
//! **In:** an index with a `lemma` attribute (and the attribute the grammar tests, `pos` in the
//! shipped grammars: Universal Dependencies parts of speech), a [`Grammar`], a lemma.
//!
//! **Out:** one [`Table`] per relation: the keyword's count in it (f_x) and its collocates with
//! f_xy, their corpus frequency f_y, logDice = 14 + log2(2·f_xy / (f_x + f_y)), and the CQL query
//! whose hits are exactly the f_xy pairs (the concordance one click away).
//!
//! The grammar is Sketch Engine's format, the part glaneur reads: `=name` starts a relation;
//! each following line is a CQL sequence with the keyword labelled `1:` and the collocate `2:`;
//! `*DUAL` before a relation named `a/b` makes it two (keyword at `1:` → `a`, keyword at `2:`
//! → `b`); `*SYMMETRIC` makes the keyword stand on either side of one relation; `*STRUCTLIMIT s`
//! keeps hits within a region; `#` starts a comment. The patterns of a relation are joined as
//! alternatives of one query, so that counts and concordance agree hit for hit.
//!
//! **Difference from Sketch Engine:** f_y is the collocate lemma's corpus frequency, as in
//! `glaneur colloc`, where Sketch Engine uses its count over every relation (which needs a
//! sketch database built ahead; glaneur computes a sketch on demand from the index).
//!
//! **Invariants:** a grammar error names its line and, for a pattern, the character; a relation
//! without both labels is an error; the queries obey the caller's interrupt.

use std::collections::HashMap;

use super::cql::{self, Atom, Cond, Item, Query, Sequence, Test, Within};
use super::index::{Columns, Index};
use super::query::{Interrupt, QueryError, Search};

/// The French sketch grammar shipped with glaneur (Universal Dependencies parts of speech).
pub const FRENCH: &str = include_str!("ud-fr.wsdef");
/// The English sketch grammar shipped with glaneur (Universal Dependencies parts of speech).
pub const ENGLISH: &str = include_str!("ud-en.wsdef");

/// The shipped grammar of a language code.
pub fn shipped(language: &str) -> Option<&'static str> {
    match language {
        "fr" => Some(FRENCH),
        "en" => Some(ENGLISH),
        _ => None,
    }
}

/// A sketch grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    /// Its relations, in the file's order.
    pub relations: Vec<Relation>,
}

/// One relation of a grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    /// Its name (`object`); with `*DUAL`, the name with the keyword at `1:`.
    pub name: String,
    /// With `*DUAL`, the name with the keyword at `2:` (`object_of`).
    pub dual: Option<String>,
    /// `*SYMMETRIC`: the keyword on either side.
    pub symmetric: bool,
    /// The region hits stay in (`*STRUCTLIMIT`).
    pub within: Option<String>,
    /// Its patterns, each with the labels `1` and `2`.
    pub patterns: Vec<Sequence>,
}

/// A grammar that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("sketch grammar, line {line}: {message}")]
pub struct GrammarError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong (a pattern's error names its character).
    pub message: String,
}

impl Grammar {
    /// Reads a grammar's text.
    pub fn parse(text: &str) -> Result<Grammar, GrammarError> {
        let mut relations: Vec<Relation> = Vec::new();
        let (mut dual, mut symmetric, mut within) = (false, false, None::<String>);
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let error = |message: String| GrammarError { line, message };
            let text = raw.split_once('#').map_or(raw, |(a, _)| a).trim();
            if text.is_empty() {
                continue;
            }
            if let Some(directive) = text.strip_prefix('*') {
                let mut words = directive.split_whitespace();
                match (words.next(), words.next()) {
                    (Some("DUAL"), None) => dual = true,
                    (Some("SYMMETRIC"), None) => symmetric = true,
                    (Some("STRUCTLIMIT"), Some(region)) => within = Some(region.to_string()),
                    (Some("DEFAULTATTR" | "FIRSTLIST" | "UNARY" | "TRINARY"), _) => {
                        return Err(error(format!(
                            "*{directive}: glaneur reads =relations, *DUAL, *SYMMETRIC and \
                             *STRUCTLIMIT"
                        )));
                    }
                    _ => return Err(error(format!("unknown directive *{directive}"))),
                }
                continue;
            }
            if let Some(name) = text.strip_prefix('=') {
                relations.push(relation(
                    name.trim(),
                    dual,
                    symmetric,
                    within.clone(),
                    line,
                )?);
                (dual, symmetric) = (false, false);
                continue;
            }
            let Some(current) = relations.last_mut() else {
                return Err(error("a pattern before the first =relation".into()));
            };
            current.patterns.push(pattern(text).map_err(error)?);
        }
        if let Some(empty) = relations.iter().find(|r| r.patterns.is_empty()) {
            return Err(GrammarError {
                line: text.lines().count(),
                message: format!("the relation ={} has no pattern", empty.name),
            });
        }
        if relations.is_empty() {
            return Err(GrammarError {
                line: 1,
                message: "no =relation in the grammar".into(),
            });
        }
        Ok(Grammar { relations })
    }
}

fn relation(
    name: &str,
    dual: bool,
    symmetric: bool,
    within: Option<String>,
    line: usize,
) -> Result<Relation, GrammarError> {
    let (name, second) = match name.split_once('/') {
        Some((a, b)) if dual => (a.trim().to_string(), Some(b.trim().to_string())),
        None if !dual => (name.to_string(), None),
        _ => {
            return Err(GrammarError {
                line,
                message: format!(
                    "={name}: a *DUAL relation is named a/b (object/object_of), another is not"
                ),
            });
        }
    };
    if name.is_empty() || second.as_ref().is_some_and(String::is_empty) {
        return Err(GrammarError {
            line,
            message: "a relation needs a name after =".into(),
        });
    }
    Ok(Relation {
        name,
        dual: second,
        symmetric,
        within,
        patterns: Vec::new(),
    })
}

/// One pattern line: a CQL sequence with labels `1` and `2`, no clause.
fn pattern(text: &str) -> Result<Sequence, String> {
    let query = cql::parse(text).map_err(|e| e.to_string())?;
    if query.within.is_some() || query.constraint.is_some() || !query.containing.is_empty() {
        return Err(format!(
            "`{text}`: a pattern is a sequence (no within, :: or containing; *STRUCTLIMIT s keeps \
             hits in sentences)"
        ));
    }
    let labels = query.labels();
    for need in ["1", "2"] {
        if !labels.iter().any(|l| l == need) {
            return Err(format!(
                "`{text}`: label the keyword 1:[…] and the collocate 2:[…] (no {need}: here)"
            ));
        }
    }
    Ok(query.sequence)
}

/// What a sketch is asked.
#[derive(Debug, Clone)]
pub struct Options {
    /// The attribute holding lemmas.
    pub lemma_attr: String,
    /// Least f_xy a collocate needs to be listed.
    pub min_freq: u64,
    /// Most collocates listed per relation.
    pub top: usize,
}

/// One relation's collocates of the keyword.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The relation's name (for a dual relation, the name for this side).
    pub relation: String,
    /// Hits of the relation with the keyword (f_x).
    pub keyword_hits: u64,
    /// Collocates, best logDice first.
    pub rows: Vec<Collocate>,
}

/// A collocate in a relation.
#[derive(Debug, Clone, PartialEq)]
pub struct Collocate {
    /// Its lemma.
    pub lemma: String,
    /// Hits of the relation with the keyword and this collocate.
    pub f_xy: u64,
    /// The lemma's corpus frequency.
    pub f_y: u64,
    /// 14 + log2(2·f_xy / (f_x + f_y)).
    pub log_dice: f64,
    /// The CQL query whose hits are the f_xy pairs.
    pub query: String,
}

/// The word sketch of `lemma`: one table per relation side, in the grammar's order.
pub fn sketch<C: Columns>(
    index: &Index<C>,
    grammar: &Grammar,
    lemma: &str,
    options: &Options,
    interrupt: Option<Interrupt>,
) -> Result<Vec<Table>, QueryError> {
    let attr = index
        .attribute(&options.lemma_attr)
        .ok_or_else(|| QueryError::unknown_attribute(index, &options.lemma_attr))?;
    let mut tables = Vec::new();
    for r in &grammar.relations {
        // (name, the keyword's label, the collocate's): one or two sides.
        let mut sides = vec![(r.name.clone(), vec![("1", "2")])];
        if r.symmetric {
            sides[0].1.push(("2", "1"));
        }
        if let Some(second) = &r.dual {
            sides.push((second.clone(), vec![("2", "1")]));
        }
        for (name, ways) in sides {
            let side = Side {
                index,
                relation: r,
                attr,
                lemma,
                options,
                interrupt: interrupt.clone(),
            };
            tables.push(side.table(name, &ways)?);
        }
    }
    Ok(tables)
}

/// One side of a relation being counted.
struct Side<'a, C> {
    index: &'a Index<C>,
    relation: &'a Relation,
    attr: usize,
    lemma: &'a str,
    options: &'a Options,
    interrupt: Option<Interrupt>,
}

impl<C: Columns> Side<'_, C> {
    fn table(&self, name: String, ways: &[(&str, &str)]) -> Result<Table, QueryError> {
        let mut pairs: HashMap<u32, u64> = HashMap::new();
        let mut keyword_hits = 0u64;
        let mut queries = Vec::new();
        for &(keyword, collocate) in ways {
            let query = self.query(&[(keyword, self.lemma)]);
            let labels = query.labels();
            let Some(at) = labels.iter().position(|l| l == collocate) else {
                continue;
            };
            let search = Search::with_interrupt(self.index, &query, self.interrupt.clone())?;
            let lexicon_len = self.index.attributes[self.attr].lexicon.len();
            let mut failed = None;
            search.run_labelled(|_, positions| {
                keyword_hits += 1;
                let mut id = [0u32];
                match self.index.columns.ids(self.attr, positions[at], &mut id) {
                    Ok(()) if (id[0] as usize) < lexicon_len => {
                        *pairs.entry(id[0]).or_insert(0) += 1
                    }
                    Ok(()) => {}
                    Err(e) => {
                        failed = Some(e);
                        return false;
                    }
                }
                true
            })?;
            if let Some(e) = failed {
                return Err(e.into());
            }
            queries.push((keyword, collocate));
        }
        let a = &self.index.attributes[self.attr];
        let mut rows: Vec<Collocate> = pairs
            .into_iter()
            .filter(|&(_, f)| f >= self.options.min_freq)
            .map(|(id, f_xy)| {
                let f_y = a.frequency(id);
                let y = a.lexicon.get(id).to_string();
                Collocate {
                    query: self.pair_query(&queries, &y).to_string(),
                    lemma: y.clone(),
                    f_xy,
                    f_y,
                    log_dice: log_dice(f_xy, keyword_hits, f_y),
                }
            })
            .collect();
        rows.sort_by(|x, y| {
            y.log_dice
                .total_cmp(&x.log_dice)
                .then(y.f_xy.cmp(&x.f_xy))
                .then(x.lemma.cmp(&y.lemma))
        });
        rows.truncate(self.options.top);
        Ok(Table {
            relation: name,
            keyword_hits,
            rows,
        })
    }

    /// The relation's patterns as one query, the labelled tokens given lemmas.
    fn query(&self, lemmas: &[(&str, &str)]) -> Query {
        let alternatives = self
            .relation
            .patterns
            .iter()
            .map(|p| with_lemmas(p, lemmas, &self.options.lemma_attr))
            .collect();
        self.joined(alternatives)
    }

    /// The query of the hits with the keyword and collocate `y`, every side's way joined.
    fn pair_query(&self, ways: &[(&str, &str)], y: &str) -> Query {
        let alternatives = ways
            .iter()
            .map(|&(k, c)| self.query(&[(k, self.lemma), (c, y)]).sequence)
            .collect();
        self.joined(alternatives)
    }

    /// Sequences as the alternatives of one query (one alone as it is), in the relation's
    /// region.
    fn joined(&self, mut alternatives: Vec<Sequence>) -> Query {
        let sequence = if alternatives.len() == 1 {
            alternatives.remove(0)
        } else {
            vec![Item {
                atom: Atom::Group(alternatives),
                min: 1,
                max: Some(1),
                label: None,
            }]
        };
        Query {
            within: self.relation.within.as_ref().map(|r| Within {
                region: r.clone(),
                attrs: Vec::new(),
            }),
            ..Query::of_sequence(sequence)
        }
    }
}

/// 14 + log2(2·f_xy / (f_x + f_y)).
pub fn log_dice(f_xy: u64, f_x: u64, f_y: u64) -> f64 {
    14.0 + (2.0 * f_xy as f64 / (f_x + f_y).max(1) as f64).log2()
}

/// A pattern whose tokens labelled `label` also test `lemma_attr` = the lemma, literally.
fn with_lemmas(seq: &Sequence, lemmas: &[(&str, &str)], lemma_attr: &str) -> Sequence {
    seq.iter()
        .map(|item| {
            let mut item = item.clone();
            match &mut item.atom {
                Atom::Token(cond) => {
                    if let Some((_, lemma)) = lemmas
                        .iter()
                        .find(|(l, _)| item.label.as_deref() == Some(l))
                    {
                        let test = Cond::Test(Test {
                            attr: lemma_attr.to_string(),
                            pattern: regex::escape(lemma),
                            ignore_case: false,
                            ignore_diacritics: false,
                            negated: false,
                        });
                        *cond = match std::mem::replace(cond, Cond::Any) {
                            Cond::Any => test,
                            other => Cond::And(vec![other, test]),
                        };
                    }
                }
                Atom::Group(alts) => {
                    for alt in alts.iter_mut() {
                        *alt = with_lemmas(alt, lemmas, lemma_attr);
                    }
                }
                Atom::Tag(_) | Atom::Region(_) => {}
            }
            item
        })
        .collect()
}

#[cfg(test)]
mod tests;
