//! The run's WARC file: raw request/response pairs, appended as they arrive.
//!
//! **In:** responses from the fetcher. **Out:** `warc/glaneur-00000.warc.gz`, WARC/1.1 with one
//! gzip member per record (readable by warcio, pywb and any WARC tool, and randomly accessible
//! by the (offset, length) pairs that `crawl.sqlite` keeps).
//!
//! **Invariants:** records are only ever appended; a record is written with a single
//! `write_all` of its whole gzip member before the crawl state that points at it is committed;
//! on open, a member cut by a crash is found and the file truncated back to the last complete
//! record, so no reader ever meets a broken record.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::warc;

use crate::fetch::Response;

/// File name of the run's WARC file, relative to `warc/`.
pub const WARC_NAME: &str = "glaneur-00000.warc.gz";

/// An open WARC file in append mode.
pub struct WarcFile {
    file: File,
    path: PathBuf,
    len: u64,
}

/// What opening found.
#[derive(Debug, Default)]
pub struct Opened {
    /// Bytes of a partial record removed from the end.
    pub truncated_bytes: u64,
    /// The file was created now.
    pub created: bool,
}

impl WarcFile {
    /// Opens (or creates) `dir/glaneur-00000.warc.gz`.
    pub fn open(dir: &Path) -> anyhow::Result<(WarcFile, Opened)> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}", dir.display()))?;
        let path = dir.join(WARC_NAME);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let on_disk = file.metadata()?.len();
        let mut opened = Opened::default();
        if on_disk > 0 {
            file.seek(SeekFrom::Start(0))?;
            let good = warc::complete_prefix_len(std::io::BufReader::new(&mut file))
                .with_context(|| format!("cannot read {}", path.display()))?;
            if good < on_disk {
                file.set_len(good)
                    .with_context(|| format!("cannot repair {}", path.display()))?;
                opened.truncated_bytes = on_disk - good;
            }
        }
        let len = file.metadata()?.len();
        let mut warc_file = WarcFile { file, path, len };
        if len == 0 {
            opened.created = true;
            let record = warc::warcinfo_record(
                WARC_NAME,
                &[
                    (
                        "software",
                        &format!("glaneur/{}", env!("CARGO_PKG_VERSION")),
                    ),
                    ("format", "WARC File Format 1.1"),
                    (
                        "conformsTo",
                        "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
                    ),
                ],
                &now_iso(),
                &record_id(),
            );
            warc_file.append(&record)?;
        }
        Ok((warc_file, opened))
    }

    /// Appends one record (compressed as its own gzip member); returns (offset, length).
    pub fn append(&mut self, record: &[u8]) -> anyhow::Result<(u64, u64)> {
        self.write_member(&warc::gzip_member(record))
    }

    /// Appends the request and response records of one exchange; returns the response
    /// record's (offset, length).
    pub fn exchange(&mut self, url: &str, response: &Response) -> anyhow::Result<(u64, u64)> {
        self.write_packed(&Packed::exchange(url, response))
    }

    /// Appends an exchange packed beforehand (see [`Packed`]); returns the response record's
    /// (offset, length).
    pub fn write_packed(&mut self, packed: &Packed) -> anyhow::Result<(u64, u64)> {
        self.write_member(&packed.request)?;
        self.write_member(&packed.response)
    }

    fn write_member(&mut self, member: &[u8]) -> anyhow::Result<(u64, u64)> {
        let offset = self.len;
        self.file
            .write_all(member)
            .with_context(|| format!("cannot write to {}", self.path.display()))?;
        self.len += member.len() as u64;
        Ok((offset, member.len() as u64))
    }

    /// Current length: everything before it is complete records.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Path of the file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether only the file header is there.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Flushes to the operating system (a killed process loses nothing written; `sync` is for
    /// power loss and is left to the OS).
    pub fn flush(&mut self) -> anyhow::Result<()> {
        self.file.flush()?;
        Ok(())
    }
}

/// The request and response records of one exchange, each compressed as its own gzip member,
/// ready to be appended. Compressing is most of the cost of archiving a page, and it needs
/// nothing from the file: the crawl packs a page where it analyses it, off the task that owns
/// the file and the database, which only appends the bytes.
pub struct Packed {
    request: Vec<u8>,
    response: Vec<u8>,
}

impl Packed {
    /// Bytes the compressed records hold.
    pub fn held_bytes(&self) -> usize {
        self.request.capacity() + self.response.capacity()
    }

