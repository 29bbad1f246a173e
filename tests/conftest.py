import os

from hypothesis import HealthCheck, settings

# `ci`: derandomised and bounded, for .ci/run; `thorough`: many more examples, for local runs.
settings.register_profile("ci", derandomize=True, max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow,
                                                 HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=500, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# MINISPORE_TEST_MODE=graph runs the tests with set_context(mode=GRAPH_MODE) around each one, so
# every outermost Cell call goes through graph capture and replay (.ci/run runs the nn, model and
# training tests a second time so).
if os.environ.get("MINISPORE_TEST_MODE") == "graph":
    import pytest

    import minispore as ms

    @pytest.fixture(autouse=True)
    def _graph_mode():
        ms.set_context(mode=ms.GRAPH_MODE)
        yield
        ms.set_context(mode=ms.PYNATIVE_MODE)
