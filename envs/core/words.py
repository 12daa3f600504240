"""A game in players' words: the contract of ``envs/<game>/words.py``.

Beside its board (:mod:`envs.core.svg`), every game may tell people what its settings mean, in a
module ``envs/<game>/words.py`` (its path declared once, in ``GameInfo.words``) that exports
``WORDS``, a :class:`GameWords`:

* ``options``: for each constructor argument of the game's environments (the registry's API,
  e.g. ``fen``, ``board_size``), an :class:`Option`: a label (``"Start position (FEN)"``) and a
  help text of one or two sentences (what it changes, its values);
* ``variants``: a label for each registry variant (``"window6"`` -> ``"Small table (radius 6)"``);
  a key ``"<env_id>:<variant>"`` names the variant of one env id where two env ids of the game
  share a variant name with different meanings;
* ``legend``: what the board's marks mean, as pairs ``(mark, meaning)``
  (``("dot on an empty space", "a forced space: ...")``);
* ``sides``: how people name a seat's side where the game's seat name is notation
  (``{"x": "red, x"}``: Ataxx's FEN letters for its red and blue stones);
* ``summary_section``: the title of the section of the game's ``RULES.md`` (installed with the
  package) that is the short "how to play" (:meth:`GameWords.how_to_play`); the whole file is the
  full rules (:meth:`GameWords.rules_text`).

Consumers reach them through the state: ``state.words()`` returns the game's :class:`GameWords`
(:data:`NO_WORDS` for a game that declares none), so nothing outside the game's package names the
module. The env ids and constructor arguments stay the API; the words go beside them.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from envs.core.plugins import load_module

__all__ = ["Option", "GameWords", "NO_WORDS", "load_words", "rules_section"]


@dataclass(frozen=True)
class Option:
    """One constructor argument in players' words: ``label`` (a few words) and ``help`` (one or
    two sentences: what it changes, its values); ``agents_only`` for an argument that changes
    only what agents observe, nothing people see or play (a lobby need not offer it to people)."""

    label: str
    help: str = ""
    agents_only: bool = False


@dataclass(frozen=True)
class GameWords:
    """What a game's ``words`` module exports as ``WORDS`` (see the module docstring).

    Attributes:
        options: ``{argument name: Option}``.
        variants: ``{variant name or "env_id:variant": label}``.
        legend: ``((mark, meaning), ...)`` of the board's marks.
        package: the game's package (``"envs.tantrix"``), where its ``RULES.md`` is.
        summary_section: the title of the ``RULES.md`` section that is the short how to play
            (``""``: none).
        sides: ``{seat name: words}`` where a seat name is notation (:meth:`side`).
        notation: ``None`` (the notation help is ``info.notation``, one text for every setting)
            or a function of a state returning the help for that state's setting only (no
            variant's moves that the setting does not have).
    """

    options: Mapping[str, Option] = field(default_factory=dict)
    variants: Mapping[str, str] = field(default_factory=dict)
    legend: tuple[tuple[str, str], ...] = ()
    package: str = ""
    summary_section: str = ""
    notation: Callable[[Any], str] | None = None
    sides: Mapping[str, str] = field(default_factory=dict)

    def side(self, seat_name: str) -> str:
        """How people name the side of the seat named ``seat_name`` (:attr:`sides`, else the name)."""
        return self.sides.get(seat_name, seat_name)

    def option(self, name: str) -> Option:
        """The words of argument ``name`` (its name itself, no help, where the game gives none)."""
        return self.options.get(name) or Option(name)

    def variant(self, env_id: str, name: str) -> str:
        """The label of variant ``name`` of ``env_id`` (the name itself where the game gives none)."""
        return self.variants.get(f"{env_id}:{name}") or self.variants.get(name) or name

    def notation_for(self, state) -> str:
        """The notation help of ``state``'s setting: :attr:`notation`'s, else ``info.notation``."""
        return self.notation(state) if self.notation is not None else state.info.notation

    def rules_text(self) -> str:
        """The game's whole ``RULES.md`` (``""`` for a game without one)."""
        if not self.package:
            return ""
        try:
            return importlib.resources.files(self.package).joinpath("RULES.md").read_text(encoding="utf-8")
        except (FileNotFoundError, ModuleNotFoundError):
            return ""

    def how_to_play(self) -> str:
        """The short how to play: the body of the ``RULES.md`` section titled
        :attr:`summary_section` (``""`` where there is none)."""
        if not self.summary_section:
            return ""
        return rules_section(self.rules_text(), self.summary_section)


#: The words of a game that declares none: every argument and variant by its own name.
NO_WORDS = GameWords()


def rules_section(markdown: str, title: str) -> str:
    """The body of the ``## title`` section of ``markdown`` (up to the next ``##`` heading or
    the end), stripped; ``""`` when there is no such section."""
    m = re.search(rf"^##\s+{re.escape(title)}\s*$", markdown, flags=re.M)
    if not m:
        return ""
    rest = markdown[m.end() :]
    nxt = re.search(r"^##?\s", rest, flags=re.M)
    return (rest[: nxt.start()] if nxt else rest).strip()


_CACHE: dict[str, GameWords] = {}


def load_words(module: str) -> GameWords:
    """The :class:`GameWords` exported as ``WORDS`` by the module at dotted path ``module`` (cached).

    Raises:
        ImportError: the module does not exist.
        TypeError: ``module`` is not a dotted module path; it lacks ``WORDS`` or ``WORDS`` is
            not a :class:`GameWords`, or an option is not an :class:`Option` (the message names
            the module).
    """
    if module in _CACHE:
        return _CACHE[module]
    mod = load_module(module, "GameInfo.words")
    words = getattr(mod, "WORDS", None)
    if not isinstance(words, GameWords):
        raise TypeError(f"words module {module} must export WORDS, a GameWords, got {type(words).__name__}")
    bad = [k for k, v in words.options.items() if not isinstance(v, Option)]
    if bad:
        raise TypeError(f"words module {module}: options {', '.join(bad)} must be Option(label, help)")
    _CACHE[module] = words
    return words
