"""Session 27 (evo): random streams that differed from torch's, with torch 2.13's numbers as
literals: randint / random_ draw random64() from a span of 2^28 (not 2^32) and move float bounds
as torch's update_from / update_to do, a strided out= and a
*_like result of another layout are drawn in place in memory order, gumbel_softmax draws its
noise row-major, rrelu's float32 slopes use float32 bounds, bernoulli_ with a tensor p into a
transposed tensor pairs each element with its own p, bernoulli's probability error."""

import pytest

import minitorch as torch


def _close(got, want, tol=1e-6):
    got = got.tolist() if hasattr(got, "tolist") else got
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert abs(g - w) <= tol * max(1.0, abs(w)), (got, want)


def test_randint_span_of_2_pow_28_draws_64_bits():
    torch.manual_seed(3)
    assert torch.randint(0, 2**30, (3,)).tolist() == [303761048, 386328195, 521102280]
    torch.manual_seed(3)
    assert torch.randint(0, 2**28 - 1, (3,)).tolist() == [218175346, 35325593, 88681732]
    got = torch.randint(-5, 2**28 - 5, (3,), dtype=torch.int32).tolist()
    assert got == [175684531, 46504187, 77081592]
    torch.manual_seed(3)
    got = torch.empty(3, dtype=torch.float64).random_(0, 2**31 - 1).tolist()
    assert got == [740111726.0, 1100562553.0, 872471353.0]


def test_random_float_bounds_as_the_dtype_rounds_them():
    # torch moves a bound its float dtype rounds past itself one spacing inward (2^25 - 1 is
    # 2^25 in float32: the span is 2^25 - 2)
    want = [16848886.0, 1771178.0, 21573036.0, 17229656.0]
    with pytest.warns(UserWarning, match="to - 1 is out of bounds"):
        torch.manual_seed(3)
        assert torch.empty(4).random_(0, 2**25).tolist() == want
        torch.manual_seed(3)
        assert torch.randint(0, 2**25, (4,), dtype=torch.float32).tolist() == want
        torch.manual_seed(3)
        got = torch.empty(4).random_(0, 2**24 + 100).tolist()
    assert got == [57712.0, 1769396.0, 4777903.0, 431157.0]
    torch.manual_seed(3)
    got = torch.empty(3, dtype=torch.bfloat16).random_(-1000, 1000).tolist()
    assert got == [784.0, 784.0, -131.0]
    torch.manual_seed(3)
    got = torch.empty(3, dtype=torch.float16).random_(-3001, 3001).tolist()
    assert got == [-2304.0, 2828.0, -2750.0]
    # float16: a bound rounding to infinity stays out of bounds
    with pytest.raises(RuntimeError, match=r"^to - 1 is out of bounds for c10::Half$"):
        torch.empty(2, dtype=torch.float16).random_(-44601, 65536)
    with pytest.raises(RuntimeError, match=r"^to - 1 is out of bounds for c10::Half$"):
        torch.randint(0, 262143, (2,), dtype=torch.float16)
    with pytest.raises(RuntimeError, match=r"^from is out of bounds for c10::Half$"):
        torch.empty(2, dtype=torch.float16).random_(92951, None)


def test_factories_fill_a_strided_out_in_memory_order():
    torch.manual_seed(4)
    o = torch.empty(3, 6).t()
    torch.randn(6, 3, out=o)
    assert o.stride() == (1, 6)
    _close(
        o[:, 0],
        [-1.605276346206665, 0.23248571157455444, 2.239870071411133, 0.8472937941551208,
         1.2006442546844482, -0.4015503227710724],
    )  # fmt: skip
    torch.manual_seed(4)
    o = torch.empty(3, 6, dtype=torch.float64).t()
    torch.rand(6, 3, out=o, dtype=torch.float64)
    _close(o[0], [0.47710938483307586, 0.410083400967563, 0.4101459319574077], 1e-15)
    torch.manual_seed(4)
    o = torch.empty(3, 6, dtype=torch.int64).t()
    torch.randint(0, 100, (6, 3), out=o)
    assert o.tolist() == [
        [30, 19, 55], [94, 76, 13], [31, 82, 50], [73, 61, 87], [89, 38, 67], [76, 96, 33]
    ]  # fmt: skip
    torch.manual_seed(4)
    o = torch.empty(3, 6).t()
    torch.normal(1.0, 2.0, (6, 3), out=o)
    _close(o[0], [-2.21055269241333, -1.8520393371582031, 0.8381141424179077])
    torch.manual_seed(4)
    o = torch.empty(4, 3, dtype=torch.float64).t()
    torch.normal(torch.arange(12.0, dtype=torch.float64).view(3, 4), 2.0, out=o)
    _close(o[:, 0], [-3.2105525897540206, 4.46497141191596, 12.479740132239261], 1e-14)


def test_like_factories_draw_in_the_layout_they_return():
    torch.manual_seed(5)
    x = torch.zeros(3, 6).t()
    _close(torch.rand_like(x)[0], [0.8302518725395203, 0.16439151763916016, 0.07241219282150269])
    torch.manual_seed(5)
    a = torch.randn_like(torch.zeros(1, 2, 2, 5), memory_format=torch.channels_last)
    assert a.stride() == (20, 1, 10, 2)
    _close(
        a.flatten()[:6],
        [-0.4867807626724243, -0.5580962300300598, -0.19741509854793549, -1.4017020463943481,
         0.6312134265899658, -0.5577934384346008],
    )  # fmt: skip
    torch.manual_seed(5)
    assert torch.randint_like(torch.zeros(3, 6).t(), 10)[0].tolist() == [1.0, 2.0, 1.0]


def test_gumbel_softmax_noise_is_row_major():
    torch.manual_seed(6)
    y = torch.nn.functional.gumbel_softmax(torch.zeros(3, 2).t(), tau=0.5)
    _close(y[0], [0.7602094411849976, 0.11147976666688919, 0.12831072509288788])


def test_rrelu_float32_slopes():
    torch.manual_seed(7)
    y = torch.nn.functional.rrelu(-torch.ones(5), training=True)
    assert y.tolist() == [
        -0.1832042634487152, -0.18201953172683716, -0.304602712392807, -0.2618100941181183,
        -0.3171936273574829,
    ]  # fmt: skip


def test_bernoulli_tensor_p_into_a_transposed_tensor():
    torch.manual_seed(8)
    p = torch.linspace(0.05, 0.95, 12).view(4, 3)
    got = torch.empty(3, 4).t().bernoulli_(p).int().tolist()
    assert got == [[0, 0, 0], [0, 0, 1], [0, 0, 0], [1, 1, 1]]


def test_randperm_float32_bound():
    with pytest.raises(RuntimeError, match=r"^n cannot be greater than 2\^24\+1 for Float type\.$"):
        torch.randperm(2**24 + 2, dtype=torch.float32)
    assert torch.randperm(258, dtype=torch.bfloat16).shape == (258,)  # no bound for bfloat16


def test_bernoulli_probability_error_text():
    with pytest.raises(RuntimeError) as e:
        torch.bernoulli(torch.tensor([1.5]))
    assert str(e.value) == (
        "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
        "be improved?  If so, please report an enhancement request to PyTorch.)"
    )
