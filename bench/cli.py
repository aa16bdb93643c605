"""The command line of a benchmark module: `--help` prints the module's docstring, so that no
module starts a long measurement when asked what it does."""

from __future__ import annotations

import argparse


def parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """An argument parser for `python -m <prog>` that shows `doc` as its description."""
    return argparse.ArgumentParser(prog=f"python -m {prog}", description=doc,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
