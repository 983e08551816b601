"""nn.Module, containers, Linear and nn.init against PyTorch: reprs, state-dict keys, messages,
outputs and gradients with copied weights, hook arguments."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch  # noqa: E402


def _make_model(lib):
    """The same architecture in either library, with a user-defined block and every container."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.fc = nn.Linear(n, n)
            self.gain = nn.Parameter(lib.ones(n))
            self.register_buffer("steps", lib.zeros((), dtype=lib.int64))
            self.register_buffer("cache", lib.zeros(n), persistent=False)

        def forward(self, x):
            return self.fc(x) * self.gain + x

        def extra_repr(self):
            return f"n={self.gain.shape[0]}"

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(
                OrderedDict(
                    [("flat", nn.Flatten()), ("proj", nn.Linear(12, 8)), ("id", nn.Identity())]
                )
            )
            self.blocks = nn.ModuleList([Block(8) for _ in range(3)] + [nn.Identity()])
            self.heads = nn.ModuleDict({"cls": nn.Linear(8, 3), "reg": nn.Linear(8, 1, bias=False)})
            self.scales = nn.ParameterList([nn.Parameter(lib.ones(3)), lib.zeros(2, 2)])
            self.extra = nn.ParameterDict({"b": lib.zeros(1), "a": lib.ones(2)})
            self.unflat = nn.Unflatten(1, (1, 3))

        def forward(self, x):
            h = self.stem(x)
            for block in self.blocks:
                h = block(h)
            return self.unflat(self.heads["cls"](h) * self.scales[0]), self.heads["reg"](h)

    return Model()


def _copy_weights(src_torch, dst_mini):
    sd = {k: minitorch.tensor(v.detach().numpy()) for k, v in src_torch.state_dict().items()}
    dst_mini.load_state_dict(sd)


@pytest.fixture
def models():
    torch.manual_seed(0)
    return _make_model(torch), _make_model(minitorch)


def test_repr_matches(models):
    t, m = models
    assert repr(m) == repr(t)
    assert repr(m.blocks) == repr(t.blocks)
    assert repr(m.scales) == repr(t.scales) and repr(m.extra) == repr(t.extra)


def test_names_and_state_dict_keys_match(models):
    t, m = models
    assert list(m.state_dict()) == list(t.state_dict())
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in m.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in m.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in m.named_children()] == [n for n, _ in t.named_children()]
    assert dict(m.state_dict()._metadata) == dict(t.state_dict()._metadata)
    assert [tuple(v.shape) for v in m.state_dict().values()] == [
        tuple(v.shape) for v in t.state_dict().values()
    ]


def test_state_dict_loads_both_ways(models):
    t, m = models
    _copy_weights(t, m)
    for (k, a), (_, b) in zip(t.state_dict().items(), m.state_dict().items(), strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=k)
    back = {k: torch.from_numpy(np.array(v.numpy())) for k, v in m.state_dict().items()}
    assert repr(t.load_state_dict(back)) == "<All keys matched successfully>"


