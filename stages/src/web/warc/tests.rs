//! Tests of the WARC codec: reading plain and gzip streams (cut, corrupt, hostile), building
//! records, and the HTTP messages inside them.

#[test]
fn doubled_protocol_in_the_status_line_is_tolerated() {
    let block = b"HTTP/1.1 HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    let response = parse_http_response(block).unwrap();
    assert_eq!(
        (response.version.as_str(), response.status),
        ("HTTP/1.1", 200)
    );
    assert_eq!(response.reason, "OK");
    assert_eq!(response.body, b"ok");
}

use std::io::{Read, Write};

use super::writer::stored_gzip_member;
use super::*;

fn read_all(data: &[u8]) -> (Vec<Record>, Option<WarcError>) {
    let mut records = Vec::new();
    let mut error = None;
    let mut reader = Reader::new(data);
    for item in reader.by_ref() {
        match item {
            Ok(r) => records.push(r),
            Err(e) => error = Some(e),
        }
    }
    assert!(reader.next().is_none(), "iterator must stay finished");
    (records, error)
}

#[test]
fn base32_matches_rfc4648_vectors() {
    let cases: [(&str, &str); 7] = [
        ("", ""),
        ("f", "MY======"),
        ("fo", "MZXQ===="),
        ("foo", "MZXW6==="),
        ("foob", "MZXW6YQ="),
        ("fooba", "MZXW6YTB"),
        ("foobar", "MZXW6YTBOI======"),
    ];
    for (input, expected) in cases {
        assert_eq!(base32(input.as_bytes()), expected, "base32({input:?})");
    }
}

#[test]
fn sha1_digest_of_empty_block_is_the_well_known_value() {
    // SHA-1("") = da39a3ee…, which every WARC tool writes for empty blocks.
    assert_eq!(sha1_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
}

#[test]
fn built_record_has_warc_1_1_layout() {
    let rec = RecordBuilder::new("resource", "urn:uuid:1", "2024-01-01T00:00:00Z")
        .header("WARC-Target-URI", "http://x/\r\nEvil: yes")
        .header("Content-Length", "999")
        .build(b"abc");
    let text = String::from_utf8_lossy(&rec);
    assert!(
        text.starts_with("WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:1>\r\n")
    );
    assert!(text.contains("WARC-Target-URI: http://x/  Evil: yes\r\n"));
    assert!(!text.contains("\r\nEvil"));
    assert!(text.contains("Content-Length: 3\r\n\r\nabc\r\n\r\n"));
    assert_eq!(text.matches("Content-Length").count(), 1);
    let (records, error) = read_all(&rec);
    assert!(error.is_none());
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].verify_block_digest(), Some(true));
    assert_eq!(records[0].length, Some(rec.len() as u64));
}

#[test]
fn a_reused_compressor_writes_what_a_fresh_one_writes() {
    let text: Vec<u8> = "Le corpus d'un linguiste, récolté sur le web. "
        .repeat(5000)
        .into_bytes();
    // Bytes that do not compress: the member is larger than the record.
    let noise: Vec<u8> = (0u32..300_000)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let records: [&[u8]; 5] = [&text, b"", b"GET / HTTP/1.1\r\n\r\n", &noise, &text[..1000]];
    // Each record compressed by a fresh compressor (a thread of its own)...
    let fresh: Vec<Vec<u8>> = records
        .iter()
        .map(|r| {
            let r = r.to_vec();
            std::thread::spawn(move || gzip_member(&r)).join().unwrap()
        })
        .collect();
    // ...then all by this thread's compressor, twice, each after another of another size:
    // the reset must leave nothing behind.
    for _ in 0..2 {
        for (data, first) in records.iter().zip(&fresh) {
            let member = gzip_member(data);
            assert!(&member == first, "record of {} bytes", data.len());
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&member[..])
                .read_to_end(&mut back)
                .unwrap();
            assert!(back == *data, "record of {} bytes", data.len());
        }
    }
    // Level 1 compresses text (here 240 KB of one repeated sentence) to a fraction.
    assert!(fresh[0].len() < text.len() / 20, "{}", fresh[0].len());
}

