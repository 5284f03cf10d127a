//! Ranked full-text search over a run's documents (`glaneur search`), with tantivy.
//!
//! **In:** the kept documents (`docs.jsonl`) at export time; a query in tantivy's syntax
//! (words, `"phrases"`, `+must`, `-not`, `title:word`) at search time.
//!
//! **Out:** `RUN/search/`, a tantivy index with the fields `title`, `headings`, `body` (BM25;
//! a word in the title counts 3 times, in a heading twice, in the body once, seed 004's rule),
//! and `id`, `url`, `host`, `lang`, `date`, `score` stored; words lower-cased, accents folded
//! and stemmed in the topic's first language (`search/glaneur.json` says which); then ranked
//! documents with a snippet whose matched words are marked.
//!
//! **Invariants:** the index is written beside its place and renamed in (a failed export never
//! leaves half of one); the same analyzer indexes and searches.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use frostem::Algorithm;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::schema::{
    Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TantivyDocument, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer,
};
use tantivy::{Index, IndexWriter, Term, doc};

use crate::extract::Document;

mod stem;
use stem::CachedStemmer;

/// Field boosts: title > headings > body.
const BOOSTS: [(&str, f32); 3] = [("title", 3.0), ("headings", 2.0), ("body", 1.0)];

const ANALYZER: &str = "glaneur";

#[derive(serde::Serialize, serde::Deserialize)]
struct Meta {
    /// The stemmer's language (ISO 639-1), or "" for none.
    stemmer: String,
}

/// The Snowball algorithm tantivy's `Stemmer` would run for a language (the same list).
fn stemmer_of(code: &str) -> Option<Algorithm> {
    Some(match code {
        "ar" => Algorithm::Arabic,
        "da" => Algorithm::Danish,
        "nl" => Algorithm::Dutch,
        "en" => Algorithm::English,
        "fi" => Algorithm::Finnish,
        "fr" => Algorithm::French,
        "de" => Algorithm::German,
        "el" => Algorithm::Greek,
        "hu" => Algorithm::Hungarian,
        "it" => Algorithm::Italian,
        "no" | "nb" => Algorithm::Norwegian,
        "pt" => Algorithm::Portuguese,
        "ro" => Algorithm::Romanian,
        "ru" => Algorithm::Russian,
        "es" => Algorithm::Spanish,
        "sv" => Algorithm::Swedish,
        "ta" => Algorithm::Tamil,
        "tr" => Algorithm::Turkish,
        _ => return None,
    })
}

fn register(index: &Index, stemmer: &str) {
    let base = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(60))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter);
    let analyzer = match stemmer_of(stemmer) {
        Some(algorithm) => base.filter(CachedStemmer::new(algorithm)).build(),
        None => base.build(),
    };
    index.tokenizers().register(ANALYZER, analyzer);
}

fn schema() -> Schema {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    b.add_text_field("title", text.clone() | STORED);
    b.add_text_field("headings", text.clone());
    b.add_text_field("body", text | STORED);
    b.add_text_field("id", STRING | STORED);
    b.add_text_field("url", STRING | STORED);
    b.add_text_field("host", STRING | STORED);
    b.add_text_field("lang", STRING | STORED);
    b.add_text_field("date", STRING | STORED);
    b.add_f64_field("score", INDEXED | STORED);
    b.build()
}

fn field(schema: &Schema, name: &str) -> anyhow::Result<Field> {
    schema
        .get_field(name)
        .with_context(|| format!("the search index has no field {name}: rebuild it"))
}

/// Builds `dir` from the documents; words are stemmed in `language` (ISO 639-1; none when
/// tantivy has no stemmer for it).
pub fn build(dir: &Path, docs: &[Document], language: &str) -> anyhow::Result<()> {
    let mut builder = Builder::new(dir, language)?;
    for d in docs {
        builder.add(d)?;
    }
    builder.finish()
}

/// The search index built one document at a time (the export streams them): in a staging
/// folder beside `dir`, put in place by [`Builder::finish`].
pub struct Builder {
    dir: std::path::PathBuf,
    staging: std::path::PathBuf,
    stemmer: String,
    writer: IndexWriter,
    fields: [Field; 9],
}

