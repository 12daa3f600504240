"""Self-play on Ray RLlib (the ``rllib`` extra): every registered game, any number of seats.

* :mod:`training.rllib.env`: :class:`~training.rllib.env.GameMultiAgentEnv`, a game of the
  registry as an RLlib ``MultiAgentEnv`` (turn-based, masked, every seat's final reward);
* :mod:`training.rllib.module`: :class:`~training.rllib.module.GameRLModule`, the networks of
  :mod:`training.features` as an RLModule with action masking;
* :mod:`training.rllib.config`: the keys of an ``engine: rllib`` config (no Ray import);
* :mod:`training.rllib.trainer`: the training loop behind ``python -m training.train
  configs/<game>_rllib.yaml``.

Checkpoints are agents: ``rllib:PATH`` (:class:`training.agents.rllib.RLlibAgent`).
"""
