"""`python -m symbolpack.cli`: the same as `tldrs`."""

import sys

from .main import main

sys.exit(main())