impl Builder {
    /// Starts the index of `dir`; words are stemmed in `language` (ISO 639-1; none when
    /// tantivy has no stemmer for it).
    pub fn new(dir: &Path, language: &str) -> anyhow::Result<Builder> {
        let staging = crate::index::corpus::staging_for(dir)?;
        let schema = schema();
        let index = Index::create_in_dir(&staging, schema.clone())
            .with_context(|| format!("cannot create the search index in {}", staging.display()))?;
        let stemmer = if stemmer_of(language).is_some() {
            language
        } else {
            ""
        };
        register(&index, stemmer);
        let f = |n: &str| field(&schema, n);
        let fields = [
            f("title")?,
            f("headings")?,
            f("body")?,
            f("id")?,
            f("url")?,
            f("host")?,
            f("lang")?,
            f("date")?,
            f("score")?,
        ];
        // tantivy's own thread indexes while the caller goes on; its memory is this budget.
        let writer: IndexWriter = index
            .writer_with_num_threads(1, 50_000_000)
            .context("cannot start the search index writer")?;
        Ok(Builder {
            dir: dir.to_path_buf(),
            staging,
            stemmer: stemmer.to_string(),
            writer,
            fields,
        })
    }

    /// Adds one document.
    pub fn add(&mut self, d: &Document) -> anyhow::Result<()> {
        let [title, headings, body, id, url, host, lang, date, score] = self.fields;
        let mut heading_text = String::new();
        let mut body_text = String::new();
        for p in &d.paragraphs {
            let into = if p.kind == "heading" {
                &mut heading_text
            } else {
                &mut body_text
            };
            if !into.is_empty() {
                into.push('\n');
            }
            into.push_str(&p.text);
        }
        self.writer.add_document(doc!(
            title => d.title.as_str(),
            headings => heading_text,
            body => body_text,
            id => d.id.as_str(),
            url => d.url.as_str(),
            host => d.host.as_str(),
            lang => d.language.as_str(),
            date => d.date.clone().unwrap_or_default(),
            score => d.score,
        ))?;
        Ok(())
    }

    /// Commits the index and puts it in place of `dir`.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.writer
            .commit()
            .context("cannot write the search index")?;
        self.writer
            .wait_merging_threads()
            .context("cannot finish the search index")?;
        let meta = self.staging.join("glaneur.json");
        std::fs::write(
            &meta,
            serde_json::to_string(&Meta {
                stemmer: self.stemmer,
            })?,
        )
        .with_context(|| format!("cannot write {}", meta.display()))?;
        crate::index::corpus::put_in_place(&self.staging, &self.dir)
    }
}

/// One ranked document.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Found {
    /// Rank, from 1.
    pub rank: usize,
    /// BM25 score with the field boosts.
    pub relevance: f32,
    /// Document id (`docs.jsonl`).
    pub id: String,
    /// Title.
    pub title: String,
    /// URL.
    pub url: String,
    /// Host.
    pub host: String,
    /// Language.
    pub lang: String,
    /// Date, when known.
    pub date: String,
    /// Topic score given by the crawl.
    pub score: f64,
    /// A passage of the body around the matched words.
    pub snippet: String,
    /// Byte ranges of the matched words in `snippet`.
    pub highlighted: Vec<(usize, usize)>,
}

/// Where the search index of `path` (a run folder or the index folder) is.
fn locate(path: &Path) -> anyhow::Result<PathBuf> {
    for dir in [path.join("search"), path.to_path_buf()] {
        if dir.join("glaneur.json").is_file() {
            return Ok(dir);
        }
    }
    bail!(
        "{} has no search index: run `glaneur run … --from export` to build one",
        path.display()
    )
}

