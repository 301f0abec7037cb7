"""What lives on disk between processes: sessions and repositories.

* `store`         sessions, baselines (objects), commit markers, locking, GC
* `sessionstore`  one session on disk: its document and one record per file
* `session_id`    the session id ladder: explicit, env, agent process, terminal
* `git`           git plumbing: `run_git`, blobs through one `cat-file --batch`
* `snapshot`      the files of one tree (the working tree or a commit), read lazily

Stands on `base`, `engine` and `reads` (a session stores agent copies).
"""
