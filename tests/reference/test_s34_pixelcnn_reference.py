"""Session 34 (helper pixelcnn): autoregressive image-model programs written the way such code
is written in torch (PixelCNN, Gated PixelCNN, PixelCNN++, MADE/MAF, WaveNet), run under torch
and minitorch with the same seeds and compared record by record: type A/B masks built by
slicing; masked convolutions with the mask as a buffer (weight.data *= mask in forward, weight *
mask with a gradient hook, a forward pre-hook, parametrize, prune.custom_from_mask, boolean-index
zeroing) and their causality checked through autograd.grad and torch.func jacobians; gated
tanh * sigmoid activations by chunk with class-conditional embeddings; Gated PixelCNN's vertical
and horizontal stacks (asymmetric kernels, crop by slicing); PixelCNN++'s weight-normed
down-shifted / down-right-shifted convs and deconvs, concat_elu, nin layers and its discretized
logistic mixture likelihood (log_softmax, softplus, sigmoid differences, edge cases by float
masks and by where, logsumexp) with gradients at the edges; F.pad / ZeroPad2d with negative and
asymmetric padding; MADE connectivity masks from randperm/randint with generators, masked
Linear, order-agnostic ensembles, MAF's sequential inverse; pixel-by-pixel sampling loops
(multinomial with generators, Categorical, gumbel-max over mixtures, inverse-CDF, inference
mode), bits per dim, 256-way softmax losses; training steps (Adam, RMSprop, SGD, clip_grad_norm_,
schedulers), state_dict round trips and reprs; and the errors and warnings users hit (mask shape
mismatch in multiply, conv weight/input channel mismatch, Categorical with invalid logits or
probs, multinomial's argument checks, implicit-dim softmax). float64 must agree to 1e-10 of
each record's scale, float32 to 1e-4; texts exactly.

Found and fixed:
- torch.randperm(3, 4) (a second positional argument) raised Python's "randperm() takes 1
  positional argument but 2 were given"; now torch's parser TypeError "randperm() received an
  invalid combination of arguments - got (int, int), ..." listing both overloads (keywords
  given are named, as with a generator that is no Generator).
- x.multinomial(2.5) named num_samples "(position 2)"; torch counts a method's arguments without
  self: "(position 1)" (torch.multinomial(x, 2.5) stays "(position 2)").

Known and left (documented):
- torch.multinomial(x) / x.multinomial() without num_samples: torch's parser says 'multinomial()
  missing 1 required positional arguments: "num_samples"', minitorch Python's own message (the
  signature would need a sentinel default). Not recorded.
- torch.Generator('cpu', 3): torch's "Generator() takes from 0 to 1 positional arguments but 2
  were given"; minitorch Python's "Generator.__init__() takes from 1 to 2 ...". Not recorded.
- An in-place op on an inference tensor outside inference mode: torch writes the data and then
  raises; minitorch raises before the write (check_inference_write, by design). The programs
  record the tensor only before the refused write.
- nn.Conv2d(..., padding_mode='zero'): torch's message prints a Python set of the valid modes,
  whose order changes with PYTHONHASHSEED; not recorded.
- weight_norm / parametrizations.weight_norm on a float32 module later moved to float64 keeps
  float32's rounding of the norm g, which differs by an ulp between the libraries' reductions;
  the programs build such modules in the dtype they run in.
- The records run on the CPU only; the strict test device and CuPy are not exercised here."""

from __future__ import annotations

import importlib
import io
import math

import pytest

from tests.reference._one_thread import one_torch_thread  # noqa: F401 - an autouse fixture
from tests.reference._programs import (
    assert_calls_match,
    assert_program_matches,
    run_calls,
    seeded_gen,
)
from tests.reference._programs import seeded_randn as _randn

torch = pytest.importorskip("torch")


PROGRAMS = [
    "masks", "masked_conv_buffer", "masked_conv_hook", "gated_block", "shift_stacks",
    "pixelcnn_train", "dlogistic_loss", "dlogistic_edges", "made_masks", "made_train",
    "sample_loop", "sample_dlogistic", "bits_per_dim", "errors", "categorical_errors",
    "state_dict", "gated_stack_train", "made_orders", "pad_negative", "softmax_loss",
    "pixelcnnpp", "weight_norm", "parametrize", "errors_more", "gumbel_misc", "prune", "repr",
    "implicit_dim", "sampling_utils", "edge_grads", "func_jacobians",
    "init_hooks_save", "warnings", "conditional_dists",
    "inference_sampling", "wavenet",
]  # fmt: skip


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name, dt):
    assert_program_matches(globals()["p_" + name], torch, dt)


# the argument errors users hit building and sampling these models, as source texts
CALLS = [
    "nn.Conv2d(3, 4, 0)",
    "nn.Conv2d(3, 4, 3, stride=0)",
    "nn.Conv2d(3, 4, 3, groups=2)",
    "nn.Conv2d(3, 4, 3, padding='same', stride=2)",
    "nn.Conv2d(3, 4, 3, padding='valid2')",
    "nn.Conv2d(3, 4, (2, 3, 1))",
    "nn.Conv2d(3.0, 4, 3)",
    "nn.Conv2d(0, 4, 3)",
    "nn.Conv2d(3, 4, -1)",
    "nn.Conv2d(3, 4, 3, padding=-1)",
    "nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=2)",
    "nn.ConvTranspose2d(3, 4, 3, padding='same')",
    "nn.ConvTranspose2d(3, 4, 3, stride=2, output_padding=1)(torch.ones(1, 3, 2, 2))",
    "nn.ConvTranspose2d(3, 4, 3, stride=1, output_padding=1)(torch.ones(1, 3, 2, 2))",
    "nn.ZeroPad2d((1, 2, 3))",
    "nn.ZeroPad2d('a')",
    "nn.ZeroPad2d(1)(torch.ones(3))",
    "F.pad(torch.ones(2, 2), [1.5, 1])",
    "F.pad(torch.ones(2, 2), (1,), value='a')",
    "F.pad(torch.ones(2, 2), 1)",
    "F.pad(torch.ones(2, 2), (1, 1), mode='circular')",
    "F.pad(torch.ones(1, 2, 2), (3, 3), mode='circular')",
    "F.pad(torch.ones(1, 2, 2), (1, 1), mode='replicate', value=1.0)",
    "torch.multinomial(torch.ones(3), 2, True, generator=None, out=torch.ones(2))",
    "torch.multinomial(torch.ones(3), num_samples=2, replacement=1)",
    "torch.multinomial([0.5, 0.5], 1)",
    "torch.multinomial(torch.ones(3), torch.tensor(2))",
    "torch.multinomial(torch.ones(3, dtype=torch.float16), 2)",
    "torch.multinomial(torch.ones(2**24 + 1), 1)",
    "torch.randperm(3, generator=torch.Generator(), dtype=torch.int8)",
    "torch.randperm(300, dtype=torch.int8)",
    "torch.randperm(torch.tensor(3))",
    "torch.randperm(3, 4)",
    "torch.distributions.Categorical(logits=torch.zeros(3), probs=None, validate_args=1)",
    "torch.distributions.Categorical(torch.zeros(0))",
    "torch.distributions.Categorical(logits=torch.zeros(2, 0))",
    "torch.distributions.Categorical(probs=torch.tensor([[0.2, 0.8], [0.0, 0.0]]))",
    "torch.distributions.Categorical(logits=torch.tensor([1, 2]))",
    "torch.distributions.Categorical(logits=torch.tensor([True, False]))",
    "torch.distributions.Categorical(logits=torch.zeros(3)).log_prob(torch.tensor([[0, 1], [2]]))",
    "torch.distributions.Categorical(logits=torch.zeros(2, 3)).log_prob(torch.tensor([0, 1, 2]))",
    "torch.distributions.Categorical(logits=torch.zeros(3)).sample(torch.Size([2.0]))",
    "torch.chunk(torch.ones(3), 2, dim=1)",
    "torch.ones(4).chunk(2.0)",
    "torch.logsumexp(torch.ones(3), dim=())",
    "torch.logsumexp(torch.ones(3))",
    "torch.logsumexp(torch.ones(3), dim=2)",
    "torch.logsumexp(torch.ones(3, dtype=torch.bool), 0)",
    "F.softplus(torch.ones(3), beta=0)",
    "F.softplus(torch.ones(3), beta='a')",
    "F.softplus(torch.ones(3), 2, 20, 5)",
    "F.one_hot(torch.tensor([1.0]), 3)",
    "F.one_hot(torch.tensor([1, 2]), 0)",
    "F.one_hot(torch.tensor([1, 2]), -2)",
    "F.one_hot(torch.tensor([], dtype=torch.long))",
    "F.one_hot(torch.tensor([], dtype=torch.long), 3)",
    "torch.tril(torch.ones(3))",
    "torch.ones(2, 2).tril(1.5)",
    "torch.where(torch.ones(2, dtype=torch.bool), torch.ones(3), torch.zeros(2))",
    "torch.where(torch.tensor([1, 0]), 1.0, 0.0)",
    "torch.clamp(torch.ones(2), min=1, max=0)",
    "torch.clamp(torch.ones(2, dtype=torch.long), min=0.5)",
    "torch.sigmoid(torch.tensor([1, 2]))",
    "torch.tanh(torch.tensor([True]))",
    "nn.Linear(3, 2)(torch.ones(2, 4))",
    "F.linear(torch.ones(2, 3), torch.ones(2, 3).bool())",
    "F.linear(torch.ones(2, 3), torch.ones(2, 3), torch.ones(3))",
    "nn.Embedding(3, 2)(torch.tensor([[3]]))",
    "nn.Embedding(3, 2, padding_idx=3)",
    "torch.ones(2, 3) * torch.ones(3, 2)",
    "torch.ones(2, 3).mul_(torch.ones(2, 1, 3))",
    "torch.ones(4, 3, 5, 5).register_hook(lambda g: g)",
    "torch.multinomial(torch.ones(3), 2, 3)",
    "torch.multinomial(torch.ones(3), 2, True, 4)",
    "torch.multinomial(torch.ones(3), 2, foo=1)",
    "torch.multinomial(torch.ones(3), 2, generator=torch.Generator(), replacement='a')",
    "torch.ones(3).multinomial(2, 3)",
    "torch.ones(3).multinomial(2.5)",
    "torch.ones(3, dtype=torch.long).multinomial(2)",
    "torch.ones(2, 0).multinomial(1)",
    "torch.zeros(2, 3).multinomial(0)",
    "torch.ones(0, 3).multinomial(2)",
    "torch.randint(5, (2,), generator=3)",
    "torch.randint(5)",
    "torch.randint(0, 5, (2,), 3)",
    "torch.randint(0, 5.5, (2,))",
    "torch.randint(-1, 5, (2,), dtype=torch.uint8)",
    "torch.randint(0, 5, size=2)",
    "torch.randint(0, 5, (2.0,))",
    "torch.rand(2, 3, dtype=torch.long)",
    "torch.randn(2, generator=torch.Generator(device='meta'))",
    "torch.Generator().manual_seed(-1)",
    "torch.Generator().manual_seed(2**64)",
    "torch.Generator().manual_seed('a')",
    "torch.Generator().manual_seed(1.5)",
    "torch.manual_seed(2**64)",
    "torch.manual_seed(-2**63 - 1)",
    "torch.Generator(device='foo')",
    "nn.Module().register_buffer('mask', torch.ones(2), True, 1)",
    "nn.Module().register_buffer(1, torch.ones(2))",
    "nn.Module().register_buffer('a', nn.Parameter(torch.ones(2))).__class__",
    "nn.Module().register_buffer('training', torch.ones(2))",
    "nn.Conv2d(1, 1, 3).register_buffer('bias', torch.ones(1))",
    "nn.Conv2d(1, 1, 3).register_parameter('mask', torch.ones(1))",
    "nn.Conv2d(1, 1, 3)(torch.ones(1, 1, 3))",
    "nn.Conv2d(1, 1, 3)(torch.ones(1, 1, 1, 3, 3))",
    "nn.Conv2d(1, 1, 3)(torch.ones(1, 3, 3))",
    "nn.Conv2d(1, 1, 3)(torch.ones(2, 2))",
    "nn.Conv2d(1, 1, 3)(torch.ones(1, 1, 3, 3, dtype=torch.float64))",
    "nn.Conv2d(1, 1, 3)(torch.ones(1, 1, 3, 3, dtype=torch.long))",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 3, 3), padding=(1, 1, 1))",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 3, 3), stride=0)",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 3, 3), dilation=0)",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 3, 3), padding='half')",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 3, 3), padding=1.5)",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 3, 3).bool())",
    "F.conv2d(torch.ones(1, 1, 3, 3), torch.ones(1, 1, 3, 3), bias=torch.ones(1, 1))",
    "F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(3, 1, 3, 3))",
    "F.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 1, 3, 3), output_padding=1)",
    "F.elu(torch.ones(2), alpha='a')",
    "F.elu(torch.tensor([1, 2]))",
    "F.elu(torch.ones(2), inplace=1)",
    "torch.cat([torch.ones(2, 3), -torch.ones(2, 2)], 0)",
    "torch.cat([torch.ones(2, 3), torch.ones(2, 3)], 2)",
    "torch.cat([torch.ones(2, 3), torch.ones(3)], 0)",
    "torch.cat([], 0)",
    "torch.cat(torch.ones(2), 0)",
    "torch.ones(2, 3).chunk(2, dim=-3)",
    "torch.ones(2, 3).split([1, 1], 1)",
    "torch.ones(2, 3).split(0, 1)",
    "torch.ones(2, 3).view(4, -1)",
    "torch.ones(2, 3).t().view(-1)",
    "torch.ones(2, 3).permute(0, 2)",
    "torch.ones(2, 3).permute(0, 0)",
    "F.log_softmax(torch.ones(2, 3), dim=2)",
    "F.log_softmax(torch.ones(2, 3), 1, dtype=torch.long)",
    "F.softmax(torch.ones(2, 3), dim=(0, 1))",
    "F.cross_entropy(torch.ones(2, 3, 4), torch.zeros(2, 4).long(), ignore_index=1.5)",
    "F.cross_entropy(torch.ones(2, 3, 4), torch.zeros(2, 5).long())",
    "F.cross_entropy(torch.ones(2, 3, 4), torch.zeros(2, 4))",
    "F.cross_entropy(torch.ones(2, 3, 4), torch.zeros(2, 4).int())",
    "F.cross_entropy(torch.ones(2, 3), torch.zeros(2, 3))",
    "F.cross_entropy(torch.ones(2, 3), torch.zeros(2, 4))",
    "F.cross_entropy(torch.ones(2, 3), torch.zeros(2).long(), weight=torch.ones(2))",
    "F.nll_loss(torch.ones(2, 3, 4, 5, 6), torch.zeros(2, 4, 5, 6).long())",
    "F.nll_loss(torch.ones(2, 3, 4, 5, 6), torch.zeros(2, 4, 5, 7).long())",
    "F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2), pos_weight=torch.ones(3))",
    "F.binary_cross_entropy_with_logits(torch.ones(2), torch.ones(2).long())",
    "torch.distributions.Bernoulli(logits=torch.ones(2)).log_prob(torch.ones(2).long())",
    "torch.distributions.Categorical(logits=torch.ones(2)).log_prob(torch.tensor(1.0))",
    "torch.distributions.Categorical(logits=torch.ones(2)).log_prob(1)",
    "torch.distributions.Categorical(logits=torch.ones(2)).log_prob(torch.tensor([True]))",
    "torch.distributions.Categorical(logits=torch.ones(2)).sample(2)",
    "torch.distributions.Categorical(logits=torch.ones(2)).sample((2.0,))",
    "torch.distributions.Categorical(logits=torch.ones(2), validate_args='yes').logits",
    "torch.distributions.Categorical(logits=[1.0, 2.0])",
    "torch.distributions.Categorical(logits=1.0)",
    "torch.ones(2, device='meta') * torch.ones(2)",
    "(torch.ones(2, device='meta') * 2).shape",
    "nn.Conv2d(1, 1, 3).mask",
    "nn.Conv2d(1, 1, 3).weight.register_hook(1)",
    "nn.Conv2d(1, 1, 3).weight.data.register_hook(lambda g: g)",
    "torch.ones(2).register_hook(lambda g: g)",
    "nn.Conv2d(1, 1, 3).load_state_dict({'weight': torch.ones(1, 1, 3, 3)})",
    "nn.Conv2d(1, 1, 3).load_state_dict({'weight': torch.ones(1, 1, 3, 3), 'bias': torch.ones(1),"
    " 'mask': torch.ones(1)})",
    "nn.Conv2d(1, 1, 3).load_state_dict({'weight': torch.ones(1, 1, 2, 3), 'bias': torch.ones(1)})",
    "nn.Conv2d(1, 1, 3).load_state_dict([1])",
    "nn.Conv2d(1, 1, 3).get_buffer('mask')",
    "nn.Conv2d(1, 1, 3).get_parameter('mask')",
    "nn.Conv2d(1, 1, 3).get_submodule('a')",
    "nn.Sequential(nn.Conv2d(1, 1, 3))[1]",
    "nn.ModuleList([nn.ReLU()])[2]",
    "nn.Sequential(nn.Conv2d(1, 1, 3)).append(1)",
    "nn.ModuleList([1])",
    "torch.nn.utils.weight_norm(nn.Conv2d(1, 1, 3), name='mask')",
    "torch.nn.utils.weight_norm(torch.nn.utils.weight_norm(nn.Conv2d(1, 1, 3)))",
    "torch.nn.utils.remove_weight_norm(nn.Conv2d(1, 1, 3))",
    "torch.nn.utils.parametrizations.weight_norm(nn.Conv2d(1, 1, 3), name='mask')",
    "torch.nn.utils.clip_grad_norm_([], 1.0)",
    "torch.nn.utils.clip_grad_norm_(nn.Conv2d(1, 1, 3).parameters(), 1.0, norm_type='fro')",
    "nn.Embedding(3, 2)(torch.tensor([1.5]))",
    "nn.Embedding(3, 2)(torch.tensor([-4]))",
    "nn.Embedding(0, 2)",
    "F.gumbel_softmax(torch.ones(3), tau=0.5, dim=2)",
    "torch.distributions.RelaxedOneHotCategorical(0.5, logits=torch.ones(3)).temperature",
    "torch.distributions.RelaxedOneHotCategorical(logits=torch.ones(3))",
    "torch.distributions.Independent(torch.distributions.Bernoulli(logits=torch.ones(3)), 2)",
    "D.MixtureSameFamily(D.Categorical(logits=torch.ones(2)), D.Normal(torch.ones(3), 1.0))",
    "D.MixtureSameFamily(torch.ones(2), D.Normal(torch.ones(2), 1.0))",
    "torch.distributions.Binomial(2.5, probs=torch.ones(2) / 2).sample()",
    "torch.ones(2, 3).unfold(2, 2, 1)",
    "torch.ones(2, 3).unfold(1, 4, 1)",
    "torch.ones(2, 3).unfold(1, 2, 0)",
    "nn.PixelShuffle(2)(torch.ones(1, 3, 2, 2))",
    "nn.PixelUnshuffle(2)(torch.ones(1, 1, 3, 2))",
    "torch.searchsorted(torch.tensor([3.0, 1.0]), torch.tensor(2), right=True, side='left')",
    "torch.searchsorted(torch.ones(2, 3), torch.ones(3, 1))",
]


