"""The floor every layer stands on: values and helpers with no knowledge of
symbols, copies, sessions or packs.

* `errors`     the error tree each front end catches once
* `settings`   `Settings`: every configurable value (environment, pyproject.toml)
* `log`        the `symbolpack` logger, imported only when something is logged
* `workspace`  a project's root, its state dir, display paths, atomic writes
* `protocol`   the wire objects as TypedDicts (type checkers only)
* `kinds`      protocol symbol kinds and the groups rules use
* `tokens`     token counting: the fast estimate, a swappable exact counter
* `linediff`   line alignment in near-linear time (patience diff)
* `progress`   progress bars on a terminal, silent otherwise
* `process`    ending a process as soon as its answer is out

Nothing here imports from another folder of the package (tests/test_layers.py).
Nothing is imported by this file: a hook process pays only for what it uses.
"""
