//! Fixture tests of `stages::web::warc` on real WARC files from `tests/data/warc/`
//! (ukwa/webarchive-discovery test resources: a 2014 Heritrix crawl of data.gov.uk, Internet
//! Archive and wget WARCs, a JWAT-recompressed file, wget's transfer-compression cases).
//!
//! Run with `--nocapture` to see the per-file table.

// Test code: a failed unwrap is a failed test, which is what it should be.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

use stages::web::warc::{
    HttpResponse, Reader, Record, RecordBuilder, WarcError, complete_prefix_len, gzip_member,
    metadata_record, parse_http_request_line, parse_http_response, parse_warc_fields,
    request_record, response_record, sha1_digest, warcinfo_record,
};

fn warc_files() -> Vec<PathBuf> {
    let dir = common::test_data().join("warc");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no WARC files in {}", dir.display());
    files
}

fn name(path: &std::path::Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// All records, then the error that ended the stream (if any); checks the iterator is fused.
fn read_all(data: &[u8]) -> (Vec<Record>, Option<WarcError>) {
    let mut reader = Reader::new(data);
    let mut records = Vec::new();
    let mut error = None;
    for item in reader.by_ref() {
        assert!(error.is_none(), "a record came after an error");
        match item {
            Ok(r) => records.push(r),
            Err(e) => error = Some(e),
        }
    }
    assert!(reader.next().is_none(), "reader yields again after None");
    (records, error)
}

fn gunzip_all(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(data), &mut out).unwrap();
    out
}

fn is_gzip(data: &[u8]) -> bool {
    data.starts_with(&[0x1f, 0x8b])
}

fn http_response_of(record: &Record) -> Option<HttpResponse> {
    let is_response = matches!(record.record_type(), Some("response" | "revisit"));
    (is_response && record.is_http()).then(|| {
        parse_http_response(&record.block)
            .unwrap_or_else(|e| panic!("HTTP response at {} does not parse: {e}", record.offset))
    })
}