def _calls(lib, rec):
    env = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional, "D": lib.distributions}
    run_calls(CALLS, env, rec)


def test_argument_errors_match_torch():
    assert_calls_match(_calls, torch)


# --- helpers: the modules users write, built for either library ---


def _conv_mask(lib, dt, mask_type, c_out, c_in, k):
    """The PixelCNN mask (c_out, c_in, k, k): rows above the centre and the centre row left of
    the centre; type B also keeps the centre."""
    mask = lib.ones(c_out, c_in, k, k, dtype=dt)
    mask[:, :, k // 2, k // 2 + (mask_type == "B") :] = 0
    mask[:, :, k // 2 + 1 :] = 0
    return mask


def _masked_conv_cls(lib):
    nn = lib.nn

    class MaskedConv2d(nn.Conv2d):
        def __init__(self, mask_type, *args, **kwargs):
            super().__init__(*args, **kwargs)
            assert mask_type in ("A", "B")
            self.register_buffer("mask", self.weight.data.clone())
            _, _, kh, kw = self.weight.size()
            self.mask.fill_(1)
            self.mask[:, :, kh // 2, kw // 2 + (mask_type == "B") :] = 0
            self.mask[:, :, kh // 2 + 1 :] = 0

        def forward(self, x):
            self.weight.data *= self.mask
            return super().forward(x)

    return MaskedConv2d


def _pixelcnn(lib, dt, seed, c=1, hidden=8, levels=4, layers=2):
    nn = lib.nn
    MaskedConv2d = _masked_conv_cls(lib)
    lib.manual_seed(seed)
    mods = [MaskedConv2d("A", c, hidden, 5, padding=2, bias=False), nn.BatchNorm2d(hidden),
            nn.ReLU(True)]  # fmt: skip
    for _ in range(layers):
        mods += [MaskedConv2d("B", hidden, hidden, 3, padding=1, bias=False),
                 nn.BatchNorm2d(hidden), nn.ReLU(True)]  # fmt: skip
    mods.append(nn.Conv2d(hidden, c * levels, 1))
    return nn.Sequential(*mods).to(dt)


def _discretized_mix_logistic_loss(lib, x, params_l):
    """PixelCNN++'s loss for a one-channel image x in [-1, 1] (B, 1, H, W) and parameters l
    (B, 3 * nmix, H, W), following openai/pixel-cnn's and its torch ports' code."""
    F = lib.nn.functional
    x = x.permute(0, 2, 3, 1)
    params_l = params_l.permute(0, 2, 3, 1)
    nmix = params_l.shape[-1] // 3
    logit_probs = params_l[:, :, :, :nmix]
    params_l = params_l[:, :, :, nmix:].contiguous().view(*x.shape[:3], 2 * nmix)
    means = params_l[:, :, :, :nmix]
    log_scales = lib.clamp(params_l[:, :, :, nmix:], min=-7.0)
    x = x.contiguous().expand(*x.shape[:3], nmix)
    centered_x = x - means
    inv_stdv = lib.exp(-log_scales)
    plus_in = inv_stdv * (centered_x + 1.0 / 255.0)
    cdf_plus = lib.sigmoid(plus_in)
    min_in = inv_stdv * (centered_x - 1.0 / 255.0)
    cdf_min = lib.sigmoid(min_in)
    log_cdf_plus = plus_in - F.softplus(plus_in)
    log_one_minus_cdf_min = -F.softplus(min_in)
    cdf_delta = cdf_plus - cdf_min
    mid_in = inv_stdv * centered_x
    log_pdf_mid = mid_in - log_scales - 2.0 * F.softplus(mid_in)
    inner_inner_cond = (cdf_delta > 1e-5).to(x.dtype)
    inner_inner_out = inner_inner_cond * lib.log(lib.clamp(cdf_delta, min=1e-12)) + (
        1.0 - inner_inner_cond
    ) * (log_pdf_mid - math.log(127.5))
    inner_cond = (x > 0.999).to(x.dtype)
    inner_out = inner_cond * log_one_minus_cdf_min + (1.0 - inner_cond) * inner_inner_out
    cond = (x < -0.999).to(x.dtype)
    log_probs = cond * log_cdf_plus + (1.0 - cond) * inner_out
    log_probs = log_probs + F.log_softmax(logit_probs, dim=-1)
    return -lib.logsumexp(log_probs, dim=-1).sum()


def _dlogistic_where(lib, x, means, log_scales, logit_probs):
    """The same likelihood written with torch.where (the newer ports)."""
    F = lib.nn.functional
    centered = x.unsqueeze(-1) - means
    inv = lib.exp(-log_scales)
    plus_in = inv * (centered + 1.0 / 255.0)
    min_in = inv * (centered - 1.0 / 255.0)
    cdf_delta = lib.sigmoid(plus_in) - lib.sigmoid(min_in)
    log_cdf_plus = plus_in - F.softplus(plus_in)
    log_1m_cdf_min = -F.softplus(min_in)
    mid_in = inv * centered
    log_pdf_mid = mid_in - log_scales - 2.0 * F.softplus(mid_in)
    xe = x.unsqueeze(-1).expand_as(means)
    log_probs = lib.where(
        xe < -0.999,
        log_cdf_plus,
        lib.where(
            xe > 0.999,
            log_1m_cdf_min,
            lib.where(
                cdf_delta > 1e-5,
                lib.log(lib.clamp(cdf_delta, min=1e-12)),
                log_pdf_mid - math.log(127.5),
            ),
        ),
    )
    return lib.logsumexp(log_probs + lib.log_softmax(logit_probs, dim=-1), dim=-1)


class _Made:
    """MADE's masks and network, built for either library."""

    @staticmethod
    def masks(lib, nin, hidden, nout, seed, natural=True):
        g = seeded_gen(lib, seed)
        m = {}
        m[-1] = lib.arange(nin) if natural else lib.randperm(nin, generator=g)
        for i, h in enumerate(hidden):
            low = int(m[i - 1].min())
            m[i] = lib.randint(low, nin - 1, (h,), generator=g)
        masks = [m[i - 1][:, None] <= m[i][None, :] for i in range(len(hidden))]
        masks.append(m[len(hidden) - 1][:, None] < m[-1][None, :])
        if nout > nin:
            k = nout // nin
            masks[-1] = masks[-1].repeat(1, k)
        return masks, m[-1]

    @staticmethod
    def net(lib, dt, nin, hidden, nout, seed, natural=True):
        nn = lib.nn

        class MaskedLinear(nn.Linear):
            def __init__(self, i, o, bias=True):
                super().__init__(i, o, bias)
                self.register_buffer("mask", lib.ones(o, i))

            def set_mask(self, mask):
                self.mask.data.copy_(mask.to(lib.uint8).T)

            def forward(self, x):
                return lib.nn.functional.linear(x, self.mask * self.weight, self.bias)

        lib.manual_seed(seed)
        sizes = [nin, *hidden, nout]
        layers = []
        for a, b in zip(sizes, sizes[1:], strict=False):
            layers += [MaskedLinear(a, b), nn.ReLU()]
        layers.pop()
        net = nn.Sequential(*layers).to(dt)
        masks, order = _Made.masks(lib, nin, hidden, nout, seed + 1, natural)
        mls = [lay for lay in net.modules() if isinstance(lay, MaskedLinear)]
        for lay, mk in zip(mls, masks, strict=True):
            lay.set_mask(mk)
        return net, order


# --- the programs: each takes the library, a dtype and a recorder ---


def p_masks(lib, dt, rec):
    for t in ("A", "B"):
        for k in (3, 5, 7):
            rec(f"{t}{k}", _conv_mask(lib, dt, t, 2, 3, k))
    # a mask built with tril/triu and slicing, as Gated PixelCNN's vertical stack does
    k = 5
    v = lib.zeros(k, k, dtype=dt)
    v[: k // 2 + 1] = 1
    rec("vmask", v)
    h = lib.zeros(1, k, dtype=dt)
    h[0, : k // 2 + 1] = 1
    rec("hmask", h)
    rec("tril", lib.ones(4, 4, dtype=dt).tril(-1))
    m = lib.ones(3, 3, dtype=dt)
    m[1, 1:] = 0
    m[2:] = 0
    rec("mask_bool", m.bool())
    rec("nonzero", m.nonzero())
    rec("count", m.sum())


def p_masked_conv_buffer(lib, dt, rec):
    MaskedConv2d = _masked_conv_cls(lib)
    lib.manual_seed(0)
    conv = MaskedConv2d("A", 2, 4, 5, padding=2).to(dt)
    rec("buffers", str([n for n, _ in conv.named_buffers()]))
    rec("mask", conv.mask)
    x = _randn(lib, dt, 1, 2, 2, 6, 6).requires_grad_(True)
    out = conv(x)
    rec("out", out)
    # causality: the output at (i, j) does not depend on the input at (i, j) or after
    g = lib.autograd.grad(out[:, :, 3, 2].sum(), x, retain_graph=True)[0]
    rec("grad_causal", g)
    rec("dep_after", g[:, :, 3, 2:].abs().sum() + g[:, :, 4:].abs().sum())
    conv2 = MaskedConv2d("B", 4, 4, 3, padding=1).to(dt)
    y = conv2(out)
    y.pow(2).mean().backward()
    rec("y", y)
    rec("w_grad", conv.weight.grad)
    rec("w2_grad", conv2.weight.grad)
    rec("masked_grad_zero", (conv.weight.grad * (1 - conv.mask)).abs().sum())
    rec("mask_req", conv.mask.requires_grad)
    rec("mask_dtype", str(conv.mask.dtype))


def p_masked_conv_hook(lib, dt, rec):
    """weight * mask in forward (differentiable), and a gradient hook zeroing the masked taps."""
    nn, F = lib.nn, lib.nn.functional

    class MaskedConv(nn.Conv2d):
        def __init__(self, mask_type, cin, cout, k):
            super().__init__(cin, cout, k, padding=k // 2)
            self.register_buffer("mask", _conv_mask(lib, lib.get_default_dtype(), mask_type,
                                                    cout, cin, k))  # fmt: skip
            self.weight.register_hook(lambda g: g * self.mask)

        def forward(self, x):
            return F.conv2d(x, self.weight * self.mask, self.bias, padding=self.padding)

    lib.manual_seed(1)
    m = MaskedConv("A", 3, 6, 3).to(dt)
    x = _randn(lib, dt, 2, 2, 3, 5, 5)
    out = m(x)
    loss = out.tanh().sum()
    loss.backward()
    rec("out", out)
    rec("wg", m.weight.grad)
    rec("bg", m.bias.grad)
    rec("mask", m.mask)
    m.zero_grad()
    rec("grad_none", str(m.weight.grad))
    opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        F.mse_loss(m(x), lib.zeros_like(out)).backward()
        opt.step()
    rec("w_after", m.weight)
    rec("w_masked", m.weight * (1 - m.mask))


def p_gated_block(lib, dt, rec):
    """Gated activation: tanh(a) * sigmoid(b) via chunk, with a class-conditional bias."""
    nn, F = lib.nn, lib.nn.functional

    class GatedActivation(nn.Module):
        def forward(self, x):
            a, b = x.chunk(2, dim=1)
            return F.tanh(a) * F.sigmoid(b)

    lib.manual_seed(2)
    conv = nn.Conv2d(4, 8, 3, padding=1).to(dt)
    emb = nn.Embedding(3, 8).to(dt)
    gate = GatedActivation()
    x = _randn(lib, dt, 3, 2, 4, 5, 5).requires_grad_(True)
    y = lib.tensor([0, 2])
    h = conv(x) + emb(y)[:, :, None, None]
    out = gate(h)
    rec("out", out)
    out.sum().backward()
    rec("gx", x.grad)
    rec("gemb", emb.weight.grad)
    rec("gconv", conv.weight.grad)
    a, b = h.detach().split(4, 1)
    rec("same", gate(h.detach()) - a.tanh() * lib.sigmoid(b))
    # chunk of an odd count
    rec("chunks", str([tuple(c.shape) for c in lib.arange(7).chunk(2)]))
    rec("glu", F.glu(h, dim=1))


def _gated_layer_cls(lib):
    nn = lib.nn

    class GatedMaskedConv2d(nn.Module):
        """van den Oord et al.'s gated layer with vertical and horizontal stacks (the
        ritheshkumar95/pytorch-vqvae version)."""

        def __init__(self, mask_type, dim, kernel, residual=True, n_classes=3):
            super().__init__()
            self.mask_type = mask_type
            self.residual = residual
            self.class_cond_embedding = nn.Embedding(n_classes, 2 * dim)
            kernel_shp = (kernel // 2 + 1, kernel)
            padding_shp = (kernel // 2, kernel // 2)
            self.vert_stack = nn.Conv2d(dim, dim * 2, kernel_shp, 1, padding_shp)
            self.vert_to_horiz = nn.Conv2d(2 * dim, 2 * dim, 1)
            kernel_shp = (1, kernel // 2 + 1)
            padding_shp = (0, kernel // 2)
            self.horiz_stack = nn.Conv2d(dim, dim * 2, kernel_shp, 1, padding_shp)
            self.horiz_resid = nn.Conv2d(dim, dim, 1)

        def make_causal(self):
            self.vert_stack.weight.data[:, :, -1].zero_()
            self.horiz_stack.weight.data[:, :, :, -1].zero_()

        def gate(self, x):
            a, b = x.chunk(2, dim=1)
            return a.tanh() * b.sigmoid()

        def forward(self, x_v, x_h, h):
            if self.mask_type == "A":
                self.make_causal()
            h = self.class_cond_embedding(h)
            h_vert = self.vert_stack(x_v)
            h_vert = h_vert[:, :, : x_v.size(-1), :]
            out_v = self.gate(h_vert + h[:, :, None, None])
            h_horiz = self.horiz_stack(x_h)
            h_horiz = h_horiz[:, :, :, : x_h.size(-2)]
            v2h = self.vert_to_horiz(h_vert)
            out = self.gate(v2h + h_horiz + h[:, :, None, None])
            out_h = self.horiz_resid(out) + x_h if self.residual else self.horiz_resid(out)
            return out_v, out_h

    return GatedMaskedConv2d


def _gated_pixelcnn(lib, dt, seed, dim=6, levels=4, n_layers=3):
    nn = lib.nn
    Gated = _gated_layer_cls(lib)

    class GatedPixelCNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(levels, dim)
            self.layers = nn.ModuleList()
            for i in range(n_layers):
                mask_type = "A" if i == 0 else "B"
                kernel = 7 if i == 0 else 3
                self.layers.append(Gated(mask_type, dim, kernel, residual=i != 0))
            self.output_conv = nn.Sequential(nn.Conv2d(dim, 16, 1), nn.ReLU(True),
                                             nn.Conv2d(16, levels, 1))  # fmt: skip

        def forward(self, x, label):
            shp = (*x.size(), -1)
            x = self.embedding(x.view(-1)).view(shp)
            x = x.permute(0, 3, 1, 2)
            x_v, x_h = (x, x)
            for layer in self.layers:
                x_v, x_h = layer(x_v, x_h, label)
            return self.output_conv(x_h)

    lib.manual_seed(seed)
    return GatedPixelCNN().to(dt)


def p_shift_stacks(lib, dt, rec):
    """Shifts by F.pad with asymmetric and negative padding, and by slicing."""
    F = lib.nn.functional
    x = _randn(lib, dt, 4, 2, 3, 5, 6).requires_grad_(True)
    down = F.pad(x, (0, 0, 1, -1))  # shift down one row, drop the last
    right = F.pad(x, (1, -1, 0, 0))
    rec("down", down)
    rec("right", right)
    rec("down_slice", down - lib.cat([lib.zeros_like(x[:, :, :1]), x[:, :, :-1]], 2))
    # PixelCNN++'s down_shift / right_shift with ZeroPad2d
    down_pad = lib.nn.ZeroPad2d((0, 0, 1, 0))
    right_pad = lib.nn.ZeroPad2d((1, 0, 0, 0))
    rec("ds", down_pad(x[:, :, :-1, :]))
    rec("rs", right_pad(x[:, :, :, :-1]))
    # down-shifted conv and down-right-shifted conv (PixelCNN++)
    lib.manual_seed(3)
    conv = lib.nn.Conv2d(3, 4, (2, 3)).to(dt)
    convr = lib.nn.Conv2d(3, 4, (2, 2)).to(dt)
    h = conv(F.pad(x, (1, 1, 1, 0)))
    hr = convr(F.pad(x, (1, 0, 1, 0)))
    rec("h", h)
    rec("hr", hr)
    (h.sum() + (hr * hr).sum() + down.pow(3).sum() + right.sum()).backward()
    rec("gx", x.grad)
    rec("crop", F.pad(x, (-1, -2, -1, 0)).detach())
    rec("constant", F.pad(x.detach(), (2, 1, 0, 1), value=-1.5))


def p_pad_negative(lib, dt, rec):
    F = lib.nn.functional
    x = _randn(lib, dt, 5, 1, 2, 4, 4)
    rec("both", F.pad(x, (-1, 2, 2, -3)))
    rec("all_neg", F.pad(x, (-1, -1, -1, -1)))
    rec("3d", F.pad(x[0], (0, -2)))
    rec("reflect", F.pad(x, (1, 0, 1, 0), mode="reflect"))
    rec("replicate", F.pad(x, (0, 2, 2, 0), mode="replicate"))
    rec.err("too_neg", lambda: F.pad(x, (-3, -2)))
    rec.err("odd", lambda: F.pad(x, (1, 2, 3)))
    rec.err("too_long", lambda: F.pad(x[0, 0], (1, 1, 1, 1, 1, 1)))
    rec("empty_ok", str(tuple(F.pad(x, (-2, -2)).shape)))


def p_pixelcnn_train(lib, dt, rec):
    F = lib.nn.functional
    net = _pixelcnn(lib, dt, 4)
    g = seeded_gen(lib, 5)
    data = lib.randint(0, 4, (6, 1, 7, 7), generator=g)
    opt = lib.optim.Adam(net.parameters(), lr=1e-2)
    for step in range(3):
        x = data.to(dt) / 3.0
        logits = net(x).view(6, 4, 1, 7, 7)
        loss = F.cross_entropy(logits, data)
        opt.zero_grad()
        loss.backward()
        if step == 0:
            rec("g_first", net[0].weight.grad)
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("p", net)
    net.eval()
    with lib.no_grad():
        rec("eval_logits", net(data.to(dt) / 3.0))
    rec("running_mean", net[1].running_mean)


def p_dlogistic_loss(lib, dt, rec):
    lib.manual_seed(6)
    nmix = 3
    g = seeded_gen(lib, 7)
    x = lib.randint(0, 256, (2, 1, 4, 4), generator=g).to(dt) / 127.5 - 1.0
    x[0, 0, 0, :2] = -1.0
    x[1, 0, 3, 1:] = 1.0
    params_l = (_randn(lib, dt, 8, 2, 3 * nmix, 4, 4)).requires_grad_(True)
    loss = _discretized_mix_logistic_loss(lib, x, params_l)
    rec("loss", loss)
    loss.backward()
    rec("grad", params_l.grad)
    # the where version agrees
    lw = params_l.detach().clone().requires_grad_(True)
    lp = lw.permute(0, 2, 3, 1)
    ll = _dlogistic_where(lib, x[:, 0], lp[..., nmix : 2 * nmix],
                          lp[..., 2 * nmix :].clamp(min=-7.0), lp[..., :nmix])  # fmt: skip
    rec("ll", ll)
    (-ll.sum()).backward()
    rec("grad_where", lw.grad)
    rec("bpd", -ll.sum() / (math.log(2.0) * x.numel()))


def p_dlogistic_edges(lib, dt, rec):
    """The edge cases: x at -1 and 1, tiny scales (the pdf branch), and the gradient through
    where of all branches (nan-free)."""
    x = lib.tensor([[-1.0, 1.0, 0.0, 0.5, -0.999, 0.2]], dtype=dt)
    means = lib.tensor([[[-1.0, 0.5], [1.0, 0.0], [0.0, 0.001], [0.3, 0.5],
                         [-0.9, 0.0], [0.2, 0.2]]], dtype=dt).requires_grad_(True)  # fmt: skip
    ls = lib.tensor([[[-7.0, 0.0], [-3.0, -7.0], [-7.0, -6.5], [1.0, -2.0],
                      [-4.0, -5.0], [-9.0, -1.0]]], dtype=dt).requires_grad_(True)  # fmt: skip
    logits = lib.zeros(1, 6, 2, dtype=dt).requires_grad_(True)
    ll = _dlogistic_where(lib, x, means, ls.clamp(min=-7.0), logits)
    rec("ll", ll)
    ll.sum().backward()
    rec("gm", means.grad)
    rec("gs", ls.grad)
    rec("gl", logits.grad)
    F = lib.nn.functional
    big = lib.tensor([-100.0, -20.0, 0.0, 20.0, 100.0], dtype=dt)
    rec("softplus", F.softplus(big))
    rec("softplus_beta", F.softplus(big, beta=2.0, threshold=10.0))
    rec("logsig", F.logsigmoid(big))
    rec("lse_inf", lib.logsumexp(lib.tensor([[-math.inf, -math.inf], [0.0, -math.inf]],
                                            dtype=dt), dim=1))  # fmt: skip


def p_made_masks(lib, dt, rec):
    masks, order = _Made.masks(lib, 6, [10, 8], 12, 11, natural=False)
    rec("order", order)
    for i, m in enumerate(masks):
        rec(f"m{i}", m)
        rec(f"m{i}.dtype", str(m.dtype))
    # connectivity: the product of the masks is strictly autoregressive in the order
    conn = masks[0].to(dt)
    for m in masks[1:]:
        conn = conn @ m.to(dt)
    rec("conn", conn)
    rec("perm", lib.randperm(10, generator=seeded_gen(lib, 12)))
    rec("perm_dt", lib.randperm(5, generator=seeded_gen(lib, 13), dtype=dt))
    rec("argsort", lib.argsort(order))


def p_made_train(lib, dt, rec):
    F = lib.nn.functional
    nin = 8
    net, order = _Made.net(lib, dt, nin, [16, 16], nin, 20, natural=False)
    rec("order", order)
    g = seeded_gen(lib, 21)
    data = (lib.rand(32, nin, generator=g) < 0.3).to(dt)
    opt = lib.optim.Adam(net.parameters(), lr=5e-3, weight_decay=1e-4)
    for step in range(4):
        logits = net(data)
        loss = F.binary_cross_entropy_with_logits(logits, data, reduction="sum") / 32
        opt.zero_grad()
        loss.backward()
        lib.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        rec(f"loss{step}", loss)
    rec.params("p", net, grads=True)
    # the jacobian is masked: output d does not depend on inputs at or after its order
    x = data[:1].clone().requires_grad_(True)
    jac = lib.stack([lib.autograd.grad(net(x)[0, d], x)[0][0] for d in range(nin)])
    rec("jac_nonzero", (jac != 0))


def p_made_orders(lib, dt, rec):
    """Order-agnostic MADE: several orders, each with its masks, averaging the likelihood."""
    F = lib.nn.functional
    nin = 5
    lib.manual_seed(30)
    x = (lib.rand(4, nin, dtype=dt) > 0.5).to(dt)
    lls = []
    for k in range(3):
        net, order = _Made.net(lib, dt, nin, [12], nin, 31 + 2 * k, natural=k == 0)
        rec(f"order{k}", order)
        logits = net(x)
        lls.append(-F.binary_cross_entropy_with_logits(logits, x, reduction="none").sum(1))
    ll = lib.stack(lls)
    rec("ll", ll)
    rec("ens", lib.logsumexp(ll, 0) - math.log(3))


def p_sample_loop(lib, dt, rec):
    """Pixel-by-pixel sampling with multinomial over softmax and a generator."""
    F = lib.nn.functional
    net = _pixelcnn(lib, dt, 40, levels=4)
    net.eval()
    g = seeded_gen(lib, 41)
    sample = lib.zeros(2, 1, 5, 5, dtype=dt)
    with lib.no_grad():
        for i in range(5):
            for j in range(5):
                logits = net(sample / 3.0).view(2, 4, 1, 5, 5)[:, :, 0, i, j]
                probs = F.softmax(logits, dim=1)
                sample[:, 0, i, j] = lib.multinomial(probs, 1, generator=g).squeeze(-1).to(dt)
    rec("sample", sample)
    rec("probs_last", probs)
    # Categorical sampling with temperature, argmax decoding
    lib.manual_seed(42)
    d = lib.distributions.Categorical(logits=_randn(lib, dt, 43, 3, 6) / 0.7)
    rec("cat_sample", d.sample((4,)))
    rec("cat_lp", d.log_prob(lib.tensor([[0, 5, 2]])))
    rec("cat_entropy", d.entropy())
    rec("probs", d.probs)
    rec("clamp", lib.clamp(_randn(lib, dt, 44, 6) * 2, -1.0, 1.0))
    rec("multi_repl", lib.multinomial(d.probs, 5, replacement=True, generator=seeded_gen(lib, 45)))


def p_sample_dlogistic(lib, dt, rec):
    """PixelCNN++'s sampling from a logistic mixture (gumbel-max over mixtures, inverse cdf)."""
    nmix = 4
    g = seeded_gen(lib, 50)
    params_l = lib.randn(2, 3 * nmix, 3, 3, generator=g, dtype=dt).permute(0, 2, 3, 1)
    logit_probs = params_l[..., :nmix]
    temp = lib.empty(logit_probs.shape, dtype=dt).uniform_(1e-5, 1.0 - 1e-5, generator=g)
    temp = logit_probs - lib.log(-lib.log(temp))
    argmax = temp.max(dim=3)[1]
    one_hot = lib.nn.functional.one_hot(argmax, nmix).to(dt)
    rec("argmax", argmax)
    means = (params_l[..., nmix : 2 * nmix] * one_hot).sum(3)
    log_scales = lib.clamp((params_l[..., 2 * nmix :] * one_hot).sum(3), min=-7.0)
    u = lib.empty(means.shape, dtype=dt).uniform_(1e-5, 1.0 - 1e-5, generator=g)
    x = means + lib.exp(log_scales) * (lib.log(u) - lib.log(1.0 - u))
    x0 = lib.clamp(lib.clamp(x, min=-1.0), max=1.0)
    rec("x", x0)
    rec("quant", lib.round((x0 + 1) * 127.5))


def p_bits_per_dim(lib, dt, rec):
    F = lib.nn.functional
    g = seeded_gen(lib, 60)
    logits = lib.randn(3, 256, 1, 4, 4, generator=g, dtype=dt)
    target = lib.randint(0, 256, (3, 1, 4, 4), generator=g)
    nll = F.cross_entropy(logits, target, reduction="none")
    rec("nll", nll)
    bpd = nll.flatten(1).mean(1) / math.log(2.0)
    rec("bpd", bpd)
    rec(
        "bpd_sum", F.cross_entropy(logits, target, reduction="sum") / (target.numel() * math.log(2))
    )
    # dequantized continuous bpd: -log p(x) + D log 256
    x = target.to(dt)
    noise = lib.rand(x.shape, generator=g, dtype=dt)
    y = (x + noise) / 256.0
    logit_y = lib.log(y) - lib.log1p(-y)
    rec("logit", logit_y)
    ldj = -F.softplus(-logit_y) - F.softplus(logit_y)
    rec("ldj", ldj.flatten(1).sum(1))
    rec("nats_to_bits", lib.tensor(2.5, dtype=dt) / math.log(2))
    rec("log2", lib.log2(lib.tensor([256.0, 3.0], dtype=dt)))
    rec("label_smooth", F.cross_entropy(logits, target, label_smoothing=0.1))


def p_softmax_loss(lib, dt, rec):
    """The 256-way softmax loss of PixelCNN over RGB with channel-wise logits (B, 256, C, H, W)."""
    F = lib.nn.functional
    g = seeded_gen(lib, 70)
    logits = lib.randn(2, 3 * 8, 3, 3, generator=g, dtype=dt).requires_grad_(True)
    target = lib.randint(0, 8, (2, 3, 3, 3), generator=g)
    out = logits.view(2, 8, 3, 3, 3)
    loss = F.cross_entropy(out, target)
    loss.backward()
    rec("loss", loss)
    rec("grad", logits.grad)
    lp = F.log_softmax(out, dim=1)
    rec("nll_loss", F.nll_loss(lp, target, reduction="none"))
    rec("gather", lp.gather(1, target.unsqueeze(1)).squeeze(1))
    w = lib.linspace(0.5, 1.5, 8, dtype=dt)
    rec("weighted", F.cross_entropy(out, target, weight=w))
    t2 = target.clone()
    t2[0, 0, 0, 0] = -100
    rec("ignore", F.cross_entropy(out, t2))


def p_errors(lib, dt, rec):
    F = lib.nn.functional
    MaskedConv2d = _masked_conv_cls(lib)
    lib.manual_seed(80)
    conv = MaskedConv2d("A", 3, 4, 5, padding=2).to(dt)
    x = _randn(lib, dt, 81, 1, 3, 4, 4)
    w = conv.weight.detach()
    rec.err("mask_mult", lambda: w * _conv_mask(lib, dt, "A", 4, 3, 3))
    rec.err("mask_mult_ch", lambda: w * lib.ones(3, 4, 5, 5, dtype=dt))
    rec.err("conv_ch", lambda: conv(_randn(lib, dt, 82, 1, 2, 4, 4)))
    rec.err("conv_ch_f", lambda: F.conv2d(x, lib.ones(4, 2, 3, 3, dtype=dt)))
    rec.err("conv_dtype", lambda: F.conv2d(x, lib.ones(4, 3, 3, 3, dtype=lib.float16)))
    rec.err("conv_small", lambda: F.conv2d(x, lib.ones(4, 3, 5, 5, dtype=dt)))
    rec.err("conv_rank", lambda: F.conv2d(x, lib.ones(4, 3, 3, dtype=dt)))
    rec.err("chunk0", lambda: x.chunk(0, 1))
    rec.err("buffer_name", lambda: conv.register_buffer("weight", lib.ones(1)))
    rec.err("buffer_dot", lambda: conv.register_buffer("a.b", lib.ones(1)))
    rec.err("buffer_type", lambda: conv.register_buffer("m2", [1, 2]))
    rec.err("buffer_empty", lambda: conv.register_buffer("", lib.ones(1)))
    rec.err("multinomial_neg", lambda: lib.multinomial(lib.tensor([0.5, -0.1], dtype=dt), 1))
    rec.err("multinomial_zero", lambda: lib.multinomial(lib.zeros(3, dtype=dt), 1))
    rec.err("multinomial_many", lambda: lib.multinomial(lib.ones(3, dtype=dt), 4))
    rec.err("multinomial_int", lambda: lib.multinomial(lib.ones(3, dtype=lib.int64), 1))
    rec.err("randperm_neg", lambda: lib.randperm(-1))
    rec.err("one_hot_neg", lambda: F.one_hot(lib.tensor([-1, 0]), 3))
    rec.err("one_hot_big", lambda: F.one_hot(lib.tensor([3, 0]), 3))
    rec.err(
        "ce_target", lambda: F.cross_entropy(_randn(lib, dt, 83, 2, 4, 3), lib.tensor([0, 4, 1]))
    )
    logits = _randn(lib, dt, 83, 2, 4, 3, 3)
    rec.err("ce_shape", lambda: F.cross_entropy(logits, lib.zeros(2, 3, dtype=lib.long)))
    w48 = lib.ones(5, 48, dtype=dt)
    rec.err("linear_mask", lambda: F.linear(x.view(1, -1), w48 * lib.ones(48, 5, dtype=dt)))


def p_categorical_errors(lib, dt, rec):
    D = lib.distributions
    rec.err("nan_logits", lambda: D.Categorical(logits=lib.tensor([0.0, math.nan], dtype=dt)))
    rec.err("neg_probs", lambda: D.Categorical(probs=lib.tensor([0.5, -0.5], dtype=dt)))
    rec.err("both", lambda: D.Categorical(probs=lib.tensor([0.5, 0.5], dtype=dt),
                                          logits=lib.tensor([0.0, 0.0], dtype=dt)))  # fmt: skip
    rec.err("neither", lambda: D.Categorical())
    rec.err("scalar", lambda: D.Categorical(logits=lib.tensor(1.0, dtype=dt)))
    d = D.Categorical(logits=lib.tensor([[0.0, 1.0, -1.0]], dtype=dt))
    rec.err("lp_out", lambda: d.log_prob(lib.tensor([3])))
    rec.err("lp_float", lambda: d.log_prob(lib.tensor([0.5], dtype=dt)))
    rec("lp_ok", d.log_prob(lib.tensor([[2], [0]])))
    rec("inf_logits", D.Categorical(logits=lib.tensor([0.0, -math.inf], dtype=dt)).probs)
    rec("normalized", D.Categorical(probs=lib.tensor([2.0, 6.0], dtype=dt)).logits)
    rec("batch", str((d.batch_shape, d.event_shape)))
    rec("support", str(d.support))
    rec("enum", d.enumerate_support())
    rec.err("mn_nan", lambda: lib.multinomial(lib.tensor([math.nan, 1.0], dtype=dt), 1))
    rec.err("mn_inf", lambda: lib.multinomial(lib.tensor([math.inf, 1.0], dtype=dt), 1))


def p_state_dict(lib, dt, rec):
    MaskedConv2d = _masked_conv_cls(lib)
    lib.manual_seed(90)
    a = MaskedConv2d("B", 2, 3, 3, padding=1).to(dt)
    sd = a.state_dict()
    rec("keys", str(list(sd.keys())))
    rec("mask", sd["mask"])
    b = MaskedConv2d("A", 2, 3, 3, padding=1).to(dt)
    rec("load", str(b.load_state_dict(sd)))
    rec("mask_loaded", b.mask)
    del sd["mask"]
    rec.err("missing", lambda: b.load_state_dict(sd))
    rec("nonstrict", str(b.load_state_dict(sd, strict=False)))
    a.register_buffer("tmp", lib.zeros(2, dtype=dt), persistent=False)
    rec("keys2", str(list(a.state_dict().keys())))
    sd2 = a.state_dict()
    sd2["mask"] = lib.ones(3, 2, 5, 5, dtype=dt)
    rec.err("shape_mismatch", lambda: b.load_state_dict(sd2))
    rec("half_mask", a.half().mask.dtype == lib.float16)


def p_gated_stack_train(lib, dt, rec):
    F = lib.nn.functional
    net = _gated_pixelcnn(lib, dt, 100)
    g = seeded_gen(lib, 101)
    x = lib.randint(0, 4, (3, 6, 6), generator=g)
    label = lib.tensor([0, 1, 2])
    opt = lib.optim.Adam(net.parameters(), lr=3e-3)
    for step in range(3):
        logits = net(x, label)
        loss = F.cross_entropy(logits, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("logits", logits)
    rec("vgrad", net.layers[0].vert_stack.weight.grad)
    rec("hgrad", net.layers[0].horiz_stack.weight.grad)
    rec.params("p", net)
    # causality of the gated stacks: logits at (2, 3) do not see x at (2, 3) or after
    emb = net.embedding(x[:1].view(-1)).view(1, 6, 6, -1).detach().requires_grad_(True)
    xv = emb.permute(0, 3, 1, 2)
    xv2, xh = xv, xv
    for layer in net.layers:
        xv2, xh = layer(xv2, xh, label[:1])
    out = net.output_conv(xh)[0, :, 2, 3].sum()
    gr = lib.autograd.grad(out, emb)[0].abs().sum(-1)[0]
    rec("future", gr[2, 3:].sum() + gr[3:].sum())
    rec("past_seen", (gr[:2] > 0).sum())


def _pixelcnnpp_cls(lib):
    """A small PixelCNN++ (pclucas14/pixel-cnn-pp): weight-normed down-shifted and
    down-right-shifted convs and deconvs, concat_elu gated resnets, nin layers."""
    nn, F = lib.nn, lib.nn.functional
    wn = nn.utils.weight_norm

    def concat_elu(x):
        return F.elu(lib.cat([x, -x], dim=len(x.size()) - 3))

    def down_shift(x):
        return nn.ZeroPad2d((0, 0, 1, 0))(x[:, :, :-1, :])

    def right_shift(x):
        return nn.ZeroPad2d((1, 0, 0, 0))(x[:, :, :, :-1])

    class Nin(nn.Module):
        def __init__(self, dim_in, dim_out):
            super().__init__()
            self.lin_a = wn(nn.Linear(dim_in, dim_out))

        def forward(self, x):
            x = x.permute(0, 2, 3, 1)
            shp = [int(y) for y in x.size()]
            out = self.lin_a(x.contiguous().view(shp[0] * shp[1] * shp[2], shp[3]))
            shp[-1] = self.lin_a.out_features
            return out.view(shp).permute(0, 3, 1, 2)

    class DownShiftedConv2d(nn.Module):
        def __init__(self, cin, cout, filter_size=(2, 3), stride=(1, 1), shift_output_down=False):
            super().__init__()
            self.conv = wn(nn.Conv2d(cin, cout, filter_size, stride))
            self.shift_output_down = shift_output_down
            self.pad = nn.ZeroPad2d(((filter_size[1] - 1) // 2, (filter_size[1] - 1) // 2,
                                     filter_size[0] - 1, 0))  # fmt: skip

        def forward(self, x):
            x = self.conv(self.pad(x))
            return down_shift(x) if self.shift_output_down else x

    class DownRightShiftedConv2d(nn.Module):
        def __init__(self, cin, cout, filter_size=(2, 2), stride=(1, 1), shift_output_right=False):
            super().__init__()
            self.pad = nn.ZeroPad2d((filter_size[1] - 1, 0, filter_size[0] - 1, 0))
            self.conv = wn(nn.Conv2d(cin, cout, filter_size, stride=stride))
            self.shift_output_right = shift_output_right

        def forward(self, x):
            x = self.conv(self.pad(x))
            return right_shift(x) if self.shift_output_right else x

    class DownShiftedDeconv2d(nn.Module):
        def __init__(self, cin, cout, filter_size=(2, 3), stride=(2, 2)):
            super().__init__()
            self.deconv = wn(nn.ConvTranspose2d(cin, cout, filter_size, stride, output_padding=1))
            self.filter_size = filter_size

        def forward(self, x):
            x = self.deconv(x)
            xs = [int(y) for y in x.size()]
            fs = self.filter_size
            return x[:, :, : (xs[2] - fs[0] + 1), (fs[1] - 1) // 2 : (xs[3] - (fs[1] - 1) // 2)]

    class GatedResnet(nn.Module):
        def __init__(self, nf, conv_op, skip=0):
            super().__init__()
            self.conv_input = conv_op(2 * nf, nf)
            if skip:
                self.nin_skip = Nin(2 * skip * nf, nf)
            self.skip = skip
            self.dropout = nn.Dropout2d(0.5)
            self.conv_out = conv_op(2 * nf, 2 * nf)

        def forward(self, og_x, a=None):
            x = self.conv_input(concat_elu(og_x))
            if a is not None:
                x = x + self.nin_skip(concat_elu(a))
            x = concat_elu(x)
            x = self.dropout(x)
            x = self.conv_out(x)
            a, b = lib.chunk(x, 2, dim=1)
            return og_x + a * lib.sigmoid(b)

    class PixelCNNpp(nn.Module):
        def __init__(self, nf=4, nmix=2, c=1):
            super().__init__()
            self.u_init = DownShiftedConv2d(c + 1, nf, (2, 3), shift_output_down=True)
            self.ul_init = nn.ModuleList(
                [
                    DownShiftedConv2d(c + 1, nf, (1, 3), shift_output_down=True),
                    DownRightShiftedConv2d(c + 1, nf, (2, 1), shift_output_right=True),
                ]
            )
            self.u_res = GatedResnet(nf, DownShiftedConv2d)
            self.ul_res = GatedResnet(nf, DownRightShiftedConv2d, skip=1)
            self.down = DownShiftedConv2d(nf, nf, stride=(2, 2))
            self.up = DownShiftedDeconv2d(nf, nf)
            self.nin_out = Nin(nf, 3 * nmix)

        def forward(self, x):
            xs = [int(y) for y in x.size()]
            padding = lib.ones(xs[0], 1, xs[2], xs[3], dtype=x.dtype)
            x = lib.cat((x, padding), 1)
            u = self.u_init(x)
            ul = self.ul_init[0](x) + self.ul_init[1](x)
            u = self.u_res(u)
            ul = self.ul_res(ul, a=u)
            u2 = self.up(self.down(u))
            ul = ul + u2
            return self.nin_out(F.elu(ul))

    return PixelCNNpp


def p_pixelcnnpp(lib, dt, rec):
    PixelCNNpp = _pixelcnnpp_cls(lib)
    lib.manual_seed(110)
    # built in dt: weight_norm's g computed in float32 and then widened would carry float32's
    # rounding of the norm, which differs by an ulp between the libraries' reductions
    old = lib.get_default_dtype()
    lib.set_default_dtype(dt)
    try:
        net = PixelCNNpp()
    finally:
        lib.set_default_dtype(old)
    g = seeded_gen(lib, 111)
    x = lib.randint(0, 256, (2, 1, 6, 6), generator=g).to(dt) / 127.5 - 1.0
    opt = lib.optim.Adam(net.parameters(), lr=2e-4)
    sched = lib.optim.lr_scheduler.StepLR(opt, 1, gamma=0.999995)
    net.train()
    lib.manual_seed(112)
    for step in range(2):
        params_l = net(x)
        loss = _discretized_mix_logistic_loss(lib, x, params_l)
        opt.zero_grad()
        loss.backward()
        if step == 0:
            rec("g_v", net.u_init.conv.weight_v.grad)
            rec("g_g", net.ul_res.nin_skip.lin_a.weight_g.grad)
            rec("g_deconv", net.up.deconv.weight_v.grad)
        opt.step()
        sched.step()
        rec(f"loss{step}", loss)
        rec(f"bpd{step}", loss / (math.log(2.0) * x.numel()))
    net.eval()
    with lib.no_grad():
        rec("eval", net(x))
    rec("shape", str(tuple(net(x).shape)))
    rec("lr", str(sched.get_last_lr()))


def p_weight_norm(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(0)
    conv = nn.utils.weight_norm(nn.Conv2d(2, 4, (2, 3), dtype=dt))
    rec("g", conv.weight_g)
    rec("v", conv.weight_v)
    x = lib.randn(2, 2, 5, 5, dtype=dt)
    out = conv(F.pad(x, (1, 1, 1, 0)))
    out.sum().backward()
    rec("out", out)
    rec("gg", conv.weight_g.grad)
    rec("gv", conv.weight_v.grad)
    rec("repr", repr(conv))

    def concat_elu(x):
        axis = len(x.size()) - 3
        return F.elu(lib.cat([x, -x], dim=axis))

    rec("celu", concat_elu(x))
    lin = nn.utils.weight_norm(nn.Linear(4, 3, dtype=dt))
    rec("nin", lin(x.permute(0, 2, 3, 1).reshape(-1, 2).repeat(1, 2)))
    lib.manual_seed(1)
    d = nn.Dropout2d(0.5)
    rec("drop2d", d(lib.ones(2, 3, 2, 2, dtype=dt)))
    lib.manual_seed(1)
    rec("drop", F.dropout(lib.ones(3, 4, dtype=dt), 0.3))
    m = nn.utils.parametrizations.weight_norm(nn.Conv2d(2, 3, 3, dtype=dt))
    rec("pwn", m(x))
    rec("pkeys", str(list(m.state_dict().keys())))


def p_parametrize(lib, dt, rec):
    nn = lib.nn
    P = importlib.import_module(lib.__name__ + ".nn.utils.parametrize")

    class Mask(nn.Module):
        def __init__(self, mask):
            super().__init__()
            self.register_buffer("mask", mask)

        def forward(self, w):
            return w * self.mask

    lib.manual_seed(2)
    conv = nn.Conv2d(2, 3, 3, padding=1).to(dt)
    mask = lib.ones(3, 2, 3, 3, dtype=dt)
    mask[:, :, 1, 1:] = 0
    mask[:, :, 2:] = 0
    P.register_parametrization(conv, "weight", Mask(mask))
    rec("w", conv.weight)
    rec("keys", str(list(conv.state_dict().keys())))
    x = lib.randn(1, 2, 4, 4, dtype=dt)
    conv(x).sum().backward()
    rec("go", conv.parametrizations.weight.original.grad)
    rec("repr", repr(conv))
    rec("is", P.is_parametrized(conv, "weight"))
    # forward pre hook masking
    conv2 = nn.Conv2d(2, 3, 3, padding=1).to(dt)
    conv2.register_buffer("mask", mask)
    h = conv2.register_forward_pre_hook(lambda m, inp: m.weight.data.mul_(m.mask))
    rec("hook_out", conv2(x))
    h.remove()
    rec("w2", conv2.weight)
    B = lib.distributions.Bernoulli(logits=lib.randn(3, 4, dtype=dt))
    rec("blp", B.log_prob((lib.rand(3, 4, dtype=dt) > 0.5).to(dt)))
    rec("bs", B.sample())
    rec.err("b_bad", lambda: B.log_prob(lib.full((3, 4), 0.5, dtype=dt)))
    rec("bern", lib.bernoulli(lib.full((3, 4), 0.3, dtype=dt), generator=seeded_gen(lib, 3)))
    t = lib.empty(3, 4, dtype=dt).bernoulli_(0.4, generator=seeded_gen(lib, 4))
    rec("bern_", t)


def p_errors_more(lib, dt, rec):
    D = lib.distributions
    F = lib.nn.functional
    rec.err("inf_logit", lambda: D.Categorical(logits=lib.tensor([math.inf, 0.0], dtype=dt)))
    rec.err("probs_zero", lambda: D.Categorical(probs=lib.tensor([0.0, 0.0], dtype=dt)))
    rec.err("probs_nan", lambda: D.Categorical(probs=lib.tensor([math.nan, 1.0], dtype=dt)))
    rec.err("probs_int", lambda: D.Categorical(probs=lib.tensor([1, 2])))
    rec.err("probs_list", lambda: D.Categorical(probs=[0.5, 0.5]))
    rec.err("sample_bad", lambda: D.Categorical(logits=lib.zeros(3, dtype=dt)).sample(3))
    rec.err("OneHot", lambda: D.OneHotCategorical(logits=lib.tensor([0.0, math.nan], dtype=dt)))
    rec.err("mn_2d0", lambda: lib.multinomial(lib.tensor([[0.0, 0.0], [1.0, 1.0]], dtype=dt), 1))
    rec.err("mn_3d", lambda: lib.multinomial(lib.ones(2, 2, 2, dtype=dt), 1))
    rec.err("mn_0", lambda: lib.multinomial(lib.ones(2, dtype=dt), 0))
    rec.err("mn_neg", lambda: lib.multinomial(lib.ones(2, dtype=dt), -1))
    rec.err("mn_empty", lambda: lib.multinomial(lib.ones(0, dtype=dt), 1))
    rec.err("mn_float_n", lambda: lib.multinomial(lib.ones(2, dtype=dt), 1.0))
    rec.err("mn_gen", lambda: lib.multinomial(lib.ones(2, dtype=dt), 1, generator=3))
    rec.err("rp_gen", lambda: lib.randperm(3, generator=3))
    rec.err("rp_float", lambda: lib.randperm(3.0))
    rec.err("rp_bool", lambda: lib.randperm(3, dtype=lib.bool))
    rec.err("rp_f16", lambda: lib.randperm(3000, dtype=lib.float16))
    rec.err("randint_hi", lambda: lib.randint(3, 3, (2,)))
    rec.err("randint_shape", lambda: lib.randint(0, 3, 2))
    w = lib.ones(4, 3, 3, 3, dtype=dt)
    rec.err("mul_", lambda: w.mul_(lib.ones(4, 3, 3, 1, 1, dtype=dt)))
    rec.err("mul_bcast", lambda: w.mul_(lib.ones(1, 3, 5, 5, dtype=dt)))
    rec.err("mask_bool", lambda: w * lib.ones(4, 3, 3, 3, dtype=lib.bool))
    rec.err("data_mul", lambda: w.data.mul_(lib.ones(3, 3, dtype=dt).T.unsqueeze(0)))
    rec.err("masked_fill", lambda: w.masked_fill(lib.ones(3, 3, dtype=dt), 0))
    rec.err("masked_fill2", lambda: w.masked_fill(lib.ones(2, 3, 3, dtype=lib.bool), 0))
    rec.err(
        "conv_grp",
        lambda: F.conv2d(lib.ones(1, 4, 3, 3, dtype=dt), lib.ones(4, 4, 1, 1, dtype=dt), groups=2),
    )
    rec.err(
        "conv_bias",
        lambda: F.conv2d(
            lib.ones(1, 4, 3, 3, dtype=dt), lib.ones(4, 4, 1, 1, dtype=dt), lib.ones(3, dtype=dt)
        ),
    )
    rec.err(
        "conv_pad",
        lambda: F.conv2d(
            lib.ones(1, 4, 3, 3, dtype=dt), lib.ones(4, 4, 1, 1, dtype=dt), padding=-1
        ),
    )
    rec.err(
        "conv_pad_str",
        lambda: F.conv2d(
            lib.ones(1, 4, 3, 3, dtype=dt), lib.ones(4, 4, 2, 2, dtype=dt), padding="same", stride=2
        ),
    )
    rec.err(
        "conv_int",
        lambda: F.conv2d(
            lib.ones(1, 4, 3, 3, dtype=lib.long), lib.ones(4, 4, 1, 1, dtype=lib.long)
        ),
    )
    rec.err("chunk_neg", lambda: w.chunk(-1))
    rec.err("chunk_dim", lambda: w.chunk(2, 5))
    rec.err("lse_int", lambda: lib.logsumexp(lib.tensor([1, 2]), 0))
    rec("lse_int_ok", lib.logsumexp(lib.tensor([1, 2]), 0))
    rec.err("ls_int", lambda: F.log_softmax(lib.tensor([1, 2]), 0))
    rec.err("sp_int", lambda: F.softplus(lib.tensor([1, 2])))
    rec.err(
        "where_dt",
        lambda: lib.where(
            lib.tensor([True]), lib.ones(1, dtype=dt), lib.ones(1, dtype=lib.float16)
        ),
    )
    rec.err("where_cond", lambda: lib.where(lib.ones(2, dtype=dt), lib.ones(2, dtype=dt), 0.0))
    rec.err("clamp_none", lambda: lib.clamp(lib.ones(2, dtype=dt)))
    rec.err("clamp_t", lambda: lib.clamp(lib.ones(2, dtype=dt), min=lib.zeros(3, dtype=dt)))
    rec.err("emb_oob", lambda: F.embedding(lib.tensor([5]), lib.ones(3, 2, dtype=dt)))
    rec.err("emb_float", lambda: F.embedding(lib.tensor([1.0]), lib.ones(3, 2, dtype=dt)))
    rec.err(
        "bce_logits_shape",
        lambda: F.binary_cross_entropy_with_logits(lib.ones(3, 2, dtype=dt), lib.ones(3, dtype=dt)),
    )
    rec.err(
        "bce_range",
        lambda: F.binary_cross_entropy(
            lib.full((2,), 0.5, dtype=dt), lib.tensor([2.0, 0.0], dtype=dt)
        ),
    )
    rec.err(
        "bce_in_range",
        lambda: F.binary_cross_entropy(
            lib.full((2,), 1.5, dtype=dt), lib.tensor([1.0, 0.0], dtype=dt)
        ),
    )
    rec.err("pad_mode", lambda: F.pad(w, (1, 1), mode="zeros"))
    rec.err("pad_refl_neg", lambda: F.pad(w, (-1, 1), mode="reflect"))
    rec.err("pad_refl_big", lambda: F.pad(w, (3, 1), mode="reflect"))
    rec.err("zeropad_neg", lambda: lib.nn.ZeroPad2d((0, 0, 1, -4))(w))
    rec.err(
        "lp_bern",
        lambda: D.Bernoulli(logits=lib.zeros(2, dtype=dt)).log_prob(lib.ones(3, dtype=dt)),
    )


def p_gumbel_misc(lib, dt, rec):
    D = lib.distributions
    F = lib.nn.functional
    nn = lib.nn
    lib.manual_seed(0)
    logits = lib.randn(3, 5, dtype=dt)
    rec("gumbel", -lib.empty_like(logits).exponential_().log())
    rec("gs", F.gumbel_softmax(logits, tau=0.5))
    rec("gs_hard", F.gumbel_softmax(logits, tau=0.5, hard=True))
    g = D.Gumbel(lib.zeros(3, dtype=dt), lib.ones(3, dtype=dt))
    rec("gum", g.rsample((2,)))
    rec("gum_lp", g.log_prob(lib.tensor([0.1, 1.0, -2.0], dtype=dt)))
    r = D.RelaxedOneHotCategorical(lib.tensor(0.7, dtype=dt), logits=logits)
    s = r.rsample()
    rec("relaxed", s)
    rec("relaxed_lp", r.log_prob(s))
    base = D.Uniform(lib.zeros(4, dtype=dt), lib.ones(4, dtype=dt))
    logistic = D.TransformedDistribution(
        base,
        [
            D.transforms.SigmoidTransform().inv,
            D.transforms.AffineTransform(
                loc=lib.tensor(0.3, dtype=dt), scale=lib.tensor(0.5, dtype=dt)
            ),
        ],
    )
    xs = logistic.sample((3,))
    rec("logi", xs)
    rec("logi_lp", logistic.log_prob(xs))
    rec("tril_idx", lib.tril_indices(4, 4, -1))
    rec("triu_idx", lib.triu_indices(3, 4, 1))
    conv = nn.Conv2d(2, 3, 4, padding="same", dtype=dt)
    x = lib.randn(1, 2, 5, 5, dtype=dt)
    rec("same_even", conv(x))
    conv_c = nn.Conv2d(2, 3, 3, padding=1, padding_mode="circular", dtype=dt)
    rec("circ", conv_c(x))
    rec("repr_c", repr(conv_c))
    conv_r = nn.Conv2d(2, 3, (2, 3), padding=(1, 1), padding_mode="reflect", dtype=dt)
    rec("refl", conv_r(x))
    rec("repr_r", repr(conv_r))
    xr = x.clone().requires_grad_(True)
    wr = conv.weight.detach().clone().requires_grad_(True)
    out = F.conv2d(xr, wr * _mask4(lib, dt), padding=2)
    gx, gw = lib.autograd.grad(out.pow(2).sum(), (xr, wr), create_graph=True)
    (gx.sum() + gw.pow(2).sum()).backward()
    rec("ggx", xr.grad)
    rec("ggw", wr.grad)
    net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 4)).to(dt)
    rec("jac", lib.autograd.functional.jacobian(net, lib.randn(4, dtype=dt)))
    rec("unfold", F.unfold(x, 3, padding=1))
    cols = F.unfold(x, 3, padding=1)
    m = lib.ones(3, 2, 3, 3, dtype=dt).tril()
    rec("unfold_conv", (m.view(3, -1) @ cols).view(1, 3, 5, 5))
    rec(
        "idx_put",
        lib.zeros(3, 3, dtype=dt).index_put_(
            (lib.tensor([0, 2]), lib.tensor([1, 1])),
            lib.tensor([1.0, 2.0], dtype=dt),
            accumulate=True,
        ),
    )
    d = D.Categorical(logits=logits)
    rec("repr_d", repr(d))
    rec("lp_b", d.log_prob(lib.tensor([[0], [4]])))
    rec("ohc", D.OneHotCategorical(logits=logits).sample())
    rec("sm_t", F.softmax(logits / 0.01, -1))
    rec("clip", lib.clamp(lib.round(lib.randn(5, dtype=dt) * 100) / 100, -0.5, 0.5))


def _mask4(lib, dt):
    m = lib.ones(3, 2, 4, 4, dtype=dt)
    m[:, :, 2, 2:] = 0
    m[:, :, 3:] = 0
    return m


def p_prune(lib, dt, rec):
    nn = lib.nn
    prune = importlib.import_module(lib.__name__ + ".nn.utils.prune")
    lib.manual_seed(0)
    conv = nn.Conv2d(2, 3, 3, padding=1, dtype=dt)
    mask = lib.ones(3, 2, 3, 3, dtype=dt)
    mask[:, :, 1, 1:] = 0
    mask[:, :, 2:] = 0
    prune.custom_from_mask(conv, "weight", mask)
    rec("keys", str(list(conv.state_dict().keys())))
    rec("params", str([n for n, _ in conv.named_parameters()]))
    rec("w", conv.weight)
    x = lib.randn(1, 2, 4, 4, dtype=dt)
    conv(x).sum().backward()
    rec("g", conv.weight_orig.grad)
    rec("hooks", str(len(conv._forward_pre_hooks)))
    rec("is", prune.is_pruned(conv))
    prune.remove(conv, "weight")
    rec("keys2", str(list(conv.state_dict().keys())))
    rec("w2", conv.weight)
    lin = nn.Linear(5, 4, dtype=dt)
    prune.l1_unstructured(lin, "weight", amount=0.4)
    rec("l1mask", lin.weight_mask)
    prune.random_unstructured(lin, "bias", amount=2)
    rec("bmask_sum", lin.bias_mask.sum())
    prune.ln_structured(lin, "weight", amount=0.5, n=2, dim=0)
    rec("ln", lin.weight_mask)
    rec("repr", repr(lin))
    rec.err("bad_amount", lambda: prune.l1_unstructured(lin, "weight", amount=1.5))
    rec.err("bad_name", lambda: prune.l1_unstructured(lin, "foo", amount=0.5))
    rec.err("bad_mask", lambda: prune.custom_from_mask(nn.Linear(2, 2), "weight", lib.ones(3, 3)))


def p_repr(lib, dt, rec):
    nn = lib.nn

    class MaskedConv2d(nn.Conv2d):
        def __init__(self, t, *a, **k):
            super().__init__(*a, **k)
            self.t = t
            self.register_buffer("mask", lib.ones_like(self.weight))

        def extra_repr(self):
            return f"type={self.t}, " + super().extra_repr()

    m = nn.Sequential(
        MaskedConv2d("A", 1, 4, 7, padding=3, bias=False),
        nn.BatchNorm2d(4),
        nn.ReLU(True),
        nn.ModuleList([MaskedConv2d("B", 4, 4, 3, padding=1)]),
        nn.ZeroPad2d((1, 0, 1, 0)),
        nn.Conv2d(4, 8, 1),
        nn.Embedding(3, 2, padding_idx=0),
    )
    rec("repr", repr(m))
    rec("mask", repr(lib.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]], dtype=dt)))
    rec("mask_b", repr(lib.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]], dtype=dt).bool()))
    rec("mask_u8", repr(lib.ones(2, 3, dtype=lib.uint8)))
    rec("nbuf", str([n for n, b in m.named_buffers()]))
    rec("zp", repr(nn.ZeroPad2d((0, 0, 1, -1))))
    rec("cp", repr(nn.ConstantPad2d(2, 0.5)))
    rec(
        "grad_fn",
        repr(
            nn.functional.pad(lib.ones(2, 2, dtype=dt, requires_grad=True), (1, -1)).grad_fn.name()
        ),
    )
    rec("cat", repr(lib.distributions.Categorical(probs=lib.ones(2, 3, dtype=dt))))


def p_implicit_dim(lib, dt, rec):
    D = lib.distributions
    F = lib.nn.functional
    nn = lib.nn
    x = lib.randn(2, 3, 4, dtype=dt, generator=seeded_gen(lib, 1))
    rec("sm", rec.warns("w_sm", lambda: F.softmax(x)))
    rec("lsm", rec.warns("w_lsm", lambda: F.log_softmax(x)))
    rec("lsm2", rec.warns("w_lsm2", lambda: F.log_softmax(x[0])))
    rec("smm", rec.warns("w_smm", lambda: nn.Softmax()(x)))
    rec("smin", rec.warns("w_smin", lambda: F.softmin(x)))
    rec.warns("w_sig", lambda: F.sigmoid(x))
    rec.warns("w_tanh", lambda: F.tanh(x))
    rec.warns("w_up", lambda: F.upsample(x.unsqueeze(0), scale_factor=2))
    rec.warns(
        "w_ce_size", lambda: F.binary_cross_entropy_with_logits(x, x.sigmoid(), size_average=False)
    )
    rec.warns("w_mse", lambda: F.mse_loss(x, x[0]))
    rec.err(
        "cat_ninf", lambda: D.Categorical(logits=lib.tensor([-math.inf, -math.inf], dtype=dt)).probs
    )
    d = D.Categorical(logits=lib.tensor([-math.inf, -math.inf], dtype=dt), validate_args=False)
    rec("ninf_probs", d.probs)
    rec("ninf_logits", d.logits)
    rec.err("ninf_sample", lambda: d.sample())
    rec.err("ninf_entropy", lambda: d.entropy())
    d2 = D.Categorical(logits=lib.tensor([0.0, 1.0], dtype=dt), validate_args=False)
    rec.err("oob_novalid", lambda: d2.log_prob(lib.tensor(5)))
    rec.err("neg_novalid", lambda: d2.log_prob(lib.tensor(-1)))
    rec.err(
        "mn_nonfinite2",
        lambda: lib.multinomial(
            lib.tensor([[0.5, 0.5], [math.nan, 1.0]], dtype=dt), 2, generator=seeded_gen(lib, 2)
        ),
    )
    rec.err(
        "cat_valid_arg",
        lambda: D.Categorical(lib.tensor([0.5, 0.5], dtype=dt), validate_args=True).log_prob(
            lib.tensor([0.0])
        ),
    )
    rec.err(
        "cat_sample_shape",
        lambda: D.Categorical(logits=lib.zeros(2, 3, dtype=dt)).sample([2, 1]).shape,
    )
    rec.err(
        "cat_expand",
        lambda: D.Categorical(logits=lib.zeros(2, 3, dtype=dt)).expand((4, 2)).batch_shape,
    )
    rec.err("cat_expand_bad", lambda: D.Categorical(logits=lib.zeros(2, 3, dtype=dt)).expand((3,)))
    rec.err("cat_param_shape", lambda: D.Categorical(logits=lib.zeros(2, 3, dtype=dt)).param_shape)
    rec.err("cat_mean", lambda: D.Categorical(logits=lib.zeros(2, 3, dtype=dt)).mean)
    rec.err("cat_mode", lambda: D.Categorical(logits=lib.tensor([0.0, 1.0, 0.5], dtype=dt)).mode)
    rec.err("cat_cdf", lambda: D.Categorical(logits=lib.zeros(3, dtype=dt)).cdf(lib.tensor(1)))
    rec.err("cat_rsample", lambda: D.Categorical(logits=lib.zeros(3, dtype=dt)).rsample())
    rec.err(
        "cat_kl",
        lambda: D.kl_divergence(
            D.Categorical(logits=lib.tensor([0.0, 1.0], dtype=dt)),
            D.Categorical(logits=lib.tensor([1.0, -1.0], dtype=dt)),
        ),
    )
    rec.err(
        "cat_kl_inf",
        lambda: D.kl_divergence(
            D.Categorical(probs=lib.tensor([0.5, 0.5], dtype=dt)),
            D.Categorical(probs=lib.tensor([1.0, 0.0], dtype=dt)),
        ),
    )
    rec.err(
        "ohc_lp",
        lambda: D.OneHotCategorical(logits=lib.zeros(3, dtype=dt)).log_prob(
            lib.tensor([1.0, 1.0, 0.0], dtype=dt)
        ),
    )
    rec.err(
        "bern_lp",
        lambda: D.Bernoulli(logits=lib.zeros(3, dtype=dt)).log_prob(
            lib.tensor([1.0, 2.0, 0.0], dtype=dt)
        ),
    )
    rec.err("bern_bad", lambda: D.Bernoulli(probs=lib.tensor([1.5], dtype=dt)))


def p_sampling_utils(lib, dt, rec):
    F = lib.nn.functional
    nn = lib.nn
    g = seeded_gen(lib, 5)
    p = lib.rand(3, 6, generator=g, dtype=dt)
    rec("mn_norep", lib.multinomial(p, 3, generator=g))
    rec("mn_norep_all", lib.multinomial(p, 6, generator=g))
    rec("mn_rep", lib.multinomial(p[0], 10, replacement=True, generator=g))
    st = g.get_state()
    a = lib.randperm(5000, generator=g)[:10]
    g.set_state(st)
    rec("rp_big", a)
    rec("rp_again", lib.randperm(5000, generator=g)[:10])
    rec("randint_dt", lib.randint(0, 5, (3,), generator=g, dtype=lib.int32))
    cdf = lib.cumsum(F.softmax(lib.randn(4, 5, generator=g, dtype=dt), -1), -1)
    u = lib.rand(4, 1, generator=g, dtype=dt)
    rec("ss", lib.searchsorted(cdf, u))
    rec("ss_r", lib.searchsorted(cdf, u, right=True))
    rec("bucket", lib.bucketize(u.squeeze(1), cdf[0]))
    m = nn.Module()
    m.register_buffer("mask", lib.ones(2, 2, dtype=lib.bool))
    m.register_buffer("order", lib.arange(3))
    m.register_buffer("fm", lib.ones(2, dtype=lib.float32))
    m.register_buffer("none", None)
    m.to(dt)
    rec("bufs", str([(n, str(b.dtype)) for n, b in m.named_buffers()]))
    m.half()
    rec("bufs_h", str([(n, str(b.dtype)) for n, b in m.named_buffers()]))
    rec("sd", str(list(m.state_dict().keys())))
    x = lib.randn(3, 4, generator=g, dtype=dt)
    rec("flip", x.flip(-1))
    rec("flip2", lib.flip(x, [0, 1]))
    rec("ms", lib.zeros(3, 4, dtype=dt).masked_scatter(x > 0, lib.arange(12, dtype=dt)))
    oh = lib.zeros(3, 5, dtype=dt).scatter_(1, lib.tensor([[1], [4], [0]]), 1.0)
    rec("oh", oh)
    # Conv3d masked
    w = lib.randn(2, 1, 3, 3, 3, generator=g, dtype=dt)
    mask = lib.ones_like(w)
    mask[:, :, 1, 1, 1:] = 0
    mask[:, :, 1, 2:] = 0
    mask[:, :, 2:] = 0
    v = lib.randn(1, 1, 4, 4, 4, generator=g, dtype=dt).requires_grad_(True)
    out = F.conv3d(v, w * mask, padding=1)
    out.sum().backward()
    rec("c3", out)
    rec("c3g", v.grad)
    # MAF-style inverse pass
    lib.manual_seed(7)
    lin = nn.Linear(4, 8, dtype=dt)
    mk = (lib.arange(4)[None, :] < lib.arange(4)[:, None]).to(dt).repeat(2, 1)

    def made(z):
        mu, alpha = F.linear(z, lin.weight * mk, lin.bias).chunk(2, -1)
        return mu, alpha

    u0 = lib.randn(2, 4, generator=g, dtype=dt)
    xx = lib.zeros_like(u0)
    for i in range(4):
        mu, alpha = made(xx)
        xx[:, i] = mu[:, i] + u0[:, i] * lib.exp(alpha[:, i])
    rec("maf_x", xx)
    mu, alpha = made(xx)
    rec("maf_u", (xx - mu) * lib.exp(-alpha) - u0)
    rec("logdet", -alpha.sum(1))


def p_edge_grads(lib, dt, rec):
    F = lib.nn.functional
    inf = math.inf
    x = lib.tensor([[-inf, -inf], [0.0, -inf], [1.0, 2.0]], dtype=dt, requires_grad=True)
    y = lib.logsumexp(x, 1)
    rec("lse", y)
    y.sum().backward()
    rec("lse_g", x.grad)
    x2 = lib.tensor([[-inf, 0.0, 1.0]], dtype=dt, requires_grad=True)
    ls = F.log_softmax(x2, -1)
    rec("ls", ls)
    (ls * lib.tensor([[0.0, 1.0, 2.0]], dtype=dt)).sum().backward()
    rec("ls_g", x2.grad)
    c = lib.tensor([-7.0, -8.0, -6.0, 3.0], dtype=dt, requires_grad=True)
    cl = lib.clamp(c, min=-7.0)
    cl.sum().backward()
    rec("cl_g", c.grad)
    c.grad = None
    lib.clamp(c, -7.0, 3.0).sum().backward()
    rec("cl2_g", c.grad)
    c.grad = None
    c.clamp(max=-7.0).sum().backward()
    rec("cl3_g", c.grad)
    c.grad = None
    lib.clamp(c, min=lib.full((4,), -7.0, dtype=dt)).sum().backward()
    rec("clt_g", c.grad)
    d = lib.tensor([0.0, 1e-3, 0.5], dtype=dt, requires_grad=True)
    out = lib.where(d > 1e-5, lib.log(d), lib.zeros_like(d))
    rec("wh", out)
    out.sum().backward()
    rec("wh_g", d.grad)
    d.grad = None
    out = lib.where(d > 1e-5, lib.log(lib.clamp(d, min=1e-12)), d * 2)
    out.sum().backward()
    rec("wh2_g", d.grad)
    s = lib.tensor([-100.0, -30.0, 19.99, 20.0, 20.01, 50.0, 100.0], dtype=dt, requires_grad=True)
    sp = F.softplus(s)
    rec("sp", sp)
    sp.sum().backward()
    rec("sp_g", s.grad)
    s.grad = None
    sp = F.softplus(s, beta=0.5, threshold=10)
    sp.sum().backward()
    rec("spb", sp)
    rec("spb_g", s.grad)
    s.grad = None
    ls = F.logsigmoid(s)
    ls.sum().backward()
    rec("lsig_g", s.grad)
    s.grad = None
    sg = lib.sigmoid(s)
    (sg - lib.sigmoid(s - 1)).sum().backward()
    rec("sig_g", s.grad)
    g = lib.autograd.grad(F.softplus(s).sum(), s, create_graph=True)[0]
    rec("sp_gg", lib.autograd.grad(g.sum(), s)[0])
    e = lib.tensor([-1.0, 0.0, 1.0], dtype=dt, requires_grad=True)
    el = F.elu(lib.cat([e, -e]))
    el.sum().backward()
    rec("elu_g", e.grad)
    # max with ties in sampling argmax are avoided; max over logits for values
    m = lib.tensor([[0.1, 0.7, 0.3]], dtype=dt, requires_grad=True)
    mv, mi = m.max(1)
    mv.sum().backward()
    rec("max_g", m.grad)
    rec("mi", mi)
    t = lib.tensor([0.0, 0.3], dtype=dt, requires_grad=True)
    rec("t_g", lib.autograd.grad((lib.tanh(t) * lib.sigmoid(t)).sum(), t, create_graph=True)[0])
    r = lib.round(lib.tensor([0.5, 1.5, 2.5, -0.5, 127.5], dtype=dt))
    rec("round", r)
    rec("round_dec", lib.round(lib.tensor([1.2345, 2.675], dtype=dt), decimals=2))
    q = ((lib.tensor([-1.0, -0.5, 0.0, 0.999, 1.0], dtype=dt) + 1) * 127.5).long()
    rec("q", q)
    rec("floor", lib.floor(lib.tensor([-0.5, 2.7], dtype=dt)))


def p_func_jacobians(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(3)
    lin1 = nn.Linear(4, 8, dtype=dt)
    lin2 = nn.Linear(8, 4, dtype=dt)
    m1 = (lib.arange(8)[:, None] % 3 >= lib.arange(4)[None, :]).to(dt)
    m2 = (lib.arange(4)[:, None] > lib.arange(8)[None, :] % 3).to(dt)

    def net(x):
        return F.linear(
            lib.relu(F.linear(x, lin1.weight * m1, lin1.bias)), lin2.weight * m2, lin2.bias
        )

    x = lib.randn(4, dtype=dt)
    J = lib.func.jacrev(net)(x)
    rec("jacrev", J)
    rec("jacfwd", lib.func.jacfwd(net)(x))
    xs = lib.randn(3, 4, dtype=dt)
    rec("vmap_jac", lib.func.vmap(lib.func.jacrev(net))(xs))
    rec("jac_vec", lib.autograd.functional.jacobian(net, x, vectorize=True))
    rec("triu", (J != 0).triu())
    params = {"weight": lin1.weight * 2, "bias": lin1.bias}
    rec("fcall", lib.func.functional_call(lin1, params, (xs,)))
    h = lib.func.hessian(lambda z: net(z).pow(2).sum())(x)
    rec("hess", h)
    conv = nn.Conv2d(1, 2, 3, padding=1, dtype=dt)
    mask = lib.ones(2, 1, 3, 3, dtype=dt)
    mask[:, :, 1, 1:] = 0
    mask[:, :, 2:] = 0
    img = lib.randn(1, 1, 3, 3, dtype=dt)

    def f(im):
        return F.conv2d(im, conv.weight * mask, conv.bias, padding=1)

    Jc = lib.func.jacrev(f)(img).reshape(18, 9)
    rec("jac_conv", Jc)
    rec("vjp", lib.func.vjp(f, img)[1](lib.ones(1, 2, 3, 3, dtype=dt))[0])
    rec("jvp", lib.func.jvp(f, (img,), (lib.ones_like(img),))[1])


def p_init_hooks_save(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(5)
    conv = nn.Conv2d(3, 6, 5, padding=2, dtype=dt)
    mask = lib.ones_like(conv.weight)
    mask[:, :, 2, 2:] = 0
    mask[:, :, 3:] = 0
    conv.weight.data[mask == 0] = 0
    rec("bool_idx", conv.weight)
    conv.weight.data.masked_fill_(mask == 0, 1.0)
    rec("mf", conv.weight)

    def init(m):
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            nn.init.constant_(m.bias, 0.1)
        elif isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
            nn.init.zeros_(m.bias)

    lib.manual_seed(6)
    seq = nn.Sequential(conv, nn.ReLU(), nn.Flatten(), nn.Linear(6 * 4 * 4, 3, dtype=dt))
    seq.apply(init)
    rec.params("init", seq)
    feats = []
    h = seq[1].register_forward_hook(lambda m, i, o: feats.append(o.detach().clone()))
    x = lib.randn(2, 3, 4, 4, dtype=dt, generator=seeded_gen(lib, 7))
    seq(x)
    h.remove()
    seq(x)
    rec("n_feats", len(feats))
    rec("feat", feats[0])
    rec("bin", lib.bernoulli(lib.sigmoid(x), generator=seeded_gen(lib, 8)))
    rec("thr", (x > 0.5).float())
    rec("newones", x.new_ones(2, 3))
    rec("newfull", x.new_full((2,), 3))
    p = nn.Parameter(conv.weight * mask)
    rec("param", p)
    rec("param_req", p.requires_grad)
    opt = lib.optim.RMSprop(seq.parameters(), lr=1e-3, alpha=0.95)
    sch = lib.optim.lr_scheduler.ExponentialLR(opt, 0.9)
    for _ in range(2):
        opt.zero_grad()
        loss = seq(x).pow(2).mean()
        loss.backward()
        n = nn.utils.clip_grad_norm_(seq.parameters(), 0.5, error_if_nonfinite=True)
        rec("norm", n)
        opt.step()
        sch.step()
    rec.params("after", seq)
    rec("lr", str(sch.get_last_lr()))
    seq[0].weight.grad[0, 0, 0, 0] = math.nan
    rec.err(
        "nonfinite",
        lambda: nn.utils.clip_grad_norm_(seq.parameters(), 0.5, error_if_nonfinite=True),
    )
    with lib.autograd.detect_anomaly():
        z = lib.tensor([0.0, 1.0], dtype=dt, requires_grad=True)
        y = lib.where(z > 0, lib.log(z), z).sum()
        rec.err("anomaly", lambda: y.backward())
    up = F.interpolate(x, scale_factor=2, mode="nearest")
    rec("up", up)
    buf = io.BytesIO()
    lib.save({"mask": mask, "sd": seq.state_dict()}, buf)
    buf.seek(0)
    ld = lib.load(buf)
    rec("ld_mask", ld["mask"])
    rec("ld_keys", str(list(ld["sd"].keys())))


def p_warnings(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    rec.warns("wn", lambda: nn.utils.weight_norm(nn.Linear(2, 2, dtype=dt)))
    m = nn.utils.weight_norm(nn.Linear(2, 2, dtype=dt))
    rec.warns("rm_wn", lambda: nn.utils.remove_weight_norm(m))
    rec.warns("sn", lambda: nn.utils.spectral_norm(nn.Linear(2, 2, dtype=dt)))
    x = lib.ones(2, 3, dtype=dt)
    rec.warns("size_avg", lambda: F.cross_entropy(x, lib.tensor([0, 1]), size_average=True))
    rec.warns("reduce", lambda: nn.CrossEntropyLoss(reduce=False))
    rec.warns(
        "sched",
        lambda: lib.optim.lr_scheduler.StepLR(lib.optim.SGD([nn.Parameter(x)], lr=0.1), 1).step(),
    )
    rec.warns("clip", lambda: nn.utils.clip_grad_norm(nn.Linear(2, 2).parameters(), 1.0))
    rec.warns("dropout", lambda: nn.Dropout2d(0.5)(lib.ones(3, 4, dtype=dt)))
    rec.warns("dropout3", lambda: F.dropout2d(lib.ones(2, 3, 4, dtype=dt), 0.0))
    rec.warns("softmax_none", lambda: nn.Softmax(dim=None)(x))
    rec.warns("tensor_tensor", lambda: lib.tensor(x))
    rec.warns("nll_dim", lambda: F.nll_loss(F.log_softmax(x, 1), lib.tensor([0, 2]), reduce=True))
    rec.warns("elu_inplace", lambda: F.elu_(x.clone()))
    rec.warns("lr_before", lambda: _sched_before(lib, x))


def _sched_before(lib, x):
    p = lib.nn.Parameter(x.clone())
    opt = lib.optim.Adam([p], lr=0.1)
    s = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    s.step()


def p_conditional_dists(lib, dt, rec):
    nn, F, D = lib.nn, lib.nn.functional, lib.distributions
    g = seeded_gen(lib, 9)
    logits = lib.randn(2, 4, 3, 3, generator=g, dtype=dt, requires_grad=True)
    x = lib.randint(0, 4, (2, 3, 3), generator=g)
    d = D.Categorical(logits=logits.permute(0, 2, 3, 1))
    lp = d.log_prob(x)
    rec("lp", lp)
    rec("bs", str(d.batch_shape))
    ind = D.Independent(d, 2)
    rec("ind_lp", ind.log_prob(x))
    rec("ind_bs", str((ind.batch_shape, ind.event_shape)))
    (-ind.log_prob(x).mean()).backward()
    rec("g", logits.grad)
    rec("ent", ind.entropy())
    b = D.Independent(D.Bernoulli(logits=logits[:, :1].detach()), 3)
    xb = (x[:, None] > 1).to(dt)
    rec("b_lp", b.log_prob(xb))
    rec("b_mean", b.mean)
    rec("b_repr", repr(b))
    y = lib.tensor([1, 3])
    oh = F.one_hot(y, 5).to(dt)
    rec("oh", oh)
    lib.manual_seed(10)
    lin = nn.Linear(5, 8, dtype=dt)
    rec("cond", lin(oh)[:, :, None, None].expand(-1, -1, 3, 3))
    t = lib.arange(2 * 3 * 6 * 6, dtype=dt).view(2, 3, 6, 6)
    rec("tunfold", t.unfold(2, 3, 3).unfold(3, 3, 3).shape)
    rec("tunfold_v", t.unfold(2, 2, 2)[0, 0, 1])
    rec("ps", nn.PixelShuffle(2)(t[:, :, :3, :3].repeat(1, 4, 1, 1)))
    rec("pu", nn.PixelUnshuffle(2)(t))
    bn = D.Binomial(255, logits=logits[:, 0].detach())
    rec("binom_lp", bn.log_prob(lib.full((2, 3, 3), 100.0, dtype=dt)))
    rec.err("binom_bad", lambda: bn.log_prob(lib.full((2, 3, 3), 300.0, dtype=dt)))
    mix = D.MixtureSameFamily(
        D.Categorical(logits=logits.detach().permute(0, 2, 3, 1)),
        D.Normal(lib.zeros(2, 3, 3, 4, dtype=dt), lib.ones(2, 3, 3, 4, dtype=dt)),
    )
    rec("mix_lp", mix.log_prob(lib.zeros(2, 3, 3, dtype=dt) + 0.3))
    rec("mix_cdf", mix.cdf(lib.zeros(2, 3, 3, dtype=dt) + 0.3))


def p_inference_sampling(lib, dt, rec):
    nn = lib.nn
    lib.manual_seed(11)
    conv = nn.Conv2d(1, 2, 3, padding=1, dtype=dt)
    with lib.inference_mode():
        s = lib.zeros(1, 1, 3, 3, dtype=dt)
        for i in range(3):
            s[:, :, i, 0] = conv(s)[:, 0, i, 0]
    rec("s", s)
    rec("is_inf", s.is_inference())
    rec.err("save", lambda: conv(s).sum().backward())
    rec("clone_ok", s.clone().requires_grad_(True).sum())
    # (torch applies the update before it raises: s is not recorded after this)
    rec.err("inplace", lambda: s.add_(1))
    rec.err("req", lambda: s.requires_grad_(True))
    w = lib.ones(2, 3, dtype=dt, requires_grad=True)
    rec.err("leaf_inplace", lambda: w.mul_(lib.zeros(2, 3, dtype=dt)))
    rec.err("leaf_idx", lambda: w.__setitem__((0, 0), 0.0))
    with lib.no_grad():
        w[0, 0] = 0.0
    rec("w", w)
    rec("ver", w._version)
    y = w * 2
    z = y.sigmoid()
    rec.err("modified", lambda: (y.mul_(2), z.sum().backward()))
    y2 = (w * 3).tanh()
    y2.add_(1)
    rec.err("tanh_mod", lambda: y2.sum().backward())


def p_wavenet(lib, dt, rec):
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(12)

    class CausalConv1d(nn.Conv1d):
        def __init__(self, cin, cout, k, dilation=1):
            super().__init__(cin, cout, k, dilation=dilation, padding=(k - 1) * dilation)

        def forward(self, x):
            out = super().forward(x)
            return out[:, :, : -self.padding[0]] if self.padding[0] else out

    mu = 15
    t = lib.linspace(-1, 1, 20, dtype=dt)
    wav = 0.8 * lib.sin(6.0 * t)
    enc = lib.sign(wav) * lib.log1p(mu * lib.abs(wav)) / math.log1p(mu)
    q = ((enc + 1) / 2 * mu + 0.5).long()
    rec("enc", enc)
    rec("q", q)
    dec = lib.sign(enc) * (lib.pow(1 + mu, lib.abs(enc)) - 1) / mu
    rec("dec", dec)
    layers = nn.ModuleList(
        [CausalConv1d(16 if i == 0 else 8, 16, 2, dilation=2**i) for i in range(3)]
    ).to(dt)
    res = nn.ModuleList([nn.Conv1d(8, 8, 1) for _ in range(3)]).to(dt)
    out_conv = nn.Conv1d(8, 16, 1).to(dt)
    x = F.one_hot(q, 16).T.unsqueeze(0).to(dt).requires_grad_(True)
    h = x
    skips = 0
    for i, (conv, r) in enumerate(zip(layers, res, strict=True)):
        a, b = conv(h).chunk(2, 1)
        z = lib.tanh(a) * lib.sigmoid(b)
        skips = skips + z
        h = r(z) + (h if i else 0)
    logits = out_conv(F.relu(skips))
    rec("logits", logits)
    loss = F.cross_entropy(logits[:, :, :-1], q[None, 1:])
    loss.backward()
    rec("loss", loss)
    rec("gx", x.grad)
    gx = x.grad[0].abs().sum(0)
    rec("rf", gx)
    c1 = F.conv1d(F.pad(x.detach(), (3, 0)), lib.ones(2, 16, 4, dtype=dt), dilation=1)
    rec("c1", c1)
    rec.err("c1_err", lambda: F.conv1d(x.detach(), lib.ones(2, 15, 2, dtype=dt)))
    rec.err(
        "c1_small", lambda: F.conv1d(x.detach()[:, :, :2], lib.ones(2, 16, 2, dtype=dt), dilation=4)
    )
