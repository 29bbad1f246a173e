"""Containers: SequentialCell, CellList, CellDict."""
from collections import OrderedDict

from ..._validator import check_type
from ..cell import Cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


class _IndexedCells(Cell):
    """Children numbered by position ('0', '1', ...), renumbered when the list changes."""

    def __init__(self, cells=()):
        super().__init__()
        for c in cells:
            self._append(c)

    def _items(self):
        return list(self._cells.values())

    def _renumber(self, cells):
        for name in list(self._cells):
            del self.__dict__[name]
        self._cells.clear()
        for c in cells:
            self._append(c)

    def _append(self, cell):
        setattr(self, str(len(self._cells)), check_type(cell, Cell, "cell", type(self).__name__))

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._items())

    def _index(self, index):
        n = len(self._cells)
        if not -n <= index < n:
            raise IndexError(f"For '{type(self).__name__}', index {index} is out of range "
                             f"for {n} cells")
        return index % n

    def __setitem__(self, index, cell):
        items = self._items()
        items[self._index(index)] = check_type(cell, Cell, "cell", type(self).__name__)
        self._renumber(items)

    def __delitem__(self, index):
        items = self._items()
        if isinstance(index, slice):
            del items[index]
        else:
            del items[self._index(index)]
        self._renumber(items)

    def append(self, cell):
        """Add `cell` at the end."""
        self._append(cell)
        return self

    def insert(self, index, cell):
        """Insert `cell` before position `index` (children are renumbered)."""
        items = self._items()
        items.insert(index, check_type(cell, Cell, "cell", type(self).__name__))
        self._renumber(items)

    def extend(self, cells):
        for c in cells:
            self._append(c)
        return self


class SequentialCell(Cell):
    """Cells applied in order: `SequentialCell(c1, c2)`, `SequentialCell([c1, c2])` or
    `SequentialCell(OrderedDict(name=cell))` (children named by position or by key)."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (OrderedDict, dict)):
            for name, cell in args[0].items():
                setattr(self, name, check_type(cell, Cell, "cell", "SequentialCell"))
        else:
            cells = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
            for k, cell in enumerate(cells):
                setattr(self, str(k), check_type(cell, Cell, "cell", "SequentialCell"))

    def __getitem__(self, index):
        items = list(self._cells.items())
        if isinstance(index, slice):
            return SequentialCell(OrderedDict(items[index]) if not all(
                n.isdigit() for n, _ in items) else [c for _, c in items[index]])
        n = len(items)
        if not -n <= index < n:
            raise IndexError(f"For 'SequentialCell', index {index} is out of range for {n} cells")
        return items[index % n][1]

    def __setitem__(self, index, cell):
        name = list(self._cells)[index]
        setattr(self, name, check_type(cell, Cell, "cell", "SequentialCell"))

    def __delitem__(self, index):
        names = list(self._cells)
        for name in (names[index] if isinstance(index, slice) else [names[index]]):
            delattr(self, name)
        cells = list(self._cells.values())
        if all(n.isdigit() for n in names):
            for name in list(self._cells):
                del self.__dict__[name]
            self._cells.clear()
            for k, c in enumerate(cells):
                setattr(self, str(k), c)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    def append(self, cell):
        """Add `cell` at the end (named by its position)."""
        setattr(self, str(len(self._cells)), check_type(cell, Cell, "cell", "SequentialCell"))
        return self

    def insert(self, index, cell):
        cells = list(self._cells.values())
        cells.insert(index, check_type(cell, Cell, "cell", "SequentialCell"))
        for name in list(self._cells):
            del self.__dict__[name]
        self._cells.clear()
        for k, c in enumerate(cells):
            setattr(self, str(k), c)

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_IndexedCells):
    """A list of Cells (numbered by position) that registers them; it has no construct."""

    _vmap_per_cell = True  # `vmap` runs its cells, one per slice of the mapped axis

    def __init__(self, *args, **kwargs):
        cells = args[0] if args else kwargs.get("cells", ())
        super().__init__(cells or ())

    def __getitem__(self, index):
        items = self._items()
        if isinstance(index, slice):
            return CellList(items[index])
        return items[self._index(index)]

    def construct(self, *inputs):
        raise NotImplementedError("CellList is a container: call its cells, not the list")


class CellDict(Cell):
    """An ordered mapping of names to Cells that registers them; it has no construct."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        cells = args[0] if args else kwargs.get("cells")
        if cells:
            self.update(cells)

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        check_type(key, str, "key", "CellDict")
        setattr(self, key, check_type(cell, Cell, "cell", "CellDict"))

    def __delitem__(self, key):
        delattr(self, key)

    def __contains__(self, key):
        return key in self._cells

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def pop(self, key):
        cell = self._cells[key]
        delattr(self, key)
        return cell

    def clear(self):
        for key in list(self._cells):
            delattr(self, key)

    def update(self, cells):
        items = cells.items() if hasattr(cells, "items") else cells
        for key, cell in items:
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError("CellDict is a container: call its cells, not the dict")
