"""glaneur's spaCy tagger process (written into RUN/annotate/ by `glaneur run`; not run by hand).

    python spacy-worker.py check LANG=MODEL...   one line per language: `ok LANG` or
                                                 `missing LANG WHY`; first line `spacy VERSION`
                                                 (exit 3 when spaCy itself cannot be imported)
    python spacy-worker.py serve LANG=MODEL...   tags batches read on stdin until it closes

A batch is TreeTagger-ready text (`<doc id=… lang="fr" …>`, `<p>`, one token a line, `</p>`,
`</doc>`) ended by a `</batch>` line. The answer is the same lines in the same order, each token
line as `word<TAB>POS<TAB>lemma` (spaCy's UD `pos_` and `lemma_`; the word is the line exactly:
spaCy never retokenises, one Doc is built per run of token lines, as scripts/tag-fallback does),
then `</batch>`. A batch that cannot be tagged is answered `!error: WHY` then `</batch>`.
"""

import re
import sys

LANG = re.compile(r'\slang="([^"]*)"')


def clean(field, fallback):
    # A tab or line break inside a field would break the three-column shape.
    field = " ".join(field.split())
    return field or fallback


def models_of(args):
    models = {}
    for arg in args:
        lang, _, model = arg.partition("=")
        models[lang] = model
    return models


def check(models):
    try:
        import spacy
    except Exception as error:  # noqa: BLE001 - any import failure means no spaCy
        print(f"nospacy {error}", flush=True)
        return 3
    print(f"spacy {spacy.__version__}", flush=True)
    from pathlib import Path

    for lang, model in models.items():
        # Installed as a package, or a model's folder: loading it waits for the first batch.
        if spacy.util.is_package(model) or (Path(model) / "config.cfg").is_file():
            print(f"ok {lang}", flush=True)
        else:
            print(f"missing {lang} no package and no model folder of that name", flush=True)
    return 0


def read_batch(stdin):
    """The lines of the next batch; None at the end of the input."""
    lines = []
    for raw in stdin:
        line = raw.rstrip("\n").rstrip("\r")
        if line == "</batch>":
            return lines
        lines.append(line)
    return lines if lines else None


def tag(lines, models, loaded):
    from spacy.tokens import Doc

    # Runs of token lines (paragraphs), each with its document's language.
    runs = []
    lang = ""
    start = None
    for i, line in enumerate(lines):
        structure = line.startswith("<") or not line.strip()
        if structure:
            if start is not None:
                runs.append((lang, start, i))
                start = None
            if line.startswith("<doc"):
                found = LANG.search(line)
                lang = found.group(1) if found else ""
        elif start is None:
            start = i
    if start is not None:
        runs.append((lang, start, len(lines)))
    out = list(lines)
    by_lang = {}
    for run in runs:
        by_lang.setdefault(run[0], []).append(run)
    for lang, group in by_lang.items():
        if lang not in models:
            raise ValueError(f"no model for the language {lang!r}")
        if lang not in loaded:
            import spacy

            loaded[lang] = spacy.load(models[lang], exclude=["parser", "ner"])
        nlp = loaded[lang]
        docs = ((Doc(nlp.vocab, words=lines[a:b]), (a, b)) for _, a, b in group)
        for doc, (a, _) in nlp.pipe(docs, as_tuples=True, batch_size=64):
            for k, token in enumerate(doc):
                pos = clean(token.pos_, "X")
                lemma = clean(token.lemma_, token.text)
                out[a + k] = f"{token.text}\t{pos}\t{lemma}"
    return out


def serve(models):
    stdin = open(sys.stdin.fileno(), encoding="utf-8", newline="", closefd=False)
    stdout = open(sys.stdout.fileno(), "w", encoding="utf-8", newline="\n", closefd=False)
    loaded = {}
    while True:
        lines = read_batch(stdin)
        if lines is None:
            return 0
        try:
            answer = tag(lines, models, loaded)
        except Exception as error:  # noqa: BLE001 - the batch fails, the process goes on
            answer = ["!error: " + " ".join(f"{type(error).__name__}: {error}".split())[:500]]
        stdout.write("\n".join(answer))
        stdout.write("\n</batch>\n" if answer else "</batch>\n")
        stdout.flush()


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("check", "serve"):
        print(__doc__, file=sys.stderr)
        return 2
    models = models_of(sys.argv[2:])
    return check(models) if sys.argv[1] == "check" else serve(models)


if __name__ == "__main__":
    sys.exit(main())
