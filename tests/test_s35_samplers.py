"""Session 35 (helper samplers): torch-free regression tests of the library fixes the sampler
programs of tests/reference/test_s35_samplers_reference.py found: randperm's TypeError for an
n that is no int when a keyword is given too (random_split's generator=, lengths computed as
floats); multinomial (WeightedRandomSampler) giving no NumPy warnings for weights whose
total overflows; a DataLoader over an IterDataPipe drawing torch's shared seed from its
generator before the base seed (and at each reset), so later draws stay on torch's stream.
torch's messages and numbers are written here as literals."""

from __future__ import annotations

import warnings

import pytest

import minitorch as mt

D = mt.utils.data

_FORMS = (
    " * (int n, *, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, "
    "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
    " * (int n, *, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
    "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n"
)


_GEN = "torch._C.Generator"  # (torch's name: messages name the classes as torch does)


def _message(exc_type, fn):
    with pytest.raises(exc_type) as info:
        fn()
    return str(info.value)


def _invalid(got):
    return (
        f"randperm() received an invalid combination of arguments - got ({got}), but expected "
        f"one of:\n{_FORMS}"
    )


def test_random_split_float_lengths_is_randperms_invalid_combination():
    g = mt.Generator().manual_seed(0)
    msg = _message(TypeError, lambda: D.random_split(range(10), [8.0, 2.0], generator=g))
    assert msg == _invalid("float, generator=" + _GEN)
    msg = _message(TypeError, lambda: D.random_split(range(10), [10 * 0.8, 2.0]))
    assert msg == _invalid("float, generator=" + _GEN)


@pytest.mark.parametrize(
    "call, got",
    [
        (lambda: mt.randperm(2.0, generator=mt.Generator()), "float, generator=" + _GEN),
        (lambda: mt.randperm("a", generator=mt.Generator()), "str, generator=" + _GEN),
        (lambda: mt.randperm(2.0, dtype=mt.int64), "float, dtype=torch.dtype"),
        (lambda: mt.randperm(2.0, device="cpu"), "float, device=str"),
        (lambda: mt.randperm(2.0, requires_grad=True), "float, requires_grad=bool"),
        (lambda: mt.randperm(2.0, out=mt.empty(2, dtype=mt.int64)), "float, out=Tensor"),
    ],
)  # fmt: skip
def test_randperm_non_int_n_with_a_keyword(call, got):
    assert _message(TypeError, call) == _invalid(got)


def test_randperm_non_int_n_alone_names_the_argument():
    msg = _message(TypeError, lambda: mt.randperm(2.0))
    assert msg == "randperm(): argument 'n' (position 1) must be int, not float"
    assert mt.randperm(3, generator=mt.Generator().manual_seed(0)).shape == (3,)


def test_weighted_sampler_overflowing_total_warns_nothing():
    g = mt.Generator().manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(D.WeightedRandomSampler([1e308, 1e308], 4, generator=g)) == [1, 1, 1, 1]
        w = mt.tensor([[1e308, 1e308], [1.0, 1.0]], dtype=mt.float64)
        out = mt.multinomial(w, 3, replacement=True, generator=g)
        assert out[0].tolist() == [1, 1, 1]
        f = mt.tensor([3e38, 3e38, 1.0])  # float32: the running sum overflows too (torch's [1, 1])
        assert mt.multinomial(f, 2, replacement=True, generator=g).tolist() == [1, 1]
        with pytest.raises(RuntimeError, match="encountering probability entry < 0"):
            mt.multinomial(mt.tensor([[1e308, 1e308], [1.0, -1.0]], dtype=mt.float64), 2, True)


class _Numbers(D.IterDataPipe):
    def __iter__(self):
        return iter(range(5))


class _Squares(D.MapDataPipe):
    def __getitem__(self, i):
        return i * i

    def __len__(self):
        return 5


def _draws(g, k):
    """g after k of the loader's seed draws (torch's empty((), int64).random_(generator=g))."""
    for _ in range(k):
        mt.empty((), dtype=mt.int64).random_(generator=g)
    return mt.randint(0, 1 << 30, (4,), generator=g).tolist()


def test_loader_over_an_iter_datapipe_draws_a_shared_seed_first():
    g = mt.Generator().manual_seed(1)
    dl = D.DataLoader(_Numbers(), batch_size=2, generator=g)
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4]]
    # the shared seed, then the base seed (torch's: randint(0, 100, (3,)) is [63, 13, 91] here)
    assert mt.randint(0, 1 << 30, (4,), generator=g).tolist() == _draws(
        mt.Generator().manual_seed(1), 2
    )
    g = mt.Generator().manual_seed(1)
    list(D.DataLoader(_Numbers(), batch_size=2, generator=g))
    assert mt.randint(0, 100, (3,), generator=g).tolist() == [63, 13, 91]
    it = iter(D.DataLoader(_Numbers(), batch_size=2, generator=mt.Generator()))
    assert isinstance(it._shared_seed, int)
    # a map-style pipe (or any other dataset) draws only the base seed
    g = mt.Generator().manual_seed(1)
    it = iter(D.DataLoader(_Squares(), batch_size=2, generator=g))
    assert it._shared_seed is None
    assert mt.randint(0, 1 << 30, (4,), generator=g).tolist() == _draws(
        mt.Generator().manual_seed(1), 1
    )


@pytest.mark.parametrize("persistent", [False, True])
def test_loader_with_workers_over_an_iter_datapipe_draws_at_each_reset(persistent):
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("needs the fork start method")
    g = mt.Generator().manual_seed(1)
    dl = D.DataLoader(
        _Numbers(), batch_size=2, generator=g, num_workers=1, multiprocessing_context="fork",
        persistent_workers=persistent,
    )  # fmt: skip
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4]]
    # shared, base, shared again (the first reset); torch's [91, 41, 59]
    assert mt.randint(0, 100, (3,), generator=g).tolist() == [91, 41, 59]
    assert [b.tolist() for b in dl] == [[0, 1], [2, 3], [4]]
    # a second epoch: a new iterator (3 draws), or the persistent one's reset (1 draw)
    assert mt.randint(0, 100, (3,), generator=g).tolist() == (
        [49, 16, 43] if persistent else [40, 2, 21]
    )


@pytest.mark.parametrize("n, got", [(10, 18), (11, 19), (20, 28)])
def test_distributed_sampler_over_a_grown_dataset_reports_torchs_count(n, got):
    data = list(range(6))
    s = D.DistributedSampler(data, num_replicas=4, rank=1, shuffle=False)
    data[:] = range(n)
    msg = _message(AssertionError, lambda: list(s))
    assert msg == f"Number of indices ({got}) does not match total_size (8)"


def test_distributed_sampler_padding_unchanged():
    assert list(D.DistributedSampler(range(3), num_replicas=4, rank=3, shuffle=False)) == [0]
    assert list(D.DistributedSampler(range(3), num_replicas=8, rank=7, shuffle=False)) == [1]
    assert list(D.DistributedSampler(range(6), num_replicas=4, rank=1, shuffle=False)) == [1, 5]
    data = list(range(6))
    s = D.DistributedSampler(data, num_replicas=4, rank=1, shuffle=False)
    data[:] = range(3)
    assert list(s) == [1, 2]
