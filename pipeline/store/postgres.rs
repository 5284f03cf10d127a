//! The PostgreSQL frontier that several `glaneur worker` processes share.
//!
//! **In:** a PostgreSQL connection string (`postgres://…` or `host=… user=…`), a crawl id,
//! the worker's name. **Out:** the shared seen set and queue of a crawl, the leases on
//! servers, the servers' politeness clocks, the crawl's request count.
//!
//! **Invariants:**
//! - a URL is in `urls` at most once per crawl (the seen set: its primary key); its `state` is
//!   `q` (waiting), `t` (taken by the worker that holds its server's lease) or `d` (settled by
//!   a worker: its row is in that worker's `crawl.sqlite`);
//! - a server (politeness key) is leased to at most one worker at a time, across all crawls of
//!   the database (`hosts` has one row per server): only the lease holder sends it requests,
//!   so the topic's delay between two requests holds however many workers run; a lease not
//!   renewed for `lease` seconds expires, and the server returns to the pool with the URLs its
//!   holder had taken (`t` → `q`);
//! - a lease is claimed only when the server's `next_allowed` has come: the holder writes it
//!   when it renews and when it lets the server go, so the next holder keeps the delay;
//! - the database's clock is the only clock compared across machines (`now()`): workers send
//!   durations, never instants;
//! - the shares of the live workers sum to the servers with work (`Frontier::share`); a
//!   server's `pages` in `queues` counts every worker's requests to it in the crawl;
//! - the statements of one call are sent together (pipelined) and run in the order written.

use std::time::Duration;

use anyhow::Context;
use tokio_postgres::{Client, NoTls};

use super::retry::retried;

/// Version of the tables below: a database whose tables another version created is refused.
const FORMAT_VERSION: &str = "1";

/// The tables, in the schema `glaneur` of the database.
const SCHEMA: &str = "
CREATE SCHEMA IF NOT EXISTS glaneur;
CREATE TABLE IF NOT EXISTS glaneur.meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE IF NOT EXISTS glaneur.crawls (
    crawl      text PRIMARY KEY,
    topic      text NOT NULL,              -- the topic file every worker of the crawl follows
    max_pages  bigint NOT NULL,            -- crawl.max_pages: the budget of all workers together
    requests   bigint NOT NULL DEFAULT 0,  -- page requests made by all workers
    seeded     boolean NOT NULL DEFAULT false,
    created    timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS glaneur.hosts (   -- one row per server, shared by all crawls
    host         text PRIMARY KEY,              -- politeness key: scheme://host:port
    next_allowed timestamptz NOT NULL DEFAULT now(),
    owner        text,                          -- the worker holding the lease
    lease_until  timestamptz
);
CREATE TABLE IF NOT EXISTS glaneur.queues (  -- a crawl's servers, best waiting priority first
    crawl text NOT NULL,
    host  text NOT NULL,
    best  real NOT NULL,
    pages bigint NOT NULL DEFAULT 0,  -- page requests to it, all workers (max_pages_per_host)
    PRIMARY KEY (crawl, host)
);
CREATE INDEX IF NOT EXISTS queues_best ON glaneur.queues (crawl, best DESC);
CREATE TABLE IF NOT EXISTS glaneur.urls (
    crawl    text NOT NULL,
    url      text NOT NULL,     -- canonical URL (the seen-set key)
    host     text NOT NULL,
    depth    integer NOT NULL,
    priority real NOT NULL,
    hops     integer NOT NULL,  -- off-topic pages in a row before it (tunnelling)
    seed     text,              -- the seed's source when it is one
    via      text,              -- how it was found (crawl.sqlite's `via`: link, sitemap, feed…)
    state    \"char\" NOT NULL,   -- q waiting | t taken by the server's lease holder | d settled
    worker   text,              -- who took it
    -- The URL first: a prefix of this key is never a way to scan a crawl's rows, which the
    -- planner would otherwise take (and read a whole crawl) for a crawl it has no
    -- statistics on yet; the partial indexes below serve those scans.
    PRIMARY KEY (url, crawl)
);
CREATE INDEX IF NOT EXISTS urls_open ON glaneur.urls (crawl, host) WHERE state <> 'd';
CREATE INDEX IF NOT EXISTS urls_waiting ON glaneur.urls (crawl, host, priority DESC) WHERE state = 'q';
CREATE TABLE IF NOT EXISTS glaneur.workers (
    crawl    text NOT NULL,
    worker   text NOT NULL,
    folder   text NOT NULL,     -- its run folder (crawl.sqlite and WARC file)
    started  timestamptz NOT NULL DEFAULT now(),
    seen     timestamptz NOT NULL DEFAULT now(),
    finished timestamptz,
    capacity integer NOT NULL DEFAULT 1,        -- its crawl.concurrency: its weight in the share
    hungry   boolean NOT NULL DEFAULT false,    -- it holds fewer servers than its share
    PRIMARY KEY (crawl, worker)
);
-- Tables an earlier glaneur made (same format: these columns are optional to it).
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = 'glaneur' AND table_name = 'urls' AND column_name = 'via')
    THEN
        ALTER TABLE glaneur.urls ADD COLUMN via text;
        ALTER TABLE glaneur.workers ADD COLUMN capacity integer NOT NULL DEFAULT 1,
                                    ADD COLUMN hungry boolean NOT NULL DEFAULT false;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                   WHERE table_schema = 'glaneur' AND table_name = 'queues' AND column_name = 'pages')
    THEN
        ALTER TABLE glaneur.queues ADD COLUMN pages bigint NOT NULL DEFAULT 0;
    END IF;
