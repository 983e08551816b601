"""nn.init and nn layers draw torch's numbers (session 21, h20): after manual_seed(s) a layer
built with the same code gets torch 2.13's initial weights; the init functions fill the tensor
itself (a strided tensor takes torch's strided path), sparse_ zeroes rows drawn from the default
generator, orthogonal_ refuses the half types, dirac_ / normal_ edge cases as torch.

Every literal below was obtained by running torch 2.13.0 (CPU) on the same code.
"""

import math

import numpy as np
import pytest

import minitorch as torch
from minitorch import nn

# layer: (constructor source, {state_dict key: (first two values, float64 sum)}) after
# manual_seed(0) in torch
SPECS = {
    "Linear": (
        "nn.Linear(5, 3)",
        {
            "weight": ([-0.003348207799717784, 0.23990486562252045], -1.2194225860293955),
            "bias": ([0.016566388309001923, 0.17679926753044128], 0.4617040082812309),
        },
    ),
    "Bilinear": (
        "nn.Bilinear(4, 5, 3)",
        {
            "weight": ([-0.003743410110473633, 0.26822179555892944], -2.1854617595672607),
            "bias": ([0.2262365221977234, 0.20108020305633545], 0.13114047050476074),
        },
    ),
    "Conv2d": (
        "nn.Conv2d(4, 6, 3, groups=2)",
        {
            "weight": ([-0.0017646604683250189, 0.12644097208976746], -0.915520723676309),
            "bias": ([-0.012987101450562477, 0.035389527678489685], 0.1361707877367735),
        },
    ),
    "ConvTranspose3d": (
        "nn.ConvTranspose3d(2, 4, 2, groups=2)",
        {
            "weight": ([-0.0018717050552368164, 0.13411089777946472], -0.38941580057144165),
            "bias": ([-0.16204491257667542, -0.11508321762084961], -0.6859284937381744),
        },
    ),
    "Embedding": (
        "nn.Embedding(10, 4, padding_idx=2)",
        {
            "weight": ([-1.1258398294448853, -1.152360200881958], -2.9371430492028594),
        },
    ),
    "EmbeddingBag": (
        "nn.EmbeddingBag(10, 4, mode='max')",
        {
            "weight": ([-1.1258398294448853, -1.152360200881958], -3.2200857615098357),
        },
    ),
    "LSTM": (
        "nn.LSTM(3, 4, 2, bidirectional=True, proj_size=2)",
        {
            "weight_ih_l0": ([-0.003743410110473633, 0.26822179555892944], -2.170033872127533),
            "weight_hh_l0": ([-0.2217475175857544, -0.01804119348526001], 1.7197964787483215),
            "bias_ih_l0": ([-0.4659770727157593, 0.44424623250961304], -0.3841665983200073),
            "bias_hh_l0": ([0.2496575117111206, 0.10465067625045776], -0.9682624936103821),
            "weight_hr_l0": ([-0.30426955223083496, 0.45368504524230957], 0.16008079051971436),
            "weight_ih_l0_reverse": (
                [0.19621413946151733, 0.029950082302093506],
                -3.4183576703071594,
            ),
            "weight_hh_l0_reverse": (
                [-0.450029194355011, -0.03374361991882324],
                -0.1878562569618225,
            ),
            "bias_ih_l0_reverse": (
                [0.021034061908721924, 0.32231152057647705],
                0.07417535781860352,
            ),
            "bias_hh_l0_reverse": (
                [-0.39110255241394043, -0.26206570863723755],
                -0.509321391582489,
            ),
            "weight_hr_l0_reverse": (
                [0.06241941452026367, 0.4478464126586914],
                0.30596786737442017,
            ),
            "weight_ih_l1": ([0.16509604454040527, 0.3751140236854553], -2.057664215564728),
            "weight_hh_l1": ([0.09819042682647705, -0.37124472856521606], 0.8951995372772217),
            "bias_ih_l1": ([0.3775838017463684, 0.4998074173927307], 2.810804307460785),
            "bias_hh_l1": ([-0.08997029066085815, 0.19465625286102295], 0.09910094738006592),
            "weight_hr_l1": ([-0.3412155508995056, -0.08079129457473755], -1.7883978486061096),
            "weight_ih_l1_reverse": ([0.41123872995376587, 0.4093800187110901], 3.3499327301979065),
            "weight_hh_l1_reverse": (
                [-0.48064666986465454, -0.48583030700683594],
                -0.6677080988883972,
            ),
            "bias_ih_l1_reverse": (
                [0.28751450777053833, -0.05630463361740112],
                -0.15200507640838623,
            ),
            "bias_hh_l1_reverse": ([0.016078054904937744, -0.1545889973640442], 0.7282761335372925),
            "weight_hr_l1_reverse": (
                [0.42326462268829346, -0.26947516202926636],
                0.7011477947235107,
            ),
        },
    ),
    "GRUCell": (
        "nn.GRUCell(3, 5)",
        {
            "weight_ih": ([-0.003348207799717784, 0.23990486562252045], -2.254760160809383),
            "weight_hh": ([-0.23055201768875122, 0.2821640074253082], 0.7855867929756641),
            "bias_ih": ([0.17549926042556763, 0.026788167655467987], -1.3448419868946075),
            "bias_hh": ([-0.04597366973757744, 0.01242905668914318], 0.5254776426590979),
        },
    ),
    "MultiheadAttention": (
        "nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)",
        {
            "q_proj_weight": ([0.24066844582557678, 0.5073808431625366], -2.2809112891554832),
            "k_proj_weight": ([0.020525911822915077, -0.06371380388736725], -1.0013897684402764),
            "v_proj_weight": ([-0.13085630536079407, -0.13338860869407654], -1.8659345898777246),
            "in_proj_bias": ([0.0, 0.0], 0.0),
            "bias_k": ([0.4752005934715271, 0.8425952792167664], -0.8214571177959442),
            "bias_v": ([0.1763475388288498, -0.18502271175384521], -0.8571998402476311),
            "out_proj.weight": ([-0.0026469905860722065, 0.18966144323349], -1.345813523977995),
            "out_proj.bias": ([0.0, 0.0], 0.0),
        },
    ),
    "TransformerDecoderLayer": (
        "nn.TransformerDecoderLayer(8, 2, 16)",
        {
            "self_attn.in_proj_weight": (
                [0.17017827928066254, 0.3587723970413208],
                -4.00654603150906,
            ),
            "self_attn.in_proj_bias": ([0.0, 0.0], 0.0),
            "self_attn.out_proj.weight": (
                [-0.0026469905860722065, 0.18966144323349],
                -1.345813523977995,
            ),
            "self_attn.out_proj.bias": ([0.0, 0.0], 0.0),
            "multihead_attn.in_proj_weight": (
                [0.32699716091156006, 0.43284592032432556],
                4.088471089489758,
            ),
            "multihead_attn.in_proj_bias": ([0.0, 0.0], 0.0),
            "multihead_attn.out_proj.weight": (
                [0.12824198603630066, -0.11807258427143097],
                -0.2765067331492901,
            ),
            "multihead_attn.out_proj.bias": ([0.0, 0.0], 0.0),
            "linear1.weight": ([-0.0009653313900344074, -0.17129503190517426], -1.3230302167939954),
            "linear1.bias": ([0.057152051478624344, 0.3255363404750824], 0.5397280305624008),
            "linear2.weight": ([-0.04391160607337952, 0.081021249294281], 0.19920241832733154),
            "linear2.bias": ([0.11121562123298645, -0.10685920715332031], 0.35745853185653687),
            "norm1.weight": ([1.0, 1.0], 8.0),
            "norm1.bias": ([0.0, 0.0], 0.0),
            "norm2.weight": ([1.0, 1.0], 8.0),
            "norm2.bias": ([0.0, 0.0], 0.0),
            "norm3.weight": ([1.0, 1.0], 8.0),
            "norm3.bias": ([0.0, 0.0], 0.0),
        },
    ),
    "BatchNorm1d": (
        "nn.BatchNorm1d(3)",
        {
            "weight": ([1.0, 1.0], 3.0),
            "bias": ([0.0, 0.0], 0.0),
            "running_mean": ([0.0, 0.0], 0.0),
            "running_var": ([1.0, 1.0], 3.0),
        },
    ),
    "PReLU": (
        "nn.PReLU(3)",
        {
            "weight": ([0.25, 0.25], 0.75),
        },
    ),
    "AdaptiveLogSoftmaxWithLoss": (
        "nn.AdaptiveLogSoftmaxWithLoss(8, 20, [5, 10], div_value=2.0)",
        {
            "head.weight": ([-0.0026469905860722065, 0.18966144323349], -0.9094426743686199),
            "tail.0.0.weight": ([0.06588256359100342, -0.27411189675331116], 0.2784521905705333),
            "tail.0.1.weight": ([0.19227808713912964, -0.2961517572402954], -1.0497575402259827),
            "tail.1.0.weight": ([-0.01948065310716629, 0.05308429151773453], 0.36650865338742733),
            "tail.1.1.weight": ([-0.678291380405426, -0.4191069006919861], -0.21807806752622128),
        },
    ),
}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_layer_initial_weights_are_torchs(name):
    src, expected = SPECS[name]
    torch.manual_seed(0)
    module = eval(src, {"nn": nn})
    state = {k: v for k, v in module.state_dict().items() if v.dtype.is_floating_point}
    assert list(state) == list(expected), name
    for key, (first, total) in expected.items():
        got = state[key].detach().flatten()
        np.testing.assert_array_equal(got[:2].tolist(), first, err_msg=f"{name}.{key}")
        np.testing.assert_allclose(
            got.double().sum().item(), total, rtol=1e-12, atol=1e-12, err_msg=f"{name}.{key}"
        )


