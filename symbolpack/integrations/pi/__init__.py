"""symbolpack inside pi: `symbolpack.ts` (the extension pi loads; package data, not
Python) and `install` (`tldrs install|uninstall pi` and its part of `tldrs doctor`).
"""
