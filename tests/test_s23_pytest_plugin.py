"""minitorch's pytest plugin (_minitorch_pytest.py): the kernels' NumPy RuntimeWarnings stay out of
a user's test run, as they do outside pytest, even under `-W error`; minitorch's own asserts are
not rewritten by pytest."""

import importlib.metadata
import os
import subprocess
import sys
import textwrap

import pytest

import _minitorch_pytest
import minitorch

USER_TEST = """
import numpy as np
import pytest

import minitorch as torch


def test_log_of_zero_and_its_gradient():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = torch.log(x)
    (y * 0).sum().backward()  # 0 * -inf and 1 / 0 in the backward too
    assert torch.isinf(y[0]) and torch.isnan(x.grad[0])


@pytest.mark.filterwarnings("error")
def test_marked_error():
    assert torch.isnan(torch.tensor([0.0]) / 0)[0]


def test_library_asserts_keep_their_messages():
    # pytest would rewrite minitorch's asserts (the distribution provides a plugin): unmarked
    with pytest.raises(AssertionError, match="^Padding_idx must be within num_embeddings$"):
        torch.nn.Embedding(4, 2, padding_idx=9)


def test_numpy_of_the_user_still_warns():
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.zeros(1))
"""


def test_the_plugin_filters_what_import_minitorch_filters():
    assert _minitorch_pytest.KERNEL_MODULES == minitorch._KERNEL_MODULES


def _run_pytest(tmp_path, *args):
    (tmp_path / "test_user.py").write_text(textwrap.dedent(USER_TEST))
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, "test_user.py"]
    # a user's own run: not a worker of this run's pytest-xdist (pytest-benchmark would warn)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(
    not any(
        e.value == "_minitorch_pytest" for e in importlib.metadata.entry_points(group="pytest11")
    ),
    reason="minitorch is not installed (pip install -e .): pytest does not load its plugin",
)
def test_kernel_warnings_do_not_reach_a_users_test_run(tmp_path):
    res = _run_pytest(tmp_path, "-W", "error")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "4 passed" in res.stdout
    assert "RuntimeWarning" not in res.stdout
    # without the plugin, NumPy's warnings fail the run
    res = _run_pytest(tmp_path, "-p", "no:minitorch", "-W", "error")
    assert res.returncode == 1
    assert "2 failed, 2 passed" in res.stdout and "divide by zero encountered" in res.stdout
