"""Session 46 (helper data): DataLoader epochs over a TensorDataset (the batches minitorch gathers
at once, NOTE [ TensorDataset batches ]), a list of (tensor, int) pairs and a dict dataset, run
under torch and minitorch with the same seeds: each batch's values (exactly), dtype, shape and
strides, the shuffle order, and the default generator's stream after the epochs."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import minitorch as mt  # noqa: E402


def _program(lib):
    """Records of a few epochs: (name, shape, stride, dtype, values) per batch tensor."""
    data = lib.utils.data
    lib.manual_seed(0)
    x = lib.tensor(np.arange(40 * 3, dtype=np.float32).reshape(40, 3) / 7)
    y = lib.tensor(np.arange(40) % 4)
    b = lib.tensor(np.arange(40) % 3 == 0)
    td = data.TensorDataset(x, y, b)
    pairs = [(x[i], int(y[i])) for i in range(40)]

    class Dicts(data.Dataset):
        def __len__(self):
            return 40

        def __getitem__(self, i):
            return {"x": x[i], "y": y[i], "f": float(i) / 4}

    gen = lib.Generator().manual_seed(5)
    loaders = {
        "shuffle32": data.DataLoader(td, batch_size=32, shuffle=True),
        "shuffle_gen": data.DataLoader(td, batch_size=6, shuffle=True, generator=gen),
        "b1": data.DataLoader(td, batch_size=1),
        "b64": data.DataLoader(td, batch_size=64),
        "drop_last": data.DataLoader(td, batch_size=7, drop_last=True, shuffle=True),
        "pairs": data.DataLoader(pairs, batch_size=16, shuffle=True),
        "dicts": data.DataLoader(Dicts(), batch_size=16),
    }
    records = []
    for name, dl in loaders.items():
        for epoch in range(2):
            for k, batch in enumerate(dl):
                items = batch.items() if isinstance(batch, dict) else enumerate(batch)
                assert isinstance(batch, (dict, list))
                for field, t in items:
                    records.append(
                        (
                            f"{name}[{epoch}][{k}][{field}]",
                            tuple(t.shape),
                            t.stride(),
                            str(t.dtype).split(".")[-1],
                            t.requires_grad,
                            np.array(t.tolist()),
                        )
                    )
    records.append(("randn after", np.array(lib.randn(4).tolist())))
    records.append(("gen after", np.array(lib.randint(0, 1000, (4,), generator=gen).tolist())))
    return records


def test_epochs_match_torch():
    states = mt.get_rng_state(), torch.get_rng_state()
    try:
        got = _program(mt)
        want = _program(torch)
    finally:
        mt.set_rng_state(states[0])
        torch.set_rng_state(states[1])
    assert [r[0] for r in got] == [r[0] for r in want]
    for g, w in zip(got, want, strict=True):
        assert g[1:-1] == w[1:-1], g[0]
        np.testing.assert_array_equal(g[-1], w[-1], err_msg=g[0])
