//! Fixture test of the export formats (`stages::export::vertical`) on real French text: the texts of
//! `tests/data/treetagger/tokenizer-fr/*.txt` (LibreOffice help, MPL-2.0; Debian
//! Administrator's Handbook, GPL-2+/CC-BY-SA; one file of hard cases) are written as documents
//! in vertical XML, CoNLL-U and Talismane's input, and each output is read back here:
//! (a) every `.vrt` document is well-formed XML (a small strict checker below, since no XML
//! crate is available); (b) the CoNLL-U obeys the structural rules of the format; (c) the token
//! sequence, the sentence boundaries and the glue agree across the three formats and with
//! `tokenize()`.

use crate::common;

use stages::corpus::tokenize::tokenize;
use stages::export::vertical::{
    DocMeta, clean_text, metadata_csv_header, metadata_csv_row, sentences, write_conllu,
    write_talismane, write_vrt,
};
use unicode_normalization::is_nfc;

/// One fixture document: name and paragraphs (separated by blank lines in the file).
struct Doc {
    name: String,
    paragraphs: Vec<String>,
}

fn load_docs() -> Vec<Doc> {
    let dir = common::test_data().join("treetagger").join("tokenizer-fr");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 20,
        "expected the French fixtures in {}",
        dir.display()
    );
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("fixture is UTF-8");
            let mut paragraphs = Vec::new();
            let mut current: Vec<&str> = Vec::new();
            for line in text.lines() {
                if line.trim().is_empty() {
                    if !current.is_empty() {
                        paragraphs.push(current.join("\n"));
                        current.clear();
                    }
                } else {
                    current.push(line);
                }
            }
            if !current.is_empty() {
                paragraphs.push(current.join("\n"));
            }
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Doc { name, paragraphs }
        })
        .collect()
}

fn meta_of<'a>(doc: &'a Doc, url: &'a str) -> DocMeta<'a> {
    DocMeta {
        id: &doc.name,
        url,
        title: doc.paragraphs.first().map_or("", String::as_str),
        lang: "fr",
        score: 0.5,
        host: "example.org",
        date: None,
        seed: "",
    }
}

/// A sentence as read back from one of the formats: tokens and "space after" flags.
#[derive(Debug, Default, PartialEq, Eq)]
struct ReadSentence {
    tokens: Vec<String>,
    space_after: Vec<bool>,
}

/// `tokenize()`'s tokens of the cleaned paragraph, whitespace runs inside a token as one space,
/// in the sentences `sentences()` gives: what every format must hold.
fn expected(doc: &Doc) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for paragraph in &doc.paragraphs {
        let tokens: Vec<String> = tokenize(&clean_text(paragraph), "fr")
            .iter()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        let sentences = sentences(paragraph, "fr");
        let lengths: Vec<usize> = sentences.iter().map(|s| s.tokens.len()).collect();
        assert_eq!(lengths.iter().sum::<usize>(), tokens.len(), "{}", doc.name);
        let mut rest = tokens.as_slice();
        for n in lengths {
            let (head, tail) = rest.split_at(n);
            out.push(head.to_vec());
            rest = tail;
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// (a) A strict well-formedness checker for the XML subset a `.vrt` file may use: elements,
// attributes in double or single quotes, the five predefined entities and character
// references; no comments, processing instructions, CDATA or DOCTYPE.

#[derive(Debug, Default)]
struct XmlStats {
    elements: usize,
    /// Text lines directly inside `<s>`: the tokens.
    tokens: Vec<String>,
}

fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r')
        || ('\u{20}'..='\u{D7FF}').contains(&c)
        || ('\u{E000}'..='\u{FFFD}').contains(&c)
        || c >= '\u{10000}'
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == ':'
}

fn is_name_char(c: char) -> bool {
    is_name_start(c) || c.is_ascii_digit() || c == '-' || c == '.'
}

/// Decodes character data or an attribute value, rejecting a raw `<`, a bare `&` and invalid
/// characters.
fn decode(s: &str, in_attribute: bool) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if !is_xml_char(c) {
            return Err(format!(
                "character U+{:04X} not allowed in XML",
                u32::from(c)
            ));
        }
        match c {
            '<' => return Err(format!("raw '<' in {s:?}")),
            '&' => {
                let end = rest
                    .find(';')
                    .ok_or_else(|| format!("unterminated reference in {s:?}"))?;
                let name = &rest[1..end];
                let decoded = match name {
                    "amp" => '&',
                    "lt" => '<',
                    "gt" => '>',
                    "quot" => '"',
                    "apos" => '\'',
                    _ => {
                        let code = if let Some(hex) = name.strip_prefix("#x") {
                            u32::from_str_radix(hex, 16).ok()
                        } else if let Some(dec) = name.strip_prefix('#') {
                            dec.parse().ok()
                        } else {
                            None
                        };
                        code.and_then(char::from_u32)
                            .filter(|&c| is_xml_char(c))
                            .ok_or_else(|| format!("bad reference &{name}; in {s:?}"))?
                    }
                };
                out.push(decoded);
                rest = &rest[end + 1..];
                continue;
            }
            _ => out.push(c),
        }
        rest = &rest[c.len_utf8()..];
    }
    if !in_attribute && s.contains("]]>") {
        return Err("']]>' in character data".to_string());
    }
    Ok(out)
}

