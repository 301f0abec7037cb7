"""symbolpack inside Chibi (`tldrs chibi plugin`, `tldrs chibi lang LANGUAGE`): `plugin`
(schema, hooks, entry point), `tools` (its tools and the delivery check), `guard` (the
stale-edit guard and carried edits), `state` (Chibi home, state dir, sessions of
contexts), `lang` (language plugins), `install` (`tldrs install|uninstall chibi` and its
part of `tldrs doctor`).
"""
