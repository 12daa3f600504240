"""TwixT with ``links="manual"`` (the box rules, RULES.md "Box rules"): turns, masks, notation,
early draws, records, environments, agents, and the equivalence with the automatic game."""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import warnings
from collections import deque

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs
from envs.core.state import IllegalActionError, InvalidMoveError, ParameterError
from envs.twixt import TwixtState, geometry, segments_cross
from envs.twixt.observation import TwixtObservation
from envs.twixt.records import format_moves, format_t1, format_tsgf, parse_moves, record_from_state, replay


def manual(moves="", size=8, **kw):
    return TwixtState.from_moves(moves, board_size=size, links="manual", **kw)


def _unchanged(st, fn):
    """``fn()`` raises IllegalActionError and leaves ``st`` exactly as it was."""
    key, hist = st.position_key(), list(st.history)
    with pytest.raises(IllegalActionError) as e:
        fn()
    assert st.position_key() == key and st.history == hist
    return str(e.value)


# ---------------------------------------------------------------------------- turn structure
def test_action_space_and_defaults():
    auto = TwixtState(24)
    assert auto.linking == "auto" and auto.num_actions == 577
    g = geometry(24)
    st = TwixtState(24, links="manual")
    assert g.num_links == 2016
    assert st.num_actions == 576 + 2 + 2 * 2016 == 4610
    assert TwixtState(24, links="manual", num_players=4).num_actions == 4611
    with pytest.raises(ParameterError, match="links must be 'auto'"):
        TwixtState(8, links="box")
    # Before the placement: holes (+ swap on ply 2) and removals; never additions or end.
    m = st.legal_action_mask()
    assert m.dtype == np.int8 and m.shape == (4610,)
    assert m[:576].sum() == 528 and m[576:].sum() == 0


def test_a_link_added_between_two_old_pegs():
    st = manual("c3 end b7 end d5 end g7 end")  # red leaves c3-d5 out on purpose
    assert st.links() == []
    assert "+c3d5" not in st.legal_moves()  # additions only after the placement
    st.push("f2")
    assert st.placed and st.last_placed == (1, 5)
    assert st.legal_moves() == ["+c3d5", "end"]  # c3-d5 is legal although neither peg is new
    st.push("+d5c3")  # end points in any order
    assert st.links() == [((2, 2), (4, 3), 0)]
    assert st.moves()[-1] == "+c3d5"
    assert st.legal_moves() == ["end"]
    st.push("end")
    assert st.current_player == 1 and not st.placed and st.turn_number == 5


def test_a_removal_makes_a_link_legal_later():
    st = manual("c3 end b7 end d5 +c3d5 end g7 end d3 end b6 end c5")
    # d3-c5 crosses red's own c3-d5: blocked under the standard rules.
    assert st.legal_moves() == ["end"]
    msg = _unchanged(st, lambda: st.push("+c5d3"))
    assert "would cross the red link c3d5" in msg
    st.push("end")
    st.push("g6")
    st.push("end")
    st.push("-d5c3")  # before the placement: remove the own link
    assert st.links() == []
    assert "+c5d3" not in st.legal_moves()  # still before the placement
    st.push("g2")
    assert st.legal_moves() == ["+c3d5", "+d3c5", "end"]
    st.push("+d3c5")
    assert st.legal_moves() == ["end"]  # now c3-d5 is the blocked one
    assert st.links() == [((2, 3), (4, 2), 0)]


def test_removal_offered_only_before_the_placement():
    st = manual("c3 end b7 end d5 +c3d5 end g7 end")
    n, nl = 64, geometry(8).num_links
    rem = st.link_action((2, 2), (4, 3), remove=True)
    assert rem == n + 1 + nl + geometry(8).link_id(2 * 8 + 2, 4 * 8 + 3)
    m = st.legal_action_mask()
    assert m[rem] == 1 and m[n + 1 + nl : n + 1 + 2 * nl].sum() == 1
    assert "-c3d5" in st.legal_moves()
    st.push("e2")
    assert st.legal_action_mask()[rem] == 0
    assert "links may be removed only before the placement" in _unchanged(st, lambda: st.apply(rem))
    st.push("end")
    # Black may not remove red's link, and nobody removes a link that is not there.
    assert "only your own colour's links may be removed" in _unchanged(st, lambda: st.apply(rem))
    assert "there is no link a2c3 to remove" in _unchanged(st, lambda: st.push("-a2c3"))
    # Nor end before placing, nor add before placing, nor place twice.
    assert "'end' comes after the placement" in _unchanged(st, lambda: st.push("end"))
    assert "place a peg first" in _unchanged(st, lambda: st.push("+c3d5"))
    st.push("b5")
    assert "already placed (b5)" in _unchanged(st, lambda: st.push("b4"))


