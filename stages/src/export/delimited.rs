//! CSV and TSV fields: the quoting rule of every table glaneur writes itself (`vocab.tsv`,
//! `lemma-vocab.tsv`, `docs.tsv`, `long.csv`, `dense.csv`, `metadata.csv`).
//!
//! **In:** one field's text and the table's delimiter (`,` or tab).
//! **Out:** the field as written: verbatim, or between `"` with inner `"` doubled (RFC 4180).
//!
//! **Invariants:** a field is quoted when it holds the delimiter, `"`, a tab, CR or LF (RFC
//! 4180), and also `'` or `#`, or when it starts or ends with whitespace; every other field is
//! written verbatim. Tested with the real readers (`tests/e2e/readers.rs`): R's `read.delim` and
//! `read.csv` (whose only quote is `"`) and pandas' `read_table` and `read_csv` read every such
//! field back unchanged, and so does R's `read.table(sep = "\t", header = TRUE)`, whose
//! defaults also take `'` as a quote and `#` as a comment; without the quotes a word holding
//! one `"` made `read.delim` swallow the lines up to the next `"` (4,017 of the demo's 5,686
//! vocabulary rows read). Quoting cannot help the words these readers take for a missing value
//! (`NA` for R; `NA`, `null`, `nan`, `None`, `N/A`… for pandas, quoted or not): the guide names
//! the reader arguments that keep them.

use std::borrow::Cow;

/// Whether `field` must be quoted in a table delimited by `delimiter` (see the module rule).
pub fn needs_quotes(field: &str, delimiter: char) -> bool {
    field.contains([delimiter, '"', '\t', '\r', '\n', '\'', '#'])
        || field.starts_with(char::is_whitespace)
        || field.ends_with(char::is_whitespace)
}

/// Appends `field` to a line of a table delimited by `delimiter`, quoted when
/// [`needs_quotes`] says so.
pub fn push_field(out: &mut String, field: &str, delimiter: char) {
    if needs_quotes(field, delimiter) {
        out.push('"');
        for c in field.chars() {
            if c == '"' {
                out.push('"');
            }
            out.push(c);
        }
        out.push('"');
    } else {
        out.push_str(field);
    }
}

/// `field` as [`push_field`] writes it, for callers that hand rows to another writer.
pub fn field(field: &str, delimiter: char) -> Cow<'_, str> {
    if needs_quotes(field, delimiter) {
        let mut out = String::with_capacity(field.len() + 2);
        push_field(&mut out, field, delimiter);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4180's reading, with `delimiter`: the fields of one line (no line breaks inside).
    fn read_line(line: &str, delimiter: char) -> Vec<String> {
        let mut fields = vec![String::new()];
        let mut chars = line.chars().peekable();
        let mut quoted = false;
        while let Some(c) = chars.next() {
            let last = fields.last_mut().expect("one field at least");
            match c {
                '"' if quoted && chars.peek() == Some(&'"') => {
                    chars.next();
                    last.push('"');
                }
                '"' if quoted => quoted = false,
                '"' if last.is_empty() => quoted = true,
                c if c == delimiter && !quoted => fields.push(String::new()),
                c => last.push(c),
            }
        }
        fields
    }

    const HOSTILE: [&str; 16] = [
        "\"",
        "d\"écraser",
        "\"x\"",
        "'",
        "l'",
        "#x",
        "#",
        "NA",
        "null",
        " lead",
        "trail ",
        "a,b",
        "a\tb",
        "tab\t",
        "",
        "1,5",
    ];

    #[test]
    fn hostile_fields_are_quoted_and_read_back_unchanged() {
        for delimiter in [',', '\t'] {
            let mut line = String::new();
            for (i, word) in HOSTILE.iter().enumerate() {
                if i > 0 {
                    line.push(delimiter);
                }
                push_field(&mut line, word, delimiter);
            }
            assert_eq!(read_line(&line, delimiter), HOSTILE, "{line}");
        }
    }

    #[test]
    fn quotes_exactly_what_the_rule_names() {
        assert_eq!(field("d\"écraser", '\t'), "\"d\"\"écraser\"");
        assert_eq!(field("l'", '\t'), "\"l'\"");
        assert_eq!(field("#0000ff", '\t'), "\"#0000ff\"");
        assert_eq!(field(" lead", '\t'), "\" lead\"");
        assert_eq!(field("trail\u{a0}", ','), "\"trail\u{a0}\"");
        assert_eq!(field("a\nb", ','), "\"a\nb\"");
        assert_eq!(field("1,5", ','), "\"1,5\"");
        // A comma is data in a TSV, a tab in a CSV is quoted anyway (R and pandas both keep it).
        assert_eq!(field("1,5", '\t'), "1,5");
        assert_eq!(field("a\tb", ','), "\"a\tb\"");
        // Words a reader takes for missing values are not helped by quotes: verbatim.
        for word in ["NA", "null", "nan", "None", "écran", "", "a b", "007"] {
            assert!(
                matches!(field(word, '\t'), Cow::Borrowed(w) if w == word),
                "{word}"
            );
        }
    }
}
