//! The seed review file, `seeds-review.tsv`: one line per seed with a first column `keep`
//! (`yes` or `no`) that the user edits before the crawl (WebBootCaT's review of the seed URLs).
//!
//! **In:** the file's text as the user left it (edited in a text editor or a spreadsheet), or
//! the rows to write. **Out:** the user's choices ([`Review::choices`]) and the file again, with
//! the same lines in the same order, information columns brought up to date and new seeds
//! appended ([`Review::to_text`]).
//!
//! **Invariants:**
//! - a line the user wrote is never dropped, reordered or given another `keep`: only the
//!   information columns (`title`, `verdict`…) of a known URL are rewritten, and new rows go
//!   at the end;
//! - every problem names its line: a header that is not `keep`, `url` then known columns, a
//!   `keep` that is not yes or no, a line without a URL, a URL given twice with two answers;
//! - what spreadsheets add is read: a UTF-8 byte order mark, CRLF line ends, double-quoted
//!   fields, trailing empty fields left out; comment lines (`#`) and blank lines are kept as
//!   they are.

use std::collections::HashMap;

/// The columns glaneur writes, in order; a file may leave out any after `url`.
pub const COLUMNS: [&str; 9] = [
    "keep", "url", "sources", "engines", "queries", "rank", "scope", "title", "verdict",
];

/// What is wrong with a review file, and on which line (1 = the first).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReviewError {
    /// The header is not `keep<TAB>url…` with known column names.
    #[error(
        "line {line}: the header `{found}` is not the review's: it must begin with `keep` and \
         `url`, then some of {known}, separated by tabs"
    )]
    Header {
        /// Line of the header.
        line: usize,
        /// The header as read.
        found: String,
        /// The known column names.
        known: String,
    },
    /// A `keep` that is neither yes nor no.
    #[error("line {line}: `keep` is {value}; write yes or no")]
    Keep {
        /// Line.
        line: usize,
        /// The value found, quoted (or `empty`).
        value: String,
    },
    /// A line without a URL.
    #[error("line {line}: no URL in the `url` column")]
    NoUrl {
        /// Line.
        line: usize,
    },
    /// More fields than the header has columns.
    #[error("line {line}: {fields} tab-separated fields, but the header has {columns} columns")]
    Fields {
        /// Line.
        line: usize,
        /// Fields on the line.
        fields: usize,
        /// Columns of the header.
        columns: usize,
    },
    /// The same URL twice with different answers.
    #[error("line {line}: {url} is already on line {first} with another `keep`")]
    Conflict {
        /// Line of the second answer.
        line: usize,
        /// The URL.
        url: String,
        /// Line of the first answer.
        first: usize,
    },
}

/// One seed's row, as glaneur writes it (every field one line of text).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Row {
    /// Crawl it.
    pub keep: bool,
    /// The seed's canonical URL.
    pub url: String,
    /// The other columns, by name (`sources`, `engines`, `queries`, `rank`, `scope`, `title`,
    /// `verdict`); a missing one is written empty.
    pub info: HashMap<&'static str, String>,
}

/// The user's answer for one URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The URL as written.
    pub url: String,
    /// yes or no.
    pub keep: bool,
    /// Its line (1 = the first of the file).
    pub line: usize,
}

/// A line of the file: a row of fields, or a comment or blank line kept as it is.
#[derive(Debug, Clone)]
enum Line {
    Other(String),
    Row { number: usize, fields: Vec<String> },
}

/// A review file as read: its columns and lines.
#[derive(Debug, Clone)]
pub struct Review {
    columns: Vec<String>,
    /// The header line as written (kept when the file is written again).
    header: String,
    /// Lines before the header (comments, blank lines).
    header_at: usize,
    lines: Vec<Line>,
}

/// `yes` / `no` (also `y`, `n`, any case).
fn parse_keep(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "yes" | "y" => Some(true),
        "no" | "n" => Some(false),
        _ => None,
    }
}

/// A field without the double quotes a spreadsheet may put around it.
fn unquote(field: &str) -> String {
    let field = field.trim();
    match field.strip_prefix('"').and_then(|f| f.strip_suffix('"')) {
        Some(inner) => inner.replace("\"\"", "\""),
        None => field.to_string(),
    }
}

