"""The documentation site's generated pages, written at build time by the mkdocs-gen-files plugin
(``mkdocs.yml``: ``plugins: gen-files: scripts: [docs/gen_pages.py]``); nothing is written into the
checkout.

* ``environments/<env_id>.md``: one page per registered environment id (an environment card, as
  PettingZoo's): the spaces read from ``envs.make(env_id)``, the registry's variants and their
  kwargs, the action layout, the environment's docstring (observation planes, actions), the rules
  summary from the game's ``RULES.md``, a picture drawn by the game's own SVG renderer, the
  baseline and shipped agents that play it, and the version history;
* ``environments/<game>-rules.md``: each game's ``RULES.md`` as a page;
* ``environments/index.md``: every id with its picture;
* ``benchmarks-details.md``: ``benchmarks/README.md`` as a page;
* ``api/<module>.md``: one mkdocstrings page (``::: module``) per public module of :data:`API_MODULES`
  and each registered game's rules-state module; ``api/index.md`` lists them;
* ``assets/pictures/*``: the pictures of ``results/pictures/`` that the hand-written pages show, and
  ``results-files/**.png``: the published runs' plots (the Results page).

Every game comes from the registry (``envs.registry.env_ids()``): no game is named here. The nav
entries of the generated pages are added by :func:`on_config`, an mkdocs hook (``hooks:`` in
``mkdocs.yml``), from the same functions, so a newly registered id gets its page and its nav entry.

``tests/test_docs.py`` checks the pages' contents against the environments.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from envs.registry import env_ids, spec  # noqa: E402

#: The public modules of the API reference, besides each game's rules-state module (added from
#: the registry by :func:`api_modules`), in the order of the nav.
API_MODULES: tuple[str, ...] = (
    "envs",
    "envs.registry",
    "envs.core.vector",
    "envs.core.state",
    "envs.core.aec",
    "envs.core.observation",
    "envs.core.errors",
    "training.agents",
    "training.agents.base",
    "training.agents.search",
    "training.agents.specs",
    "training.agents.shipped",
    "training.arena",
    "training.config",
    "training.search",
    "training.evaluate",
    "training.tournament",
    "training.environment",
    "training.features",
    "envs.core.words",
    "room",
    "room.protocol",
)

#: Plies of random legal moves (seeded) before an environment's picture is drawn.
PICTURE_PLIES = 8
PICTURES = ROOT / "results" / "pictures"


# ----------------------------------------------------------------------------------- text helpers
def md_text(doc: str | None) -> str:
    """A docstring as Markdown: reST roles (``:class:`~a.B` ``) and double backticks become code
    spans, a list gets the blank line and the indentation Python-Markdown needs, and a line that
    would start an ordered list (``0. ...``) keeps its number."""
    text = inspect.cleandoc(doc or "")
    text = re.sub(r":(?:mod|class|func|meth|data|attr|exc|obj):`~?([^`]+)`", r"``\1``", text)
    text = re.sub(r"``(.+?)``", r"`\1`", text)
    out: list[str] = []
    in_list = False
    for line in text.splitlines():
        item = re.match(r"^( *)([*-]) ", line)
        if re.match(r"^\d+\. ", line):
            line = re.sub(r"^(\d+)\. ", r"\1\\. ", line)
        if item and not in_list:
            if out and out[-1].strip():
                out.append("")
            in_list = True
        elif in_list and line.strip() and not line.startswith(" ") and not item:
            if out and out[-1].strip():
                out.append("")
            in_list = False
        if in_list and line.startswith(" "):
            stripped = line.lstrip(" ")
            line = " " * (2 * (len(line) - len(stripped))) + stripped
        out.append(line)
    return "\n".join(out)


def first_paragraph(doc: str | None) -> str:
    """The first paragraph of a docstring, as one Markdown line."""
    para = inspect.cleandoc(doc or "").split("\n\n")[0]
    return " ".join(md_text(para).split())


def cell(text: str) -> str:
    """``text`` fit for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def kwargs_text(kwargs: dict) -> str:
    """``kwargs`` as a code span of ``envs.make`` arguments (``(defaults)`` when empty)."""
    if not kwargs:
        return "(defaults)"
    return "`" + ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) + "`"