#[test]
fn reads_every_fixture_warc_file() {
    let mut all_statuses: BTreeMap<String, BTreeMap<u16, usize>> = BTreeMap::new();
    let (mut block_checked, mut payload_checked) = (0, 0);
    println!(
        "{:<55} {:>4} {:>5} {:<60} {:<28} {:>9} {:>9} {:>8}",
        "file", "gz", "recs", "by type", "HTTP statuses", "blk-dig", "pay-dig", "error"
    );
    for path in warc_files() {
        let data = std::fs::read(&path).unwrap();
        let (records, error) = read_all(&data);
        let file = name(&path);

        let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
        let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
        let (mut blk_ok, mut blk_n, mut pay_ok, mut pay_n) = (0, 0, 0, 0);
        let ids: HashSet<&str> = records.iter().filter_map(Record::record_id).collect();
        let mut dangling = 0;
        for (i, r) in records.iter().enumerate() {
            *by_type
                .entry(r.record_type().unwrap_or("?").to_string())
                .or_default() += 1;
            let declared: usize = r.header("Content-Length").unwrap().parse().unwrap();
            assert_eq!(
                r.block.len(),
                declared,
                "{file}: block length at {}",
                r.offset
            );
            assert!(
                r.version.starts_with(['0', '1']),
                "{file}: version {:?}",
                r.version
            );
            if let Some(uri) = r.target_uri() {
                assert!(
                    !uri.starts_with('<') && !uri.ends_with('>'),
                    "{file}: {uri}"
                );
            }
            if let Some(ok) = r.verify_block_digest() {
                blk_n += 1;
                blk_ok += usize::from(ok);
            }
            if let Some(ok) = r.verify_payload_digest() {
                pay_n += 1;
                pay_ok += usize::from(ok);
            }
            if let Some(resp) = http_response_of(r) {
                *statuses.entry(resp.status).or_default() += 1;
                if r.record_type() == Some("response") && r.header("WARC-Truncated").is_none() {
                    // The stated Content-Length (if any, and if no coding was undone) must
                    // match the body we found.
                    if let Some(cl) = resp.header("Content-Length") {
                        let cl: usize = cl.trim().parse().unwrap_or(usize::MAX);
                        assert_eq!(cl, resp.body.len(), "{file}: body of {:?}", r.target_uri());
                    }
                }
            }
            if r.record_type() == Some("request") && r.is_http() {
                let (method, target) = parse_http_request_line(&r.block)
                    .unwrap_or_else(|| panic!("{file}: request line at {}", r.offset));
                assert!(!method.is_empty() && !target.is_empty());
            }
            for field in ["WARC-Concurrent-To", "WARC-Warcinfo-ID", "WARC-Refers-To"] {
                if let Some(id) = r.header(field) {
                    dangling += usize::from(!ids.contains(id));
                }
            }
            // Offsets tile the file: each record (or its gzip member) starts where the
            // previous one ended, and the last one ends at the end of the file.
            let length = r
                .length
                .unwrap_or_else(|| panic!("{file}: no length at {}", r.offset));
            let next = records.get(i + 1).map_or(data.len() as u64, |n| n.offset);
            assert_eq!(
                r.offset + length,
                next,
                "{file}: record {i} at {}",
                r.offset
            );
        }
        if let Some(first) = records.first() {
            assert_eq!(first.offset, 0);
        }
        let types = by_type
            .iter()
            .map(|(t, n)| format!("{t}:{n}"))
            .collect::<Vec<_>>()
            .join(" ");
        let codes = statuses
            .iter()
            .map(|(s, n)| format!("{s}:{n}"))
            .collect::<Vec<_>>()
            .join(" ");
        println!(
            "{file:<55} {:>4} {:>5} {types:<60} {codes:<28} {:>9} {:>9} {:>8}   dangling refs {dangling}",
            if is_gzip(&data) { "yes" } else { "no" },
            records.len(),
            format!("{blk_ok}/{blk_n}"),
            format!("{pay_ok}/{pay_n}"),
            error.as_ref().map_or("-".to_string(), |e| format!("{e}")),
        );
        // These files are intact at the WARC level (the "truncated" in two names refers to
        // a shortened crawl and a shortened WARC-Date; `gzip -t` and warcio read them
        // through), so they must read to the end without error. Cut files are made below.
        assert!(error.is_none(), "{file}: {error:?}");
        assert!(!records.is_empty(), "{file}: no records");
        assert_eq!(blk_ok, blk_n, "{file}: block digest mismatch");
        assert_eq!(pay_ok, pay_n, "{file}: payload digest mismatch");
        block_checked += blk_n;
        payload_checked += pay_n;
        all_statuses.insert(file, statuses);
    }
    println!("digests verified: {block_checked} block, {payload_checked} payload");
    assert!(block_checked > 0 && payload_checked > 0);
    // The README of tests/data: the data.gov.uk Heritrix crawl has 302, 403 and 404 answers.
    for (file, statuses) in &all_statuses {
        if file.starts_with("BL-") {
            for code in [302, 403, 404] {
                assert!(
                    statuses.contains_key(&code),
                    "{file}: no {code} among {statuses:?}"
                );
            }
        }
    }
}

#[test]
fn plain_and_gzip_variants_agree() {
    let files = warc_files();
    let mut pairs = 0;
    for plain in files.iter().filter(|p| name(p).ends_with(".warc")) {
        let gz = plain.with_file_name(format!("{}.gz", name(plain)));
        if !gz.is_file() {
            continue;
        }
        pairs += 1;
        let plain_data = std::fs::read(plain).unwrap();
        let gz_data = std::fs::read(&gz).unwrap();
        let (a, ea) = read_all(&plain_data);
        let (b, eb) = read_all(&gz_data);
        assert!(ea.is_none() && eb.is_none(), "{ea:?} {eb:?}");
        assert_eq!(a.len(), b.len(), "{}", name(plain));
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.record_type(), y.record_type());
            assert_eq!(x.target_uri(), y.target_uri());
        }
        if gunzip_all(&gz_data) == plain_data {
            // Same bytes: same records, field for field.
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(
                    (&x.version, &x.headers, &x.block),
                    (&y.version, &y.headers, &y.block)
                );
            }
            println!(
                "{}: {} identical records in both forms",
                name(plain),
                a.len()
            );
        } else {
            // Two separate wget runs against the same page: the decoded bodies must agree.
            let body = |rs: &[Record]| {
                rs.iter()
                    .find_map(http_response_of)
                    .map(|r| r.body)
                    .unwrap()
            };
            assert_eq!(body(&a), body(&b), "{}", name(plain));
            println!(
                "{}: {} records, same types, URIs and bodies",
                name(plain),
                a.len()
            );
        }
    }
    assert!(pairs > 0, "no .warc/.warc.gz pair found");
}

