"""Qwen Code hooks: `read_file` answered with fewer tokens where Qwen's own read state allows it.

`tldrs install qwen [--global]` writes seven command hooks into `.qwen/settings.json`
(`settings.py`); Qwen runs `python -m symbolpack.integrations.qwen NAME` (or `tldrs
qwen-hook NAME`) with the payload on stdin (`runner.py`).

| module | one idea |
| --- | --- |
| `payload.py` | a hook payload checked once; Qwen's read state (fingerprint, process, generation) as symbolpack notes it |
| `transcript.py` | the session's transcript, parsed incrementally: the active chain, its tool results, barriers |
| `present.py` | which answers about a file the model holds (the chain, less what microcompaction may have blanked) |
| `hooks.py` | the hooks: pre-read (deny only where Qwen stays able to edit), post-read, post-edit, edit refused, lifecycle |
| `runner.py` | the hooks by name, one run, the process entry |
| `settings.py` | what install writes into Qwen's settings and takes out again, byte for byte |
| `doctor.py` | Qwen's part of `tldrs doctor`: what is installed, each hook run on a probe |

The design rule (`hooks.py` says it in full): Qwen refuses to edit a file its own
`read_file` did not read in the running process, or that changed since it read or
wrote it. A `PreToolUse` deny replaces the read's result with symbolpack's answer but
runs no `read_file`, so it is given only where Qwen's entry for the file is fresh and
stays fresh; everywhere else Qwen reads, and symbolpack keeps what it showed.

Sessions: `qwen-<session_id>` (plus `-<agent_id>` when a payload names one). Nothing is
imported here: a hook process pays only for the modules its hook uses.
"""
