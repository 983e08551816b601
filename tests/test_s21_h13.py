"""Session 21 (h13): save/load round trips found by differential fuzzing against torch 2.13.

Expected values are torch's, obtained by running torch (the tests do not import it).
"""

from __future__ import annotations

import fractions
import io
import pickle
import warnings
import zipfile

import pytest

import minitorch
from minitorch import serialization


def _bytes(obj, **kw) -> bytes:
    buf = io.BytesIO()
    minitorch.save(obj, buf, **kw)
    return buf.getvalue()


def _load(data: bytes, **kw):
    return minitorch.load(io.BytesIO(data), **kw)


def _pickle_of(data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.read("archive/data.pkl")


class _Recorder(pickle.Unpickler):
    """Reads a checkpoint's pickle recording each _rebuild_tensor_v2 call's arguments."""

    def __init__(self, data: bytes):
        super().__init__(io.BytesIO(data))
        self.calls: list = []

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return lambda *args: self.calls.append(args) or len(self.calls) - 1
        if module == "collections":
            return super().find_class(module, name)
        return f"{module}.{name}"

    def persistent_load(self, pid):
        return pid


def _rebuild_args(data: bytes) -> list:
    r = _Recorder(_pickle_of(data))
    r.load()
    return r.calls


def test_size_one_dim_is_saved_with_torchs_stride():
    # NumPy strides the size-1 dim of this view 0; torch.save writes stride (4, 2, 1)
    v = minitorch.zeros(5, 4, 1, dtype=minitorch.uint8).expand(5, 4, 1)[:, 3:4:2]
    assert v.stride() == (4, 2, 1)
    (args,) = _rebuild_args(_bytes(v))
    assert args[2] == (5, 1, 1) and args[3] == (4, 2, 1)


def test_empty_view_keeps_its_storage():
    # torch: the loaded w[:0] keeps w's 24-byte storage (offset 0), as torch.save writes it
    w = minitorch.arange(6.0)
    back = _load(_bytes([w, w[:0]]))
    assert back[1].shape == (0,)
    assert back[1].untyped_storage().nbytes() == 24
    assert back[1].storage_offset() == 0
    alone = _load(_bytes(w[2:2]))
    assert alone.untyped_storage().nbytes() == 24


def test_empty_storages_of_two_dtypes_save_side_by_side():
    # torch checks the dtypes only of storages with memory
    t = minitorch.zeros(2, 1, 0, dtype=minitorch.int32)
    back = _load(_bytes({"t": t, "s": t.untyped_storage()}))
    assert back["t"].shape == (2, 1, 0) and back["t"].dtype == minitorch.int32
    assert back["s"].nbytes() == 0


_UNSAFE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `minitorch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the file "
    "from a trusted source."
)
_DOCS = (
    "\n\nCheck the documentation of minitorch.load to learn more about types accepted by default "
    "with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)


def test_unsafe_global_refusal_has_torchs_message():
    data = _bytes({"x": fractions.Fraction(1, 2)})
    expected = (
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) "
        + _UNSAFE
        + "\n\t(2) Alternatively, to load with `weights_only=True` please check the recommended "
        "steps in the following error message.\n\tWeightsUnpickler error: Unsupported global: "
        "GLOBAL fractions.Fraction was not an allowed global by default. Please use "
        "`minitorch.serialization.add_safe_globals([fractions.Fraction])` or the "
        "`minitorch.serialization.safe_globals([fractions.Fraction])` context manager to "
        "allowlist this global if you trust this class/function." + _DOCS
    )
    with pytest.raises(pickle.UnpicklingError) as info:
        _load(data)
    assert str(info.value) == expected
    with serialization.safe_globals([fractions.Fraction]):
        assert _load(data) == {"x": fractions.Fraction(1, 2)}


def test_blocked_module_refusal_has_torchs_message():
    import os

    data = _bytes({"f": os.getcwd})
    full = f"{os.getcwd.__module__}.getcwd"
    with serialization.safe_globals([os.getcwd]):
        with pytest.raises(pickle.UnpicklingError) as info:
            _load(data)
    assert str(info.value) == (
        f"Weights only load failed. {_UNSAFE}\n\n\nTrying to load unsupported GLOBAL {full} "
        f"whose module {os.getcwd.__module__} is blocked." + _DOCS
    )


@pytest.mark.parametrize("legacy", [False, True])
def test_storages_save_as_torch_writes_them(legacy):
    warnings.simplefilter("ignore", UserWarning)  # TypedStorage is deprecated
    t = minitorch.arange(4.0)
    kw = {"_use_new_zipfile_serialization": not legacy}
    typed = _load(_bytes(t.storage(), **kw))
    assert isinstance(typed, minitorch.TypedStorage) and minitorch.is_storage(typed)
    assert typed.dtype == minitorch.float32 and typed.tolist() == [0.0, 1.0, 2.0, 3.0]
    untyped = _load(_bytes(t.untyped_storage(), **kw))  # torch.load: a TypedStorage of uint8
    assert untyped.dtype == minitorch.uint8 and untyped.size() == 16
    assert untyped.tolist()[4:8] == [0, 0, 128, 63]  # 1.0f, little-endian
    # the storage and a view of it stay one memory
    view, storage = _load(_bytes([t[1:], t.storage()], **kw))
    storage[1] = 7.0
    assert view.tolist() == [7.0, 2.0, 3.0]
    a, b = _load(_bytes([t.untyped_storage(), t.untyped_storage()], **kw))
    assert a is b


def test_storage_records_use_torchs_globals():
    t = minitorch.arange(3.0)
    assert b"ctorch.storage\nUntypedStorage\n" in _pickle_of(_bytes(t.untyped_storage()))
    assert b"ctorch\nFloatStorage\n" in _pickle_of(_bytes(t.storage()))


def test_tensor_and_its_untyped_storage_refused_as_in_torch():
    t = minitorch.arange(4.0)
    with pytest.raises(RuntimeError, match="view the same data as different types"):
        minitorch.save([t, t.untyped_storage()], io.BytesIO())


def test_unknown_location_names_untyped_storage():
    with pytest.raises(RuntimeError) as info:
        _load(_bytes(minitorch.ones(2)), map_location="foo")
    assert str(info.value) == (
        "don't know how to restore data location of torch.storage.UntypedStorage (tagged with foo)"
    )


def test_legacy_file_whose_storage_key_is_damaged_raises():
    # the object's pickle names storage '7', whose data the file does not hold: torch returns
    # uninitialized memory; minitorch refuses rather than return a tensor never filled
    data = _bytes({"a": minitorch.arange(6.0)}, _use_new_zipfile_serialization=False)
    key = b"X\x01\x00\x00\x000"
    assert data.count(key) == 2  # in the object's pickle, then in the key list
    damaged = data.replace(key, b"X\x01\x00\x00\x007", 1)
    with pytest.raises(RuntimeError, match="storage '7' has no data"):
        _load(damaged)
    assert _load(data)["a"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
