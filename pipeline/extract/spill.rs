//! The extract stage's scratch files: JSON lines written once, read back in order or, for a
//! candidate pair of near duplicates, at an offset; and the duplicate check's signatures,
//! records of one size written once and read back whole as often as the check needs.
//!
//! **In:** lines of JSON; signatures. **Out:** the same lines, in order or by offset; the same
//! signatures, in order.
//!
//! **Invariants:** a line never holds a line break (JSON escapes them); every error names the
//! file.

use std::cell::RefCell;
use std::io::{BufRead, Read, Seek, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;
use stages::corpus::dedup::{SIGNATURE_BYTES, Signature, SignatureSource};

/// A scratch file being written.
pub(super) struct Writer {
    path: PathBuf,
    file: std::io::BufWriter<std::fs::File>,
    offset: u64,
}

impl Writer {
    pub(super) fn create(path: PathBuf) -> anyhow::Result<Writer> {
        let file = std::fs::File::create(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Writer {
            path,
            file: std::io::BufWriter::with_capacity(1 << 20, file),
            offset: 0,
        })
    }

    /// Appends one line; returns its offset.
    pub(super) fn line(&mut self, text: &str) -> anyhow::Result<u64> {
        let at = self.offset;
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.write_all(b"\n"))
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        self.offset += text.len() as u64 + 1;
        Ok(at)
    }

    /// Appends one line given as bytes (a line read back with [`Reader::bytes`]).
    pub(super) fn line_bytes(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.record(bytes)?;
        self.record(b"\n")
    }

    /// Appends bytes as they are (a record of fixed size, no line break).
    pub(super) fn record(&mut self, bytes: &[u8]) -> anyhow::Result<()> {
        self.file
            .write_all(bytes)
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Flushes the file; returns its path.
    pub(super) fn finish(mut self) -> anyhow::Result<PathBuf> {
        self.file
            .flush()
            .with_context(|| format!("cannot write {}", self.path.display()))?;
        Ok(self.path)
    }
}

/// A scratch file read line by line: each line and its length in bytes.
pub(super) struct Reader {
    path: PathBuf,
    lines: std::io::BufReader<std::fs::File>,
}

impl Reader {
    pub(super) fn open(path: &Path) -> anyhow::Result<Reader> {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        Ok(Reader {
            path: path.to_path_buf(),
            lines: std::io::BufReader::with_capacity(1 << 20, file),
        })
    }

    /// The same file, its lines as bytes without the line break.
    pub(super) fn bytes(self) -> ByteLines {
        ByteLines(self)
    }

    fn failed(&self, e: std::io::Error) -> anyhow::Error {
        anyhow::Error::new(e).context(format!("cannot read {}", self.path.display()))
    }
}

impl Iterator for Reader {
    type Item = anyhow::Result<(String, usize)>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut line = String::new();
        match self.lines.read_line(&mut line) {
            Ok(0) => None,
            Ok(n) => Some(Ok((line, n))),
            Err(e) => Some(Err(self.failed(e))),
        }
    }
}

/// A scratch file read line by line as bytes, without the line break ([`Reader::bytes`]): for
/// lines copied as they are, which need no UTF-8 check (this program wrote them from strings).
pub(super) struct ByteLines(Reader);

impl Iterator for ByteLines {
    type Item = anyhow::Result<Vec<u8>>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut line = Vec::new();
        match self.0.lines.read_until(b'\n', &mut line) {
            Ok(0) => None,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                Some(Ok(line))
            }
            Err(e) => Some(Err(self.0.failed(e))),
        }
    }
}

/// The text of a document line of the candidates file, read at its offset.
pub(super) struct Lookup {
    path: PathBuf,
    file: std::io::BufReader<std::fs::File>,
}

#[derive(Deserialize)]
struct TextOf {
    paragraphs: Vec<ParagraphText>,
}

