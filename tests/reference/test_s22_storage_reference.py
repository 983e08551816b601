"""Session 22 (h13): storage programs (set_, resize_, storages, copy_ overlap, .data) run in
torch and minitorch, every tensor's values, storage offset and storage size compared."""

import pytest

import minitorch

torch = pytest.importorskip("torch")

PROGRAMS = [
    "x = torch.arange(6.); x.resize_(2); x.resize_(5)",
    "x = torch.arange(6).reshape(2, 3).t(); x.resize_(8); x[6:] = 0; y = x[:6]",
    "b = torch.arange(6.); v = b[2:]; v.resize_(10); v[0] = 100; v[4:] = 7; w = v[:4]",
    "b = (torch.arange(8.) * 0.5).reshape(4, 2); b.resize_(9); b[8] = 1; w = b[5:]",
    "x = torch.arange(3.); x.resize_(0); x.resize_(3)",
    "x = torch.arange(6); y = torch.zeros(0, dtype=torch.int64); "
    "y.set_(x.untyped_storage(), 2, (2, 2), (1, 2)); y[0, 0] = 50",
    "x = torch.arange(6.); y = torch.zeros(0); y.set_(x[1:], 2, (2,), (2,))",
    "x = torch.arange(16.).reshape(4, 4); t = x.data; t.set_(t.diagonal(0, 1, 0)); "
    "n = t.narrow(0, 3, 1)",
    "x = torch.arange(6.); y = torch.zeros(2); y.data = x[4]",
    "x = torch.arange(6.); y = torch.zeros(0); y.set_(x.untyped_storage(), 2)",
    "x = torch.zeros(2, dtype=torch.float64); x.set_(torch.zeros(2))",
    "x = torch.zeros(1); x.copy_(x[0])",
    "x = torch.zeros(2, 3); x.copy_(x.t())",
    "e = torch.zeros(1).expand(3); e[:3].copy_(e[0:])",
    "e = torch.zeros(1).expand(3); e.copy_(torch.zeros(4))",
    "s = torch.arange(6.).untyped_storage(); s[24] = 1",
    "s = torch.arange(6.).untyped_storage(); s[-1] = 1",
    "s = torch.arange(6.).untyped_storage(); s.copy_(torch.zeros(2).untyped_storage())",
    "a = torch.zeros(3, requires_grad=True); a[1:].set_()",
]


def _run(lib, code):
    ns = {"torch": lib}
    try:
        exec(code, ns)
        err = None
    except Exception as e:  # noqa: BLE001
        err = (type(e).__name__, str(e))
    state = {}
    for k, v in ns.items():
        if isinstance(v, lib.Tensor):
            state[k] = (
                v.detach().tolist(),
                tuple(v.shape),
                v.storage_offset(),
                v.untyped_storage().nbytes(),
                v._version,
            )
    return err, state


@pytest.mark.parametrize("code", PROGRAMS)
def test_storage_program(code):
    assert _run(minitorch, code) == _run(torch, code)