def test_sparse_draws_values_then_a_randperm_per_column():
    torch.manual_seed(0)
    w = torch.empty(5, 3)
    assert nn.init.sparse_(w, 0.4, std=0.5) is w
    expected = [
        0.7704980373382568, -0.146714448928833, -1.0893946886062622, 0.0, -0.5422611832618713,
        -0.6992977261543274, 0.20167341828346252, 0.0, -0.3596287965774536, 0.0,
        -0.29831767082214355, 0.0, -0.42833730578422546, 0.0, 0.0,
    ]  # fmt: skip
    np.testing.assert_array_equal(w.flatten().tolist(), np.float32(expected))
    after = torch.rand(2, dtype=torch.float64).tolist()
    np.testing.assert_array_equal(after, [0.10973526023744606, 0.5237520594022435])


def test_sparse_zero_rows_come_from_the_default_generator():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(7)
    w = torch.empty(4, 2, dtype=torch.float64)
    nn.init.sparse_(w, 0.5, std=1.0, generator=g)
    expected = [
        0.0, 0.0, 0.0, -1.1143440212610307, 1.6907901257942333, 0.0, -0.3556250270062136,
        1.2323857451651945,
    ]  # fmt: skip
    np.testing.assert_array_equal(w.flatten().tolist(), expected)
    after = torch.rand(2, dtype=torch.float64).tolist()  # the default stream gave the randperms
    np.testing.assert_array_equal(after, [0.9207476841219603, 0.6450241201227648])


