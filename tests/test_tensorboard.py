"""minitorch.utils.tensorboard: what SummaryWriter writes, read back with TensorBoard's own
EventAccumulator, and compared with torch's SummaryWriter where torch is installed."""

from __future__ import annotations

import importlib
import io
import json
import os
import subprocess
import sys
import types
import warnings

import numpy as np
import pytest

pytest.importorskip("tensorboard")

from tensorboard.backend.event_processing import event_accumulator as ea  # noqa: E402

import minitorch as mt  # noqa: E402
from minitorch.utils.tensorboard import SummaryWriter  # noqa: E402

# read every event back, not TensorBoard's default sample of each tag
_ALL = {k: 0 for k in ea.DEFAULT_SIZE_GUIDANCE}


def _read(logdir) -> ea.EventAccumulator:
    acc = ea.EventAccumulator(str(logdir), size_guidance=_ALL)
    acc.Reload()
    return acc


def _png(encoded: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(encoded)))


def test_scalars_read_back(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_scalar("loss", mt.tensor(0.25), 0)  # 0-d tensor
        w.add_scalar("loss", mt.tensor([0.5], requires_grad=True), 1)  # 1 element, needs grad
        w.add_scalar("loss", 3, 2)  # Python int
        w.add_scalar("loss", np.float64(0.125), 3)
        w.add_scalar("lr", 0.1, 7, new_style=True)
        w.add_scalar("lr64", 0.1, 7, new_style=True, double_precision=True)
        w.add_scalar("stamped", 1.0, 1, walltime=123.5)
    acc = _read(tmp_path)
    got = [(e.step, e.value) for e in acc.Scalars("loss")]
    assert got == [(0, 0.25), (1, 0.5), (2, 3.0), (3, 0.125)]
    assert acc.Scalars("stamped")[0].wall_time == 123.5
    # new style: a tensor for the scalars plugin, float32 or float64
    (lr,) = acc.Tensors("lr")
    assert lr.step == 7 and lr.tensor_proto.dtype == 1  # DT_FLOAT
    np.testing.assert_allclose(lr.tensor_proto.float_val, [0.1], rtol=1e-7, err_msg="lr")
    assert acc.SummaryMetadata("lr").plugin_data.plugin_name == "scalars"
    assert list(acc.Tensors("lr64")[0].tensor_proto.double_val) == [0.1]


def test_scalar_of_many_elements_raises(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(AssertionError, match="one element"):
        w.add_scalar("x", mt.ones(2), 0)


def test_add_scalars_writes_one_subdirectory_per_key(tmp_path):
    with SummaryWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("run/loss", {"train": 1.0 * step, "val": mt.tensor(2.0 * step)}, step)
    subdirs = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert subdirs == ["run_loss_train", "run_loss_val"]
    for name, scale in (("run_loss_train", 1.0), ("run_loss_val", 2.0)):
        got = [(e.step, e.value) for e in _read(tmp_path / name).Scalars("run/loss")]
        assert got == [(s, scale * s) for s in range(3)], name


def test_histogram_buckets(tmp_path):
    values = np.random.default_rng(0).standard_normal(500).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_histogram("w", mt.tensor(values), 3)
        w.add_histogram("w_fd", mt.tensor(values), 3, bins="fd")
        w.add_histogram("w_10", mt.tensor(values), 3, bins=10)
    acc = _read(tmp_path)
    (event,) = acc.Histograms("w")
    h = event.histogram_value
    v = values.astype(np.float64)
    assert event.step == 3 and h.num == 500
    np.testing.assert_allclose([h.min, h.max], [v.min(), v.max()], err_msg="min/max")
    np.testing.assert_allclose([h.sum, h.sum_squares], [v.sum(), v @ v], err_msg="sums")
    assert sum(h.bucket) == 500 and h.bucket[0] == 0  # a leading empty bucket: the left edge
    # the 'tensorflow' edges grow by 10% from 1e-12: both sides of zero hold values here
    assert len(h.bucket_limit) == len(h.bucket) > 50
    # NumPy bin counts are kept whole (trimmed to the populated range, plus the leading one)
    counts, edges = np.histogram(v, bins=10)
    h10 = acc.Histograms("w_10")[0].histogram_value
    assert h10.bucket == [0.0, *counts.tolist()]
    np.testing.assert_allclose(h10.bucket_limit, edges, err_msg="edges")
    assert sum(acc.Histograms("w_fd")[0].histogram_value.bucket) == 500


def test_histogram_of_nothing_raises(tmp_path):
    with SummaryWriter(tmp_path) as w, pytest.raises(ValueError, match="no element"):
        w.add_histogram("w", mt.zeros(0), 0)


@pytest.mark.parametrize(
    "fmt, make",
    [
        ("CHW", lambda a: a),
        ("HWC", lambda a: a.transpose(1, 2, 0)),
        ("HW", lambda a: a[0]),
    ],
)
def test_image_formats(tmp_path, fmt, make):
    chw = np.random.default_rng(1).random((3, 5, 7)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_image("img", mt.tensor(np.ascontiguousarray(make(chw))), 2, dataformats=fmt)
    (event,) = _read(tmp_path).Images("img")
    assert (event.step, event.height, event.width) == (2, 5, 7)
    expected = (make(chw) * 255).astype(np.uint8)  # floats in [0, 1], truncated as torch does
    expected = np.stack([expected] * 3, -1) if fmt == "HW" else expected
    expected = expected.transpose(1, 2, 0) if fmt == "CHW" else expected
    np.testing.assert_array_equal(_png(event.encoded_image_string), expected, err_msg=fmt)


def test_uint8_image_is_kept_and_batches_tile(tmp_path):
    u8 = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(1, 2, 3, 4).repeat(3, 0) * 9
    batch = np.random.default_rng(2).random((10, 1, 4, 5)).astype(np.float32)
    with SummaryWriter(tmp_path) as w:
        w.add_image("u8", mt.tensor(u8[:, 0]), 0)
        w.add_images("batch", mt.tensor(batch), 1)
    acc = _read(tmp_path)
    np.testing.assert_array_equal(
        _png(acc.Images("u8")[0].encoded_image_string), u8[:, 0].transpose(1, 2, 0)
    )
    # 10 images, 8 a row: 2 rows of 8 tiles, the empty tiles black
    grid = acc.Images("batch")[0]
    assert (grid.height, grid.width) == (8, 40)
    pixels = _png(grid.encoded_image_string)
    np.testing.assert_array_equal(pixels[4:, 5:10, 0], (batch[9, 0] * 255).astype(np.uint8))
    assert not pixels[4:, 10:].any()


def test_figure(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(2, 1), dpi=40)
    with SummaryWriter(tmp_path) as w:
        w.add_figure("fig", fig, 1)
    event = _read(tmp_path).Images("fig")[0]
    assert (event.height, event.width) == (40, 80)
    assert not plt.fignum_exists(fig.number)  # close=True


def test_text_and_pr_curve(tmp_path):
    with SummaryWriter(tmp_path) as w:
        w.add_text("notes", "hello *world*", 4)
        w.add_pr_curve("pr", mt.tensor([0, 1, 1, 0]), mt.tensor([0.1, 0.9, 0.6, 0.4]), 5, 11)
    acc = _read(tmp_path)
    (text,) = acc.Tensors("notes/text_summary")
    assert text.step == 4 and text.tensor_proto.string_val == [b"hello *world*"]
    assert acc.SummaryMetadata("notes/text_summary").plugin_data.plugin_name == "text"
    (pr,) = acc.Tensors("pr")
    table = np.array(pr.tensor_proto.float_val).reshape(6, 11)
    # threshold 0 counts everything as positive: TP 2, FP 2, precision 0.5, recall 1
    np.testing.assert_allclose(table[:, 0], [2, 2, 0, 0, 0.5, 1], err_msg="threshold 0")
    # at threshold 0.5 only 0.9 and 0.6 are positive: both right
    np.testing.assert_allclose(table[:, 5], [2, 0, 2, 0, 1, 1], err_msg="threshold 0.5")


def test_hparams_run_directory(tmp_path):
    from tensorboard.plugins.hparams import plugin_data_pb2

    with SummaryWriter(tmp_path) as w:
        w.add_hparams({"lr": 0.1, "opt": "sgd", "skip": None}, {"hp/acc": 0.75}, run_name="r1")
    acc = _read(tmp_path / "r1")
    assert [e.value for e in acc.Scalars("hp/acc")] == [0.75]
    content = acc.SummaryMetadata("_hparams_/session_start_info").plugin_data.content
    start = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
    assert start.hparams["lr"].number_value == 0.1
    assert start.hparams["opt"].string_value == "sgd"
    assert "skip" not in start.hparams
    with SummaryWriter(tmp_path) as w, pytest.raises(TypeError, match="should be dictionary"):
        w.add_hparams([("lr", 0.1)], {})


def test_embedding_files(tmp_path):
    mat = mt.tensor([[1.0, 2.0], [3.0, 4.0]])
    with SummaryWriter(tmp_path) as w:
        w.add_embedding(mat, metadata=["a", "b"], label_img=mt.rand(2, 3, 4, 4), tag="e/1")
    folder = tmp_path / "00000" / "e%2f1"
    assert (folder / "tensors.tsv").read_text() == "1.0\t2.0\n3.0\t4.0\n"
    assert (folder / "metadata.tsv").read_text() == "a\nb\n"
    assert (folder / "sprite.png").exists()
    config = (tmp_path / "projector_config.pbtxt").read_text()
    assert 'tensor_path: "00000/e%2f1/tensors.tsv"' in config


def test_default_logdir_purge_step_and_reopening(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)
    w = SummaryWriter(comment="_lr0.1", purge_step=5)
    name = os.path.basename(w.get_logdir())
    assert os.path.dirname(w.get_logdir()) == "runs"
    assert name.endswith("_" + socket.gethostname() + "_lr0.1")
    w.add_scalar("x", 1.0, 5)
    w.close()
    w.close()  # a second close is ignored
    w.add_scalar("x", 2.0, 6)  # after close: a new event file in the same directory
    w.flush()
    w.close()
    assert len(os.listdir(w.get_logdir())) == 2
    assert [e.value for e in _read(w.get_logdir()).Scalars("x")] == [1.0, 2.0]


def test_add_graph_warns_once_and_writes_nothing(tmp_path, monkeypatch):
    from minitorch.utils.tensorboard import writer

    monkeypatch.setattr(writer, "_graph_warned", False)
    with SummaryWriter(tmp_path) as w:
        with pytest.warns(UserWarning, match="cannot trace"):
            w.add_graph(mt.nn.Linear(2, 2), mt.zeros(1, 2))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            w.add_graph(mt.nn.Linear(2, 2), mt.zeros(1, 2))
    assert not _read(tmp_path).Tags()["graph"]


def test_import_needs_tensorboard_1_15(monkeypatch):
    monkeypatch.delitem(sys.modules, "minitorch.utils.tensorboard")
    monkeypatch.setitem(sys.modules, "tensorboard", types.SimpleNamespace(__version__="1.14.0"))
    with pytest.raises(ImportError, match="requires TensorBoard version 1.15 or above"):
        importlib.import_module("minitorch.utils.tensorboard")
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # not installed
    with pytest.raises(ImportError, match="tensorboard"):
        importlib.import_module("minitorch.utils.tensorboard")


def test_import_minitorch_leaves_tensorboard_unloaded():
    code = (
        "import json, sys, minitorch; a = 'tensorboard' in sys.modules; "
        "w = minitorch.utils.tensorboard.SummaryWriter; "
        "print(json.dumps([a, 'tensorboard' in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [False, True]


def _log_the_same(torch, SummaryWriter, logdir):
    g = np.random.default_rng(3)
    with SummaryWriter(logdir) as w:
        for step in range(3):
            w.add_scalar("loss", torch.tensor(1.0 / (step + 1)), step)
            w.add_scalars("m", {"a": step * 1.5, "b": torch.tensor(step * 2.5)}, step)
        w.add_histogram("h", torch.tensor(g.standard_normal(300).astype(np.float32)), 1)
        w.add_histogram("h_auto", torch.tensor(g.random(300)), 1, bins="auto", max_bins=6)
        w.add_image("img", torch.tensor(g.random((3, 6, 4)).astype(np.float32)), 2)
        w.add_images("imgs", torch.tensor(g.random((3, 3, 4, 4)).astype(np.float32)), 2)


def test_event_files_match_torchs(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("torch.utils.tensorboard")
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    _log_the_same(torch, TorchWriter, tmp_path / "torch")
    _log_the_same(mt, SummaryWriter, tmp_path / "mt")
    for sub in ("", "m_a", "m_b"):
        theirs, ours = _read(tmp_path / "torch" / sub), _read(tmp_path / "mt" / sub)
        assert ours.Tags() == theirs.Tags(), sub
        for tag in theirs.Tags()["scalars"]:
            steps = [(e.step, e.value) for e in theirs.Scalars(tag)]
            assert [(e.step, e.value) for e in ours.Scalars(tag)] == steps, tag
    theirs, ours = _read(tmp_path / "torch"), _read(tmp_path / "mt")
    for tag in ("h", "h_auto"):
        assert ours.Histograms(tag)[0].histogram_value == theirs.Histograms(tag)[0].histogram_value
    for tag in ("img", "imgs"):
        a, b = ours.Images(tag)[0], theirs.Images(tag)[0]
        assert (a.height, a.width, a.encoded_image_string) == (
            b.height,
            b.width,
            b.encoded_image_string,
        ), tag
