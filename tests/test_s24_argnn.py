"""Wrong-typed arguments of nn.functional raise torch's TypeError (messages obtained by running
torch 2.13 with the same calls)."""

import pytest

import minitorch as torch
import minitorch.nn.functional as F

X = torch.ones(2, 3, 4)

CASES = [
    (lambda: F.layer_norm(None, (4,)),
     "layer_norm(): argument 'input' (position 1) must be Tensor, not NoneType"),
    (lambda: F.layer_norm(X, (4,), None, "a"),
     "layer_norm(): argument 'bias' (position 4) must be Tensor, not str"),
    (lambda: F.layer_norm(X, (4,), eps="a"),
     "layer_norm(): argument 'eps' (position 5) must be float, not str"),
    (lambda: F.batch_norm(X, torch.zeros(3), torch.ones(3), training=None),
     "batch_norm(): argument 'training' (position 6) must be bool, not NoneType"),
    (lambda: F.instance_norm(X, use_input_stats=None),
     "instance_norm(): argument 'use_input_stats' (position 6) must be bool, not NoneType"),
    (lambda: F.group_norm(X, 1, eps="a"),
     "group_norm(): argument 'eps' (position 5) must be float, not str"),
    (lambda: F.rms_norm(X, (4,), "a"),
     "rms_norm(): argument 'weight' (position 3) must be Tensor, not str"),
    (lambda: F.kl_div(X, None),
     "kl_div(): argument 'target' (position 2) must be Tensor, not NoneType"),
    (lambda: F.kl_div(X, X, log_target=None),
     "kl_div(): argument 'log_target' must be bool, not NoneType"),
    (lambda: F.poisson_nll_loss(X, X, full=None),
     "poisson_nll_loss(): argument 'full' (position 4) must be bool, not NoneType"),
    (lambda: F.soft_margin_loss(X, None),
     "soft_margin_loss(): argument 'target' (position 2) must be Tensor, not NoneType"),
    (lambda: F.triplet_margin_loss(X, X, None),
     "triplet_margin_loss(): argument 'negative' (position 3) must be Tensor, not NoneType"),
    (lambda: F.hinge_embedding_loss(X, X, margin=torch.ones(2)),
     "hinge_embedding_loss(): argument 'margin' (position 3) must be float, not Tensor"),
    (lambda: F.dropout(None),
     "dropout(): argument 'input' (position 1) must be Tensor, not NoneType"),
    (lambda: F.dropout(X, training=None),
     "dropout(): argument 'train' (position 3) must be bool, not NoneType"),
    (lambda: F.dropout2d(X, training=1, inplace=True),
     "feature_dropout_(): argument 'train' (position 3) must be bool, not int"),
    (lambda: F.alpha_dropout(None),
     "alpha_dropout(): argument 'input' (position 1) must be Tensor, not NoneType"),
    (lambda: F.adaptive_avg_pool1d(X, None),
     "adaptive_avg_pool1d(): argument 'output_size' (position 2) must be tuple of ints, not "
     "NoneType"),
    (lambda: F.adaptive_max_pool2d(X, None), "object of type 'NoneType' has no len()"),
]  # fmt: skip


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("call, message", CASES)
def test_wrong_typed_argument_is_torchs_type_error(call, message):
    with pytest.raises(TypeError) as info:
        call()
    assert str(info.value) == message


def test_valid_calls_still_work():
    torch.manual_seed(0)
    assert F.layer_norm(X, (4,), eps=1).shape == (2, 3, 4)  # an int eps is a float to torch
    assert F.batch_norm(X, torch.zeros(3), torch.ones(3), momentum=torch.tensor(0.1)).shape == (
        2, 3, 4)  # fmt: skip
    assert F.dropout(X, 0.5).shape == (2, 3, 4)
    assert F.dropout(X, training=False) is X
    assert F.adaptive_avg_pool2d(torch.ones(1, 4, 4), (None, 2)).shape == (1, 4, 2)