#[test]
fn stored_member_is_valid_gzip() {
    for len in [0usize, 1, 65535, 65536, 200_000] {
        let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        let member = stored_gzip_member(&data);
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&member[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, data, "len {len}");
    }
}

#[test]
fn lying_content_length_is_truncation_not_allocation() {
    let data = b"WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 99999999999999\r\n\r\nabc";
    let mut reader = Reader::new(&data[..]).with_max_block_len(u64::MAX);
    assert!(matches!(
        reader.next(),
        Some(Err(WarcError::Truncated { offset: 0 }))
    ));
    assert!(reader.next().is_none());
    let mut reader = Reader::new(&data[..]);
    assert!(matches!(
        reader.next(),
        Some(Err(WarcError::TooLarge { .. }))
    ));
    assert!(reader.next().is_none());
}

#[test]
fn garbage_gives_one_error() {
    for data in [
        &b"<html>not a warc</html>"[..],
        b"WARC/1.0\r\nno colon here\r\n\r\n",
        b"WARC/1.0\r\nWARC-Type: x\r\n\r\n",
        b"WARC/1.0\r\nContent-Length: -3\r\n\r\n",
        b"\x1f\x8b\x08\x00garbage",
        b"\x1f\x8b",
    ] {
        let (records, error) = read_all(data);
        assert!(records.is_empty());
        assert!(error.is_some(), "{data:?}");
    }
    let (records, error) = read_all(b"\r\n\r\n");
    assert!(records.is_empty() && error.is_none());
}

#[test]
fn corrupt_crc_is_a_gzip_error() {
    let rec = RecordBuilder::new("resource", "<urn:uuid:2>", "2024").build(b"hello");
    let mut member = gzip_member(&rec);
    let n = member.len();
    member[n - 8] ^= 0xff;
    let (records, error) = read_all(&member);
    assert!(records.is_empty());
    assert!(
        matches!(error, Some(WarcError::Gzip { offset: 0, .. })),
        "{error:?}"
    );
}

#[test]
fn lf_only_warc_headers_are_accepted() {
    let data = b"WARC/1.0\nWARC-Type: resource\nWARC-Target-URI: <http://a/>\nX-Folded: a\n  b\nContent-Length: 2\n\nok\n\nWARC/1.0\nWARC-Type: resource\nContent-Length: 0\n\n";
    let (records, error) = read_all(data);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].block, b"ok");
    assert_eq!(records[0].target_uri(), Some("http://a/"));
    assert_eq!(records[0].header("x-folded"), Some("a b"));
    assert_eq!(records[1].offset, records[0].length.unwrap());
}

#[test]
fn http_response_tolerates_lf_and_missing_reason() {
    let r =
        parse_http_response(b"HTTP/1.0 404\nServer: x\nX-Fold: a\n\tb\nBad line\n\nbody").unwrap();
    assert_eq!(
        (r.version.as_str(), r.status, r.reason.as_str()),
        ("HTTP/1.0", 404, "")
    );
    assert_eq!(r.header("server"), Some("x"));
    assert_eq!(r.header("X-Fold"), Some("a b"));
    assert_eq!(r.body, b"body");
    let r = parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=\xe9\r\n")
        .unwrap();
    assert_eq!(r.header("content-type"), Some("text/plain; charset=\u{e9}"));
    assert!(r.body.is_empty());
    assert!(parse_http_response(b"GET / HTTP/1.1\r\n\r\n").is_err());
    assert!(parse_http_response(b"HTTP/1.1 2000 OK\r\n\r\n").is_err());
    assert!(parse_http_response(b"").is_err());
}

