#!/usr/bin/env python3
"""Read every table and graph of a run folder with the readers linguists use, as they call
them, and check that each reader got what glaneur wrote.

Usage: check_readers.py RUN_DIR [EXPECTED_JSON]

Tables (every *.csv and *.tsv under RUN_DIR) are read by R (tests/read_tables.R: read.delim
and read.csv) and by pandas (read_table and read_csv), each twice: with default arguments, and
with the arguments docs/guide/exports.md gives. What glaneur wrote is the RFC 4180 reading of the file
(Python's csv module), anchored to counts that no CSV parser gives: the Matrix Market size
lines, crawl.sqlite, the GraphML files; with EXPECTED_JSON (a fixture's own tables, written by
the test that made them), the reading must also equal those tables cell for cell.

Every reader must give every row and every column. With the documented arguments every cell
must be what glaneur wrote. With the defaults, the only differences allowed are the readers'
known quirks, each counted and printed: a value the reader takes for missing (R: "NA";
pandas: its default na_values, quoted or not) and, in R, column names rewritten by
check.names. The tables glaneur quotes itself (matrix/*, metadata.csv) are also read by R's
read.table(header = TRUE, sep = ...), whose defaults take `'` for a quote and `#` for a
comment. Graphs: networkx reads links.graphml, similarity.graphml, links.gexf and
hosts.gexf; every node of the GraphML files carries a label, and the similarity graph's nodes
are docs.tsv's documents with their title and URL.
"""
import csv
import json
import math
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import networkx as nx
import pandas as pd

# The values R's read.delim/read.csv and pandas' read_csv/read_table take for missing by
# default, quoted or not (R: na.strings = "NA"; pandas 3.1: keep_default_na); the guide lists
# the same, with the arguments that keep them as text.
R_NA = {"NA"}
PANDAS_NA = {
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
    "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
}
MISSING = object()


