"""VonMises.sample takes torch's draws in torch's order: after manual_seed the samples and the
generator's state after them are torch's (values below from torch 2.13, CPU)."""

import math

import pytest

import minitorch

# (dtype, seed, loc, concentration, sample_shape, torch's sample, torch's rand(2, float64) after)
CASES = [
    (
        "float64",
        7,
        [0.5, -2.0, 3.0],
        [1.0, 1e-07, 10000.0],
        (4,),
        [
            [-0.7718443950963003, 0.1551056922129419, 2.989906321239986],
            [1.8860282569455613, 1.5390617751968865, 2.987803058085964],
            [1.9188625973905626, 1.6901583379224103, 3.0084540452672925],
            [-1.0980376237446903, 1.0046241049818114, 3.005228884037024],
        ],
        [0.5194947855150989, 0.6812948330354334],
    ),
    (
        "float32",
        3,
        [[1.0], [-3.0]],
        [0.01, 2.5, 100000000.0],
        (2,),
        [
            [
                [0.42265209555625916, 0.46220919489860535, 0.9999046921730042],
                [0.4219951927661896, 2.571397066116333, -2.999929904937744],
            ],
            [
                [-0.2298203557729721, 1.7974772453308105, 1.0000594854354858],
                [2.119154214859009, 2.345945358276367, -3.0001301765441895],
            ],
        ],
        [0.6273520019407548, 0.981466731085788],
    ),
    (
        "float64",
        11,
        0.25,
        1e-09,
        (5,),
        [
            0.8542342352887329,
            3.031228006102829,
            2.359728708749296,
            -1.838152208603585,
            -1.5626396399975446,
        ],
        [0.020063244109269185, 0.9504361009936294],
    ),
    (
        "float32",
        5,
        -1.5,
        300000.0,
        (3,),
        [-1.4971028566360474, -1.4992107152938843, -1.4988380670547485],
        [0.4530715028198654, 0.3581188437742612],
    ),
    (
        "float64",
        2,
        [0.0, 1.0],
        [0.3, 40.0],
        (6,),
        [
            [0.9167583878063823, 0.9757436599027933],
            [0.9661131726600649, 1.035546861721972],
            [-1.002314789593684, 0.9957446931184384],
            [-2.086912896437047, 1.2353508866110943],
            [-1.3240363028517308, 1.2271227400412155],
            [-1.1667623573077093, 1.1122022692304174],
        ],
        [0.9572513454639904, 0.3504826516787011],
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-seed{c[1]}")
def test_vonmises_sample_is_torchs(case):
    dt, seed, loc, conc, shape, expected, after = case
    dtype = getattr(minitorch, dt)
    minitorch.manual_seed(seed)
    d = minitorch.distributions.VonMises(
        minitorch.tensor(loc, dtype=dtype), minitorch.tensor(conc, dtype=dtype)
    )
    s = d.sample(shape)
    assert s.dtype == dtype
    assert s.tolist() == expected
    # as many draws as torch's: the stream continues where torch's does
    assert minitorch.rand(2, dtype=minitorch.float64).tolist() == after


def test_vonmises_sample_expanded_and_batched_agree():
    # an expanded distribution draws for every element of its batch, in order
    minitorch.manual_seed(7)
    a = minitorch.distributions.VonMises(
        minitorch.tensor([0.5, -2.0, 3.0], dtype=minitorch.float64),
        minitorch.tensor([1.0, 1e-7, 1e4], dtype=minitorch.float64),
    ).expand((4, 3))
    assert a.sample().tolist() == CASES[0][5]


def test_vonmises_empty_sample_draws_nothing():
    minitorch.manual_seed(3)
    d = minitorch.distributions.VonMises(minitorch.tensor([0.0, 1.0]), minitorch.tensor([1.0, 2.0]))
    assert tuple(d.sample((0,)).shape) == (0, 2)
    # torch runs no round for an empty sample: the next sample is the first one after the seed
    assert d.sample().tolist() == [0.05210084095597267, 1.3361278772354126]


def test_vonmises_sample_law():
    # the mean resultant length E cos(x - loc) is I1(k) / I0(k) = 1 - variance; torch's first
    # samples and its mean resultant (0.2403070429287759, 0.9900502489292877) for this seed
    minitorch.manual_seed(0)
    firsts = {
        0.5: [1.7147707684023548, -2.21868244204477, 1.1936679923587121],
        50.0: [0.973398142222142, 1.0221687732001001, 0.7896818732802209],
    }
    for k, first in firsts.items():
        d = minitorch.distributions.VonMises(
            minitorch.tensor(1.0, dtype=minitorch.float64),
            minitorch.tensor(k, dtype=minitorch.float64),
        )
        x = d.sample((20000,))
        assert x[:3].tolist() == first
        assert float(x.min()) >= -math.pi and float(x.max()) < math.pi
        assert abs(float((x - 1.0).cos().mean()) - (1 - float(d.variance))) < 0.01
