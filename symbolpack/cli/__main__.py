"""`python -m symbolpack.cli`: the same as `tldrs`."""

import sys

from . import main

sys.exit(main())
