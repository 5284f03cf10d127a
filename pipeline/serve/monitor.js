// The live monitor of one run: reads /runs/RUN/events (a snapshot a second) and draws it.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const fmt = (n) => (n === null || n === undefined) ? "–" : Number(n).toLocaleString("en-US");
  const pct = (r) => (r === null || r === undefined || !isFinite(r)) ? "–" : (100 * r).toFixed(1) + " %";
  const rate = (r) => !isFinite(r) || r <= 0 ? "0" : r >= 100 ? r.toFixed(0) : r >= 1 ? r.toFixed(1) : r.toFixed(2);
  const bytes = (b) => b >= 1e9 ? (b / 1e9).toFixed(2) + " GB" : b >= 1e6 ? (b / 1e6).toFixed(1) + " MB" : (b / 1e3).toFixed(0) + " KB";
  const duration = (s) => !isFinite(s) ? "–" : s >= 3600 ? (s / 3600).toFixed(1) + " h" : s >= 60 ? (s / 60).toFixed(1) + " min" : s.toFixed(0) + " s";
  const rows = (id, head, data) => {
    const t = $(id);
    t.textContent = "";
    const tr = document.createElement("tr");
    head.forEach(([h, numeric]) => {
      const th = document.createElement("th");
      if (numeric) th.className = "n";
      th.textContent = h;
      tr.appendChild(th);
    });
    t.appendChild(tr);
    for (const row of data) {
      const r = document.createElement("tr");
      row.forEach((cell, i) => {
        const td = document.createElement("td");
        if (head[i][1]) td.className = "n";
        td.textContent = head[i][1] && typeof cell === "number" ? fmt(cell) : String(cell);
        r.appendChild(td);
      });
      t.appendChild(r);
    }
  };
  const width = () => Math.max(320, Math.min(1050, document.body.clientWidth - 40));
  // Series kept in the page: one point per event.
  const times = [], rates = [], pagesX = [], harvestY = [];
  const samples = [];
  let rateChart = null, harvestChart = null, events = 0;
  const chart = (id, title, label, series, data) => new uPlot({
    width: width(), height: 240, title,
    scales: {x: {time: false}},
    axes: [{label}, {}],
    series: [{label}].concat(series),
  }, data, $(id));

  const show = (s) => {
    events += 1;
    document.body.dataset.events = String(events);
    document.body.dataset.stage = s.stage;
    $("stage").textContent = (s.running ? "running: " : "") + s.stage;
    $("start").disabled = s.running;
    $("stop").disabled = !s.running;
    $("disk").textContent = bytes(s.disk_bytes);
    const L = s.live;
    if (L) {
      $("requests").textContent = fmt(L.requests_total);
      $("max").textContent = fmt(L.budget);
      $("budget").style.width = L.budget ? Math.min(100, 100 * L.requests_total / L.budget) + "%" : "0";
      $("queued").textContent = fmt(L.queued);
      $("errors").textContent = fmt(L.errors);
      $("harvest").textContent = L.pages ? pct(L.on_topic / L.pages) : "–";
      $("harvest").dataset.pages = String(L.pages);
      $("harvest").dataset.onTopic = String(L.on_topic);
      const busy = L.hosts.ready + L.hosts.in_flight + L.hosts.waiting_delay + L.hosts.backing_off;
      $("politeness").textContent = busy ? pct(L.hosts.waiting_delay / busy) : "–";
      const overall = L.requests / Math.max(0.001, L.at - L.started_at);
      $("rate-all").textContent = rate(overall);
      samples.push([L.at, L.requests]);
      while (samples.length > 1 && L.at - samples[0][0] > 10) samples.shift();
      const span = L.at - samples[0][0];
      const recent = span >= 1 ? (L.requests - samples[0][1]) / span : overall;
      // Once the run has ended there is no rate "now": the figures of the run are in its report.
      $("rate-now").textContent = s.running ? rate(recent) : "–";
      // Projected finish: what is left of the budget or of the queue, at the recent pace.
      const left = Math.max(0, Math.min(L.budget - L.requests_total, L.queued));
      $("eta").textContent = s.running && L.stage === "crawl"
        ? fmt(L.requests_total) + " of " + fmt(L.budget) + " requests; " + fmt(left) + " to go" +
          (recent > 0 ? ", about " + duration(left / recent) + " at the last 10 s pace" : "")
        : "";
      // The tagging stage: documents done of the corpus, tokens, pace, time left.
      const A = L.annotate;
      $("annotate").textContent = A
        ? "tagging: " + fmt(A.done) + " of " + fmt(A.documents) + " documents done, " +
          fmt(A.tokens) + " tokens tagged (" + rate(A.tokens_per_second) + " tokens/s)" +
          (s.running && L.stage === "annotate" && A.eta_seconds != null
            ? ", about " + duration(A.eta_seconds) + " left" : "")
        : "";
      if (s.running && L.stage === "crawl") {
        times.push(L.at - L.started_at); rates.push(recent);
        pagesX.push(L.pages); harvestY.push(L.pages ? 100 * L.on_topic / L.pages : null);
        if (!rateChart && times.length >= 2) {
          $("charts").hidden = false;
          rateChart = chart("chart-rate", "requests per second (last 10 s)", "seconds",
            [{label: "requests/s", stroke: "#2f6db5", width: 2}], [times, rates]);
          harvestChart = chart("chart-harvest", "harvest rate (%) of the pages read whole", "pages read",
            [{label: "harvest rate %", stroke: "#1b7f5a", width: 2}], [pagesX, harvestY]);
        } else if (rateChart) {
          rateChart.setData([times, rates]);
          harvestChart.setData([pagesX, harvestY]);
        }
      }
      const H = L.hosts;
      rows("hosts", [["servers"], ["count", true]], [
        ["free to ask now (waiting for a request slot)", H.ready],
        ["a request in flight", H.in_flight],
        ["waiting for their delay (politeness)", H.waiting_delay],
        ["backing off after failures", H.backing_off],
        ["given up", H.given_up],
        ["nothing queued", H.idle],
      ]);
      rows("queues", [["server"], ["URLs queued", true]], L.largest_queues);
      rows("latest", [["URL"], ["score", true], ["formula"]],
        L.latest.map((p) => [p.url, p.score.toFixed(3), p.on_topic ? "accepts" : "rejects"]));
    }
    $("after").hidden = s.running || !s.report;
    if (s.report && typeof s.report.harvest_rate === "number") {
      $("harvest").textContent = pct(s.report.harvest_rate);
      $("harvest-of").textContent = "clean texts, report.json";
    } else {
      $("harvest-of").textContent = "pages read whole";
    }
    if (Array.isArray(s.reasons)) {
      rows("reasons", [["state"], ["reason"], ["URLs", true], ["what it means"]],
        s.reasons.map((r) => [r.state, r.reason || "–", r.count, r.explanation]));
    }
    if (Array.isArray(s.status_classes)) {
      rows("statuses", [["class"], ["requests", true]], s.status_classes);
    }
    $("log").textContent = s.log_tail || "";
  };
  const source = new EventSource("/runs/" + encodeURIComponent(RUN) + "/events");
  source.onmessage = (e) => {
    try { show(JSON.parse(e.data)); } catch (err) { document.body.dataset.error = String(err); }
  };
  source.onerror = () => { $("stage").textContent = "connection lost: retrying…"; };
})();