@pytest.mark.parametrize("rules", ["standard", "pp"])
def test_crossing_under_both_rule_sets(rules):
    # Own crossing: red c3-d5 then red d3 and c5.
    st = manual("c3 end b7 end d5 +c3d5 end g7 end d3 end b6 end c5", rules=rules)
    if rules == "standard":
        assert st.legal_moves() == ["end"]
    else:
        assert st.legal_moves() == ["+d3c5", "end"]  # own links may cross (TwixT PP)
        st.push("+c5d3")
        assert len(st.links()) == 2
    # Opponent crossing: black links d3-c5 across red's unlinked c3 and d5: blocked in both.
    st = manual("c3 end d3 end d5 end c5 +c5d3 end", rules=rules)
    st.push("f2")
    assert st.legal_moves() == ["end"]
    assert "would cross the black link d3c5" in _unchanged(st, lambda: st.push("+c3d5"))
    # Links sharing a peg never cross: both links from one new peg can be added.
    st = manual("c3 end b7 end f4 end g7 end d5", rules=rules)
    assert st.legal_moves() == ["+c3d5", "+f4d5", "end"]
    st.push("+c3d5")
    st.push("+d5f4")
    assert len(st.links()) == 2 and st.legal_moves() == ["end"]


def test_geometry_crossing_table_matches_segments():
    g = geometry(8)
    for lid in range(0, g.num_links, 7):
        p, q = g.link_ends[lid]
        a1, a2 = divmod(p, 8), divmod(q, 8)
        for x in range(g.num_links):
            b1, b2 = (divmod(h, 8) for h in g.link_ends[x])
            assert (x in g.cross_set[lid]) == segments_cross(a1, a2, b1, b2)


def test_team_links_and_the_privilege_in_double_twixt():
    st = manual("c3 end b7 end d5", num_players=4)
    assert st.current_player == 2  # red B placed d5
    assert st.legal_moves() == ["+c3d5", "end", "end!"]  # partner's peg c3 counts as own
    st.push("+c3d5")
    st.push("end!")
    assert st.current_player == 0 and st.privilege_used(0) and not st.privilege_used(1)
    assert "-c3d5" in st.legal_moves()  # red A may remove the link red B made
    st.push("-c3d5")
    st.push("g2")
    assert st.legal_moves() == ["+c3d5", "end"]  # no second Privilege
    assert "already claimed its Privilege" in _unchanged(st, lambda: st.push("end!"))
    st.push("end")
    assert st.current_player == 1
    st.push("g6")
    assert st.legal_moves() == ["end", "end!"]
    st.push("end!")
    assert st.current_player == 3 and st.privilege_used(1)
    with pytest.raises(InvalidMoveError, match="exists only in Double TwixT"):
        manual().push("end!")


def test_win_at_the_addition_and_board_full_draw():
    # 5x5: red c1 - d3 - c5 joins rows 1 and 5 once both links are added.
    st = manual("c1 end b2 end d3 end b4 end c5", size=5)
    assert not st.is_terminal()
    st.push("+c5d3")
    assert not st.is_terminal()
    st.push("+c1d3")
    assert st.is_terminal() and st.outcome().result == "1-0" and st.current_player == -1
    assert st.outcome().termination == "red connected its borders"
    assert st.legal_actions() == [] and st.legal_action_mask().sum() == 0


# ---------------------------------------------------------------------------- notation
def test_notation_round_trips_and_errors():
    st = manual("c3 end b7 end d5", num_players=4)
    for a in range(st.num_actions):
        text = st.action_to_string(a)
        assert st.string_to_action(text) == a
        assert st.string_to_action(text.upper()) == a
    assert st.string_to_action("+D5C3") == st.string_to_action("+c3d5")
    for bad, what in (
        ("+c3c5", "not a knight's move apart"),
        ("+c3", "not a link move"),
        ("+c3z9", "not a link move"),
        ("c5!", "claimed with 'end!'"),
    ):
        with pytest.raises(InvalidMoveError, match=what):
            st.string_to_action(bad)
    auto = TwixtState(8)
    for text in ("end", "+c3d5", "-c3d5"):
        with pytest.raises(InvalidMoveError, match="only with links='manual'"):
            auto.string_to_action(text)
    assert "links='manual'" in repr(manual("c3")) and eval(
        repr(manual("c3 end")), {"TwixtState": TwixtState}
    ) == manual("c3 end")


