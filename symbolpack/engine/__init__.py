"""The symbol engine: files -> symbol slices.

* `languages`    extension -> language, query loading, the parser/query cache
* `symbols`      syntax tree -> symbol records: ids, spans, signatures, ETags (pure)
* `reparse`      a file's next syntax tree from its last one (pure)
* `index`        repository walk, ignore rules, the parse cache, the process pool
* `statdigests`  file digests remembered by stat signature
* `outline`      text outlines for `structure` / `extract`
* `rendercache`  `structure`'s rendered fragment per file
* `sources`      one file for an agent: refusals, size limits, binary, sensitive names
* `lookup`       names -> symbols: exact, then fuzzy, did-you-mean

Stands on `base` only.
"""
