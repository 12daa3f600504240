"""``python -m training.agents``: print the Markdown list of agent specs that the docs carry
(docs/evaluation.md; ``tests/training/test_agents_package.py`` checks that the two agree).

A ``__main__`` of the package rather than of ``training.agents.specs``: the package imports that
module, so running it with ``-m`` would execute it a second time (runpy's RuntimeWarning)."""

from training.agents.specs import specs_markdown

print(specs_markdown())