def test_black_frame_transposes_links():
    st = manual("c3 end b7 end d5 +c3d5 end c6", swap=False)
    assert st.current_player == 1 and st.placed
    mask, agent_mask = st.legal_action_mask(), st.agent_action_mask(1)
    for a in range(st.num_actions):
        s_a = st.to_state_action(1, a)
        assert st.to_agent_action(1, s_a) == a
        assert agent_mask[a] == mask[s_a]
    # Black's agent-frame link (r1, c1)-(r2, c2) is the board's link (c1, r1)-(c2, r2).
    a = st.link_action((2, 2), (4, 3))  # c3-d5 in the board frame
    t = st.link_action((2, 2), (3, 4))  # c3-e4: transposed c3-d5 is (2,2)-(3,4)
    assert st.to_state_action(1, t) == a and st.to_state_action(0, t) == t


# ---------------------------------------------------------------------------- early draw
def _can_connect(st: TwixtState, colour: int) -> bool:
    """Independent check of RULES.md "Box rules", early draw: a knight path between the colour's
    borders through empty or own holes of its legal area, no step crossing an *opponent* link."""
    s = st.board_size
    pegs = st.pegs()
    opp = [(a, b) for a, b, c in st.links() if c != colour]

    def ok(r, c):
        if (r, c) in ((0, 0), (0, s - 1), (s - 1, 0), (s - 1, s - 1)):
            return False
        if pegs[r, c] == 2 - colour:
            return False
        return (0 < c < s - 1) if colour == 0 else (0 < r < s - 1)

    start = [(0, c) for c in range(s)] if colour == 0 else [(r, 0) for r in range(s)]
    start = [h for h in start if ok(*h)]
    goal = (lambda h: h[0] == s - 1) if colour == 0 else (lambda h: h[1] == s - 1)
    seen, todo = set(start), deque(start)
    while todo:
        h = todo.popleft()
        if goal(h):
            return True
        for dr, dc in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, 2), (-2, 1), (-2, -1), (-1, -2)):
            nb = (h[0] + dr, h[1] + dc)
            if nb in seen or not (0 <= nb[0] < s and 0 <= nb[1] < s) or not ok(*nb):
                continue
            if any(segments_cross(h, nb, a, b) for a, b in opp):
                continue
            seen.add(nb)
            todo.append(nb)
    return False


def _box_player(st: TwixtState, rng, remove: float = 0.05) -> int:
    """A random box-rules player: places anywhere, sometimes removes an own link first, adds
    random legal links (any two own pegs) and ends with probability 1/5 while it could add more.
    ``remove``: the chance of removing a link when it could."""
    legal = st.legal_actions()
    n = st.board_size**2
    if st.placed:
        adds = legal[:-1] if st.num_players == 2 else legal[:-2]
        return adds[rng.integers(len(adds))] if adds and rng.random() < 0.8 else st.string_to_action("end")
    holes = [a for a in legal if a < n]
    removals = [a for a in legal if a > n]
    if removals and rng.random() < remove:
        return removals[rng.integers(len(removals))]
    return holes[rng.integers(len(holes))]


def test_early_draw_counts_only_opponent_links():
    rng = np.random.default_rng(5)
    draws = own_only = games = 0
    while games < 16 and not (draws and own_only and games >= 6):
        st = TwixtState(8, links="manual", rules="standard")
        games += 1
        while not st.is_terminal():
            st.apply(_box_player(st, rng))
            if len(st.history) % 9 == 0 and not st.is_terminal():
                for c in (0, 1):
                    expect = _can_connect(st, c)
                    assert st.can_still_connect(c) == expect, (st.moves(), c)
                    # The automatic standard rule would also count own links: they never block here.
                    if expect and _blocked_by_any_link(st, c):
                        own_only += 1
        if st.outcome().termination == "neither side can still connect":
            draws += 1
            assert not _can_connect(st, 0) and not _can_connect(st, 1)
            prev = TwixtState.from_moves(st.moves()[:-1], board_size=8, links="manual")
            assert _can_connect(prev, 0) or _can_connect(prev, 1)  # drawn as soon as, not later
    assert draws >= 1 and own_only >= 1


def _blocked_by_any_link(st, colour) -> bool:
    """Whether ``colour`` could not connect if its own links blocked it too (the standard rule of
    the automatic game)."""
    probe = TwixtState(st.board_size, rules="standard", draw="board_full")
    probe._pegs[:] = st._pegs
    probe._lc[:] = st._lc
    probe._order = list(st._order)
    return not probe.can_still_connect(colour)


