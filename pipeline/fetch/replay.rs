//! The replay fetcher: a recorded web (a WARC file) answering as the live web would.
//!
//! **In:** a WARC file's bytes, the topic's canonicaliser. **Out:** the recorded response of a
//! URL, or a `404` marked `x-glaneur-replay: missing`.
//!
//! **Invariants:** later records win over earlier ones for the same URL, as in a re-crawl;
//! bodies are capped as the live fetcher caps them.

use std::collections::HashMap;

use anyhow::Context;
use stages::web::urlnorm::Canonicalizer;
use stages::web::warc;

use std::time::Duration;

use super::{bare_request, is_harvested_type};
use crate::warc::Response;
use crate::warc::response::Body;

/// A recorded web: every `response` record of a WARC file, by canonical URL.
pub struct Replay {
    pages: HashMap<String, Response>,
    pub(super) max_body_bytes: u64,
}

impl Replay {
    /// Indexes the responses of a WARC file (plain or gzip). Later records win over earlier
    /// ones for the same URL, as in a re-crawl.
    pub fn from_bytes(
        data: &[u8],
        canonicalizer: &Canonicalizer,
        max_body_bytes: u64,
    ) -> anyhow::Result<Replay> {
        let mut pages = HashMap::new();
        for record in warc::Reader::new(data) {
            let record = record.context("damaged WARC record")?;
            if record.record_type() != Some("response") {
                continue;
            }
            let Some(url) = record
                .target_uri()
                .and_then(|uri| canonicalizer.parse(uri, None).ok())
            else {
                continue;
            };
            if let Some(response) = Response::from_record(&record) {
                pages.insert(url.to_string(), response);
            }
        }
        Ok(Replay {
            pages,
            max_body_bytes,
        })
    }

    /// Number of recorded URLs.
    pub fn len(&self) -> usize {
        self.pages.len()
    }

    /// Whether the recording is empty.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    pub(super) fn fetch(&self, url: &url::Url) -> Response {
        let request_block = bare_request(url);
        let Some(page) = self.pages.get(url.as_str()) else {
            let body = b"not in the recording".to_vec();
            let headers = vec![
                ("content-type".to_string(), "text/plain".to_string()),
                ("x-glaneur-replay".to_string(), "missing".to_string()),
            ];
            let mut block = b"HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\nx-glaneur-replay: missing\r\n".to_vec();
            block.extend_from_slice(format!("content-length: {}\r\n\r\n", body.len()).as_bytes());
            block.extend_from_slice(&body);
            return Response {
                status: 404,
                headers,
                body: Body::Own(body),
                truncated: false,
                body_skipped: false,
                request_block,
                response_block: block,
                ip: None,
                elapsed: Duration::ZERO,
                replayed: true,
            };
        };
        let mut response = page.clone();
        response.request_block = request_block;
        response.replayed = true;
        response.body_skipped = !is_harvested_type(response.header("content-type"));
        if response.body_skipped {
            response.truncate_body(0);
        }
        let cap = super::body_cap(response.header("content-type"), self.max_body_bytes);
        if response.body().len() as u64 > cap {
            response.truncate_body(usize::try_from(cap).unwrap_or(usize::MAX));
            response.truncated = true;
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_serves_recorded_pages_and_404s_the_rest() {
        let http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello";
        let record = warc::response_record(
            "http://A.test/p?b=2&a=1#x",
            http,
            "2026-11-22T00:00:00Z",
            "<urn:uuid:00000000-0000-4000-8000-000000000001>",
            None,
            None,
        );
        let data = warc::gzip_member(&record);
        let canon = Canonicalizer::default();
        let replay = Replay::from_bytes(&data, &canon, 1 << 20).unwrap();
        assert_eq!(replay.len(), 1);
        let url = canon.parse("http://a.test/p?a=1&b=2", None).unwrap();
        let page = replay.fetch(&url);
        assert_eq!(page.status, 200);
        assert_eq!(page.body(), b"hello");
        assert_eq!(page.response_block, http.to_vec());
        let missing = replay.fetch(&canon.parse("http://a.test/other", None).unwrap());
        assert_eq!(missing.status, 404);
        assert_eq!(missing.header("x-glaneur-replay"), Some("missing"));
    }
}
