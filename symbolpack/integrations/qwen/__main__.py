"""`python -m symbolpack.integrations.qwen NAME`: one hook run (see `runner.py`)."""

from .runner import run_as_process

run_as_process()
