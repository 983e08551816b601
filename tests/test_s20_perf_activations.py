"""Session 20, speed: the activation kernels without NumPy's branching where (NOTE [ Branch-free
selects ] in minitorch/_ops/activation.py). Their forward and backward on arrays big enough to take
the branch-free path give torch's values on edge values (0, -0, inf, NaN, subnormals, the kinks),
bit for bit what the where path gives on small arrays, in every float dtype, contiguous or not;
silu's forward is torch's formula x / (1 + exp(-x)) (-0 below about -88, as torch). Expected values
were printed by torch 2.13 for each element alone (torch's scalar path: its vectorized
softshrink writes +0 for a negative input inside [-lambd, lambd], and its vectorized
hardtanh/hardshrink/softshrink backward 0 for a NaN input)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minitorch
from minitorch._backend import numpy_backend

F = minitorch.nn.functional
nan = math.nan
inf = math.inf

E = [
    0.0,
    -0.0,
    inf,
    -inf,
    nan,
    1e-40,
    -1e-40,
    0.3,
    -0.3,
    0.5,
    -0.5,
    2.0,
    -2.0,
    7.0,
    -7.0,
    25.0,
    -100.0,
    -89.0,
    3.0,
    -3.0,
    6.0,
    -1.0,
    1.0,
    -1.5,
]
G = [
    1.5,
    -2.0,
    0.25,
    3.0,
    -1.0,
    2.0,
    -0.5,
    1.25,
    -3.0,
    0.75,
    2.5,
    -1.5,
    1.0,
    -2.5,
    0.5,
    1.75,
    -0.25,
    2.25,
    -1.25,
    3.5,
    -0.75,
    1.0,
    2.0,
    -3.5,
]

CALLS = {
    "hardtanh": lambda x: F.hardtanh(x, -0.5, 2.0),
    "relu6": F.relu6,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.01),
    "leaky_relu_neg": lambda x: F.leaky_relu(x, -0.3),
    "leaky_relu_big": lambda x: F.leaky_relu(x, 2.5),
    "leaky_relu_zero": lambda x: F.leaky_relu(x, 0.0),
    "hardsigmoid": F.hardsigmoid,
    "hardshrink": lambda x: F.hardshrink(x, 0.5),
    "softshrink": lambda x: F.softshrink(x, 0.5),
    "softshrink0": lambda x: F.softshrink(x, 0.0),
    "threshold": lambda x: F.threshold(x, 0.3, -4.0),
    "elu": F.elu,
    "elu_neg": lambda x: F.elu(x, -0.7),
    "selu": F.selu,
    "celu": lambda x: F.celu(x, 1.3),
    "silu": F.silu,
    "softplus": F.softplus,
    "softplus_b": lambda x: F.softplus(x, 2.0, 5.0),
}

# torch 2.13, float32: (forward, gradient for G)
# fmt: off
TORCH = {
    "hardtanh": (
        [
            0.0, -0.0, 2.0, -0.5, nan, 9.99994610111476e-41, -9.99994610111476e-41,
            0.30000001192092896, -0.30000001192092896, 0.5, -0.5, 2.0, -0.5, 2.0, -0.5, 2.0, -0.5,
            -0.5, 2.0, -0.5, 2.0, -0.5, 1.0, -0.5,
        ],
        [
            1.5, -2.0, 0.0, 0.0, -1.0, 2.0, -0.5, 1.25, -3.0, 0.75, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0,
        ],
    ),
    "relu6": (
        [
            0.0, -0.0, 6.0, 0.0, nan, 9.99994610111476e-41, 0.0, 0.30000001192092896, 0.0, 0.5, 0.0,
            2.0, 0.0, 6.0, 0.0, 6.0, 0.0, 0.0, 3.0, 0.0, 6.0, 0.0, 1.0, 0.0,
        ],
        [
            0.0, 0.0, 0.0, 0.0, -1.0, 2.0, 0.0, 1.25, 0.0, 0.75, 0.0, -1.5, 0.0, 0.0, 0.0, 0.0, 0.0,
            0.0, -1.25, 0.0, 0.0, 0.0, 2.0, 0.0,
        ],
    ),
    "leaky_relu": (
        [
            0.0, -0.0, inf, -inf, nan, 9.99994610111476e-41, -1.0005271035279194e-42,
            0.30000001192092896, -0.003000000026077032, 0.5, -0.004999999888241291, 2.0,
            -0.019999999552965164, 7.0, -0.07000000029802322, 25.0, -1.0, -0.8899999856948853, 3.0,
            -0.029999999329447746, 6.0, -0.009999999776482582, 1.0, -0.014999999664723873,
        ],
        [
            0.014999999664723873, -0.019999999552965164, 0.25, 0.029999999329447746,
            -0.009999999776482582, 2.0, -0.004999999888241291, 1.25, -0.029999999329447746, 0.75,
            0.02499999850988388, -1.5, 0.009999999776482582, -2.5, 0.004999999888241291, 1.75,
            -0.0024999999441206455, 0.022499999031424522, -1.25, 0.03500000014901161, -0.75,
            0.009999999776482582, 2.0, -0.03500000014901161,
        ],
    ),
    "leaky_relu_neg": (
        [
            -0.0, 0.0, inf, inf, nan, 9.99994610111476e-41, 3.000039882273001e-41,
            0.30000001192092896, 0.09000000357627869, 0.5, 0.15000000596046448, 2.0,
            0.6000000238418579, 7.0, 2.1000001430511475, 25.0, 30.000001907348633,
            26.700000762939453, 3.0, 0.9000000357627869, 6.0, 0.30000001192092896, 1.0,
            0.45000001788139343,
        ],
        [
            -0.45000001788139343, 0.6000000238418579, 0.25, -0.9000000357627869,
            0.30000001192092896, 2.0, 0.15000000596046448, 1.25, 0.9000000357627869, 0.75, -0.75,
            -1.5, -0.30000001192092896, -2.5, -0.15000000596046448, 1.75, 0.07500000298023224,
            -0.675000011920929, -1.25, -1.0500000715255737, -0.75, -0.30000001192092896, 2.0,
            1.0500000715255737,
        ],
    ),
    "leaky_relu_big": (
        [
            0.0, -0.0, inf, -inf, nan, 9.99994610111476e-41, -2.49998652527869e-40,
            0.30000001192092896, -0.75, 0.5, -1.25, 2.0, -5.0, 7.0, -17.5, 25.0, -250.0, -222.5,
            3.0, -7.5, 6.0, -2.5, 1.0, -3.75,
        ],
        [
            3.75, -5.0, 0.25, 7.5, -2.5, 2.0, -1.25, 1.25, -7.5, 0.75, 6.25, -1.5, 2.5, -2.5, 1.25,
            1.75, -0.625, 5.625, -1.25, 8.75, -0.75, 2.5, 2.0, -8.75,
        ],
    ),
    "leaky_relu_zero": (
        [
            0.0, -0.0, inf, nan, nan, 9.99994610111476e-41, -0.0, 0.30000001192092896, -0.0, 0.5,
            -0.0, 2.0, -0.0, 7.0, -0.0, 25.0, -0.0, -0.0, 3.0, -0.0, 6.0, -0.0, 1.0, -0.0,
        ],
        [
            0.0, -0.0, 0.25, 0.0, -0.0, 2.0, -0.0, 1.25, -0.0, 0.75, 0.0, -1.5, 0.0, -2.5, 0.0,
            1.75, -0.0, 0.0, -1.25, 0.0, -0.75, 0.0, 2.0, -0.0,
        ],
    ),
    "hardsigmoid": (
        [
            0.5, 0.5, 1.0, 0.0, nan, 0.5, 0.5, 0.550000011920929, 0.45000001788139343,
            0.5833333134651184, 0.4166666567325592, 0.8333333134651184, 0.1666666716337204, 1.0,
            0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.3333333432674408, 0.6666666865348816, 0.25,
        ],
        [
            0.25, -0.3333333432674408, 0.0, 0.0, 0.0, 0.3333333432674408, -0.0833333358168602,
            0.2083333432674408, -0.5, 0.125, 0.4166666865348816, -0.25, 0.1666666716337204, 0.0,
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1666666716337204, 0.3333333432674408,
            -0.5833333730697632,
        ],
    ),
    "hardshrink": (
        [
            0.0, 0.0, inf, -inf, nan, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, -2.0, 7.0, -7.0, 25.0,
            -100.0, -89.0, 3.0, -3.0, 6.0, -1.0, 1.0, -1.5,
        ],
        [
            0.0, 0.0, 0.25, 3.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.5, 1.0, -2.5, 0.5, 1.75,
            -0.25, 2.25, -1.25, 3.5, -0.75, 1.0, 2.0, -3.5,
        ],
    ),
    "softshrink": (
        [
            0.0, -0.0, inf, -inf, nan, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 1.5, -1.5, 6.5, -6.5, 24.5,
            -99.5, -88.5, 2.5, -2.5, 5.5, -0.5, 0.5, -1.0,
        ],
        [
            0.0, 0.0, 0.25, 3.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.5, 1.0, -2.5, 0.5, 1.75,
            -0.25, 2.25, -1.25, 3.5, -0.75, 1.0, 2.0, -3.5,
        ],
    ),
    "softshrink0": (
        [
            0.0, -0.0, inf, -inf, nan, 9.99994610111476e-41, -9.99994610111476e-41,
            0.30000001192092896, -0.30000001192092896, 0.5, -0.5, 2.0, -2.0, 7.0, -7.0, 25.0,
            -100.0, -89.0, 3.0, -3.0, 6.0, -1.0, 1.0, -1.5,
        ],
        [
            0.0, 0.0, 0.25, 3.0, -1.0, 2.0, -0.5, 1.25, -3.0, 0.75, 2.5, -1.5, 1.0, -2.5, 0.5, 1.75,
            -0.25, 2.25, -1.25, 3.5, -0.75, 1.0, 2.0, -3.5,
        ],
    ),
    "threshold": (
        [
            -4.0, -4.0, inf, -4.0, nan, -4.0, -4.0, -4.0, -4.0, 0.5, -4.0, 2.0, -4.0, 7.0, -4.0,
            25.0, -4.0, -4.0, 3.0, -4.0, 6.0, -4.0, 1.0, -4.0,
        ],
        [
            0.0, 0.0, 0.25, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.75, 0.0, -1.5, 0.0, -2.5, 0.0, 1.75,
            0.0, 0.0, -1.25, 0.0, -0.75, 0.0, 2.0, 0.0,
        ],
    ),
    "elu": (
        [
            0.0, -0.0, inf, -1.0, nan, 9.99994610111476e-41, -9.99994610111476e-41,
            0.30000001192092896, -0.25918179750442505, 0.5, -0.39346933364868164, 2.0,
            -0.8646647334098816, 7.0, -0.9990881085395813, 25.0, -1.0, -1.0, 3.0,
            -0.9502129554748535, 6.0, -0.6321205496788025, 1.0, -0.7768698334693909,
        ],
        [
            1.5, -2.0, 0.25, 0.0, -1.0, 2.0, -0.5, 1.25, -2.22245454788208, 0.75, 1.516326665878296,
            -1.5, 0.1353352814912796, -2.5, 0.00045594098628498614, 1.75, -9.80908925027372e-45,
            5.0115687953496677e-39, -1.25, 0.17425473034381866, -0.75, 0.3678794503211975, 2.0,
            -0.7809555530548096,
        ],
    ),
    "elu_neg": (
        [
            0.0, -0.0, inf, 0.699999988079071, nan, 9.99994610111476e-41, 6.999906218841759e-41,
            0.30000001192092896, 0.1814272552728653, 0.5, 0.27542853355407715, 2.0,
            0.6052653193473816, 7.0, 0.6993616819381714, 25.0, 0.699999988079071, 0.699999988079071,
            3.0, 0.6651490330696106, 6.0, 0.44248437881469727, 1.0, 0.5438088774681091,
        ],
        [
            -1.0499999523162842, 1.399999976158142, 0.25, -0.0, -1.0, 2.0, 0.3499999940395355, 1.25,
            1.555718183517456, 0.75, -1.0614286661148071, -1.5, -0.09473469853401184, -2.5,
            -0.00031915868748910725, 1.75, 7.006492321624085e-45, -3.508097456095535e-39, -1.25,
            -0.12197831273078918, -0.75, -0.2575156092643738, 2.0, 0.5466689467430115,
        ],
    ),
    "selu": (
        [
            0.0, -0.0, inf, -1.7580993175506592, nan, 1.0506935885507478e-40,
            -1.7580830663265587e-40, 0.3152103126049042, -0.4556673467159271, 0.5253505110740662,
            -0.6917581558227539, 2.1014020442962646, -1.5201665163040161, 7.354907035827637,
            -1.7564960718154907, 26.26752471923828, -1.7580993175506592, -1.7580993175506592,
            3.1521029472351074, -1.6705687046051025, 6.304205894470215, -1.1113307476043701,
            1.0507010221481323, -1.3658143281936646,
        ],
        [
            2.637148857116699, -3.5161986351013184, 0.2626752555370331, 0.0, -1.0507010221481323,
            2.1014020442962646, -0.8790496587753296, 1.3133763074874878, -3.9072957038879395,
            0.7880257368087769, 2.6658530235290527, -1.5760514736175537, 0.23793286085128784,
            -2.6267526149749756, 0.0008015895145945251, 1.8387267589569092, -1.6815581571897805e-44,
            8.810836454153399e-39, -1.3133763074874878, 0.30635711550712585, -0.7880257368087769,
            0.6467686295509338, 2.1014020442962646, -1.3729974031448364,
        ],
    ),
    "celu": (
        [
            0.0, -0.0, inf, -1.2999999523162842, nan, 9.99994610111476e-41, -9.99994610111476e-41,
            0.30000001192092896, -0.2679005563259125, 0.5, -0.41507387161254883, 2.0,
            -1.0208754539489746, 7.0, -1.2940374612808228, 25.0, -1.2999999523162842,
            -1.2999999523162842, 3.0, -1.1706621646881104, 6.0, -0.6976197957992554, 1.0,
            -0.8899523019790649,
        ],
        [
            1.4999998807907104, -2.0, 0.25, 0.0, -1.0, 2.0, -0.5, 1.25, -2.381767749786377, 0.75,
            1.7017810344696045, -1.5, 0.21471115946769714, -2.5, 0.0022933019790798426, 1.75,
            -9.787474761802197e-35, 4.165943327675765e-30, -1.25, 0.34821704030036926, -0.75,
            0.46336936950683594, 2.0, -1.103974461555481,
        ],
    ),
    "silu": (
        [
            0.0, -0.0, inf, nan, nan, 4.99997305055738e-41, -4.99997305055738e-41,
            0.172332763671875, -0.12766724824905396, 0.3112296760082245, -0.1887703388929367,
            1.7615940570831299, -0.23840583860874176, 6.993622779846191, -0.006377358455210924,
            25.0, -0.0, -0.0, 2.857722520828247, -0.14227761328220367, 5.985164642333984,
            -0.2689414322376251, 0.7310585975646973, -0.2736382782459259,
        ],
        [
            0.75, -1.0, nan, nan, nan, 1.0, -0.25, 0.8097249865531921, -1.0566599369049072,
            0.5549708604812622, 0.6500970721244812, -1.6361764669418335, -0.09078425168991089,
            -2.51365065574646, -0.0027302484959363937, 1.75, 0.0, -0.0, -1.3601301908493042,
            -0.3083643913269043, -0.7592446804046631, 0.07232948392629623, 1.8553410768508911,
            0.1445295661687851,
        ],
    ),
    "softplus": (
        [
            0.6931471824645996, 0.6931471824645996, inf, 0.0, nan, 0.6931471824645996,
            0.6931471824645996, 0.8543552756309509, 0.554355263710022, 0.9740769863128662,
            0.4740769863128662, 2.1269280910491943, 0.12692800164222717, 7.000911712646484,
            0.000911466486286372, 25.0, 3.783505853677006e-44, 2.2273639090442967e-39,
            3.0485873222351074, 0.04858735203742981, 6.002475738525391, 0.3132616877555847,
            1.31326162815094, 0.20141328871250153,
        ],
        [
            0.75, -1.0, 0.25, 0.0, nan, 1.0, -0.25, 0.7180531620979309, -1.27667236328125,
            0.46684449911117554, 0.9438516497612, -1.3211956024169922, 0.11920291930437088,
            -2.4977223873138428, 0.00045552561641670763, 1.75, -9.80908925027372e-45,
            5.0115687953496677e-39, -1.1907176971435547, 0.16599054634571075, -0.7481455206871033,
            0.2689414322376251, 1.4621171951293945, -0.638489305973053,
        ],
    ),
    "softplus_b": (
        [
            0.3465735912322998, 0.3465735912322998, inf, 0.0, nan, 0.3465735912322998,
            0.3465735912322998, 0.5187439918518066, 0.2187439650297165, 0.65663081407547,
            0.15663084387779236, 2.0090749263763428, 0.009074964560568333, 7.0,
            4.1576419107514084e-07, 25.0, 0.0, 0.0, 3.0, 0.0012378426035866141, 6.0,
            0.06346400082111359, 1.0634640455245972, 0.024293676018714905,
        ],
        [
            0.75, -1.0, 0.25, 0.0, nan, 1.0, -0.25, 0.8070704340934753, -1.0630309581756592,
            0.548293948173523, 0.6723535656929016, -1.4730206727981567, 0.01798621006309986, -2.5,
            4.1576402054488426e-07, 1.75, -0.0, 0.0, -1.25, 0.008654181845486164, -0.75,
            0.11920291930437088, 1.7615941762924194, -0.16599054634571075,
        ],
    ),
}
# fmt: on


def _float32_bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.int32).astype(np.int64)


def _ulps(actual, expected):
    """ulps apart per element (0 for two NaNs; a NaN against a number is far apart)."""
    ka, ke = _float32_bits(actual), _float32_bits(expected)
    ka = np.where(ka < 0, -(2**31) - ka, ka)
    ke = np.where(ke < 0, -(2**31) - ke, ke)
    d = np.abs(ka - ke)
    na, ne = np.isnan(actual), np.isnan(expected)
    d[na & ne] = 0
    d[na != ne] = 2**40
    return d


def _same_bits(actual, expected, msg):
    """equal values with equal signs (zeros too); NaN where expected has NaN."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, msg
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected), err_msg=msg)
    it = {2: np.int16, 4: np.int32, 8: np.int64}[actual.itemsize]
    keep = ~np.isnan(expected)
    np.testing.assert_array_equal(
        np.ascontiguousarray(actual).view(it)[keep],
        np.ascontiguousarray(expected).view(it)[keep],
        err_msg=msg,
    )