def slug(title: str) -> str:
    """The anchor mkdocs gives a heading (the ``toc`` extension's default slugify)."""
    from markdown.extensions.toc import slugify

    return slugify(re.sub(r"[`*]", "", title), "-")


# ----------------------------------------------------------------------------------- the registry
def game_package(env_id: str) -> str:
    """The game package of ``env_id`` (where its ``raw_env`` is defined), e.g. ``envs.<game>``."""
    return spec(env_id).module().raw_env.__module__.rsplit(".", 1)[0]


def game_name(env_id: str) -> str:
    """The game's package name (its folder under ``envs/``), which names its rules page."""
    return game_package(env_id).rsplit(".", 1)[-1]


def rules_file(env_id: str) -> Path | None:
    """The game's ``RULES.md`` (``None`` when its package has none)."""
    path = Path(importlib.import_module(game_package(env_id)).__file__).parent / "RULES.md"
    return path if path.is_file() else None


def env_doc_module(env_id: str):
    """The module that defines ``env_id``'s ``raw_env`` (its docstring is the environment card)."""
    return importlib.import_module(spec(env_id).module().raw_env.__module__)


@functools.cache
def variant_facts(env_id: str) -> dict[str, dict]:
    """``{variant name: facts}`` for every variant of ``env_id``'s spec, read from
    ``envs.make(env_id, **kwargs)``: agents, action space, observation space (per entry: shape,
    dtype), action mask, action layout. The key ``None`` holds those of the defaults."""
    out: dict = {}
    sp = spec(env_id)
    for name, kwargs in [(None, {}), *sp.variants.items()]:
        env = sp.make(**kwargs)
        env.reset(seed=0)
        agent = env.possible_agents[0]
        obs_space = env.observation_space(agent)
        raw = env.unwrapped
        state = raw.state
        entries = obs_space["observation"]
        entries = dict(entries.spaces) if hasattr(entries, "spaces") else {None: entries}
        layout = raw.action_layout()
        out[name] = {
            "kwargs": dict(kwargs),
            "agents": list(env.possible_agents),
            "teams": state.teams(),
            "action_space": env.action_space(agent),
            "observation": {
                k: (tuple(v.shape), str(v.dtype), float(v.low.min()), float(v.high.max())) for k, v in entries.items()
            },
            "mask": (tuple(obs_space["action_mask"].shape), str(obs_space["action_mask"].dtype)),
            "layout": layout,
            "off_grid": [] if layout is None else [(int(a), state.action_to_string(int(a))) for a in layout.off_grid],
            "symmetries": [s.name for s in raw.encoder.symmetries()],
            "encoder": f"{type(raw.encoder).__module__}.{type(raw.encoder).__qualname__}",
            "batched": hasattr(sp.module(), "vector_core"),
        }
        env.close()
    return out


def shape_text(shape: tuple) -> str:
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def observation_text(obs: dict) -> str:
    """The observation entries as ``key (shape) dtype``, joined by ``; ``."""
    parts = []
    for key, (shape, dtype, _, _) in obs.items():
        parts.append(("" if key is None else f"`{key}` ") + f"`{shape_text(shape)}` {dtype}")
    return "; ".join(parts)


# ----------------------------------------------------------------------------------- agents
def baseline_names() -> list[str]:
    """The agents that are built by name (no checkpoint): the plain names of the spec table's
    forms (``training.agents.specs.SPECS``) and the agents the games offer
    (``envs.registry.game_agent_names()``)."""
    from envs.registry import game_agent_names
    from training.agents.specs import SPECS

    names = [m.group(1) for s in SPECS if (m := re.fullmatch(r"([a-z]+)(?:\[:[A-Z]+\])?", s.form))]
    return list(dict.fromkeys([*names, *game_agent_names()]))


