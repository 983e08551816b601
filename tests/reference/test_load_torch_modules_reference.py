"""minitorch.load(weights_only=False) of whole modules, optimizers and schedulers pickled by
torch.save(model): torch's class names map to minitorch's classes and the loaded objects work
(forward, parameters, state_dict, repr, a training step). Fixtures are written by torch here."""

from __future__ import annotations

import io
import pickle
import sys
import zipfile

import numpy as np
import pytest

import minitorch
from minitorch._serialization_unpickle import find_torch_class


def _torch():
    return pytest.importorskip("torch")


def _save_with_torch(torch, obj, tmp_path, name="model.pt"):
    path = tmp_path / name
    torch.save(obj, path)
    return path


def _np(t):
    return t.detach().cpu().numpy()


def _assert_same_state(mt_module, torch_module):
    mt_sd, t_sd = mt_module.state_dict(), torch_module.state_dict()
    assert list(mt_sd) == list(t_sd)
    for key, value in t_sd.items():
        assert isinstance(mt_sd[key], minitorch.Tensor), key
        np.testing.assert_array_equal(_np(mt_sd[key]), _np(value), err_msg=key)


# --- without torch: the name mapping itself --------------------------------------------------


@pytest.mark.parametrize(
    "module, name, expected",
    [
        ("torch.nn.modules.container", "Sequential", "Sequential"),
        ("torch.nn.modules.conv", "Conv2d", "Conv2d"),
        ("torch.nn.modules.rnn", "LSTM", "LSTM"),
        ("torch.nn.modules.conv", "LazyConv2d", "LazyConv2d"),  # filed elsewhere in minitorch
        ("torch.nn.modules.linear", "NonDynamicallyQuantizableLinear", None),
        ("torch.optim.sgd", "SGD", "SGD"),
        ("torch.optim.lr_scheduler", "StepLR", "StepLR"),
        ("torch.nn.functional", "relu", "relu"),
    ],
)
def test_torch_names_map_to_minitorch(module, name, expected):
    obj = find_torch_class(module, name, weights_only=False)
    assert obj.__name__ == name and obj.__module__.startswith("minitorch.")
    if expected == "relu":
        assert obj is minitorch.nn.functional.relu
    elif module.startswith("torch.optim.lr"):
        assert obj is getattr(minitorch.optim.lr_scheduler, name)
    elif module.startswith("torch.optim"):
        assert obj is getattr(minitorch.optim, name)
    elif expected is not None:
        assert obj is getattr(minitorch.nn, name)


def test_unknown_torch_name_still_raises():
    with pytest.raises(pickle.UnpicklingError, match="no equivalent of torch.nn.modules.x.Nope"):
        find_torch_class("torch.nn.modules.x", "Nope", weights_only=False)
    # a name that minitorch's module merely imports is not torch's object of that name
    with pytest.raises(pickle.UnpicklingError, match="no equivalent"):
        find_torch_class("torch.nn.modules.module", "OrderedDict", weights_only=False)


def _as_torch_checkpoint(obj) -> io.BytesIO:
    """minitorch.save(obj) with every minitorch class renamed to torch's, as torch.save writes
    a whole module (protocol 2 names globals as text lines, so the rename is a byte edit)."""
    src, dst = io.BytesIO(), io.BytesIO()
    minitorch.save(obj, src)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith("data.pkl"):
                assert b"minitorch.nn.modules.linear\nLinear\n" in data
                data = data.replace(b"minitorch.nn.", b"torch.nn.")
            zout.writestr(info, data)
    dst.seek(0)
    return dst


def test_load_module_named_by_torch_without_torch():
    minitorch.manual_seed(0)
    model = minitorch.nn.Sequential(minitorch.nn.Linear(3, 2), minitorch.nn.ReLU())
    loaded = minitorch.load(_as_torch_checkpoint(model), weights_only=False)
    assert type(loaded) is minitorch.nn.Sequential and type(loaded[0]) is minitorch.nn.Linear
    x = minitorch.tensor([[1.0, -2.0, 0.5]])
    np.testing.assert_array_equal(_np(loaded(x)), _np(model(x)))
    # like torch, weights_only=True does not build arbitrary classes
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        minitorch.load(_as_torch_checkpoint(model), weights_only=True)


# --- against torch: files written by torch.save(model) ---------------------------------------


def test_sequential_of_layers(tmp_path):
    torch = _torch()
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(
        nn.Conv2d(1, 2, 3),
        nn.BatchNorm2d(2),
        nn.ReLU(),
        nn.Dropout(0.25),
        nn.Flatten(),
        nn.Linear(8, 3),
    )
    model.train()
    model(torch.randn(4, 1, 4, 4))  # moves the BatchNorm running stats off their defaults
    model.eval()
    loaded = minitorch.load(_save_with_torch(torch, model, tmp_path), weights_only=False)

    assert type(loaded) is minitorch.nn.Sequential
    assert [type(m).__name__ for m in loaded] == [type(m).__name__ for m in model]
    assert all(type(m).__module__.startswith("minitorch.") for m in loaded.modules())
    assert repr(loaded) == repr(model)
    assert loaded.training is False and loaded[1].training is False
    assert len(list(loaded.parameters())) == len(list(model.parameters())) == 6
    assert all(isinstance(p, minitorch.nn.Parameter) for p in loaded.parameters())
    _assert_same_state(loaded, model)

    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(_np(loaded(minitorch.from_numpy(x))), expected, rtol=1e-5, atol=1e-6)

    # a training step on both gives the same parameters
    loaded.train()
    model.train()
    t_opt = torch.optim.SGD(model.parameters(), lr=0.1)
    m_opt = minitorch.optim.SGD(loaded.parameters(), lr=0.1)
    torch.manual_seed(1)
    model[3].p = 0.0  # no random mask, so both libraries compute the same step
    loaded[3].p = 0.0
    model(torch.from_numpy(x)).square().sum().backward()
    loaded(minitorch.from_numpy(x)).square().sum().backward()
    t_opt.step()
    m_opt.step()
    _assert_same_state_close(loaded, model)


