//! The annotate stage's tags read back by the export, one document at a time, in corpus order.
//!
//! **In:** the `tags` rows of `crawl.sqlite` (through a read-only connection of its own) and
//! the files of `annotate/` they point to. **Out:** per document, its tagged tokens, or `None`
//! when the stage did not tag it; the tagset of the whole.
//!
//! **Invariants:** memory is a page of rows and a few open files, not the tags of the corpus:
//! rows are read in `url_id` order as the documents come (both ascend); a damaged block is an
//! error naming its file, never tags moved to other tokens.

use std::collections::VecDeque;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::export::tagged::{TaggedReader, TaggedToken, Tagset};

use crate::store::{Store, TagRow};

/// Rows read from the store at a time.
const PAGE: i64 = 4096;

/// The stage's tags, document by document.
pub struct TagSource {
    store: Store,
    dir: PathBuf,
    rows: VecDeque<TagRow>,
    /// The last `url_id` read from the store.
    after: i64,
    exhausted: bool,
    /// The file read last, kept open (documents of a batch sit together).
    open: Option<(String, std::fs::File)>,
}

impl TagSource {
    /// The tags of the run in `run_dir`, and their tagset; None when no document is tagged
    /// (the corpus is exported without tags).
    pub fn open(run_dir: &Path) -> anyhow::Result<Option<(TagSource, Tagset)>> {
        let store = Store::open_read_only(&run_dir.join("crawl.sqlite"))?;
        let Some(ud) = store.tags_are_ud()? else {
            return Ok(None);
        };
        let tagset = if ud { Tagset::Ud } else { Tagset::Other };
        Ok(Some((
            TagSource {
                store,
                dir: run_dir.join(super::DIR),
                rows: VecDeque::new(),
                after: i64::MIN,
                exhausted: false,
                open: None,
            },
            tagset,
        )))
    }

    /// The tagged tokens of document `url_id` (asked in ascending order); None when the
    /// stage did not tag it.
    pub fn tokens_of(&mut self, url_id: i64) -> anyhow::Result<Option<Vec<TaggedToken>>> {
        loop {
            if self.rows.is_empty() && !self.exhausted {
                let page = self.store.tag_rows_after(self.after, PAGE)?;
                self.exhausted = page.len() < PAGE as usize;
                if let Some(last) = page.last() {
                    self.after = last.url_id;
                }
                self.rows.extend(page);
            }
            if self.rows.front().is_none_or(|row| row.url_id > url_id) {
                return Ok(None);
            }
            let Some(row) = self.rows.pop_front() else {
                return Ok(None);
            };
            if row.url_id < url_id {
                continue;
            }
            if row.untagged.is_some() {
                return Ok(None);
            }
            return match &row.at {
                None => Ok(Some(Vec::new())),
                Some((file, offset, length)) => self.read(file, *offset, *length).map(Some),
            };
        }
    }

    /// The block at `offset` of `file`, parsed.
    fn read(&mut self, file: &str, offset: u64, length: u64) -> anyhow::Result<Vec<TaggedToken>> {
        let path = self.dir.join(file);
        let handle = match &mut self.open {
            Some((name, handle)) if name == file => handle,
            open => {
                let handle = std::fs::File::open(&path)
                    .with_context(|| format!("cannot read the tags {}", path.display()))?;
                &mut open.insert((file.to_string(), handle)).1
            }
        };
        let mut bytes = vec![0u8; usize::try_from(length).unwrap_or(usize::MAX)];
        handle
            .seek(SeekFrom::Start(offset))
            .and_then(|_| handle.read_exact(&mut bytes))
            .with_context(|| format!("cannot read the tags {} at {offset}", path.display()))?;
        let text = String::from_utf8(bytes)
            .with_context(|| format!("{} is damaged at {offset}: not UTF-8", path.display()))?;
        let mut reader = TaggedReader::default();
        let mut doc = None;
        for line in text.lines() {
            doc = doc.or(reader
                .line(line)
                .with_context(|| format!("{} is damaged at {offset}", path.display()))?);
        }
        doc = doc.or(reader
            .finish()
            .with_context(|| format!("{} is damaged at {offset}", path.display()))?);
        doc.map(|d| d.tokens).with_context(|| {
            format!(
                "{} is damaged at {offset}: no document there (run with --from annotate)",
                path.display()
            )
        })
    }
}