#[test]
fn transfer_compression_is_undone_except_brotli() {
    let dir = common::test_data().join("warc");
    let response = |file: &str| {
        let data = std::fs::read(dir.join(file)).unwrap();
        let (records, error) = read_all(&data);
        assert!(error.is_none());
        let record = records
            .iter()
            .find(|r| r.record_type() == Some("response"))
            .unwrap()
            .clone();
        (parse_http_response(&record.block).unwrap(), record)
    };
    let (none, _) = response("transfer_compression_none.warc");
    let (gzip, gzip_record) = response("transfer_compression_gzip.warc");
    let (brotli, brotli_record) = response("transfer_compression_brotli.warc");
    assert_eq!(none.header("Content-Encoding"), None);
    assert!(!none.body.is_empty());
    // The gzip-coded copy of the page decodes to the page fetched without coding.
    assert_eq!(gzip.body, none.body);
    assert_eq!(gzip.header("Content-Encoding"), None);
    assert_eq!(
        gzip.header("Content-Length"),
        Some(none.body.len().to_string().as_str())
    );
    let raw_gzip =
        &gzip_record.block[stages::web::warc::http_payload_offset(&gzip_record.block).unwrap()..];
    assert!(raw_gzip.starts_with(&[0x1f, 0x8b]) && raw_gzip != gzip.body.as_slice());
    // Brotli is left coded, and says so.
    assert_eq!(brotli.header("Content-Encoding"), Some("br"));
    let raw_br = &brotli_record.block
        [stages::web::warc::http_payload_offset(&brotli_record.block).unwrap()..];
    assert_eq!(brotli.body, raw_br);
    assert_ne!(brotli.body, none.body);
    println!(
        "none {} bytes; gzip {} -> {} bytes; br {} bytes kept coded",
        none.body.len(),
        raw_gzip.len(),
        gzip.body.len(),
        brotli.body.len()
    );
}

#[test]
fn rewrapped_plain_files_read_the_same() {
    for path in warc_files().iter().filter(|p| name(p).ends_with(".warc")) {
        let data = std::fs::read(path).unwrap();
        let (records, error) = read_all(&data);
        assert!(error.is_none());
        // One gzip member per record, cut from the plain file at the reported offsets.
        let mut per_record = Vec::new();
        let mut member_offsets = Vec::new();
        for r in &records {
            let start = usize::try_from(r.offset).unwrap();
            let end = start + usize::try_from(r.length.unwrap()).unwrap();
            member_offsets.push(per_record.len() as u64);
            per_record.extend_from_slice(&gzip_member(&data[start..end]));
        }
        let (again, error) = read_all(&per_record);
        assert!(error.is_none(), "{}: {error:?}", name(path));
        assert_eq!(again.len(), records.len());
        for (i, (x, y)) in records.iter().zip(&again).enumerate() {
            assert_eq!((&x.headers, &x.block), (&y.headers, &y.block));
            assert_eq!(y.offset, member_offsets[i]);
            let member_end = member_offsets
                .get(i + 1)
                .copied()
                .unwrap_or(per_record.len() as u64);
            assert_eq!(y.length, Some(member_end - y.offset));
        }
        // The whole file as one gzip member: same records, all at offset 0, none alone.
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(&data).unwrap();
        let whole = encoder.finish().unwrap();
        let (again, error) = read_all(&whole);
        assert!(error.is_none(), "{}: {error:?}", name(path));
        assert_eq!(again.len(), records.len());
        for (x, y) in records.iter().zip(&again) {
            assert_eq!((&x.headers, &x.block), (&y.headers, &y.block));
            assert_eq!((y.offset, y.length), (0, None));
        }
    }
}

