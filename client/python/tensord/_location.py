"""Where a recorded op came from: the first stack frame outside this package.

Each op records the user's file and line, so that errors (at record time and from the daemon)
point at the line that recorded the failing op rather than at the sync point.
"""
import os
import sys

from . import _tensord

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

# Interns (file, line) pairs for the C++ client, which keeps raw pointers to them in nodes.
_table = _tensord.LocationTable()
# A memo in front of it, keyed by code object and instruction: cheaper than passing the file
# name.
_memo = {}


def caller():
    """The C++ client location of the innermost frame outside the tensord package."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return _table.get("<unknown>", 0)
    # The instruction offset, not f_lineno: computing a line number walks the line table, which
    # was a tenth of the cost of recording an op.
    key = (frame.f_code, frame.f_lasti)
    loc = _memo.get(key)
    if loc is None:
        loc = _memo[key] = _table.get(frame.f_code.co_filename, frame.f_lineno)
    return loc