def strict(path: Path) -> list[list[str]]:
    """The file as glaneur wrote it: RFC 4180 with its delimiter."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f, delimiter="\t" if path.suffix == ".tsv" else ","))


def same(written: str, read) -> bool:
    if read is MISSING:
        return written == ""
    if written == read:
        return True
    if written.lower() in ("true", "false"):
        return written.lower() == read.lower()
    try:
        a, b = float(written), float(read)
    except ValueError:
        return False
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300) or (math.isnan(a) and math.isnan(b))


def read_r(tables: list[Path]) -> dict[tuple[Path, str], list[list]]:
    with tempfile.TemporaryDirectory() as out:
        script = Path(__file__).with_name("read_tables.R")
        run = subprocess.run(["Rscript", str(script), out, *map(str, tables)], capture_output=True, text=True)
        assert run.returncode == 0, f"Rscript failed:\n{run.stderr}"
        got = {}
        for k, path in enumerate(tables, 1):
            for variant in ("default", "documented", "read.table"):
                raw = (Path(out) / f"{k}.{variant}").read_bytes().decode("utf-8")
                if raw.startswith("\x02"):
                    got[(path, variant)] = raw[1:]
                    continue
                records = raw.split("\x1e")[:-1]
                got[(path, variant)] = [
                    [MISSING if c == "\x01" else c for c in r.split("\x1f")] for r in records
                ]
        return got


def read_pandas(path: Path, variant: str) -> list[list]:
    reader = pd.read_table if path.suffix == ".tsv" else pd.read_csv
    kwargs = {} if variant == "default" else {"keep_default_na": False, "na_values": [""]}
    d = reader(path, **kwargs)
    rows = [[str(c) for c in d.columns]]
    for row in d.itertuples(index=False):
        rows.append([MISSING if pd.isna(x) else str(x) for x in row])
    return rows


def compare(path: Path, reader: str, variant: str, truth: list[list[str]], got, quirks: list) -> None:
    where = f"{path} read by {reader} ({variant} arguments)"
    assert not isinstance(got, str), f"{where}: {got}"
    default = variant != "documented"
    assert len(got) == len(truth), f"{where}: {len(got) - 1} rows, glaneur wrote {len(truth) - 1}"
    na = R_NA if reader == "R" else PANDAS_NA
    header, read_header = truth[0], got[0]
    assert len(read_header) == len(header), f"{where}: {len(read_header)} columns, glaneur wrote {len(header)}"
    for j, (name, read_name) in enumerate(zip(header, read_header)):
        if name == read_name or (reader == "pandas" and name == "" and read_name == f"Unnamed: {j}"):
            continue
        assert reader == "R" and default, f"{where}: column {j + 1} is named {read_name!r}, not {name!r}"
        quirks.append((where, "column renamed by check.names", name, read_name))
    for i, (row, read_row) in enumerate(zip(truth[1:], got[1:]), 2):
        assert len(read_row) == len(row), f"{where}: line {i} has {len(read_row)} fields, glaneur wrote {len(row)}"
        for j, (value, read) in enumerate(zip(row, read_row)):
            if same(value, read):
                continue
            if read is MISSING and default and value in na:
                quirks.append((where, "read as missing", value, header[j]))
                continue
            raise AssertionError(f"{where}: line {i}, column {header[j]!r}: glaneur wrote {value!r}, read {read!r}")


def anchors(run: Path) -> dict[str, int]:
    """Rows of the main tables, from what is not a CSV."""
    counts = {}
    def mtx(name: str) -> tuple[int, int, int]:
        for line in (run / "matrix" / name).read_text(encoding="utf-8").splitlines():
            if not line.startswith("%"):
                return tuple(int(x) for x in line.split())
    if (run / "matrix" / "counts.mtx").exists():
        rows, cols, nnz = mtx("counts.mtx")
        counts.update({"matrix/vocab.tsv": cols, "matrix/long.csv": nnz, "matrix/dense.csv": rows, "matrix/docs.tsv": rows})
        if (run / "metadata.csv").exists():
            counts["metadata.csv"] = rows
    if (run / "matrix" / "lemma-counts.mtx").exists():
        counts["matrix/lemma-vocab.tsv"] = mtx("lemma-counts.mtx")[1]
    if (run / "crawl.sqlite").exists():
        db = sqlite3.connect(run / "crawl.sqlite")
        counts["graph/nodes.csv"] = db.execute("SELECT COUNT(*) FROM urls").fetchone()[0]
        counts["graph/edges.csv"] = db.execute("SELECT COUNT(*) FROM links").fetchone()[0]
    if (run / "graph" / "similarity.graphml").exists():
        counts["graph/similarity.csv"] = nx.read_graphml(run / "graph" / "similarity.graphml").number_of_edges()
    return counts


def check_graphs(run: Path, expected: dict) -> str:
    said = []
    links = run / "graph" / "links.graphml"
    if links.exists():
        g = nx.read_graphml(links)
        unlabelled = [n for n, a in g.nodes(data=True) if not a.get("label") or a["label"] != a.get("url")]
        assert not unlabelled, f"links.graphml: nodes without their URL as label: {unlabelled[:5]}"
        said.append(f"links.graphml {g.number_of_nodes()} nodes labelled")
    sim_path = run / "graph" / "similarity.graphml"
    if sim_path.exists():
        sim = nx.read_graphml(sim_path)
        docs = run / "matrix" / "docs.tsv"
        titles = expected.get("similarity_nodes") or [
            {"doc": r["id"], "title": r["title"], "url": r["url"]}
            for r in csv.DictReader(open(docs, newline="", encoding="utf-8"), delimiter="\t")
        ]
        assert sim.number_of_nodes() == len(titles), (sim.number_of_nodes(), len(titles))
        for i, want in enumerate(titles, 1):
            node = sim.nodes[str(i)]
            for key in ("doc", "title", "url"):
                assert node.get(key, "") == want[key], f"similarity.graphml node {i}: {key} {node.get(key)!r}, want {want[key]!r}"
            assert node["label"] == (want["title"] if want["title"].strip() else want["url"]), node
            assert node.get("host"), node
        for a, b, attrs in sim.edges(data=True):
            assert attrs["weight"] == attrs["similarity"] > 0, (a, b, attrs)
        said.append(f"similarity.graphml {sim.number_of_nodes()} nodes with title and url")
    for name in ("links.gexf", "hosts.gexf"):
        if (run / "graph" / name).exists():
            g = nx.read_gexf(run / "graph" / name)
            assert all(a.get("label") for _, a in g.nodes(data=True)), name
            said.append(f"{name} {g.number_of_nodes()} nodes")
    return ", ".join(said)


def main(run: Path, expected_path: Path | None) -> None:
    expected = json.loads(expected_path.read_text(encoding="utf-8")) if expected_path else {}
    tables = sorted(p for p in run.rglob("*") if p.suffix in (".csv", ".tsv") and p.is_file())
    assert tables, f"no table in {run}"
    counts = anchors(run)
    r_reads = read_r(tables)
    quirks: list = []
    summary = []
    for path in tables:
        name = path.relative_to(run).as_posix()
        truth = strict(path)
        if name in expected.get("tables", {}):
            assert truth == expected["tables"][name], f"{name}: the file does not hold the fixture's table"
        if name in counts:
            assert len(truth) - 1 == counts[name], f"{name}: {len(truth) - 1} rows, expected {counts[name]}"
        widths = {len(r) for r in truth}
        assert len(widths) == 1, f"{name}: rows of {sorted(widths)} fields"
        for variant in ("default", "documented"):
            compare(path, "R", variant, truth, r_reads[(path, variant)], quirks)
            compare(path, "pandas", variant, truth, read_pandas(path, variant), quirks)
        # The tables glaneur quotes itself also survive read.table's `'` quotes and `#` comments.
        if name.startswith("matrix/") or name == "metadata.csv":
            compare(path, "R", "read.table", truth, r_reads[(path, "read.table")], quirks)
        summary.append(f"{name} {len(truth) - 1}x{len(truth[0])}")
    for name in expected.get("tables", {}):
        assert (run / name).exists(), f"{name} was not written"
    graphs = check_graphs(run, expected)
    print("read whole by R and pandas:", ", ".join(summary))
    print("networkx:", graphs)
    print(f"default-reader quirks (documented in docs/guide/exports.md): {len(quirks)}")
    grouped: dict = {}
    for where, what, value, detail in quirks:
        grouped.setdefault((where, what), []).append(f"{value!r} ({detail!r})")
    for (where, what), examples in grouped.items():
        print(f"  {where}: {what}: {len(examples)}, e.g. {', '.join(examples[:3])}")


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None)
