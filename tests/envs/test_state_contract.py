"""The state contract of envs/core/state.py, checked on every rules core and variant.

Seeded random games of every registered environment id and each of its variants (``EnvSpec.variants``
in envs/registry.py: Ataxx with and without blockers, TwixT 8x8, 24x24, pp, swap, Double TwixT,
Tantrix with 2, 3, 4 players and Doubles, Smartrix with 2, 4, 7 players, teams, kids), plus the
registry. The environment half of the contract is in tests/envs/test_contract.py, over the same cases.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import pickle

import numpy as np
import pytest

import envs
from conftest import contract_cases, start_state
from envs.ataxx import AtaxxState
from envs.core.state import GameInfo, GameState, IllegalActionError, InvalidMoveError, Outcome, ParameterError
from envs.registry import EnvSpec, UnknownEnvError, register, spec
from envs.smartrix import SmartrixState
from envs.tantrix import TantrixState
from envs.twixt import TwixtState


def _expected_teams(env_id: str, kwargs: dict) -> list[list[int]]:
    """Partners sit at seats 0/2 and 1/3 (Double TwixT, Tantrix Doubles, Smartrix teams); else alone."""
    n = len(envs.make_raw(env_id, **kwargs).possible_agents)
    if env_id == "double_twixt_v0" or kwargs.get("teams"):
        return [[0, 2], [1, 3]]
    return [[p] for p in range(n)]


#: case id (``<env_id>-<variant>``, every registered id and variant: ``EnvSpec.variants``) ->
#: (factory(seed) giving the start state dealt by ``reset(seed)``, expected teams)
VARIANTS = {
    case.id: (functools.partial(start_state, *case.values), _expected_teams(*case.values)) for case in contract_cases()
}
NAMES = list(VARIANTS)
SEEDS = (0, 1)


def play_random(st: GameState, seed: int, check_every: int = 7) -> tuple[GameState, list[GameState]]:
    """Play ``st`` to the end with uniform random actions; return it and a few mid-game clones.
    Every ``check_every`` plies, ``legal_moves()`` is checked against ``legal_actions()``."""
    rng = np.random.default_rng(seed)
    snapshots = []
    ply = 0
    while not st.is_terminal():
        legal = st.legal_actions()
        assert legal, "a live state has a legal action"
        if ply % check_every == 0:
            assert st.legal_moves() == [st.action_to_string(a) for a in legal]
            assert st.outcome() is None and st.winners() == [] and st.returns().tolist() == [0.0] * st.num_players
            snapshots.append(st.clone())
        st.apply(legal[int(rng.integers(len(legal)))])
        ply += 1
    assert st.legal_actions() == [] and st.legal_moves() == [] and st.current_player == -1
    return st, snapshots


@pytest.fixture(scope="module")
def games():
    """name -> list of (seed, finished state, mid-game clones)."""
    cache: dict = {}

    def get(name):
        if name not in cache:
            factory = VARIANTS[name][0]
            cache[name] = [(seed, *play_random(factory(seed), seed)) for seed in SEEDS]
        return cache[name]

    return get


@pytest.mark.parametrize("name", NAMES)
def test_history_and_moves_replay_to_an_equal_state(name, games):
    factory = VARIANTS[name][0]
    for seed, st, snaps in games(name):
        hist, moves = st.history, st.moves()
        assert isinstance(hist, list) and all(type(a) is int for a in hist)
        assert isinstance(moves, list) and all(isinstance(m, str) for m in moves)
        assert len(hist) == len(moves) > 0
        by_text = factory(seed)
        for m in moves:
            by_text.push(m)
        by_action = factory(seed)
        for a in hist:
            by_action.apply(a)
        for again in (by_text, by_action):
            assert again == st and again.position_key() == st.position_key()
            assert again.history == hist and again.moves() == moves
            assert again.outcome() == st.outcome()
        hash(st.position_key())
        for snap in snaps:  # a prefix of the game, and its own history is that prefix
            assert snap.history == hist[: len(snap.history)] and snap.moves() == moves[: len(snap.history)]


@pytest.mark.parametrize("name", NAMES)
def test_outcome_agrees_with_returns_winners_and_scores(name, games):
    expected_teams = VARIANTS[name][1]
    for _, st, _ in games(name):
        out = st.outcome()
        assert isinstance(out, Outcome)
        r = st.returns()
        assert r.dtype == np.float64 and r.shape == (st.num_players,)
        assert out.returns == tuple(r.tolist())
        assert list(out.winners) == st.winners() == [p for p in range(st.num_players) if r[p] == r.max()]
        sc = st.scores()
        assert out.scores == (None if sc is None else tuple(sc))
        assert (sc is None) == name.startswith(("twixt", "double_twixt"))
        if sc is not None:
            assert len(sc) == st.num_players and all(type(x) is int for x in sc)
        if name.startswith("ataxx"):
            assert sc == list(st.stone_counts())
        assert str(out) == out.result and out.termination
        for team in expected_teams:  # partners share one result
            assert len({r[p] for p in team}) == 1
        if len(out.winners) == st.num_players:  # a draw between all
            assert set(r.tolist()) == {0.0}
        elif out.result in ("1-0", "0-1"):
            assert out.winners == tuple(expected_teams[("1-0", "0-1").index(out.result)])
        elif out.result.endswith(" won"):
            who, k = out.result.split()[:2]
            assert out.winners == (tuple(expected_teams[int(k)]) if who == "team" else (int(k),))
            assert r.max() == 1.0


@pytest.mark.parametrize("name", NAMES)
def test_teams_partition_the_seats(name):
    factory, expected = VARIANTS[name]
    st = factory(0)
    assert st.teams() == expected
    assert sorted(p for team in st.teams() for p in team) == list(range(st.num_players))
    for team in st.teams():
        assert {st.team_of(p) for p in team} == {st.team_of(team[0])}
    assert st.info.min_players <= st.num_players <= st.info.max_players
    assert st.info.teams or all(len(t) == 1 for t in st.teams())


@pytest.mark.parametrize("name", NAMES)
def test_to_text_per_viewer(name, games):
    factory = VARIANTS[name][0]
    for _, _, snaps in games(name):
        for st in [factory(3)] + snaps[1:3]:
            spectator = st.to_text()
            assert st.to_text(None) == spectator
            for v in range(st.num_players):
                text = st.to_text(viewer=v)
                if not isinstance(st, SmartrixState):
                    assert text == spectator == str(st)
                    continue
                assert f"player {v}" in text and f"hand {st.hand(v)}" in text
                for q in range(st.num_players):
                    if q != v:
                        assert f"hand {st.hand(q)}" not in text and f"{st.hand_size(q)} cards in hand (hidden)" in text
            with pytest.raises(ValueError, match="seat"):
                st.to_text(viewer=st.num_players)


def _same_for_player(d, st, p: int) -> None:
    """``d``, a sample of ``st`` for seat ``p``, is a new state of the same game that ``p`` sees as
    ``st`` (same view, mover and, for the mover, legal moves); with perfect information, ``st``."""
    assert type(d) is type(st) and d is not st
    assert d.to_text(viewer=p) == st.to_text(viewer=p)
    assert d.current_player == st.current_player
    if st.current_player == p:
        assert d.legal_moves() == st.legal_moves()
    if st.info.perfect_information:
        assert d == st and d.history == st.history


@pytest.mark.parametrize("name", NAMES)
def test_sample_determinization_keeps_what_the_player_sees(name, games):
    rng = np.random.default_rng(11)
    for _, _, snaps in games(name):
        for st in snaps[:4]:
            for p in range(st.num_players):
                _same_for_player(st.sample_determinization(p, rng), st, p)
            with pytest.raises(ValueError):
                st.sample_determinization(st.num_players, rng)


def test_sample_determinization_redraws_hidden_cards():
    st = SmartrixState(3, seed=4)
    d = st.sample_determinization(0, np.random.default_rng(1))
    assert d.hand(0) == st.hand(0) and d.hand(1) != st.hand(1)
    t = TantrixState(2, seed=4)
    e = t.sample_determinization(0, np.random.default_rng(1))
    assert e.bag_remaining() != t.bag_remaining() and sorted(e.bag_remaining()) == sorted(t.bag_remaining())


@pytest.mark.parametrize("name", NAMES)
def test_determinize_depends_only_on_what_the_player_knows(name, games):
    """``determinize(p, rng)`` keeps what ``p`` sees, and two states ``p`` cannot tell apart (the
    second one is another deal of what ``p`` cannot see: ``sample_determinization``) give equal
    samples from equal generators; perfect information: a clone, and ``rng`` is not drawn from."""
    for _, _, snaps in games(name):
        for st in snaps[:3]:
            for p in range(st.num_players):
                rng = np.random.default_rng(5)
                d = st.determinize(p, rng)
                _same_for_player(d, st, p)
                if st.info.perfect_information:
                    assert rng.bit_generator.state == np.random.default_rng(5).bit_generator.state
                    continue
                other = st.sample_determinization(p, np.random.default_rng(100 + p))
                assert other.to_text(viewer=p) == st.to_text(viewer=p)
                assert other.determinize(p, np.random.default_rng(5)) == d
            with pytest.raises(ValueError):
                st.determinize(st.num_players, np.random.default_rng(0))


def test_determinize_must_be_implemented_where_information_is_hidden():
    """The default is a clone only for perfect information: a game that hides something and does
    not say how to redraw it is refused rather than searched with its hidden part in view."""

    class Hidden(AtaxxState):
        info = dataclasses.replace(AtaxxState.info, perfect_information=False)

    with pytest.raises(NotImplementedError, match="has hidden information and must implement determinize"):
        Hidden().determinize(0, np.random.default_rng(0))
    assert AtaxxState().determinize(1, np.random.default_rng(0)) == AtaxxState()


def test_determinize_redraws_from_the_hidden_set():
    """Tantrix: the bag sorted by tile number (a set), then one ``permutation`` (the robot's
    sample, exactly); Smartrix: the unseen cards sorted, then one ``permutation`` dealt to the other
    hands in seat order and the rest to the pile."""
    t = TantrixState(2, seed=4)
    truth = t.sample_determinization(0, np.random.default_rng(9))  # the same tiles, another order
    assert truth.bag_remaining() != t.bag_remaining()
    rest = sorted(t.bag_remaining())
    perm = np.random.default_rng(1).permutation(len(rest))
    for st in (t, truth):
        e = st.determinize(0, np.random.default_rng(1))
        assert e.bag_remaining() == [rest[i] for i in perm]
        sorted_first = st.clone()
        sorted_first._bag[sorted_first._bpos :] = sorted(sorted_first._bag[sorted_first._bpos :])
        assert e == sorted_first.sample_determinization(0, np.random.default_rng(1))
    s = SmartrixState(3, seed=4)
    unseen = sorted(s.unseen_cards(0))
    perm = np.random.default_rng(2).permutation(len(unseen))
    dealt = [unseen[i] for i in perm]
    n1, n2 = len(s.hand(1)), len(s.hand(2))
    for st in (s, s.sample_determinization(0, np.random.default_rng(8))):
        d = st.determinize(0, np.random.default_rng(2))
        assert d.hand(0) == s.hand(0)
        assert d.hand(1) == sorted(dealt[:n1]) and d.hand(2) == sorted(dealt[n1 : n1 + n2])
        assert sorted(d.unseen_cards(0)) == unseen


@pytest.mark.parametrize("name", NAMES)
def test_copy_deepcopy_and_pickle_continue_identically(name, games):
    for seed, _, snaps in games(name):
        st = snaps[len(snaps) // 2]
        for c in (copy.copy(st), copy.deepcopy(st), st.clone(), pickle.loads(pickle.dumps(st))):
            assert c == st and c is not st and c.history == st.history and c.moves() == st.moves()
            a = st.legal_actions()[seed % len(st.legal_actions())]
            c2, s2 = c.clone(), st.clone()
            c2.apply(a)
            s2.apply(a)
            assert c2 == s2 and c2 != st and c2.history == s2.history


def _well_formed_illegal(st: GameState) -> str:
    """A move written correctly that is not legal in the start state ``st``."""
    if isinstance(st, AtaxxState):
        return "d4"  # no stone nearby
    if isinstance(st, TwixtState):
        return "a1"  # a corner hole
    if isinstance(st, TantrixState):
        tile = next(t for t in range(1, 57) if t not in st.hand(st.current_player))
        return f"t{tile}@0,0r0"  # not in the mover's hand
    tile = next(c for c in range(1, 71) if c not in st.hand(st.current_player))
    return f"{tile}r0@+1,+0"  # Smartrix: a card the mover does not hold


@pytest.mark.parametrize("name", NAMES)
def test_malformed_text_vs_illegal_move(name):
    st = VARIANTS[name][0](5)
    key, hist = st.position_key(), list(st.history)
    for text in ("", "zz9999", "hello world", "t@@r", "17r9@x"):
        with pytest.raises(InvalidMoveError):
            st.push(text)
        with pytest.raises(InvalidMoveError):
            st.string_to_action(text)
    with pytest.raises(InvalidMoveError):
        st.push(42)
    bad = _well_formed_illegal(st)
    with pytest.raises(IllegalActionError) as err:
        st.push(bad)
    assert not isinstance(err.value, InvalidMoveError) and len(str(err.value)) > 10
    assert issubclass(InvalidMoveError, IllegalActionError) and issubclass(InvalidMoveError, ValueError)
    assert st.position_key() == key and st.history == hist
    with pytest.raises(IllegalActionError):
        st.apply(st.num_actions)
    assert st.position_key() == key and st.history == hist


def test_game_info_facts():
    infos = {cls.info.short_name: cls.info for cls in (AtaxxState, TwixtState, TantrixState, SmartrixState)}
    assert set(infos) == {"ataxx", "twixt", "tantrix", "smartrix"}
    assert all(isinstance(i, GameInfo) for i in infos.values())
    facts = {k: (i.perfect_information, i.chance, i.min_players, i.max_players, i.teams) for k, i in infos.items()}
    assert facts == {
        "ataxx": (True, False, 2, 2, False),
        "twixt": (True, False, 2, 4, True),
        "tantrix": (False, True, 2, 4, True),
        "smartrix": (False, True, 2, 7, True),
    }
    assert "g2" in infos["ataxx"].notation and "c5!" in infos["twixt"].notation
    assert "t23@0,-1r2" in infos["tantrix"].notation and "17r1@-1,+2" in infos["smartrix"].notation
    with pytest.raises(dataclasses.FrozenInstanceError):
        infos["ataxx"].chance = True  # frozen


def test_seat_names():
    assert [AtaxxState().seat_name(p) for p in range(2)] == ["x", "o"]
    assert [TwixtState(8).seat_name(p) for p in range(2)] == ["red", "black"]
    assert [TwixtState(8, num_players=4).seat_name(p) for p in range(4)] == ["red A", "black A", "red B", "black B"]
    assert [TantrixState(3, seed=0).seat_name(p) for p in range(3)] == ["red", "yellow", "blue"]
    assert [TantrixState(4, teams=True, colors="BG", seed=0).seat_name(p) for p in range(4)] == [
        "blue",
        "green",
        "blue",
        "green",
    ]
    assert SmartrixState(2, seed=0).seat_name(1) == ""
    with pytest.raises(ValueError, match="seat"):
        AtaxxState().seat_name(2)


@pytest.mark.parametrize("name", NAMES)
def test_setting_name_is_the_long_name_except_for_named_variants(name):
    st = VARIANTS[name][0](0)
    expected = {"double_twixt_v0": "Double TwixT"}.get(name.split("-")[0], st.info.long_name)
    if isinstance(st, TantrixState) and st.team_game:
        expected = st.info.long_name + " Doubles"
    assert st.setting_name() == expected and st.clone().setting_name() == expected


def test_setting_names():
    assert AtaxxState().setting_name() == "Ataxx"
    assert TwixtState(8).setting_name() == "TwixT" and TwixtState(8, num_players=4).setting_name() == "Double TwixT"
    assert TantrixState(4, seed=0).setting_name() == TantrixState(2, seed=0).info.long_name
    assert TantrixState(4, teams=True, seed=0).setting_name() == TantrixState(4, seed=0).info.long_name + " Doubles"


def test_outcome_before_the_end_and_result_texts():
    s = AtaxxState()
    assert s.outcome() is None and s.winners() == [] and s.scores() == [2, 2]
    s = AtaxxState("7/7/7/7/7/7/x6 o 0 1")  # o has no stones: x wins
    out = s.outcome()
    assert out == Outcome("1-0", "a side has no stones", (0,), (1.0, -1.0), (1, 0))
    assert f"{out}" == "1-0"


# ---------------------------------------------------------------------------- registry
def test_registry_specs_and_helpers():
    assert envs.ENV_IDS == ("ataxx_v0", "twixt_v0", "double_twixt_v0", "tantrix_v0", "smartrix_v0")
    assert set(envs.ENV_IDS) <= set(envs.env_ids())
    s = envs.spec("double_twixt_v0")
    assert isinstance(s, EnvSpec) and s.id == "double_twixt_v0" and s.entry_point == "envs.double_twixt_v0"
    assert s.kwargs == {} and s.max_episode_steps is None
    assert s.num_players(board_size=8) == 4 and s.teams(board_size=8) == [[0, 2], [1, 3]]
    assert spec("tantrix_v0").num_players(num_players=3) == 3
    assert spec("tantrix_v0").teams(num_players=4, teams=True) == [[0, 2], [1, 3]]
    assert spec("smartrix_v0").teams(num_players=7) == [[p] for p in range(7)]
    assert spec("ataxx_v0").initial_state().fen() == "x5o/7/7/7/7/7/o5x x 0 1"
    raw = spec("twixt_v0").make_raw(board_size=8)
    raw.reset(seed=0)
    assert raw.state.board_size == 8 and raw.num_players == 2


def test_registry_errors_are_stated_once():
    with pytest.raises(UnknownEnvError, match="unknown environment id 'chess_v0'; known ids: ataxx_v0") as e:
        envs.make("chess_v0")
    assert isinstance(e.value, KeyError) and isinstance(e.value, ValueError)
    assert str(e.value).startswith("unknown environment id 'chess_v0'")
    with pytest.raises(ParameterError, match=r"ataxx_v0 has no argument 'board_size'; its arguments are: fen, "):
        envs.make_raw("ataxx_v0", board_size=8)
    with pytest.raises(ParameterError, match="already registered"):
        register("ataxx_v0", "envs.ataxx_v0")
    with pytest.raises(ParameterError, match="max_episode_steps"):
        register("ataxx_limit_v0", "envs.ataxx_v0", max_episode_steps=0)


def test_register_with_defaults_and_step_limit():
    from envs import registry

    s = register("small_twixt_test_v0", "envs.twixt_v0", kwargs={"board_size": 6}, max_episode_steps=3)
    try:
        assert envs.spec("small_twixt_test_v0") is s and "small_twixt_test_v0" in envs.env_ids()
        env = envs.make_raw("small_twixt_test_v0")
        assert env.max_steps == 3
        env.reset(seed=0)
        assert env.state.board_size == 6
        assert envs.make_raw("small_twixt_test_v0", board_size=7, max_steps=None).max_steps is None
        assert s.num_players() == 2
    finally:
        del registry._REGISTRY["small_twixt_test_v0"]


def test_a_bad_entry_point_is_named_with_its_env_id(monkeypatch):
    """Found by a newcomer: a registered id whose module cannot be imported gave a bare 'No module named'."""
    from envs import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    envs.register("nowhere_v0", "no.such.module")
    with pytest.raises(
        ModuleNotFoundError,
        match=r"nowhere_v0 is registered with the entry point 'no.such.module', "
        r"which cannot be imported: No module named 'no'",
    ):
        envs.make("nowhere_v0")
    envs.register("notenv_v0", "envs.core.records")
    with pytest.raises(AttributeError, match=r"notenv_v0's entry point 'envs.core.records' has no env or raw_env"):
        envs.make_raw("notenv_v0")
