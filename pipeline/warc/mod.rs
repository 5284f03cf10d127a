//! The run's WARC file: raw request/response pairs, appended as they arrive.
//!
//! **In:** responses from the fetcher. **Out:** `warc/glaneur-00000.warc.gz`, WARC/1.1 with one
//! gzip member per record (readable by warcio, pywb and any WARC tool, and randomly accessible
//! by the (offset, length) pairs that `crawl.sqlite` keeps).
//!
//! **Invariants:** records are only ever appended; a record is written with a single
//! `write_all` of its whole gzip member before the crawl state that points at it is committed;
//! on open, only what follows the last record the store committed (the *committed horizon*)
//! may be cut: a member cut by a crash there is found and the file truncated back to the last
//! complete record, so no reader meets a broken record at the end. Nothing before the horizon
//! is ever changed: a file shorter than the horizon, or damaged before it, is an error naming
//! the file and the offset (`glaneur verify` lists the pages concerned).

pub mod response;

pub use response::Response;

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use stages::web::warc;

/// File name of the run's WARC file, relative to `warc/`.
pub const WARC_NAME: &str = "glaneur-00000.warc.gz";

/// An open WARC file in append mode.
#[derive(Debug)]
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
    /// Opens (or creates) `dir/glaneur-00000.warc.gz`. `committed` is the committed horizon:
    /// the end of the last record `crawl.sqlite` has committed a reference to (0 for a new
    /// run). Only bytes after it may be cut, when they end in an unfinished record.
    pub fn open(dir: &Path, committed: u64) -> anyhow::Result<(WarcFile, Opened)> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the folder {}", dir.display()))?;
        let path = dir.join(WARC_NAME);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        let on_disk = file
            .metadata()
            .with_context(|| format!("cannot read {}", path.display()))?
            .len();
        if on_disk < committed {
            anyhow::bail!(
                "{} holds {on_disk} bytes, but crawl.sqlite refers to records up to byte \
                 {committed}: the file was cut or replaced since the last run. Nothing was \
                 changed; `glaneur verify` on the run folder lists the pages concerned, and \
                 `glaneur verify --refetch` queues them to be fetched again",
                path.display()
            );
        }
        let mut opened = Opened::default();
        if on_disk > committed {
            file.seek(SeekFrom::Start(committed))
                .with_context(|| format!("cannot read {}", path.display()))?;
            let good = warc::complete_prefix_len(std::io::BufReader::new(&mut file))
                .with_context(|| format!("cannot read {}", path.display()))?;
            let end = committed + good;
            if end < on_disk {
                file.set_len(end)
                    .with_context(|| format!("cannot repair {}", path.display()))?;
                opened.truncated_bytes = on_disk - end;
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
                &crate::ground::clock::now_iso(),
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

    /// Appends a request and a WARC/1.1 `revisit` record for an answer that repeats the
    /// stored version: a 304 (profile `server-not-modified`) or the same body again (profile
    /// `identical-payload-digest`, with the body's digest). The revisit record keeps the
    /// status line and headers, not the body, and refers to the stored version by URI and
    /// date. Returns the revisit record's (offset, length).
    pub fn revisit(
        &mut self,
        url: &str,
        response: &Response,
        profile: RevisitProfile,
        refers_to_date: Option<&str>,
    ) -> anyhow::Result<(u64, u64)> {
        let date = crate::ground::clock::now_iso();
        let request_id = record_id();
        let revisit_id = record_id();
        let request = warc::request_record(
            url,
            &response.request_block,
            &date,
            &request_id,
            Some(&revisit_id),
        );
        let mut builder = warc::RecordBuilder::new("revisit", &revisit_id, &date)
            .header("WARC-Target-URI", url)
            .header("WARC-Profile", profile.uri())
            .header("WARC-Refers-To-Target-URI", url);
        if let Some(when) = refers_to_date {
            builder = builder.header("WARC-Refers-To-Date", when);
        }
        if let Some(ip) = response.ip.as_deref() {
            builder = builder.header("WARC-IP-Address", ip);
        }
        if profile == RevisitProfile::IdenticalPayload {
            builder = builder.header("WARC-Payload-Digest", &warc::sha1_digest(response.body()));
        }
        let record = builder
            .header("Content-Type", "application/http;msgtype=response")
            .build(&head_only(&response.response_block));
        self.append(&request)?;
        self.append(&record)
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

/// Why a revisit record stands for a response (WARC/1.1 §6.7.2 and §6.7.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisitProfile {
    /// The server answered 304 Not Modified.
    NotModified,
    /// The body is the one already stored.
    IdenticalPayload,
}

impl RevisitProfile {
    /// The profile's URI.
    pub fn uri(self) -> &'static str {
        match self {
            RevisitProfile::NotModified => {
                "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
            }
            RevisitProfile::IdenticalPayload => {
                "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
            }
        }
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
        let date = crate::ground::clock::now_iso();
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

/// One record found by [`scan`].
#[derive(Debug, Clone)]
pub struct Scanned {
    /// Offset of its gzip member.
    pub offset: u64,
    /// Length of its gzip member (0 when it shares a member with another record).
    pub length: u64,
    /// `WARC-Type`.
    pub record_type: String,
    /// `WARC-Target-URI`, when it has one.
    pub target_uri: Option<String>,
}

/// A stretch of a WARC file that holds no readable record.
#[derive(Debug, Clone)]
pub struct Damage {
    /// First byte.
    pub start: u64,
    /// First byte after it (where the next readable record starts, or the end of the file).
    pub end: u64,
    /// What the reader found wrong at `start`.
    pub why: String,
}

/// What reading a WARC file from end to end found.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// Size of the file.
    pub len: u64,
    /// Every readable record, in file order.
    pub records: Vec<Scanned>,
    /// Every unreadable stretch, in file order.
    pub damaged: Vec<Damage>,
}

/// Candidate record starts tried after a damaged stretch before giving up on the rest of the
/// file (each is a gzip header's magic bytes, so in compressed data they are rare).
const RESYNC_TRIES: usize = 100_000;

/// Reads a WARC file from end to end. A damaged record does not stop the scan: it goes on at
/// the next gzip member that holds a readable record, so that every damaged stretch is found.
pub fn scan(path: &Path) -> anyhow::Result<Scan> {
    let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let len = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let mut out = Scan {
        len,
        ..Scan::default()
    };
    let mut pos = 0;
    while pos < len {
        file.seek(SeekFrom::Start(pos))
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut failed = None;
        let reader = warc::Reader::new(std::io::BufReader::with_capacity(1 << 16, &mut file))
            .with_max_block_len(u64::MAX);
        for item in reader {
            match item {
                Ok(record) => out.records.push(Scanned {
                    offset: pos + record.offset,
                    length: record.length.unwrap_or(0),
                    record_type: record.record_type().unwrap_or("").to_string(),
                    target_uri: record.target_uri().map(str::to_string),
                }),
                Err(warc::WarcError::Io(e)) => {
                    return Err(e).with_context(|| format!("cannot read {}", path.display()));
                }
                Err(e) => {
                    failed = Some((pos + e.offset().unwrap_or(0), e.to_string()));
                    break;
                }
            }
        }
        let Some((start, why)) = failed else { break };
        let end = resync(&mut file, start + 1, len)
            .with_context(|| format!("cannot read {}", path.display()))?;
        out.damaged.push(Damage { start, end, why });
        pos = end;
    }
    Ok(out)
}

/// The first offset at or after `from` where a gzip member holding a readable record starts
/// (`len` when there is none).
fn resync(file: &mut File, from: u64, len: u64) -> std::io::Result<u64> {
    const MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
    let mut tries = 0;
    let mut at = from;
    let mut chunk = vec![0u8; 1 << 16];
    while at < len && tries < RESYNC_TRIES {
        file.seek(SeekFrom::Start(at))?;
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        let window = &chunk[..n];
        let mut found = None;
        for i in memchr_all(window) {
            if window.get(i..i + 3).is_some_and(|w| w == MAGIC) || i + 3 > n {
                let candidate = at + i as u64;
                tries += 1;
                if readable_record_at(file, candidate)? {
                    found = Some(candidate);
                    break;
                }
                if tries >= RESYNC_TRIES {
                    break;
                }
            }
        }
        if let Some(candidate) = found {
            return Ok(candidate);
        }
        // Overlap by two bytes so a magic cut by the chunk's end is seen whole next time.
        at += (n as u64).saturating_sub(2).max(1);
    }
    Ok(len)
}

/// Positions of 0x1f bytes in `window`.
fn memchr_all(window: &[u8]) -> impl Iterator<Item = usize> + '_ {
    window
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == 0x1f)
        .map(|(i, _)| i)
}