@functools.cache
def baseline_table(env_id: str) -> list[tuple[str, str, str]]:
    """``(spec, summary, where it plays)`` per baseline agent: each is built (``make_agent``) and
    asked (``check_env``) about the start of every variant, then moves once at the start of the
    defaults (with the cheapest setting of its spec, e.g. ``mcts:1``)."""
    from training.agents.specs import SPECS, make_agent

    summaries = {}
    for s in SPECS:
        m = re.fullmatch(r"([a-z]+)(?:\[:[A-Z]+\])?", s.form)
        if m:
            summaries[m.group(1)] = (s.form, s.summary)
    sp = spec(env_id)
    rows = []
    for name in baseline_names():
        form, summary = summaries.get(name, (name, "an agent the game offers (`GameInfo.agents`)"))
        try:
            agent = make_agent(name, seed=0)
        except ValueError:
            continue  # a name no registered game offers
        ok, refused = [], []
        for variant, kwargs in [(None, {}), *sp.variants.items()]:
            env = sp.make_raw(**kwargs)
            env.reset(seed=0)
            try:
                agent.check_env(env)
                if variant is None:  # one move at the start, cheaply
                    cheap = make_agent(f"{name}:1" if "[:" in form else name, seed=0)
                    cheap.act(env.state, env.observe(env.agent_selection))
                ok.append(variant)
            except ValueError as e:
                refused.append((variant, str(e).split(";")[0]))
            env.close()
        if None not in ok:
            ok = []
        named = [v for v in ok if v is not None]
        if not ok:
            where = "no: " + refused[0][1]
        elif len(named) == len(sp.variants):
            where = "yes (every variant)"
        else:
            where = (
                "yes: "
                + ", ".join(f"`{v}`" for v in named)
                + "; not "
                + ", ".join(f"`{v}` ({why})" for v, why in refused if v is not None)
            )
        rows.append((f"`{form}`", summary, where))
    return rows


def shipped_rows(env_id: str) -> list[tuple[str, str, str, str, str]]:
    """``(name, engine, setting, variant, summary)`` for every shipped agent of ``env_id``
    (``training.agents.shipped``: the index only, files not read)."""
    from training.agents.shipped import agents_only_arguments, setting_kwargs, shipped_names, shipped_spec

    sp = spec(env_id)
    agents_only = agents_only_arguments(env_id)
    rows = []
    for name in shipped_names():
        agent = shipped_spec(name, verify=False)
        if agent.env_id != env_id:
            continue
        setting = agent.setting()  # an AlphaZero agent's has no agents-only argument: compare without
        variant = next(
            (
                v
                for v, kw in sp.variants.items()
                if {k: x for k, x in setting_kwargs(env_id, kw).items() if k in setting or k not in agents_only}
                == setting
            ),
            None,
        )
        engine = (
            "MaskablePPO"
            if agent.engine == "sb3"
            else "Gumbel AlphaZero"
            if agent.engine == "alphazero"
            else agent.engine
        )
        rows.append(
            (
                f"`{agent.name}`",
                engine,
                kwargs_text(agent.env_kwargs),
                f"`{variant}`" if variant else "-",
                agent.summary,
            )
        )
    return rows


# ----------------------------------------------------------------------------------- pictures
def env_svg(env_id: str) -> str:
    """A position of ``env_id`` (defaults) after :data:`PICTURE_PLIES` seeded random legal moves,
    drawn by the game's own SVG renderer (``GameState.to_svg``, a spectator's view)."""
    state = spec(env_id).initial_state()
    rng = np.random.default_rng(0)
    for _ in range(PICTURE_PLIES):
        if state.is_terminal():
            break
        state.apply(int(rng.choice(state.legal_actions())))
    return state.to_svg()


def picture_files() -> dict[str, Path]:
    """``{site path: file}``: the pictures of ``results/pictures/`` as ``assets/pictures/<name>``,
    and the plots of the published runs (every PNG under ``results/`` elsewhere) as
    ``results-files/<path under results/>`` (the Results page shows them)."""
    out = {f"assets/pictures/{p.name}": p for p in sorted(PICTURES.iterdir()) if p.is_file()}
    for p in sorted((ROOT / "results").rglob("*.png")):
        if PICTURES not in p.parents:
            out[f"results-files/{p.relative_to(ROOT / 'results').as_posix()}"] = p
    return out