def test_forward_and_gradients_match_with_copied_weights(models):
    t, m = models
    _copy_weights(t, m)
    x = np.random.default_rng(0).standard_normal((5, 3, 4)).astype(np.float32)
    tx, mx = torch.tensor(x, requires_grad=True), minitorch.tensor(x, requires_grad=True)
    (t_cls, t_reg), (m_cls, m_reg) = t(tx), m(mx)
    np.testing.assert_allclose(m_cls.detach().numpy(), t_cls.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(m_reg.detach().numpy(), t_reg.detach().numpy(), rtol=1e-5, atol=1e-6)
    g = np.random.default_rng(1).standard_normal(tuple(t_cls.shape)).astype(np.float32)
    (t_cls * torch.tensor(g)).sum().add(t_reg.sum()).backward()
    (m_cls * minitorch.tensor(g)).sum().add(m_reg.sum()).backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    t_params, m_params = dict(t.named_parameters()), dict(m.named_parameters())
    for name, tp in t_params.items():
        mp = m_params[name]
        if tp.grad is None:
            assert mp.grad is None, name
            continue
        np.testing.assert_allclose(
            mp.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=name
        )


@pytest.mark.parametrize("shape", [(4,), (2, 4), (2, 3, 4)])
def test_linear_matches_torch(shape):
    tl = torch.nn.Linear(4, 3)
    ml = minitorch.nn.Linear(4, 3)
    ml.load_state_dict(
        {k: minitorch.tensor(v.detach().numpy()) for k, v in tl.state_dict().items()}
    )
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    np.testing.assert_allclose(
        ml(minitorch.tensor(x)).detach().numpy(),
        tl(torch.tensor(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_load_state_dict_messages_match(models):
    t, m = models
    t_sd, m_sd = t.state_dict(), m.state_dict()
    for sd in (t_sd, m_sd):
        del sd["blocks.1.gain"]
    t_sd["bogus"], m_sd["bogus"] = torch.zeros(1), minitorch.zeros(1)
    t_sd["stem.proj.weight"] = torch.zeros(9, 12)
    m_sd["stem.proj.weight"] = minitorch.zeros(9, 12)
    with pytest.raises(RuntimeError) as t_err:
        t.load_state_dict(t_sd)
    with pytest.raises(RuntimeError) as m_err:
        m.load_state_dict(m_sd)
    assert str(m_err.value) == str(t_err.value)
    del t_sd["stem.proj.weight"], m_sd["stem.proj.weight"]
    assert repr(m.load_state_dict(m_sd, strict=False)) == repr(
        t.load_state_dict(t_sd, strict=False)
    )


def _error(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib: setattr(lib.nn.Linear(2, 2), "weight", 3),
        lambda lib: setattr(lib.nn.Linear(2, 2), "weight", lib.zeros(2, 2)),
        lambda lib: lib.nn.Linear(2, 2).register_parameter("x", lib.zeros(2)),
        lambda lib: lib.nn.Linear(2, 2).register_buffer("x", [1]),
        lambda lib: lib.nn.Linear(2, 2).register_buffer("a.b", None),
        lambda lib: lib.nn.Linear(2, 2).add_module("", None),
        lambda lib: lib.nn.Linear(2, 2).add_module("weight", None),
        lambda lib: lib.nn.Linear(2, 2).nope,
        lambda lib: lib.nn.Module()(1),
        lambda lib: lib.nn.Module(1),
        lambda lib: lib.nn.Linear(2, 2).to(lib.int32),
        lambda lib: lib.nn.Linear(2, 2).to(lib.float64, lib.float32),
        lambda lib: lib.nn.Linear(2, 2).to("cpu", 3),
        lambda lib: lib.nn.Sequential(lib.nn.Identity())[3],
        lambda lib: lib.nn.Sequential() + 1,
        lambda lib: lib.nn.ModuleList([]).extend(1),
        lambda lib: lib.nn.Sequential(lib.nn.Linear(1, 1)).get_submodule("0.weight"),
        lambda lib: lib.nn.Sequential(lib.nn.Linear(1, 1)).get_parameter("0.x"),
        lambda lib: lib.nn.ParameterDict()[1],
        lambda lib: lib.nn.ParameterList()(),
        lambda lib: lib.nn.Unflatten(1, (2, "3")),
        lambda lib: lib.nn.Linear(2, 2).load_state_dict([]),
        lambda lib: lib.nn.Parameter(lib.tensor([1, 2])),
        lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.zeros(3)),
        lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"),
        lambda lib: lib.nn.init.kaiming_normal_(lib.zeros(2, 2), mode="x"),
        lambda lib: lib.nn.init.dirac_(lib.zeros(2, 2)),
        lambda lib: lib.nn.init.normal_(lib.zeros(2), 0.0, -1.0),
    ],
)
def test_error_types_and_messages_match(fn):
    expected = _error(fn, torch)
    assert expected is not None
    assert _error(fn, minitorch) == expected


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.nn.Parameter(lib.tensor([1.5, -2.0, 3.25])),
        lambda lib: lib.nn.Parameter(lib.arange(12.0).reshape(3, 4)),
        lambda lib: lib.nn.Parameter(lib.tensor([1, 2]), requires_grad=False),
        lambda lib: lib.nn.Parameter(lib.zeros(2, dtype=lib.float64)),
        lambda lib: lib.nn.Parameter(),
    ],
)
def test_parameter_repr_matches(make):
    assert repr(make(minitorch)) == repr(make(torch))