# ---------------------------------------------------------------------------- equivalence
def _auto_vs_manual(size, rules, swap, players, draw, seed):
    """A manual player who never removes and adds every legal link from its new peg plays the
    automatic game: compared after every turn."""
    rng = np.random.default_rng(seed)
    kw = dict(board_size=size, rules=rules, swap=swap, draw=draw, num_players=players)
    auto, man = TwixtState(**kw), TwixtState(**kw, links="manual")
    n = size * size
    while not auto.is_terminal():
        assert man.current_player == auto.current_player and not man.is_terminal()
        legal = auto.legal_actions()
        a = legal[rng.integers(len(legal))]
        auto.apply(a)
        claim = players == 4 and a > n
        man.apply(a - n - 1 if claim else a)
        r, c = man.last_placed
        new = r * size + c
        while not man.is_terminal():
            ends = geometry(size).link_ends
            adds = [
                x for x in man.legal_actions() if n < x < n + 1 + geometry(size).num_links and new in ends[x - n - 1]
            ]
            if not adds:
                break
            man.apply(adds[rng.integers(len(adds))])  # any order: links sharing a peg never cross
        if not man.is_terminal():
            man.push("end!" if claim else "end")
        assert np.array_equal(man.pegs(), auto.pegs())
        if auto.winners() and len(auto.winners()) < players:  # the game ends at the winning addition
            assert set(man._order) <= set(auto._order)
        else:
            assert np.array_equal(man.link_colours(), auto.link_colours())
        assert man.turn_number == auto.turn_number
    assert man.is_terminal()
    assert man.outcome() == auto.outcome()
    return auto


def test_never_removing_and_adding_every_link_plays_the_automatic_game():
    ends = set()
    cases = 0
    for seed in range(72):
        size = (8, 9, 11, 13, 16, 20, 24)[seed % 7]
        players = 4 if seed % 4 == 3 else 2
        auto = _auto_vs_manual(
            size, ("standard", "pp")[seed % 2], players == 2 and seed % 3 == 0, players, "board_full", seed
        )
        ends.add(auto.outcome().termination)
        cases += 1
    assert cases == 72 and len(ends) == 3


def test_pp_early_draws_agree_too():
    # With rules="pp" own links never block in either mode, so even draw="early" agrees.
    ends = [_auto_vs_manual(10, "pp", False, 2, "early", seed).outcome().termination for seed in range(8)]
    assert len(ends) == 8


# ---------------------------------------------------------------------------- copies, records
def test_clone_and_pickle_mid_turn_continue_identically():
    rng = np.random.default_rng(3)
    st = TwixtState(8, links="manual", swap=True)
    for _ in range(40):
        legal = st.legal_actions()
        st.apply(legal[rng.integers(len(legal))])
    for other in (st.clone(), copy.deepcopy(st), pickle.loads(pickle.dumps(st))):
        assert other == st and other.history == st.history
        r1, r2 = np.random.default_rng(9), np.random.default_rng(9)
        a, b = st.clone(), other
        while not a.is_terminal():
            assert a.legal_actions() == b.legal_actions()
            la = a.legal_actions()
            x = la[r1.integers(len(la))]
            assert x == la[r2.integers(len(la))]
            a.apply(x)
            b.apply(x)
        assert a == b and a.outcome() == b.outcome()


def test_records_read_and_write_manual_games():
    st = manual("c3 end b7 end d5 +c3d5 end g7 end -c3d5 e2 +c3d5 end", num_players=2)
    rec = record_from_state(st)
    assert rec.links == "manual"
    text = format_moves(rec, sep=", ")
    assert "# links=manual" in text and "-c3d5, e2, +c3d5, end" in text
    back = parse_moves(text)
    assert back.moves == st.moves() and replay(back, draw="early") == st
    assert "# links" not in format_moves(record_from_state(TwixtState(8)))  # auto records unchanged
    with pytest.raises(ParameterError, match="links='manual'"):
        format_tsgf(rec)
    with pytest.raises(ParameterError, match="links='manual'"):
        format_t1(rec)
    # "resign" goes to the player to move: the turn passes only at end.
    assert parse_moves(text.replace("+c3d5, end\n", "+c3d5, end, f6, resign\n")).resigned == 1
    from envs.core import records as common

    raw = envs.make_raw("double_twixt_v0", board_size=8, links="manual")
    raw.reset(seed=0)
    for m in ("c3", "end", "b7", "end", "d5", "+c3d5", "end!"):
        raw.state.push(m)
    rec2 = common.record_from_state(raw.state, "double_twixt_v0", {"board_size": 8, "links": "manual"})
    assert rec2["moves"] == ["c3", "end", "b7", "end", "d5", "+c3d5", "end!"]
    assert common.replay(rec2) == raw.state


