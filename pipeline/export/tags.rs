//! The tagger's output read back, one document at a time, beside the documents it tagged: the
//! annotate stage's tags when the topic has `[annotate]` ([`Tags::Stage`]), else a tagger run
//! by hand on `treetagger/` ([`Tags::Files`]).
//!
//! **In:** `tagged/*.tagged` (TreeTagger's or the fallback tagger's `word<TAB>POS<TAB>lemma`
//! with the `<doc>` lines of the `.tt` files glaneur wrote), and the documents of `docs.jsonl`
//! in their order. **Out:** for each document, its tagged tokens or `None` (the tagger output
//! does not hold it); the tagset of the whole output (UD or another one).
//!
//! **Invariants:** memory is one tagged document, not the tagged corpus: the files are read in
//! the order glaneur wrote them (`corpus.tagged`, or `d<id>.tagged` by number) and matched to
//! the documents by their number, which both ascend; a tagged document that matches none (a
//! stale `tagged/` from before the documents changed) is skipped, and the documents it should
//! have tagged count as missing. A malformed line is an error naming its file and line.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::export::tagged::{TaggedDoc, TaggedReader, TaggedToken, Tagset};
use stages::export::vertical;

/// Where the export's tags come from.
pub(super) enum Tags {
    /// The annotate stage's (`[annotate]`), by URL id.
    Stage(crate::annotate::read::TagSource),
    /// A tagger run by hand (`tagged/`), by document id.
    Files(TaggedStream),
}

impl Tags {
    /// The tags of the run in `run_dir` and their tagset (None: no tags to fold in).
    pub(super) fn open(
        topic: &crate::topic::Topic,
        run_dir: &Path,
    ) -> anyhow::Result<Option<(Tags, Tagset)>> {
        if topic.file.annotate.is_some() {
            let source = crate::annotate::read::TagSource::open(run_dir)?;
            return Ok(source.map(|(source, tagset)| (Tags::Stage(source), tagset)));
        }
        let stream = TaggedStream::open(&run_dir.join("tagged"))?;
        Ok(stream.map(|(stream, tagset)| (Tags::Files(stream), tagset)))
    }

    /// The tagged tokens of `doc` (documents are asked for in `docs.jsonl` order); None when
    /// the tags do not hold it.
    pub(super) fn tokens_of(
        &mut self,
        doc: &crate::extract::Document,
    ) -> anyhow::Result<Option<Vec<TaggedToken>>> {
        match self {
            Tags::Stage(source) => source.tokens_of(doc.url_id),
            Tags::Files(stream) => stream.tokens_of(&doc.id),
        }
    }
}

/// The tagged documents of `tagged/`, in order.
pub(super) struct TaggedStream {
    files: std::vec::IntoIter<PathBuf>,
    current: Option<OpenFile>,
    /// A document read ahead, waiting for the document it belongs to.
    ahead: Option<TaggedDoc>,
}

struct OpenFile {
    path: PathBuf,
    lines: std::io::BufReader<std::fs::File>,
    reader: TaggedReader,
    buf: String,
}

/// The number of a document id (`d000042` → 42); None for an id glaneur did not write.
fn number(id: &str) -> Option<u64> {
    id.strip_prefix('d')?.parse().ok()
}

/// The `*.tagged` files of `dir` in the order glaneur wrote their `.tt` files; None when no
/// tagger has run.
fn tagged_files(dir: &Path) -> Option<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "tagged"))
        .collect();
    if files.is_empty() {
        return None;
    }
    // `d999999` before `d1000000`: by number where the name is a document id.
    files.sort_by_cached_key(|p| {
        let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        (number(stem), p.clone())
    });
    Some(files)
}

impl TaggedStream {
    /// Opens `dir` (`tagged/`) and reads its tags once to learn the tagset; None when no
    /// tagger has run.
    pub(super) fn open(dir: &Path) -> anyhow::Result<Option<(TaggedStream, Tagset)>> {
        let Some(files) = tagged_files(dir) else {
            return Ok(None);
        };
        // The tagset is a property of the whole output (one non-UD tag makes it another
        // tagset): one pass over the tags alone, before the documents need it.
        let mut probe = TaggedStream::new(files.clone());
        let mut all_ud = true;
        while let Some(doc) = probe.next_doc()? {
            if all_ud && Tagset::of(doc.tokens.iter().map(|t| t.pos.as_str())) != Tagset::Ud {
                all_ud = false;
                break;
            }
        }
        let tagset = if all_ud { Tagset::Ud } else { Tagset::Other };
        Ok(Some((TaggedStream::new(files), tagset)))
    }

    fn new(files: Vec<PathBuf>) -> TaggedStream {
        TaggedStream {
            files: files.into_iter(),
            current: None,
            ahead: None,
        }
    }

