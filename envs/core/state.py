"""The interface every rules core implements (its errors: :mod:`envs.core.errors`).

A *state* object is a mutable game position that knows the rules (like python-chess's ``Board``
or OpenSpiel's ``State``). The generic PettingZoo adapter (:mod:`envs.core.aec`), the agents and
the training code talk to games only through this interface, so nothing above the rules core
assumes two players, alternating turns or perfect information.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing_extensions import Self

import numpy as np

# The errors live in envs.core.errors; re-exported here (their older home) for existing imports.
from envs.core.checks import is_int
from envs.core.errors import IllegalActionError, InvalidMoveError, InvalidPositionError, ParameterError

__all__ = [
    "GameState",
    "GameInfo",
    "Outcome",
    "IllegalActionError",
    "InvalidMoveError",
    "InvalidPositionError",
    "ParameterError",
]


@dataclass(frozen=True)
class GameInfo:
    """The facts of a game, declared once per rules core as the class attribute ``info``
    (modelled on OpenSpiel's ``GameType``).

    Attributes:
        short_name: the game's name, e.g. ``"ataxx"``.
        long_name: the name shown to people, e.g. ``"Ataxx"``.
        perfect_information: every player sees the whole state, the order of any bag or deck
            included (Tantrix: ``False``, its bag order is hidden; Smartrix: ``False``, hands and
            pile). Search agents sample :meth:`GameState.sample_determinization` exactly when
            this is ``False``.
        chance: the game has chance events (a shuffled bag or deck).
        min_players, max_players: the player counts the rules core accepts.
        teams: whether some setting has partners sharing one result (see ``GameState.teams()``).
        seat_names: default names of the seats, in seat order (``GameState.seat_name`` may
            depend on the setting, e.g. Tantrix colours); empty when seats have no names.
        notation: help text for the move notation (one or more lines, no trailing newline).
        heuristics: dotted path of the game's heuristics module (``"envs.ataxx.heuristics"``,
            exporting ``evaluate``, ``greedy_action`` and ``VALUE_SCALE``; see
            :mod:`envs.core.heuristics`), ``""`` for a game without one. Reached through
            :meth:`GameState.heuristics`.
        board: dotted path of the game's board module (``"envs.ataxx.svg"``, exporting
            ``to_svg``, ``action_paths``, ``CONFIRM`` and ``status``; see :mod:`envs.core.svg`),
            ``""`` for a game without one. Reached through :meth:`GameState.board_ui`.
        agents: the game's own named agents (e.g. Tantrix's ``"robot"``), as pairs
            ``(name, "module:factory")``: each factory is imported by name on first use (see
            :mod:`envs.core.plugins`; the factory's contract is in :mod:`envs.core.heuristics`).
            Reached through :meth:`GameState.agents`; ``()`` for a game without any.
        evaluators: the game's further named evaluations for search (e.g. Tantrix's
            ``"predicted"``), as pairs ``(name, "module:function")``, each ``f(state, player) ->
            float`` with the heuristics module's ``evaluate`` contract and units (see
            :mod:`envs.core.heuristics`); imported by name on first use. Reached through
            :meth:`GameState.heuristics` (its ``evaluator(name)``); ``()`` for a game without any.
        records: dotted path of the game's record module (``"envs.tantrix.records"``), which
            registers its older JSON formats and the other programs' files it imports with
            :mod:`envs.core.records` when imported; ``""`` for a game without one. The registry
            imports it when a record of an unknown format is read
            (:func:`envs.registry.load_record_formats`).
        words: dotted path of the game's words module (``"envs.ataxx.words"``, exporting
            ``WORDS``: its options, variants and board marks in players' words and its short how
            to play; see :mod:`envs.core.words`), ``""`` for a game without one. Reached through
            :meth:`GameState.words`.

    Every plug-in is named by its import path, never imported by the rules module, and loaded
    lazily (:mod:`envs.core.plugins`): the rules core imports nothing that is built on it.
    """

    short_name: str
    long_name: str
    perfect_information: bool
    chance: bool
    min_players: int
    max_players: int
    teams: bool
    seat_names: tuple[str, ...]
    notation: str
    heuristics: str = ""
    board: str = ""
    agents: tuple[tuple[str, str], ...] = ()
    evaluators: tuple[tuple[str, str], ...] = ()
    records: str = ""
    words: str = ""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: what :meth:`GameState.outcome` returns (``None`` before the end).

    Attributes:
        result: the result in the game's own words: ``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` (Ataxx,
            TwixT), ``"player 2 won"``, ``"team 0 won"``, ``"draw"``, ``"deadlock draw"`` (Tantrix,
            Smartrix). ``str(outcome)`` is this text.
        termination: why the game ended, in words (e.g. ``"a side has no stones"``,
            ``"connection"``, ``"deadlock"``, ``"a hand is empty"``).
        winners: the seats with the best return (:meth:`GameState.winners`), ascending.
        returns: :meth:`GameState.returns` as a tuple of floats, one per seat.
        scores: :meth:`GameState.scores` as a tuple of ints, or ``None`` for a game without scores.
    """

    result: str
    termination: str
    winners: tuple[int, ...]
    returns: tuple[float, ...]
    scores: tuple[int, ...] | None

    def __str__(self) -> str:
        return self.result


