"""One game of the room: its environment, its seats and every position it went through.

A :class:`RoomGame` of kind ``"play"`` holds a raw environment (``envs.spec(env_id).make_raw``,
reset with the seed chosen when the game was created) and the actions played; positions are kept
(one clone per ply) for the replay controls. A game of kind ``"record"`` (an uploaded record) has
only its positions. Nothing here is asynchronous: the server (:mod:`room.server`) calls
these methods under the game's lock, writes the journal and tells the browsers.

What a browser may see is built here, per viewer (:meth:`RoomGame.view`): the drawing is
``state.to_svg(seat)`` for a seat holder and ``to_svg(None)`` for spectators; legal actions and
their click paths go only to the holder of the seat to move; scores (which may count hidden
cards) only in games of perfect information or once the game is over; the move list is
``state.moves()``, public in every game of the library (a move names only what it puts on the
table, or ``pass``).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envs.core.checks import is_plain_int
from envs.core.records import record_from_state, replay
from envs.core.state import GameState, IllegalActionError
from envs.registry import spec
from room.words import help_words, result_words, seat_label, seat_names, setting_words

if TYPE_CHECKING:
    from room.journal import Journal

__all__ = ["Seat", "RoomGame", "RoomError", "token_digest", "action_index"]


class RoomError(ValueError):
    """A request the room refuses; the message says what was wrong and what was expected.
    The game is unchanged."""


def token_digest(token: str) -> str:
    """The SHA-256 hex digest of a seat token (what the room and its journals keep)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _same(digest: str | None, token_digest_: str) -> bool:
    return digest is not None and hmac.compare_digest(digest, token_digest_)


@dataclass
class Seat:
    """One seat: a person (``kind="human"``; ``token`` is the digest of its holder's token,
    ``None`` while the seat is open) or an agent (``kind="agent"``, ``agent`` its menu name).

    Attributes:
        claimed: a person's seat whose token was used (``"me"``, a join, an invitation link
            opened): only its holder may give it away. ``False`` for an invitation not yet
            opened (the creator or a player may still change the seat).
        error: the last failure of the seat's agent (the seat can be given to someone else).
        player: the built agent (not saved; rebuilt after a restart).
        spec: the agent spec the seat's agent was built from (``ataxx_az:256`` for the menu name
            ``ataxx_az``: a shipped search agent with the room's simulations); set when it is built,
            not journaled (the same name gives the same spec after a restart); the downloaded
            record's ``players`` give it beside the name.
        holder: who holds a person's seat, to tell persons apart (:mod:`room.trust`): the
            owner token's digest for the creator's seats, the same value for every seat one
            page took; ``None`` for an open seat or an invitation not yet opened (and in older
            journals, where each seat counts as a person of its own).
    """

    kind: str
    agent: str | None = None
    token: str | None = None
    claimed: bool = False
    error: str | None = None
    player: object = field(default=None, repr=False)
    holder: str | None = None
    spec: str | None = None

    def journal(self) -> dict:
        out: dict[str, object] = {"kind": self.kind}
        if self.kind == "agent":
            out["agent"] = self.agent
        elif self.token is not None:
            out["token"] = self.token
            out["claimed"] = self.claimed
            if self.holder is not None:
                out["holder"] = self.holder
        return out

    def public_kind(self) -> str:
        """What the seat is, for a game's record: ``agent NAME``, ``person``, ``invitation`` or ``open``."""
        if self.kind == "agent":
            return f"agent {self.agent}"
        return "open" if self.token is None else ("person" if self.claimed else "invitation")

    @property
    def held(self) -> bool:
        """A person holds this seat (a token was issued and used)."""
        return self.kind == "human" and self.token is not None and self.claimed

    @property
    def invited(self) -> bool:
        """An invitation link for this seat was issued and not yet opened."""
        return self.kind == "human" and self.token is not None and not self.claimed


