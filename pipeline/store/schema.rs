//! The schema of `crawl.sqlite` (version [`super::FORMAT_VERSION`]), created by the store
//! only; what each table and column means is in docs/guide/exports.md, "The run folder".
//!
//! **In:** nothing. **Out:** the `CREATE TABLE IF NOT EXISTS` statements.
//!
//! **Invariants:** a change of meaning of a table or column raises `FORMAT_VERSION`.

pub(super) const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS hosts (
    host          TEXT PRIMARY KEY,   -- politeness key: scheme://host:port
    robots_status INTEGER,            -- HTTP status of robots.txt (0: unreachable)
    robots_body   TEXT,               -- robots.txt as fetched (capped), re-parsed on resume
    crawl_delay   REAL,               -- Crawl-delay that applies to glaneur, seconds
    robots_fetched_at REAL,           -- when robots.txt was read, seconds since 1970
    fetched       INTEGER NOT NULL DEFAULT 0,
    failures      INTEGER NOT NULL DEFAULT 0,
    gave_up       TEXT                -- why the crawl stopped asking this server, if it did
);
CREATE TABLE IF NOT EXISTS urls (
    id            INTEGER PRIMARY KEY,
    url           TEXT NOT NULL UNIQUE,  -- canonical URL (the seen-set key)
    host          TEXT NOT NULL,         -- politeness key
    depth         INTEGER NOT NULL,
    parent_id     INTEGER REFERENCES urls(id),
    via           TEXT NOT NULL,         -- seed | link | redirect
    priority      REAL NOT NULL,
    state         TEXT NOT NULL,         -- queued | fetched | skipped | failed
    reason        TEXT,                  -- final reason: kept, off-topic, robots, http-404, ...
    detail        TEXT,                  -- human-readable detail of the reason
    discovered_at REAL NOT NULL,         -- seconds since 1970
    fetched_at    REAL,
    elapsed_ms    INTEGER,
    status        INTEGER,
    content_type  TEXT,
    length        INTEGER,
    last_modified TEXT,
    etag          TEXT,
    server        TEXT,
    location      TEXT,                  -- redirect target as sent by the server
    warc_file     TEXT,
    warc_offset   INTEGER,
    warc_length   INTEGER,
    score         REAL,                  -- topic score S(p)
    verdict       INTEGER,               -- formula satisfied (1/0)
    matched       TEXT,                  -- formula clauses found, ' | '-separated
    language      TEXT,
    title         TEXT,
    doc_id        TEXT,                  -- id in docs.jsonl when kept
    tokens        INTEGER,
    duplicate_of  TEXT,                  -- doc id this page duplicates
    revisit       TEXT                   -- last revisit: pending | not-modified | unchanged | refetched | failed
);
CREATE INDEX IF NOT EXISTS urls_state ON urls(state);
CREATE INDEX IF NOT EXISTS urls_host_state ON urls(host, state);
CREATE TABLE IF NOT EXISTS links (
    src    INTEGER NOT NULL REFERENCES urls(id),
    dst    INTEGER NOT NULL REFERENCES urls(id),
    kind   TEXT NOT NULL,   -- anchor | area | frame | iframe | link-rel | meta-refresh | redirect
    anchor TEXT NOT NULL,
    count  INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (src, dst)
);
CREATE TABLE IF NOT EXISTS seeds (
    url_id  INTEGER NOT NULL REFERENCES urls(id),
    source  TEXT NOT NULL,   -- topic | result-page:FILE | url-list:FILE
    engine  TEXT,
    query   TEXT,
    rank    INTEGER,
    verdict INTEGER,         -- formula satisfied by the fetched seed page (G_F membership)
    PRIMARY KEY (url_id, source)
);
CREATE TABLE IF NOT EXISTS seed_hits (   -- provenance: every time a seed was found
    url_id       INTEGER NOT NULL REFERENCES urls(id),
    source       TEXT NOT NULL,  -- topic | url-list:FILE | result-page:FILE | search:BACKEND
    engine       TEXT,
    query        TEXT,           -- as sent (search API) or as read on the result page
    page         INTEGER,        -- result page number, 1 = first
    rank         INTEGER,        -- rank among the query's results, 1 = first
    retrieved_at TEXT,           -- when the result list was retrieved (ISO 8601), when known
    result_url   TEXT NOT NULL,  -- the URL as the source gave it (redirect wrapper removed)
    title        TEXT,
    snippet      TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS seed_hits_key
    ON seed_hits(url_id, source, COALESCE(query, ''), COALESCE(page, 0), COALESCE(rank, 0));
CREATE TABLE IF NOT EXISTS searches (   -- result pages received from a search API
    backend      TEXT NOT NULL,
    request      TEXT NOT NULL,  -- q and parameters (never the key)
    page         INTEGER NOT NULL,
    retrieved_at TEXT NOT NULL,
    requests     INTEGER NOT NULL, -- requests it took (retries included)
    results      INTEGER NOT NULL,
    more         INTEGER NOT NULL, -- the API announced another page
    PRIMARY KEY (backend, request, page)
);
";
