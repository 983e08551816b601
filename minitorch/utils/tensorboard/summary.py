"""The Summary protocol buffers SummaryWriter writes: scalars, histograms, images, text, hparams
and PR curves, built from NumPy arrays with the tensorboard package's protos. Mirrors
torch.utils.tensorboard.summary."""

from __future__ import annotations

import io

import numpy as np
from google.protobuf import struct_pb2
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.pr_curve.plugin_data_pb2 import PrCurvePluginData
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

import minitorch

__all__ = [
    "hparams",
    "histogram",
    "histogram_raw",
    "image",
    "make_histogram",
    "make_image",
    "make_np",
    "pr_curve",
    "pr_curve_raw",
    "scalar",
    "text",
]


def make_np(x) -> np.ndarray:
    """A NumPy array for a tensor, an array or a number (a number becomes a 1-element array)."""
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, minitorch.Tensor):
        if x.dtype == minitorch.bfloat16:
            # NumPy has no bfloat16 of its own; float16 holds what the plots need, as in torch
            x = x.to(minitorch.float16)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def scalar(name, tensor, new_style=False, double_precision=False) -> Summary:
    """One scalar: the old `simple_value` field, or with new_style a float (double) tensor
    tagged for the scalars plugin."""
    value = make_np(tensor).squeeze()
    if value.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {value.size} "
            f"and {value.ndim} dimensions."
        )
    value = float(value)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=value)])
    if double_precision:
        proto = TensorProto(double_val=[value], dtype="DT_DOUBLE")
    else:
        proto = TensorProto(float_val=[value], dtype="DT_FLOAT")
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=meta)])


def histogram_raw(name, min, max, num, sum, sum_squares, bucket_limits, bucket_counts):
    """A histogram from its statistics and buckets, as the caller computed them."""
    proto = HistogramProto(
        min=min,
        max=max,
        num=num,
        sum=sum,
        sum_squares=sum_squares,
        bucket_limit=bucket_limits,
        bucket=bucket_counts,
    )
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def histogram(name, values, bins, max_bins=None) -> Summary:
    """A histogram of values over bins (edges, or a NumPy bin count or rule name)."""
    proto = make_histogram(make_np(values).astype(float), bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=proto)])


def make_histogram(values, bins, max_bins=None) -> HistogramProto:
    """NumPy's histogram trimmed to the buckets holding values, as TensorBoard stores it."""
    if values.size == 0:
        raise ValueError("The input has no element.")
    values = values.reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge runs of `group` neighbouring buckets, padding the last run with empty ones
        group = len(counts) // max_bins
        short = len(counts) % group
        if short:
            counts = np.pad(counts, (0, group - short))
        counts = counts.reshape(-1, group).sum(axis=-1)
        limits = np.append(limits[:-1:group], limits[-1])
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:  # every value fell outside the bins
        raise ValueError("The histogram is empty, please file a bug report.")
    first, last = int(nonzero[0]), int(nonzero[-1]) + 1
    # TensorBoard keeps only right edges: a leading empty bucket carries the left edge of the
    # first one that holds values (the bucket before it, or a new one when there is none).
    if first > 0:
        counts = counts[first - 1 : last]
    else:
        counts = np.concatenate([[0], counts[:last]])
    limits = limits[first : last + 1]
    return HistogramProto(
        min=values.min(),
        max=values.max(),
        num=len(values),
        sum=values.sum(),
        sum_squares=values.dot(values),
        bucket_limit=limits.tolist(),
        bucket=counts.tolist(),
    )


