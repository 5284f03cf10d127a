#!/usr/bin/env python3
"""Drives `glaneur serve` in a real browser (headless Chromium through Debian's chromedriver,
with Selenium from tests/requirements.txt): the end-to-end test `tests/e2e/serve.rs` starts the
server and the local test web, then runs

    check_serve.py BASE_URL TOPIC RUN_DIR STOP_TOPIC STOP_RUN_DIR SHOTS_DIR NEW_TOPIC UPLOAD

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
- a screenshot of each page lands in SHOTS_DIR.
Nothing here touches the internet: Selenium is told to stay offline and the browser is the
system's.
"""

import json
import os
import sqlite3
import sys
import time

import chromium  # tests/chromium.py: the system's Chromium, offline
from selenium.webdriver.common.by import By


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
    base, topic, run_dir, stop_topic, stop_run, shots, new_topic, upload = sys.argv[1:9]
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
        driver.get(f"{base}/runs/{topic}/corpus?q=graphe&cql=%5Blc%3D%22graphe.%2A%22%5D")
        docs = table_rows(driver, "docs")
        db = sqlite3.connect(f"file:{os.path.join(run_dir, 'crawl.sqlite')}?mode=ro", uri=True)
        kept = db.execute("SELECT COUNT(*) FROM urls WHERE reason = 'kept'").fetchone()[0]
        db.close()
        assert len(docs) == min(kept, 50), (len(docs), kept)
        results = driver.find_elements(By.CSS_SELECTOR, "#results li")
        assert results and driver.find_elements(By.CSS_SELECTOR, "#results mark"), "no search result"
        kwic = text_of(driver, "kwic-lines") or ""
        assert "graphe" in kwic.lower(), kwic
        assert driver.find_elements(By.CSS_SELECTOR, "#host-graph circle"), "no host drawn"
        maps = driver.find_elements(By.CSS_SELECTOR, "#sitemaps a")
        assert maps, "no site map listed"
        driver.save_screenshot(os.path.join(shots, "serve-corpus.png"))
        print(f"corpus: {len(docs)} documents listed ({kept} kept), {len(results)} search results, "
              f"{len(kwic.splitlines())} concordance lines, {len(maps)} site maps")
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
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
