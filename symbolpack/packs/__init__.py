"""Context packs and the call graph they are drawn from.

* `records`    call sites, import bindings, one file's facts (the values below share)
* `resolve/`   call resolution per language family, behind the `Resolver` interface
* `facts`      one file's call sites, imports and package; the facts cache
* `callgraph`  call edges of a snapshot: shared rules, callers, the edge cache
* `mentions`   which files mention a name as a word (`git grep -lw`, confirmed)
* `changes`    a change from git: changed files, hunks, owning symbols, diffs
* `related`    callers, callees and tests of a change; the entry walk of `context`
* `packing`    pack slices, budget allocation and fitting, rendering, recording
* `diffpack`   the diff-context pack: diffs and summaries of what no slice shows

Stands on `base`, `engine`, `reads` and `state`.
"""