/// Positions to cut `data` at: spread over the file, plus around the second record.
fn cut_points(data_len: usize, records: &[Record]) -> Vec<usize> {
    let mut cuts: Vec<usize> = (1..8).map(|k| data_len * k / 8).collect();
    if let Some(r) = records.get(1) {
        let start = usize::try_from(r.offset).unwrap();
        let end = start + usize::try_from(r.length.unwrap()).unwrap();
        cuts.extend([start, start + 1, start + 12, (start + end) / 2, end - 1]);
    }
    cuts.retain(|&c| c < data_len);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

#[test]
fn cut_files_yield_their_complete_records_then_one_error() {
    let (mut cuts_tried, mut errors_seen) = (0, 0);
    for path in warc_files() {
        let data = std::fs::read(&path).unwrap();
        let (full, error) = read_all(&data);
        assert!(error.is_none());
        let gz = is_gzip(&data);
        for cut in cut_points(data.len(), &full) {
            cuts_tried += 1;
            let (got, error) = read_all(&data[..cut]);
            let cut = cut as u64;
            // What was read is a prefix of the full file's records.
            assert!(got.len() <= full.len());
            for (x, y) in got.iter().zip(&full) {
                assert_eq!(
                    (x.offset, &x.version, &x.headers, &x.block),
                    (y.offset, &y.version, &y.headers, &y.block),
                    "{} cut at {cut}",
                    name(&path)
                );
            }
            // Every record that lies wholly before the cut is read.
            let whole = full
                .iter()
                .filter(|r| r.offset + r.length.unwrap() <= cut)
                .count();
            assert!(
                got.len() >= whole,
                "{} cut at {cut}: {} < {whole}",
                name(&path),
                got.len()
            );
            let at_boundary = full.iter().any(|r| r.offset == cut);
            match &error {
                Some(WarcError::Truncated { offset }) => {
                    errors_seen += 1;
                    // The error names the first record not read, which the cut damaged.
                    let next = &full[got.len()];
                    assert_eq!(*offset, next.offset, "{} cut at {cut}", name(&path));
                    assert!(next.offset < cut && cut < next.offset + next.length.unwrap());
                }
                Some(other) => panic!("{} cut at {cut}: unexpected {other}", name(&path)),
                None => {
                    // No error: the cut fell on a record boundary, or (plain data only) in
                    // the newlines that close a record.
                    let all_started = full.iter().filter(|r| r.offset < cut).count();
                    assert_eq!(got.len(), all_started, "{} cut at {cut}", name(&path));
                    assert!(
                        at_boundary || !gz,
                        "{} cut at {cut} inside a member",
                        name(&path)
                    );
                }
            }
            if gz && !at_boundary {
                assert!(
                    error.is_some(),
                    "{} cut at {cut} gave no error",
                    name(&path)
                );
            }
        }
    }
    println!("{cuts_tried} cuts, {errors_seen} ended with Truncated");
    assert!(errors_seen > 0);
}

#[test]
fn built_records_round_trip() {
    let date = "2025-03-01T10:20:30Z";
    let body: Vec<u8> = (0..300u32)
        .flat_map(|i| format!("<p>Ligne {i} : où l'on glane des épis.</p>\n").into_bytes())
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&body).unwrap();
    let coded = gz.finish().unwrap();
    let mut http_response =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    for piece in coded.chunks(700) {
        http_response.extend_from_slice(format!("{:X}\r\n", piece.len()).as_bytes());
        http_response.extend_from_slice(piece);
        http_response.extend_from_slice(b"\r\n");
    }
    http_response.extend_from_slice(b"0\r\n\r\n");
    let http_request =
        b"GET /glane?q=%C3%A9pi HTTP/1.1\r\nHost: example.org\r\nUser-Agent: glaneur\r\n\r\n";
    let uri = "http://example.org/glane?q=%C3%A9pi";
    let ids = [
        "<urn:uuid:00000000-0000-4000-8000-000000000001>",
        "<urn:uuid:00000000-0000-4000-8000-000000000002>",
        "<urn:uuid:00000000-0000-4000-8000-000000000003>",
        "<urn:uuid:00000000-0000-4000-8000-000000000004>",
        "<urn:uuid:00000000-0000-4000-8000-000000000005>",
    ];
    let serialised = [
        warcinfo_record(
            "glaneur-test.warc.gz",
            &[
                ("software", "glaneur/0.1"),
                ("format", "WARC File Format 1.1"),
            ],
            date,
            ids[0],
        ),
        request_record(uri, http_request, date, ids[1], Some(ids[2])),
        response_record(uri, &http_response, date, ids[2], Some("127.0.0.2"), None),
        metadata_record(
            uri,
            &[("score", "0.75"), ("decision", "kept")],
            date,
            ids[3],
            Some(ids[2]),
        ),
        RecordBuilder::new("resource", ids[4], date)
            .header("WARC-Target-URI", "file:///empty")
            .header("Content-Type", "text/plain")
            .build(b""),
    ];
    let mut file = Vec::new();
    let mut member_offsets = Vec::new();
    for record in &serialised {
        member_offsets.push(file.len() as u64);
        file.extend_from_slice(&gzip_member(record));
    }
    let (records, error) = read_all(&file);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(records.len(), serialised.len());
    let types: Vec<&str> = records.iter().map(|r| r.record_type().unwrap()).collect();
    assert_eq!(
        types,
        ["warcinfo", "request", "response", "metadata", "resource"]
    );
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r.version, "1.1");
        assert_eq!(r.offset, member_offsets[i]);
        assert_eq!(r.record_id(), Some(ids[i]));
        assert_eq!(r.date(), Some(date));
        assert_eq!(r.verify_block_digest(), Some(true));
        // Reading the member alone, from its (offset, length), gives the same record.
        let start = usize::try_from(r.offset).unwrap();
        let end = start + usize::try_from(r.length.unwrap()).unwrap();
        let (alone, error) = read_all(&file[start..end]);
        assert!(error.is_none());
        assert_eq!((&alone[0].headers, &alone[0].block), (&r.headers, &r.block));
    }
    assert_eq!(records[1].block, http_request);
    assert_eq!(records[1].header("WARC-Concurrent-To"), Some(ids[2]));
    assert_eq!(
        parse_http_request_line(&records[1].block),
        Some(("GET".to_string(), "/glane?q=%C3%A9pi".to_string()))
    );
    assert_eq!(records[2].target_uri(), Some(uri));
    assert_eq!(records[2].header("WARC-IP-Address"), Some("127.0.0.2"));
    assert_eq!(
        records[2].content_type(),
        Some("application/http;msgtype=response")
    );
    assert_eq!(records[2].verify_payload_digest(), Some(true));
    assert_eq!(records[2].block, http_response);
    let resp = parse_http_response(&records[2].block).unwrap();
    assert_eq!((resp.status, resp.reason.as_str()), (200, "OK"));
    assert_eq!(resp.body, body);
    assert_eq!(
        resp.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    let fields = parse_warc_fields(&records[3].block);
    assert!(fields.contains(&("decision".to_string(), "kept".to_string())));
    assert_eq!(
        records[0].header("WARC-Filename"),
        Some("glaneur-test.warc.gz")
    );
    assert_eq!(
        records[4].header("WARC-Block-Digest"),
        Some(sha1_digest(b"").as_str())
    );

    // A response cut by the crawler carries WARC-Truncated and its reason.
    let cut = response_record(
        uri,
        &http_response[..200],
        date,
        ids[2],
        None,
        Some("length"),
    );
    let (records, _) = read_all(&cut);
    assert_eq!(records[0].header("WARC-Truncated"), Some("length"));
    assert_eq!(records[0].verify_payload_digest(), None);
}