/// The documents matching `query`, best first, at most `limit`, optionally only from `host`
/// and in `lang`; and the number of matching documents.
pub fn search(
    path: &Path,
    query: &str,
    limit: usize,
    host_filter: Option<&str>,
    lang_filter: Option<&str>,
) -> anyhow::Result<(Vec<Found>, usize)> {
    let dir = locate(path)?;
    let meta: Meta = serde_json::from_slice(
        &std::fs::read(dir.join("glaneur.json"))
            .with_context(|| format!("cannot read {}", dir.join("glaneur.json").display()))?,
    )
    .with_context(|| format!("{} is damaged: rebuild it", dir.display()))?;
    let index = Index::open_in_dir(&dir)
        .with_context(|| format!("cannot open the search index {}", dir.display()))?;
    register(&index, &meta.stemmer);
    let schema = index.schema();
    let f = |n: &str| field(&schema, n);
    let mut parser = QueryParser::for_index(&index, vec![f("title")?, f("headings")?, f("body")?]);
    for (name, boost) in BOOSTS {
        parser.set_field_boost(f(name)?, boost);
    }
    let parsed = parser
        .parse_query(query)
        .map_err(|e| anyhow::anyhow!("query `{query}`: {e}"))?;
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, parsed)];
    for (name, value) in [("host", host_filter), ("lang", lang_filter)] {
        if let Some(v) = value {
            clauses.push((
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(f(name)?, v),
                    IndexRecordOption::Basic,
                )),
            ));
        }
    }
    let full = BooleanQuery::new(clauses);
    let reader = index.reader().context("cannot read the search index")?;
    let searcher = reader.searcher();
    let total = searcher.search(&full, &tantivy::collector::Count)?;
    if limit == 0 || total == 0 {
        return Ok((Vec::new(), total));
    }
    let top = searcher.search(
        &full,
        &TopDocs::with_limit(limit.min(total)).order_by_score(),
    )?;
    let mut snippets = SnippetGenerator::create(&searcher, &full, f("body")?)?;
    snippets.set_max_num_chars(200);
    let mut out = Vec::with_capacity(top.len());
    for (rank, (relevance, address)) in top.into_iter().enumerate() {
        let doc: TantivyDocument = searcher.doc(address)?;
        let text = |name: &str| -> anyhow::Result<String> {
            Ok(doc
                .get_first(f(name)?)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string())
        };
        let snippet = snippets.snippet_from_doc(&doc);
        out.push(Found {
            rank: rank + 1,
            relevance,
            id: text("id")?,
            title: text("title")?,
            url: text("url")?,
            host: text("host")?,
            lang: text("lang")?,
            date: text("date")?,
            score: doc
                .get_first(f("score")?)
                .and_then(|v| v.as_f64())
                .unwrap_or_default(),
            snippet: snippet.fragment().to_string(),
            highlighted: snippet
                .highlighted()
                .iter()
                .map(|r| (r.start, r.end))
                .collect(),
        });
    }
    Ok((out, total))
}

/// A snippet with its matched words in brackets, on one line.
pub fn marked(found: &Found) -> String {
    let mut out = String::new();
    let mut from = 0;
    let text = found.snippet.as_str();
    for &(a, b) in &found.highlighted {
        // Ranges out of order or off a character boundary are left unmarked.
        let (Some(before), Some(word)) = (text.get(from..a), text.get(a..b)) else {
            continue;
        };
        out.push_str(before);
        out.push('[');
        out.push_str(word);
        out.push(']');
        from = b;
    }
    out.push_str(text.get(from..).unwrap_or_default());
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(id: &str, title: &str, body: &str) -> Document {
        serde_json::from_value(serde_json::json!({
            "id": id, "url_id": 1, "url": format!("http://a.test/{id}"), "host": "a.test",
            "title": title, "language": "fr", "language_confidence": 1.0, "score": 0.5,
            "matched": [], "depth": 0, "seed": false, "fetched_at": 0.0, "encoding": "utf-8",
            "encoding_decision": "bom", "md5": "",
            "paragraphs": [{"kind": "paragraph", "text": body}],
        }))
        .expect("a document")
    }

    #[test]
    fn a_word_in_the_title_ranks_above_the_same_word_in_the_body() {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let out = dir.path().join("search");
        // The same words; only where `graphes` stands differs.
        let docs = vec![
            document(
                "body",
                "Notes de cours",
                "Les graphes orientés et leurs sommets",
            ),
            document(
                "title",
                "Notes de cours graphes",
                "Les orientés et leurs sommets",
            ),
        ];
        build(&out, &docs, "fr").expect("builds");
        let (found, total) = search(dir.path(), "graphe", 10, None, None).expect("searches");
        assert_eq!(total, 2);
        assert_eq!(found[0].id, "title", "{found:?}");
        assert!(found[0].relevance > found[1].relevance);
        // Stemmed and accent-folded: `oriente` finds `orientés`; filters narrow.
        let (found, _) = search(dir.path(), "oriente", 10, None, None).expect("searches");
        assert_eq!(found.len(), 2);
        assert!(
            marked(&found[0]).contains("[orientés]"),
            "{}",
            marked(&found[0])
        );
        let (_, total) = search(dir.path(), "graphes", 10, Some("b.test"), None).expect("searches");
        assert_eq!(total, 0);
        let err = search(dir.path(), "title:(", 10, None, None).expect_err("refused");
        assert!(err.to_string().contains("query `title:(`"), "{err}");
    }
}
