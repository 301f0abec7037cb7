"""Qwen Code hooks: `read_file` answered with fewer tokens, Qwen's own read state untouched.

`tldrs install qwen [--global]` writes three command hooks into `.qwen/settings.json`
(`settings.py`); Qwen runs `python -m symbolpack.integrations.qwen NAME` (or `tldrs
qwen-hook NAME`) with the payload on stdin (`runner.py`).

| module | one idea |
| --- | --- |
| `payload.py` | a hook payload checked once; the file's fingerprint as a read starts |
| `transcript.py` | the session's transcript, parsed incrementally: the active chain, its tool results, barriers |
| `present.py` | which answers about a file the model holds (the chain, less what microcompaction may have blanked) |
| `hooks.py` | the hooks: pre-read (a note), post-read (the answer in place of Qwen's output), post-edit |
| `runner.py` | the hooks by name, one run, the process entry |
| `settings.py` | what install writes into Qwen's settings and takes out again, byte for byte |
| `doctor.py` | Qwen's part of `tldrs doctor`: what is installed, each hook run on a probe |

The design rule (`hooks.py` says it in full, with the Qwen code it rests on): Qwen
refuses to edit a file its own `read_file` did not read in the running process, or
that changed since it read or wrote it, and only that tool's run records a read. So
Qwen's read always runs; a `PostToolUse` hook answering `continue: false` then puts
symbolpack's answer (the stop's reason) in place of the output, where the file is
still what Qwen read and the answer is smaller.

Sessions: `qwen-<session_id>` (plus `-<agent_id>` when a payload names one). Nothing is
imported here: a hook process pays only for the modules its hook uses.
"""