def _run(name, x, g):
    """(forward, data-level gradient, Tensor-level gradient) of CALLS[name] as arrays."""
    x = x.detach().requires_grad_()
    out = CALLS[name](x)
    (gx,) = minitorch.autograd.grad(out, [x], g)
    (gt,) = minitorch.autograd.grad(CALLS[name](x), [x], g, create_graph=True)
    return [_np(t) for t in (out, gx, gt)]


def _np(t):
    t = t.detach()
    return t.float().numpy() if t.dtype == minitorch.bfloat16 else t.numpy()


@pytest.fixture
def fast_path_calls(monkeypatch):
    """The number of branch-free selects made (NOTE [ Branch-free selects ])."""
    calls = []
    real = numpy_backend._bit_mask

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(numpy_backend, "_bit_mask", counted)
    return calls


REPS = 100  # 2400 elements: above the backend's _SELECT_MIN


@pytest.mark.parametrize("name", sorted(TORCH))
def test_big_arrays_give_torchs_values(name, fast_path_calls):
    x = minitorch.tensor(E * REPS)
    g = minitorch.tensor(G * REPS)
    out, gx, gt = _run(name, x, g)
    fwd, grad = (np.array(v * REPS, dtype=np.float32) for v in TORCH[name])
    # exp/expm1/log1p: NumPy's and torch's (Sleef) last bits may differ
    tol = 2 if name.startswith(("elu", "selu", "celu", "softplus", "silu")) else 0
    for what, actual, expected in (
        ("forward", out, fwd),
        ("grad", gx, grad),
        ("grad (Tensor)", gt, grad),
    ):
        d = _ulps(actual, expected)
        if name.startswith("softplus") and what != "forward":
            # left as it was: torch's g exp(x) / (1 + exp(x)) is subnormal below about -87,
            # minitorch's g sigmoid(x) 0 there
            d[np.abs(expected) < np.finfo(np.float32).tiny] = 0
        assert d.max() <= tol, (
            f"{name} {what}: {d.max()} ulps at {np.asarray(E * REPS)[d.argmax()]}"
        )
        # zeros' signs, infinities and NaNs exactly
        special = (expected == 0) | ~np.isfinite(expected)
        _same_bits(actual[special], expected[special], f"{name} {what}")
    if name != "silu":
        assert fast_path_calls, f"{name}: the branch-free path was not taken"


