"""A run's ``logs/`` without stable-baselines3: :class:`ProgressLogger` writes ``progress.csv`` and
TensorBoard scalars as the SB3 engine's logger (:func:`training.runs.make_logger`) does, for the
engines that do not run on SB3 (RLlib), so that they need no SB3 installed.

No well-kept library writes SB3's CSV layout (one row per dump, the header rewritten when a key
first appears), so the CSV part is a few lines of our own, checked byte for byte against SB3's
writer in ``tests/training/test_progress_log.py``; the TensorBoard part is torch's
``SummaryWriter`` (the ``tensorboard`` package), the writer SB3 itself uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

__all__ = ["ProgressLogger"]


class ProgressLogger:
    """``record`` values, then ``dump`` them as one row of ``folder/progress.csv`` and as
    TensorBoard scalars (event files in ``folder``) at a step; the interface of SB3's ``Logger``
    that the engines use (``record``, ``dump``, ``close``).

    ``progress.csv`` follows SB3's ``CSVOutputFormat`` (with the sorted new columns of
    :func:`training.runs.make_logger`):

    * the columns are the keys in order of first appearance; the keys that first appear in the
      same dump come in sorted order;
    * when a dump brings new keys, the file is rewritten: the new header, and every earlier row
      padded with empty cells for the new columns;
    * a key not recorded since the last dump leaves its cell empty; a value is written as
      ``str(value)`` (``0.25``, ``128``), a string in double quotes (inner quotes doubled).

    The TensorBoard scalars have the keys as tags (``train/policy_loss``, ``eval/score_vs_random``),
    written in sorted order at ``step``; strings are written as text.

    Args:
        folder: the log folder (created if missing).

    Raises:
        ModuleNotFoundError: torch or tensorboard is not installed (both in the ``train`` extra).
    """

    def __init__(self, folder: str | Path) -> None:
        from torch.utils.tensorboard import SummaryWriter

        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self._file: IO[str] = open(folder / "progress.csv", "w+")
        self._keys: list[str] = []
        self._values: dict[str, object] = {}
        self._writer = SummaryWriter(log_dir=str(folder))

    def record(self, key: str, value: float | int | str) -> None:
        """Set ``key``'s value for the next :meth:`dump` (a later call for the same key wins)."""
        self._values[key] = value

    def dump(self, step: int = 0) -> None:
        """Write the recorded values as one CSV row and as TensorBoard scalars at ``step``, then
        forget them."""
        values, self._values = self._values, {}
        new = sorted(values.keys() - set(self._keys))
        f = self._file
        if new:
            self._keys.extend(new)
            f.seek(0)
            rows = f.readlines()[1:]
            f.seek(0)
            f.write(",".join(self._keys) + "\n")
            for row in rows:
                f.write(row[:-1] + "," * len(new) + "\n")
        f.write(",".join(_cell(values.get(key)) for key in self._keys) + "\n")
        f.flush()
        for key, value in sorted(values.items()):
            if isinstance(value, str):
                self._writer.add_text(key, value, step)
            else:
                self._writer.add_scalar(key, value, step)
        self._writer.flush()

    def close(self) -> None:
        """Close ``progress.csv`` and the TensorBoard writer."""
        self._file.close()
        self._writer.close()


def _cell(value: object) -> str:
    """One CSV cell as SB3 writes it: empty for a missing value, a string quoted."""
    if value is None:
        return ""
    if isinstance(value, str):
        return '"' + value.replace('"', '""') + '"'
    return str(value)
