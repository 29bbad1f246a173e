"""The package's imports, read statically: no import circle, no import pointing up the layers, and
no import of a minispore module placed inside a function (where it would only hide a circle).

The layer order is written once, here. A module belongs to the layer of the longest name below
that is its name or a package above it; every module must belong to one.
"""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent / "minispore"

# Lowest first. Package facades (an `__init__` re-exporting what lies below it) sit as high as the
# highest module they re-export.
LAYERS = [
    ("core: dtype, Tensor, Parameter, seeds, the write clock, context, argument checks",
     ["minispore._quiet", "minispore._validator", "minispore._missing",
      "minispore._mindspore_names", "minispore._version", "minispore._allocator",
      "minispore.context",
      "minispore.common.dtype",
      "minispore.common._views", "minispore.common._files",
      "minispore.common.tensor", "minispore.common._writes", "minispore.common.seed",
      "minispore.common.initializer", "minispore.common.parameter", "minispore.common.device",
      "minispore._memory",
      "minispore._affinity", "minispore.runtime", "minispore.log",
      "minispore.communication._backend", "minispore.communication.management"]),
    ("primitives and recording",
     ["minispore._autodiff.tape", "minispore.ops.primitive", "minispore.ops.operations."]),
    ("autodiff transforms", ["minispore._autodiff"]),
    ("functional ops and the ops facades", ["minispore.ops", "minispore.communication"]),
    ("graph capture and replay", ["minispore._jit"]),
    ("nn", ["minispore.nn"]),
    ("training, data, mixed precision",
     ["minispore.amp", "minispore.train", "minispore.dataset", "minispore.experimental",
      "minispore.testing", "minispore.mindrecord", "minispore.profiler", "minispore.parallel"]),
    ("jit and the top-level facades",
     ["minispore.common.api", "minispore.common", "minispore", "minispore.examples",
      "minispore.numpy", "minispore.run"]),
]


def _layer_of(module):
    best, best_len = None, -1
    for level, (_, names) in enumerate(LAYERS):
        for name in names:
            if name.endswith("."):
                hit = module.startswith(name)
            else:
                hit = module == name or module.startswith(name + ".")
            if hit and len(name) > best_len:
                best, best_len = level, len(name)
    return best


def _modules():
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _target(module, is_package, node, alias):
    """The minispore module an import statement's `alias` names, or None."""
    if isinstance(node, ast.Import):
        name = alias.name
    else:
        base = module if is_package else module.rpartition(".")[0]
        if node.level:
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            name = base + ("." + node.module if node.module else "")
        else:
            name = node.module
        if f"{name}.{alias.name}" in MODULES:  # `from package import module`
            name = f"{name}.{alias.name}"
    while name not in MODULES and "." in name:
        name = name.rpartition(".")[0]
    return name if name in MODULES else None


def _imports():
    """(importer, imported, line, inside a function) for every import of a minispore module."""
    found = []
    for module, path in MODULES.items():
        is_package = path.name == "__init__.py"

        def visit(node, in_function):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)):
                    for alias in child.names:
                        target = _target(module, is_package, child, alias)
                        if target is not None and target != module:
                            found.append((module, target, child.lineno, in_function))
                else:
                    visit(child, in_function or isinstance(
                        child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))

        visit(ast.parse(path.read_text(), str(path)), False)
    return found


IMPORTS = _imports()


def _circles(edges):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, on_stack, stack, result, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        result.append(sorted(component))
    return result


def test_every_module_has_a_layer():
    assert [m for m in MODULES if _layer_of(m) is None] == []


def test_no_import_circle():
    assert _circles([(a, b) for a, b, _, _ in IMPORTS]) == []


def test_no_upward_import():
    upward = [f"{a}:{line} imports {b} ({LAYERS[_layer_of(b)][0]})"
              for a, b, line, _ in IMPORTS if _layer_of(b) > _layer_of(a)]
    assert upward == []


def test_no_minispore_import_inside_a_function():
    # Optional dependencies (PIL, safetensors, tqdm...) may be imported where they are used.
    assert [f"{a}:{line} imports {b}" for a, b, line, inside in IMPORTS if inside] == []


@pytest.mark.parametrize("edges, expected", [
    ([("a", "b"), ("b", "c")], []),
    ([("a", "b"), ("b", "a"), ("b", "c")], [["a", "b"]]),
    ([("a", "b"), ("b", "c"), ("c", "a"), ("d", "d")], [["a", "b", "c"]]),
])
def test_circle_finder(edges, expected):
    assert _circles(edges) == expected


def test_layer_lookup():
    assert _layer_of("minispore.ops.operations.math_ops") == 1
    assert _layer_of("minispore.ops.operations") == 3  # the facade
    assert _layer_of("minispore._autodiff.engine") == 2
    assert _layer_of("minispore.common.api") == 7
    assert _layer_of("minispore._jit.capture") == 4
    assert _layer_of("minispore.common.tensor") == 0