#[derive(Deserialize)]
struct UrlOf {
    url: String,
}

#[derive(Deserialize)]
struct ParagraphText {
    text: String,
}

impl Lookup {
    pub(super) fn open(path: &Path) -> anyhow::Result<Lookup> {
        let file =
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
        Ok(Lookup {
            path: path.to_path_buf(),
            file: std::io::BufReader::new(file),
        })
    }

    /// The line at `offset`, read as `T`.
    fn read_at<T: serde::de::DeserializeOwned>(&mut self, offset: u64) -> anyhow::Result<T> {
        let mut line = String::new();
        self.file
            .seek(std::io::SeekFrom::Start(offset))
            .and_then(|_| self.file.read_line(&mut line))
            .with_context(|| format!("cannot read {} at {offset}", self.path.display()))?;
        serde_json::from_str(&line)
            .with_context(|| format!("{}: damaged line at {offset}", self.path.display()))
    }

    /// The URL of the document written at `offset`.
    pub(super) fn document_url(&mut self, offset: u64) -> anyhow::Result<String> {
        Ok(self.read_at::<UrlOf>(offset)?.url)
    }

    /// The clean text of the document written at `offset`: its paragraphs separated by a
    /// blank line.
    pub(super) fn document_text(&mut self, offset: u64) -> anyhow::Result<String> {
        let doc: TextOf = self.read_at(offset)?;
        Ok(doc
            .paragraphs
            .into_iter()
            .map(|p| p.text)
            .collect::<Vec<_>>()
            .join("\n\n"))
    }
}

/// The duplicate check's signatures being written, in candidate order.
pub(super) struct SignatureWriter {
    out: Writer,
    count: usize,
}

impl SignatureWriter {
    pub(super) fn create(path: PathBuf) -> anyhow::Result<SignatureWriter> {
        Ok(SignatureWriter {
            out: Writer::create(path)?,
            count: 0,
        })
    }

    pub(super) fn push(&mut self, signature: &Signature) -> anyhow::Result<()> {
        self.out.record(&signature.to_bytes())?;
        self.count += 1;
        Ok(())
    }

    /// Flushes the file; the signatures, to be read back.
    pub(super) fn finish(self) -> anyhow::Result<SignatureFile> {
        Ok(SignatureFile {
            path: self.out.finish()?,
            count: self.count,
            error: RefCell::new(None),
        })
    }
}

/// The signatures on disk, read whole at each pass of the duplicate check: at a million
/// pages they are 113 MB there instead of 120 in memory. A read error ends the pass and is
/// kept for [`SignatureFile::take_error`].
pub(super) struct SignatureFile {
    path: PathBuf,
    count: usize,
    error: RefCell<Option<anyhow::Error>>,
}

impl SignatureFile {
    /// The first read error, taken (the check's verdicts are then incomplete).
    pub(super) fn take_error(&self) -> Option<anyhow::Error> {
        self.error.borrow_mut().take()
    }

    fn keep(&self, e: std::io::Error, what: &str) {
        self.error.borrow_mut().get_or_insert_with(|| {
            anyhow::Error::new(e).context(format!("cannot {what} {}", self.path.display()))
        });
    }
}

impl SignatureSource for SignatureFile {
    fn count(&self) -> usize {
        self.count
    }

