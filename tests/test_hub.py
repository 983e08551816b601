"""minitorch.hub: weights downloaded once into the cache directory and loaded, hash checks."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import minitorch as mt


def _saved(tmp_path, name):
    path = tmp_path / name
    mt.save({"w": mt.arange(3.0)}, str(path))
    return path


def test_load_state_dict_from_url_caches(tmp_path, capsys):
    src = _saved(tmp_path, "weights.pt")
    cache = tmp_path / "cache"
    sd = mt.hub.load_state_dict_from_url(src.as_uri(), model_dir=str(cache))
    np.testing.assert_array_equal(sd["w"].numpy(), [0.0, 1.0, 2.0])
    assert "Downloading:" in capsys.readouterr().err
    src.unlink()  # served from the cache now
    sd = mt.hub.load_state_dict_from_url(src.as_uri(), model_dir=str(cache))
    assert sd["w"].tolist() == [0.0, 1.0, 2.0] and capsys.readouterr().err == ""
    assert [p.name for p in cache.iterdir()] == ["weights.pt"]


def test_hash_check(tmp_path):
    src = _saved(tmp_path, "tmp.pt")
    digest = hashlib.sha256(src.read_bytes()).hexdigest()
    good = src.rename(tmp_path / f"w-{digest[:8]}.pt")
    cache = tmp_path / "cache"
    mt.hub.load_state_dict_from_url(good.as_uri(), model_dir=str(cache), check_hash=True)
    bad = good.rename(tmp_path / "w-00000000.pt")
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "00000000"'):
        mt.hub.load_state_dict_from_url(bad.as_uri(), model_dir=str(cache), check_hash=True)
    assert sorted(p.name for p in cache.iterdir()) == [good.name]  # no partial file left


def test_dirs_and_hubconf(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    monkeypatch.setattr(mt.hub, "_hub_dir", None)
    assert mt.hub.get_dir() == str(tmp_path / "th" / "hub")
    mt.hub.set_dir(str(tmp_path / "mine"))
    assert mt.hub.get_dir() == str(tmp_path / "mine")
    with pytest.raises(NotImplementedError, match="load_state_dict_from_url"):
        mt.hub.load("pytorch/vision", "resnet18")
