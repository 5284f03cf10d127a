#!/usr/bin/env python3
"""Drives `glaneur serve` in a real browser (headless Chromium through Debian's chromedriver,
with Selenium from tests/requirements.txt): the end-to-end test `tests/e2e/serve.rs` starts the
server and the local test web, then runs

    check_serve.py BASE_URL TOPIC RUN_DIR STOP_TOPIC STOP_RUN_DIR SHOTS_DIR NEW_TOPIC UPLOAD GLANEUR

and reads what it prints. Checks:
- the new-topic form: the live check names a bad formula's column, saving refuses it with the
  column, a corrected topic with an uploaded result page (UPLOAD) is saved as NEW_TOPIC (the
  Rust test then runs `glaneur check` on it);
- the topics page lists TOPIC; its Start button starts the run and opens the monitor;
- the monitor's first event arrives within 1 s of the page opening (the time is printed);
- the monitor's request count changes while the crawl runs, and at the end equals
  crawl.sqlite's, as do the table of reasons and the harvest rate of report.json;
- the decision log filtered on `robots` lists a URL whose page says robots.txt refused it,
  with the chain of pages from the seed;
- STOP_TOPIC is started, stopped from the monitor (stage `stopped`, URLs left queued), and
  resumed to the end;
- the query pages of TOPIC's corpus, each against the command line (GLANEUR, the binary the
  server runs) on the same run: the concordance's hit count equals `glaneur kwic --count`, its
  lines, sorted, on page 2, sampled and filtered are `glaneur kwic`'s, its CSV download is
  `glaneur kwic --format csv`'s, malformed CQL shows its position, a query without hits and a
  page without query say what to do, a never-run topic's pages say that the run makes the
  index; a hit's wider context; the word list, a breakdown of a query by host, collocations
  and keywords against STOP_TOPIC's run are the rows of `glaneur freq`, `colloc`, `keywords`;
- the word sketch: TOPIC's run is untagged, and its page says how to tag it; a tagged topic
  `etiquete` is made here (a run folder whose `vrt/corpus.vrt` is written by hand with
  word/pos/lemma columns and indexed by `glaneur index`), whose sketch page's rows are
  `glaneur sketch --format tsv`'s, its TSV download that output, a collocate's link a
  concordance of f_xy hits; an unknown grammar language, a lemma without hits and a page
  without lemma say what to do;
- subcorpora: one made from the subcorpora page's form (one host of TOPIC's run) is listed with
  that host's number of documents, the concordance and word list in it are `glaneur kwic
  --count --subcorpus` and `glaneur freq --subcorpus`, a bad name is refused with a readable
  message, a POST from another origin is refused (403) and changes nothing, the delete button
  removes it;
- a screenshot of each page lands in SHOTS_DIR.
Nothing here touches the internet: Selenium is told to stay offline and the browser is the
system's.
"""

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.parse

import chromium  # tests/chromium.py: the system's Chromium, offline
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def browser():
    return chromium.browser("check_serve.py")


def wait_for(what, test, timeout, step=0.1):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = test()
        if value:
            return value
        time.sleep(step)
    sys.exit(f"check_serve.py: timed out after {timeout} s waiting for {what}")


def body_data(driver, key):
    return driver.execute_script(f"return document.body.dataset.{key} || null")


def number(text):
    return int(text.replace(",", "").strip())


def db_counts(run_dir):
    db = sqlite3.connect(f"file:{os.path.join(run_dir, 'crawl.sqlite')}?mode=ro", uri=True)
    requests = db.execute(
        "SELECT COUNT(*) FROM urls WHERE fetched_at IS NOT NULL AND state IN ('fetched', 'failed')"
    ).fetchone()[0]
    reasons = {
        (s, r or "–"): n
        for s, r, n in db.execute(
            "SELECT state, COALESCE(reason, ''), COUNT(*) FROM urls GROUP BY 1, 2"
        )
    }
    db.close()
    return requests, reasons


def table_rows(driver, table_id):
    # Read in one script call: the monitor redraws its tables every second.
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).slice(1)"
        ".map(r => Array.from(r.querySelectorAll('td')).map(td => td.textContent))",
        f"#{table_id} tr",
    )


def text_of(driver, element_id):
    return driver.execute_script(
        "const e = document.getElementById(arguments[0]); return e ? e.textContent : null",
        element_id,
    )


def start_from_topics(driver, base, topic):
    driver.get(base + "/")
    row = driver.find_element(By.CSS_SELECTOR, f"tr[data-topic='{topic}']")
    row.find_element(By.TAG_NAME, "button").click()
    wait_for("the monitor", lambda: f"/runs/{topic}" in driver.current_url, 10)


