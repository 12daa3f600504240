"""Torch's thread count: :func:`training.threads.set_torch_threads` checks its argument and sets
torch's threads; ``--threads`` of ``training.evaluate``, ``training.play`` and the play room parses,
refuses what is not a count >= 1, and is applied before any game."""

from __future__ import annotations

import sys
import threading

import pytest

torch = pytest.importorskip("torch")

from training.threads import DEFAULT_THREADS, set_torch_threads  # noqa: E402


@pytest.fixture(autouse=True)
def _keep_torch_threads():
    """Give the process its thread count back after each test (other tests time or seed by it)."""
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def _other_than(n: int) -> int:
    """A thread count other than ``n`` (so that a test sees a change)."""
    return 2 if n == 1 else 1


@pytest.mark.parametrize("n", [1, 3])
def test_set_torch_threads_sets_the_count_and_may_be_called_twice(n):
    torch.set_num_threads(_other_than(n))
    assert set_torch_threads(n) is True
    assert torch.get_num_threads() == n
    assert set_torch_threads(n) is True  # the inter-op pool can be sized once: a second call is no error
    assert torch.get_num_threads() == n
    assert torch.get_num_interop_threads() >= 1


def test_the_count_holds_in_threads_started_later():
    """The room's agents think in worker threads: they see the process's setting."""
    set_torch_threads(_other_than(torch.get_num_threads()))
    wanted = torch.get_num_threads()
    seen = []
    worker = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
    worker.start()
    worker.join()
    assert seen == [wanted]


@pytest.mark.parametrize(
    "bad, error, text",
    [
        (0, ValueError, "got 0"),
        (-1, ValueError, "got -1"),
        (True, TypeError, "got True (bool)"),
        ("2", TypeError, "got '2' (str)"),
        (1.0, TypeError, "got 1.0 (float)"),
        (None, TypeError, "got None (NoneType)"),
    ],
)
def test_set_torch_threads_refuses_what_is_not_a_count(bad, error, text):
    before = torch.get_num_threads()
    with pytest.raises(error, match="torch's thread count must be an integer >= 1") as info:
        set_torch_threads(bad)
    assert text in str(info.value)
    assert torch.get_num_threads() == before


def test_without_torch_missing_ok_sets_nothing(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # what an uninstalled module looks like to import
    assert set_torch_threads(1, missing_ok=True) is False
    with pytest.raises(ModuleNotFoundError):
        set_torch_threads(1)
    with pytest.raises(ValueError):  # the count is checked first, torch or not
        set_torch_threads(0, missing_ok=True)


# --------------------------------------------------------------------------- the commands' option
def _evaluate_parser():
    from training.evaluate import _parser

    return _parser(), ["ataxx_v0", "--agents", "random", "greedy", "--games", "1"]


def _play_parser():
    from training.play import _parser

    return _parser(), ["ataxx_v0", "--opponent", "random"]


def _room_parser():
    from room.cli import _parser

    return _parser(), []


PARSERS = [_evaluate_parser, _play_parser, _room_parser]


@pytest.mark.parametrize("make", PARSERS)
def test_threads_option_parses_with_default_one(make):
    parser, args = make()
    assert parser.parse_args(args).threads == DEFAULT_THREADS == 1
    assert parser.parse_args([*args, "--threads", "3"]).threads == 3
    assert "--threads N" in parser.format_help()


@pytest.mark.parametrize("make", PARSERS)
@pytest.mark.parametrize("bad, shown", [("0", "0"), ("-1", "-1"), ("x", "'x'"), ("1.5", "'1.5'"), ("", "''")])
def test_threads_option_refuses_what_is_not_a_count(make, bad, shown, capsys):
    parser, args = make()
    with pytest.raises(SystemExit) as info:
        parser.parse_args([*args, f"--threads={bad}"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --threads: expected a thread count, an integer >= 1, got {shown}" in err, err


def test_evaluate_sets_the_threads_before_the_games(tmp_path, monkeypatch):
    import training.evaluate as ev

    seen = []
    real = ev.run_tournament

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real(*args, **kwargs)

    monkeypatch.setattr(ev, "run_tournament", spy)
    for n in (2, None):  # None: the option left out, the default 1
        torch.set_num_threads(3)
        option = [] if n is None else ["--threads", str(n)]
        args = "ataxx_v0 --agents random random --games 1 --seed 0 --max-steps 4 --no-progress".split()
        assert ev.main([*args, "--out", str(tmp_path / f"out{n}"), *option]) == 0
    assert seen == [2, 1]


def test_play_sets_the_threads_before_the_game(monkeypatch):
    import training.play as play

    seen = []
    monkeypatch.setattr(play, "play", lambda *a, **k: seen.append(torch.get_num_threads()))
    for n in (2, None):
        torch.set_num_threads(3)
        option = [] if n is None else ["--threads", str(n)]
        assert play.main(["ataxx_v0", "--opponent", "random", *option]) == 0
    assert seen == [2, 1]


def test_the_room_sets_the_threads_before_serving(tmp_path, monkeypatch):
    pytest.importorskip("starlette")
    import uvicorn

    from room.cli import main

    seen = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: seen.append(torch.get_num_threads()))
    for n in (2, None):
        torch.set_num_threads(3)
        option = [] if n is None else ["--threads", str(n)]
        assert main(["--port", "0", "--records", str(tmp_path / "r"), *option]) == 0
    assert seen == [2, 1]
