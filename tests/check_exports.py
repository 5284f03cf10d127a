#!/usr/bin/env python3
"""Load a run folder's exports with networkx and SciPy, and check their counts against
crawl.sqlite. Usage: check_exports.py RUN_DIR. Exits non-zero with a message on any mismatch."""
import csv
import json
import sqlite3
import sys
from pathlib import Path
from urllib.parse import urlsplit

import xml.etree.ElementTree as ET

import conllu
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

    # The same graph as GEXF 1.3 (Gephi) and Pajek, with PageRank summing to 1.
    gexf = nx.read_gexf(run / "graph" / "links.gexf")
    assert (gexf.number_of_nodes(), gexf.number_of_edges()) == (n_urls, n_links), (
        gexf.number_of_nodes(), gexf.number_of_edges())
    ranks = [d["pagerank"] for _, d in gexf.nodes(data=True)]
    assert abs(sum(ranks) - 1.0) < 1e-6, sum(ranks)
    pajek = nx.read_pajek(run / "graph" / "links.net")
    assert (pajek.number_of_nodes(), pajek.number_of_edges()) == (n_urls, n_links), (
        pajek.number_of_nodes(), pajek.number_of_edges())
    hosts = nx.read_gexf(run / "graph" / "hosts.gexf")
    n_hosts = len({urlsplit(u).hostname for (u,) in db.execute("SELECT url FROM urls")})
    assert hosts.number_of_nodes() == n_hosts, (hosts.number_of_nodes(), n_hosts)

    # Seed 004's site maps: each page at most once per tree.
    for path in (run / "graph" / "sitemaps").glob("*.xml"):
        urls = [e.get("url") for e in ET.parse(path).iter("page")]
        assert urls and len(urls) == len(set(urls)), path

    m = scipy.io.mmread(run / "matrix" / "counts.mtx")
    with open(run / "matrix" / "docs.tsv", newline="", encoding="utf-8") as f:
        docs = list(csv.DictReader(f, delimiter="\t"))
    with open(run / "matrix" / "vocab.tsv", newline="", encoding="utf-8") as f:
        vocab = list(csv.DictReader(f, delimiter="\t"))
    assert m.shape == (len(docs), len(vocab)), (m.shape, len(docs), len(vocab))
    assert m.shape[0] == n_kept, (m.shape, n_kept)
    row_words = np.asarray(m.sum(axis=1)).ravel()
    for i, doc in enumerate(docs):
        assert int(row_words[i]) == int(doc["words"]), (i, doc["id"], int(row_words[i]), doc["words"])
    col_docs = np.asarray((m > 0).sum(axis=0)).ravel()
    for j, word in enumerate(vocab):
        assert int(col_docs[j]) == int(word["df"]), (j, word["word"])
    # CWB vertical: every <text> document is well-formed XML, one per kept document, with the
    # same tokens as the TreeTagger file.
    vrt = (run / "vrt" / "corpus.vrt").read_text(encoding="utf-8")
    chunks = [c for c in vrt.split("</text>\n") if c.strip()]
    assert len(chunks) == n_kept, (len(chunks), n_kept)
    vrt_tokens = []
    for chunk in chunks:
        root = ET.fromstring(chunk + "</text>")
        assert root.tag == "text" and root.get("id"), root.attrib
        vrt_tokens += [
            line
            for line in (chunk + "</text>").splitlines()
            if line and not line.startswith("<")
        ]
    tt = (run / "treetagger" / "corpus.tt").read_text(encoding="utf-8")
    tt_tokens = [line for line in tt.splitlines() if not line.startswith("<")]
    unescape = lambda t: t.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    words = [t.split("\t")[0] for t in vrt_tokens]
    assert [unescape(t) for t in words] == [unescape(t) for t in tt_tokens], "vrt and TreeTagger tokens differ"
    # CWB's rules: every token line has the same columns (positional attributes), none empty.
    columns = {len(t.split("\t")) for t in vrt_tokens}
    assert len(columns) == 1, f"token lines with different numbers of columns: {columns}"
    assert all(all(f.strip() for f in t.split("\t")) for t in vrt_tokens), "an empty column in the vrt"
    tagged_run = any((run / "tagged").glob("*.tagged"))
    assert columns == ({3} if tagged_run else {1}), (columns, tagged_run)

    # CoNLL-U: parsed by the `conllu` package; # text matches the forms and SpaceAfter.
    sentences = conllu.parse((run / "conllu" / "corpus.conllu").read_text(encoding="utf-8"))
    forms = 0
    ud = {"ADJ", "ADP", "ADV", "AUX", "CCONJ", "DET", "INTJ", "NOUN", "NUM", "PART", "PRON", "PROPN",
          "PUNCT", "SCONJ", "SYM", "VERB", "X"}
    vrt_tags = [t.split("\t")[1:] for t in vrt_tokens]
    for sentence in sentences:
        rebuilt = ""
        for token in sentence:
            if tagged_run:
                # The tagger's pos and lemma, the same as in the vrt, token for token.
                pos, lemma = vrt_tags[forms]
                assert token["upos"] in ud | {"_"} and token["lemma"], token
                assert (token["upos"] if token["xpos"] in (None, "_") else token["xpos"]) == unescape(pos), (token, pos)
                assert token["lemma"] == unescape(lemma), (token, lemma)
            forms += 1
            rebuilt += token["form"]
            if not (token["misc"] and token["misc"].get("SpaceAfter") == "No"):
                rebuilt += " "
        assert rebuilt.strip() == sentence.metadata["text"], (sentence.metadata["sent_id"], rebuilt)
    assert forms == len(tt_tokens), (forms, len(tt_tokens))

    # The similarity graph (undirected, rows of docs.tsv) and its comparison with the links.
    sim = nx.read_graphml(run / "graph" / "similarity.graphml")
    with open(run / "graph" / "similarity.csv", newline="", encoding="utf-8") as f:
        sim_rows = list(csv.DictReader(f))
    comparison = json.loads((run / "graph" / "comparison.json").read_text(encoding="utf-8"))
    assert not sim.is_directed() and sim.number_of_edges() == len(sim_rows) == comparison["edges_similarity"], (
        sim.number_of_edges(), len(sim_rows), comparison["edges_similarity"])
    assert all(float(r["similarity"]) >= 0.5 - 1e-9 for r in sim_rows)

    # Lemma matrix, when a tagger's output was read back: same rows as the word matrix.
    if (run / "matrix" / "lemma-counts.mtx").exists():
        lm = scipy.io.mmread(run / "matrix" / "lemma-counts.mtx")
        with open(run / "matrix" / "lemma-vocab.tsv", newline="", encoding="utf-8") as f:
            lemma_vocab = list(csv.DictReader(f, delimiter="\t"))
        assert lm.shape == (n_kept, len(lemma_vocab)), (lm.shape, n_kept, len(lemma_vocab))
        assert 0 < len(lemma_vocab) < len(vocab), (len(lemma_vocab), len(vocab))
        print(f"lemma matrix {lm.shape[0]} x {lm.shape[1]}")
    if tagged_run:
        print(f"tagged vrt and conllu: {len(vrt_tokens)} tokens with pos and lemma")

    # TXM metadata: first column id, one row per document.
    with open(run / "metadata.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0].keys())[0] == "id" and len(rows) == n_kept, (len(rows), n_kept)

    print(
        f"ok: vrt {len(chunks)} documents / {len(vrt_tokens)} tokens, conllu {len(sentences)} sentences, "
        f"site maps {len(list((run / 'graph' / 'sitemaps').glob('*.xml')))}, "
        f"graph {g.number_of_nodes()} nodes / {g.number_of_edges()} edges, "
        f"matrix {m.shape[0]} x {m.shape[1]} with {m.nnz} non-zeros"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
