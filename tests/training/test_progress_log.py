"""``training.progress_log.ProgressLogger`` writes the ``logs/`` of SB3's logger
(``training.runs.make_logger``) without SB3: the same ``progress.csv`` byte for byte and the same
TensorBoard scalars, for keys that appear late, keys left out of a dump, ints, floats and strings."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from training.progress_log import ProgressLogger  # noqa: E402

#: Dumps (step, records): new keys in the second and third dump (the file is rewritten), keys
#: missing from a dump, several new keys at once (sorted), a string with quotes and a comma.
DUMPS = [
    (64, {"train/vf_loss": 0.5, "time/timesteps": 64, "train/entropy": 3.7440617084503174}),
    (128, {"time/timesteps": 128, "pool/win_rate": 0.25, "eval/score_vs_random": 1.0, "train/vf_loss": -1e-05}),
    (192, {"time/timesteps": 192, "pool/snapshots": 2, "note": 'a "b", c'}),
    (256, {"time/timesteps": 256}),
]


def _write(logger, dumps=DUMPS):
    for step, records in dumps:
        for key, value in records.items():
            logger.record(key, value)
        logger.dump(step=step)
    logger.close()


def _scalars(folder):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(folder))
    acc.Reload()
    return {tag: [(e.step, e.value) for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def test_progress_csv_is_sb3_s_byte_for_byte_and_the_scalars_the_same(tmp_path):
    pytest.importorskip("stable_baselines3")
    from training.runs import make_logger

    _write(ProgressLogger(tmp_path / "ours"))
    _write(make_logger(tmp_path / "sb3"))
    ours = (tmp_path / "ours" / "progress.csv").read_text()
    assert ours == (tmp_path / "sb3" / "progress.csv").read_text()
    assert _scalars(tmp_path / "ours") == _scalars(tmp_path / "sb3")


def test_progress_csv_layout(tmp_path):
    _write(ProgressLogger(tmp_path))
    assert (tmp_path / "progress.csv").read_text().splitlines() == [
        "time/timesteps,train/entropy,train/vf_loss,eval/score_vs_random,pool/win_rate,note,pool/snapshots",
        "64,3.7440617084503174,0.5,,,,",
        "128,,-1e-05,1.0,0.25,,",
        '192,,,,,"a ""b"", c",2',
        "256,,,,,,",
    ]
    scalars = _scalars(tmp_path)
    assert scalars["time/timesteps"] == [(64, 64.0), (128, 128.0), (192, 192.0), (256, 256.0)]
    assert scalars["pool/win_rate"] == [(128, 0.25)] and "note" not in scalars
