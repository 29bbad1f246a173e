"""docs/api_gaps.md lists every public name of MindSpore 2.10 (as `minispore/_mindspore_names.py`
records them) that minispore does not have, with the reason; this test keeps the list true: a
missing name that is not listed fails, and so does a listed name that minispore now has."""
import importlib
import pathlib
import re

import pytest

from minispore._mindspore_names import NAMES

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "api_gaps.md"
ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*(.+?)\s*\|\s*$")


def _listed():
    listed, module = {}, None
    for line in DOC.read_text().splitlines():
        if line.startswith("## "):
            module = line[3:].strip().strip("`")
            listed[module] = {}
            continue
        m = ROW.match(line)
        if m and module is not None:
            for name in m.group(1).split("`, `"):
                listed[module][name] = m.group(2)
    return listed


def _ours(module):
    """The minispore module (or class: Tensor, nn.Cell) answering to MindSpore's `module`;
    None if there is none, so that every name is missing."""
    path = "minispore" + module[len("mindspore"):]
    try:
        return importlib.import_module(path)
    except ImportError:
        parent, _, name = path.rpartition(".")
        try:
            return getattr(importlib.import_module(parent), name, None)
        except ImportError:
            return None


LISTED = _listed()


@pytest.mark.parametrize("module", sorted(NAMES))
def test_every_missing_name_is_listed_with_a_reason(module):
    ours = _ours(module)
    missing = {n for n in NAMES[module].split() if not hasattr(ours, n)}
    listed = LISTED.get(module, {})
    unlisted = sorted(missing - set(listed))
    assert not unlisted, f"{module}: missing and not in docs/api_gaps.md: {unlisted}"
    stale = sorted(set(listed) - missing)
    assert not stale, f"{module}: listed in docs/api_gaps.md but present now: {stale}"
    assert all(reason for reason in listed.values())