    /// The next tagged document of the output, in file order.
    fn next_doc(&mut self) -> anyhow::Result<Option<TaggedDoc>> {
        loop {
            let Some(file) = &mut self.current else {
                let Some(path) = self.files.next() else {
                    return Ok(None);
                };
                let handle = std::fs::File::open(&path)
                    .with_context(|| format!("cannot read the tagger output {}", path.display()))?;
                self.current = Some(OpenFile {
                    path,
                    lines: std::io::BufReader::with_capacity(1 << 20, handle),
                    reader: TaggedReader::default(),
                    buf: String::new(),
                });
                continue;
            };
            file.buf.clear();
            let n = file.lines.read_line(&mut file.buf).with_context(|| {
                format!("cannot read the tagger output {}", file.path.display())
            })?;
            if n == 0 {
                let done = self.current.take();
                if let Some(done) = done {
                    let last = done
                        .reader
                        .finish()
                        .with_context(|| format!("{} is not tagger output", done.path.display()))?;
                    if last.is_some() {
                        return Ok(last);
                    }
                }
                continue;
            }
            let doc = file
                .reader
                .line(&file.buf)
                .with_context(|| format!("{} is not tagger output", file.path.display()))?;
            if doc.is_some() {
                return Ok(doc);
            }
        }
    }

    /// The tagged tokens of document `id` (documents are asked for in `docs.jsonl` order);
    /// None when the output does not hold it.
    pub(super) fn tokens_of(&mut self, id: &str) -> anyhow::Result<Option<Vec<TaggedToken>>> {
        let Some(wanted) = number(id) else {
            return Ok(None);
        };
        loop {
            let doc = match self.ahead.take() {
                Some(doc) => doc,
                None => match self.next_doc()? {
                    Some(doc) => doc,
                    None => return Ok(None),
                },
            };
            match number(&doc.id) {
                Some(n) if n == wanted => return Ok(Some(doc.tokens)),
                // A later document: keep it for the document it belongs to.
                Some(n) if n > wanted => {
                    self.ahead = Some(doc);
                    return Ok(None);
                }
                // An earlier document no longer in the corpus, or a block without an id.
                _ => continue,
            }
        }
    }
}

/// The tags of a document's tokens, when the tagger's tokens are the export's (the `.tt` file
/// it tagged was written from the same token stream); None when they differ (a stale
/// `tagged/`, written before the documents changed).
pub(super) fn aligned_tags(
    tagged: &[TaggedToken],
    split: &[Vec<vertical::Sentence>],
) -> Option<Vec<vertical::Tag>> {
    let tokens = split.iter().flatten().flat_map(|s| s.tokens.iter());
    let mut tags = Vec::with_capacity(tagged.len());
    let mut n = 0;
    for (token, t) in tokens.zip(tagged) {
        // The `.tt` file escapes `<…>` spans that TreeTagger would take for markup.
        let word = t.word.replace("&lt;", "<").replace("&gt;", ">");
        let same = |a: &str, b: &str| a.split_whitespace().eq(b.split_whitespace());
        if !same(&word, token) {
            return None;
        }
        tags.push(vertical::Tag {
            pos: t.pos.clone(),
            lemma: t.lemma.clone(),
        });
        n += 1;
    }
    (n == tagged.len()
        && n == split
            .iter()
            .flatten()
            .map(|s| s.tokens.len())
            .sum::<usize>())
    .then_some(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        std::fs::write(dir.join(name), text).unwrap();
    }

    #[test]
    fn documents_meet_their_tags_in_order_across_files() {
        let dir = tempfile::tempdir().unwrap();
        // Per-document files sort by number, not by name (d999999 before d1000000).
        write(
            dir.path(),
            "d1000000.tagged",
            "<doc id=\"d1000000\">\nc\tNOUN\tc\n</doc>\n",
        );
        write(
            dir.path(),
            "d999999.tagged",
            "<doc id=\"d999999\">\nb\tNOUN\tb\n</doc>\n",
        );
        write(
            dir.path(),
            "d000001.tagged",
            "<doc id=\"d000001\">\na\tVERB\ta\n</doc>\n<doc id=\"d000005\">\nz\tX\tz\n</doc>\n",
        );
        let (mut stream, tagset) = TaggedStream::open(dir.path()).unwrap().unwrap();
        assert_eq!(tagset, Tagset::Ud);
        let word = |t: Option<Vec<TaggedToken>>| t.map(|t| t[0].word.clone());
        assert_eq!(
            word(stream.tokens_of("d000001").unwrap()).as_deref(),
            Some("a")
        );
        // d000003 is not in the output; d000005 is, but no longer in the corpus.
        assert_eq!(word(stream.tokens_of("d000003").unwrap()), None);
        assert_eq!(
            word(stream.tokens_of("d999999").unwrap()).as_deref(),
            Some("b")
        );
        assert_eq!(
            word(stream.tokens_of("d1000000").unwrap()).as_deref(),
            Some("c")
        );
        assert_eq!(word(stream.tokens_of("d1000001").unwrap()), None);
    }

    #[test]
    fn one_tag_outside_ud_makes_the_output_another_tagset() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "corpus.tagged",
            "<doc id=\"d000001\">\nle\tDET\tle\n</doc>\n<doc id=\"d000002\">\nchat\tNOM\tchat\n</doc>\n",
        );
        let (_, tagset) = TaggedStream::open(dir.path()).unwrap().unwrap();
        assert_eq!(tagset, Tagset::Other);
    }

    #[test]
    fn a_malformed_line_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "corpus.tagged",
            "<doc id=\"d000001\">\nle\tDET\n</doc>\n",
        );
        let err = TaggedStream::open(dir.path()).err().unwrap();
        let message = format!("{err:#}");
        assert!(
            message.contains("corpus.tagged") && message.contains("line 2"),
            "{message}"
        );
        assert!(
            TaggedStream::open(&dir.path().join("absent"))
                .unwrap()
                .is_none()
        );
    }
}
