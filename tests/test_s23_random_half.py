"""A half tensor's one-at-a-time normal_ draws (a strided tensor) round as torch's: the float64
draw to float32, then to half. Expected values were obtained from torch 2.13."""

import minitorch as mt


def test_strided_half_normal_rounds_through_float32():
    mt.manual_seed(246)
    x = mt.empty(7, 5, dtype=mt.float16).t().normal_(0.3, 2.0)
    # the float64 draw 0.45812989189070286 lies just above the midpoint of two halves; rounded
    # to float32 first it lands on the midpoint and rounds to even (torch), where a direct
    # cast rounds up to 0.458251953125
    assert x[4, 2].item() == 0.4580078125
