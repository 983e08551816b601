"""Session 30 (helper meta2): regression tests of the meta-device fixes, with torch's values and
messages written as literals (tests/reference/test_s30_meta2_reference.py compares with torch)."""

from __future__ import annotations

import pytest

import minitorch as torch
from minitorch import nn
from minitorch.utils.flop_counter import FlopCounterMode

F = nn.functional

NONZERO = (
    "The register_meta function for torch.nonzero() raises unimplemented by default, as a "
    "correct data-independent implementation does not exist. This implementation returns a "
    "fake value, assuming all elements of the tensor are non-zero. To enable this registration, "
    "please set 'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True."
)


def _no_kernel(op):
    return (
        f"aten::{op}: attempted to run this operator with Meta tensors, but there was no fake "
        "impl or Meta kernel registered. You may have run into this message while using an "
        "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use this "
        "operator with those APIs you'll need to add a fake impl. Please see the following for "
        "next steps:  https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html"
    )


def _meta(*shape, dtype=None):
    return torch.ones(*shape, dtype=dtype, device="meta")


def test_views_have_torchs_storage_offset_and_data_ptr():
    x = torch.empty(2, 3, 4, dtype=torch.float64, device="meta")
    assert x[1, 1:].storage_offset() == 16
    assert (x.data_ptr(), x[1].data_ptr(), x[1, 1:].data_ptr(), x[1:1].data_ptr()) == (
        0,
        96,
        128,
        0,
    )
    assert x[:, 1].untyped_storage().data_ptr() == 0
    assert x.as_strided((2, 2), (1, 4), 3).storage_offset() == 3


def test_format_share_memory_and_is_shared():
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__"):
        format(torch.ones((), device="meta"), ".2f")
    assert format(torch.ones((), device="meta")) == "tensor(..., device='meta', size=())"
    with pytest.raises(RuntimeError, match="_share_fd_: only available on CPU"):
        _meta(2).share_memory_()
    assert _meta(2).is_shared() is False


@pytest.mark.parametrize(
    ("fn", "shape"),
    [
        (lambda a, b: torch.linalg.inv(a), (3, 3)),
        (lambda a, b: a.inverse(), (3, 3)),
        (lambda a, b: torch.linalg.cholesky(a), (3, 3)),
        (lambda a, b: torch.linalg.solve(a, b), (3, 2)),
        (lambda a, b: torch.linalg.lu_factor(a)[0], (3, 3)),
        (lambda a, b: torch.linalg.matrix_power(a, -2), (3, 3)),
    ],
)
def test_linalg_on_meta_never_finds_a_singular_matrix(fn, shape):
    out = fn(torch.empty(3, 3, device="meta"), torch.empty(3, 2, device="meta"))
    assert out.is_meta and tuple(out.shape) == shape


@pytest.mark.parametrize(
    ("fn", "exc", "msg"),
    [
        (lambda x: x[x > 0], NotImplementedError, NONZERO),
        (lambda x: x[torch.ones(3, dtype=torch.bool, device="meta")], NotImplementedError, NONZERO),
        (lambda x: x[[True, False, True]], NotImplementedError, NONZERO),
        (
            lambda x: x[torch.tensor(True, device="meta")],
            RuntimeError,
            "Tensor.item() cannot be called on meta tensors",
        ),
        (lambda x: torch.masked_select(x, x > 0), NotImplementedError, _no_kernel("masked_select")),
        (lambda x: torch.unique(x), NotImplementedError, _no_kernel("_unique2")),
        (lambda x: x.unique(dim=0), NotImplementedError, _no_kernel("unique_dim")),
        (
            lambda x: torch.unique_consecutive(x),
            NotImplementedError,
            _no_kernel("unique_consecutive"),
        ),
        (lambda x: torch.bincount(x[0].long()), NotImplementedError, _no_kernel("bincount")),
        (lambda x: torch.equal(x, x), NotImplementedError, _no_kernel("equal")),
        (
            lambda x: F.ctc_loss(
                x[None].expand(6, 3, 4), x[:, :2].long(), torch.full((3,), 6), torch.full((3,), 2)
            ),
            NotImplementedError,
            _no_kernel("_ctc_loss.Tensor"),
        ),
        (lambda x: torch.equal(x, torch.ones(3, 4)), NotImplementedError, _no_kernel("equal")),
        (
            lambda x: x.repeat_interleave(torch.ones(3, dtype=torch.int64, device="meta"), dim=0),
            RuntimeError,
            "cannot repeat_interleave a meta tensor without output_size",
        ),
    ],
)
def test_value_dependent_sizes_refuse_as_torch(fn, exc, msg):
    with pytest.raises(exc) as info:
        fn(_meta(3, 4))
    assert str(info.value) == msg


def test_static_sizes_and_cpu_masks_run():
    x = _meta(3, 4)
    assert x[torch.tensor([True, False, True])].shape == (2, 4)
    assert x[torch.ones(3, 4, dtype=torch.bool)].shape == (12,)
    assert torch.nonzero_static(x, size=2).shape == (2, 2)
    assert torch.nonzero_static(_meta(()), size=3).shape == (3, 0)
    assert x.repeat_interleave(
        torch.ones(3, dtype=torch.int64, device="meta"), dim=0, output_size=5
    ).shape == (5, 4)
    y = x.clone()
    y[x > 0] = 2.0  # writes through a mask need no count
    y[torch.ones(3, dtype=torch.bool, device="meta")] = torch.ones(4, device="meta")
    assert y.is_meta