fn parse_name(s: &str) -> Result<(&str, &str), String> {
    let mut chars = s.char_indices();
    match chars.next() {
        Some((_, c)) if is_name_start(c) => {}
        _ => return Err(format!("expected a name at {:?}", &s[..s.len().min(20)])),
    }
    let end = chars
        .find(|&(_, c)| !is_name_char(c))
        .map_or(s.len(), |(i, _)| i);
    Ok((&s[..end], &s[end..]))
}

fn check_xml(doc: &str) -> Result<XmlStats, String> {
    let mut stats = XmlStats::default();
    let mut stack: Vec<&str> = Vec::new();
    let mut roots = 0;
    let mut rest = doc;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("</") {
            let (name, after) = parse_name(after)?;
            let after = after.trim_start_matches([' ', '\t', '\n', '\r']);
            let after = after
                .strip_prefix('>')
                .ok_or_else(|| format!("bad end tag </{name}"))?;
            match stack.pop() {
                Some(open) if open == name => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            rest = after;
        } else if let Some(after) = rest.strip_prefix('<') {
            if after.starts_with(['!', '?']) {
                return Err("comment, PI, CDATA or DOCTYPE not expected".to_string());
            }
            let (name, mut after) = parse_name(after)?;
            if stack.is_empty() {
                roots += 1;
                if roots > 1 {
                    return Err(format!("second root element <{name}>"));
                }
            }
            stats.elements += 1;
            let mut seen: Vec<&str> = Vec::new();
            loop {
                let trimmed = after.trim_start_matches([' ', '\t', '\n', '\r']);
                let had_space = trimmed.len() < after.len();
                if let Some(a) = trimmed.strip_prefix("/>") {
                    after = a;
                    break;
                }
                if let Some(a) = trimmed.strip_prefix('>') {
                    stack.push(name);
                    after = a;
                    break;
                }
                if !had_space {
                    return Err(format!("attribute of <{name}> not preceded by space"));
                }
                let (attr, a) = parse_name(trimmed)?;
                if seen.contains(&attr) {
                    return Err(format!("duplicate attribute {attr}"));
                }
                seen.push(attr);
                let a = a.trim_start_matches([' ', '\t', '\n', '\r']);
                let a = a
                    .strip_prefix('=')
                    .ok_or_else(|| format!("attribute {attr} without '='"))?;
                let a = a.trim_start_matches([' ', '\t', '\n', '\r']);
                let quote = a
                    .chars()
                    .next()
                    .filter(|&q| q == '"' || q == '\'')
                    .ok_or_else(|| format!("attribute {attr} not quoted"))?;
                let a = &a[1..];
                let end = a
                    .find(quote)
                    .ok_or_else(|| format!("attribute {attr} not closed"))?;
                decode(&a[..end], true)?;
                after = &a[end + 1..];
            }
            rest = after;
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            let text = decode(&rest[..end], false)?;
            if stack.is_empty() && !text.trim().is_empty() {
                return Err(format!("text outside the root: {text:?}"));
            }
            if stack.last() == Some(&"s") {
                stats
                    .tokens
                    .extend(text.split('\n').filter(|l| !l.is_empty()).map(String::from));
            }
            rest = &rest[end..];
        }
    }
    if let Some(open) = stack.last() {
        return Err(format!("<{open}> never closed"));
    }
    if roots != 1 {
        return Err("no root element".to_string());
    }
    Ok(stats)
}

#[test]
fn xml_checker_rejects_what_it_must() {
    for bad in [
        "<text>a & b</text>",
        "<text>a < b</text>",
        "<text id=x></text>",
        "<text id=\"a\" id=\"b\"></text>",
        "<text><s></text></s>",
        "<text></text><text></text>",
        "<text>",
        "x<text></text>",
        "<text id=\"a<b\"></text>",
        "<text>&bogus;</text>",
        "<text>\u{1}</text>",
        "<text id=\"a\"id=\"b\"></text>",
    ] {
        assert!(check_xml(bad).is_err(), "accepted {bad:?}");
    }
    let ok = check_xml("<text a='1' b=\"&amp;&#233;\">\n<s>\nx\n<g/>\ny\n</s>\n</text>\n")
        .expect("well-formed");
    assert_eq!(ok.tokens, vec!["x", "y"]);
}

