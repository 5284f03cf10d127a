#!/usr/bin/env python3
"""Attacks `glaneur serve` from other sites in a real browser (headless Chromium through Debian's
chromedriver, with Selenium from tests/requirements.txt). The end-to-end test
`tests/e2e/serve_trust.rs` starts the server, then runs

    check_cross_site.py SERVE_PORT TOPIC

and checks, from the server's side, that nothing happened. Here:
- an attacker's page on another site (`attacker.test`, resolved by the browser to this machine)
  submits a form that starts TOPIC's run, one that creates a topic `evil` with an uploaded
  file, one that makes a subcorpus `evil` of TOPIC's run, sends `fetch` POSTs (no-cors) to start
  and stop runs and to delete a subcorpus, and loads a slow concordance in an `<img>`;
- the same from a page on another port of 127.0.0.1 (same site, another origin), which then
  navigates the window to a concordance (only the home page opens from another site);
- DNS rebinding: the browser is pointed at `rebind.test:SERVE_PORT` (a name that resolves to
  this machine), opens the server's home page through it, and a script in that origin (the
  rebound attacker's) POSTs to start TOPIC and reads a document: every answer must be 421.
Prints one JSON object: the statuses the rebound scripts saw, and what the pages showed.
Nothing here touches the internet: the names are mapped to 127.0.0.1 inside the browser.
"""

import http.server
import json
import sys
import threading
import time

import chromium  # tests/chromium.py: the system's Chromium, offline

SLOW = " ".join(['[word!="zz"]{0,99}'] * 90) + ' [word="." & lc="le"]'


def attack_page(serve):
    base = f"http://127.0.0.1:{serve}"
    from urllib.parse import quote
    return f"""<!DOCTYPE html><html><body>
<iframe name="sink1"></iframe><iframe name="sink2"></iframe><iframe name="sink3"></iframe><iframe name="sink4"></iframe>
<form id="start" method="POST" action="{base}/runs/TOPIC/start" target="sink1"></form>
<form id="create" method="POST" action="{base}/topics/new" enctype="multipart/form-data" target="sink2">
  <input name="name" value="evil"><input name="languages" value="fr">
  <input name="seed_urls" value="http://attacker.example/">
  <input name="formula" value='"graphe"'><input name="contact" value="mailto:a@b.example">
  <textarea name="result_page">x</textarea>
</form>
<form id="stop" method="POST" action="{base}/runs/TOPIC/stop" target="sink3"></form>
<form id="subcorpus" method="POST" action="{base}/runs/TOPIC/subcorpora" target="sink4">
  <input name="name" value="evil"><input name="where" value="host=.*">
</form>
<img src="{base}/runs/TOPIC/kwic?cql={quote(SLOW)}">
<script>
  fetch("{base}/runs/TOPIC/start", {{method: "POST", mode: "no-cors"}}).catch(() => {{}});
  fetch("{base}/runs/TOPIC/stop", {{method: "POST", mode: "no-cors"}}).catch(() => {{}});
  fetch("{base}/runs/TOPIC/subcorpora/keep/delete", {{method: "POST", mode: "no-cors"}}).catch(() => {{}});
  document.getElementById("start").submit();
  document.getElementById("create").submit();
  document.getElementById("stop").submit();
  document.getElementById("subcorpus").submit();
  document.title = "sent";
</script>
</body></html>"""


def attacker_server(page):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = page.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser():
    return chromium.browser("check_cross_site.py", [
        "--disable-background-networking",
        "--host-resolver-rules=MAP attacker.test 127.0.0.1, MAP rebind.test 127.0.0.1",
    ])


def main():
    serve, topic = int(sys.argv[1]), sys.argv[2]
    page = attack_page(serve).replace("TOPIC", topic)
    attacker = attacker_server(page)
    port = attacker.server_address[1]
    driver = browser()
    out = {}
    try:
        for origin in [f"http://attacker.test:{port}", f"http://127.0.0.1:{port}"]:
            driver.get(f"{origin}/attack.html")
            deadline = time.monotonic() + 10
            while driver.title != "sent" and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(2)  # the forms and fetches arrive
        # A navigation from the attacker's page to a query: refused (only the home page opens).
        driver.execute_script(
            f"window.location = 'http://127.0.0.1:{serve}/runs/{topic}/kwic?cql=%5B%5D'"
        )
        deadline = time.monotonic() + 10
        while "127.0.0.1" not in driver.current_url and time.monotonic() < deadline:
            time.sleep(0.1)
        out["navigated_page"] = driver.find_element("tag name", "body").text[:300]
        # DNS rebinding: a name of the attacker's that now resolves to this machine.
        driver.get(f"http://rebind.test:{serve}/")
        out["rebound_page"] = driver.find_element("tag name", "body").text[:300]
        statuses = driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            Promise.all([
              fetch("/runs/TOPIC/start", {method: "POST"}).then(r => r.status),
              fetch("/runs/TOPIC/corpus").then(r => r.status),
              fetch("/").then(r => r.status),
            ]).then(done, e => done(String(e)));
            """.replace("TOPIC", topic)
        )
        out["rebound_statuses"] = statuses
    finally:
        driver.quit()
        attacker.shutdown()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
