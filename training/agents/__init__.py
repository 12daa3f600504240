"""Baseline, search and trained agents behind one small interface: ``act(state, obs) -> int``.

* :mod:`training.agents.base`: :class:`Agent` (the interface, the frame conversion and the
  checks), :class:`RandomAgent`;
* :mod:`training.agents.search`: :class:`GreedyAgent`, :class:`AlphaBetaAgent`,
  :class:`MCTSAgent` and the evaluator protocol (by default each game's own heuristics,
  ``state.heuristics()``);
* :mod:`training.agents.policy`: :class:`PolicyAgent`, :func:`policy_action`,
  :func:`parse_checkpoint_spec`;
* :mod:`training.agents.rllib`: :class:`~training.agents.rllib.RLlibAgent` (an RLlib checkpoint
  of ``training.train``, spec ``rllib:PATH``) and :class:`~training.agents.rllib.ModuleAgent`;
* :mod:`training.agents.shipped`: the trained agents shipped with the package
  (:class:`ShippedAgent`, :func:`shipped_agents`, :func:`shipped_for`, :func:`shipped_spec`);
* :mod:`training.agents.specs`: the table of agent specs and :func:`make_agent`.

An agent asked to move in a finished game (``state.current_player < 0``) or in a position without
a legal action raises ``ValueError``. The returned action is in the acting agent's frame (what
``env.step`` takes) and always legal.

Agent specs (:func:`make_agent`):

"""

from training.agents.base import FRAMES, Agent, RandomAgent
from training.agents.policy import PolicyAgent, parse_checkpoint_spec, policy_action
from training.agents.search import AlphaBetaAgent, Evaluator, GreedyAgent, MCTSAgent
from training.agents.specs import SPECS, AgentSpec, make_agent, spec_forms, specs_markdown, specs_text

if __doc__ is not None:  # python -OO strips docstrings
    __doc__ += specs_text(indent="* ") + "\n"

#: Names of :mod:`training.agents.shipped`, imported on first use (module ``__getattr__``): the
#: package does not import that module itself, so ``python -m training.agents.shipped`` runs it
#: as ``__main__`` without a second copy in ``sys.modules`` (runpy's RuntimeWarning).
_SHIPPED_NAMES = ("ShippedAgent", "ShippedIndexError", "shipped_agents", "shipped_for", "shipped_spec")


def __getattr__(name: str):
    if name in _SHIPPED_NAMES:
        from training.agents import shipped

        return getattr(shipped, name)
    raise AttributeError(f"module 'training.agents' has no attribute {name!r}")


__all__ = [
    "Agent",
    "RandomAgent",
    "FRAMES",
    "GreedyAgent",
    "AlphaBetaAgent",
    "MCTSAgent",
    "Evaluator",
    "PolicyAgent",
    "policy_action",
    "parse_checkpoint_spec",
    "ShippedAgent",
    "ShippedIndexError",
    "shipped_agents",
    "shipped_for",
    "shipped_spec",
    "AgentSpec",
    "SPECS",
    "make_agent",
    "spec_forms",
    "specs_text",
    "specs_markdown",
]
