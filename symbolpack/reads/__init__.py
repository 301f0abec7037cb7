"""The agent's copy and the read decision, pure: no disk, no session store.

* `agentcopy`  the agent's copy of a file: per line, the version it came from
* `views`      numbered lines, markers, segments, unified diffs
* `skeleton`   what a first read hides, planned against a token budget
* `read`       the read decision: (request, copy, file) -> response + new copy

Stands on `base` and `engine`.
"""