def test_sparse_half_draws_in_half():
    torch.manual_seed(0)
    w = torch.empty(6, 3, dtype=torch.float16)
    nn.init.sparse_(w, 0.5, std=1.0)
    expected = [
        0.0, -1.15234375, -1.3525390625, 0.0, 0.0, 0.0, 0.5986328125, 0.0, -0.34130859375,
        1.8525390625, 0.75, -0.58544921875, -0.17333984375, 0.1834716796875, 0.0, 0.0, 0.0, 0.0,
    ]  # fmt: skip
    np.testing.assert_array_equal(w.float().flatten().tolist(), expected)


@pytest.mark.parametrize(("dtype", "label"), [("float16", "Half"), ("bfloat16", "BFloat16")])
def test_orthogonal_refuses_half_types_after_drawing(dtype, label):
    torch.manual_seed(0)
    with pytest.raises(NotImplementedError, match=f"\"geqrf_cpu\" not implemented for '{label}'"):
        nn.init.orthogonal_(torch.empty(3, 4, dtype=getattr(torch, dtype)))
    after = torch.rand(2, dtype=torch.float64).tolist()
    np.testing.assert_array_equal(after, [0.35526675833930643, 0.6219052486795277])


def test_dirac_with_an_empty_spatial_dim():
    with pytest.raises(IndexError, match="index 0 is out of bounds for dimension 3 with size 0"):
        nn.init.dirac_(torch.empty(2, 2, 3, 0))
    with pytest.raises(IndexError, match="index 0 is out of bounds for dimension 2 with size 0"):
        nn.init.dirac_(torch.empty(2, 2, 0, 3, 1))
    assert nn.init.dirac_(torch.empty(0, 2, 0)).shape == (0, 2, 0)