def _assert_same_state_close(mt_module, torch_module):
    for (key, mt_value), t_value in zip(
        mt_module.state_dict().items(), torch_module.state_dict().values(), strict=True
    ):
        np.testing.assert_allclose(_np(mt_value), _np(t_value), rtol=1e-5, atol=1e-6, err_msg=key)


def test_embedding_and_lstm(tmp_path):
    torch = _torch()
    torch.manual_seed(0)
    model = torch.nn.ModuleDict(
        {
            "emb": torch.nn.Embedding(6, 4),
            "lstm": torch.nn.LSTM(4, 3, num_layers=2, bidirectional=True),
        }
    )
    loaded = minitorch.load(_save_with_torch(torch, model, tmp_path), weights_only=False)
    assert repr(loaded) == repr(model)
    _assert_same_state(loaded, model)
    # the LSTM's weights are also in its list _flat_weights (see NOTE [ RNN flat weights ])
    assert loaded["lstm"]._flat_weights[0] is loaded["lstm"].weight_ih_l0

    idx = [[1, 2], [5, 0], [3, 3]]
    with torch.no_grad():
        out, (h, c) = model["lstm"](model["emb"](torch.tensor(idx)))
    m_out, (m_h, m_c) = loaded["lstm"](loaded["emb"](minitorch.tensor(idx)))
    for got, want in ((m_out, out), (m_h, h), (m_c, c)):
        np.testing.assert_allclose(_np(got), want.numpy(), rtol=1e-5, atol=1e-6)


def test_transformer_encoder_layer(tmp_path):
    # its attention's out_proj is torch.nn.modules.linear.NonDynamicallyQuantizableLinear and its
    # activation the function torch.nn.functional.relu, both pickled by name
    torch = _torch()
    torch.manual_seed(0)
    model = torch.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0).eval()
    loaded = minitorch.load(_save_with_torch(torch, model, tmp_path), weights_only=False)
    assert repr(loaded) == repr(model)
    assert loaded.activation is minitorch.nn.functional.relu
    x = np.random.default_rng(1).standard_normal((3, 2, 4)).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(_np(loaded(minitorch.from_numpy(x))), expected, rtol=1e-5, atol=1e-5)


def _net_class(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(3, 2)
            self.register_buffer("shift", lib.ones(2))

        def forward(self, x):
            return self.fc(x).relu() + self.shift

    Net.__qualname__ = "Net"
    Net.__module__ = "__main__"
    return Net


def test_user_module_defined_in_main(tmp_path, monkeypatch):
    # torch pickles the user's class by reference (`__main__.Net`); the loading program defines
    # its own Net against minitorch.nn.Module, and that is the class the module gets.
    torch = _torch()
    main = sys.modules["__main__"]
    monkeypatch.setattr(main, "Net", _net_class(torch), raising=False)
    torch.manual_seed(0)
    model = main.Net()
    path = _save_with_torch(torch, model, tmp_path)

    mt_net = _net_class(minitorch)
    monkeypatch.setattr(main, "Net", mt_net)
    loaded = minitorch.load(path, weights_only=False)
    assert type(loaded) is mt_net and isinstance(loaded, minitorch.nn.Module)
    assert repr(loaded) == repr(model)
    assert list(loaded.state_dict()) == ["shift", "fc.weight", "fc.bias"]
    _assert_same_state(loaded, model)
    x = [[1.0, -2.0, 0.5], [0.3, 0.2, -0.1]]
    with torch.no_grad():
        expected = model(torch.tensor(x)).numpy()
    np.testing.assert_allclose(_np(loaded(minitorch.tensor(x))), expected, rtol=1e-6)


def test_optimizer_and_scheduler_with_model(tmp_path):
    torch = _torch()
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    sched.step()
    path = _save_with_torch(torch, {"model": model, "opt": opt, "sched": sched}, tmp_path)

    ckpt = minitorch.load(path, weights_only=False)
    m_model, m_opt, m_sched = ckpt["model"], ckpt["opt"], ckpt["sched"]
    assert type(m_opt) is minitorch.optim.SGD
    assert type(m_sched) is minitorch.optim.lr_scheduler.StepLR
    assert m_sched.optimizer is m_opt
    # one pickle: the optimizer holds the model's own Parameters
    assert [id(p) for p in m_opt.param_groups[0]["params"]] == [id(p) for p in m_model.parameters()]
    assert m_sched.get_last_lr() == sched.get_last_lr() == [0.25]

    for lib, mod, o, s in ((torch, model, opt, sched), (minitorch, m_model, m_opt, m_sched)):
        o.zero_grad()
        mod(lib.ones(1, 3)).sum().backward()
        o.step()
        s.step()
    assert m_sched.get_last_lr() == sched.get_last_lr() == [0.125]
    _assert_same_state_close(m_model, model)
    for key in ("weight", "bias"):
        t_buf = opt.state[getattr(model, key)]["momentum_buffer"]
        m_buf = m_opt.state[getattr(m_model, key)]["momentum_buffer"]
        np.testing.assert_allclose(_np(m_buf), t_buf.numpy(), rtol=1e-6, err_msg=key)