// ---------------------------------------------------------------------------------------
// (b) CoNLL-U structure.

/// Checks the structural rules and returns the document's sentences.
fn check_conllu(text: &str) -> Result<Vec<ReadSentence>, String> {
    if !is_nfc(text) {
        return Err("not NFC".to_string());
    }
    if text.contains('\r') {
        return Err("CR in CoNLL-U".to_string());
    }
    if !text.is_empty() && !text.ends_with("\n\n") {
        return Err("the last sentence is not followed by a blank line".to_string());
    }
    let mut sentences = Vec::new();
    let mut current = ReadSentence::default();
    let mut comments: Vec<&str> = Vec::new();
    let mut text_comment: Option<String> = None;
    for (number, line) in text.lines().enumerate() {
        let at = |m: String| format!("line {}: {m}", number + 1);
        if line.is_empty() {
            if current.tokens.is_empty() {
                return Err(at("blank line without a sentence".to_string()));
            }
            let mut rebuilt = String::new();
            for (i, t) in current.tokens.iter().enumerate() {
                rebuilt.push_str(t);
                if current.space_after[i] && i + 1 < current.tokens.len() {
                    rebuilt.push(' ');
                }
            }
            if text_comment.as_deref() != Some(rebuilt.as_str()) {
                return Err(at(format!("# text {text_comment:?} != forms {rebuilt:?}")));
            }
            if !comments.iter().any(|c| c.starts_with("# sent_id = ")) {
                return Err(at("sentence without sent_id".to_string()));
            }
            sentences.push(std::mem::take(&mut current));
            comments.clear();
            text_comment = None;
        } else if line.starts_with('#') {
            if !current.tokens.is_empty() {
                return Err(at("comment inside a sentence".to_string()));
            }
            if let Some(t) = line.strip_prefix("# text = ") {
                text_comment = Some(t.to_string());
            }
            comments.push(line);
        } else {
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.len() != 10 {
                return Err(at(format!("{} columns", fields.len())));
            }
            if fields.iter().any(|f| f.is_empty()) {
                return Err(at("empty field".to_string()));
            }
            if fields
                .iter()
                .enumerate()
                .any(|(i, f)| i != 1 && i != 2 && i != 9 && f.contains(' '))
            {
                return Err(at("space outside FORM/LEMMA/MISC".to_string()));
            }
            let id: usize = fields[0]
                .parse()
                .map_err(|_| at(format!("ID {:?}", fields[0])))?;
            if id != current.tokens.len() + 1 {
                return Err(at(format!("ID {id} after {}", current.tokens.len())));
            }
            let space_after = match fields[9] {
                "_" => true,
                "SpaceAfter=No" => false,
                other => return Err(at(format!("unexpected MISC {other:?}"))),
            };
            current.tokens.push(fields[1].to_string());
            current.space_after.push(space_after);
        }
    }
    if !current.tokens.is_empty() {
        return Err("unterminated last sentence".to_string());
    }
    Ok(sentences)
}

// ---------------------------------------------------------------------------------------
// Talismane: `<index>\t<token>` lines, blank line after each sentence; tokens read back with
// Talismane's `fromCoNLL` (spaces-to-underscores): `_` -> space, `&und;` -> `_`.

fn read_talismane(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut sentences = Vec::new();
    let mut current: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.is_empty() {
            if current.is_empty() {
                return Err("empty sentence".to_string());
            }
            sentences.push(std::mem::take(&mut current));
            continue;
        }
        let (index, token) = line
            .split_once('\t')
            .ok_or_else(|| format!("no tab in {line:?}"))?;
        if token.contains('\t') || token.is_empty() || token == "_" {
            return Err(format!("token unreadable by Talismane: {line:?}"));
        }
        if index.parse::<usize>().ok() != Some(current.len() + 1) {
            return Err(format!("index {index:?} after {}", current.len()));
        }
        current.push(token.replace('_', " ").replace("&und;", "_"));
    }
    if !current.is_empty() {
        return Err("last sentence without blank line".to_string());
    }
    Ok(sentences)
}