# ----------------------------------------------------------------------------------- rules
def rules_sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``(title, [(section heading, section text), ...])`` of a ``RULES.md``; the text before the
    first ``##`` heading is the section ``""``."""
    lines = text.splitlines()
    title = lines[0].lstrip("# ").strip() if lines and lines[0].startswith("# ") else ""
    sections: list[tuple[str, list[str]]] = [("", [])]
    for line in lines[1 if title else 0 :]:
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        else:
            sections[-1][1].append(line)
    return title, [(h, "\n".join(body).strip()) for h, body in sections]


def rules_summary(env_id: str) -> str:
    """The rules section of an environment page: the introduction and first section of its
    ``RULES.md``, and links to every section of the full rules page."""
    path = rules_file(env_id)
    if path is None:
        return "The game's package has no `RULES.md`."
    page = f"{game_name(env_id)}-rules.md"
    title, sections = rules_sections(path.read_text(encoding="utf-8"))
    out = [
        f"From [{title or 'the rules'}]({page}) (`envs/{game_name(env_id)}/RULES.md`, shipped with the package):",
        "",
    ]
    intro = sections[0][1]
    if intro:
        out += [intro, ""]
    named = [s for s in sections if s[0]]
    if named:
        heading, body = named[0]
        out += [f"### {heading}", "", body, ""]
        out += ["The full rules, section by section:", ""]
        out += [f"* [{h}]({page}#{slug(h)})" for h, _ in named]
    return "\n".join(out)


# ----------------------------------------------------------------------------------- pages
def version_history(env_id: str) -> str:
    """What the code says of the id's versions: the ``Version history:`` paragraph of the
    environment module's docstring, else that ``v0`` is the first version."""
    doc = inspect.cleandoc(env_doc_module(env_id).__doc__ or "")
    m = re.search(r"^Version history:\s*(.+?)(?:\n\n|\Z)", doc, flags=re.M | re.S)
    version = re.search(r"_v(\d+)$", env_id)
    out = []
    if version:
        out += [
            f"The id's suffix `_v{version.group(1)}` is the environment's version, as in PettingZoo's ids. "
            "There is no changelog file: the history is what the environment module's docstring records.",
            "",
        ]
    if m:
        out.append(
            f"From the docstring of `{env_doc_module(env_id).__name__}`: " + " ".join(md_text(m.group(1)).split())
        )
    else:
        out.append(f"v{version.group(1) if version else 0}: first version (the code records no other).")
    return "\n".join(out)


def env_body(env_id: str) -> str:
    """The environment module's docstring without its first line and its version history."""
    doc = inspect.cleandoc(env_doc_module(env_id).__doc__ or "")
    body = doc.split("\n", 1)[1] if "\n" in doc else ""
    body = re.sub(r"^Version history:.*?(?:\n\n|\Z)", "", body, flags=re.M | re.S)
    return md_text(body).strip()