END $$;
";

/// A statement's parameter.
type Param<'a> = dyn tokio_postgres::types::ToSql + Sync + 'a;

/// A URL handed to the shared frontier.
#[derive(Debug, Clone)]
pub struct Pushed {
    /// Canonical URL.
    pub url: String,
    /// Politeness key.
    pub host: String,
    /// Links from a seed.
    pub depth: u32,
    /// Link priority.
    pub priority: f64,
    /// Off-topic pages in a row before it.
    pub hops: u32,
    /// The seed's source, when it is a seed.
    pub seed: Option<String>,
    /// How it was found (`Via::name`); `None` from a worker that did not say.
    pub via: Option<String>,
}

/// A server leased to this worker, and how long its politeness delay still runs.
#[derive(Debug, Clone)]
pub struct Claimed {
    /// Politeness key.
    pub host: String,
    /// Seconds before the server may be asked (0 when it may be now).
    pub wait: f64,
    /// Page requests made to it in this crawl by every worker so far.
    pub pages: u64,
}

/// This worker's fair part of the crawl's servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// Servers of the crawl with URLs not settled, leased or not.
    pub servers: u64,
    /// The servers this worker may hold while another worker wants more: its part of the
    /// servers with work, in proportion to its capacity among the live workers' (the parts sum
    /// to the servers).
    pub mine: u64,
    /// Another live worker holds fewer servers than its share and can serve more.
    pub others_hungry: bool,
}

/// What is left of a crawl in the shared frontier.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Left {
    /// URLs waiting for a worker.
    pub waiting: u64,
    /// URLs taken by a worker and not settled yet.
    pub taken: u64,
}

/// One worker's connection to the shared frontier of one crawl.
pub struct Frontier {
    client: Client,
    crawl: String,
    worker: String,
    lease: Duration,
}