def _log_hooks(lib):
    nn = lib.nn

    class Two(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.tensor([2.0, -3.0]))

        def forward(self, x, y):
            return x * self.w + y, x * y

    m = Two()
    log = []

    def lists(gs):
        return [None if g is None else g.tolist() for g in gs]

    m.register_forward_pre_hook(lambda mod, args: log.append(("fpre", len(args))))
    m.register_forward_hook(
        lambda mod, args, kw, out: log.append(("fwd", sorted(kw))), with_kwargs=True
    )
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("bpre", lists(go))))

    def full(mod, gi, go):
        log.append(("full", lists(gi), lists(go)))
        return (gi[0] * 3, gi[1])

    m.register_full_backward_hook(full)
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = lib.tensor([0.5, 4.0], requires_grad=True)
    a, b = m(x, y)
    (a * lib.tensor([1.0, 10.0])).sum().backward(retain_graph=True)
    (b.sum() + a.sum()).backward()
    return log, x.grad.tolist(), y.grad.tolist(), m.w.grad.tolist()


def test_hook_arguments_and_effects_match():
    assert _log_hooks(minitorch) == _log_hooks(torch)


def test_to_and_casts_match(models):
    t, m = models
    t.double()
    m.double()
    assert [str(v.dtype) for v in m.state_dict().values()] == [
        str(v.dtype) for v in t.state_dict().values()
    ]
    t.half()
    m.half()
    assert [str(p.dtype) for p in m.parameters()] == [str(p.dtype) for p in t.parameters()]


def test_default_init_statistics_match_torch():
    # Not the same numbers (different generators), the same law.
    torch.manual_seed(0)
    t = torch.nn.Linear(500, 400)
    m = minitorch.nn.Linear(500, 400)
    for name in ("weight", "bias"):
        a = getattr(t, name).detach().numpy()
        b = getattr(m, name).detach().numpy()
        np.testing.assert_allclose(b.std(), a.std(), rtol=0.05, err_msg=name)
        np.testing.assert_allclose(np.abs(b).max(), np.abs(a).max(), rtol=0.01, err_msg=name)


@pytest.mark.parametrize(
    "fn, args, bounded",
    [
        ("uniform_", (-2.0, 1.0), True),
        ("normal_", (0.5, 2.0), False),
        ("trunc_normal_", (0.0, 1.0, -1.5, 2.5), True),
        ("xavier_uniform_", (1.5,), True),
        ("xavier_normal_", (), False),
        ("kaiming_uniform_", (0.1, "fan_out", "leaky_relu"), True),
        ("kaiming_normal_", (0, "fan_in", "relu"), False),
        ("orthogonal_", (1.0,), False),
    ],
)
def test_init_statistics_match_torch(fn, args, bounded):
    torch.manual_seed(0)
    a = getattr(torch.nn.init, fn)(torch.empty(300, 400), *args).numpy()
    b = getattr(minitorch.nn.init, fn)(minitorch.empty(300, 400), *args).numpy()
    np.testing.assert_allclose(b.mean(), a.mean(), atol=0.02 * a.std())
    np.testing.assert_allclose(b.std(), a.std(), rtol=0.02)
    if bounded:  # the support's ends are reached by both
        np.testing.assert_allclose([b.min(), b.max()], [a.min(), a.max()], atol=0.01 * a.std())


@pytest.mark.parametrize(
    "gain_args",
    [("linear",), ("tanh",), ("relu",), ("leaky_relu", 0.3), ("selu",), ("conv_transpose2d",)],
)
def test_calculate_gain_matches(gain_args):
    assert minitorch.nn.init.calculate_gain(*gain_args) == torch.nn.init.calculate_gain(*gain_args)
