#!/usr/bin/env python3
"""Load a run folder's exports with networkx and SciPy, and check their counts against
crawl.sqlite. Usage: check_exports.py RUN_DIR. Exits non-zero with a message on any mismatch."""
import csv
import sqlite3
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.io


def main(run: Path) -> None:
    db = sqlite3.connect(run / "crawl.sqlite")
    n_urls = db.execute("SELECT COUNT(*) FROM urls").fetchone()[0]
    n_links = db.execute("SELECT COUNT(*) FROM links").fetchone()[0]
    n_kept = db.execute("SELECT COUNT(*) FROM urls WHERE reason = 'kept'").fetchone()[0]

    g = nx.read_graphml(run / "graph" / "links.graphml")
    assert g.is_directed(), "the hyperlink graph is directed"
    assert g.number_of_nodes() == n_urls, (g.number_of_nodes(), n_urls)
    assert g.number_of_edges() == n_links, (g.number_of_edges(), n_links)
    kept = [n for n, d in g.nodes(data=True) if d.get("kept")]
    assert len(kept) == n_kept, (len(kept), n_kept)

    m = scipy.io.mmread(run / "matrix" / "counts.mtx")
    with open(run / "matrix" / "docs.tsv", newline="", encoding="utf-8") as f:
        docs = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    with open(run / "matrix" / "vocab.tsv", newline="", encoding="utf-8") as f:
        vocab = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert m.shape == (len(docs), len(vocab)), (m.shape, len(docs), len(vocab))
    assert m.shape[0] == n_kept, (m.shape, n_kept)
    row_words = np.asarray(m.sum(axis=1)).ravel()
    for i, doc in enumerate(docs):
        assert int(row_words[i]) == int(doc["words"]), (i, doc["id"], int(row_words[i]), doc["words"])
    col_docs = np.asarray((m > 0).sum(axis=0)).ravel()
    for j, word in enumerate(vocab):
        assert int(col_docs[j]) == int(word["df"]), (j, word["word"])
    print(
        f"ok: graph {g.number_of_nodes()} nodes / {g.number_of_edges()} edges, "
        f"matrix {m.shape[0]} x {m.shape[1]} with {m.nnz} non-zeros"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