impl Frontier {
    /// How long a lease lasts without renewal.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// Connects, creates the tables when they are missing, and registers the worker.
    pub async fn connect(
        url: &str,
        crawl: &str,
        worker: &str,
        lease: Duration,
    ) -> anyhow::Result<Frontier> {
        check_userinfo(url)?;
        let client = open(url).await.with_context(|| {
            format!(
                "cannot connect to the PostgreSQL server of --store {}",
                redact(url)
            )
        })?;
        // Two workers starting at once both create the tables: one waits for the other's
        // to be committed (three round trips: a batch is one transaction, and the lock must
        // outlive it).
        let create = async {
            client.execute("SELECT pg_advisory_lock(7411)", &[]).await?;
            let created = client.batch_execute(SCHEMA).await;
            let version = match created {
                Ok(()) => client
                    .query_one(
                        "INSERT INTO glaneur.meta (key, value) VALUES ('format_version', $1)
                         ON CONFLICT (key) DO UPDATE SET value = glaneur.meta.value
                         RETURNING value",
                        &[&FORMAT_VERSION],
                    )
                    .await
                    .and_then(|row| row.try_get::<_, String>(0)),
                Err(error) => Err(error),
            };
            client
                .execute("SELECT pg_advisory_unlock(7411)", &[])
                .await?;
            version
        };
        let version = create
            .await
            .context("cannot create glaneur's tables in the PostgreSQL database")?;
        if version != FORMAT_VERSION {
            anyhow::bail!(
                "the PostgreSQL database of --store {} holds glaneur tables of format {version}; \
                 this glaneur reads format {FORMAT_VERSION}: use another database (or drop its \
                 schema glaneur)",
                redact(url)
            );
        }
        Ok(Frontier {
            client,
            crawl: crawl.to_string(),
            worker: worker.to_string(),
            lease,
        })
    }

    /// Creates the crawl (true) or joins it (false: it exists; its topic must be `topic`).
    pub async fn create_or_join(
        &self,
        topic: &str,
        max_pages: u64,
        folder: &str,
        capacity: usize,
    ) -> anyhow::Result<bool> {
        let max = i64::try_from(max_pages).unwrap_or(i64::MAX);
        let created = self
            .client
            .execute(
                "INSERT INTO glaneur.crawls (crawl, topic, max_pages) VALUES ($1, $2, $3)
                 ON CONFLICT (crawl) DO NOTHING",
                &[&self.crawl, &topic, &max],
            )
            .await?
            == 1;
        if !created {
            let row = self
                .client
                .query_one(
                    "SELECT topic FROM glaneur.crawls WHERE crawl = $1",
                    &[&self.crawl],
                )
                .await?;
            let theirs: String = row.try_get(0)?;
            if theirs != topic {
                anyhow::bail!(
                    "the crawl {:?} in this database follows another topic file: every worker \
                     of a crawl needs the same topic (or choose another --crawl)",
                    self.crawl
                );
            }
        }
        self.client
            .execute(
                // A worker that joins wants servers: the others keep no more than their share
                // from its first moment.
                "INSERT INTO glaneur.workers (crawl, worker, folder, capacity, hungry)
                 VALUES ($1, $2, $3, $4, true)
                 ON CONFLICT (crawl, worker) DO UPDATE
                    SET folder = $3, capacity = $4, seen = now(), finished = NULL, hungry = true",
                &[&self.crawl, &self.worker, &folder, &capacity_i32(capacity)],
            )
            .await?;
        Ok(created)
    }

    /// The seeds are in: other workers may start.
    pub async fn mark_seeded(&self) -> anyhow::Result<()> {
        self.client
            .execute(
                "UPDATE glaneur.crawls SET seeded = true WHERE crawl = $1",
                &[&self.crawl],
            )
            .await?;
        Ok(())
    }

    /// Whether the worker that created the crawl has put its seeds in.
    pub async fn seeded(&self) -> anyhow::Result<bool> {
        let row = self
            .client
            .query_one(
                "SELECT seeded FROM glaneur.crawls WHERE crawl = $1",
                &[&self.crawl],
            )
            .await?;
        Ok(row.try_get(0)?)
    }

    /// Adds URLs to the seen set and the queue; those already seen by any worker are left
    /// as they are. Returns how many were new.
    pub async fn push(&self, urls: &[Pushed]) -> anyhow::Result<u64> {
        self.insert(urls, "q").await
    }

    /// Adds URLs to the seen set as settled (seeds the user dropped at the seed review): a
    /// worker that finds one as a link leaves it, as a single crawl does.
    pub async fn push_settled(&self, urls: &[Pushed]) -> anyhow::Result<u64> {
        self.insert(urls, "d").await
    }

