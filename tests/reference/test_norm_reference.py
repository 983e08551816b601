"""Normalisation, activation, dropout, embedding, distance and loss modules against PyTorch:
reprs, state-dict keys, and (with the same weights) outputs, gradients and running statistics
over several training steps."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402

# (class name, args, kwargs): built in both libraries
MODULES = [
    ("ReLU", (), {}),
    ("ReLU", (True,), {}),
    ("ReLU6", (), {}),
    ("LeakyReLU", (0.2, True), {}),
    ("PReLU", (3, 0.1), {}),
    ("ELU", (0.5,), {}),
    ("SELU", (True,), {}),
    ("CELU", (2.0,), {}),
    ("GELU", ("tanh",), {}),
    ("SiLU", (), {}),
    ("Mish", (True,), {}),
    ("Sigmoid", (), {}),
    ("Tanh", (), {}),
    ("Hardtanh", (-2.0, 2.0), {}),
    ("Hardsigmoid", (True,), {}),
    ("Hardswish", (), {}),
    ("Softplus", (2, 10), {}),
    ("Softsign", (), {}),
    ("Tanhshrink", (), {}),
    ("Threshold", (0.1, 20.0, True), {}),
    ("LogSigmoid", (), {}),
    ("Softmax", (1,), {}),
    ("Softmax", (), {}),
    ("LogSoftmax", (-1,), {}),
    ("Softmin", (0,), {}),
    ("GLU", (), {}),
    ("Hardshrink", (0.3,), {}),
    ("Softshrink", (), {}),
    ("RReLU", (0.1, 0.3), {}),
    ("Softmax2d", (), {}),
    ("BatchNorm1d", (3,), {}),
    ("BatchNorm2d", (4,), {"eps": 1e-3, "momentum": None}),
    ("BatchNorm3d", (2,), {"affine": False, "track_running_stats": False}),
    ("BatchNorm1d", (3,), {"bias": False}),
    ("InstanceNorm1d", (3,), {}),
    ("InstanceNorm2d", (3,), {"affine": True}),
    ("InstanceNorm3d", (3,), {"track_running_stats": True}),
    ("LayerNorm", (4,), {}),
    ("LayerNorm", ((4, 5),), {"elementwise_affine": False}),
    ("LayerNorm", ([3],), {"bias": False, "eps": 1e-6}),
    ("GroupNorm", (2, 4), {}),
    ("GroupNorm", (2, 4), {"affine": False}),
    ("RMSNorm", (4,), {}),
    ("RMSNorm", ([4, 5],), {"eps": 1e-3, "elementwise_affine": False}),
    ("LocalResponseNorm", (3,), {}),
    ("Dropout", (), {}),
    ("Dropout", (0.2, True), {}),
    ("Dropout1d", (), {}),
    ("Dropout2d", (0.3,), {}),
    ("Dropout3d", (), {}),
    ("AlphaDropout", (0.1,), {}),
    ("FeatureAlphaDropout", (), {}),
    ("Embedding", (5, 3), {}),
    ("Embedding", (5, 3), {"padding_idx": -1, "max_norm": 1.0}),
    ("Embedding", (5, 3), {"norm_type": 1.0, "scale_grad_by_freq": True, "sparse": True}),
    ("EmbeddingBag", (5, 3), {}),
    ("EmbeddingBag", (5, 3), {"mode": "max", "padding_idx": 1}),
    ("CosineSimilarity", (0,), {}),
    ("PairwiseDistance", (1.0,), {}),
    ("MSELoss", (), {}),
    ("L1Loss", (), {"reduction": "sum"}),
    ("CrossEntropyLoss", (), {}),
    ("NLLLoss", (), {}),
    ("BCELoss", (), {}),
    ("BCEWithLogitsLoss", (), {}),
    ("KLDivLoss", (), {}),
    ("SmoothL1Loss", (), {}),
    ("HuberLoss", (), {}),
    ("PoissonNLLLoss", (), {}),
    ("GaussianNLLLoss", (), {}),
    ("MarginRankingLoss", (), {}),
    ("HingeEmbeddingLoss", (), {}),
    ("CosineEmbeddingLoss", (), {}),
    ("TripletMarginLoss", (), {}),
    ("TripletMarginWithDistanceLoss", (), {}),
    ("MultiLabelSoftMarginLoss", (), {}),
    ("MultiMarginLoss", (), {}),
    ("MultiLabelMarginLoss", (), {}),
    ("SoftMarginLoss", (), {}),
]


@pytest.mark.parametrize(
    "name, args, kwargs", MODULES, ids=[f"{n}{i}" for i, (n, _, _) in enumerate(MODULES)]
)
def test_repr_and_state_dict_keys_match(name, args, kwargs):
    t = getattr(torch.nn, name)(*args, **kwargs)
    m = getattr(minitorch.nn, name)(*args, **kwargs)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    for k, v in t.state_dict().items():
        assert m.state_dict()[k].shape == tuple(v.shape), k
        assert str(m.state_dict()[k].dtype) == str(v.dtype), k


def _same_weights(t, m):
    sd = {k: minitorch.tensor(v.detach().numpy().copy()) for k, v in t.state_dict().items()}
    m.load_state_dict(sd)


def _run_steps(name, args, kwargs, shape, steps=4, eval_after=True):
    rng = np.random.default_rng(1)
    torch.manual_seed(0)
    t = getattr(torch.nn, name)(*args, **kwargs).double()
    m = getattr(minitorch.nn, name)(*args, **kwargs).double()
    with torch.no_grad():  # non-trivial affine parameters
        for p in t.parameters():
            p.copy_(torch.from_numpy(rng.normal(size=tuple(p.shape))))
    _same_weights(t, m)
    for step in range(steps):
        x = rng.normal(size=shape) * (step + 1) + step
        g = rng.normal(size=shape)
        xt = torch.tensor(x, requires_grad=True)
        xm = minitorch.tensor(x, requires_grad=True)
        ot, om = t(xt), m(xm)
        np.testing.assert_allclose(
            om.detach().numpy(),
            ot.detach().numpy(),
            rtol=1e-9,
            atol=1e-12,
            err_msg=f"{name} output at step {step}",
        )
        ot.backward(torch.tensor(g))
        om.backward(minitorch.tensor(g))
        np.testing.assert_allclose(
            xm.grad.numpy(),
            xt.grad.numpy(),
            rtol=1e-9,
            atol=1e-11,
            err_msg=f"{name} input grad at step {step}",
        )
        for (n, pt), pm in zip(t.named_parameters(), m.parameters(), strict=True):
            np.testing.assert_allclose(
                pm.grad.numpy(),
                pt.grad.numpy(),
                rtol=1e-9,
                atol=1e-11,
                err_msg=f"{name}.{n} grad at step {step}",
            )
        for k, v in t.state_dict().items():
            np.testing.assert_allclose(
                m.state_dict()[k].numpy(),
                v.numpy(),
                rtol=1e-10,
                err_msg=f"{name} {k} at step {step}",
            )
    if eval_after:
        t.eval()
        m.eval()
        x = rng.normal(size=shape)
        np.testing.assert_allclose(
            m(minitorch.tensor(x)).detach().numpy(),
            t(torch.tensor(x)).detach().numpy(),
            rtol=1e-9,
            atol=1e-12,
            err_msg=f"{name} in eval mode",
        )


@pytest.mark.parametrize(
    "name, args, kwargs, shape",
    [
        ("BatchNorm1d", (3,), {}, (5, 3)),
        ("BatchNorm1d", (3,), {"momentum": None}, (4, 3, 2)),
        ("BatchNorm2d", (2,), {"momentum": 0.3, "eps": 1e-3}, (3, 2, 2, 3)),
        ("BatchNorm3d", (2,), {"affine": False}, (2, 2, 2, 2, 2)),
        ("BatchNorm1d", (3,), {"track_running_stats": False}, (4, 3)),
        ("InstanceNorm1d", (3,), {"affine": True, "track_running_stats": True}, (2, 3, 5)),
        ("InstanceNorm2d", (2,), {"momentum": 0.4, "track_running_stats": True}, (3, 2, 3, 2)),
        ("InstanceNorm1d", (3,), {"affine": True}, (3, 4)),
        ("LayerNorm", ((3, 4),), {}, (2, 3, 4)),
        ("LayerNorm", (4,), {"bias": False}, (2, 3, 4)),
        ("GroupNorm", (2, 4), {}, (3, 4, 5)),
        ("RMSNorm", (4,), {}, (2, 3, 4)),
        ("RMSNorm", ((3, 4),), {"eps": 1e-2}, (2, 3, 4)),
        ("LocalResponseNorm", (3,), {"alpha": 0.2}, (2, 5, 4)),
        ("PReLU", (3,), {}, (2, 3, 4)),
    ],
    ids=lambda v: str(v) if isinstance(v, str) else None,
)
def test_training_steps_match(name, args, kwargs, shape):
    _run_steps(name, args, kwargs, shape)


def test_embedding_and_bag_match():
    idx = np.array([[0, 4, 1], [1, 1, 3]])
    for name, kwargs in [
        ("Embedding", {"padding_idx": 1}),
        ("Embedding", {"scale_grad_by_freq": True}),
        ("EmbeddingBag", {"mode": "sum", "padding_idx": 4}),
        ("EmbeddingBag", {"mode": "max"}),
    ]:
        torch.manual_seed(0)
        t = getattr(torch.nn, name)(5, 3, **kwargs).double()
        m = getattr(minitorch.nn, name)(5, 3, **kwargs).double()
        _same_weights(t, m)
        ot, om = t(torch.tensor(idx)), m(minitorch.tensor(idx))
        np.testing.assert_allclose(om.detach().numpy(), ot.detach().numpy(), err_msg=name)
        g = np.random.default_rng(2).normal(size=tuple(ot.shape))
        ot.backward(torch.tensor(g))
        om.backward(minitorch.tensor(g))
        np.testing.assert_allclose(
            m.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-12, err_msg=f"{name} {kwargs}"
        )


def test_padding_row_is_zero_in_both():
    torch.manual_seed(0)
    assert torch.nn.Embedding(4, 2, padding_idx=2).weight[2].abs().sum() == 0
    assert float(minitorch.nn.Embedding(4, 2, padding_idx=2).weight[2].abs().sum()) == 0