#[test]
fn crash_recovery_finds_the_end_of_the_last_complete_member() {
    let first = gzip_member(&response_record(
        "http://example.org/a",
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npremier",
        "2025-03-01T10:00:00Z",
        "<urn:uuid:10000000-0000-4000-8000-000000000001>",
        None,
        None,
    ));
    let second_body: Vec<u8> = (0..2000u32)
        .flat_map(|i| format!("{i} ").into_bytes())
        .collect();
    let mut second_http = b"HTTP/1.1 404 Not Found\r\n\r\n".to_vec();
    second_http.extend_from_slice(&second_body);
    let second = gzip_member(&response_record(
        "http://example.org/b",
        &second_http,
        "2025-03-01T10:00:01Z",
        "<urn:uuid:10000000-0000-4000-8000-000000000002>",
        None,
        None,
    ));
    let mut file = first.clone();
    file.extend_from_slice(&second);
    assert_eq!(complete_prefix_len(&file[..]).unwrap(), file.len() as u64);
    let cut = &file[..first.len() + second.len() / 2];
    let keep = complete_prefix_len(cut).unwrap();
    assert_eq!(keep, first.len() as u64);
    let (records, error) = read_all(cut);
    assert_eq!(records.len(), 1);
    assert!(matches!(error, Some(WarcError::Truncated { offset }) if offset == first.len() as u64));
    let (records, error) = read_all(&cut[..usize::try_from(keep).unwrap()]);
    assert_eq!(records.len(), 1);
    assert!(error.is_none());
    // Every cut inside the second member gives the same answer, down to the last byte.
    for len in first.len() + 1..file.len() {
        assert_eq!(
            complete_prefix_len(&file[..len]).unwrap(),
            first.len() as u64,
            "cut {len}"
        );
    }
    // Garbage after complete members (a torn write of a header) is dropped too.
    let mut torn = file.clone();
    torn.extend_from_slice(&[0x1f, 0x8b, 0x08]);
    assert_eq!(complete_prefix_len(&torn[..]).unwrap(), file.len() as u64);

    // On a real Heritrix file, the answer matches the member ends found by the reader.
    let path = warc_files()
        .into_iter()
        .find(|p| name(p).starts_with("BL-"))
        .unwrap();
    let data = std::fs::read(&path).unwrap();
    let (records, _) = read_all(&data);
    let ends: Vec<u64> = records
        .iter()
        .map(|r| r.offset + r.length.unwrap())
        .collect();
    for k in 1..6 {
        let cut = data.len() * k / 6;
        let expected = ends
            .iter()
            .copied()
            .filter(|&e| e <= cut as u64)
            .max()
            .unwrap_or(0);
        assert_eq!(
            complete_prefix_len(&data[..cut]).unwrap(),
            expected,
            "cut {cut}"
        );
    }
}

