"""The room's games in players' words: what each game declares through ``state.words()``
(:mod:`envs.core.words`) put beside the API's names in the lobby and game frames.

The env ids and constructor arguments stay what the protocol sends (they are the API); these
functions only add labels, help texts and the short how to play beside them. Nothing here names a
game: every word comes from the game's own ``words`` module.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from envs.core.state import GameState

__all__ = [
    "rules_url",
    "setting_words",
    "help_words",
    "argument_words",
    "variant_labels",
    "seat_label",
    "seat_names",
    "seats_words",
    "result_words",
    "plies_words",
]


def rules_url(env_id: str) -> str:
    """Where the room serves the full rules of ``env_id`` (its ``RULES.md``, plain text)."""
    return f"/rules/{env_id}"


def argument_words(state: GameState, name: str) -> dict:
    """``{"label", "help"}`` of constructor argument ``name`` of ``state``'s game."""
    opt = state.words().option(name)
    return {"label": opt.label, "help": opt.help, "agents_only": opt.agents_only}


def variant_labels(state: GameState, env_id: str, variants) -> dict[str, str]:
    """``{variant name: label}`` of the registry variants of ``env_id``."""
    w = state.words()
    return {v: w.variant(env_id, v) for v in variants}


def _value(v) -> str:
    if v is True:
        return "on"
    if v is False:
        return "off"
    return v if isinstance(v, str) else json.dumps(v)


def _variant_label(state: GameState, name: str, value) -> str | None:
    """The label of a registry variant of ``state``'s game that sets argument ``name`` to
    ``value`` and nothing else (Ataxx's ``"blockers"``: ``"With four blocked squares"``), or
    ``None``."""
    from envs.registry import env_ids, spec

    for env_id in env_ids():
        sp = spec(env_id)
        if sp.game_info().short_name != state.info.short_name:
            continue
        for variant, kwargs in sp.variants.items():
            if kwargs == {name: value}:
                return state.words().variant(env_id, variant)
    return None


def setting_words(state: GameState, env_kwargs: dict) -> str:
    """The setting for people: the game's name, then each argument given, by its label
    (``"TwixT · Board size 8 · Link crossing pp"``); a text value that a named variant of the game
    sets (and nothing else) by the variant's label instead of the raw text, which may be notation
    (``"Ataxx · With four blocked squares"``, not the FEN)."""
    w = state.words()
    parts = [state.setting_name()]
    for k, v in env_kwargs.items():
        label = _variant_label(state, k, v) if isinstance(v, str) else None
        parts.append(label or f"{w.option(k).label} {_value(v)}")
    return " · ".join(parts)


def help_words(state: GameState, env_id: str) -> dict:
    """The "how to play" panel of a game: ``{"how_to_play", "legend": [[mark, meaning]],
    "rules_url"}``."""
    w = state.words()
    return {
        "how_to_play": w.how_to_play(),
        "legend": [list(x) for x in w.legend],
        "rules_url": rules_url(env_id) if w.rules_text() else None,
    }


def seat_names(state: GameState) -> tuple[str, ...]:
    """Each seat's side as people name it: the game's seat name (``state.seat_name``) through its
    words' ``sides`` (``"red, x"`` for Ataxx's ``x``), ``""`` for a seat without a name."""
    w = state.words()
    return tuple(w.side(state.seat_name(i) or "") for i in range(state.num_players))


def seat_label(seat_names, seat: int) -> str:
    """A seat for people, numbered from 1: ``"player 1 (red, x)"`` (``seat_names[seat]``, the game's
    name of the seat, in brackets where it has one). The protocol's seat numbers stay 0-based (the
    API); only what people read is numbered from 1."""
    name = seat_names[seat] if seat < len(seat_names) else ""
    return f"player {seat + 1}" + (f" ({name})" if name else "")


def seats_words(labels: list[str]) -> str:
    """Seat labels joined for a sentence: ``"player 1 (red)"``, ``"player 1 (red) and player 3
    (red)"``, ``"player 1, player 2 and player 3"``."""
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def plies_words(n: int) -> str:
    """``"no moves"``, ``"1 move"``, ``"12 moves"`` (plies)."""
    return "no moves" if n == 0 else f"{n} move" + ("" if n == 1 else "s")


def result_words(
    labels: list[str],
    winners: list[int],
    *,
    draw: bool,
    resigned: Sequence[int] = (),
    unfinished: str | None = None,
) -> str:
    """A finished game's result for people, from the seats alone (no game named): ``"draw"``,
    ``"player 2 (blue, o) won"``, ``"player 2 (black) and player 4 (black) won"`` (a team),
    ``"player 1 (red, x) resigned: player 2 (blue, o) won"``, ``"player 1 and player 3 resigned: player 2
    won"``, ``"unfinished: the step limit (300 moves)"``.

    Args:
        labels: every seat's label (:func:`seat_label`), by seat.
        winners: the winning seats (``[]`` for a draw).
        draw: the game ended in a draw (no winners).
        resigned: the seats that resigned (``[]``: none), in the order they did.
        unfinished: why an unfinished game stopped (e.g. the step limit), or ``None``.
    """
    if unfinished is not None:
        return f"unfinished: {unfinished}"
    won = f"{seats_words([labels[w] for w in winners])} won" if winners else ""
    if resigned:
        return f"{seats_words([labels[r] for r in resigned])} resigned" + (f": {won}" if won else "")
    if draw or not winners:
        return "draw"
    return won
