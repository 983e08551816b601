"""SummaryWriter and FileWriter: minitorch tensors logged to TensorBoard event files through the
tensorboard package's EventFileWriter. Mirrors torch.utils.tensorboard.writer."""

from __future__ import annotations

import math
import os
import time
import warnings

import numpy as np
from tensorboard.compat import tf
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from minitorch.utils.tensorboard import summary as _s

__all__ = ["FileWriter", "SummaryWriter"]


class FileWriter:
    """Wraps Summary protos into Events and queues them on one event file in log_dir (written
    by a background thread every flush_secs or max_queue events). Mirrors
    torch.utils.tensorboard.writer.FileWriter.

    Differences from torch: add_graph and add_onnx_graph are absent (minitorch cannot trace).
    """

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix="") -> None:
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event, step=None, walltime=None) -> None:
        """Queues an Event proto, stamped with walltime (default: now) and step."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        """Queues a Summary proto as an Event."""
        self.add_event(Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        self.event_writer.flush()

    def close(self) -> None:
        self.event_writer.close()

    def reopen(self) -> None:
        """After close(), starts a new event file in the same directory."""
        self.event_writer.reopen()


_DEFAULT_BINS = None
_graph_warned = False


def _default_bins() -> list:
    """The edges of bins='tensorflow': +-1e-12 growing by 10% up to 1e20, and 0 (TensorFlow's
    histogram buckets, which torch copies)."""
    global _DEFAULT_BINS
    if _DEFAULT_BINS is None:
        edges = []
        v = 1e-12
        while v < 1e20:
            edges.append(v)
            v *= 1.1  # repeated multiplication, not powers: torch's edges to the last bit
        _DEFAULT_BINS = [-e for e in reversed(edges)] + [0] + edges
    return _DEFAULT_BINS


class SummaryWriter:
    """Writes scalars, histograms, images, text, hparams, PR curves and embeddings of minitorch
    tensors to TensorBoard event files in log_dir (default runs/<datetime>_<hostname><comment>).
    Mirrors torch.utils.tensorboard.SummaryWriter.

    Differences from torch: add_graph writes nothing and warns once (minitorch has no tracer to
    build the graph from); add_onnx_graph, add_video, add_audio, add_mesh, add_tensor,
    add_image_with_boxes and the custom-scalar layouts are not implemented.
    """

    def __init__(
        self,
        log_dir=None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            import socket
            from datetime import datetime

            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", stamp + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = self.all_writers = None
        self._get_file_writer()

    @property
    def default_bins(self) -> list:
        return _default_bins()

    def _get_file_writer(self) -> FileWriter:
        """The main FileWriter, made anew (with a new event file) after close()."""
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(
                self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix
            )
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                # A restarted run: TensorBoard drops the events at or after this step that
                # earlier files hold, when it sees a START session log at that step.
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(
                    Event(step=step, session_log=SessionLog(status=SessionLog.START))
                )
                self.purge_step = None
        return self.file_writer

    def get_logdir(self):
        """The directory event files are written to."""
        return self.log_dir

    def _add(self, summary, global_step=None, walltime=None) -> None:
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_hparams(
        self,
        hparam_dict,
        metric_dict,
        hparam_domain_discrete=None,
        run_name=None,
        global_step=None,
    ) -> None:
        """Logs one run's hyperparameters and metrics for the HPARAMS tab, in a subdirectory
        run_name (default: the current time) of the log dir, as torch does."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        summaries = _s.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as run:
            for proto in summaries:
                run.file_writer.add_summary(proto, global_step)
            for k, v in metric_dict.items():
                run.add_scalar(k, v, global_step)

    def add_scalar(
        self,
        tag,
        scalar_value,
        global_step=None,
        walltime=None,
        new_style=False,
        double_precision=False,
    ) -> None:
        """Logs one number (a Python number, a 1-element tensor or array)."""
        proto = _s.scalar(tag, scalar_value, new_style=new_style, double_precision=double_precision)
        self._add(proto, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None) -> None:
        """Logs several numbers into one chart: each key gets its own event file in the
        subdirectory <log_dir>/<main_tag with '/' as '_'>_<key>, its value tagged main_tag."""
        walltime = time.time() if walltime is None else walltime
        logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            sub = logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            writer = self.all_writers.get(sub)
            if writer is None:
                writer = FileWriter(sub, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[sub] = writer
            writer.add_summary(_s.scalar(main_tag, value), global_step, walltime)

    def add_histogram(
        self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None
    ) -> None:
        """Logs a histogram of values; bins is 'tensorflow' (TensorBoard's log-spaced edges), a
        NumPy bin rule ('auto', 'fd', ...), a count, or the edges."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = _default_bins()
        self._add(_s.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(
        self,
        tag,
        min,
        max,
        num,
        sum,
        sum_squares,
        bucket_limits,
        bucket_counts,
        global_step=None,
        walltime=None,
    ) -> None:
        """Logs a histogram the caller computed (bucket_limits are the right edges)."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        proto = _s.histogram_raw(tag, min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._add(proto, global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Logs an image (CHW by default; HWC, HW...): uint8 as is, floats in [0, 1] scaled."""
        self._add(_s.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None, dataformats="NCHW"):
        """Logs a batch of images tiled into one grid, 8 a row."""
        self._add(_s.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None) -> None:
        """Logs a matplotlib figure (or a list of them, as a grid) rendered to RGB; close
        closes the figure afterwards. Needs matplotlib."""
        if isinstance(figure, list):
            pictures = np.stack([_render(f, close) for f in figure])
            self.add_image(tag, pictures, global_step, walltime, dataformats="NCHW")
        else:
            self.add_image(tag, _render(figure, close), global_step, walltime, dataformats="CHW")

    def add_text(self, tag, text_string, global_step=None, walltime=None) -> None:
        """Logs a string (markdown) for the TEXT tab."""
        self._add(_s.text(tag, text_string), global_step, walltime)

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        """Writes nothing: minitorch cannot trace a model into TensorBoard's graph. Warns once
        per process, so training scripts that log their graph keep running."""
        global _graph_warned
        if not _graph_warned:
            _graph_warned = True
            warnings.warn(
                "SummaryWriter.add_graph: minitorch cannot trace models, so no graph was "
                "written to TensorBoard",
                UserWarning,
                stacklevel=2,
            )

    def add_pr_curve(
        self,
        tag,
        labels,
        predictions,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ) -> None:
        """Logs a precision-recall curve of binary labels against probabilities."""
        labels, predictions = _s.make_np(labels), _s.make_np(predictions)
        proto = _s.pr_curve(tag, labels, predictions, num_thresholds, weights)
        self._add(proto, global_step, walltime)

    def add_pr_curve_raw(
        self,
        tag,
        true_positive_counts,
        false_positive_counts,
        true_negative_counts,
        false_negative_counts,
        precision,
        recall,
        global_step=None,
        num_thresholds=127,
        weights=None,
        walltime=None,
    ) -> None:
        """Logs a precision-recall curve from counts the caller computed."""
        proto = _s.pr_curve_raw(
            tag,
            true_positive_counts,
            false_positive_counts,
            true_negative_counts,
            false_negative_counts,
            precision,
            recall,
            num_thresholds,
            weights,
        )
        self._add(proto, global_step, walltime)

    def add_embedding(
        self,
        mat,
        metadata=None,
        label_img=None,
        global_step=None,
        tag="default",
        metadata_header=None,
    ) -> None:
        """Writes an N x D matrix (with optional labels and N x C x H x W thumbnails) for the
        PROJECTOR tab: tensors.tsv, metadata.tsv, sprite.png in <log_dir>/<step>/<tag>, and
        projector_config.pbtxt listing every embedding this writer wrote."""
        from google.protobuf import text_format
        from tensorboard.plugins.projector.projector_config_pb2 import (
            EmbeddingInfo,
            ProjectorConfig,
        )

        mat = _s.make_np(mat)
        global_step = 0 if global_step is None else global_step
        subdir = f"{str(global_step).zfill(5)}/{_encode(tag)}"
        logdir = self._get_file_writer().get_logdir()
        path = os.path.join(logdir, subdir)
        fs = tf.io.gfile
        if not fs.exists(path):
            fs.makedirs(path)
        elif fs.isdir(path):
            print("warning: Embedding dir exists, did you set global_step for add_embedding()?")
        else:
            raise NotADirectoryError(f"Path: `{path}` exists, but is a file. Cannot proceed.")
        info = EmbeddingInfo(
            tensor_name=f"{tag}:{str(global_step).zfill(5)}",
            tensor_path=_join(subdir, "tensors.tsv"),
        )
        if metadata is not None:
            if mat.shape[0] != len(metadata):
                raise AssertionError("#labels should equal with #data points")
            _write(_join(path, "metadata.tsv"), _metadata_tsv(metadata, metadata_header))
            info.metadata_path = _join(subdir, "metadata.tsv")
        if label_img is not None:
            if mat.shape[0] != label_img.shape[0]:
                raise AssertionError("#images should equal with #data points")
            _write(_join(path, "sprite.png"), _sprite_png(_s.make_np(label_img)))
            info.sprite.image_path = _join(subdir, "sprite.png")
            info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
        if mat.ndim != 2:
            raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
        rows = ("\t".join(str(v.item()) for v in row) + "\n" for row in mat)
        _write(_join(path, "tensors.tsv"), "".join(rows))
        if not hasattr(self, "_projector_config"):
            self._projector_config = ProjectorConfig()
        self._projector_config.embeddings.extend([info])
        config = text_format.MessageToString(self._projector_config)
        _write(_join(logdir, "projector_config.pbtxt"), config)

    def flush(self) -> None:
        """Writes every queued event to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        """Flushes and closes every event file; a later add_* call opens a new one."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()


def _render(figure, close: bool) -> np.ndarray:
    """A matplotlib figure drawn by the Agg backend, as a uint8 CHW RGB array."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    rgba = np.frombuffer(canvas.buffer_rgba(), dtype=np.uint8)
    w, h = figure.canvas.get_width_height()
    chw = np.moveaxis(rgba.reshape(h, w, 4)[:, :, :3], 2, 0)
    if close:
        plt.close(figure)
    return chw


def _encode(tag: str) -> str:
    """The tag made safe as one directory name: '%', '/' and '\\' percent-escaped."""
    for ch in "%/\\":
        tag = tag.replace(ch, f"%{ord(ch):02x}")
    return tag


def _join(a: str, b: str) -> str:
    """a/b as a's filesystem joins paths (local, or a remote one gfile knows)."""
    return tf.io.gfile.get_filesystem(a).join(a, b)


def _write(path: str, content) -> None:
    with tf.io.gfile.GFile(path, "wb") as f:
        f.write(tf.compat.as_bytes(content))


def _metadata_tsv(metadata, header) -> str:
    """One label a line, or with a header, tab-separated columns under it."""
    if not header:
        lines = [str(x) for x in metadata]
    else:
        if len(header) != len(metadata[0]):
            raise AssertionError("len of header must be equal to the number of columns in metadata")
        lines = ["\t".join(str(e) for e in row) for row in [header, *metadata]]
    return "\n".join(lines) + "\n"


def _sprite_png(images: np.ndarray) -> bytes:
    """The thumbnails (NCHW, values in [0, 1]) tiled into a square PNG, as the projector
    expects."""
    import io

    from PIL import Image

    grid = _s._make_grid(images, ncols=math.ceil(images.shape[0] ** 0.5)).transpose(1, 2, 0)
    square = np.zeros((grid.shape[1], grid.shape[1], 3))
    square[: grid.shape[0]] = grid
    with io.BytesIO() as buffer:
        Image.fromarray(np.uint8((square * 255).clip(0, 255))).save(buffer, format="PNG")
        return buffer.getvalue()