/// A value on one line without tabs: what a field may hold.
fn one_field(value: &str) -> String {
    value
        .split(['\t', '\n', '\r'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

impl Review {
    /// A new review of `rows`, in their order.
    pub fn new(rows: &[Row]) -> Review {
        let mut review = Review {
            columns: COLUMNS.iter().map(|c| c.to_string()).collect(),
            header: COLUMNS.join("\t"),
            header_at: 0,
            lines: Vec::new(),
        };
        for row in rows {
            review.append(row);
        }
        review
    }

    /// Reads a review file.
    pub fn parse(text: &str) -> Result<Review, ReviewError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut review: Option<Review> = None;
        let mut before = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let number = i + 1;
            let line = raw.trim_end_matches('\r');
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                match review.as_mut() {
                    Some(r) => r.lines.push(Line::Other(line.to_string())),
                    None => before.push(Line::Other(line.to_string())),
                }
                continue;
            }
            let fields: Vec<String> = line.split('\t').map(unquote).collect();
            let Some(r) = review.as_mut() else {
                review = Some(Review::from_header(line, fields, number, &mut before)?);
                continue;
            };
            r.check_row(number, &fields)?;
            r.lines.push(Line::Row { number, fields });
        }
        let review = review.unwrap_or_else(|| Review::new(&[]));
        review.choices()?;
        Ok(review)
    }

    /// The review whose header is `fields` (on line `number`).
    fn from_header(
        line: &str,
        fields: Vec<String>,
        number: usize,
        before: &mut Vec<Line>,
    ) -> Result<Review, ReviewError> {
        let columns: Vec<String> = fields
            .iter()
            .map(|f| f.to_ascii_lowercase())
            .rev()
            .skip_while(|f| f.is_empty())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let known = columns.len() >= 2
            && columns[0] == "keep"
            && columns[1] == "url"
            && columns
                .iter()
                .enumerate()
                .all(|(i, c)| COLUMNS.contains(&c.as_str()) && !columns[..i].contains(c));
        if !known {
            return Err(ReviewError::Header {
                line: number,
                found: line.replace('\t', "<TAB>"),
                known: COLUMNS[2..].join(", "),
            });
        }
        Ok(Review {
            columns,
            header: line.to_string(),
            header_at: before.len(),
            lines: std::mem::take(before),
        })
    }

    /// A data row's checks: its number of fields, `keep` and `url`.
    fn check_row(&self, line: usize, fields: &[String]) -> Result<(), ReviewError> {
        let used = fields.len() - fields.iter().rev().take_while(|f| f.is_empty()).count();
        if used > self.columns.len() {
            return Err(ReviewError::Fields {
                line,
                fields: used,
                columns: self.columns.len(),
            });
        }
        let keep = fields.first().map(String::as_str).unwrap_or("");
        if parse_keep(keep).is_none() {
            return Err(ReviewError::Keep {
                line,
                value: match keep {
                    "" => "empty".to_string(),
                    value => format!("`{value}`"),
                },
            });
        }
        if fields.get(1).is_none_or(|u| u.is_empty()) {
            return Err(ReviewError::NoUrl { line });
        }
        Ok(())
    }

    /// Every URL's answer, in file order (a URL given twice with the same answer counts once).
    pub fn choices(&self) -> Result<Vec<Choice>, ReviewError> {
        let mut seen: HashMap<&str, (bool, usize)> = HashMap::new();
        let mut out = Vec::new();
        for line in &self.lines {
            let Line::Row { number, fields } = line else {
                continue;
            };
            let keep = fields.first().and_then(|k| parse_keep(k)).unwrap_or(false);
            let url = fields.get(1).map(String::as_str).unwrap_or("");
            match seen.get(url) {
                Some(&(earlier, first)) if earlier != keep => {
                    return Err(ReviewError::Conflict {
                        line: *number,
                        url: url.to_string(),
                        first,
                    });
                }
                Some(_) => {}
                None => {
                    seen.insert(url, (keep, *number));
                    out.push(Choice {
                        url: url.to_string(),
                        keep,
                        line: *number,
                    });
                }
            }
        }
        Ok(out)
    }

    /// Every row in file order: its line and its fields by column name (a field the line
    /// leaves out is empty).
    pub fn rows(&self) -> Vec<(usize, HashMap<&str, &str>)> {
        self.lines
            .iter()
            .filter_map(|line| match line {
                Line::Row { number, fields } => Some((
                    *number,
                    self.columns
                        .iter()
                        .enumerate()
                        .map(|(i, c)| (c.as_str(), fields.get(i).map_or("", String::as_str)))
                        .collect(),
                )),
                Line::Other(_) => None,
            })
            .collect()
    }

    /// Adds a row at the end, in the file's columns.
    pub fn append(&mut self, row: &Row) {
        let fields = self
            .columns
            .iter()
            .map(|c| match c.as_str() {
                "keep" => if row.keep { "yes" } else { "no" }.to_string(),
                "url" => one_field(&row.url),
                other => one_field(row.info.get(other).map(String::as_str).unwrap_or("")),
            })
            .collect();
        // Its line once written: the lines before it and the header.
        let number = self.lines.len() + 2;
        self.lines.push(Line::Row { number, fields });
    }

    /// Sets column `column` of every row of `url` (when the file has that column).
    pub fn set(&mut self, url: &str, column: &str, value: &str) {
        let Some(at) = self.columns.iter().position(|c| c == column) else {
            return;
        };
        for line in &mut self.lines {
            if let Line::Row { fields, .. } = line
                && fields.get(1).is_some_and(|u| u == url)
            {
                if fields.len() <= at {
                    fields.resize(at + 1, String::new());
                }
                fields[at] = one_field(value);
            }
        }
    }

    /// The file's text: the header, then every line in order.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for (i, line) in self.lines.iter().enumerate() {
            if i == self.header_at {
                out.push_str(&self.header);
                out.push('\n');
            }
            match line {
                Line::Other(text) => out.push_str(text),
                Line::Row { fields, .. } => out.push_str(&fields.join("\t")),
            }
            out.push('\n');
        }
        if self.lines.len() <= self.header_at {
            out.push_str(&self.header);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(keep: bool, url: &str, title: &str) -> Row {
        let mut info = HashMap::new();
        info.insert("sources", "search:brave".to_string());
        info.insert("title", title.to_string());
        Row {
            keep,
            url: url.into(),
            info,
        }
    }

    #[test]
    fn a_new_review_reads_back_with_its_choices() {
        let review = Review::new(&[
            row(true, "http://a.test/", "Graphes\tet\narbres"),
            row(false, "http://out.example/", ""),
        ]);
        let text = review.to_text();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(COLUMNS.join("\t").as_str()));
        assert_eq!(
            lines.next(),
            Some("yes\thttp://a.test/\tsearch:brave\t\t\t\t\tGraphes et arbres\t")
        );
        let again = Review::parse(&text).unwrap();
        let choices = again.choices().unwrap();
        assert_eq!(
            choices,
            [
                Choice {
                    url: "http://a.test/".into(),
                    keep: true,
                    line: 2
                },
                Choice {
                    url: "http://out.example/".into(),
                    keep: false,
                    line: 3
                }
            ]
        );
        assert_eq!(
            again.to_text(),
            text,
            "read and written again: the same bytes"
        );
    }

    #[test]
    fn what_spreadsheets_write_is_read() {
        let text = "\u{feff}# my notes\r\nKEEP\tURL\tTitle\r\n\r\nNo\t\"http://a.test/\"\t\"Les \"\"graphes\"\"\"\r\nY\thttp://b.test/\r\n";
        let review = Review::parse(text).unwrap();
        let choices = review.choices().unwrap();
        assert_eq!(choices.len(), 2);
        assert_eq!((choices[0].keep, choices[0].line), (false, 4));
        assert_eq!(choices[1].url, "http://b.test/");
        assert!(choices[1].keep);
        // Comments and blank lines stay; a known column is filled; a new row follows the
        // file's own columns.
        let rows = review.rows();
        assert_eq!(rows[1].0, 5);
        assert_eq!(
            (rows[0].1["keep"], rows[0].1["title"], rows[1].1["title"]),
            ("No", "Les \"graphes\"", "")
        );
        let mut review = review;
        review.set("http://b.test/", "title", "Arbres");
        review.set("http://b.test/", "verdict", "not in this file");
        review.append(&row(true, "http://c.test/", "Cycles"));
        assert_eq!(
            review.to_text(),
            "# my notes\nKEEP\tURL\tTitle\n\nNo\thttp://a.test/\tLes \"graphes\"\nY\thttp://b.test/\tArbres\nyes\thttp://c.test/\tCycles\n"
        );
    }

    #[test]
    fn every_problem_names_its_line() {
        let header = COLUMNS.join("\t");
        let cases = [
            (
                "url\tkeep\nyes\thttp://a.test/\n".to_string(),
                "line 1: the header",
            ),
            ("keep\turl\tnotes\n".to_string(), "line 1: the header"),
            ("keep\turl\turl\n".to_string(), "line 1: the header"),
            (
                format!("{header}\nyes\thttp://a.test/\nmaybe\thttp://b.test/\n"),
                "line 3: `keep` is `maybe`",
            ),
            (
                format!("{header}\n\thttp://b.test/\n"),
                "line 2: `keep` is empty",
            ),
            (format!("{header}\nno\n"), "line 2: no URL"),
            (
                "keep\turl\nyes\thttp://a.test/\tx\n".to_string(),
                "line 2: 3 tab-separated fields",
            ),
            (
                format!("{header}\nyes\thttp://a.test/\n# x\nno\thttp://a.test/\n"),
                "line 4: http://a.test/ is already on line 2",
            ),
        ];
        for (text, said) in cases {
            let err = Review::parse(&text).unwrap_err().to_string();
            assert!(err.starts_with(said), "{text:?}: {err}");
        }
        // The same answer twice is no conflict; trailing empty fields are no extra column.
        let text = "keep\turl\nyes\thttp://a.test/\t\t\nyes\thttp://a.test/\n";
        assert_eq!(Review::parse(text).unwrap().choices().unwrap().len(), 1);
        // An empty file is an empty review.
        assert!(Review::parse("").unwrap().choices().unwrap().is_empty());
    }
}