    /// New URLs in state `state` (`q` or `d`); returns how many were new.
    async fn insert(&self, urls: &[Pushed], state: &str) -> anyhow::Result<u64> {
        if urls.is_empty() {
            return Ok(0);
        }
        let url: Vec<&str> = urls.iter().map(|u| u.url.as_str()).collect();
        let host: Vec<&str> = urls.iter().map(|u| u.host.as_str()).collect();
        let depth: Vec<i32> = urls.iter().map(|u| clamp_i32(u.depth)).collect();
        let priority: Vec<f32> = urls.iter().map(|u| u.priority as f32).collect();
        let hops: Vec<i32> = urls.iter().map(|u| clamp_i32(u.hops)).collect();
        let seed: Vec<Option<&str>> = urls.iter().map(|u| u.seed.as_deref()).collect();
        let via: Vec<Option<&str>> = urls.iter().map(|u| u.via.as_deref()).collect();
        let mut hosts: Vec<&str> = host.clone();
        hosts.sort_unstable();
        hosts.dedup();
        // Servers first, in a fixed order: two workers adding the same servers never wait
        // for each other in a cycle. Both statements sent at once (pipelined), run in order.
        let servers: [&Param<'_>; 1] = [&hosts];
        let rows: [&Param<'_>; 9] = [
            &self.crawl,
            &url,
            &host,
            &depth,
            &priority,
            &hops,
            &seed,
            &via,
            &state,
        ];
        // PostgreSQL may still choose this call as a deadlock's victim (with another worker's
        // statements on the same servers' rows); adding the same URLs again is harmless
        // (`ON CONFLICT DO NOTHING`).
        let row = retried(|| self.insert_once(&servers, &rows)).await?;
        let new: i64 = row.try_get(0)?;
        Ok(u64::try_from(new).unwrap_or(0))
    }

    /// The two statements of [`Frontier::insert`], sent together.
    async fn insert_once(
        &self,
        servers: &[&Param<'_>],
        rows: &[&Param<'_>],
    ) -> Result<tokio_postgres::Row, tokio_postgres::Error> {
        let (_, row) = tokio::try_join!(
            self.client.execute(
                "INSERT INTO glaneur.hosts (host) SELECT unnest($1::text[]) ORDER BY 1
                 ON CONFLICT (host) DO NOTHING",
                servers,
            ),
            self.client.query_one(
                "WITH new AS (
                    INSERT INTO glaneur.urls (crawl, url, host, depth, priority, hops, seed, via, state)
                    SELECT $1, u, h, d, p, o, s, v, CAST($9::text AS \"char\")
                    FROM unnest($2::text[], $3::text[], $4::int4[], $5::float4[], $6::int4[], $7::text[],
                                $8::text[])
                         AS t(u, h, d, p, o, s, v)
                    ORDER BY u
                    ON CONFLICT (crawl, url) DO NOTHING
                    RETURNING host, priority),
                 best AS (
                    INSERT INTO glaneur.queues (crawl, host, best)
                    SELECT $1, host, max(priority) FROM new GROUP BY host ORDER BY host
                    ON CONFLICT (crawl, host) DO UPDATE
                        SET best = GREATEST(glaneur.queues.best, EXCLUDED.best)
                    RETURNING 1)
                 SELECT (SELECT count(*) FROM new), (SELECT count(*) FROM best)",
                rows,
            ),
        )?;
        Ok(row)
    }

    /// Leases up to `n` servers of this crawl that have URLs waiting and whose delay has
    /// run out, best waiting URL first. URLs a dead holder had taken are waiting again.
    pub async fn claim(&self, n: usize) -> anyhow::Result<Vec<Claimed>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let limit = i64::try_from(n).unwrap_or(i64::MAX);
        let lease = self.lease.as_secs_f64();
        let params: [&Param<'_>; 4] = [&self.crawl, &self.worker, &limit, &lease];
        let rows = retried(|| {
            self.client.query(
                "WITH ready AS (
                    SELECT h.host FROM glaneur.queues q JOIN glaneur.hosts h ON h.host = q.host
                    WHERE q.crawl = $1
                      AND (h.owner IS NULL OR h.lease_until < now())
                      AND h.next_allowed <= now()
                      AND EXISTS (SELECT 1 FROM glaneur.urls u
                                  WHERE u.crawl = $1 AND u.host = q.host AND u.state <> 'd')
                    ORDER BY q.best DESC, q.host
                    LIMIT $3
                    FOR UPDATE OF h SKIP LOCKED)
                 UPDATE glaneur.hosts h
                    SET owner = $2, lease_until = now() + make_interval(secs => $4)
                 FROM ready WHERE h.host = ready.host
                 RETURNING h.host, greatest(0, extract(epoch FROM h.next_allowed - now()))::float8,
                           (SELECT q.pages FROM glaneur.queues q
                            WHERE q.crawl = $1 AND q.host = h.host)",
                &params,
            )
        })
        .await
        .context("cannot lease servers in the shared frontier")?;
        let claimed = rows
            .iter()
            .map(|r| {
                Ok(Claimed {
                    host: r.try_get(0)?,
                    wait: r.try_get(1)?,
                    pages: u64::try_from(r.try_get::<_, Option<i64>>(2)?.unwrap_or(0)).unwrap_or(0),
                })
            })
            .collect::<Result<Vec<Claimed>, tokio_postgres::Error>>()?;
        if !claimed.is_empty() {
            // Whatever a worker had taken on these servers and not settled went with its
            // lease: it waits again.
            let hosts: Vec<&str> = claimed.iter().map(|c| c.host.as_str()).collect();
            let params: [&Param<'_>; 2] = [&self.crawl, &hosts];
            retried(|| {
                self.client.execute(
                    "UPDATE glaneur.urls SET state = 'q', worker = NULL
                     WHERE crawl = $1 AND host = ANY($2) AND state = 't'",
                    &params,
                )
            })
            .await?;
        }
        Ok(claimed)
    }

    /// Takes the waiting URLs of servers this worker holds (at most `limit` per server and
    /// call), best first. The leases were checked by [`Frontier::renew`] just before.
    pub async fn take(&self, hosts: &[&str], limit: usize) -> anyhow::Result<Vec<Pushed>> {
        if hosts.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let params: [&Param<'_>; 4] = [&self.crawl, &hosts, &self.worker, &limit];
        let rows = retried(|| {
            self.client.query(
                "WITH pick AS (
                    SELECT p.url FROM unnest($2::text[]) AS held(host),
                    LATERAL (SELECT u.url FROM glaneur.urls u
                             WHERE u.crawl = $1 AND u.host = held.host AND u.state = 'q'
                             ORDER BY u.priority DESC LIMIT $4
                             FOR UPDATE SKIP LOCKED) AS p)
                 UPDATE glaneur.urls u SET state = 't', worker = $3
                 FROM pick WHERE u.crawl = $1 AND u.url = pick.url
                 RETURNING u.url, u.host, u.depth, u.priority, u.hops, u.seed, u.via",
                &params,
            )
        })
        .await
        .context("cannot take URLs from the shared frontier")?;
        Ok(rows
            .iter()
            .map(|r| {
                Ok(Pushed {
                    url: r.try_get(0)?,
                    host: r.try_get(1)?,
                    depth: u32::try_from(r.try_get::<_, i32>(2)?).unwrap_or(0),
                    priority: f64::from(r.try_get::<_, f32>(3)?),
                    hops: u32::try_from(r.try_get::<_, i32>(4)?).unwrap_or(0),
                    seed: r.try_get(5)?,
                    via: r.try_get(6)?,
                })
            })
            .collect::<Result<_, tokio_postgres::Error>>()?)
    }

    /// Settled URLs: their rows are committed in this worker's `crawl.sqlite`.
    pub async fn done(&self, urls: &[&str]) -> anyhow::Result<()> {
        if urls.is_empty() {
            return Ok(());
        }
        let params: [&Param<'_>; 3] = [&self.crawl, &urls, &self.worker];
        retried(|| {
            self.client.execute(
                "UPDATE glaneur.urls SET state = 'd'
                 WHERE crawl = $1 AND url = ANY($2) AND worker = $3",
                &params,
            )
        })
        .await?;
        Ok(())
    }

    /// Taken URLs this worker will not settle (it stops): they wait again.
    pub async fn give_back(&self, urls: &[&str]) -> anyhow::Result<()> {
        if urls.is_empty() {
            return Ok(());
        }
        let params: [&Param<'_>; 3] = [&self.crawl, &urls, &self.worker];
        retried(|| {
            self.client.execute(
                "UPDATE glaneur.urls SET state = 'q', worker = NULL
                 WHERE crawl = $1 AND url = ANY($2) AND worker = $3 AND state = 't'",
                &params,
            )
        })
        .await?;
        Ok(())
    }

    /// Renews the leases of the servers held, each with the seconds before its next request
    /// may start (written as its `next_allowed`, so that a successor keeps the delay); and
    /// counts the page requests made since the last call, in all and per server (`pages`:
    /// `crawl.max_pages_per_host` counts every worker's requests). Returns the servers whose lease was
    /// lost (expired and claimed by another worker) and the crawl's request count.
    pub async fn renew(
        &self,
        held: &[(&str, f64)],
        pages: &[(&str, i64)],
        new_requests: u64,
        hungry: bool,
    ) -> anyhow::Result<(Vec<String>, u64)> {
        let hosts: Vec<&str> = held.iter().map(|(h, _)| *h).collect();
        let waits: Vec<f64> = held.iter().map(|(_, w)| w.max(0.0)).collect();
        let lease = self.lease.as_secs_f64();
        let n = i64::try_from(new_requests).unwrap_or(i64::MAX);
        // Three statements sent at once (pipelined: one round trip), run in this order.
        let leases: [&Param<'_>; 4] = [&hosts, &waits, &lease, &self.worker];
        let count: [&Param<'_>; 2] = [&self.crawl, &n];
        let me: [&Param<'_>; 3] = [&self.crawl, &self.worker, &hungry];
        let servers: Vec<&str> = pages.iter().map(|(h, _)| *h).collect();
        let counts: Vec<i64> = pages.iter().map(|(_, n)| *n).collect();
        let per_server: [&Param<'_>; 3] = [&self.crawl, &servers, &counts];
        let (kept, row, _, _) = tokio::try_join!(
            retried(|| self.client.query(
                "UPDATE glaneur.hosts h
                    SET lease_until = now() + make_interval(secs => $3),
                        next_allowed = greatest(h.next_allowed, now() + make_interval(secs => t.w))
                 FROM unnest($1::text[], $2::float8[]) AS t(host, w)
                 WHERE h.host = t.host AND h.owner = $4
                 RETURNING h.host",
                &leases,
            )),
            retried(|| self.client.query_one(
                "UPDATE glaneur.crawls SET requests = requests + $2 WHERE crawl = $1
                 RETURNING requests",
                &count,
            )),
            retried(|| self.client.execute(
                "UPDATE glaneur.workers SET seen = now(), hungry = $3
                 WHERE crawl = $1 AND worker = $2",
                &me,
            )),
            // Each server's page requests since the last renewal, for whoever holds it next.
            retried(|| self.client.execute(
                "UPDATE glaneur.queues q SET pages = q.pages + t.n
                 FROM unnest($2::text[], $3::int8[]) AS t(host, n)
                 WHERE q.crawl = $1 AND q.host = t.host",
                &per_server,
            )),
        )?;
        let kept = kept
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<std::collections::HashSet<String>, _>>()?;
        let lost = hosts
            .iter()
            .filter(|h| !kept.contains(**h))
            .map(|h| h.to_string())
            .collect();
        Ok((lost, u64::try_from(row.try_get::<_, i64>(0)?).unwrap_or(0)))
    }

    /// Lets servers go, each with the seconds before its next request may start; their
    /// best waiting priority is brought up to date for the next claim.
    pub async fn release(&self, held: &[(&str, f64)]) -> anyhow::Result<()> {
        if held.is_empty() {
            return Ok(());
        }
        let hosts: Vec<&str> = held.iter().map(|(h, _)| *h).collect();
        let waits: Vec<f64> = held.iter().map(|(_, w)| w.max(0.0)).collect();
        // Pipelined: one round trip, run in this order.
        let leases: [&Param<'_>; 3] = [&hosts, &waits, &self.worker];
        let best: [&Param<'_>; 2] = [&self.crawl, &hosts];
        tokio::try_join!(
            retried(|| self.client.execute(
                "UPDATE glaneur.hosts h
                    SET owner = NULL, lease_until = NULL,
                        next_allowed = greatest(h.next_allowed, now() + make_interval(secs => t.w))
                 FROM unnest($1::text[], $2::float8[]) AS t(host, w)
                 WHERE h.host = t.host AND h.owner = $3",
                &leases,
            )),
            retried(|| self.client.execute(
                "UPDATE glaneur.queues q SET best = coalesce(
                     (SELECT max(u.priority) FROM glaneur.urls u
                      WHERE u.crawl = q.crawl AND u.host = q.host AND u.state = 'q'), -1)
                 WHERE q.crawl = $1 AND q.host = ANY($2)",
                &best,
            )),
        )?;
        Ok(())
    }

    /// This worker's share of the servers with work: live workers are those not finished
    /// whose last exchange is younger than a lease (a dead worker's servers are shared once
    /// its leases run out).
    pub async fn share(&self) -> anyhow::Result<Share> {
        let lease = self.lease.as_secs_f64();
        let row = self
            .client
            .query_one(
                // The servers with work, each found by its own index probe (LIMIT 1): not a
                // scan of every open URL per server, which the planner may choose for a crawl
                // it has no statistics on yet.
                "WITH live AS (
                    SELECT worker, greatest(capacity, 1) AS capacity, hungry FROM glaneur.workers
                    WHERE crawl = $1 AND finished IS NULL
                      AND (worker = $2 OR seen > now() - make_interval(secs => $3)))
                 SELECT (SELECT count(*) FROM glaneur.queues q,
                         LATERAL (SELECT 1 FROM glaneur.urls u
                                  WHERE u.crawl = $1 AND u.host = q.host AND u.state <> 'd'
                                  LIMIT 1) AS open
                         WHERE q.crawl = $1),
                        (SELECT coalesce(sum(capacity), 0)::int8 FROM live WHERE worker < $2),
                        (SELECT coalesce(max(capacity), 1)::int8 FROM live WHERE worker = $2),
                        (SELECT coalesce(sum(capacity), 0)::int8 FROM live),
                        (SELECT coalesce(bool_or(hungry), false) FROM live WHERE worker <> $2)",
                &[&self.crawl, &self.worker, &lease],
            )
            .await
            .context("cannot read the workers' shares in the shared frontier")?;
        let count = |i: usize| {
            row.try_get::<_, i64>(i)
                .map(|n| u64::try_from(n).unwrap_or(0))
        };
        let servers = count(0)?;
        Ok(Share {
            servers,
            mine: fair_share(servers, count(1)?, count(2)?, count(3)?),
            others_hungry: row.try_get(4)?,
        })
    }

    /// What is left of the crawl, all workers together.
    pub async fn left(&self) -> anyhow::Result<Left> {
        let row = self
            .client
            .query_one(
                "SELECT count(*) FILTER (WHERE state = 'q'), count(*) FILTER (WHERE state = 't')
                 FROM glaneur.urls WHERE crawl = $1 AND state <> 'd'",
                &[&self.crawl],
            )
            .await?;
        let count = |i: usize| {
            row.try_get::<_, i64>(i)
                .map(|n| u64::try_from(n).unwrap_or(0))
        };
        Ok(Left {
            waiting: count(0)?,
            taken: count(1)?,
        })
    }

    /// The worker leaves the crawl.
    pub async fn finish(&self) -> anyhow::Result<()> {
        self.client
            .execute(
                "UPDATE glaneur.workers SET finished = now(), seen = now()
                 WHERE crawl = $1 AND worker = $2",
                &[&self.crawl, &self.worker],
            )
            .await?;
        Ok(())
    }
}

/// A connection, with the TLS its `sslmode` asks for; the connection's task spawned.
async fn open(url: &str) -> anyhow::Result<Client> {
    let (rest, tls) = super::pgtls::split(url)?;
    let mut config: tokio_postgres::Config = rest.parse()?;
    config.ssl_mode(tls.ssl_mode());
    let only_sockets = config
        .get_hosts()
        .iter()
        .all(|h| !matches!(h, tokio_postgres::config::Host::Tcp(_)));
    let rustls = if only_sockets {
        // A Unix socket is never encrypted: PostgreSQL offers no TLS there.
        None
    } else {
        tls.client_config()?
    };
    let client = match rustls {
        None => {
            let (client, connection) = config.connect(NoTls).await?;
            tokio::spawn(watch(connection));
            client
        }
        Some(rustls) => {
            let make = tokio_postgres_rustls::MakeRustlsConnect::new(rustls);
            let (client, connection) = config.connect(make).await?;
            tokio::spawn(watch(connection));
            client
        }
    };
    Ok(client)
}

/// Drives a connection until it closes.
async fn watch<F: std::future::Future<Output = Result<(), tokio_postgres::Error>>>(connection: F) {
    if let Err(error) = connection.await {
        tracing::error!("the PostgreSQL connection closed: {error}");
    }
}

/// This worker's part of `servers`: the live workers in name order each take the servers
/// their capacities cover (`before` is the capacity of the workers named before this one,
/// `total` of them all), so that the parts sum to `servers` and each is within one server of
/// `servers × mine ÷ total`.
fn fair_share(servers: u64, before: u64, mine: u64, total: u64) -> u64 {
    let total = u128::from(total.max(before.saturating_add(mine)).max(1));
    let upto = |capacity: u64| (u128::from(servers) * u128::from(capacity)).div_ceil(total);
    let part = upto(before.saturating_add(mine)) - upto(before);
    u64::try_from(part).unwrap_or(u64::MAX)
}

fn capacity_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn clamp_i32(n: u32) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Refuses a URL-form connection string whose user name or password holds a character a URL
/// cannot hold as it is (`@`, `/`, `?`, `#`, a space): the connection library would read
/// another host from it (`postgres://u:p@ss@evil.example/…` sends `p` to `ss@evil…`'s
/// server), so nothing is sent anywhere.
fn check_userinfo(url: &str) -> anyhow::Result<()> {
    let lower = url.to_ascii_lowercase();
    let Some(rest) = ["postgres://", "postgresql://"]
        .iter()
        .find_map(|scheme| lower.starts_with(scheme).then(|| &url[scheme.len()..]))
    else {
        return Ok(());
    };
    // The user information runs to the last `@` before the query (or in all of it).
    let before_query = rest.find('?').map_or(rest, |q| &rest[..q]);
    let at = before_query.rfind('@').or_else(|| rest.rfind('@'));
    let Some(at) = at else {
        return Ok(());
    };
    if rest[..at].contains(['@', '/', '?', '#']) || rest[..at].contains(char::is_whitespace) {
        anyhow::bail!(
            "--store: the user name or password holds a character a URL cannot hold as it is \
             (`@`, `/`, `?`, `#` or a space), and the connection would go to another server: \
             write it percent-encoded (`@` is %40, `/` %2F, `?` %3F, `#` %23, a space %20), or \
             use the key=value form (host=… user=… password='…' dbname=…)"
        );
    }
    Ok(())
}

/// A connection string without its password (for messages), in any of its spellings.
pub fn redact(url: &str) -> String {
    crate::ground::secrets::redact(url)
}

#[cfg(test)]
#[path = "postgres_tests.rs"]
mod tests;