class RoomGame:
    """A game of the room (see the module docstring).

    Attributes:
        id: the game's id (letters and digits, made by the room; never a path from a browser).
        kind: ``"play"`` or ``"record"``.
        env_id, env_kwargs, seed: the environment and its reset seed (``seed`` ``None`` for a
            record).
        seats: one :class:`Seat` per seat (none for a record).
        positions: the state after each ply (``positions[k]``: after ``k`` actions).
        actions: the actions played (state's absolute frame).
        played_by: per ply ``(how, seat)``: ``how`` is ``"human"``, ``"agent"`` or ``"auto"``.
        resigned: the seat that resigned, or ``None``.
        version: bumped at every change (agents' answers for an older version are dropped).
        problem: what went wrong reading the journal, shown to people (``None``: nothing).
        journal_error: ``None``, or why the last change could not be journaled (shown to people
            with :attr:`problem` until a change is journaled again).
        read_only: the journal cannot be written any more (a failed write could not be taken
            back): every change is refused until the room restarts.
        thinking: the seat whose agent is choosing, or ``None``.
        seed_chosen: the creator gave the seed (:mod:`room.trust`: then no seat of a game with
            hidden information goes to anyone else).
        seen: per seat, the persons (:func:`room.trust.person`) who have held it (and so seen
            its hidden cards): from the seats at the start and every seat change, so a restart
            rebuilds it from the journal (:func:`room.trust.seen_refusal`).
        seat_changes: every change of a seat's holder after the start, in order:
            ``{"ply", "seat", "to"}`` (``to`` as :meth:`Seat.public_kind`; in the downloaded
            record's ``meta``).
    """

    def __init__(
        self,
        gid: str,
        kind: str,
        env_id: str,
        env_kwargs: dict,
        seed: int | None,
        created: str,
        seats: list[Seat],
        owner: str | None = None,
        record: dict | None = None,
    ):
        self.id = gid
        self.kind = kind
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs)
        self.seed = seed
        self.created = created
        self.seats = seats
        self.owner = owner
        self.record = record
        self.actions: list[int] = []
        self.played_by: list[tuple[str, int]] = []
        self.resigned: int | None = None
        self.version = 0
        self.problem: str | None = None
        self.journal_error: str | None = None
        self.read_only = False
        self.thinking: int | None = None
        self.seed_chosen = False
        self.seat_changes: list[dict] = []
        self.seen: list[set[str]] = [set() for _ in seats]
        for i, s in enumerate(seats):
            self._saw(i, s)
        self.journaled = 0  # events in the game's journal (RoomLimits.max_game_events)
        self.journal: Journal | None = None
        self.env = None
        self._cache: OrderedDict = OrderedDict()
        self.cache_size = 64  # the room sets RoomLimits.svg_cache_size
        if kind == "play":
            self.env = spec(env_id).make_raw(**self.env_kwargs)
            self.env.reset(seed=seed)
            self.positions: list[GameState] = [self.env.state.clone()]
            if len(seats) != self.env.num_players:
                raise RoomError(
                    f"{env_id} with {self.env_kwargs} has {self.env.num_players} seats, got {len(seats)} seat choices"
                )
        else:
            assert record is not None, "a game of kind 'record' needs its record"
            self.positions = _record_positions(record)
            self.env_kwargs = dict(record.get("env_kwargs") or {})

    # ------------------------------------------------------------------ facts
    @property
    def state(self) -> GameState:
        """The live state (the environment's) of a game being played, else the last position."""
        return self.env.state if self.env is not None else self.positions[-1]

    @property
    def ply(self) -> int:
        return len(self.positions) - 1

    @property
    def num_players(self) -> int:
        return self.positions[0].num_players

    @property
    def truncated(self) -> bool:
        return self.env is not None and any(self.env.truncations.values()) and not self.state.is_terminal()

    @property
    def over(self) -> bool:
        """No one may move any more: the rules ended the game, the step limit did, someone
        resigned, or it is an uploaded record."""
        return self.kind == "record" or self.resigned is not None or self.truncated or self.state.is_terminal()

    def to_move(self) -> int | None:
        """The seat to move, ``None`` when the game is over."""
        return None if self.over else int(self.state.current_player)

    def label(self, seat: int) -> str:
        """A seat for people, numbered from 1: ``player 1 (red, x)`` (:func:`room.words.seat_label`)."""
        st = self.positions[0]
        return seat_label(seat_names(st), seat)

    def seats_held(self, digests) -> set[int]:
        """The seats whose token digest is among ``digests``."""
        return {i for i, s in enumerate(self.seats) if s.kind == "human" and any(_same(s.token, d) for d in digests)}

    @property
    def hidden(self) -> bool:
        """The rules keep something hidden (``not GameInfo.perfect_information``)."""
        return not self.positions[0].info.perfect_information

    def set_seat(self, seat: int, new: Seat) -> None:
        """Give ``seat`` to ``new`` (journaled by the caller first): a change of the game, listed
        in :attr:`seat_changes`."""
        self.seats[seat] = new
        self._saw(seat, new)
        self.seat_changes.append({"ply": self.ply, "seat": seat, "to": new.public_kind()})
        self.changed()

    def _saw(self, seat: int, s: Seat) -> None:
        from room.trust import person

        if (who := person(s)) is not None:
            self.seen[seat].add(who)

    def is_owner(self, digests) -> bool:
        return any(_same(self.owner, d) for d in digests)

    def may_change_seat(self, seat: int, held: set[int], owner: bool) -> str | None:
        """``None`` when a page holding the seats ``held`` (and the owner token when ``owner``)
        may give ``seat`` to someone else, else why not. The rule: a seat held by a person
        (:attr:`Seat.held`) only by its holder; an agent seat, an open seat or an invitation not
        yet opened by the game's creator or any player of the game."""
        if self.kind != "play":
            return f"game {self.id} is an uploaded record: it has no seats"
        if self.over:
            return f"game {self.id} is over"
        s = self.seats[seat]
        if s.held:
            return (
                None
                if seat in held
                else (f"{self.label(seat)} is held by a person: only its holder may give it to someone else")
            )
        if owner or held:
            return None
        return f"only the game's creator or a player of game {self.id} may change its seats"

    # ------------------------------------------------------------------ resignation
    def resigns_in_rules(self) -> bool:
        """A resignation here is the rules' (``state.resign``, ``envs/<game>/RULES.md``): a game
        of more than two sides whose state has a resignation rule; the side is out and play goes
        on. Otherwise (two sides) a resignation ends the game (:attr:`resigned`)."""
        st = self.positions[0]
        return len(st.teams()) > 2 and type(st).resign is not GameState.resign

    def out_seats(self) -> set[int]:
        """The seats out of the game by a resignation under the rules (both partners of a team)."""
        st = self.state
        teams = {st.team_of(seat) for _, seat in st.resignations}
        return {p for p in range(self.num_players) if st.team_of(p) in teams}

    def resign_check(self, seat: int) -> None:
        """Raise :class:`RoomError` when ``seat`` may not resign now (the game is not live, or
        the seat is already out); nothing is changed."""
        self.check_live()
        if seat in self.out_seats():
            raise RoomError(f"resign: {self.label(seat)} has already resigned (its side is out)")

    def resign(self, seat: int) -> None:
        """``seat`` resigns (checked by :meth:`resign_check`): under the rules (the side is out,
        play goes on, :meth:`resigns_in_rules`), else the game ends (:attr:`resigned`; the last
        position is drawn resigned, so its caption gives the result; the record keeps the
        rules' moves, ``meta.resigned`` says who resigned)."""
        self.resign_check(seat)
        if self.resigns_in_rules():
            assert self.env is not None  # check_live: a game being played
            self.env.resign(self.env.possible_agents[seat])
            self.positions[-1] = self.env.state.clone()
        else:
            self.resigned = seat
            drawn = self.positions[-1].clone()  # the board drawn with the result, not "x to move"
            try:
                drawn.resign(seat)
            except NotImplementedError:  # a game without a resignation rule: the position as it is
                pass
            else:
                self.positions[-1] = drawn
        self.changed()

    def outcome(self) -> dict | None:
        """``{"result", "termination", "winners", "scores", "draw", "words"}`` once over, else
        ``None``: ``result`` and ``termination`` are the game's own texts (``"1/2-1/2"``, what the
        journal keeps), ``winners`` the winning seats (``[]`` for a draw: a draw has no winners,
        though the rules' ``winners()`` give every seat then), ``draw`` whether it is one, and
        ``words`` the result for people (:func:`room.words.result_words`: ``"draw"``, ``"player 2
        (blue, o) won"``, ``"player 1 (red, x) resigned: player 2 (blue, o) won"``)."""
        n = self.num_players
        labels = [self.label(i) for i in range(n)]
        if self.resigned is not None:
            st = self.state
            sides = st.teams()
            mine = next(t for t in sides if self.resigned in t)
            winners = [p for t in sides if t is not mine for p in t] if len(sides) == 2 else []
            return {
                "result": f"{self.label(self.resigned)} resigned",
                "termination": "resignation",
                "winners": winners,
                "scores": None,
                "draw": False,
                "words": result_words(labels, winners, draw=False, resigned=[self.resigned]),
            }
        if self.truncated:
            assert self.env is not None  # only a game being played is truncated
            termination = f"the step limit ({self.env.max_steps} moves)"
            return {
                "result": "unfinished",
                "termination": termination,
                "winners": [],
                "scores": None,
                "draw": False,
                "words": result_words(labels, [], draw=False, unfinished=termination),
            }
        out = self.state.outcome()
        if out is None:
            return None
        winners = list(out.winners)
        draw = len(self.state.teams()) > 1 and (not winners or len(winners) == n)
        if draw:
            winners = []
        resigned = [int(seat) for _, seat in self.state.resignations]
        return {
            "result": out.result,
            "termination": out.termination,
            "winners": winners,
            "scores": None if out.scores is None else list(out.scores),
            "draw": draw,
            "words": result_words(labels, winners, draw=draw, resigned=resigned),
        }

    # ------------------------------------------------------------------ changes
    def check_live(self) -> None:
        if self.kind == "record":
            raise RoomError(f"game {self.id} is an uploaded record: it can be replayed, not played")
        if self.over:
            raise RoomError(f"game {self.id} is over ({(self.outcome() or {}).get('result', 'finished')})")
        self.check_writable()

    def check_writable(self) -> None:
        """Refuse any change of a game whose journal can no longer be written (:attr:`read_only`)."""
        if self.read_only:
            raise RoomError(f"game {self.id} is read-only: {self.journal_error}")

    def trial(self) -> RoomGame:
        """A copy of this game to try a change on, so that the change's consequences
        (:meth:`settle`) are known before anything is journaled; the game itself is untouched.

        The copy shares the positions played so far (never changed once played) and the
        :class:`Seat` objects; it has its own lists and a stand-in for the environment (the
        state's clone and the step limit: what :meth:`apply` and :attr:`over` need). It cannot
        :meth:`rebuild` (no undo) nor be observed by an agent.
        """
        t = copy.copy(self)
        if self.env is not None:
            t.env = _TrialEnv(self.env)
        t.positions = list(self.positions)
        t.actions = list(self.actions)
        t.played_by = list(self.played_by)
        t.seats = list(self.seats)
        t.seat_changes = list(self.seat_changes)
        t.seen = [set(s) for s in self.seen]
        t.journal = None
        t._cache = OrderedDict()
        return t

    def settle(self) -> list[dict]:
        """After a change: play the forced moves the room plays itself (:meth:`auto_action`)
        and return their events, then the ``result`` event if the game is over (what the room
        journals in the change's line, see :mod:`room.journal`)."""
        out = []
        while True:
            a = self.auto_action()
            if a is None:
                break
            out.append(self.apply(a, "auto"))
        if self.over and self.kind == "play":
            res = self.outcome() or {}
            out.append(
                {
                    "event": "result",
                    "result": res.get("result", ""),
                    "termination": res.get("termination", ""),
                    "winners": res.get("winners", []),
                    "words": res.get("words", ""),
                    "ply": self.ply,
                }
            )
        return out

    def move_event(self, action, how: str) -> dict:
        """The journal event of playing ``action`` (state's absolute frame) for the seat to move,
        checked but not played (the room writes the journal first, then :meth:`apply`).

        Raises:
            RoomError: the game is over or a record. IllegalActionError: not an action index, or
                not legal here (the message lists some legal moves; nothing changed).
        """
        self.check_live()
        assert self.env is not None  # check_live: a game being played has its environment
        st = self.env.state
        a = action_index(st, action)
        if not st.legal_action_mask()[a]:
            legal = st.legal_moves()
            raise IllegalActionError(
                f"action {a} ({st.action_to_string(a)}) is not legal here; legal moves: "
                f"{', '.join(legal[:12])}{' ...' if len(legal) > 12 else ''}"
            )
        return {
            "event": "move",
            "ply": len(self.actions),
            "action": a,
            "notation": st.action_to_string(a),
            "seat": int(st.current_player),
            "by": how,
        }

    def apply(self, action, how: str) -> dict:
        """Play ``action`` (state's absolute frame) for the seat to move; return its journal event.

        Raises:
            RoomError, IllegalActionError: as :meth:`move_event` (nothing changed).
        """
        event = self.move_event(action, how)
        assert self.env is not None  # move_event checked the game is being played
        st = self.env.state
        a, player = event["action"], event["seat"]
        self.env.step(st.to_agent_action(player, a))
        self.actions.append(a)
        self.played_by.append((how, player))
        self.positions.append(self.env.state.clone())
        self.changed()
        return event

    def rebuild(self, plies: int) -> None:
        """Go back to the position after ``plies`` actions (reset with the seed, replay)."""
        keep_actions, keep_by = self.actions[:plies], self.played_by[:plies]
        assert self.env is not None, "only a game being played is rebuilt"
        self.env.reset(seed=self.seed)
        self.actions, self.played_by = [], []
        self.positions = [self.env.state.clone()]
        for a, (how, _) in zip(keep_actions, keep_by):
            self.apply(a, how)
        self.changed()

    def undo_target(self, held: set[int]) -> int | None:
        """The ply to go back to when the holder of ``held`` asks for an undo: before its last
        move of its own; ``None`` when undo is not allowed (a seat not held is not an agent, the
        game is over (by the rules, the step limit or a resignation: its result is journaled) or
        is a record, or a side resigned, or no move of ``held`` to take back)."""
        if self.kind != "play" or self.over or not held or self.state.resignations:
            return None
        if any(s.kind != "agent" for i, s in enumerate(self.seats) if i not in held):
            return None
        for p in range(len(self.played_by) - 1, -1, -1):
            how, seat = self.played_by[p]
            if how == "human" and seat in held:
                return p
        return None

    def auto_action(self) -> int | None:
        """The action the room plays by itself now: the only legal action of a person's seat,
        when it has no click path (a forced pass); ``None`` otherwise."""
        if self.over:
            return None
        player = self.state.current_player
        if self.seats[player].kind != "human":
            return None
        legal = self.state.legal_actions()
        if len(legal) == 1 and not self.state.board_ui().action_paths(self.state, legal[0]).paths:
            return legal[0]
        return None

    def changed(self) -> None:
        """A change of the game (move, undo, seat, resignation): agents' answers for the former
        version are dropped."""
        self.version += 1
        self._cache.clear()

    def touch(self) -> None:
        """A change of what browsers are shown that does not change the game (an agent thinking,
        an agent's error): the seats' part of the frames is rebuilt (not the drawings), the
        version stays."""
        self._cache.pop("public", None)
        self._cache.pop("summary", None)

    # ------------------------------------------------------------------ what browsers see
    def _cached(self, key, make):
        """``make()`` cached under ``key`` until the next change; at most ``cache_size`` entries
        besides the few frame parts (drawings of positions and previews: least recently used out)."""
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        value = self._cache[key] = make()
        while len(self._cache) > self.cache_size + 4:  # + public, summary, legal, and the newest drawing
            self._cache.popitem(last=False)
        return value

    def summary(self) -> dict:
        """The game in the lobby's list (public)."""

        def make():
            st = self.positions[0]
            mover = self.to_move()
            return {
                "game": self.id,
                "kind": self.kind,
                "env_id": self.env_id,
                "name": st.setting_name(),
                "setting": setting_words(st, self.env_kwargs),
                "env_kwargs": self.env_kwargs,
                "created": self.created,
                "ply": self.ply,
                "over": self.over,
                "to_move": None if mover is None else self.label(mover),
                "outcome": self.outcome(),
                "seats": self._seats_public(),
                "problem": self.problems(),
            }

        return self._cached("summary", make)

    def problems(self) -> str | None:
        """What people are told of the game's journal: :attr:`problem` (reading it) and
        :attr:`journal_error` (writing it), or ``None``."""
        both = [p for p in (self.problem, self.journal_error) if p]
        return " ".join(both) if both else None

    def _seats_public(self) -> list[dict]:
        resigned = self.out_seats() if self.kind == "play" else set()
        out = []
        for i in range(self.num_players if self.kind == "play" else 0):
            s = self.seats[i]
            out.append(
                {
                    "seat": i,
                    "label": self.label(i),
                    "kind": s.kind,
                    "agent": s.agent,
                    "open": s.kind == "human" and s.token is None,
                    "invited": s.invited,
                    "error": s.error,
                    "thinking": self.thinking == i,
                    "resigned": i in resigned,
                }
            )
        return out

    def public(self) -> dict:
        """The part of a ``state`` frame every viewer gets (cached per version)."""

        def make():
            st = self.state
            info = st.info
            show_scores = info.perfect_information or self.over
            scores = st.scores() if show_scores else None
            moves = list(st.moves())
            return {
                "game": self.id,
                "kind": self.kind,
                "env_id": self.env_id,
                "name": st.setting_name(),
                "setting": setting_words(st, self.env_kwargs),
                "help": help_words(st, self.env_id),
                "env_kwargs": self.env_kwargs,
                "ply": self.ply,
                "moves": moves,
                # the seat that played each ply: the mover of the position before it
                "move_seats": [int(self.positions[i].current_player) for i in range(self.ply)],
                # each move in players' words (the game's own, see GameState.move_in_words)
                "moves_words": [st.move_in_words(m) for m in moves],
                "seats": self._seats_public(),
                "to_move": self.to_move(),
                "over": self.over,
                "outcome": self.outcome(),
                "scores": None if scores is None else [int(x) for x in scores],
                "confirm": bool(st.board_ui().confirm),
                "notation_help": st.words().notation_for(st),
                "problem": self.problems(),
                "version": self.version,
                "downloadable": self.downloadable(),
            }

        return self._cached("public", make)

    def svg(self, ply: int, viewer: int | None, pending: int | None = None, perspective: int | None = None) -> str:
        """Position ``ply`` drawn for ``viewer`` (cached); ``perspective``: the seat whose side of
        the table a turning board is drawn from (a holder of several seats keeps their first)."""
        st = self.positions[ply]
        return self._cached(
            ("svg", ply, viewer, pending, perspective),
            lambda: st.to_svg(viewer, pending=pending, perspective=perspective),
        )

    def legal(self) -> list[dict]:
        """The legal actions of the seat to move with their notation and click paths."""

        def make():
            st = self.state
            ui = st.board_ui()
            out = []
            for a in st.legal_actions():
                mp = ui.action_paths(st, a)
                out.append({"a": a, "n": st.action_to_string(a), "p": [list(p) for p in mp.paths], "k": mp.kind})
            return out

        return self._cached("legal", make)

    def view(self, held: set[int], owner: bool = False) -> dict:
        """The ``state`` frame for a browser holding the seats ``held`` (empty: a spectator) and,
        when ``owner``, the game's owner token (``can_seat``: the seats it may give away, see
        :meth:`may_change_seat`).

        The viewer is the held seat to move, else the lowest held seat, else ``None``; the board
        is drawn from the lowest held seat's side (one orientation for several seats).
        """
        mover = self.to_move()
        viewer = mover if mover in held else (min(held) if held else None)
        live = not self.read_only
        frame = dict(self.public())
        frame.update(
            {
                "type": "state",
                "you": sorted(held),
                "viewer": viewer,
                "svg": self.svg(self.ply, viewer, perspective=min(held) if held else None),
                "phase": self._phase(viewer),
                "legal": self.legal() if live and mover is not None and mover in held else None,
                "can_undo": live and self.undo_target(held) is not None,
                "can_resign": live and bool(held - self.out_seats()) and not self.over,
                "owner": bool(owner),
                "can_seat": [
                    i for i in range(len(self.seats)) if live and self.may_change_seat(i, held, owner) is None
                ],
            }
        )
        return frame

    def _phase(self, viewer: int | None) -> str:
        """The board's status line: the game's own (``board_ui().status``), except after a
        resignation, which the rules know nothing of."""
        if self.kind != "play":
            return ""
        if self.resigned is not None:
            return f"The game ended by resignation: {self.label(self.resigned)} resigned."
        st = self.state
        return st.board_ui().status(st, viewer)

    def position(self, ply: int, held: set[int]) -> dict:
        """The ``position`` frame: position ``ply`` drawn for the viewer of ``held``.

        Raises:
            RoomError: ``ply`` is not an int in ``[0, ply]``.
        """
        if not is_plain_int(ply) or not 0 <= ply <= self.ply:
            raise RoomError(f"ply must be an integer from 0 to {self.ply}, got {ply!r}")
        st = self.positions[ply]
        mover = None if st.is_terminal() else int(st.current_player)
        viewer = mover if mover in held else (min(held) if held else None)
        return {
            "type": "position",
            "game": self.id,
            "ply": ply,
            "svg": self.svg(ply, viewer, perspective=min(held) if held else None),
            "phase": st.board_ui().status(st, viewer),
        }

    def downloadable(self) -> str | None:
        """``None`` when the record may be downloaded now, else why not: a game with hidden
        information (or hidden chance) is downloadable only once over, since its record holds
        the deal (every hand, the bag's order)."""
        info = self.positions[0].info
        if (not info.perfect_information or info.chance) and not self.over:
            return (
                "the record holds the deal (hidden hands, bag or pile order): "
                "it can be downloaded once the game is over"
            )
        return None

    def download(self) -> dict:
        """The library's JSON record of the game (``record_from_state``), with the seats in
        ``meta``; an uploaded record as it was uploaded. A resigned game keeps ``result`` null
        (the rules' outcome: a resignation is not one) and has ``meta.resigned`` (the seat) and
        ``meta.winners`` (the other side's seats).

        Raises:
            RoomError: not downloadable yet (:meth:`downloadable`).
        """
        why = self.downloadable()
        if why:
            raise RoomError(why)
        if self.kind == "record":
            assert self.record is not None  # a game of kind "record" is built with its record
            return self.record
        assert self.env is not None  # not a record: a game being played
        meta: dict[str, object] = {
            "room_game": self.id,
            "created": self.created,
            "players": [
                {"seat": i, "label": self.label(i), "kind": s.kind, "agent": s.agent}
                | ({"spec": s.spec} if s.kind == "agent" and s.spec else {})
                for i, s in enumerate(self.seats)
            ],
        }
        if self.seat_changes:
            meta["seat_changes"] = [dict(c) for c in self.seat_changes]
        if self.resigned is not None:  # not a rules result: "result" stays the rules' (null)
            meta["resigned"] = self.resigned
            meta["winners"] = (self.outcome() or {}).get("winners", [])
        if self.truncated:
            meta["truncated"] = True
        return record_from_state(self.env.state, self.env_id, self.env_kwargs, self.seed, meta=meta)


