//! A tagger's answer checked against what it was given, and cut into one block per document.
//!
//! **In:** the documents of a batch and the tagger's answer. **Out:** per document, its block
//! of the answer (`<doc …>` to `</doc>`, token lines as `word<TAB>POS<TAB>lemma`) and whether
//! its tags are all Universal Dependencies tags; or what is wrong with the answer.
//!
//! **Invariants:** an answer is accepted only when it holds the batch's documents in order,
//! each with exactly its tokens (the word column equal to the token line it was given) and a
//! POS for each: a tagger that drops, adds, splits or merges tokens is refused, never
//! misaligned.

use stages::export::tagged::Tagset;

use super::input::Item;

/// A document's tags: its block of the answer, and whether they are UD tags.
pub(super) struct Tagged {
    pub(super) block: String,
    pub(super) ud: bool,
}

/// Cuts `answer` into the blocks of `items`; what is wrong with it otherwise (naming the
/// document and the line).
pub(super) fn split(answer: &str, items: &[&Item]) -> Result<Vec<Tagged>, String> {
    let mut out: Vec<Tagged> = Vec::with_capacity(items.len());
    let mut block = String::new();
    let mut open: Option<usize> = None;
    let mut token = 0usize;
    let mut pos_tags: Vec<String> = Vec::new();
    for (n, raw) in answer.lines().enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let at = || format!("line {} of the answer", n + 1);
        if line.trim().is_empty() {
            continue;
        }
        let markup = line.starts_with('<') && !line.contains('\t');
        if markup && line.starts_with("<doc") {
            if open.is_some() {
                return Err(format!("{}: a <doc> inside another", at()));
            }
            let Some(item) = items.get(out.len()) else {
                return Err(format!(
                    "{}: more documents than the {} given",
                    at(),
                    items.len()
                ));
            };
            if !line.contains(&format!("id=\"{}\"", item.id)) {
                return Err(format!(
                    "{}: expected the document {}, found {line:?}",
                    at(),
                    item.id
                ));
            }
            open = Some(out.len());
            block.clear();
            token = 0;
            pos_tags.clear();
        } else if open.is_none() {
            return Err(format!("{}: {line:?} is outside any document", at()));
        }
        let Some(index) = open else { continue };
        let item = items[index];
        if !markup {
            let columns: Vec<&str> = line.split('\t').collect();
            let expected = item.tokens.get(token).map(String::as_str);
            if columns.len() != 3 || columns[1].is_empty() {
                return Err(format!(
                    "{} (document {}): {line:?} is not `word<TAB>POS<TAB>lemma`",
                    at(),
                    item.id
                ));
            }
            if Some(columns[0]) != expected {
                return Err(format!(
                    "{} (document {}): the token {:?} where {:?} was given",
                    at(),
                    item.id,
                    columns[0],
                    expected.unwrap_or("nothing more")
                ));
            }
            pos_tags.push(columns[1].to_string());
            token += 1;
        }
        block.push_str(line);
        block.push('\n');
        if markup && line == "</doc>" {
            if token != item.tokens.len() {
                return Err(format!(
                    "{}: document {} has {token} tokens tagged of its {}",
                    at(),
                    item.id,
                    item.tokens.len()
                ));
            }
            out.push(Tagged {
                block: std::mem::take(&mut block),
                ud: Tagset::of(pos_tags.iter().map(String::as_str)) == Tagset::Ud,
            });
            open = None;
        }
    }
    if open.is_some() {
        return Err("the answer ends inside a document (cut short?)".into());
    }
    if out.len() != items.len() {
        return Err(format!(
            "the answer holds {} documents of the {} given",
            out.len(),
            items.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, tokens: &[&str]) -> Item {
        let mut block = format!("<doc id=\"{id}\" lang=\"fr\">\n<p>\n");
        for t in tokens {
            block.push_str(t);
            block.push('\n');
        }
        block.push_str("</p>\n</doc>\n");
        Item {
            url_id: 1,
            id: id.into(),
            lang: "fr".into(),
            block,
            tokens: tokens.iter().map(|t| (*t).to_string()).collect(),
            digest: String::new(),
        }
    }

    #[test]
    fn a_faithful_answer_is_cut_per_document() {
        let (a, b) = (item("d1", &["Le", "chat"]), item("d2", &["dort"]));
        let answer = "<doc id=\"d1\" lang=\"fr\">\n<p>\nLe\tDET\tle\nchat\tNOUN\tchat\n</p>\n\
                      </doc>\n\n<doc id=\"d2\" lang=\"fr\">\n<p>\ndort\tVERB\tdormir\n</p>\n</doc>\n";
        let tagged = split(answer, &[&a, &b]).unwrap();
        assert_eq!(tagged.len(), 2);
        assert!(tagged[0].block.starts_with("<doc id=\"d1\""));
        assert!(tagged[0].block.ends_with("</doc>\n"));
        assert!(tagged[1].block.contains("dort\tVERB\tdormir"));
        assert!(tagged[0].ud && tagged[1].ud);
    }

    #[test]
    fn unfaithful_answers_are_refused_with_the_line() {
        let a = item("d1", &["Le", "chat"]);
        let head = "<doc id=\"d1\" lang=\"fr\">\n<p>\n";
        for (answer, says) in [
            (
                format!("{head}Le\tDET\tle\n</p>\n</doc>\n"),
                "1 tokens tagged of its 2",
            ),
            (
                format!("{head}Le\tDET\nchat\tNOUN\tchat\n</p>\n</doc>\n"),
                "not `word",
            ),
            (
                format!("{head}Le\tDET\tle\nchien\tNOUN\tchien\n</p>\n</doc>\n"),
                "\"chien\"",
            ),
            (
                format!("{head}Le\tDET\tle\nchat\tNOUN\tchat\n</p>\n"),
                "ends inside",
            ),
            ("garbage\n".to_string(), "outside any document"),
            (String::new(), "0 documents of the 1"),
            (
                format!("{head}Le\t\tle\nchat\tNOUN\tchat\n</p>\n</doc>\n"),
                "not `word",
            ),
        ] {
            let error = split(&answer, &[&a]).err().unwrap_or_default();
            assert!(error.contains(says), "{answer:?}: {error}");
        }
    }

    #[test]
    fn treetagger_tags_are_not_ud() {
        let a = item("d1", &["Le", "chat"]);
        let answer =
            "<doc id=\"d1\" lang=\"fr\">\n<p>\nLe\tDET:ART\tle\nchat\tNOM\tchat\n</p>\n</doc>\n";
        assert!(!split(answer, &[&a]).unwrap()[0].ud);
    }
}
