"""The model's own edit kept as an answer, for hosts that name the answers in its context.

A host that says which answers the model still holds (`--present`, PROTOCOL.md
"Answers and present sets") must also say what the model's own edits did to its
copy: after an edit the model holds its earlier copy with that edit applied, its
lines moved by its own edit only. An answer computed against the copy before the
edit would vouch for lines where the model no longer has them ("your X-Y" one off).
So an own edit is an answer of its own, under the host's id for the edit call, and
the next read's present set names it after the reads it followed.

Shared by Claude Code's post-edit hook (`claude/edit_hooks.py`, the Edit's `tool_use_id`) and
`tldrs session edit` (pi's extension, its `edit`/`write` call ids): the effect itself
is `edits.edit_effect`; this module folds the present answers, decides what a write
or an unfollowable file means, and stores the result. Nothing here reads a hook
payload or a command line.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Sequence

    from ..engine.sources import Source
    from ..reads.answers import Effect
    from ..state.store import Store


def keep_own_edit(store: Store, rel: str, answer_id: str, present: Sequence[str], source: Source | None,
                  disk: list[str] | None, edits=None, whole: bool = False, together: bool = False) -> Effect:
    """Keep the model's own edit of *rel* as the answer *answer_id* and return its effect.

    *present*: the answers about *rel* in the model's context when the edit ran, in
    context order (the edit's own result not among them). *source*, *disk*: the file
    after the edit and its lines; None when it cannot be followed (gone, binary,
    sensitive, not what a write wrote): every line the model held is unknown from
    this edit on, in the contexts that hold it. *whole*: the model wrote the file
    whole (every line is its own, shown). Else *edits*, [(old, new, replace_all)],
    replayed on the fold of *present* (`edits.edit_effect`; *together*: pi's
    all-at-once matching)."""
    import time

    from ..reads.answers import GAP as FORGET, SHOW, Effect, fold, in_fold_order
    from .edits import edit_effect, ends_with_newline, loader

    seq = time.time_ns()
    if whole and source is not None and disk is not None:
        store.put_object(source.data, source.sha256)
        effect = Effect(answer_id, source.sha256, len(disk), ((1, len(disk), SHOW, None),) if disk else (), seq)
        store.add_answer(rel, effect)
        return effect
    load = loader(store, source.sha256, disk) if source is not None else loader(store)
    chosen = in_fold_order(present, store.answers(rel))
    copy = fold(chosen, load).copy
    # what it is made on: a fold without one of these is another copy, and the effect
    # then forgets the whole file (`answers.fold`)
    base = tuple(e.id for e in chosen if not e.always)
    if source is None or disk is None:
        effect = Effect(answer_id, None, None, ((1, max(copy.extent(), 1), FORGET, None),), seq, base=base)
        store.add_answer(rel, effect)
        return effect
    store.put_object(source.data, source.sha256)
    effect = edit_effect(answer_id, source.sha256, copy, load, edits if not copy.empty else None, disk,
                         ends_with_newline(copy, load), seq, together=together)
    effect.base = base
    store.add_answer(rel, effect)
    return effect


def record_own_edit(store: Store, root: str, path: str, answer_id: str, present: Sequence[str],
                    sensitive=(), edits=None, written: str | None = None, together: bool = False) -> str:
    """`tldrs session edit`: the file at *path* as it is after the model's edit, kept
    as the answer *answer_id* (`keep_own_edit`). *written*: the text a whole-file
    write wrote (checked against the file: anything else there is unknown). Returns
    the file's display path. A file that cannot be opened raises (`load_source`) and
    keeps nothing."""
    from ..engine.sources import load_source, split_text_lines

    source = load_source(path, root, sensitive)  # NotFound, SymbolpackError: nothing is kept
    rel = source.rel
    if source.passthrough:
        keep_own_edit(store, rel, answer_id, present, None, None)
        return rel
    disk = split_text_lines(source.text)
    if written is not None:
        if written != source.text:  # changed since the write: the model's copy is not the file's
            keep_own_edit(store, rel, answer_id, present, None, None)
        else:
            keep_own_edit(store, rel, answer_id, present, source, disk, whole=True)
        return rel
    keep_own_edit(store, rel, answer_id, present, source, disk, edits, together=together)
    return rel