#[test]
fn damaged_bytes_never_panic_or_hang() {
    let dir = common::test_data().join("warc");
    let mut outcomes: BTreeMap<&str, usize> = BTreeMap::new();
    for file in ["ip-host-testcase.warc.gz", "transfer_compression_gzip.warc"] {
        let data = std::fs::read(dir.join(file)).unwrap();
        let (full, _) = read_all(&data);
        for i in (0..data.len()).step_by(7) {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut damaged = data.clone();
                damaged[i] ^= flip;
                let (records, error) = read_all(&damaged);
                assert!(records.len() <= full.len() + 1);
                for r in &records {
                    let _ = parse_http_response(&r.block);
                    let _ = parse_http_request_line(&r.block);
                }
                let _ = complete_prefix_len(&damaged[..]).unwrap();
                let kind = match error {
                    None => "none",
                    Some(WarcError::Truncated { .. }) => "truncated",
                    Some(WarcError::Gzip { .. }) => "gzip",
                    Some(WarcError::Malformed { .. }) => "malformed",
                    Some(WarcError::TooLarge { .. }) => "too large",
                    Some(_) => "other",
                };
                *outcomes.entry(kind).or_default() += 1;
            }
        }
    }
    println!("outcomes of single-byte damage: {outcomes:?}");
    assert!(outcomes.get("gzip").copied().unwrap_or(0) > 0);
    assert!(outcomes.get("malformed").copied().unwrap_or(0) > 0);
}
