"""What every front end calls: the operations over one workspace.

* `operations`  `Workspace`, `read_file`, `refresh`, `status`
* `context`     `context_pack`, `diff_context`, `PackResult`
* `resident`    the resident engine of a long-lived server (the MCP server):
                symbols and call graph kept warm between calls

The public names are re-exported lazily by `symbolpack/__init__.py`.
"""