class _TrialEnv:
    """What :meth:`RoomGame.trial` keeps of an environment: a clone of its state, its step count
    and limit, stepped as :meth:`envs.core.aec.TabletopAECEnv.step` steps a live game (the state
    plays the move; reaching ``max_steps`` plies truncates a game the rules did not end)."""

    def __init__(self, env):
        self.state = env.state.clone()
        self.max_steps = env.max_steps
        self.num_steps = env.num_steps
        self.truncations = dict(env.truncations)
        self.possible_agents = list(env.possible_agents)

    def resign(self, agent: str) -> None:
        """``agent`` resigns under the rules (:meth:`envs.core.aec.TabletopAECEnv.resign`): the
        state's resignation, not a step."""
        self.state.resign(self.possible_agents.index(agent))

    def step(self, action) -> None:
        st = self.state
        st.apply(st.to_state_action(st.current_player, int(action)))
        self.num_steps += 1
        if not st.is_terminal() and self.max_steps is not None and self.num_steps >= self.max_steps:
            self.truncations = {a: True for a in self.truncations}


def action_index(state: GameState, action) -> int:
    """``action`` checked as an action index of ``state``'s game: an ``int`` (not a bool) in
    ``[0, num_actions)``.

    Raises:
        IllegalActionError: anything else (the message gives the range).
    """
    if not is_plain_int(action) or not 0 <= action < state.num_actions:
        raise IllegalActionError(f"an action must be an integer in [0, {state.num_actions}), got {action!r}")
    return action


def _record_positions(record: dict) -> list[GameState]:
    """Every position of a record: the start (the record replayed to ply 0), then each move pushed."""
    st = replay(record, upto=0)  # with the resignations at ply 0
    out = [st.clone()]
    later = [r for r in record.get("resignations") or [] if r[0] > 0]
    for i, move in enumerate(record["moves"]):
        try:
            st.push(move)
        except IllegalActionError as e:
            raise RoomError(f"move {i + 1} ({move!r}) of the record is illegal: {e}") from None
        while later and later[0][0] == i + 1:  # checked by replay below
            try:
                st.resign(later.pop(0)[1])
            except (NotImplementedError, ValueError) as e:
                raise RoomError(f"a resignation after move {i + 1} of the record is not possible: {e}") from None
        out.append(st.clone())
    replay(record)  # the whole record, its result checked
    return out
