"""The reliability figures of the README, produced by running the tests (not typed by hand).

Runs tests/ops/test_primitives.py (the registry-driven gradient checks) and tests/reliability/
(with HYPOTHESIS_PROFILE=ci), collects each test's outcome and the figures tests record with
pytest's `record_property`, then runs benchmarks/memory_soak.py for the soak figure, and prints
one line per promise of docs/reliability.md. Exits non-zero if any test failed.

Run: python benchmarks/reliability_figures.py [--soak-steps 2000] [--json figures.json]
"""
import argparse
import collections
import json
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)
os.environ.setdefault("HYPOTHESIS_PROFILE", "ci")

TESTS = ["tests/ops/test_primitives.py", "tests/reliability"]


class Collector:
    """pytest plugin: outcome and recorded properties of every test item."""

    def __init__(self):
        self.items = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            if report.nodeid in self.items and report.when == "teardown" and \
                    report.outcome == "passed":
                return
            outcome = report.outcome
            if report.when != "call" and outcome == "failed":
                outcome = "error"
            self.items[report.nodeid] = (outcome, dict(report.user_properties))


def run_tests(paths):
    import pytest
    collector = Collector()
    code = pytest.main(["-q", "-p", "no:cacheprovider", "--no-header", "-rN", *paths],
                       plugins=[collector])
    return collector.items, code


def _param(nodeid):
    m = re.search(r"\[(.*)\]$", nodeid)
    return m.group(1) if m else None


def select(items, file, test):
    """{parameter id: (outcome, properties)} of one (parametrized) test function."""
    prefix = f"{file}::{test}"
    return {(_param(k) or ""): v for k, v in items.items()
            if k == prefix or k.startswith(prefix + "[")}


def count(results, outcome="passed"):
    return sum(1 for o, _ in results.values() if o == outcome)