def main():
    sys.stdout.reconfigure(line_buffering=True)
    base, topic, run_dir, stop_topic, stop_run, shots, new_topic, upload, glaneur = sys.argv[1:10]
    os.makedirs(shots, exist_ok=True)
    driver = browser()
    try:
        driver.get(base + "/")
        assert topic in driver.find_element(By.ID, "topics").text
        driver.save_screenshot(os.path.join(shots, "serve-topics.png"))

        # A new topic from the form: a bad formula is refused with its column, live and on save.
        driver.find_element(By.ID, "new-topic").click()
        wait_for("the form", lambda: driver.find_elements(By.ID, "topic-form"), 10)
        field = lambda name: driver.find_element(By.NAME, name)
        def fill(name, text):
            field(name).clear()
            field(name).send_keys(text)
        fill("name", new_topic)
        fill("description", "Graphes, depuis le navigateur")
        fill("seed_urls", "http://a.test/")
        fill("seed_terms", "graphe, sommet")
        fill("allow", ".test")
        fill("max_pages", "20")
        fill("contact", "mailto:test@example.org")
        fill("formula", '("graphe*" OU "sommet*" ET')
        wait_for("the live check's error", lambda: "column" in (text_of(driver, "formula-check") or ""), 10)
        live_error = text_of(driver, "formula-check")
        driver.save_screenshot(os.path.join(shots, "serve-topic-form-error.png"))
        driver.find_element(By.ID, "save").click()
        wait_for("the refusal", lambda: driver.find_elements(By.ID, "problem"), 10)
        problem = text_of(driver, "problem")
        assert "column" in problem and "formula" in problem, problem
        assert not os.path.exists(os.path.join(os.path.dirname(run_dir), "..", new_topic, "topic.toml"))
        print(f"bad formula: live check `{live_error.splitlines()[-1].strip()}`; save refused: {problem.splitlines()[0]}")
        fill("formula", '("graphe*" OU "sommet*") ET NON "graffiti"')
        driver.find_element(By.ID, "f-sample").send_keys("<html><title>Graphes</title><body><p>Un graphe a des sommets et des arêtes.</p></body></html>")
        wait_for("the sample's verdict", lambda: "accepted" in (text_of(driver, "formula-check") or ""), 10)
        print(f"live check on the sample: {text_of(driver, 'formula-check')}")
        field("result_page").send_keys(upload)
        driver.find_element(By.ID, "save").click()
        wait_for("the saved topic", lambda: driver.find_elements(By.ID, "saved"), 10)
        assert new_topic in text_of(driver, "saved")
        driver.save_screenshot(os.path.join(shots, "serve-topic-saved.png"))
        print(f"topic {new_topic} saved from the form")

        # A topic never run: its row links only to pages that exist, and its corpus page says
        # what to do instead of naming a missing file.
        driver.get(base + "/")
        row = driver.find_element(By.CSS_SELECTOR, f'tr[data-topic="{new_topic}"]')
        links = [a.text for a in row.find_elements(By.TAG_NAME, "a")]
        assert "report" not in links and "corpus" not in links and "decisions" not in links, links
        driver.get(f"{base}/runs/{new_topic}/corpus")
        empty = driver.find_element(By.CLASS_NAME, "empty").text
        assert "No corpus yet" in empty and "os error" not in driver.page_source, empty
        assert driver.find_element(By.LINK_TEXT, "its monitor").get_attribute("href").endswith(f"/runs/{new_topic}")
        print(f"never run: links {links}; corpus page: {empty[:40]}…")

        # Start from the topics page; the monitor opens on the first event.
        start_from_topics(driver, base, topic)
        opened = time.monotonic()
        wait_for("the first event", lambda: body_data(driver, "events"), 5, step=0.02)
        first = time.monotonic() - opened
        print(f"first event {first * 1000:.0f} ms after the monitor opened")
        assert first < 1.0, f"first event after {first:.2f} s"

        # The figures change while the crawl runs.
        seen = []
        def crawl_over():
            if body_data(driver, "stage") == "crawl":
                text = text_of(driver, "requests")
                if text not in ("–", "") and (not seen or seen[-1] != text):
                    seen.append(text)
            return body_data(driver, "stage") in ("finished", "failed", "stopped", "ended")
        wait_for("the run's end", crawl_over, 120, step=0.2)
        if len(seen) >= 2:
            driver.save_screenshot(os.path.join(shots, "serve-monitor.png"))
        print(f"request counts seen while crawling: {seen}")
        assert len(seen) >= 2, f"the monitor's count did not change while crawling: {seen}"
        assert [number(s) for s in seen] == sorted(number(s) for s in seen), seen
        assert body_data(driver, "stage") == "finished", body_data(driver, "stage")

        # At the end the monitor agrees with crawl.sqlite and report.json.
        time.sleep(1.5)  # one more event after the end
        requests, reasons = db_counts(run_dir)
        shown = number(text_of(driver, "requests"))
        assert shown == requests, f"monitor {shown} requests, crawl.sqlite {requests}"
        table = {(r[0], r[1]): number(r[2]) for r in table_rows(driver, "reasons")}
        assert table == reasons, f"monitor {table}\ncrawl.sqlite {reasons}"
        classes = {r[0]: number(r[1]) for r in table_rows(driver, "statuses")}
        assert sum(classes.values()) == requests and "2xx" in classes, classes
        report = json.load(open(os.path.join(run_dir, "report.json"), encoding="utf-8"))
        want = f"{report['harvest_rate'] * 100:.1f} %"
        assert text_of(driver, "harvest") == want, (text_of(driver, "harvest"), want)
        # After the run: no live rate, a pointer to the report, the charts drawn while it ran.
        assert text_of(driver, "rate-now") == "–", text_of(driver, "rate-now")
        after = driver.find_element(By.ID, "after")
        assert after.is_displayed(), "no pointer to the report after the run"
        assert after.find_element(By.LINK_TEXT, "its report").get_attribute("href").endswith(f"/runs/{topic}/report")
        assert driver.find_element(By.ID, "charts").is_displayed()
        driver.save_screenshot(os.path.join(shots, "serve-monitor-end.png"))
        print(f"monitor at the end: {shown} requests, {len(table)} reasons, harvest {want}")

        # The corpus: documents and their text, search, concordance, site maps, host graph.
        driver.get(f"{base}/runs/{topic}/corpus?q=graphe")
        docs = table_rows(driver, "docs")
        db = sqlite3.connect(f"file:{os.path.join(run_dir, 'crawl.sqlite')}?mode=ro", uri=True)
        kept = db.execute("SELECT COUNT(*) FROM urls WHERE reason = 'kept'").fetchone()[0]
        db.close()
        assert len(docs) == min(kept, 50), (len(docs), kept)
        results = driver.find_elements(By.CSS_SELECTOR, "#results li")
        assert results and driver.find_elements(By.CSS_SELECTOR, "#results mark"), "no search result"
        nav = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#workbench a")]
        # (no word sketch: the test web's corpus is not tagged)
        assert nav == ["concordance", "word list and breakdowns", "collocations", "keywords", "subcorpora"], nav
        assert driver.find_elements(By.CSS_SELECTOR, "#host-graph circle"), "no host drawn"
        maps = driver.find_elements(By.CSS_SELECTOR, "#sitemaps a")
        assert maps, "no site map listed"
        driver.save_screenshot(os.path.join(shots, "serve-corpus.png"))
        print(f"corpus: {len(docs)} documents listed ({kept} kept), {len(results)} search results, "
              f"{len(maps)} site maps, links to {nav}")
        maps[0].click()
        wait_for("a site map", lambda: "in the corpus" in driver.page_source, 10)
        driver.get(f"{base}/runs/{topic}/corpus")
        driver.find_element(By.CSS_SELECTOR, "#docs td a").click()
        wait_for("a document", lambda: driver.find_elements(By.ID, "doc-text"), 10)
        assert len(text_of(driver, "doc-text").strip()) > 20, text_of(driver, "doc-text")
        driver.save_screenshot(os.path.join(shots, "serve-document.png"))

        # The decision log explains a URL robots.txt refused.
        driver.get(f"{base}/runs/{topic}/decisions?reason=robots")
        links = driver.find_elements(By.CSS_SELECTOR, "#log td.url a")
        assert links, "no robots-refused URL in the decision log"
        driver.save_screenshot(os.path.join(shots, "serve-decisions.png"))
        refused = links[0].text
        links[0].click()
        wait_for("the URL page", lambda: driver.find_elements(By.ID, "reason"), 10)
        assert text_of(driver, "reason") == "robots"
        why = text_of(driver, "why")
        assert "robots.txt" in why, why
        chain = table_rows(driver, "chain")
        assert len(chain) >= 2 and chain[-1][1] == refused, chain
        assert chain[0][2] == "seed", chain
        driver.save_screenshot(os.path.join(shots, "serve-url.png"))
        print(f"decision log: {refused} — {why}; chain of {len(chain)} pages")

        # Stop a run from the monitor, then resume it to the end.
        start_from_topics(driver, base, stop_topic)
        wait_for("a few requests", lambda: body_data(driver, "stage") == "crawl"
                 and text_of(driver, "requests") not in ("–", "0", "1"), 60)
        driver.find_element(By.ID, "stop").click()
        wait_for("the stopped stage", lambda: body_data(driver, "stage") == "stopped", 60)
        db = sqlite3.connect(f"file:{os.path.join(stop_run, 'crawl.sqlite')}?mode=ro", uri=True)
        left = db.execute("SELECT COUNT(*) FROM urls WHERE state = 'queued'").fetchone()[0]
        db.close()
        assert left > 0, "the stopped crawl had nothing left to do"
        driver.save_screenshot(os.path.join(shots, "serve-stopped.png"))
        driver.find_element(By.ID, "start").click()
        wait_for("the resumed run's end", lambda: body_data(driver, "stage") == "finished", 120)
        print(f"stopped with {left} URLs queued, resumed to the end")

        check_workbench(driver, base, topic, run_dir, stop_topic, stop_run, new_topic, glaneur, shots)
        check_sketch(driver, base, topic, run_dir, glaneur, shots)
        check_subcorpora(driver, base, topic, run_dir, glaneur, shots)
    finally:
        driver.quit()