def env_page(env_id: str) -> str:
    """The Markdown of ``environments/<env_id>.md``."""
    sp = spec(env_id)
    facts = variant_facts(env_id)
    d = facts[None]
    state = sp.initial_state()
    info = state.info
    players = sorted({len(f["agents"]) for f in facts.values()})
    players_text = str(players[0]) if len(players) == 1 else f"{players[0]}-{players[-1]} (by variant)"
    teamed = [any(len(t) > 1 for t in f["teams"]) for f in facts.values()]
    teams_text = "every variant" if all(teamed) else "some variants" if any(teamed) else "none"
    layout = d["layout"]
    out = [
        f"# `{env_id}`: {state.setting_name()}",
        "",
        first_paragraph(sp.module().__doc__),
        "",
        f"![{state.setting_name()}: a position after {PICTURE_PLIES} random moves]({env_id}.svg)",
        "",
        f"*A position after {PICTURE_PLIES} seeded random moves (defaults), drawn by the game's SVG renderer "
        "(`state.to_svg()`).*",
        "",
        "## Overview",
        "",
        "| Property | Value |",
        "|---|---|",
        f'| Import | `envs.make("{env_id}")` (wrapped AEC env), `envs.make_raw("{env_id}")` (illegal actions raise)'
        + (f', `envs.make_vec("{env_id}", B)`' if d["batched"] else "")
        + " |",
        f"| Agents (defaults) | {', '.join(f'`{a}`' for a in d['agents'])} |",
        f"| Players | {players_text}; teams: {teams_text} |",
        f"| Action space | `{d['action_space']}` |",
        f"| Observation | `observation`: {observation_text(d['observation'])} |",
        f"| Action mask | `action_mask`: `{shape_text(d['mask'][0])}` {d['mask'][1]} (also in `infos`) |",
        f"| Encoder | `{d['encoder']}` |",
        "| Action layout | "
        + (
            "none (linear policy head)"
            if layout is None
            else f"`index {shape_text(layout.index.shape)}`, `obs_key={layout.obs_key!r}`"
            + (", factored" if layout.factored else "")
        )
        + " |",
        f"| Information | {'perfect' if info.perfect_information else 'imperfect'}; "
        f"{'chance (a shuffled bag or deck)' if info.chance else 'no chance'} |",
        f"| Step limit | {sp.max_episode_steps or 'none (`max_steps=` truncates)'} |",
        f"| Entry point | `{sp.entry_point}` (rules: `{type(state).__module__}.{type(state).__qualname__}`) |",
        "",
        "## Variants",
        "",
        f'The settings the registry declares (`envs.spec("{env_id}").variants`), each made with '
        f'`envs.make("{env_id}", **kwargs)`; the contract suite runs every check on each.',
        "",
        "| Variant | kwargs | Agents | Action space | Observation |",
        "|---|---|---|---|---|",
    ]
    for name in sp.variants:
        f = facts[name]
        out.append(
            f"| `{name}` | {kwargs_text(f['kwargs'])} | {len(f['agents'])}"
            + (f" (teams {f['teams']})" if any(len(t) > 1 for t in f["teams"]) else "")
            + f" | `{f['action_space']}` | {observation_text(f['observation'])} |"
        )
    args = sp.arguments()
    out += ["", "Constructor arguments: " + ", ".join(f"`{a}`" for a in args) + "."]
    if sp.kwargs:
        out += ["", f"Registry defaults: {kwargs_text(sp.kwargs)}."]
    out += ["", "## Observation and actions", "", "### Observation space (defaults)", ""]
    out += ["| Entry | Shape | Dtype | Range |", "|---|---|---|---|"]
    for key, (shape, dtype, lo, hi) in d["observation"].items():
        name = "`observation`" if key is None else f'`observation["{key}"]`'
        out.append(f"| {name} | `{shape_text(shape)}` | {dtype} | [{lo:g}, {hi:g}] |")
    out.append(f"| `action_mask` | `{shape_text(d['mask'][0])}` | {d['mask'][1]} | {{0, 1}} |")
    out += ["", "### Action layout (defaults)", ""]
    if layout is None:
        out.append("The actions are not laid out on the observation (`action_layout()` is `None`).")
    else:
        out += [
            "`env.unwrapped.action_layout()` (an `envs.core.observation.ActionLayout`), what spatial and "
            "factored policy heads (`training.features`) read:",
            "",
            "| Property | Value |",
            "|---|---|",
            f"| Planes x height x width | {layout.planes} x {layout.height} x {layout.width} |",
            "| Spatial map | "
            + ("the observation" if layout.obs_key is None else f"`observation[{layout.obs_key!r}]`")
            + " |",
            f"| Actions on the map | {int((layout.index >= 0).sum())} of {layout.num_actions} |",
            "| Off the map | "
            + (", ".join(f"{a} (`{s}`)" for a, s in d["off_grid"]) if d["off_grid"] else "none")
            + " |",
            "| Plane description | "
            + (
                f"fixed `plane_features {shape_text(layout.plane_features.shape)}`"
                if layout.plane_features is not None
                else f"read from `observation[{layout.plane_key!r}]`, "
                f"`plane_index {shape_text(layout.plane_index.shape)}`"
                if layout.plane_index is not None
                else "none"
            )
            + " |",
            "| Symmetries | " + (", ".join(f"`{s}`" for s in d["symmetries"]) or "none") + " |",
        ]
    out += ["", f"### From the docstring of `{env_doc_module(env_id).__name__}`", "", env_body(env_id)]
    encoder_module = importlib.import_module(d["encoder"].rsplit(".", 1)[0])
    out += ["", f"### The encoder (`{encoder_module.__name__}`)", "", md_text(encoder_module.__doc__).strip()]
    out += ["", "## Rules", "", rules_summary(env_id)]
    out += ["", "## Agents", "", "### Baselines", ""]
    out += [
        "Built by name (`--agents`, `--opponent`, `make_agent`); each was asked (`agent.check_env`) "
        "about the start of every variant, and made one move at the start of the defaults:",
        "",
        "| Spec | What it does | Plays here |",
        "|---|---|---|",
    ]
    rows = baseline_table(env_id)
    out += [f"| {a} | {cell(b)} | {cell(c)} |" for a, b, c in rows if not c.startswith("no: ")]
    refused = [f"{a} ({c[4:]})" for a, _, c in rows if c.startswith("no: ")]
    if refused:
        out += ["", "Not here: " + "; ".join(refused) + "."]
    out += ["", "### Trained agents shipped with the package", ""]
    rows = shipped_rows(env_id)
    if rows:
        out += [
            "Each plays the setting it was trained on (`python -m training.agents.shipped` lists them all):",
            "",
            "| Name | Engine | Setting | Variant | Summary |",
            "|---|---|---|---|---|",
        ]
        out += ["| " + " | ".join(cell(x) for x in row) + " |" for row in rows]
    else:
        out.append("None yet.")
    out += ["", "## Version history", "", version_history(env_id), ""]
    return "\n".join(out)