    fn each(&self) -> impl Iterator<Item = Signature> + '_ {
        let mut file = match std::fs::File::open(&self.path) {
            Ok(file) => Some(std::io::BufReader::with_capacity(1 << 20, file)),
            Err(e) => {
                self.keep(e, "read");
                None
            }
        };
        let mut left = self.count;
        std::iter::from_fn(move || {
            let reader = file.as_mut().filter(|_| left > 0)?;
            let mut record = [0u8; SIGNATURE_BYTES];
            match reader.read_exact(&mut record) {
                Ok(()) => {
                    left -= 1;
                    Some(Signature::from_bytes(&record))
                }
                Err(e) => {
                    self.keep(e, "read back the signatures of");
                    file = None;
                    None
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_come_back_at_every_pass_and_a_cut_file_is_an_error_naming_it() {
        use stages::corpus::dedup::Fingerprint;
        let dir = tempfile::tempdir().unwrap();
        let sigs: Vec<Signature> = ["un texte", "un autre texte", "", "été"]
            .iter()
            .map(|t| Fingerprint::new(t).signature())
            .collect();
        let mut w = SignatureWriter::create(dir.path().join("signatures.bin")).unwrap();
        for s in &sigs {
            w.push(s).unwrap();
        }
        let file = w.finish().unwrap();
        assert_eq!(file.count(), 4);
        for _ in 0..3 {
            assert_eq!(file.each().collect::<Vec<_>>(), sigs);
        }
        assert!(file.take_error().is_none());
        // Cut in the third record: two come back, and the error names the file.
        let path = dir.path().join("signatures.bin");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..2 * SIGNATURE_BYTES + 7]).unwrap();
        assert_eq!(file.each().collect::<Vec<_>>(), sigs[..2]);
        let err = file.take_error().expect("the cut file's error");
        assert!(format!("{err:#}").contains("signatures.bin"), "{err:#}");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(file.each().count(), 0);
        assert!(file.take_error().is_some());
    }

    #[test]
    fn lines_come_back_in_order_and_by_offset() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer::create(dir.path().join("a.jsonl")).unwrap();
        let first = w
            .line(r#"{"url":"http://a.test/","paragraphs":[{"text":"un"},{"text":"deux"}]}"#)
            .unwrap();
        let second = w
            .line(r#"{"paragraphs":[{"text":"trois\nlignes"}]}"#)
            .unwrap();
        let path = w.finish().unwrap();
        let lines: Vec<String> = Reader::open(&path).unwrap().map(|l| l.unwrap().0).collect();
        assert_eq!(lines.len(), 2);
        let mut lookup = Lookup::open(&path).unwrap();
        assert_eq!(lookup.document_text(second).unwrap(), "trois\nlignes");
        assert_eq!(lookup.document_text(first).unwrap(), "un\n\ndeux");
        assert_eq!(lookup.document_url(first).unwrap(), "http://a.test/");
        let err = lookup.document_text(first + 3).unwrap_err();
        assert!(format!("{err:#}").contains("a.jsonl"), "{err:#}");
    }

    #[test]
    fn byte_lines_come_back_as_written_empty_lines_and_a_last_line_without_break_included() {
        let dir = tempfile::tempdir().unwrap();
        let mut w = Writer::create(dir.path().join("b.jsonl")).unwrap();
        let accented = r#"{"text":"é\u00e9"}"#;
        w.line(accented).unwrap();
        w.line("").unwrap();
        w.line_bytes(b"{}").unwrap();
        let path = w.finish().unwrap();
        let lines: Vec<Vec<u8>> = Reader::open(&path)
            .unwrap()
            .bytes()
            .map(|l| l.unwrap())
            .collect();
        assert_eq!(lines, [accented.as_bytes(), b"", b"{}"].map(<[u8]>::to_vec));
        // The copy is the file again, byte for byte.
        let mut copy = Writer::create(dir.path().join("c.jsonl")).unwrap();
        for line in &lines {
            copy.line_bytes(line).unwrap();
        }
        let copied = copy.finish().unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(&copied).unwrap()
        );
        // A last line without its break (a file cut short) still comes back whole.
        std::fs::write(&path, b"{\"a\":1}\n{\"b\":2}").unwrap();
        let lines: Vec<Vec<u8>> = Reader::open(&path)
            .unwrap()
            .bytes()
            .map(|l| l.unwrap())
            .collect();
        assert_eq!(lines, [b"{\"a\":1}".to_vec(), b"{\"b\":2}".to_vec()]);
    }
}