def test_convolutions_on_meta_are_row_major_as_torchs():
    x = torch.empty(2, 3, 8, 8, device="meta").to(memory_format=torch.channels_last)
    assert F.conv2d(x, torch.empty(8, 3, 7, 7, device="meta"), stride=2, padding=3).stride() == (
        128,
        16,
        4,
        1,
    )
    assert F.conv_transpose2d(x, torch.empty(3, 4, 2, 2, device="meta")).stride() == (324, 81, 9, 1)
    assert F.group_norm(x, 3).stride() == (192, 64, 8, 1)
    assert F.max_pool2d(x, 2).stride() == (48, 1, 12, 3)  # pools keep the layout
    cl = torch.empty(2, 4, 3, 3, device="meta").to(memory_format=torch.channels_last)
    assert F.pixel_shuffle(cl, 2).stride() == (36, 36, 6, 1)
    cpu = torch.empty(2, 3, 8, 8).to(memory_format=torch.channels_last)
    assert F.conv2d(cpu, torch.empty(8, 3, 7, 7), stride=2, padding=3).stride() == (128, 1, 32, 8)
    with pytest.raises(RuntimeError, match="^Invalid channel dimensions$"):
        F.conv2d(torch.empty(1, 4, 5, 5, device="meta"), torch.empty(4, 3, 3, 3, device="meta"))


def test_moving_to_or_from_meta_makes_new_parameters():
    def tied(dev="cpu"):
        lm = nn.Sequential(
            nn.Embedding(10, 4, device=dev), nn.Linear(4, 10, bias=False, device=dev)
        )
        lm[1].weight = lm[0].weight
        return lm

    a = tied()
    old = a[0].weight
    a.to("meta")
    assert a[1].weight is not a[0].weight and a[0].weight is not old and old.device.type == "cpu"
    b = tied("meta")
    b.to_empty(device="cpu")
    assert b[1].weight is not b[0].weight
    for fn in (lambda m: m.to_empty(device="meta"), lambda m: m.double()):
        c = tied("meta")
        fn(c)
        assert c[1].weight is c[0].weight
    d = tied()
    d.double()
    assert d[1].weight is d[0].weight


def test_inplace_error_names_the_meta_type():
    w = torch.ones(3, device="meta", requires_grad=True)
    a = w.clone()
    b = a.sin()
    a.mul_(2)
    with pytest.raises(RuntimeError, match=r"inplace operation: \[MetaFloatType \[3\]\], which is"):
        b.sum().backward()


def test_gradient_on_another_device_is_torchs_error():
    w = torch.ones(3, device="meta", requires_grad=True)
    out = w * 2
    msg = "invalid gradient at index 1 - expected device meta but got cpu"
    with pytest.raises(RuntimeError, match=msg):
        torch.autograd.grad([out, out], w, [torch.ones(3, device="meta"), torch.ones(3)])


def test_transformer_reads_a_meta_mask_as_torch():
    xf = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True, device="meta")
    tgt, mem = torch.empty(2, 5, 8, device="meta"), torch.empty(2, 3, 8, device="meta")
    mask = nn.Transformer.generate_square_subsequent_mask(5, device="meta")
    dec = nn.TransformerDecoder(xf, 1)
    with pytest.raises(RuntimeError, match="Tensor.item\\(\\) cannot be called on meta tensors"):
        dec(tgt, mem, tgt_mask=mask)
    assert dec(tgt, mem, tgt_mask=mask, tgt_is_causal=True).shape == (2, 5, 8)


def _counts(fc):
    return sorted((str(k), v) for k, v in fc.get_flop_counts().get("Global", {}).items())


def test_sdpa_math_path_flops():
    # torch 2.13's counts: the math path's bmm's on meta (and on the CPU where the flash
    # kernel does not take the call, as with dropout), nothing for the CPU flash kernel
    for dev in ("cpu", "meta"):
        q = torch.randn(2, 3, 5, 8, device=dev, requires_grad=True)
        k = torch.randn(2, 3, 7, 8, device=dev, requires_grad=True)
        with FlopCounterMode(display=False) as fc:
            out = F.scaled_dot_product_attention(q, k, k, dropout_p=0.1)
            out.sum().backward()
        assert _counts(fc) == [("aten.bmm", 20160)], dev
        with FlopCounterMode(display=False) as fc:
            F.scaled_dot_product_attention(q[0, 0].detach(), q[0, 0].detach(), q[0, 0].detach())
        assert _counts(fc) == [("aten.mm", 800)], dev
        with FlopCounterMode(display=False) as fc:
            out = F.scaled_dot_product_attention(q, k, k)
            out.sum().backward()
        want = [] if dev == "cpu" else [("aten.bmm", 20160)]
        assert _counts(fc) == want, dev
        name = type(out.grad_fn).__name__
        assert name == (
            "ScaledDotProductFlashAttentionForCpuBackward0"
            if dev == "cpu"
            else "UnsafeViewBackward0"
        )
    q = torch.empty(2, 3, 5, 8, device="meta")
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal"):
        F.scaled_dot_product_attention(
            q, q, q, attn_mask=torch.ones(5, 5, dtype=torch.bool, device="meta"), is_causal=True
        )
