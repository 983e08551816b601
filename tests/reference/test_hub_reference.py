"""minitorch.hub against torch: one cache directory, torch checkpoints loaded from a URL."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")


def test_same_cache_dir_and_torch_checkpoints(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(mt.hub, "_hub_dir", None)
    assert mt.hub.get_dir() == torch.hub.get_dir()
    src = tmp_path / "resnet-ish.pth"
    torch.save(torch.nn.Linear(3, 2).state_dict(), src)
    got = mt.hub.load_state_dict_from_url(src.as_uri(), progress=False)
    want = torch.load(src)
    assert list(got) == list(want)
    for k in want:
        np.testing.assert_array_equal(got[k].numpy(), want[k].numpy())
