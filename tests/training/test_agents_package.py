"""The agents package: frames converted once in ``Agent.act``, evaluators, each game's heuristics
reached through the state contract, the one table of agent specs, and move-for-move regression
against the agents as they were before the package (hashes recorded from ``training/agents.py``)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.ataxx import AtaxxState
from envs.core.heuristics import Heuristics, load_heuristics, one_ply_greedy
from envs.registry import make_raw
from training.agents import (
    SPECS,
    Agent,
    AlphaBetaAgent,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    make_agent,
    spec_forms,
    specs_markdown,
)
from training.agents.shipped import shipped_names

ROOT = Path(__file__).resolve().parents[2]

# ----------------------------------------------------------------------------- frames
# TwixT 8x8 after red's d2: black to move. Black's environment frame is the transposed board, so
# the absolute hole f3 (row 2, col 5) is the agent-frame action c6 (row 5, col 2); both are legal
# for black, so a search agent that forgot the conversion would still play a legal, wrong move.
H_ROW, H_COL = 2, 5
H = H_ROW * 8 + H_COL


def _twixt_black_to_move():
    raw = make_raw("twixt_v0", board_size=8)
    raw.reset(seed=0)
    raw.step(raw.state.string_to_action("d2"))  # red (agent frame = absolute for red)
    assert raw.state.current_player == 1
    return raw


def _wants_f3(state, player: int) -> float:
    """An evaluator that likes exactly one thing: a black peg on the absolute hole f3."""
    black_on_h = state.peg_at(H_ROW, H_COL) == 2
    return (1.0 if player % 2 == 1 else -1.0) * float(black_on_h)


@pytest.mark.parametrize(
    "agent",
    [
        GreedyAgent(seed=0, evaluator=_wants_f3),
        AlphaBetaAgent(1, seed=0, evaluator=_wants_f3),
        AlphaBetaAgent(2, seed=0, evaluator=_wants_f3),
        MCTSAgent(200, seed=0, value_scale=0.1, evaluator=_wants_f3),
    ],
    ids=["greedy", "alphabeta:1", "alphabeta:2", "mcts:200"],
)
def test_search_agents_as_twixt_black_play_the_hole_they_mean(agent):
    raw = _twixt_black_to_move()
    state = raw.state
    transposed = H_COL * 8 + H_ROW
    assert state.to_agent_action(1, H) == transposed != H
    assert state.legal_action_mask()[H] == 1 and state.legal_action_mask()[transposed] == 1
    action = agent.act(state, raw.observe(raw.agent_selection))
    assert action == transposed  # the agent answers in its own (transposed) frame ...
    raw.step(action)
    assert raw.state.peg_at(H_ROW, H_COL) == 2  # ... and the peg lands on the hole it meant
    assert raw.state.peg_at(H_COL, H_ROW) == 0
    assert raw.state.history[-1] == H


def test_frame_declarations_are_converted_once_by_the_base_class():
    class AbsoluteF3(Agent):  # thinks in the state's frame (the default)
        name = "absolute"

        def _act(self, state, obs):
            return H

    class AgentFrameFirst(Agent):
        name = "first"
        frame = "agent"

        def _act(self, state, obs):
            return int(np.flatnonzero(obs["action_mask"])[0])

    raw = _twixt_black_to_move()
    obs = raw.observe(raw.agent_selection)
    assert AbsoluteF3.frame == "state"
    assert AbsoluteF3().act(raw.state, obs) == H_COL * 8 + H_ROW
    assert AgentFrameFirst().act(raw.state, obs) == int(np.flatnonzero(obs["action_mask"])[0])
    assert RandomAgent.frame == "agent" and GreedyAgent.frame == "state" and MCTSAgent.frame == "state"
    with pytest.raises(TypeError, match=r"Bad\.frame must be one of \('state', 'agent'\), got 'absolute'"):
        type("Bad", (Agent,), {"frame": "absolute"})
    with pytest.raises(ValueError, match=r"^absolute thinks in the state's frame and needs the state, got state=None$"):
        AbsoluteF3().act(None, obs)


def test_an_agent_answer_that_is_illegal_in_its_frame_is_a_clear_error():
    class Occupied(Agent):
        name = "occupied"

        def _act(self, state, obs):
            return state.history[0]  # red's d2: taken

    raw = _twixt_black_to_move()
    with pytest.raises(
        RuntimeError,
        match=r"^occupied chose action \d+, which is not legal in its frame "
        r"\(frame='state'; \d+ legal actions\)$",
    ):
        Occupied().act(raw.state, raw.observe(raw.agent_selection))


# ----------------------------------------------------------------------------- heuristics
SCALES = {"ataxx": 10.0, "twixt": 10.0, "tantrix": 5.0, "smartrix": 20.0}


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_every_game_exports_the_same_heuristics(env_id):
    state = envs.spec(env_id).initial_state()
    h = state.heuristics()
    game = state.info.short_name
    assert isinstance(h, Heuristics) and h.module == f"envs.{game}.heuristics" == state.info.heuristics
    module = __import__(h.module, fromlist=["evaluate"])
    assert {"evaluate", "greedy_action", "VALUE_SCALE"} <= set(module.__all__)
    assert h.evaluate is module.evaluate and h.greedy_action is module.greedy_action
    assert h.value_scale == SCALES[game]
    values = [h.evaluate(state, p) for p in range(state.num_players)]
    if game == "smartrix":  # no points yet: the mean unseen card x the opponent's hand size, minus own hand
        from envs.smartrix.heuristics import expected_hand_value

        assert values == [pytest.approx(expected_hand_value(state, p, 1 - p) - state.hand_value(p)) for p in (0, 1)]
    else:  # nobody is ahead at the start (equal stones, equal distances, no score)
        assert values == [0.0] * state.num_players
    before = state.position_key()
    a = h.greedy_action(state, np.random.default_rng(0))
    assert isinstance(a, int) and state.legal_action_mask()[a] == 1
    assert state.position_key() == before


def test_ataxx_greedy_action_is_one_ply_of_material_with_the_same_tie_break():
    from envs.ataxx.heuristics import greedy_action, material

    s = AtaxxState()
    for _ in range(6):
        s.apply(s.legal_actions()[len(s.legal_actions()) // 3])
    for seed in range(5):
        a = greedy_action(s, np.random.default_rng(seed))
        assert a == one_ply_greedy(s, np.random.default_rng(seed), material)
    assert material(AtaxxState("xxx4/7/7/7/7/7/6o x 0 1"), 0) == 2.0
    assert material(AtaxxState("xxx4/7/7/7/7/7/6o x 0 1"), 1) == -2.0


def test_a_game_without_heuristics_and_broken_heuristics_modules():
    class Bare(AtaxxState):
        __slots__ = ()
        info = dataclasses.replace(AtaxxState.info, heuristics="")

    state = Bare()
    assert state.heuristics() is None
    with pytest.raises(ValueError, match=r"^greedy needs an evaluator: the game Ataxx declares no heuristics"):
        GreedyAgent(seed=0).act(state, None)
    with pytest.raises(ValueError, match=r"^alphabeta:1 needs an evaluator"):
        AlphaBetaAgent(1, seed=0).act(state, None)
    assert GreedyAgent(seed=0, evaluator=lambda s, p: 0.0).act(state, None) in state.legal_actions()
    # MCTS without an evaluator plays random rollouts to the end; still a legal move.
    assert MCTSAgent(4, seed=0).act(state, None) in state.legal_actions()
    with pytest.raises(
        TypeError,
        match=r"^heuristics module envs\.ataxx\.state must export evaluate, "
        r"greedy_action and VALUE_SCALE; it lacks evaluate, greedy_action, VALUE_SCALE$",
    ):
        load_heuristics("envs.ataxx.state")
    with pytest.raises(ValueError, match="evaluator must be None, a function"):
        AlphaBetaAgent(1, evaluator=3)


def test_an_evaluator_object_brings_its_value_scale_to_mcts():
    calls = []

    def count(state, player):
        calls.append(player)
        return 0.0

    own = AtaxxState().heuristics()
    ev = Heuristics(count, own.greedy_action, 2.5)
    agent = MCTSAgent(5, seed=0, evaluator=ev)
    assert agent._leaf(AtaxxState()) == (count, 2.5)
    assert MCTSAgent(5, seed=0, evaluator=count)._leaf(AtaxxState()) == (count, 10.0)  # the game's scale
    assert MCTSAgent(5, seed=0, value_scale=3, evaluator=ev)._leaf(AtaxxState()) == (count, 3.0)
    agent.act(AtaxxState(), None)
    assert calls == [0] * 5  # one leaf evaluation per simulation, from player 0's side (two players)


# ----------------------------------------------------------------------------- the spec table
def test_the_spec_table_drives_parser_message_and_docs():
    assert [s.form for s in SPECS] == [
        "random",
        "greedy",
        "mcts[:N]",
        "alphabeta[:D]",
        "robot[:N]",
        "PATH.zip[:sample]",
        "rllib:PATH[:sample]",
        "az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]",
        "SHIPPED[:sample|:SIMS]",
    ]
    assert spec_forms() == (
        "random, greedy, mcts[:N], alphabeta[:D], robot[:N], PATH.zip[:sample], rllib:PATH[:sample], "
        "az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME] or SHIPPED[:sample|:SIMS]"
    )
    names = shipped_names()
    shipped = f" (shipped: {', '.join(names)})" if names else ""
    for bad in ("rand", "random:2", "greedy:1", "mcts2", "zip"):
        with pytest.raises(
            ValueError,
            match=f"^unknown agent spec {re.escape(repr(bad))}: expected {re.escape(spec_forms() + shipped)}$",
        ):
            make_agent(bad)
    with pytest.raises(
        ValueError,
        match=r"^agent spec 'mcts:x': expected an integer after ':' \(digits 0-9, no sign or "
        r"leading zero\), got 'x'$",
    ):
        make_agent("mcts:x")
    assert make_agent("mcts").simulations == 200 and make_agent("mcts:7").simulations == 7
    assert make_agent("alphabeta").depth == 2 and make_agent("alphabeta:3").depth == 3
    assert type(make_agent("random")) is RandomAgent and type(make_agent("greedy")) is GreedyAgent
    import training.agents as agents

    for s in SPECS:  # the package docstring lists every form
        assert f"* {s.form}: " in agents.__doc__


def test_the_docs_list_the_specs_of_the_table():
    readme = (ROOT / "docs" / "evaluation.md").read_text()  # the site's "Evaluation and play" page
    m = re.search(r"<!-- agent-specs:begin.*?-->\n(.*?)\n<!-- agent-specs:end -->", readme, re.S)
    assert m, "docs/evaluation.md lacks the <!-- agent-specs:begin --> ... <!-- agent-specs:end --> block"
    assert m.group(1) == specs_markdown(), "regenerate with: python -m training.agents"


@pytest.mark.parametrize("module", ["training.evaluate", "training.play"])
def test_cli_help_lists_the_specs_of_the_table(module):
    parser = __import__(module, fromlist=["_parser"])._parser()
    # argparse wraps the help at the terminal's width and cuts a long token: compare without whitespace
    assert "".join(spec_forms().split()) in "".join(parser.format_help().split())


# ----------------------------------------------------------------------------- regression
# sha1 (first 12 hex digits) of json.dumps(list of agent-frame actions) of seeded games in which
# every seat plays the same spec (seat i seeded seed * 1000 + i, env reset(seed=seed)), recorded
# with training/agents.py before it became this package; the moves must stay identical.
RECORDED = [
    ("ataxx_v0", {}, "random", 2, 30, "279560d52197"),
    ("ataxx_v0", {}, "greedy", 1, 30, "40c0507735f3"),  # the game ends after 16 plies
    ("ataxx_v0", {}, "alphabeta:2", 1, 8, "275da04ee5ac"),
    ("ataxx_v0", {}, "mcts:24", 2, 30, "6e42e90351b1"),
    ("twixt_v0", {"board_size": 8}, "random", 2, 24, "ea82d097db67"),
    ("twixt_v0", {"board_size": 8}, "greedy", 1, 24, "1998a4196673"),
    ("twixt_v0", {"board_size": 8}, "alphabeta:1", 2, 24, "ad13b5b4a0de"),
    ("twixt_v0", {"board_size": 8}, "alphabeta:2", 1, 6, "1d47d03fd85c"),
    ("twixt_v0", {"board_size": 8}, "mcts:24", 1, 24, "8c256f5e6bd1"),
    ("twixt_v0", {"board_size": 10, "swap": True}, "greedy", 2, 16, "a3b8d644400b"),
    ("double_twixt_v0", {"board_size": 8}, "greedy", 1, 20, "8efd76f50606"),
    ("double_twixt_v0", {"board_size": 8}, "mcts:5", 2, 20, "9e5923bff9ad"),
    ("tantrix_v0", {"num_players": 2}, "alphabeta:1", 1, 20, "e413ee9bbf56"),
    ("tantrix_v0", {"num_players": 3}, "mcts:5", 1, 15, "3603af616f55"),
    ("tantrix_v0", {"num_players": 4, "teams": True}, "greedy", 2, 16, "02a737234cd2"),
    ("smartrix_v0", {"num_players": 2}, "mcts:24", 1, 20, "8b50027bb6fa"),
    ("smartrix_v0", {"num_players": 3}, "greedy", 2, 15, "b92846c06010"),
    ("smartrix_v0", {"num_players": 4, "teams": True}, "alphabeta:1", 1, 16, "b0b3323d2517"),
]


def _actions(env_id, kwargs, spec, seed, plies):
    raw = make_raw(env_id, **kwargs)
    raw.reset(seed=seed)
    agents = [make_agent(spec, seed=seed * 1000 + i) for i in range(raw.num_players)]
    out = []
    for _ in range(plies):
        aid = raw.agent_selection
        if raw.terminations[aid] or raw.truncations[aid]:
            break
        a = agents[raw.possible_agents.index(aid)].act(raw.state, raw.observe(aid))
        out.append(int(a))
        raw.step(a)
    return out


@pytest.mark.parametrize(
    "env_id, kwargs, spec, seed, plies, digest", RECORDED, ids=[f"{r[0]}-{r[2]}-{r[1]}" for r in RECORDED]
)
def test_agents_play_the_recorded_moves(env_id, kwargs, spec, seed, plies, digest):
    actions = _actions(env_id, kwargs, spec, seed, plies)
    assert hashlib.sha1(json.dumps(actions).encode()).hexdigest()[:12] == digest, actions