DTYPES = ["float32", "float64", "float16", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(set(CALLS) - {"silu"}))  # (silu selects nothing)
def test_branch_free_path_is_the_where_path(name, dtype, fast_path_calls):
    """The same bits on a big array (branch-free) as element by element on a small one (where),
    contiguous, transposed and strided, and for a 0-d input."""
    dt = getattr(minitorch, dtype)
    rng = np.random.default_rng(0)
    small_x = minitorch.tensor(E, dtype=dt)
    small_g = minitorch.tensor(G, dtype=dt)
    expected = _run(name, small_x, small_g)
    idx = rng.integers(0, len(E), size=(60, 50))
    big_x = minitorch.tensor(np.asarray(E)[idx], dtype=dt)
    big_g = minitorch.tensor(np.asarray(G)[idx], dtype=dt)
    for layout, bx, bg, ix in (
        ("contiguous", big_x, big_g, idx),
        ("transposed", big_x.T, big_g.T, idx.T),
        ("strided", big_x[:, ::2], big_g[:, ::2], idx[:, ::2]),
    ):
        for what, actual, want in zip(
            ("forward", "grad", "grad (Tensor)"), _run(name, bx, bg), expected, strict=True
        ):
            _same_bits(actual, want[ix], f"{name} {dtype} {layout} {what}")
    assert fast_path_calls, f"{name}: the branch-free path was not taken"
    for i in (1, 4, 8):  # 0-d: -0, NaN, -0.3
        got = _run(name, small_x[i], small_g[i])
        for what, actual, want in zip(
            ("forward", "grad", "grad (Tensor)"), got, expected, strict=True
        ):
            _same_bits(actual, want[i], f"{name} {dtype} 0-d {E[i]} {what}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_select_and_keep_are_where(dtype):
    rng = np.random.default_rng(1)
    cpu = minitorch.device("cpu")
    dt = minitorch.tensor([0.0], dtype=getattr(minitorch, dtype)).numpy().dtype
    for shape in [(), (7,), (3000,), (80, 60)]:
        a = np.asarray(rng.choice(E, size=shape)).astype(dt)
        b = np.asarray(rng.standard_normal(shape)).astype(dt)
        cond = np.asarray(rng.random(shape) < 0.5)
        for aa, bb, cc in ((a, b, cond), (a.T, b.T, cond.T)):
            _same_bits(cpu.backend.select(cc, aa, bb), np.where(cc, aa, bb), f"{dtype} {shape}")
            _same_bits(
                cpu.backend.select(cc, np.asarray(aa.dtype.type(-0.0)), bb),
                np.where(cc, aa.dtype.type(-0.0), bb),
                f"{dtype} {shape} 0-d a",
            )
            _same_bits(
                cpu.backend.keep(cc, aa), np.where(cc, aa, aa.dtype.type(0)), f"{dtype} {shape}"
            )


@pytest.mark.parametrize(
    "name",
    [
        "elu",
        "celu",
        "selu",
        "leaky_relu_neg",
        "leaky_relu",
        "softplus_b",
        "silu",
        "threshold",
        "softshrink",
        "hardtanh",
        "hardsigmoid",
    ],
)
def test_gradients_on_the_branch_free_path(name, monkeypatch):
    """float64 gradcheck and gradgradcheck with every array taking the branch-free path."""
    monkeypatch.setattr(numpy_backend, "_SELECT_MIN", 0)
    rng = np.random.default_rng(2)
    v = rng.uniform(-4, 4, 12)
    v = v[np.abs(np.abs(v) - 0.5) > 0.05]  # away from the kinks (0.3, 0.5, 2, 3)
    v = v[(np.abs(v) > 0.05) & (np.abs(v - 0.3) > 0.05) & (np.abs(np.abs(v) - 3) > 0.05)]
    v = v[np.abs(v - 2.0) > 0.05]
    x = minitorch.tensor(v, dtype=minitorch.float64, requires_grad=True)
    assert minitorch.autograd.gradcheck(CALLS[name], (x,))
    assert minitorch.autograd.gradgradcheck(CALLS[name], (x,))


def test_silu_forward_is_torchs_formula():
    # torch: x / (1 + exp(-x)); the old x * sigmoid(x) gave -1.98e-37 at -89 and was up to 4e7
    # float32 ulps from torch's in the far negative tail
    x = minitorch.tensor([-89.0, -88.5, -100.0, -1e30, -inf, 20.0, 0.5] * 400)
    expected = [-0.0, -3.249986910965444e-37, -0.0, -0.0, nan, 20.0, 0.3112296760082245]
    expected = np.array(expected * 400, np.float32)
    actual = F.silu(x).numpy()
    assert _ulps(actual, expected).max() <= 1  # exp's last bit at -88.5
    special = (expected == 0) | ~np.isfinite(expected)
    _same_bits(actual[special], expected[special], "silu")


def test_leaky_relu_complex_slope_is_refused():
    with pytest.raises(
        RuntimeError, match="value cannot be converted to type float without overflow"
    ):
        F.leaky_relu(minitorch.ones(3), 1j)


def test_threshold_integer_input_keeps_where(fast_path_calls):
    # integers: torch truncates the threshold (1.7 -> 1); where writes the value in their dtype
    x = minitorch.arange(-3000, 3000, dtype=minitorch.int64)
    out = F.threshold(x, 1.7, -5)
    expected = np.where(np.arange(-3000, 3000) <= 1, -5, np.arange(-3000, 3000))
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out.dtype == minitorch.int64
    assert not fast_path_calls
    F.threshold(x.float(), 1.7, -5)
    assert fast_path_calls
