//! Commands that show what one stage does to local files, so a linguist can tune a topic
//! before crawling: `glaneur formula`, `glaneur extract`, `glaneur tokenize`.
//!
//! **Invariant:** each command goes through the same functions as the pipeline (decode →
//! extract → formula; the tokenizer of the TreeTagger files), so what it shows is what a run
//! would do.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use serde_json::json;
use stages::focus::formula::{Formula, FormulaOptions};
use stages::page::extract::ExtractOptions;

/// A local file as glaneur would see it after a fetch: decoded and extracted.
struct Local {
    decoded: stages::page::decode::Decoded,
    extracted: stages::page::extract::Extracted,
}

fn is_html(path: &Path, content_type: Option<&str>) -> bool {
    match content_type {
        Some(ct) => !ct.to_ascii_lowercase().starts_with("text/plain"),
        None => matches!(
            path.extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase)
                .as_deref(),
            Some("html" | "htm" | "xhtml")
        ),
    }
}

fn load(
    path: &Path,
    url: &url::Url,
    content_type: Option<&str>,
    options: &ExtractOptions,
) -> anyhow::Result<Local> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let html = is_html(path, content_type);
    let ct = content_type.unwrap_or(if html { "text/html" } else { "text/plain" });
    let decoded = stages::page::decode::decode(&bytes, Some(ct), url.host_str());
    let extracted = if html {
        stages::page::extract::extract_html(&decoded.text, url, options)
    } else {
        stages::page::extract::extract_plain(&decoded.text)
    };
    Ok(Local { decoded, extracted })
}

/// Without `--url`, a local file stands at `http://localhost/<file name>`, so its relative
/// links resolve to something readable.
#[allow(clippy::unwrap_used)] // the fallback is a constant URL that always parses
fn file_url(path: &Path) -> url::Url {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    url::Url::parse("http://localhost/")
        .and_then(|base| base.join(name))
        .unwrap_or_else(|_| url::Url::parse("http://localhost/").unwrap())
}

/// Shows a formula error with a caret under the column it names.
pub fn formula_error(expression: &str, error: &stages::focus::formula::FormulaError) -> String {
    let pad: String = expression
        .chars()
        .take(error.column.saturating_sub(1))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    format!("invalid formula\n  {expression}\n  {pad}^ {error}")
}

/// `glaneur formula EXPR FILE…`: the verdict and the matched clauses for each file (the title
/// and clean text of HTML files, the whole text of other files).
pub fn formula(
    expression: &str,
    files: &[std::path::PathBuf],
    options: FormulaOptions,
) -> anyhow::Result<String> {
    let formula = Formula::parse_with(expression, options)
        .map_err(|e| anyhow::anyhow!(formula_error(expression, &e)))?;
    let mut out = String::new();
    let _ = writeln!(out, "formula: {formula}");
    let _ = writeln!(out, "file\tverdict\thits\ttokens\tmatched");
    for path in files {
        let local = load(path, &file_url(path), None, &ExtractOptions::default())?;
        let title = local.extracted.title.clone().unwrap_or_default();
        let text = format!("{title}\n\n{}", local.extracted.clean_text());
        let prepared = stages::focus::formula::PreparedText::new(&text, options);
        let verdict = formula.evaluate_prepared(&prepared);
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}",
            path.display(),
            if verdict.satisfied { "TRUE" } else { "false" },
            verdict.hits,
            prepared.token_count(),
            verdict.matched.join(" | ")
        );
    }
    Ok(out)
}

/// `glaneur extract FILE`: the decoded, cleaned document as JSON.
pub fn extract(
    path: &Path,
    url: Option<&str>,
    content_type: Option<&str>,
    options: &ExtractOptions,
) -> anyhow::Result<String> {
    let url = match url {
        Some(u) => url::Url::parse(u).with_context(|| format!("invalid --url `{u}`"))?,
        None => file_url(path),
    };
    Ok(serde_json::to_string_pretty(&extract_value(path, &url, content_type, options)?)? + "\n")
}

/// `glaneur extract FILE FILE…`: one compact JSON object per line and file, in the order
/// given, written as each file is done (one process for many files, so that batch tools and
/// benchmarks do not pay a process start-up per page).
pub fn extract_lines(
    paths: &[std::path::PathBuf],
    url: Option<&str>,
    content_type: Option<&str>,
    options: &ExtractOptions,
    out: &mut impl std::io::Write,
) -> anyhow::Result<()> {
    if url.is_some() {
        anyhow::bail!("--url names the address of one page: give a single file with it");
    }
    for path in paths {
        let value = extract_value(path, &file_url(path), content_type, options)?;
        serde_json::to_writer(&mut *out, &value)?;
        out.write_all(b"\n")
            .context("cannot write to standard output")?;
    }
    out.flush().context("cannot write to standard output")
}

/// `glaneur extract --text FILE…`: the clean text of each file (kept blocks, blank lines
/// between them), files separated by a form feed line.
pub fn extract_text(
    paths: &[std::path::PathBuf],
    url: Option<&str>,
    content_type: Option<&str>,
    options: &ExtractOptions,
) -> anyhow::Result<String> {
    if url.is_some() && paths.len() > 1 {
        anyhow::bail!("--url names the address of one page: give a single file with it");
    }
    let mut out = String::new();
    for (i, path) in paths.iter().enumerate() {
        let url = match url {
            Some(u) => url::Url::parse(u).with_context(|| format!("invalid --url `{u}`"))?,
            None => file_url(path),
        };
        if i > 0 {
            out.push_str("\u{c}\n");
        }
        let text = load(path, &url, content_type, options)?
            .extracted
            .clean_text();
        out.push_str(&text);
        if !text.ends_with('\n') {
            out.push('\n');
        }
    }
    Ok(out)
}

fn extract_value(
    path: &Path,
    url: &url::Url,
    content_type: Option<&str>,
    options: &ExtractOptions,
) -> anyhow::Result<serde_json::Value> {
    let local = load(path, url, content_type, options)?;
    let d = &local.decoded;
    Ok(json!({
        "file": path.display().to_string(),
        "url": url.as_str(),
        "encoding": {
            "name": d.encoding.name(),
            "decision": d.decision,
            "declared_http": d.declared_http,
            "declared_meta": d.declared_meta,
            "declaration_overridden": d.declaration_overridden,
            "replacement_chars": d.replacements,
            "mojibake": d.mojibake,
        },
        "document": local.extracted,
    }))
}

/// `glaneur tokenize --lang L [FILE]`: the tokens of a plain-text file (or standard input), one
/// per line, exactly as they go into the TreeTagger files.
pub fn tokenize(path: Option<&Path>, lang: &str) -> anyhow::Result<String> {
    let bytes = match path {
        Some(p) if p != Path::new("-") => {
            std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?
        }
        _ => {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)
                .context("cannot read standard input")?;
            bytes
        }
    };
    let text = stages::page::decode::decode(&bytes, Some("text/plain"), None).text;
    let mut out = String::with_capacity(text.len() * 2);
    for token in stages::corpus::tokenize::tokenize(&text, lang) {
        out.push_str(&token);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_points_at_the_column() {
        let expr = r#"("graphe" OU"#;
        let err = Formula::parse(expr).unwrap_err();
        let shown = formula_error(expr, &err);
        let lines: Vec<&str> = shown.lines().collect();
        let caret = lines[2].find('^').unwrap();
        assert_eq!(caret - 2, err.column - 1, "{shown}");
    }
}