def _make_grid(images, ncols=8) -> np.ndarray:
    """N images (N1HW or N3HW) tiled row by row, ncols a row, into one 3HW canvas."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, _, h, w = images.shape
    ncols = min(n, ncols)
    nrows = -(-n // ncols)
    canvas = np.zeros((3, h * nrows, w * ncols), dtype=images.dtype)
    for i in range(n):
        row, col = divmod(i, ncols)
        canvas[:, row * h : (row + 1) * h, col * w : (col + 1) * w] = images[i]
    return canvas


def _to_hwc(array, dataformats: str) -> np.ndarray:
    """The image in dataformats (NCHW, CHW, HWC, HW and permutations) as an HWC array with 3 or
    4 channels; a batch is tiled into one image, a grey image repeated into RGB."""
    if len(set(dataformats)) != len(dataformats):
        raise AssertionError(
            f"You can not use the same dimension shorthand twice. input_format: {dataformats}"
        )
    if array.ndim != len(dataformats):
        raise AssertionError(
            "size of input tensor and input format are different. "
            f"tensor shape: {array.shape}, input_format: {dataformats}"
        )
    dataformats = dataformats.upper()
    if len(dataformats) == 4:
        nchw = array.transpose([dataformats.find(c) for c in "NCHW"])
        return _make_grid(nchw).transpose(1, 2, 0)
    if len(dataformats) == 3:
        hwc = array.transpose([dataformats.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, 2) if hwc.shape[2] == 1 else hwc
    hw = array.transpose([dataformats.find(c) for c in "HW"])
    return np.stack([hw] * 3, 2)


def make_image(hwc, rescale=1) -> Summary.Image:
    """A PNG-encoded Image proto of a uint8 HWC array (height and width before rescaling)."""
    from PIL import Image

    height, width, channels = hwc.shape
    picture = Image.fromarray(hwc)
    picture = picture.resize(
        (int(width * rescale), int(height * rescale)), Image.Resampling.LANCZOS
    )
    with io.BytesIO() as buffer:
        picture.save(buffer, format="PNG")
        encoded = buffer.getvalue()
    return Summary.Image(
        height=height, width=width, colorspace=channels, encoded_image_string=encoded
    )


def image(tag, tensor, rescale=1, dataformats="NCHW") -> Summary:
    """An image; uint8 pixels are kept, any other dtype is read as [0, 1] and scaled to
    [0, 255] (truncated, clipped)."""
    hwc = _to_hwc(make_np(tensor), dataformats)
    scale = 1 if hwc.dtype == np.uint8 else 255
    hwc = (hwc.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=make_image(hwc, rescale=rescale))])


def text(tag, text) -> Summary:
    """A string for the text plugin, under tag + '/text_summary' as torch names it."""
    content = TextPluginData(version=0).SerializeToString()
    meta = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name="text", content=content)
    )
    proto = TensorProto(
        dtype="DT_STRING",
        string_val=[text.encode("utf_8")],
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]),
    )
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=proto)])


def _pr_summary(tag, data, num_thresholds) -> Summary:
    """The 6 x num_thresholds table (TP, FP, TN, FN, precision, recall) for the PR-curve plugin."""
    content = PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    meta = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name="pr_curves", content=content)
    )
    proto = TensorProto(
        dtype="DT_FLOAT",
        float_val=data.reshape(-1).tolist(),
        tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=s) for s in data.shape]),
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=meta, tensor=proto)])


def pr_curve_raw(tag, tp, fp, tn, fn, precision, recall, num_thresholds=127, weights=None):
    """A PR curve from counts the caller computed."""
    data = np.stack([make_np(c) for c in (tp, fp, tn, fn, precision, recall)])
    return _pr_summary(tag, data, min(num_thresholds, 127))


def pr_curve(tag, labels, predictions, num_thresholds=127, weights=None) -> Summary:
    """A PR curve of binary labels against predicted probabilities in [0, 1]."""
    # TensorBoard's plugin reads at most 127 thresholds, so torch caps the count there
    num_thresholds = min(num_thresholds, 127)
    weights = 1.0 if weights is None else weights
    buckets = np.int32(np.floor(predictions * (num_thresholds - 1)))
    positive = labels.astype(np.float64)
    span = (0, num_thresholds - 1)
    tp_hist, _ = np.histogram(buckets, num_thresholds, span, weights=positive * weights)
    fp_hist, _ = np.histogram(buckets, num_thresholds, span, weights=(1.0 - positive) * weights)
    # threshold i counts the predictions at or above it: reversed cumulative sums
    tp = np.cumsum(tp_hist[::-1])[::-1]
    fp = np.cumsum(fp_hist[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return _pr_summary(tag, np.stack((tp, fp, tn, fn, precision, recall)), num_thresholds)


def _plugin_summary(tag, data) -> Summary:
    """A value for the hparams plugin carrying one HParamsPluginData field."""
    from tensorboard.plugins.hparams.metadata import PLUGIN_DATA_VERSION, PLUGIN_NAME
    from tensorboard.plugins.hparams.plugin_data_pb2 import HParamsPluginData

    content = HParamsPluginData(version=PLUGIN_DATA_VERSION, **data).SerializeToString()
    meta = SummaryMetadata(
        plugin_data=SummaryMetadata.PluginData(plugin_name=PLUGIN_NAME, content=content)
    )
    return Summary(value=[Summary.Value(tag=tag, metadata=meta)])


def hparams(hparam_dict=None, metric_dict=None, hparam_domain_discrete=None):
    """The experiment, session-start and session-end summaries of the hparams plugin."""
    from tensorboard.plugins.hparams import api_pb2, metadata
    from tensorboard.plugins.hparams.plugin_data_pb2 import SessionEndInfo, SessionStartInfo

    for name, d in (("hparam_dict", hparam_dict), ("metric_dict", metric_dict)):
        if not isinstance(d, dict):
            raise TypeError(f"parameter: {name} should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, v in domains.items():
        if (
            k not in hparam_dict
            or not isinstance(v, list)
            or not all(isinstance(d, type(hparam_dict[k])) for d in v)
        ):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                f"hparam_dict[{k}]."
            )

    infos = []
    start = SessionStartInfo()
    for k, v in hparam_dict.items():
        if v is None:
            continue
        # bool is an int, so True/False are stored as the numbers 1/0, as in torch
        if isinstance(v, (int, float)):
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            field, kind = "string_value", "DATA_TYPE_STRING"
        elif isinstance(v, minitorch.Tensor):
            field, kind, v = "number_value", "DATA_TYPE_FLOAT64", float(make_np(v).reshape(-1)[0])
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[k], field, v)
        domain = None
        if k in domains:
            domain = struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: d}) for d in domains[k]]
            )
        infos.append(
            api_pb2.HParamInfo(name=k, type=api_pb2.DataType.Value(kind), domain_discrete=domain)
        )

    metrics = [api_pb2.MetricInfo(name=api_pb2.MetricName(tag=k)) for k in metric_dict]
    experiment = api_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = SessionEndInfo(status=api_pb2.Status.Value("STATUS_SUCCESS"))
    return (
        _plugin_summary(metadata.EXPERIMENT_TAG, {"experiment": experiment}),
        _plugin_summary(metadata.SESSION_START_INFO_TAG, {"session_start_info": start}),
        _plugin_summary(metadata.SESSION_END_INFO_TAG, {"session_end_info": end}),
    )