def figures(items, soak):
    from minispore.ops.primitive import PRIMITIVES
    from tests.ops import specs_nn  # noqa: F401
    from tests.ops.specs import SPECS

    f = collections.OrderedDict()
    rel = "tests/reliability/"
    by_name = {s.name: s for s in SPECS}
    diff = [n for n, s in by_name.items() if s.order and PRIMITIVES[n].differentiable]
    prim = select(items, "tests/ops/test_primitives.py", "test_primitive")
    ok = {n for n, (o, _) in prim.items() if o == "passed"}
    f["registered primitives"] = len(PRIMITIVES)
    f["primitives with a gradient"] = len(diff)
    f["gradchecked order 1 (float64)"] = sum(n in ok for n in diff)
    f["gradchecked order 2 (float64)"] = sum(n in ok and by_name[n].order >= 2 for n in diff)
    f["forward-only primitives checked against NumPy"] = sum(
        n in ok for n in by_name if n not in diff)

    def pass_count(test):
        r = select(items, rel + "test_gradients.py", test)
        return count(r), count(r, "failed"), r

    empty, empty_failed, r_empty = pass_count("test_empty_shapes")
    fixed = select(items, rel + "test_gradients.py",
                   "test_empty_shapes_of_fixed_geometry_primitives")
    fixed_names = {k.rsplit("-", 1)[0] for k, (o, _) in fixed.items() if o == "passed"}
    drawn = {k for k, (o, _) in r_empty.items() if o == "passed"}
    refused = sum("refused" in p.get("pass_result", ()) for o, p in r_empty.values())
    f["empty-shape pass (primitives)"] = len(drawn | fixed_names)
    f["  of which refuse as undefined, by name"] = refused
    f["0-d pass (primitives)"] = pass_count("test_zero_d_shapes")[0]
    f["float32 vs float64 truth (primitives)"] = pass_count(
        "test_float32_against_float64_truth")[0]
    f["kink and tie conventions holding"] = count(
        select(items, rel + "test_gradients.py",
               "test_kinks_and_ties_follow_the_documented_convention"))

    inplace = select(items, rel + "test_inplace.py", "test_in_place_write_is_exact_or_loud")
    f["in-place scenarios"] = len(inplace)
    f["  loud"] = sum(p.get("outcome") == "loud" for _, p in inplace.values())
    f["  exact"] = sum(p.get("outcome") == "exact" for _, p in inplace.values())
    f["  silently wrong gradients or missed errors"] = len(inplace) - count(inplace)

    views = select(items, rel + "test_views.py",
                   "test_a_write_after_a_view_was_saved_is_exact_or_loud")
    f["writes into a saved Parameter's views (views x writes)"] = len(views)
    f["  loud (the saved view shares the written memory)"] = sum(
        p.get("outcome") == "loud" for _, p in views.values())
    f["  exact (the saved value is a copy)"] = sum(
        p.get("outcome") == "exact" for _, p in views.values())
    f["  silently wrong or missed"] = len(views) - count(views)
    for label, file in (
            ("view/write programs and write-through tests passed", "test_views.py"),
            ("float16 reductions and losses past 65,504 elements", "test_float16_reductions.py"),
            ("special files refused (FIFO, devices, loops, escapes)", "test_special_files.py"),
            ("prod/cumprod derivatives at zeros, orders 1-3", "test_reliability_prod.py"),
            ("initializer memory and conv_transpose output_padding",
             "test_reliability_init_conv.py")):
        tests = {k: v for k, v in items.items() if k.startswith(rel + file)}
        f[label] = f"{count(tests)} of {len(tests)}" if tests else "not present"

    bad = select(items, rel + "test_bad_input.py", "test_bad_input")
    f["bad-input cases"] = len(bad)
    f["  crashes, deferred errors or state changes"] = len(bad) - count(bad)

    alive = select(items, rel + "test_memory.py", "test_nothing_of_a_call_survives_it")
    f["calls whose intermediates all die (weakref)"] = f"{count(alive)} of {len(alive)}"
    short = select(items, rel + "test_memory.py", "test_short_soak_is_flat")
    for _, props in short.values():
        if "traced_bytes_per_step" in props:
            f["short soak, traced bytes per step"] = round(props["traced_bytes_per_step"], 2)
    if soak is not None:
        if "rss_kb_per_step" in soak:
            f[f"soak RSS growth, steps {soak['from_step']}-{soak['steps']} (KB/step)"] = round(
                soak["rss_kb_per_step"], 3)
            f["soak RSS growth in total (KiB)"] = soak["rss_growth_kib"]
        f["soak live Tensors (start -> end)"] = \
            f"{soak['tensors_at_start']} -> {soak['tensors_at_end']}"

    threads = select(items, rel + "test_threads.py",
                     "test_two_threads_compute_different_gradients_exactly")
    for o, props in threads.values():
        if o == "passed":
            f["concurrent gradient calls, all exact"] = \
                f"{props['threads']} threads x {props['calls_per_thread']}"
    infer = select(items, rel + "test_threads.py", "test_inference_beside_training_is_safe")
    for o, props in infer.values():
        if o == "passed":
            f["inference calls beside training (training bitwise unchanged)"] = \
                props["inference_calls"]
    all_threads = {k: v for k, v in items.items() if k.startswith(rel + "test_threads.py")}
    f["thread tests passed"] = f"{count(all_threads)} of {len(all_threads)}"

    stable = select(items, rel + "test_numerics.py",
                    "test_finite_values_and_gradients_at_huge_logits_and_masks")
    f["stable functions x dtypes finite at +-1e4 and -inf masks"] = \
        f"{count(stable)} of {len(stable)}"
    quiet = select(items, rel + "test_numerics.py", "test_no_numpy_warning_at_extreme_values")
    f["primitives with no NumPy warning at inf/nan/overflow"] = f"{count(quiet)} of {len(quiet)}"
    anomaly = {k: v for k, v in items.items() if "test_numerics.py::test_anomaly" in k}
    f["anomaly-mode tests passed"] = f"{count(anomaly)} of {len(anomaly)}"

    for name, file in (("checkpoint", "test_hostile_checkpoints.py"),
                       ("dataset", "test_hostile_dataset_files.py")):
        tests = {k: v for k, v in items.items() if k.startswith(rel + file)}
        if tests:
            refused = sum(p.get("files_refused", 0) for _, p in tests.values())
            f[f"hostile {name} file tests passed"] = f"{count(tests)} of {len(tests)}" + (
                f" ({refused} files refused)" if refused else "")
        else:
            f[f"hostile {name} file tests"] = "not present"

    same = select(items, rel + "test_determinism.py",
                  "test_two_runs_with_the_same_seed_are_bitwise_equal")
    for o, props in same.values():
        if o == "passed":
            f["training steps bitwise equal across runs (dropout, shuffles)"] = \
                props["steps_bitwise_equal"]
    streams = select(items, rel + "test_determinism.py", "test_set_seed_resets_every_stream")
    f["random streams reset by set_seed"] = f"{count(streams)} of {len(streams)}"
    return f


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--soak-steps", type=int, default=2000,
                        help="steps of benchmarks/memory_soak.py (0: skip it)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    os.chdir(ROOT)
    items, code = run_tests(TESTS)
    soak = None
    if args.soak_steps:
        sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
        import memory_soak
        soak = memory_soak.soak(args.soak_steps, min(200, args.soak_steps // 2))
    table = figures(items, soak)
    print("\nminispore reliability figures (from the tests, HYPOTHESIS_PROFILE="
          f"{os.environ['HYPOTHESIS_PROFILE']})")
    width = max(len(k) for k in table)
    for key, value in table.items():
        print(f"  {key:{width}s}  {value}")
    failed = sorted(k for k, (o, _) in items.items() if o in ("failed", "error"))
    print(f"  {'tests run':{width}s}  {len(items)} ({len(failed)} failed)")
    for k in failed:
        print(f"    FAILED {k}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(table, fh, indent=2)
    return 1 if failed or code not in (0, 5) else 0


if __name__ == "__main__":
    sys.exit(main())
