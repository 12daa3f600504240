"""Pieces shared by the games' JSON record modules (:mod:`envs.tantrix.records`,
:mod:`envs.smartrix.records`)."""

from __future__ import annotations

import json
from pathlib import Path

from envs.core.state import InvalidPositionError

__all__ = ["check_result", "write_json_record", "few", "is_int", "is_number"]


def few(xs: list) -> str:
    """``xs`` as text, the first 8 items only when there are more (for error messages)."""
    return str(xs) if len(xs) <= 8 else str(xs[:8])[:-1] + f", ... ({len(xs)} in all)]"


def is_int(x) -> bool:
    """An ``int`` that is not a ``bool`` (JSON ``true`` must not pass as 1)."""
    return isinstance(x, int) and not isinstance(x, bool)


def is_number(x) -> bool:
    """An ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def check_result(recorded: dict | None, state, keys: tuple[str, ...], moves: int) -> None:
    """Compare a record's stored ``result`` with the replayed ``state``.

    Args:
        recorded: the record's ``result`` (``None``: nothing to check).
        state: the state after replaying the record; its ``returns()`` and the methods named in
            ``keys`` other than ``"returns"`` (e.g. ``scores``, ``outcome``) give the replay's result.
        keys: the result's entries; only those present in ``recorded`` are compared.
        moves: how many moves were replayed (for the message).

    Raises:
        InvalidPositionError: the recorded result differs, or the game is not over.
    """
    if recorded is None:
        return
    got = None
    if state.is_terminal():
        got = {k: state.returns().tolist() if k == "returns" else getattr(state, k)() for k in keys}
        if got.get("outcome") is not None:  # an Outcome is stored as its text
            got["outcome"] = str(got["outcome"])
    if got is None or any(k in recorded and recorded[k] != got[k] for k in keys):
        replay = got if got is not None else f"the game is not over after {moves} moves"
        raise InvalidPositionError(f"the record's result {recorded} differs from the replay's ({replay})")


def write_json_record(state_or_record, path, state_class, record_from_state, check_record) -> None:
    """Write ``state_or_record`` (a ``state_class`` state or a record dict, checked first) as JSON.

    Raises:
        InvalidPositionError: a malformed record dict. TypeError: neither a state nor a dict.
    """
    if isinstance(state_or_record, dict):
        check_record(state_or_record)
        rec = state_or_record
    elif isinstance(state_or_record, state_class):
        rec = record_from_state(state_or_record)
    else:
        raise TypeError(f"write_record needs a {state_class.__name__} or a record dict, "
                        f"got {type(state_or_record).__name__}")
    Path(path).write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
