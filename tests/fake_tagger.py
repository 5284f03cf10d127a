#!/usr/bin/env python3
"""A tagger for the annotate stage's tests: glaneur's command contract, with faults on demand.

Reads TreeTagger-ready text on stdin (SGML lines and one token a line) and writes the same lines,
each token line as `word<TAB>POS<TAB>lemma`: POS `NOUN` for a word with a capital, `X` otherwise
(both Universal Dependencies tags), lemma the word in lower case.

    fake_tagger.py [--crash-on WORD] [--garble-on WORD] [--sleep SECONDS] [--lang LANG]
    fake_tagger.py -token -lemma -sgml -no-unknown PARAMETER_FILE     (as TreeTagger is called)

--crash-on WORD   exit 1 (after a line on stderr) when the batch holds the token WORD
--garble-on WORD  leave out the token after WORD (the answer then misses a token)
--sleep SECONDS   wait that long before answering each batch
--lang LANG       exit 1 unless LANG is given as `fr` (checks the `{lang}` placeholder)

Called with TreeTagger's flags, it stands in for TreeTagger: the flags must all be there and the
parameter file must exist (TreeTagger's own message and exit 1 otherwise).
"""

import argparse
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--crash-on")
    parser.add_argument("--garble-on")
    parser.add_argument("--sleep", type=float, default=0.0)
    parser.add_argument("--lang")
    for flag in ("-token", "-lemma", "-sgml", "-no-unknown"):
        parser.add_argument(flag, action="store_true")
    parser.add_argument("parameters", nargs="?")
    args = parser.parse_args()
    if args.parameters is not None:
        if not (args.token and args.lemma and args.sgml and args.no_unknown):
            print("fake_tagger: TreeTagger's flags are missing", file=sys.stderr)
            return 1
        try:
            open(args.parameters, "rb").close()
        except OSError:
            print(f"ERROR: Can't open parameter file: {args.parameters}", file=sys.stderr)
            return 1
    if args.lang is not None and args.lang != "fr":
        print(f"fake_tagger: no model for {args.lang}", file=sys.stderr)
        return 1
    lines = sys.stdin.read().splitlines()
    if args.crash_on is not None and args.crash_on in lines:
        print(f"fake_tagger: cannot tag {args.crash_on!r}", file=sys.stderr)
        return 1
    time.sleep(args.sleep)
    out = []
    skip = False
    for line in lines:
        if line.startswith("<") or not line.strip():
            out.append(line)
            continue
        if skip:
            skip = False
            continue
        if args.garble_on is not None and line == args.garble_on:
            skip = True
        pos = "NOUN" if line[:1].isupper() else "X"
        out.append(f"{line}\t{pos}\t{line.lower()}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