/// Whether a gzip member holding one whole readable record starts at `offset`.
fn readable_record_at(file: &mut File, offset: u64) -> std::io::Result<bool> {
    file.seek(SeekFrom::Start(offset))?;
    let mut reader = warc::Reader::new(std::io::BufReader::new(&mut *file));
    Ok(matches!(reader.next(), Some(Ok(r)) if r.length.is_some() && reader.is_gzip()))
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
        let (mut w, opened) = WarcFile::open(dir.path(), 0).unwrap();
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
        // A horizon past the file's end: the file was cut, and nothing is changed.
        let err = format!("{:#}", WarcFile::open(dir.path(), full).unwrap_err());
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(err.contains("glaneur verify"), "{err}");
        let (w, opened) = WarcFile::open(dir.path(), off1 + len1).unwrap();
        assert!(opened.truncated_bytes > 0);
        assert_eq!(w.len(), off2, "back to the end of the last complete record");
        let all = records_from(&path, 0).unwrap();
        let types: Vec<_> = all
            .iter()
            .map(|(_, _, r)| r.record_type().unwrap_or("").to_string())
            .collect();
        assert_eq!(types, ["warcinfo", "request", "response", "request"]);
    }

    #[test]
    fn damage_before_the_committed_horizon_is_never_cut() {
        let dir = tempfile::tempdir().unwrap();
        let (mut w, _) = WarcFile::open(dir.path(), 0).unwrap();
        let (off1, len1) = w
            .exchange("http://a.test/", &response(b"<p>un</p>"))
            .unwrap();
        let (off2, len2) = w
            .exchange("http://a.test/2", &response(b"<p>deux</p>"))
            .unwrap();
        w.flush().unwrap();
        drop(w);
        let path = dir.path().join(WARC_NAME);
        let mut bytes = std::fs::read(&path).unwrap();
        let full = bytes.len() as u64;
        // One flipped byte inside the first response record, which the store committed.
        bytes[(off1 + len1 / 2) as usize] ^= 0x40;
        std::fs::write(&path, &bytes).unwrap();
        let (w, opened) = WarcFile::open(dir.path(), off2 + len2).unwrap();
        assert_eq!(opened.truncated_bytes, 0);
        assert_eq!(w.len(), full, "nothing cut");
        assert!(read_record_at(&path, off1, len1).is_err());
        assert!(read_record_at(&path, off2, len2).is_ok());
    }
}