def rules_title(text: str, fallback: str) -> str:
    """A rules page's short title: its ``RULES.md`` title up to a dash (``"Ataxx — rules as ..."``
    gives ``"Ataxx"``), with " rules"."""
    title = rules_sections(text)[0]
    return (re.split(r"\s+[—-]+\s+", title)[0] if title else fallback) + " rules"


def rules_pages() -> dict[str, str]:
    """``{site path: Markdown}``: every game's ``RULES.md`` as ``environments/<game>-rules.md``."""
    out = {}
    for env_id in env_ids():
        path = rules_file(env_id)
        if path is not None:
            out.setdefault(f"environments/{game_name(env_id)}-rules.md", lists_apart(path.read_text(encoding="utf-8")))
    return out


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def lists_apart(text: str) -> str:
    """``text`` with a blank line before every list that follows a paragraph line directly: GitHub's
    Markdown (CommonMark) lets a list interrupt a paragraph, Python-Markdown (mkdocs) does not and
    would run the list into the paragraph. Nothing inside a fenced code block changes."""
    out: list[str] = []
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        prev = out[-1] if out else ""
        if (
            not fenced
            and _LIST_ITEM.match(line)
            and prev.strip()
            and not _LIST_ITEM.match(prev)
            and not prev.startswith(" ")
        ):
            out.append("")
        out.append(line)
    return "\n".join(out)


def index_page() -> str:
    """The Markdown of ``environments/index.md``: every registered id, with its picture."""
    out = [
        "# Environments",
        "",
        "Every registered environment id (`envs.env_ids()`), with its defaults; each page lists its "
        "variants, spaces, observation planes, action layout, rules and agents.",
        "",
        "| Env id | Game | Players | Action space | Observation | Picture |",
        "|---|---|---|---|---|---|",
    ]
    for env_id in env_ids():
        facts = variant_facts(env_id)
        d = facts[None]
        players = sorted({len(f["agents"]) for f in facts.values()})
        name = spec(env_id).initial_state().setting_name()
        out.append(
            f"| [`{env_id}`]({env_id}.md) | {name} | "
            + (str(players[0]) if len(players) == 1 else f"{players[0]}-{players[-1]}")
            + f" | `{d['action_space']}` | {observation_text(d['observation'])} | "
            f'<img src="{env_id}.svg" alt="{name}" width="160"> |'
        )
    rules = rules_pages()
    if rules:
        links = [f"[{rules_title(text, p)}]({p.split('/')[-1]})" for p, text in rules.items()]
        out += ["", "The rules as this project implements them: " + ", ".join(links) + "."]
    return "\n".join(out) + "\n"


