"""The README's Python examples run as written, each block alone in a fresh namespace (a reader
may copy any one of them); the Hypothesis tests they define are run too."""
import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i + 1}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs_alone(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # files a block writes land in a temporary folder
    namespace = {"__name__": "readme"}
    exec(compile(block, "README.md python block", "exec"), namespace)
    for name, f in list(namespace.items()):
        if name.startswith("test_") and callable(f):
            f()