def cli(glaneur, *args):
    """What `glaneur ARGS…` prints on stdout (it must succeed)."""
    done = subprocess.run([glaneur, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def tsv_rows(text):
    lines = [l for l in text.splitlines() if l]
    return [l.split("\t") for l in lines[1:]]


def fetch_text(driver, href):
    """The body of `href`, fetched by the page's own browser (same origin, its cookies)."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(arguments[0]).then(r => r.text().then(t => done([r.status, r.headers.get('content-disposition'), t])))"
        ".catch(e => done([0, null, String(e)]));",
        href,
    )


def kwic_starts(driver):
    return [int(r.get_attribute("data-start")) for r in driver.find_elements(By.CSS_SELECTOR, "#kwic tr[data-start]")]


def check_workbench(driver, base, topic, run_dir, ref_topic, ref_run, new_topic, glaneur, shots):
    """The query pages, each against the command line on the same run."""
    q = lambda text: urllib.parse.quote(text, safe="")
    # A query with many hits: every word starting with a letter.
    cql = '[lc="[a-zà-ÿ].*"]'
    kwic = f"{base}/runs/{topic}/kwic?cql={q(cql)}"
    count = int(cli(glaneur, "kwic", run_dir, cql, "--count").strip())
    assert count > 100, f"the test corpus has {count} hits of {cql}: too few to page"

    # From the corpus page's form to the concordance; its total is `kwic --count`'s.
    driver.get(f"{base}/runs/{topic}/corpus")
    field = driver.find_element(By.CSS_SELECTOR, "#kwic input[name=cql]")
    field.send_keys(cql)
    field.submit()
    wait_for("the concordance", lambda: driver.find_elements(By.ID, "kwic-total"), 20)
    total = number(text_of(driver, "kwic-total"))
    assert total == count, f"page {total} hits, glaneur kwic --count {count}"
    rows = table_rows(driver, "kwic")
    assert len(rows) == 50, len(rows)
    first = cli(glaneur, "kwic", run_dir, cql, "--format", "tsv", "--limit", "50")
    assert kwic_starts(driver) == [int(r[2]) for r in tsv_rows(first)]
    assert [r[0] for r in rows] == [r[0] for r in tsv_rows(first)], "document ids differ"
    assert [r[2] for r in rows] == [r[5] for r in tsv_rows(first)], "hits differ"
    doc_link = driver.find_element(By.CSS_SELECTOR, "#kwic td.doc a")
    assert doc_link.get_attribute("href").endswith(f"/runs/{topic}/doc/{rows[0][0]}"), doc_link.get_attribute("href")
    driver.save_screenshot(os.path.join(shots, "serve-kwic.png"))

    # Sorted by the word after the hit (R1): the command line's order, page 1 and, by its link, page 2.
    driver.get(f"{kwic}&sort=R1")
    sorted_cli = tsv_rows(cli(glaneur, "kwic", run_dir, cql, "--sort", "R1", "--format", "tsv", "--limit", "100"))
    assert kwic_starts(driver) == [int(r[2]) for r in sorted_cli[:50]], "sort R1 differs from glaneur kwic --sort R1"
    r1 = [(r[3].split() or [""])[0].lower() for r in table_rows(driver, "kwic")]
    assert r1 == sorted(r1), r1
    driver.find_element(By.CSS_SELECTOR, "a.kwic-next").click()
    wait_for("page 2", lambda: "page=2" in driver.current_url, 10)
    assert kwic_starts(driver) == [int(r[2]) for r in sorted_cli[50:100]], "page 2 differs from --offset 50"
    assert "lines 51–100" in text_of(driver, "kwic-summary"), text_of(driver, "kwic-summary")
    print(f"concordance: {total} hits (= kwic --count), sorted by R1 {r1[:3]}…, page 2 = --offset 50")

    # The CSV download (same parameters) is `glaneur kwic --format csv`'s, every line of it.
    href = driver.find_element(By.ID, "kwic-csv").get_attribute("href")
    status, disposition, body = fetch_text(driver, href)
    assert status == 200 and "attachment" in (disposition or ""), (status, disposition)
    want = cli(glaneur, "kwic", run_dir, cql, "--sort", "R1", "--format", "csv", "--limit", "100000")
    got_rows = list(csv.reader(io.StringIO(body.lstrip("\ufeff"))))
    want_rows = list(csv.reader(io.StringIO(want.lstrip("\ufeff"))))
    assert got_rows == want_rows and len(got_rows) == min(count, 100000) + 1, (len(got_rows), len(want_rows))
    status, _, body = fetch_text(driver, driver.find_element(By.ID, "kwic-tsv").get_attribute("href"))
    assert status == 200 and len(tsv_rows(body)) == min(count, 100000), len(tsv_rows(body))
    print(f"downloads: CSV of {len(got_rows) - 1} lines = glaneur kwic --format csv, TSV of {count}")

    # A random sample, filters, the sentence view and the attributes, the wider context.
    driver.get(f"{kwic}&sample=5&seed=7")
    sample = tsv_rows(cli(glaneur, "kwic", run_dir, cql, "--sample", "5", "--seed", "7", "--format", "tsv"))
    assert kwic_starts(driver) == [int(r[2]) for r in sample], "sample differs"
    near_cql, not_near_cql = '[lc="de"]', '[lc="la"]'
    near = cli(glaneur, "kwic", run_dir, cql, "--near", near_cql, "--near-window", "3", "--count").strip()
    driver.get(f"{kwic}&near={q(near_cql)}&near_window=3")
    assert text_of(driver, "kwic-total") == near and int(near) > 0, (text_of(driver, "kwic-total"), near)
    not_near = cli(glaneur, "kwic", run_dir, cql, "--not-near", not_near_cql, "--count").strip()
    driver.get(f"{kwic}&not_near={q(not_near_cql)}")
    assert text_of(driver, "kwic-total") == not_near and 0 < int(not_near) < count, (text_of(driver, "kwic-total"), not_near)
    driver.get(f"{kwic}&sentence=1")
    sentences = tsv_rows(cli(glaneur, "kwic", run_dir, cql, "--sentence", "--format", "tsv"))
    assert [r[1:4] for r in table_rows(driver, "kwic")] == [r[4:7] for r in sentences], "sentence view differs"
    driver.get(f"{kwic}&attrs=1")
    tokens = driver.find_elements(By.CSS_SELECTOR, "#kwic td.h .tok")
    assert tokens and len(tokens[0].find_elements(By.TAG_NAME, "small")) >= 1, "no attributes under the tokens"
    driver.save_screenshot(os.path.join(shots, "serve-kwic-attributes.png"))
    row = driver.find_element(By.CSS_SELECTOR, "#kwic tr[data-start]")
    hit = row.find_element(By.CSS_SELECTOR, "td.h span span").text
    shown = len(row.find_elements(By.CSS_SELECTOR, ".tok"))
    row.find_element(By.CSS_SELECTOR, "a.wider").click()
    wait_for("the wider context", lambda: driver.find_elements(By.ID, "context"), 10)
    assert driver.find_element(By.CSS_SELECTOR, "#context mark span span").text == hit
    wider = len(driver.find_elements(By.CSS_SELECTOR, "#context .tok"))
    assert wider >= shown, (wider, shown)
    print(f"sample of 5 = --sample 5 --seed 7; near {near}, not near {not_near} hits = the CLI's; sentence view = "
          f"--sentence; context of `{hit}`: {wider} tokens (the line {shown})")

    # What goes wrong says so, and what to do.
    malformed, nothing = '[lc="graphe', '[lc="zzzzqqq"]'
    driver.get(f"{base}/runs/{topic}/kwic?cql={q(malformed)}")
    error = text_of(driver, "query-error")
    assert "character 12" in error, error
    driver.get(f"{base}/runs/{topic}/kwic?cql={q(nothing)}")
    assert "0" == text_of(driver, "kwic-total") and driver.find_elements(By.ID, "kwic-none")
    driver.get(f"{base}/runs/{topic}/kwic")
    assert "CQL query" in text_of(driver, "kwic-empty")
    driver.get(f"{base}/runs/{new_topic}/kwic")
    empty = driver.find_element(By.CLASS_NAME, "empty").text
    assert "No index yet" in empty and "glaneur run" in empty, empty
    print(f"malformed CQL: {error.splitlines()[0]}; never run: {empty[:50]}…")

    # The word list, and a breakdown of the query by host: the rows of `glaneur freq`.
    driver.get(f"{base}/runs/{topic}/freq")
    cells = table_rows(driver, "freq-table")
    assert cells == tsv_rows(cli(glaneur, "freq", run_dir, "--format", "tsv")), cells[:3]
    driver.get(f"{base}/runs/{topic}/freq?by=lc&dispersion=1&stop=fr&words_only=1&limit=20")
    cells = table_rows(driver, "freq-table")
    assert cells == tsv_rows(cli(glaneur, "freq", run_dir, "--by", "lc", "--dispersion", "--stop", "fr",
                                 "--words-only", "--limit", "20", "--format", "tsv")), cells[:3]
    assert len(cells[0]) == 7, cells[0]  # rank, value, frequency, per million, DP, ARF, D
    driver.get(kwic)
    driver.find_element(By.LINK_TEXT, "by host").click()
    wait_for("the breakdown", lambda: driver.find_elements(By.ID, "freq-table"), 20)
    hosts = table_rows(driver, "freq-table")
    assert hosts == tsv_rows(cli(glaneur, "freq", run_dir, "--query", cql, "--by", "host", "--format", "tsv"))
    assert sum(int(r[2]) for r in hosts) == count, hosts
    status, _, body = fetch_text(driver, driver.find_element(By.ID, "freq-csv").get_attribute("href"))
    want = cli(glaneur, "freq", run_dir, "--query", cql, "--by", "host", "--format", "csv")
    # (fetch's text() drops the CSV's byte-order mark)
    assert status == 200 and body == want.lstrip("\ufeff"), (body[:200], want[:200])
    driver.save_screenshot(os.path.join(shots, "serve-breakdown.png"))
    print(f"word list = glaneur freq; breakdown of {count} hits over {len(hosts)} hosts, CSV = the CLI's")

    # Collocations and keywords: the rows of `glaneur colloc` and `glaneur keywords`.
    driver.get(f"{base}/runs/{topic}/colloc")
    assert driver.find_elements(By.ID, "colloc-empty")
    node = '[lc="graphe.*|calque.*"]'
    driver.get(f"{base}/runs/{topic}/colloc?cql={q(node)}&window=4&min_freq=1&stop=fr")
    cells = table_rows(driver, "colloc-table")
    assert cells and cells == tsv_rows(cli(glaneur, "colloc", run_dir, node, "--window", "4", "--min-freq", "1",
                                           "--stop", "fr", "--format", "tsv")), cells[:3]
    driver.save_screenshot(os.path.join(shots, "serve-colloc.png"))
    driver.get(f"{base}/runs/{topic}/keywords")
    assert driver.find_elements(By.ID, "keywords-empty")
    options = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "select[name=reference] option")]
    assert ref_topic in options and topic not in options and new_topic not in options, options
    Select(driver.find_element(By.CSS_SELECTOR, "select[name=reference]")).select_by_visible_text(ref_topic)
    driver.find_element(By.CSS_SELECTOR, "#keywords-form button").click()
    wait_for("the keywords", lambda: driver.find_elements(By.ID, "keywords-table"), 20)
    cells = table_rows(driver, "keywords-table")
    assert cells == tsv_rows(cli(glaneur, "keywords", run_dir, "--reference", ref_run, "--format", "tsv")), cells[:3]
    driver.save_screenshot(os.path.join(shots, "serve-keywords.png"))
    print(f"collocations of {node}: {len(cells)} rows = glaneur colloc; keywords against {ref_topic} = glaneur keywords")


def tagged_vrt():
    """A small French corpus tagged by hand (word, pos, lemma): graphe with adjectives, verbs
    whose subject it is and one whose object it is, over two hosts."""
    adjs, verbs, objs = ["orienté", "pondéré", "complet", "orienté"], [("relie", "relier"), ("contient", "contenir"), ("relie", "relier")], [("sommets", "sommet"), ("arêtes", "arête")]
    lines = []
    for d in range(4):
        host = "a.test" if d < 2 else "b.test"
        lines += [f'<text id="t{d:06d}" url="http://{host}/{d}" title="Document {d}" lang="fr" score="1" host="{host}" date="2024-01-01">', "<p>"]
        for i in range(6):
            a, (v, vl), (o, ol) = adjs[(d + i) % 4], verbs[(2 * d + i) % 3], objs[(d + i) % 2]
            for sentence in ([("Le", "DET", "le"), ("graphe", "NOUN", "graphe"), (a, "ADJ", a), (v, "VERB", vl),
                              ("les", "DET", "le"), (o, "NOUN", ol), (".", "PUNCT", ".")],
                             [("On", "PRON", "on"), ("dessine", "VERB", "dessiner"), ("un", "DET", "un"),
                              ("graphe", "NOUN", "graphe"), (".", "PUNCT", ".")]):
                lines += ["<s>", *("\t".join(t) for t in sentence), "</s>"]
        lines += ["</p>", "</text>"]
    return "\n".join(lines) + "\n"


def check_sketch(driver, base, topic, run_dir, glaneur, shots):
    """The word sketch: the untagged run's empty state, a tagged run's tables against the CLI."""
    q = lambda text: urllib.parse.quote(text, safe="")
    driver.get(f"{base}/runs/{topic}/sketch")
    untagged = text_of(driver, "sketch-untagged")
    assert untagged and "[annotate]" in untagged and "text.md" in untagged, untagged
    # A tagged topic beside the others: its run folder holds a hand-tagged .vrt and its index.
    corpora = os.path.dirname(os.path.dirname(os.path.abspath(run_dir)))
    tagged = os.path.join(corpora, "etiquete")
    tagged_run = os.path.join(tagged, "run")
    os.makedirs(os.path.join(tagged_run, "vrt"))
    with open(os.path.join(os.path.dirname(os.path.abspath(run_dir)), "topic.toml"), encoding="utf-8") as f:
        topic_text = f.read()
    with open(os.path.join(tagged, "topic.toml"), "w", encoding="utf-8") as f:
        f.write(topic_text)
    vrt = os.path.join(tagged_run, "vrt", "corpus.vrt")
    with open(vrt, "w", encoding="utf-8") as f:
        f.write(tagged_vrt())
    cli(glaneur, "index", vrt, "--out", os.path.join(tagged_run, "index"), "--columns", "word,pos,lemma")

    driver.get(f"{base}/runs/etiquete/sketch")
    assert driver.find_elements(By.ID, "sketch-empty")
    nav = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#workbench a")]
    assert "subcorpora" in nav and "word sketch" not in nav, nav  # (it is this page: not a link)
    field = driver.find_element(By.CSS_SELECTOR, "#sketch-form input[name=lemma]")
    field.send_keys("graphe")
    field.submit()
    wait_for("the sketch", lambda: driver.find_elements(By.ID, "sketch-summary"), 20)
    shown = driver.execute_script(
        "return Array.from(document.querySelectorAll('table.sketch')).flatMap(t =>"
        " Array.from(t.querySelectorAll('tr[data-f-y]')).map(r => [t.dataset.relation,"
        " r.cells[0].textContent, r.cells[1].textContent, t.dataset.hits, r.dataset.fY, r.cells[2].textContent]))")
    want_tsv = cli(glaneur, "sketch", tagged_run, "graphe", "--format", "tsv")
    want = tsv_rows(want_tsv)
    assert shown and [r[:5] for r in shown] == [r[:5] for r in want], (shown, want)
    # logDice: two decimals on the page, three in the TSV
    assert all(abs(float(a[5]) - float(b[5])) <= 0.0051 for a, b in zip(shown, want)), (shown, want)
    relations = [t.get_attribute("data-relation") for t in driver.find_elements(By.CSS_SELECTOR, "table.sketch")]
    status, disposition, body = fetch_text(driver, driver.find_element(By.ID, "sketch-tsv").get_attribute("href"))
    assert status == 200 and "attachment" in (disposition or "") and body == want_tsv, (status, body[:300])
    driver.save_screenshot(os.path.join(shots, "serve-sketch.png"))
    # A collocate opens the concordance of its f_xy hits.
    first = driver.find_element(By.CSS_SELECTOR, "table.sketch a.collocate")
    word, f_xy = first.text, shown[0][2]
    first.click()
    wait_for("the collocate's concordance", lambda: driver.find_elements(By.ID, "kwic-total"), 20)
    assert text_of(driver, "kwic-total") == f_xy, (word, text_of(driver, "kwic-total"), f_xy)
    # What goes wrong says what to do.
    driver.get(f"{base}/runs/etiquete/sketch?lemma=graphe&lang=de")
    error = text_of(driver, "query-error")
    assert "fr and en" in error and "--grammar" in error, error
    driver.get(f"{base}/runs/etiquete/sketch?lemma={q('zzzz')}")
    assert "No hit" in text_of(driver, "sketch-none"), text_of(driver, "sketch-none")
    print(f"word sketch: untagged run says how to tag; tagged run: {len(shown)} collocates in {relations} = "
          f"glaneur sketch --format tsv (TSV download too); `{word}` opens {f_xy} hits = f_xy")


def vrt_hosts(run_dir):
    """The documents of the run's .vrt per host, read here."""
    counts = {}
    with open(os.path.join(run_dir, "vrt", "corpus.vrt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("<text "):
                host = line.split(' host="', 1)[1].split('"', 1)[0]
                counts[host] = counts.get(host, 0) + 1
    return counts


def post_from(base, path, origin, fields):
    """A POST with `Origin: origin` from outside the browser: its status."""
    import urllib.request
    data = urllib.parse.urlencode(fields).encode()
    request = urllib.request.Request(base + path, data=data, method="POST", headers={"Origin": origin})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def check_subcorpora(driver, base, topic, run_dir, glaneur, shots):
    """A subcorpus made, read, defended and deleted from the browser."""
    q = lambda text: urllib.parse.quote(text, safe="")
    hosts = vrt_hosts(run_dir)
    host, documents = sorted(hosts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    assert documents < sum(hosts.values()), hosts
    driver.get(f"{base}/runs/{topic}/subcorpora")
    assert driver.find_elements(By.ID, "subcorpora-empty")
    form = lambda name: driver.find_element(By.CSS_SELECTOR, f"#subcorpus-form [name={name}]")
    # A bad name: refused, readably, and nothing made.
    form("name").send_keys("un nom")
    form("where").send_keys("host=" + host.replace(".", "\\."))
    driver.find_element(By.ID, "subcorpus-make").click()
    wait_for("the refusal", lambda: driver.find_elements(By.ID, "query-error"), 20)
    assert "letters, digits" in text_of(driver, "query-error"), text_of(driver, "query-error")
    assert not os.path.exists(os.path.join(run_dir, "subcorpora", "un nom"))
    # Made from the form (its own origin), listed with the host's documents.
    form("name").clear()
    form("name").send_keys("un_hote")
    driver.find_element(By.ID, "subcorpus-make").click()
    wait_for("the subcorpus", lambda: driver.find_elements(By.ID, "subcorpora-done"), 30)
    row = driver.find_element(By.CSS_SELECTOR, "#subcorpora-table tr[data-name=un_hote]")
    cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
    assert int(cells[1]) == documents, (cells, host, documents)
    driver.save_screenshot(os.path.join(shots, "serve-subcorpora.png"))
    # Read by the concordance and the word list: the command line's counts with --subcorpus.
    cql = '[lc="[a-zà-ÿ].*"]'
    row.find_element(By.TAG_NAME, "a").click()
    wait_for("the concordance form", lambda: driver.find_elements(By.ID, "kwic-form"), 20)
    assert "un_hote" in text_of(driver, "subcorpus-active"), text_of(driver, "subcorpus-active")
    field = driver.find_element(By.CSS_SELECTOR, "#kwic-form input[name=cql]")
    field.send_keys(cql)
    field.submit()
    wait_for("the concordance", lambda: driver.find_elements(By.ID, "kwic-total"), 20)
    want = cli(glaneur, "kwic", run_dir, cql, "--count", "--subcorpus", "un_hote").strip()
    whole = cli(glaneur, "kwic", run_dir, cql, "--count").strip()
    assert text_of(driver, "kwic-total") == want and int(want) < int(whole), (text_of(driver, "kwic-total"), want, whole)
    selected = Select(driver.find_element(By.ID, "subcorpus-select")).first_selected_option.get_attribute("value")
    assert selected == "un_hote", selected
    driver.get(f"{base}/runs/{topic}/freq?subcorpus=un_hote&limit=30")
    assert table_rows(driver, "freq-table") == tsv_rows(cli(glaneur, "freq", run_dir, "--subcorpus", "un_hote",
                                                             "--limit", "30", "--format", "tsv"))
    # Another origin may neither make nor delete one.
    evil = "http://evil.example"
    assert post_from(base, f"/runs/{topic}/subcorpora", evil, {"name": "evil", "where": "host=.*"}) == 403
    assert post_from(base, f"/runs/{topic}/subcorpora/un_hote/delete", evil, {}) == 403
    assert not os.path.exists(os.path.join(run_dir, "subcorpora", "evil"))
    assert os.path.isdir(os.path.join(run_dir, "subcorpora", "un_hote"))
    # Deleted by its button.
    driver.get(f"{base}/runs/{topic}/subcorpora")
    driver.find_element(By.CSS_SELECTOR, "tr[data-name=un_hote] button.delete").click()
    wait_for("the deletion", lambda: "Deleted" in (text_of(driver, "subcorpora-done") or ""), 20)
    assert not os.path.exists(os.path.join(run_dir, "subcorpora", "un_hote"))
    print(f"subcorpus of {host}: {documents} documents listed; {want} hits of {cql} (= kwic --count --subcorpus; "
          f"{whole} in the whole run), word list = freq --subcorpus; another origin's POSTs 403; deleted")


if __name__ == "__main__":
    main()
