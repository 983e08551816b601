"""Order independence under pytest-xdist (session 39, "orderind"), torch-free: the shared
`fresh_once` fixture, run_program's set_warn_always, the check that a test leaves the process-wide
settings as it found them (tests/conftest.py, NOTE [ Tests leave global state as they found it ]),
and padding='same''s warning, now a warn_once (torch's TORCH_WARN_ONCE: every time under
set_warn_always, which minitorch's own flag ignored)."""

from __future__ import annotations

import warnings

import minitorch as torch
from minitorch import _settings, storage
from tests import conftest
from tests.reference._programs import Rec, run_program

_SAME = (
    "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded "
    "copy of the input be created"
)
_MESHGRID = (
    "UserWarning: torch.meshgrid: in an upcoming release, it will be required to pass the "
    "indexing argument."
)


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


def test_same_padding_warning_is_once_per_process_but_every_time_under_warn_always(fresh_once):
    x, w = torch.zeros(1, 2, 5), torch.zeros(4, 2, 2)
    conv = lambda: torch.nn.functional.conv1d(x, w, padding="same")  # noqa: E731
    assert _messages(conv) == [_SAME]
    assert _messages(conv) == []  # torch's TORCH_WARN_ONCE
    torch.set_warn_always(True)
    try:
        assert _messages(conv) == [_SAME]
        assert _messages(lambda: torch.nn.Conv1d(2, 4, 2, padding="same")(x)) == [_SAME]
    finally:
        torch.set_warn_always(False)
    assert _messages(conv) == []


def test_fresh_once_forgets_the_given_warnings_and_puts_them_back(fresh_once):
    _settings._warned_once.add("meshgrid_indexing")
    storage._warned[:] = [True]
    with conftest.once_warnings_forgotten():
        assert not _settings._warned_once and not storage._warned
        meshgrid = lambda: torch.meshgrid(torch.arange(2), torch.arange(3))  # noqa: E731
        assert _messages(meshgrid) == [_MESHGRID.removeprefix("UserWarning: ")]
        assert _messages(lambda: torch.ones(2).storage())  # its deprecation, given again
        _settings._warned_once.add("s39_given_in_the_block")
    assert "meshgrid_indexing" in _settings._warned_once and storage._warned == [True]
    assert "s39_given_in_the_block" not in _settings._warned_once


def _meshgrid_twice(lib, rec):
    rec.warns("first", lambda: lib.meshgrid(lib.arange(2), lib.arange(3)))
    rec.warns("second", lambda: lib.meshgrid(lib.arange(2), lib.arange(3)))
    lib.meshgrid(lib.arange(2), lib.arange(3))  # (kept by keep_warnings)
    rec("warn_always", lib.is_warn_always_enabled())


def test_run_program_gives_once_per_process_warnings_every_time(fresh_once):
    _settings._warned_once.add("meshgrid_indexing")  # as after a torch-free test that gave it
    got = dict(run_program(_meshgrid_twice, torch, rec=Rec(), keep_warnings=lambda w: True))
    assert got["first"] == got["second"] == str([_MESHGRID])
    assert got["warnings"] == str([_MESHGRID]) and bool(got["warn_always"])
    assert not torch.is_warn_always_enabled()  # restored


def test_a_changed_setting_is_named_and_undone():
    before = conftest._settings_of(torch)
    torch.set_default_dtype(torch.float64)
    torch.set_printoptions(precision=2)
    torch.set_grad_enabled(False)
    autocast = torch.autocast("cpu")
    autocast.__enter__()
    changed = conftest._restore_settings(torch, before, conftest._settings_of(torch))
    assert conftest._settings_of(torch) == before
    assert changed == [
        "minitorch's default dtype: torch.float32 -> torch.float64",
        "minitorch's grad mode: True -> False",
        "minitorch's print options: (4, 1000, 3, 80, None) -> (2, 1000, 3, 80, None)",
        "minitorch's autocast (on, nesting): (False, 0) -> (True, 1)",
    ]
    assert not torch.is_autocast_enabled("cpu") and torch.get_default_dtype() == torch.float32


def test_a_global_module_hook_left_registered_is_named_and_removed():
    before = conftest._settings_of(torch)
    torch.nn.modules.module.register_module_forward_hook(lambda m, i, o: None)
    torch.nn.modules.module.register_module_buffer_registration_hook(lambda m, n, b: None)
    after = conftest._settings_of(torch)
    changed = conftest._restore_settings(torch, before, after)
    assert [c.split(":")[0] for c in changed] == ["minitorch's global module hooks"]
    assert conftest._settings_of(torch) == before
    assert not torch.nn.modules.module._global_forward_hooks