    /// Builds and compresses both records (dated now).
    pub fn exchange(url: &str, response: &Response) -> Packed {
        let date = now_iso();
        let request_id = record_id();
        let response_id = record_id();
        let request = warc::request_record(
            url,
            &response.request_block,
            &date,
            &request_id,
            Some(&response_id),
        );
        let truncated = if response.body_skipped {
            Some("unspecified")
        } else {
            response.truncated.then_some("length")
        };
        // Not harvested: keep the status line and headers only, and say so.
        let head;
        let block = if response.body_skipped {
            head = head_only(&response.response_block);
            &head
        } else {
            &response.response_block
        };
        let record = warc::response_record(
            url,
            block,
            &date,
            &response_id,
            response.ip.as_deref(),
            truncated,
        );
        Packed {
            request: warc::gzip_member(&request),
            response: warc::gzip_member(&record),
        }
    }
}

fn head_only(block: &[u8]) -> Vec<u8> {
    match block.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(end) => block[..end + 4].to_vec(),
        None => block.to_vec(),
    }
}

/// Reads the record at `offset` (one gzip member of `length` bytes).
pub fn read_record_at(path: &Path, offset: u64, length: u64) -> anyhow::Result<warc::Record> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = warc::Reader::new(file.take(length));
    match reader.next() {
        Some(Ok(record)) => Ok(record),
        Some(Err(e)) => Err(e).with_context(|| {
            format!(
                "damaged WARC record at offset {offset} of {}",
                path.display()
            )
        }),
        None => anyhow::bail!("no WARC record at offset {offset} of {}", path.display()),
    }
}

/// Every record from `offset` to the end, with its absolute offset and length.
pub fn records_from(path: &Path, offset: u64) -> anyhow::Result<Vec<(u64, u64, warc::Record)>> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let total = file.metadata()?.len();
    file.seek(SeekFrom::Start(offset))?;
    let mut data = Vec::new();
    file.read_to_end(&mut data)?;
    let mut out: Vec<(u64, u64, warc::Record)> = Vec::new();
    for record in warc::Reader::new(&data[..]) {
        let Ok(record) = record else { break };
        out.push((offset + record.offset, 0, record));
    }
    // Lengths: distance to the next record (the last one runs to the end of the file).
    let starts: Vec<u64> = out.iter().map(|(o, _, _)| *o).collect();
    for (i, item) in out.iter_mut().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(total);
        item.1 = end - item.0;
    }
    Ok(out)
}

/// Now as ISO 8601 UTC with seconds (the WARC-Date form).
pub fn now_iso() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A fresh `<urn:uuid:…>` record id.
pub fn record_id() -> String {
    format!("<urn:uuid:{}>", uuid::Uuid::new_v4())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(body: &[u8]) -> Response {
        let mut block = b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\r\n".to_vec();
        block.extend_from_slice(body);
        Response::new(
            200,
            vec![("content-type".into(), "text/html".into())],
            body.to_vec(),
            b"GET / HTTP/1.1\r\nHost: a.test\r\n\r\n".to_vec(),
            block,
        )
    }

    #[test]
    fn appends_reads_back_and_repairs_a_cut_record() {
        let dir = tempfile::tempdir().unwrap();
        let (mut w, opened) = WarcFile::open(dir.path()).unwrap();
        assert!(opened.created);
        let (off1, len1) = w
            .exchange("http://a.test/", &response(b"<p>un</p>"))
            .unwrap();
        let (off2, _) = w
            .exchange("http://a.test/2", &response(b"<p>deux</p>"))
            .unwrap();
        w.flush().unwrap();
        let path = dir.path().join(WARC_NAME);
        let rec = read_record_at(&path, off1, len1).unwrap();
        assert_eq!(rec.target_uri(), Some("http://a.test/"));
        assert!(rec.block.ends_with(b"<p>un</p>"));
        drop(w);
        // Cut the last record in the middle, as a kill -9 during a write could.
        let full = std::fs::metadata(&path).unwrap().len();
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(off2 + (full - off2) / 2).unwrap();
        drop(f);
        let (w, opened) = WarcFile::open(dir.path()).unwrap();
        assert!(opened.truncated_bytes > 0);
        assert_eq!(w.len(), off2, "back to the end of the last complete record");
        let all = records_from(&path, 0).unwrap();
        let types: Vec<_> = all
            .iter()
            .map(|(_, _, r)| r.record_type().unwrap_or("").to_string())
            .collect();
        assert_eq!(types, ["warcinfo", "request", "response", "request"]);
    }
}