def test_normal_of_an_empty_integer_tensor_and_check_order():
    t = torch.empty(0, dtype=torch.int64)
    assert nn.init.normal_(t) is t
    with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
        nn.init.normal_(torch.empty(2, dtype=torch.int64), 0, -1)


def test_strided_targets_take_torchs_strided_path():
    # 24 strided elements: torch draws one normal at a time (not blocks of 16)
    torch.manual_seed(0)
    w = torch.empty(4, 10)
    nn.init.normal_(w[:, 2:], 0.0, 2.0)
    expected = [
        3.0819921493530273, -0.586857795715332, -4.357578754425049, -1.4385151863098145,
        -0.80668705701828, -1.1932706832885742, -1.1326349973678589, 0.7462292909622192,
        -1.7839906215667725, 0.38373884558677673, 2.5275895595550537, -2.5808701515197754,
    ]  # fmt: skip
    np.testing.assert_array_equal(w[:, 2:5].flatten().tolist(), np.float32(expected))

    torch.manual_seed(0)
    w = torch.empty(4, 12, dtype=torch.float64)
    nn.init.kaiming_normal_(w[:, ::2])
    expected = [
        0.8896945179148642, -0.16941125772909973, -1.2579246362482444, 0.3281839509537964,
        -0.626149266340672, -0.8074794280047468, 0.23287241105556294, 0.48383472894419394,
        -0.415263556545963, -0.23287049269548354, -0.34446758721389376, 0.10509881365247806,
    ]  # fmt: skip
    np.testing.assert_array_equal(w[:2, ::2].flatten().tolist(), expected)


def test_init_on_a_parameter_keeps_it_and_bumps_its_version():
    w = nn.Parameter(torch.empty(3, 20))
    v = w._version
    assert nn.init.uniform_(w[:, 1:], -1.0, 1.0).shape == (3, 19)
    assert w.requires_grad and w.grad_fn is None and w._version == v + 1
    assert math.isfinite(w.sum().item())


def test_dropout_mlp_adam_trace_float64():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 3))
    x = torch.randn(32, 6, dtype=torch.float64)
    y = torch.randint(0, 3, (32,))
    model.double()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(5):
        idx = torch.randperm(32)[:8]
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        losses.append(loss.item())
    expected = [
        1.1327175241043805, 1.117794484632396, 1.121488122853994, 1.1650715138953958,
        1.0453767184713483,
    ]  # fmt: skip
    np.testing.assert_allclose(losses, expected, rtol=1e-12)
