//! TreeTagger-ready text: one token per line, structure as SGML lines.
//!
//! **In:** a document's metadata and its paragraphs as token lists (from
//! [`crate::corpus::tokenize`], the same tokens the matrix counts).
//!
//! **Out:** text in the vertical format that `tree-tagger -token -lemma -sgml` reads and that
//! CWB and NoSketch Engine also load:
//!
//! ```text
//! <doc id="d000001" url="http://…" title="…" lang="fr" score="0.812">
//! <p>
//! Le
//! calque
//! …
//! </p>
//! </doc>
//! ```
//!
//! **Invariants:** every `<doc>` line has its `</doc>`, every `<p>` its `</p>`; attribute values
//! are escaped (`&`, `<`, `>`, `"`) and kept on one line; no token line starts with `<` (with
//! `-sgml` TreeTagger would take it for markup), so such a token has its `<` and `>` written as
//! `&lt;` and `&gt;`; empty tokens and paragraphs are never written.

use std::fmt::Write as _;

use crate::export::vertical::DocMeta;

/// Appends one document to `out` (its `<doc>` line carries `id`, `url`, `title`, `lang`, `score`).
pub fn write_doc<P, T>(out: &mut String, header: &DocMeta<'_>, paragraphs: P)
where
    P: IntoIterator<Item = T>,
    T: AsRef<[String]>,
{
    // Writing to a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(
        out,
        "<doc id=\"{}\" url=\"{}\" title=\"{}\" lang=\"{}\" score=\"{:.3}\">",
        escape_attr(header.id),
        escape_attr(header.url),
        escape_attr(header.title),
        escape_attr(header.lang),
        if header.score.is_finite() {
            header.score
        } else {
            0.0
        },
    );
    for paragraph in paragraphs {
        let tokens = paragraph.as_ref();
        if tokens.iter().all(|t| t.trim().is_empty()) {
            continue;
        }
        out.push_str("<p>\n");
        for token in tokens {
            let token = token.trim();
            if token.is_empty() {
                continue;
            }
            push_token(out, token);
            out.push('\n');
        }
        out.push_str("</p>\n");
    }
    out.push_str("</doc>\n");
}

/// Appends one document in TreeTagger's *output* shape (what `tree-tagger -token -lemma -sgml`
/// writes from [`write_doc`]'s text, and what Syntex reads): the same lines, each token line
/// followed by a tab, its tag's POS, a tab and its lemma. `tags` has one tag per token written
/// (fewer: the tokens past them get `_`).
pub fn write_tagged_doc<P, T>(
    out: &mut String,
    header: &DocMeta<'_>,
    paragraphs: P,
    tags: &[crate::export::vertical::Tag],
) where
    P: IntoIterator<Item = T>,
    T: AsRef<[String]>,
{
    let mut plain = String::new();
    write_doc(&mut plain, header, paragraphs);
    let mut tags = tags.iter();
    for line in plain.lines() {
        out.push_str(line);
        if !line.starts_with('<') {
            // A tab or line break in a tag would break the three columns.
            let clean = |v: &str| v.split_whitespace().collect::<Vec<_>>().join(" ");
            match tags.next() {
                Some(tag) => {
                    let pos = clean(&tag.pos);
                    let lemma = clean(&tag.lemma);
                    out.push('\t');
                    out.push_str(if pos.is_empty() { "_" } else { &pos });
                    out.push('\t');
                    out.push_str(if lemma.is_empty() { line } else { &lemma });
                }
                None => out.push_str("\t_\t_"),
            }
        }
        out.push('\n');
    }
}

fn push_token(out: &mut String, token: &str) {
    if token.starts_with('<') {
        for c in token.chars() {
            match c {
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                _ => out.push(c),
            }
        }
    } else {
        out.push_str(token);
    }
}

/// Escapes an attribute value: XML entities, and line breaks or tabs folded into spaces so
/// that the value stays on its `<doc>` line.
pub fn escape_attr(value: &str) -> String {
    let mut escaped = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\n' | '\r' | '\t' => escaped.push(' '),
            c if c.is_control() => {}
            c => escaped.push(c),
        }
    }
    escaped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn the_tagged_shape_is_the_input_with_a_tag_per_token() {
        use crate::export::tagged::parse_tagged;
        use crate::export::vertical::Tag;
        let header = DocMeta {
            id: "d7",
            url: "http://a.test/",
            title: "t",
            lang: "fr",
            score: 0.5,
            host: "a.test",
            date: None,
            seed: "",
        };
        let tag = |pos: &str, lemma: &str| Tag {
            pos: pos.into(),
            lemma: lemma.into(),
        };
        let mut out = String::new();
        let paragraphs = [toks(&["Les", "<calques>"]), toks(&["dorment"])];
        let tags = [tag("DET", "le"), tag("NOUN", ""), tag("VERB", "dormir\tx")];
        write_tagged_doc(&mut out, &header, &paragraphs, &tags);
        let docs = parse_tagged(&out).unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].id, "d7");
        let words: Vec<&str> = docs[0].tokens.iter().map(|t| t.word.as_str()).collect();
        assert_eq!(words, ["Les", "&lt;calques&gt;", "dorment"]);
        assert_eq!(docs[0].tokens[1].lemma, "&lt;calques&gt;");
        assert_eq!(docs[0].tokens[2].lemma, "dormir x");
        let mut plain = String::new();
        write_doc(&mut plain, &header, &paragraphs);
        let cut: Vec<String> = out
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect();
        assert_eq!(cut, plain.lines().collect::<Vec<_>>());
    }

    #[test]
    fn writes_balanced_doc_and_paragraph_lines() {
        let mut out = String::new();
        let header = DocMeta {
            id: "d1",
            url: "http://a.test/?x=1&y=\"2\"",
            title: "Les <calques>\nde GIMP",
            lang: "fr",
            score: 0.8125,
            host: "a.test",
            date: None,
            seed: "",
        };
        write_doc(
            &mut out,
            &header,
            [toks(&["Le", "calque", "."]), toks(&[]), toks(&["<b>", "x"])],
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "<doc id=\"d1\" url=\"http://a.test/?x=1&amp;y=&quot;2&quot;\" title=\"Les &lt;calques&gt; de GIMP\" lang=\"fr\" score=\"0.812\">"
        );
        assert_eq!(
            &lines[1..],
            &[
                "<p>",
                "Le",
                "calque",
                ".",
                "</p>",
                "<p>",
                "&lt;b&gt;",
                "x",
                "</p>",
                "</doc>"
            ]
        );
        let opens = lines.iter().filter(|l| l.starts_with("<p>")).count();
        let closes = lines.iter().filter(|l| l.starts_with("</p>")).count();
        assert_eq!(opens, closes);
    }

    #[test]
    fn non_finite_score_is_written_as_zero() {
        let mut out = String::new();
        let header = DocMeta {
            id: "d",
            url: "u",
            title: "",
            lang: "fr",
            score: f64::NAN,
            host: "a.test",
            date: None,
            seed: "",
        };
        write_doc(&mut out, &header, Vec::<Vec<String>>::new());
        assert!(out.starts_with("<doc id=\"d\" url=\"u\" title=\"\" lang=\"fr\" score=\"0.000\">"));
        assert!(out.ends_with("</doc>\n"));
    }
}