@functools.cache
def api_modules() -> tuple[str, ...]:
    """The modules of the API reference: :data:`API_MODULES`, then each registered game's
    rules-state module (where its ``GameState`` subclass is defined), each once."""
    games = [type(spec(env_id).initial_state()).__module__ for env_id in env_ids()]
    return tuple(dict.fromkeys([*API_MODULES, *games]))


def api_page(module: str) -> str:
    """The Markdown of ``api/<module>.md``: the module's mkdocstrings block."""
    return f"# `{module}`\n\n::: {module}\n"


def api_index() -> str:
    out = [
        "# API reference",
        "",
        "Generated from the docstrings (mkdocstrings).",
        "",
        "| Module | About |",
        "|---|---|",
    ]
    for module in api_modules():
        doc = importlib.import_module(module).__doc__
        out.append(f"| [`{module}`]({module}.md) | {cell(first_paragraph(doc))} |")
    return "\n".join(out) + "\n"


def pages() -> dict[str, str]:
    """``{site path: Markdown}`` of every generated page."""
    out = {"environments/index.md": index_page()}
    for env_id in env_ids():
        out[f"environments/{env_id}.md"] = env_page(env_id)
    out.update(rules_pages())
    out["api/index.md"] = api_index()
    for module in api_modules():
        out[f"api/{module}.md"] = api_page(module)
    out["benchmarks-details.md"] = benchmarks_page()
    return out


def benchmarks_page() -> str:
    """``benchmarks/README.md`` (how each benchmark is run, its peer and its figures) as a page."""
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    body = text.split("\n", 1)[1] if text.startswith("# ") else text
    return (
        "# Benchmarks in detail\n\n"
        "*`benchmarks/README.md` of the repository: each script in `benchmarks/`, how to run it, the peer it is "
        "measured against in the same run, and its figures.*\n" + body
    )


def nav_sections() -> dict[str, list]:
    """The nav entries of the generated pages, by the index page that heads their section."""
    envs_nav: list = [{env_id: f"environments/{env_id}.md"} for env_id in env_ids()]
    rules = [{rules_title(text, p): p} for p, text in rules_pages().items()]
    if rules:
        envs_nav.append({"Rules": rules})
    return {
        "environments/index.md": envs_nav,
        "api/index.md": [{module: f"api/{module}.md"} for module in api_modules()],
    }


def on_config(config, **kwargs):
    """mkdocs hook: append the generated pages to the nav sections headed by their index pages
    (``environments/index.md``, ``api/index.md``), so that every page is in the nav."""
    sections = nav_sections()

    def visit(items):
        for item in items:
            if isinstance(item, dict):
                for value in item.values():
                    if isinstance(value, list):
                        visit(value)
                        if value and isinstance(value[0], str) and value[0] in sections:
                            value.extend(sections[value[0]])

    visit(config["nav"] or [])
    return config


def generate() -> None:
    """Write every generated page, picture and rules page (mkdocs-gen-files' virtual files)."""
    import mkdocs_gen_files

    for path, text in pages().items():
        with mkdocs_gen_files.open(path, "w") as f:
            f.write(text)
    for env_id in env_ids():
        with mkdocs_gen_files.open(f"environments/{env_id}.svg", "w") as f:
            f.write(env_svg(env_id))
    for path, source in picture_files().items():
        with mkdocs_gen_files.open(path, "wb") as f:
            f.write(source.read_bytes())


if __name__ in ("__main__", "<run_path>"):
    generate()
