"""An AlphaZero checkpoint (or a live network) as an agent:
``az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]``.

:class:`AlphaZeroAgent` plays the Gumbel search (:func:`training.search.gumbel_search`) with its
network at ``simulations`` simulations a move, without root noise (``gumbel_scale=0``: the
deterministic search the paper and mctx advise for evaluation play in perfect-information games);
with ``simulations=0`` it plays the raw policy: the argmax of the legal logits. It thinks in the
acting agent's frame (:attr:`Agent.frame` ``"agent"``): the search's action is the mover's.

In a game with hidden information or chance (Tantrix, Smartrix) the search runs on one
determinization of each game from the mover's view (:meth:`envs.core.state.GameState.determinize`),
drawn from the agent's generator, or in :meth:`AlphaZeroAgent.act_batch` from each game's own
generator, so it never reads the hidden order or hands. A network of a setting with more than two
sides gives a value per side (:mod:`training.agents.alphazero_net`), which the search backs up
max-n.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import ParameterError
from envs.core.heuristics import DEFAULT_EVALUATOR, offered_evaluators
from training.agents.base import PLAIN_INT, Agent
from training.agents.search import is_real_number

__all__ = ["AlphaZeroAgent", "parse_az_spec", "AZ_SPEC_OPTIONS", "load_checkpoint", "AGENT_FORMAT", "MAX_SIMULATIONS"]

#: The most simulations a move an agent takes: the search holds ``simulations + 1`` nodes of
#: ``A`` actions per game (about 33 bytes each): 4096 on Ataxx's 834 actions is ~113 MB a game.
MAX_SIMULATIONS = 4096

#: The ``format`` entry of a stripped checkpoint (:func:`training.agents.shipped.strip_alphazero`):
#: the run's config and the network's weights, nothing else: it plays, it cannot resume a run.
AGENT_FORMAT = "tabletop_rl.alphazero.agent"


#: The search settings an ``az:`` spec may override, after ``:SIMS``: option -> the
#: :class:`AlphaZeroAgent` argument it sets.
AZ_SPEC_OPTIONS = {
    "considered": "max_num_considered_actions",
    "value_scale": "value_scale",
    "heuristic_weight": "heuristic_weight",
    "heuristic": "heuristic",
}


def parse_az_spec(spec: str) -> tuple[str, int | None, dict[str, Any]] | None:
    """``"az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]"``
    -> ``(PATH, SIMS or None, options)``;
    another spec -> ``None``.

    SIMS is a plain integer (a path may contain ``:`` itself); the options, after it, override the
    checkpoint's ``search`` settings: ``considered`` the root's considered actions
    (``max_num_considered_actions``, an integer >= 1), ``value_scale`` sigma's scale (a number;
    :class:`AlphaZeroAgent` checks its range), ``heuristic_weight`` the weight in ``[0, 1]`` of the
    game's evaluation in each searched value (a number), ``heuristic`` which evaluation (a name of
    ``GameInfo.evaluators`` or ``evaluate``; the agent checks the game offers it; it counts only at a
    weight above 0). ``options``
    maps each given one to its value, e.g.
    ``"az:run/final.pt:64:value_scale=1"`` -> ``("run/final.pt", 64, {"value_scale": 1.0})``.

    Raises:
        ValueError: ``az:`` with no path, an unknown option, an option given twice or a value that
            does not parse.
    """
    if not spec.startswith("az:"):
        return None
    rest = spec[len("az:") :]
    options: dict[str, Any] = {}
    while True:
        head, sep, tail = rest.rpartition(":")
        match = re.fullmatch(r"([a-z_]+)=([^/\\]*)", tail) if sep else None
        if match is None:
            break
        key, value = match.groups()
        if key not in AZ_SPEC_OPTIONS:
            raise ValueError(
                f"agent spec {spec!r}: unknown option {key!r}; an az: spec takes "
                f"{', '.join(f'{k}=' for k in AZ_SPEC_OPTIONS)} after :SIMS"
            )
        if key in options:
            raise ValueError(f"agent spec {spec!r}: option {key!r} given twice")
        if key == "considered":
            if not PLAIN_INT.fullmatch(value):  # as SIMS: int() alone would take 01, 1_0 and spaces
                raise ValueError(f"agent spec {spec!r}: considered must be an integer, got {value!r}")
            options[key] = int(value)
        elif key == "heuristic":
            if not re.fullmatch(r"[a-z_]+", value):  # a name; the agent checks the game offers it
                raise ValueError(f"agent spec {spec!r}: heuristic must be an evaluation's name, got {value!r}")
            options[key] = value
        else:
            try:
                options[key] = float(value)
            except ValueError:
                raise ValueError(f"agent spec {spec!r}: {key} must be a number, got {value!r}") from None
        rest = head
    head, sep, tail = rest.rpartition(":")
    sims = None
    if sep and PLAIN_INT.fullmatch(tail):
        rest, sims = head, int(tail)
    if not rest:
        raise ValueError(
            f"agent spec {spec!r}: expected "
            "az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME] (an AlphaZero "
            "checkpoint .pt of training.train, SIMS the simulations per move, 0 the raw policy)"
        )
    return rest, sims, dict(reversed(list(options.items())))


def load_checkpoint(path: str | Path, *, stripped: bool = False) -> dict:
    """A checkpoint file of the AlphaZero engine (``torch.load`` of the dict the trainer saves).

    Args:
        path: the file.
        stripped: also take a stripped checkpoint (``format`` :data:`AGENT_FORMAT`: only
            ``config`` and ``network``), as the shipped agents are; the trainer's ``--resume``
            does not (it needs the optimizer, the buffer and the generators).

    Raises:
        FileNotFoundError: no such file. ValueError: a folder, a file that is not such a
            checkpoint, or (without ``stripped``) a stripped one.
    """
    import torch

    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"checkpoint {p} does not exist")
    if not p.is_file():
        raise ValueError(f"checkpoint {p} is not a file")
    try:
        data = torch.load(p, map_location="cpu", weights_only=False)
    except Exception as e:  # noqa: BLE001 - any unreadable file is the same user error
        raise ValueError(f"{p} is not an AlphaZero checkpoint of training.train: {e}") from None
    formats = ("tabletop_rl.alphazero", AGENT_FORMAT) if stripped else ("tabletop_rl.alphazero",)
    if isinstance(data, dict) and data.get("format") == AGENT_FORMAT and not stripped:
        raise ValueError(
            f"{p} is a stripped AlphaZero checkpoint (a shipped agent: config and network only): it plays "
            "but cannot resume a run; resume from the run's own checkpoints/final.pt"
        )
    if not isinstance(data, dict) or data.get("format") not in formats or "network" not in data:
        raise ValueError(f"{p} is not an AlphaZero checkpoint of training.train (no 'network' and 'format' entries)")
    return data


class AlphaZeroAgent(Agent):
    """A network playing with the Gumbel search.

    Args:
        model: a checkpoint path (``.pt`` of the AlphaZero trainer, or one stripped of all but the
            network, as shipped agents are) or a live
            :class:`~training.agents.alphazero_net.AlphaZeroNet` (then ``trained_on`` is needed).
        simulations: simulations per move (``None``: the checkpoint's ``search.eval_simulations``);
            0: the raw policy's most probable legal action.
        max_num_considered_actions: the root's considered actions (``None``: the checkpoint's).
        value_scale: ``sigma``'s scale on the completed Q-values (``None``: the checkpoint's
            ``search.value_scale``, 0.1 for checkpoints written before that key; mctx's default),
            a finite number >= 0 (:func:`~training.search.gumbel_search`).
        heuristic_weight: the weight in ``[0, 1]`` of the game's own evaluation in each searched
            position's value (``None``: the checkpoint's ``search.heuristic_weight``, 0 for
            checkpoints written before that key; :func:`~training.search.gumbel_search`).
        heuristic: which of the game's evaluations that weight mixes in: ``"evaluate"`` (its
            heuristics module's own) or a name of its ``GameInfo.evaluators`` (``None``: the
            checkpoint's ``search.heuristic``, ``"evaluate"`` for checkpoints written before that key).
        seed: seed of ``self.rng``, which draws the search's determinization in a game with hidden
            information (:func:`~training.search.gumbel_search`); the noiseless search of a
            perfect-information game draws nothing from it.
        name: the agent's name (default ``az:PATH:SIMS``, then ``:considered=M`` and ``:value_scale=X``
            where those are given: the spec that plays it again).
        trained_on: ``(env_id, env_kwargs)``, for a live network.

    Raises:
        FileNotFoundError, ValueError: a missing or foreign checkpoint, a negative ``simulations``,
            ``max_num_considered_actions`` below 1, a ``heuristic`` the game does not offer.
    """

    frame = "agent"

    def __init__(
        self,
        model,
        simulations: int | None = None,
        max_num_considered_actions: int | None = None,
        value_scale: float | None = None,
        heuristic_weight: float | None = None,
        heuristic: str | None = None,
        seed: int | None = None,
        name: str | None = None,
        trained_on: tuple[str, dict] | None = None,
    ):
        super().__init__(seed)
        from training.agents.alphazero_net import build_network, make_evaluate

        defaults: dict[str, Any] = {
            "simulations": 16,
            "m": 16,
            "value_scale": 0.1,
            "heuristic_weight": 0.0,
            "heuristic": DEFAULT_EVALUATOR,
        }
        self.path = None
        if isinstance(model, (str, Path)):
            self.path = Path(model)
            data = load_checkpoint(self.path, stripped=True)
            cfg = data["config"]
            trained_on = (cfg["env_id"], dict(cfg["env_kwargs"]))
            network = build_network(cfg["env_id"], cfg["env_kwargs"], cfg["policy"])
            network.load_state_dict(data["network"])
            defaults = {
                "simulations": cfg["search"]["eval_simulations"],
                "m": cfg["search"]["max_num_considered_actions"],
                "value_scale": cfg["search"].get("value_scale", 0.1),  # older checkpoints: mctx's default
                "heuristic_weight": cfg["search"].get("heuristic_weight", 0.0),  # older ones: the network alone
                "heuristic": cfg["search"].get("heuristic", DEFAULT_EVALUATOR),  # older ones: the module's
            }
        else:
            if trained_on is None:
                raise ValueError("AlphaZeroAgent of a live network needs trained_on=(env_id, env_kwargs)")
            network = model
        sims = defaults["simulations"] if simulations is None else simulations
        if isinstance(sims, bool) or not isinstance(sims, (int, np.integer)) or not 0 <= sims <= MAX_SIMULATIONS:
            raise ValueError(
                f"simulations must be an integer from 0 to {MAX_SIMULATIONS} (the search keeps a tree of "
                f"simulations x actions per game in memory), got {sims!r}"
            )
        self.simulations = int(sims)
        m = defaults["m"] if max_num_considered_actions is None else max_num_considered_actions
        if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
            raise ValueError(f"max_num_considered_actions must be an integer >= 1, got {m!r}")
        self.m = int(m)
        scale = defaults["value_scale"] if value_scale is None else value_scale
        if not is_real_number(scale) or not np.isfinite(scale) or scale < 0:
            raise ValueError(f"value_scale must be a finite number >= 0, got {scale!r}")
        self.value_scale = float(scale)
        lam = defaults["heuristic_weight"] if heuristic_weight is None else heuristic_weight
        if not is_real_number(lam) or not 0 <= lam <= 1:  # NaN fails too
            raise ValueError(f"heuristic_weight must be a number in [0, 1], got {lam!r}")
        self.heuristic_weight = float(lam)
        name_h = defaults["heuristic"] if heuristic is None else heuristic
        import envs

        offered = offered_evaluators(envs.spec(trained_on[0]).game_info())
        if not isinstance(name_h, str) or name_h not in offered:
            raise ValueError(f"heuristic must be one of {offered} for {trained_on[0]}, got {name_h!r}")
        self.heuristic = name_h
        self.network = network
        self.evaluate = make_evaluate(network)
        self.trained_on = trained_on
        overrides = (
            (f":considered={self.m}" if max_num_considered_actions is not None else "")
            + (f":value_scale={self.value_scale!r}" if value_scale is not None else "")
            + (f":heuristic_weight={self.heuristic_weight!r}" if heuristic_weight is not None else "")
            + (f":heuristic={self.heuristic}" if heuristic is not None else "")
        )
        spec = f"az:{self.path}:{self.simulations}" if self.path else f"az:{self.simulations}"
        self.name = name or spec + overrides
        self._template = None
        self._batch_rngs: list | None = None  # act_batch's generators, while it runs

    def check_env(self, env) -> None:
        """Refuse an environment of another id or setting than the network's: another action
        layout, or the same with other rules (TwixT with swap, Ataxx without the 50-move rule),
        since the search plays by the rules of the training's setting. The search builds its own
        observations from the rules state, so options that change only what agents observe (TwixT's
        ``distance_planes``) may differ from the training's.

        Raises:
            ValueError: naming the agent and its training setting.
        """
        env_id = getattr(env, "unwrapped", env).metadata.get("name")
        kwargs = getattr(getattr(env, "unwrapped", env), "env_kwargs", None)
        if env_id != self.trained_on[0]:
            raise ValueError(
                f"{self.name} was trained on {self.trained_on[0]} {self.trained_on[1]}, not on {env_id}: play it there"
            )
        first = env.possible_agents[0]
        n = env.action_space(first).n
        template = self._vec()
        if n != template.num_actions:
            raise ValueError(
                f"{self.name} was trained on {self.trained_on[0]} {self.trained_on[1]}: its action space "
                f"({template.num_actions} actions) differs from this environment's ({n}"
                f"{f', {kwargs}' if kwargs else ''})"
            )
        state = getattr(getattr(env, "unwrapped", env), "state", None)
        if state is not None:
            self._batch([state])

    def _batch(self, states):
        """A vector env of ``states`` for the search, or a ``ValueError`` naming the agent's setting."""
        try:
            return self._vec().from_states(list(states))
        except ParameterError as e:
            raise ValueError(
                f"{self.name} was trained on {self.trained_on[0]} {self.trained_on[1]} and searches by "
                f"that setting's rules; this game's rules differ ({e}): play it on its training setting"
            ) from None

    def _vec(self):
        if self._template is None:
            import envs

            self._template = envs.make_vec(self.trained_on[0], 1, seed=0, **self.trained_on[1])
            self._template.reset()
        return self._template

    def _act(self, state, obs):
        return self._act_batch([state], [obs])[0]

    def act_batch(self, states: list, observations: list, rngs: list | None = None) -> list[int]:
        """:meth:`Agent.act_batch` in one batched search, where game ``i``'s determinization (a game
        with hidden information) is drawn from ``rngs[i]`` (``self.rng`` for every game where
        ``rngs`` is ``None``, in game order), so a batch answers as its games asked one by one with
        those generators."""
        self._batch_rngs = rngs
        try:
            return super().act_batch(states, observations, rngs)
        finally:
            self._batch_rngs = None

    def _act_batch(self, states, observations):
        """One batched search over the games of ``states`` (their actions in the movers' frames)."""
        from training.search import gumbel_search

        if any(state is None for state in states):
            raise ValueError(f"{self.name} searches from the rules state and needs it, got state=None")
        vec = self._batch(states)
        if self.simulations == 0:
            mask = np.asarray(vec.action_mask(), dtype=bool)
            logits, _ = self.evaluate(vec.core.observe(vec.current_player().astype(np.int32)), mask)
            return [int(a) for a in np.argmax(np.where(mask, logits, -np.inf), axis=1)]
        rngs = self._batch_rngs
        out = gumbel_search(
            vec,
            self.evaluate,
            self.rng,
            num_simulations=self.simulations,
            max_num_considered_actions=self.m,
            value_scale=self.value_scale,
            heuristic_weight=self.heuristic_weight,
            heuristic=self.heuristic,
            gumbel_scale=0.0,
            gumbel=np.zeros((len(states), vec.num_actions)),  # no noise, and no draw from self.rng
            # hidden information: each game's determinization from its own generator
            determinization_rngs=list(rngs) if rngs is not None and len(rngs) == len(states) else None,
        )
        return [int(a) for a in out.action]