#[test]
fn french_fixtures_in_all_three_formats() {
    let docs = load_docs();
    let mut conllu = String::new();
    let mut talismane = String::new();
    let mut csv = String::from(metadata_csv_header());
    csv.push('\n');
    let (mut n_par, mut n_sent, mut n_tok, mut n_glue, mut n_markup, mut n_clean) =
        (0, 0, 0, 0, 0, 0);
    let mut talismane_docs = Vec::new();
    for doc in &docs {
        let url = format!("https://example.org/{}?a=1&b=\"2\"", doc.name);
        let meta = meta_of(doc, &url);
        let expected = expected(doc);
        n_par += doc.paragraphs.len();
        n_clean += doc
            .paragraphs
            .iter()
            .filter(|p| clean_text(p) == **p)
            .count();

        // (a) vrt: well-formed, tokens as expected, glue consistent with the sentences.
        let mut vrt = String::new();
        let written = write_vrt(&mut vrt, &meta, &doc.paragraphs);
        let stats = check_xml(&vrt).unwrap_or_else(|e| panic!("{}.vrt: {e}\n{vrt}", doc.name));
        let vrt_tokens: Vec<String> = stats
            .tokens
            .iter()
            .filter(|t| *t != "<g/>")
            .cloned()
            .collect();
        let flat: Vec<String> = expected.concat();
        assert_eq!(vrt_tokens, flat, "{}: vrt tokens", doc.name);
        assert_eq!(written, flat.len());
        assert_eq!(vrt.matches("<s>").count(), expected.len(), "{}", doc.name);
        assert_eq!(
            vrt.matches("<p>").count(),
            doc.paragraphs.len(),
            "{}",
            doc.name
        );
        n_markup += flat.iter().filter(|t| t.starts_with('<')).count();

        // (b) CoNLL-U of the document, alone and then appended to the corpus file.
        let before = conllu.len();
        let conllu_written = write_conllu(&mut conllu, &meta, &doc.paragraphs);
        let read =
            check_conllu(&conllu[before..]).unwrap_or_else(|e| panic!("{}.conllu: {e}", doc.name));
        assert_eq!(conllu_written, flat.len());
        let conllu_sentences: Vec<Vec<String>> = read.iter().map(|s| s.tokens.clone()).collect();
        assert_eq!(
            conllu_sentences, expected,
            "{}: CoNLL-U sentences",
            doc.name
        );
        assert!(conllu[before..].starts_with(&format!("# newdoc id = {}\n", doc.name)));

        // The vrt glue is exactly CoNLL-U's SpaceAfter=No inside sentences.
        let glue_from_conllu: usize = read
            .iter()
            .map(|s| {
                s.space_after[..s.space_after.len() - 1]
                    .iter()
                    .filter(|b| !**b)
                    .count()
            })
            .sum();
        assert_eq!(
            vrt.matches("<g/>").count(),
            glue_from_conllu,
            "{}",
            doc.name
        );
        n_glue += glue_from_conllu;

        // Each sentence's text is a piece of the paragraph's collapsed text: the tokens were
        // aligned onto the original, not only glued back together.
        for paragraph in &doc.paragraphs {
            let collapsed = clean_text(paragraph)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            for s in sentences(paragraph, "fr") {
                assert!(collapsed.contains(&s.text), "{}: {:?}", doc.name, s.text);
            }
        }

        // Talismane.
        let mut own = String::new();
        let talismane_written = write_talismane(&mut own, &doc.paragraphs, "fr");
        assert_eq!(talismane_written, flat.len());
        let t = read_talismane(&own).unwrap_or_else(|e| panic!("{}: talismane {e}", doc.name));
        assert_eq!(t, expected, "{}: Talismane sentences", doc.name);
        talismane.push_str(&own);
        talismane_docs.push(t.len());

        let row = metadata_csv_row(&meta, written);
        assert!(row.starts_with(&format!("{},", doc.name)) && !row.contains('\n'));
        csv.push_str(&row);
        csv.push('\n');

        n_sent += expected.len();
        n_tok += flat.len();
    }
    // The corpus-level files hold the concatenation and still pass.
    let all = check_conllu(&conllu).unwrap_or_else(|e| panic!("corpus CoNLL-U: {e}"));
    assert_eq!(all.len(), n_sent);
    let all_t = read_talismane(&talismane).unwrap_or_else(|e| panic!("corpus Talismane: {e}"));
    assert_eq!(all_t.len(), n_sent);
    assert_eq!(csv.lines().count(), docs.len() + 1);

    println!("vertical exports of tests/data/treetagger/tokenizer-fr/*.txt");
    println!(
        "| documents | paragraphs | already clean | sentences | tokens | <g/> | markup tokens |"
    );
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| {} | {n_par} | {n_clean} | {n_sent} | {n_tok} | {n_glue} | {n_markup} |",
        docs.len()
    );
    println!(
        "bytes: CoNLL-U {}, Talismane {}, metadata.csv {}",
        conllu.len(),
        talismane.len(),
        csv.len()
    );
    assert!(n_tok > 10_000, "the fixtures should give a real corpus");
}
