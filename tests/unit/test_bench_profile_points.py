"""The step profile's timer wraps functions by name (benchmarks/bench_profile.py): each must still
exist where it is looked up, or the profile breaks unseen when the code moves."""

from __future__ import annotations

from benchmarks.bench_profile import NestedTimer, instrument


def test_every_function_the_step_profile_times_is_found_and_put_back():
    from pytest_cometlocal.executor.step import observer

    original = observer.take_look
    timer = NestedTimer()
    instrument(timer)  # raises AttributeError for a name that moved
    try:
        assert observer.take_look is not original and len(timer._undo) > 20
    finally:
        timer.undo()
    assert observer.take_look is original
