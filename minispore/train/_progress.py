"""Progress bars for `Model.train` / `eval`: tqdm (the optional `progress` extra), only when
standard output is a terminal; lines printed meanwhile (LossMonitor, TimeMonitor, user prints)
go above the bar instead of through it. `MINISPORE_PROGRESS=0` turns the bars off."""
import os
import sys


def _tqdm_class():
    """tqdm's class when a bar should be shown, else None."""
    if os.environ.get("MINISPORE_PROGRESS", "1") == "0":
        return None
    isatty = getattr(sys.stdout, "isatty", None)
    try:
        if isatty is None or not isatty():
            return None
    except (ValueError, OSError):  # a closed or detached stream
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class _LinesAboveBar:
    """A stdout stand-in: complete lines are written with `tqdm.write` (which clears the bar,
    writes the line and redraws the bar); a partial line waits for its newline."""

    def __init__(self, tqdm, stream):
        self._tqdm = tqdm
        self._stream = stream
        self._pending = ""

    def write(self, text):
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        for line in lines:
            self._tqdm.write(line, file=self._stream)
        return len(text)

    def flush(self):
        self._stream.flush()

    def finish(self):
        if self._pending:
            self._tqdm.write(self._pending, file=self._stream)
            self._pending = ""

    def __getattr__(self, name):  # isatty, fileno, encoding, ... of the real stream
        return getattr(self._stream, name)


class ProgressBar:
    """One bar over `total` steps (a no-op when no bar should be shown). While it is open,
    `sys.stdout` prints above it; `close()` puts `sys.stdout` back.

    Args:
        total (int): steps in the loop.
        desc (str): label on the left of the bar.
    """

    def __init__(self, total, desc):
        self._bar = None
        tqdm = _tqdm_class()
        if tqdm is None:
            return
        self._stream = sys.stdout
        self._bar = tqdm(total=total, desc=desc, file=self._stream, leave=False,
                         dynamic_ncols=True, unit="step")
        self._redirect = _LinesAboveBar(tqdm, self._stream)
        sys.stdout = self._redirect

    @property
    def active(self):
        """Whether a bar is shown."""
        return self._bar is not None

    def update(self, loss=None):
        """Advance one step; `loss` (a float) is shown next to the bar."""
        if self._bar is None:
            return
        if loss is not None:
            self._bar.set_postfix(loss=f"{loss:.4g}", refresh=False)
        self._bar.update(1)

    def close(self):
        """Remove the bar and restore `sys.stdout`."""
        if self._bar is None:
            return
        bar, self._bar = self._bar, None
        if sys.stdout is self._redirect:
            sys.stdout = self._stream
        self._redirect.finish()
        bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *err):
        self.close()
