"""symbolpack in OpenCode: a plugin that answers OpenCode's `read` through `tldrs read`.

OpenCode (npm `opencode-ai`) loads every `plugin/*.{ts,js}` of its config folders at
start-up: `.opencode/` from the working folder up to the repository's root, and
`~/.config/opencode/` (`$XDG_CONFIG_HOME/opencode`). `symbolpack.ts` here is that
plugin, shipped as package data (not Python); `install.py` writes it there, takes it
out again and is OpenCode's part of `tldrs doctor`.

Design (the plugin's header says the same, closer to the code):

* OpenCode's own `read` always runs first; the plugin's `tool.execute.after` replaces
  a text file's output with symbolpack's answer (`--front opencode`: markers name
  `offset`/`limit`, OpenCode's read has no symbol parameter). Everything else --
  permissions, images and PDFs, directories, a missing file, truncation -- stays
  OpenCode's, and so does any read symbolpack cannot answer (fail open). A custom
  `read` tool would replace OpenCode's instead, so a failing plugin would fail the read.
* The present set is exact: `experimental.chat.messages.transform` receives the very
  messages OpenCode sends the model next (its ids, tool parts with their `callID`,
  output and stored metadata; a result pruned by compaction is marked there and sent
  as `[Old tool result content cleared]`). An answer counts while its part is there
  with the output whose sha256 its metadata recorded. Compaction, revert, fork (a
  fork's parts keep the call ids and metadata) need no special case.
* Anything the model was shown of a file that no kept answer describes -- OpenCode's
  own read of it, a result another plugin rewrote, an own edit symbolpack could not
  keep, a file the user attached -- is a barrier: answers about it before count for
  nothing. (pi's extension ignores its own plain reads; a plain read shows lines at a
  moment no answer records, so here it ends what earlier answers vouch for.)
* The model's own `edit`, `write` and `apply_patch` are kept as answers with
  `tldrs session edit` (Claude Code's Edit semantics for `edit`, one edit per patch
  chunk; a patch that moves or deletes a file, or adds at its end, is not kept).
* OpenCode runs the calls of one assistant message concurrently, in the order the
  model wrote them: a call on a file is answered only when the message's earlier calls
  on it had finished before it began and none began while it ran; then it leans on
  them too. Otherwise its output stays OpenCode's, unkept, a barrier.
"""