#[test]
fn chunked_gzip_body_is_decoded_and_headers_follow() {
    let text: Vec<u8> = (0..400u32)
        .flat_map(|i| format!("ligne {i}: {}\n", i.wrapping_mul(2_654_435_761)).into_bytes())
        .collect();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&text).unwrap();
    let gz = gz.finish().unwrap();
    let mut msg =
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for piece in gz.chunks(50) {
        msg.extend_from_slice(format!("{:x};ext=1\r\n", piece.len()).as_bytes());
        msg.extend_from_slice(piece);
        msg.extend_from_slice(b"\r\n");
    }
    msg.extend_from_slice(b"0\r\nTrailer: x\r\n\r\n");
    let r = parse_http_response(&msg).unwrap();
    assert_eq!(r.body, text);
    assert_eq!(r.header("Transfer-Encoding"), None);
    assert_eq!(r.header("Content-Encoding"), None);
    assert!(matches!(
        parse_http_response_with_limit(&msg, 100),
        Err(WarcError::BodyTooLarge { limit: 100 })
    ));
    // Cut inside the gzip data: the decoded prefix is kept.
    let cut = &msg[..msg.len() / 2];
    let r = parse_http_response(cut).unwrap();
    assert!(!r.body.is_empty() && text.starts_with(&r.body));
}

#[test]
fn deflate_zlib_and_raw_and_unknown_codings() {
    let text = b"abcabcabcabc deflate me".to_vec();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&text).unwrap();
    let zlib = z.finish().unwrap();
    let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    d.write_all(&text).unwrap();
    let raw = d.finish().unwrap();
    for body in [zlib, raw] {
        let mut msg =
            b"HTTP/1.1 200 OK\r\nContent-Encoding: deflate\r\nContent-Length: 5\r\n\r\n".to_vec();
        msg.extend_from_slice(&body);
        let r = parse_http_response(&msg).unwrap();
        assert_eq!(r.body, text);
        assert_eq!(
            r.header("content-length"),
            Some(text.len().to_string().as_str())
        );
    }
    let r = parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n\x0b\x01\x80")
        .unwrap();
    assert_eq!(r.header("content-encoding"), Some("br"));
    assert_eq!(r.body, b"\x0b\x01\x80");
    // Declared gzip but plain text: kept as is, with the field.
    let r = parse_http_response(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\nplain").unwrap();
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(r.body, b"plain");
    // Declared chunked but not chunked.
    let r = parse_http_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n<html>")
        .unwrap();
    assert_eq!(r.body, b"<html>");
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
}

#[test]
fn request_line() {
    assert_eq!(
        parse_http_request_line(b"GET /a?b=c HTTP/1.1\r\nHost: x\r\n\r\n"),
        Some(("GET".to_string(), "/a?b=c".to_string()))
    );
    assert_eq!(
        parse_http_request_line(b"POST http://x/ HTTP/1.0\n\n"),
        Some(("POST".to_string(), "http://x/".to_string()))
    );
    assert_eq!(parse_http_request_line(b"HTTP/1.1 200 OK\r\n\r\n"), None);
    assert_eq!(parse_http_request_line(b"G(T / HTTP/1.1\r\n"), None);
    assert_eq!(parse_http_request_line(b""), None);
}

#[test]
fn warc_fields_round_trip() {
    let block = warc_fields_block(&[
        ("software", "glaneur"),
        ("bad\nname", "a\r\nb"),
        ("empty", ""),
    ]);
    assert_eq!(
        parse_warc_fields(&block),
        vec![
            ("software".to_string(), "glaneur".to_string()),
            ("bad name".to_string(), "a  b".to_string()),
            ("empty".to_string(), String::new()),
        ]
    );
}

#[test]
fn complete_prefix_of_plain_data() {
    let a = RecordBuilder::new("resource", "<urn:uuid:a>", "d").build(b"one");
    let b = RecordBuilder::new("resource", "<urn:uuid:b>", "d").build(b"two");
    let mut data = a.clone();
    data.extend_from_slice(&b);
    assert_eq!(complete_prefix_len(&data[..]).unwrap(), data.len() as u64);
    assert_eq!(
        complete_prefix_len(&data[..data.len() - 7]).unwrap(),
        a.len() as u64
    );
    assert_eq!(complete_prefix_len(&b""[..]).unwrap(), 0);
}