class GameState(ABC):
    """Abstract rules state: the contract every rules core (Ataxx, TwixT, Tantrix, Smartrix)
    implements with the same names and meanings.

    Subclasses define the class attributes ``info`` (:class:`GameInfo`), ``num_players`` (int)
    and ``num_actions`` (int, the size of the fixed action space; both may be per instance) and
    implement the abstract methods.

    Conventions:

    * players (seats) are numbered ``0 .. num_players - 1``; ``current_player`` is the player to
      act, or ``-1`` once the game is over. The same player may act several times in a row.
    * actions are integers in ``[0, num_actions)``; ``legal_action_mask()`` returns an ``np.int8``
      vector of shape ``(num_actions,)`` with 1 for every legal action and 0 elsewhere (all zeros
      when the game is over).
    * ``history`` (a ``list[int]``, attribute or property) holds the actions applied since the
      state was created, in the state's absolute frame; applying them in order to an equal start
      state replays the game. ``moves()`` is the same game in notation (``list[str]``), and
      ``push`` of each of them from an equal start state replays it too.
    * an environment may show each agent the game in its own frame (:meth:`to_state_action`,
      :meth:`to_agent_action`, :meth:`agent_action_mask`); agents answer in that frame.
    * ``returns()`` is a ``float64`` vector of shape ``(num_players,)``; all zeros before the end.
      :meth:`outcome` (an :class:`Outcome`, ``None`` before the end), :meth:`winners` and
      :meth:`scores` describe the end in the same terms for every game.
    * chance (bags, decks) comes from a ``numpy.random.Generator`` owned by the state; ``clone()``
      copies it, so a clone continues exactly as the original would. ``copy.copy`` and
      ``copy.deepcopy`` return ``clone()``. :meth:`deal` gives the chance outcome that fixed the
      start (JSON data, ``None`` without chance) and :meth:`with_deal` rebuilds that start without
      a generator: game records (:mod:`envs.core.records`) store the one and replay with the other.
    * ``==`` compares positions: same game settings and equal :meth:`position_key` (so the same
      future). The move history is *not* compared (two move orders reaching one position are
      equal); compare ``history`` as well where the path matters.
    * errors: malformed move text raises :class:`InvalidMoveError`; a well-formed move or an action
      that is not legal here raises :class:`IllegalActionError` with the reason. Either way the
      state is unchanged.
    """

    __slots__ = ()

    info: GameInfo
    num_players: int
    num_actions: int

    if TYPE_CHECKING:  # declared for the checker only: subclasses define it as an attribute or a property

        @property
        def history(self) -> list[int]: ...

    # ------------------------------------------------------------------ actions
    @property
    @abstractmethod
    def current_player(self) -> int:
        """Index of the player to act, ``-1`` when the game is over."""

    @abstractmethod
    def legal_action_mask(self) -> np.ndarray:
        """``np.int8`` array of shape ``(num_actions,)``: 1 where the action is legal."""

    def legal_actions(self) -> list[int]:
        """Sorted list of the legal action indices (empty when the game is over)."""
        return np.flatnonzero(self.legal_action_mask()).tolist()

    @abstractmethod
    def apply(self, action: int) -> None:
        """Play ``action`` for ``current_player`` and append it to ``history``.

        Raises:
            IllegalActionError: the action is out of range or not legal here (state unchanged).
        """

    # ------------------------------------------------------------------ notation
    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """The action in the game's standard notation (see ``info.notation``)."""

    @abstractmethod
    def string_to_action(self, text: str) -> int:
        """Parse notation into an action index.

        Raises:
            InvalidMoveError: the text is not a well-formed move of this game.
            IllegalActionError: well-formed, but it names no action here (e.g. a tile that is not
                in the mover's hand); legality itself is checked by :meth:`apply`.
        """

    def push(self, text: str) -> None:
        """Play a move given in notation: ``apply(string_to_action(text))``.

        Raises:
            InvalidMoveError: malformed text.
            IllegalActionError: not legal here (with the reason). The state is unchanged either way.
        """
        self.apply(self.string_to_action(text))

    def legal_moves(self) -> list[str]:
        """The legal moves in notation, in the order of :meth:`legal_actions`."""
        return [self.action_to_string(a) for a in self.legal_actions()]

    def move_in_words(self, move: str) -> str:
        """``move`` (a move of this game in its notation, as :meth:`moves` gives it) in players'
        words, for a move list that shows both: Ataxx ``"a1c3"`` -> ``"jump from a1 to c3"``.

        Reads only the text (and the game's fixed settings), never the position. The default
        returns ``move`` unchanged (a notation that reads as it is); so does every game for a
        text that is not one of its moves: the words only ever add to the notation, never fail.
        """
        return move

    def moves(self) -> list[str]:
        """The game so far in notation (``list[str]``, one per entry of ``history``).

        The default maps ``action_to_string`` over ``history``, right for games whose notation does
        not depend on the position (Ataxx, TwixT); the others override it.
        """
        return [self.action_to_string(a) for a in self.history]

    # ------------------------------------------------------------------ the end
    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over (by the rules; step limits are the environment's business)."""

    @abstractmethod
    def returns(self) -> np.ndarray:
        """Final rewards, ``float64`` shape ``(num_players,)``: +1 win, -1 loss, 0 draw; zeros
        before the end. Partners (:meth:`teams`) get equal returns."""

    def winners(self) -> list[int]:
        """The seats with the best result: those whose return equals the highest return, ascending.

        ``[]`` before the end. A draw between all (every return equal, e.g. Ataxx ``1/2-1/2``, a
        Tantrix deadlock) gives every seat; a partial tie in a multi-player game gives the tied top
        seats; with teams, all partners of the winning team (Double TwixT red: ``[0, 2]``).
        """
        if not self.is_terminal():
            return []
        r = self.returns()
        return np.flatnonzero(r == r.max()).tolist()

    def scores(self) -> list[int] | None:
        """Each seat's score as a ``list[int]`` (the game's own count), or ``None`` for a game
        without scores (default; TwixT)."""
        return None

    def _end_text(self) -> tuple[str, str]:
        """``(result, termination)`` texts of a finished game (see :class:`Outcome`)."""
        raise NotImplementedError

    def outcome(self) -> Outcome | None:
        """How the game ended, one :class:`Outcome` for every game; ``None`` before the end.

        ``str(outcome)`` is the game's result text (``"1-0"``, ``"team 0 won"``, ...).
        """
        if not self.is_terminal():
            return None
        result, termination = self._end_text()
        sc = self.scores()
        return Outcome(
            result=result,
            termination=termination,
            winners=tuple(self.winners()),
            returns=tuple(float(x) for x in self.returns()),
            scores=None if sc is None else tuple(int(x) for x in sc),
        )

    # ------------------------------------------------------------------ resignation
    #: ``((ply, seat), ...)``: the resignations so far (:meth:`resign`; ``ply`` is
    #: ``len(history)`` when it happened), ``()`` in a game without any.
    resignations: tuple = ()

    def resign(self, player: int) -> None:
        """``player`` resigns: its side (its team) is out. With one side left the game is over
        and that side wins (``outcome().termination`` says who resigned); where more than two
        sides play, the rules say what follows (``envs/<game>/RULES.md``, section
        "Resignation"): play goes on without the side, and at the end it ranks below the sides
        still playing (``returns`` -1), the others ranked by the rules' scoring. Not an action:
        ``history`` and ``moves`` do not change; :attr:`resignations` records it (and game
        records keep it, :mod:`envs.core.records`). Every game of the library implements it.

        Default: the game has no resignation rule (``NotImplementedError``).

        Raises:
            NotImplementedError: the game has no resignation rule. ValueError: ``player`` is not
                a seat. IllegalActionError: the game is over or the seat is already out.
        """
        raise NotImplementedError(f"{self.info.long_name} has no resignation rule")

    # ------------------------------------------------------------------ players
    def setting_name(self) -> str:
        """The name of this setting for people (``info.long_name`` by default; a game whose
        variants have names of their own, such as Double TwixT, overrides it), e.g. in the play
        room's lobby and page titles."""
        return self.info.long_name

    def seat_name(self, player: int) -> str:
        """The name of ``player``'s seat (``info.seat_names``; ``""`` where seats have no names).

        Raises:
            ValueError: ``player`` is not a seat.
        """
        self._check_seat(player, "player")
        names = self.info.seat_names
        return names[player] if player < len(names) else ""

    def teams(self) -> list[list[int]]:
        """The seats grouped by :meth:`team_of`: a list of seat lists, ordered by their first
        seat; ``[[0], [1], ...]`` when there are no teams, ``[[0, 2], [1, 3]]`` for partners."""
        groups: dict[int, list[int]] = {}
        for p in range(self.num_players):
            groups.setdefault(self.team_of(p), []).append(p)
        return list(groups.values())

    def team_of(self, player: int) -> int:
        """The team of ``player`` (partners share rewards). Default: every player alone."""
        return player

    # ------------------------------------------------------------------ views
    def to_text(self, viewer: int | None = None) -> str:
        """The position as text. ``viewer=None`` prints the whole state as the game shows it in
        logs (Smartrix: every hand; never the order of a bag or pile); a seat number shows exactly
        what that seat may see (in perfect-information games the same: ``str(self)``). For what a
        spectator may see, draw :meth:`to_svg` with ``viewer=None``.

        Raises:
            ValueError: ``viewer`` is neither ``None`` nor a seat.
        """
        if viewer is not None:
            self._check_seat(viewer, "viewer")
        return str(self)

    @abstractmethod
    def position_key(self):
        """A hashable key of the position within one game setting: equal keys, equal futures
        (for transposition tables and ``==``)."""

    @abstractmethod
    def clone(self) -> Self:
        """An independent copy that continues identically (chance state included)."""

    def __copy__(self) -> GameState:
        return self.clone()

    def __deepcopy__(self, memo) -> GameState:
        return self.clone()

    def heuristics(self):
        """The game's own knowledge for agents: an :class:`envs.core.heuristics.Heuristics`
        (``evaluate(state, player)``, ``greedy_action(state, rng)``, ``value_scale``, its
        ``agents``: those of ``info.agents``, see :meth:`agents`, and its named ``evaluators``:
        those of ``info.evaluators``) loaded from the module named by
        ``info.heuristics``, or ``None`` when the game declares none.

        A game (or a test's toy game) may override this method to return its own
        :class:`~envs.core.heuristics.Heuristics` instead of declaring a module.

        Raises:
            ImportError, TypeError: the declared module is missing or does not export the three
                names (see :func:`envs.core.heuristics.load_heuristics`).
        """
        module = getattr(self.info, "heuristics", "")
        if not module:
            return None
        from envs.core.heuristics import load_heuristics

        return load_heuristics(module, getattr(self.info, "agents", ()), getattr(self.info, "evaluators", ()))

    def agents(self) -> dict:
        """The game's own named agents, ``{name: factory}`` (see :mod:`envs.core.heuristics` for
        a factory's contract), loaded by name from ``info.agents``; ``{}`` when it declares none.

        Raises:
            ImportError, TypeError: a declared factory is missing or not callable, or the
                declaration is malformed (see :func:`envs.core.heuristics.load_agents`).
        """
        declared = getattr(self.info, "agents", ())
        if not declared:
            return {}
        from envs.core.heuristics import load_agents

        return load_agents(declared)

    def board_ui(self):
        """How people see and play the game: an :class:`envs.core.svg.BoardUI` (``to_svg``,
        ``action_paths``, ``confirm``, ``status``) loaded from the module named by ``info.board``,
        or :data:`envs.core.svg.text_board` (the text view as SVG, moves as buttons) when the game
        declares none.

        Raises:
            ImportError, TypeError: the declared module is missing or does not export the four
                names (see :func:`envs.core.svg.load_board_ui`).
        """
        from envs.core.svg import load_board_ui, text_board

        module = getattr(self.info, "board", "")
        return load_board_ui(module) if module else text_board

    def words(self):
        """The game in players' words: an :class:`envs.core.words.GameWords` (option labels and
        help, variant labels, the legend of the board's marks, the short how to play) loaded from
        the module named by ``info.words``, or :data:`envs.core.words.NO_WORDS` when the game
        declares none.

        Raises:
            ImportError, TypeError: the declared module is missing or does not export ``WORDS``
                (see :func:`envs.core.words.load_words`).
        """
        from envs.core.words import NO_WORDS, load_words

        module = getattr(self.info, "words", "")
        return load_words(module) if module else NO_WORDS

    def to_svg(self, viewer: int | None = None, *, pending: int | None = None, perspective: int | None = None) -> str:
        """The position as a standalone SVG document, drawn by the game's board module (see
        :mod:`envs.core.svg`): ``viewer=None`` is a spectator (only what is public, until the game
        is over), a seat sees what it may see;
        ``pending`` (a legal action, state's frame) is drawn as if played;
        ``perspective`` (``None`` or a seat) is the seat whose side of the table a drawing that
        turns with the viewer is drawn from (``None``: the viewer's), ignored by a drawing that
        does not turn.

        Raises:
            ValueError: ``viewer`` or ``perspective`` is neither ``None`` nor a seat; ``pending`` is
                not a legal action (``IllegalActionError``), or is given in a game with hidden
                information for another viewer than the player to move (it would show that
                player's hidden pieces).
        """
        if viewer is not None:
            self._check_seat(viewer, "viewer")
        if perspective is not None:
            self._check_seat(perspective, "perspective")
        if pending is not None:
            a = self._check_action_index(pending)
            if not self.legal_action_mask()[a]:
                raise IllegalActionError(f"pending action {a} ({self.action_to_string(a)}) is not legal here")
            if not self.info.perfect_information and viewer != self.current_player:
                raise ValueError(
                    f"a pending move is previewed by the player to move ({self.current_player}) only: "
                    f"in {self.info.long_name} it shows that player's hidden pieces, got viewer={viewer!r}"
                )
            pending = a
        ui = self.board_ui()
        if perspective is not None and ui.perspective:
            return ui.to_svg(self, viewer, pending=pending, perspective=int(perspective))
        return ui.to_svg(self, viewer, pending=pending)

    def sample_determinization(self, player: int, rng: np.random.Generator) -> GameState:
        """A full state consistent with what ``player`` knows (for search without peeking).

        The default, for perfect-information games without hidden chance (Ataxx, TwixT), is a plain
        :meth:`clone`; games with hidden hands or bag order redraw what ``player`` cannot see.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        self._check_seat(player, "player")
        return self.clone()

    def determinize(self, player: int, rng: np.random.Generator) -> GameState:
        """A full state consistent with what ``player`` knows, drawn as a function of ``player``'s
        information and ``rng`` only: two states that ``player`` cannot tell apart (the same
        ``to_text(viewer=player)``, differing only in what is hidden from ``player``, such as a
        bag's order or another hand) give equal (``==``) results from generators in the same state.
        This is what a search uses so that it never reads the true hidden order: the hidden items
        are put in a canonical order (e.g. by number) before ``rng`` deals them, which is what
        :meth:`sample_determinization` does not promise (its results follow the true order, and
        stay as they are for the agents and records that depend on them).

        The default, for perfect-information games (``info.perfect_information``; Ataxx, TwixT),
        is a plain :meth:`clone` (``rng`` is not used); every game with hidden information
        implements it in its own package (Tantrix: the unseen bag as a set, shuffled; Smartrix:
        the cards ``player`` has not seen, sorted, then dealt to the other hands and the pile).

        Args:
            player: the seat whose knowledge is kept.
            rng: ``numpy.random.Generator`` of the draw.

        Returns:
            A new state; this state is unchanged.

        Raises:
            ValueError: ``player`` is not a seat.
            NotImplementedError: a game with hidden information that does not implement it.
        """
        self._check_seat(player, "player")
        if not self.info.perfect_information:
            raise NotImplementedError(
                f"{self.info.long_name} has hidden information and must implement determinize(player, rng)"
            )
        return self.clone()

    # ------------------------------------------------------------------ chance: the deal
    def deal(self):
        """The chance outcome that fixed this game's start, as JSON-ready data (what game records
        store, :mod:`envs.core.records`); ``None`` for a game without chance (default: Ataxx, TwixT).

        Games with chance return everything that, with the environment's kwargs, rebuilds the start
        exactly and without a random generator: Tantrix ``{"bag": [56 tile numbers in drawing
        order]}``, Smartrix ``{"deck": [70 card numbers in deal order]}`` (or ``{"position": ...}``
        for a hand-built start). The result is a fresh copy; changing it changes nothing here.

        Raises:
            ParameterError: a game with chance whose start cannot be described (e.g. a Tantrix
                position built by hand).
        """
        return None

    def with_deal(self, deal) -> GameState:
        """A new state at the start of a game with this state's settings and ``deal`` (what
        :meth:`deal` returned); ``self`` is unchanged.

        Games with chance build it from their settings and ``deal`` alone. The default, for games
        without chance, accepts only ``deal=None`` and returns a :meth:`clone`, so ``self`` must
        then be a start position (an environment's state right after ``reset``).

        Raises:
            InvalidPositionError: ``deal`` is not a deal of this game (the message says what was
                expected), or the default's ``self`` is not a start position (non-empty ``history``).
        """
        if deal is not None:
            raise InvalidPositionError(
                f"{self.info.long_name} has no chance: its deal must be null (None), got {deal!r}"
            )
        if self.history:
            raise InvalidPositionError(
                f"with_deal needs a start position (empty history), got one after {len(self.history)} actions"
            )
        return self.clone()

    def _check_seat(self, player, what: str) -> None:
        if not is_int(player) or not 0 <= player < self.num_players:
            raise ValueError(f"{what} must be a seat in [0, {self.num_players}), got {player!r}")

    # ------------------------------------------------------------------ agent frames
    # Environments give each agent an egocentric view (TwixT transposes the board for black so
    # every player connects top to bottom); actions in an agent's frame are then permuted with
    # respect to the state's own (absolute) actions. Games whose frames differ override these
    # three methods; the defaults are the identity.

    def to_state_action(self, player: int, action: int) -> int:
        """An action of ``player``'s frame (what the environment's action space holds) as an
        action of the state's absolute frame."""
        return action

    def to_agent_action(self, player: int, action: int) -> int:
        """Inverse of :meth:`to_state_action`."""
        return action

    def agent_action_mask(self, player: int) -> np.ndarray:
        """``legal_action_mask()`` in ``player``'s frame (``np.int8 (num_actions,)``)."""
        return self.legal_action_mask()

    def _check_action_index(self, action) -> int:
        """Validate the type and range of an action index; return it as ``int``.

        Accepts Python and numpy integers, including 0-d integer arrays (what SB3's
        ``predict`` returns for one observation); rejects bools, floats and everything else.
        """
        if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
            action = action.item()
        if not is_int(action):
            raise IllegalActionError(
                f"action must be an integer in [0, {self.num_actions}), got {action!r} of type {type(action).__name__}"
            )
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"action {a} is out of range: expected 0 <= action < {self.num_actions}")
        return a
