"""The room's games in players' words: what each game declares through ``state.words()``
(:mod:`envs.core.words`) put beside the API's names in the lobby and game frames.

The env ids and constructor arguments stay what the protocol sends (they are the API); these
functions only add labels, help texts and the short how to play beside them. Nothing here names a
game: every word comes from the game's own ``words`` module.
"""

from __future__ import annotations

import json

from envs.core.state import GameState

__all__ = ["rules_url", "setting_words", "help_words", "argument_words", "variant_labels"]


def rules_url(env_id: str) -> str:
    """Where the room serves the full rules of ``env_id`` (its ``RULES.md``, plain text)."""
    return f"/rules/{env_id}"


def argument_words(state: GameState, name: str) -> dict:
    """``{"label", "help"}`` of constructor argument ``name`` of ``state``'s game."""
    opt = state.words().option(name)
    return {"label": opt.label, "help": opt.help}


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


def setting_words(state: GameState, env_kwargs: dict) -> str:
    """The setting for people: the game's name, then each argument given, by its label
    (``"TwixT · Board size 8 · Link crossing pp"``)."""
    w = state.words()
    parts = [state.setting_name()]
    for k, v in env_kwargs.items():
        parts.append(f"{w.option(k).label} {_value(v)}")
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
