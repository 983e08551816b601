"""torch.onnx as far as model code reaches for it: the is_in_onnx_export() guard in forward()
methods. Mirrors torch.onnx.

Differences from torch: minitorch cannot export ONNX (it records no graph of the model to
translate), so export() raises OnnxExporterError.
"""

from __future__ import annotations

__all__ = ["OnnxExporterError", "export", "is_in_onnx_export"]


class OnnxExporterError(RuntimeError):
    """Raised when an export fails. Mirrors torch.onnx.OnnxExporterError."""


def is_in_onnx_export() -> bool:
    """False: minitorch never runs a model under the ONNX exporter. Mirrors
    torch.onnx.is_in_onnx_export."""
    return False


def export(model, args=(), f=None, **kwargs):
    """Raises OnnxExporterError: minitorch has no ONNX exporter. Mirrors torch.onnx.export's
    signature only."""
    raise OnnxExporterError(
        "torch.onnx.export: minitorch cannot export ONNX models (it has no graph capture or ONNX "
        "translation); export the model with PyTorch, loading its weights with "
        "model.load_state_dict(minitorch.load(f)) there"
    )
