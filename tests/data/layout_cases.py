"""Layout cases for MindSpore's or minispore's module (`ms`): make_layout.py records MindSpore
2.10's answers in layout.json; tests/test_parallel.py compares minispore's."""
import json


def _try(fn):
    try:
        return json.loads(json.dumps(fn()))  # tuples as lists, as the fixture holds them
    except Exception as e:  # noqa: BLE001  (the case records which type)
        return type(e).__name__


CALLS = [
    "Layout((2, 2, 2), ('dp', 'sp', 'mp'))('dp', 'mp')",
    "Layout((2, 2, 2), ('dp', 'sp', 'mp'))(('dp', 'sp'), 'None')",
    "Layout((2, 2, 2), ('dp', 'sp', 'interleaved_parallel'))(('dp', 'interleaved_parallel'), 'sp')",
    "Layout((4, 2), ('dp', 'mp'), rank_list=[7, 6, 5, 4, 3, 2, 1, 0])('mp', 'dp')",
    "Layout((4, 2), ('dp', 'mp'))",
    "Layout([2, 2], ('dp', 'mp'))('dp', 'mp')",
    "Layout((2, 2), ['dp', 'mp'])('dp', 'mp')",
    "Layout((2, 2), ('dp',))('dp')",
    "Layout((2, 2.0), ('dp', 'mp'))('dp')",
    "Layout((2, 2), ('dp', 3))('dp')",
    "Layout((2, 2), ('dp', ''))('dp')",
    "Layout((2, 2), ('dp', 'None'))('dp')",
    "Layout((2, 2), ('dp', 'dp'))('dp')",
    "Layout((2, 2), ('interleaved_parallel', 'dp'))('dp')",
    "Layout((2, 2), ('dp', 'mp'), rank_list=(0, 1, 2, 3))('dp')",
    "Layout((2, 2), ('dp', 'mp'), rank_list=[0, 1, 2])('dp')",
    "Layout((2, 2), ('dp', 'mp'), rank_list=[0, 1, 2, '3'])('dp')",
    "Layout((2, 2), ('dp', 'mp'))('xp')",
    "Layout((2, 2), ('dp', 'mp'))('dp', 'dp')",
    "Layout((2, 2), ('dp', 'mp'))(('dp', 'mp'), 'dp')",
]


def run_all(ms):
    return {call: _try(lambda c=call: eval(c, {"Layout": ms.Layout}).to_dict())  # noqa: S307
            for call in CALLS}