# ---------------------------------------------------------------------------- environments
@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("twixt_v0", {"board_size": 8, "links": "manual"}),
        ("twixt_v0", {"board_size": 9, "links": "manual", "swap": True, "rules": "pp"}),
    ],
)  # double_twixt_v0 board_size=8 links="manual": tests/envs/test_contract.py[double_twixt_v0-manual]
def test_pettingzoo_api_seed_and_render(env_id, kwargs):
    module = getattr(envs, env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(module.env(**kwargs), num_cycles=300)
        seed_test(lambda **k: module.env(**kwargs, **k), num_cycles=300)
        with contextlib.redirect_stdout(io.StringIO()):
            render_test(lambda **k: module.env(**kwargs, **k))


def test_observation_phase_planes_and_incremental_encoding():
    raw = envs.make_raw("twixt_v0", board_size=8, links="manual", swap=True)
    assert raw.observation_space("player_0")["observation"].shape == (8, 8, 25)
    layout = raw.action_layout()
    assert layout.index.shape == (9, 8, 8)
    assert layout.off_grid.tolist() == [64, raw.num_actions - 1]  # swap, end
    raw.reset(seed=0)
    raw.step(raw.string_to_action("c3"))
    o = raw.observe("player_0")["observation"]
    assert o[:, :, 23].min() == 1.0  # placed this turn
    assert o[:, :, 24].sum() == 1 and o[2, 2, 24] == 1  # the new peg, c3 = (row 2, col 2)
    o1 = raw.observe("player_1")["observation"]
    assert o1[2, 2, 24] == 1 and o1[:, :, 23].min() == 1.0  # transposed c3 is itself
    raw.step(raw.string_to_action("end"))
    o = raw.observe("player_1")["observation"]
    assert o[:, :, 23].max() == 0 and o[:, :, 24].sum() == 0
    # Along random games with removals, the incremental encoder equals a fresh one.
    rng = np.random.default_rng(1)
    for size, players in ((8, 2), (7, 4)):
        st = TwixtState(size, links="manual", num_players=players)
        enc = TwixtObservation(st)
        removals = 0
        while not st.is_terminal():
            a = _box_player(st, rng, remove=0.3)
            removals += st.action_to_string(a).startswith("-")
            st.apply(a)
            for pl in range(players):
                assert np.array_equal(enc.encode(st, pl), TwixtObservation(st).encode(st, pl))
        assert removals > 0


def test_agents_play_manual_games():
    from training.agents import make_agent

    for env_id, spec in (
        ("twixt_v0", "random"),
        ("twixt_v0", "greedy"),
        ("twixt_v0", "alphabeta:1"),
        ("twixt_v0", "mcts:8"),
        ("double_twixt_v0", "greedy"),
        ("double_twixt_v0", "mcts:8"),
    ):
        raw = envs.make_raw(env_id, board_size=6, links="manual")
        raw.reset(seed=1)
        agent = make_agent(spec, seed=0)
        steps = 0
        while not any(raw.terminations.values()) and steps < 80:
            obs = raw.observe(raw.agent_selection)
            a = agent.act(raw.state, obs)
            assert obs["action_mask"][a] == 1, (spec, a)
            raw.step(a)
            steps += 1
        assert steps >= 8 and raw.state.turn_number >= 3, spec


def test_greedy_adds_the_new_pegs_links_then_ends():
    from envs.twixt.heuristics import greedy_action, manual_followup

    st = manual("c3 end b7 end f4 end g7 end d5")
    assert manual_followup(st) == st.string_to_action("+d5f4")  # KNIGHT_DIRS order from d5
    assert greedy_action(st, np.random.default_rng(0)) == manual_followup(st)  # the greedy agent's move
    st.push("+d5f4")
    assert manual_followup(st) == st.string_to_action("+c3d5")
    st.push("+c3d5")
    assert manual_followup(st) == st.string_to_action("end")
    st.push("end")
    assert manual_followup(st) is None and manual_followup(TwixtState(8)) is None


def test_training_config_for_the_box_rules():
    from training.train import load_config

    cfg = load_config("configs/twixt_manual_quick.yaml")  # validated
    assert cfg["env_id"] == "twixt_v0" and cfg["env_kwargs"] == {"board_size": 8, "links": "manual"}
    raw = envs.make_raw(cfg["env_id"], **cfg["env_kwargs"])
    layout = raw.action_layout()
    n, nl = 64, geometry(8).num_links
    assert layout.planes == 9 and raw.num_actions == n + 2 + 2 * nl
    on_grid = np.sort(layout.index[layout.index >= 0])
    assert np.array_equal(on_grid, np.r_[0:n, n + 1 : n + 1 + 2 * nl])  # every hole and link action, once
