"""Optimizers bit for bit with torch 2.13 (CPU): torch's kernels round add/sub with alpha,
addcmul and lerp once (fused multiply-adds), and its multi-tensor (foreach) steps order some
updates differently; every literal below is torch's result (bit patterns), obtained by running
torch here on the same inputs."""

import numpy as np
import pytest

import minitorch

# (optimizer, kwargs, dtype, seed, torch's parameter bits after 7 steps)
CASES = [
    (
        "SGD",
        {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.01},
        "float32",
        3,
        [
            0x40016F73,
            0xC0313861,
            0x3E930DD5,
            0xBF02461A,
            0xBEA70FA0,
            0xBEAD9904,
            0xBFF870C5,
            0xBE062778,
        ],
    ),
    (
        "SGD",
        {"lr": 0.01, "momentum": 0.9, "weight_decay": 0.01},
        "float64",
        0,
        [
            0x3FC36A9400329E1B,
            0xBFC2BE76BFF5680D,
            0x3FE499FEFF26AA6A,
            0x3FB66D07DAA6169F,
            0xBFD79920C5E502C4,
            0x3FD3ED38483D12C4,
            0x3FF6108DC03B5455,
            0x3FEBC7FDE1F70202,
        ],
    ),
    (
        "SGD",
        {"lr": 0.01, "momentum": 0.5, "nesterov": True, "foreach": True},
        "float32",
        0,
        [
            0x3DF8C9EF,
            0xBE32FC04,
            0x3F24343F,
            0x3DE379C4,
            0xBEED49E8,
            0x3EB2AAC0,
            0x3FA86CFF,
            0x3F64C5FB,
        ],
    ),
    (
        "SGD",
        {"lr": 0.01, "momentum": 0.5, "nesterov": True, "foreach": True},
        "float64",
        0,
        [
            0x3FBF193DFB5AF0B8,
            0xBFC65F8086E69313,
            0x3FE48687E54F1425,
            0x3FBC6F389ABC41D1,
            0xBFDDA93CDC1B571C,
            0x3FD6555809D70D28,
            0x3FF50D9FB5190225,
            0x3FEC98BF549EBFC9,
        ],
    ),
    (
        "Adam",
        {"lr": 0.01, "weight_decay": 0.01},
        "float32",
        4,
        [
            0xBF1E9533,
            0xBE4C6252,
            0x3FD598CE,
            0x3F24E7AC,
            0xBFD3D92F,
            0x3C9A3A13,
            0xBF15CD49,
            0x3DE4D4F3,
        ],
    ),
    (
        "Adam",
        {"lr": 0.01, "weight_decay": 0.01},
        "float64",
        5,
        [
            0xBFEB2A6134E1EDE0,
            0xBFF59268D62F1D07,
            0xBFCCB9BBABDF5730,
            0x3FDE33C2910CAF0F,
            0x3FF321EA940D1AE9,
            0x3FB61F70EF58D8D2,
            0xBFE170EF06B540F3,
            0xBFE7441EFB65146C,
        ],
    ),
    (
        "AdamW",
        {"lr": 0.01, "amsgrad": True},
        "float32",
        1,
        [
            0x3EB400C2,
            0x3F50F5E7,
            0x3EAD5343,
            0xBFA7115C,
            0x3F6F60CA,
            0x3EFA6DD9,
            0xBF0F4D42,
            0x3F11355A,
        ],
    ),
    (
        "AdamW",
        {"lr": 0.01, "amsgrad": True},
        "float64",
        3,
        [
            0x4000580EE21699BF,
            0xC004C2A72BEF09E2,
            0x3FD7A18D50AA2666,
            0xBFE0C82E1E7E9B60,
            0xBFDA172C56EDFE17,
            0xBFCEC376C73F8DD5,
            0xBFFFCEDFBC92D92C,
            0xBFC724F0644A85CD,
        ],
    ),
    (
        "Adamax",
        {"lr": 0.01, "weight_decay": 0.01},
        "float32",
        12,
        [
            0xBA848793,
            0x3F83097F,
            0x3F436D7E,
            0x3F337836,
            0x3FD04FA2,
            0xBF994A2F,
            0xBF1BBCD5,
            0xBFABF12A,
        ],
    ),
    (
        "Adamax",
        {"lr": 0.01, "weight_decay": 0.01},
        "float64",
        4,
        [
            0xBFE3E975BB81B9E1,
            0xBFC8E9A5F64E41D3,
            0x3FFA9771BEFABF02,
            0x3FE4A95E820FAA1D,
            0xBFFA7777933AF11F,
            0x3F70D3E868E3220A,
            0xBFE319BDFC867D79,
            0x3FBFC915E375CE75,
        ],
    ),
    (
        "NAdam",
        {"lr": 0.01, "foreach": True},
        "float32",
        0,
        [
            0x3E09BDAB,
            0xBE15135B,
            0x3F2584F4,
            0x3DC0C7C0,
            0xBF0340F2,
            0x3EBAA162,
            0x3FA8459E,
            0x3F6F1F15,
        ],
    ),
    (
        "NAdam",
        {"lr": 0.01, "foreach": True},
        "float64",
        0,
        [
            0x3FC137B53A3C9F34,
            0xBFC2A26B569D750F,
            0x3FE4B09E61463EEF,
            0x3FB818F816791052,
            0xBFE0681E3556E532,
            0x3FD7542C5D43CC13,
            0x3FF508B3C9CD6C69,
            0x3FEDE3E27C045AA6,
        ],
    ),
    (
        "RAdam",
        {"lr": 0.01, "foreach": True},
        "float32",
        4,
        [
            0xBF1974E7,
            0xBE3E788D,
            0x3FD4FF76,
            0x3F23E5CE,
            0xBFD3191C,
            0x3C88C84A,
            0xBF16AEB4,
            0x3DCF0C36,
        ],
    ),
    (
        "RAdam",
        {"lr": 0.01, "foreach": True},
        "float64",
        0,
        [
            0x3FC2710342060CA3,
            0xBFBBC522262E43E8,
            0x3FE4CEF358C532EF,
            0x3FB8411D03943F9B,
            0xBFDE8DFC8BD527E0,
            0x3FD64C747594D72F,
            0x3FF570B3AEF1B83B,
            0x3FEE50A61C8E345A,
        ],
    ),
    (
        "RMSprop",
        {"lr": 0.01, "momentum": 0.9, "centered": True},
        "float32",
        9,
        [
            0x3F0E2275,
            0x3F1128F0,
            0xBF6E7987,
            0xBDA9C7E8,
            0x3FFDAACE,
            0xBF54ABA9,
            0x3ED3ED2E,
            0xBF3A6BD7,
        ],
    ),
    (
        "RMSprop",
        {"lr": 0.01, "momentum": 0.9, "centered": True},
        "float64",
        0,
        [
            0x3FE762F78F1CAC24,
            0x3F8B69C5230CE2F5,
            0x3FEDD17A56E39B37,
            0xBFE612B99BF5A4F0,
            0x3FC6B4059D88DFD1,
            0x3FDB6CF168D3343C,
            0x40002C5180669B58,
            0x3FEB4F1C5A5BF250,
        ],
    ),
    (
        "Adagrad",
        {"lr": 0.1, "weight_decay": 0.01},
        "float32",
        2,
        [
            0x3C1EC358,
            0xBF1B34B2,
            0xBF1EFCE6,
            0xC002BD5A,
            0x3FF1C2A9,
            0x3F962FC9,
            0xBEF0C65E,
            0x3F2BEBA4,
        ],
    ),
    (
        "Adagrad",
        {"lr": 0.1, "weight_decay": 0.01},
        "float64",
        0,
        [
            0x3FCAE36BDEB07028,
            0xBFCA7E37E5470826,
            0x3FE616AF05E57E83,
            0xBF8623C6BCB04B3A,
            0xBFD81A3DC4299AA9,
            0x3FD9465E3EC887AD,
            0x3FF65D21BD2F73DC,
            0x3FEBB850BC90C157,
        ],
    ),
    (
        "Adadelta",
        {"lr": 1.0, "weight_decay": 0.01},
        "float32",
        3,
        [
            0x40024246,
            0xC023D092,
            0x3ECF1E4A,
            0xBF0E5504,
            0xBEE0FAD8,
            0xBE668DDC,
            0xC000CD3A,
            0xBE617EFD,
        ],
    ),
    (
        "Adadelta",
        {"lr": 1.0, "weight_decay": 0.01},
        "float64",
        10,
        [
            0xBFF1A5D8C8292CB9,
            0xBFE6AD104DA34031,
            0xBFE8D11BF898964C,
            0x3FD08471C99E7525,
            0xBFCE693A7D534FC4,
            0x3FC0C6CDA7772E8C,
            0x3FEB074E120BC893,
            0x3FEBD7474654394F,
        ],
    ),
    (
        "ASGD",
        {"lr": 0.01, "weight_decay": 0.01},
        "float32",
        0,
        [
            0x3DF7B49E,
            0xBE219559,
            0x3F246611,
            0x3DE26384,
            0xBEFEEBDC,
            0x3EB6E792,
            0x3FA71588,
            0x3F6B35A4,
        ],
    ),
    (
        "ASGD",
        {"lr": 0.01, "weight_decay": 0.01},
        "float64",
        0,
        [
            0x3FBEF694572B829D,
            0xBFC432AB24DE1EC8,
            0x3FE48CC24F31ACD7,
            0x3FBC4C70A6365F4C,
            0xBFDFDD7BE0EDD333,
            0x3FD6DCF2620E0506,
            0x3FF4E2B123EEF8C5,
            0x3FED66B4C17E3CD6,
        ],
    ),
    (
        "ASGD",
        {"lr": 0.01, "t0": 1, "foreach": True},
        "float32",
        0,
        [
            0x3DF7E520,
            0xBE21ACD6,
            0x3F248380,
            0x3DE28853,
            0xBEFF1AAC,
            0x3EB707F3,
            0x3FA733CB,
            0x3F6B60BA,
        ],
    ),
    (
        "ASGD",
        {"lr": 0.01, "t0": 1, "foreach": True},
        "float64",
        0,
        [
            0x3FBEFCA45A934730,
            0xBFC4359AE342AB50,
            0x3FE490702E7FE5CD,
            0x3FBC510AA4B9F271,
            0xBFDFE3553AEAF675,
            0x3FD6E0FE612DCA15,
            0x3FF4E6795E2605A5,
            0x3FED6C177C2307FC,
        ],
    ),
]


def _bits(a):
    return [int(v) for v in a.view(np.uint32 if a.dtype == np.float32 else np.uint64)]


def _run(name, kw, dtype, seed):
    rng = np.random.default_rng(seed)
    p0, grads = rng.standard_normal(8), rng.standard_normal((7, 8))
    dt = getattr(minitorch, dtype)
    p = minitorch.tensor(p0, dtype=dt, requires_grad=True)
    opt = getattr(minitorch.optim, name)([p], **kw)
    for g in grads:
        p.grad = minitorch.tensor(g, dtype=dt)
        opt.step()
    return _bits(p.detach().numpy())


@pytest.mark.parametrize("name,kw,dtype,seed,want", CASES)
def test_optimizer_steps_match_torch_bits(name, kw, dtype, seed, want):
    assert _run(name, kw, dtype, seed) == want


# torch.lerp (number weight 0.3 and 0.7, tensor weight), addcmul and addcdiv (value=0.37) of
# rng(27)'s inputs: torch's bits
KERNELS = {
    "float32": {
        "lerp_0.3": [
            0x3E1C5D1B,
            0x3BB09993,
            0xBF169854,
            0xBEE03219,
            0x3F51E6E4,
            0x3F2657BE,
            0xBF4E0F87,
            0xBF0224D7,
        ],
        "lerp_0.7": [
            0xBE2F1A63,
            0x3F025272,
            0xBEB995A6,
            0xBF0D222A,
            0x3F4365AD,
            0x3F3E6308,
            0xBF125089,
            0xBEC4481F,
        ],
        "lerp_w": [
            0xBC741D59,
            0xBF74AE00,
            0xBEDC999F,
            0xBEA65E4C,
            0x3F521D57,
            0x3F43D0EA,
            0xBFC3BD19,
            0xBF32F662,
        ],
        "addcmul": [
            0x3E116BA1,
            0x3DB36849,
            0xBF4E25D3,
            0xBF48F19B,
            0x3FB1212A,
            0x3F3C7736,
            0xBF9318AE,
            0xBF36372F,
        ],
        "addcdiv": [
            0x3E9B22AF,
            0xBE0D9DCE,
            0xBF5D5FCD,
            0xBEF6548C,
            0x3F7FB347,
            0x3F943368,
            0xBF8DB6DF,
            0xBF34F431,
        ],
    },
    "float64": {
        "lerp_0.3": [
            0x3FD0D87739139423,
            0xBFD6161BC9DF0F56,
            0x3FDC16F9EEE2A0A6,
            0xBFD31EF70799FE3B,
            0xBFE60421B2B419D7,
            0x3FC0246B8B4FB915,
            0xBFB5A687B74FF40F,
            0x3FD69FECC0764DC3,
        ],
        "lerp_0.7": [
            0xBFDCF37007E77709,
            0x3FDAB77963753230,
            0x3FB3CD7745D111FB,
            0x3FA4A257437C428E,
            0xBFE054F4C485E5E3,
            0x3FD8E1034DD25E89,
            0x3FD681B006615977,
            0x3FE551768D85707C,
        ],
        "lerp_w": [
            0x3FD723E77110EC7E,
            0xC0012BD5ABC85CE2,
            0x3FF5C3F393B3FE67,
            0xBFF4E3304F2A679B,
            0xBFE620FC9F378D77,
            0x3FDEBC1095971462,
            0xBFF75408985E3AEE,
            0x3FA0890D2711C0EE,
        ],
        "addcmul": [
            0x3FBEAF8DA41F2AD7,
            0xBFD3590DA5D2A83F,
            0x3FE53F4087F56EB8,
            0xBFDA3A3ECD824240,
            0xBFF19356F694E285,
            0x3FC51DED59C91DAE,
            0xBF9D339329966A98,
            0x3FDB9E7EA363BD90,
        ],
        "addcdiv": [
            0x3FE34B79F93B27EA,
            0xBFE65E53480A5929,
            0x3FE326EE436D1DF7,
            0xBFDE1692462FDD63,
            0xBFEC86E3B34E3A67,
            0x3FC06B8F6BE73A3A,
            0xBFCFA2037DEF3F3F,
            0x3FDE5BA67795548F,
        ],
    },
}


def _inputs(dtype):
    rng = np.random.default_rng(27)
    if dtype == "float64":
        rng.uniform(-1, 1, (3, 8)), rng.uniform(0.5, 2, 8)  # (float32's draws first)
    x, y, w = rng.uniform(-1, 1, (3, 8)).astype(dtype)
    return x, y, w, rng.uniform(0.5, 2, 8).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lerp_addcmul_addcdiv_round_as_torch(dtype):
    # torch's lerp is one fused multiply-add on each side of 0.5 (x + w (y - x), y - (y - x)
    # (1 - w)), as addcmul is; addcdiv is x + (v a) / b with no fused step
    x, y, w, b = (minitorch.tensor(a) for a in _inputs(dtype))
    want = KERNELS[dtype]
    assert _bits(minitorch.lerp(x, y, 0.3).numpy()) == want["lerp_0.3"]
    assert _bits(minitorch.lerp(x, y, 0.7).numpy()) == want["lerp_0.7"]
    assert _bits(minitorch.lerp(x, y, w).numpy()) == want["lerp_w"]
    # in place (the fast path: no graph, operands of x's dtype): the same bits, one version bump
    for op, args, key in (
        ("lerp_", (y, 0.3), "lerp_0.3"),
        ("lerp_", (y, 0.7), "lerp_0.7"),
        ("addcmul_", (y, b), "addcmul"),
        ("addcdiv_", (y, b), "addcdiv"),
    ):
        t = x.clone()
        kw = {} if op == "lerp_" else {"value": 0.37}
        assert getattr(t, op)(*args, **kw) is t
        assert _bits(t.numpy()) == want[key], op
        assert t._version == 1
        assert _bits(x.addcmul(y, b, value=0.37).numpy()) == want["addcmul"]
        assert _bits(x.addcdiv(y, b, value=0.37).numpy()) == want["addcdiv"]
    _general_path_checks()


def _general_path_checks():
    # a leaf that requires grad, an operand that needs broadcasting self, another dtype: the
    # general path's errors, as torch's
    p = minitorch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        p.lerp_(minitorch.ones(3), 0.1)
    with minitorch.no_grad():
        p.lerp_(minitorch.ones(3), 0.25)
        p.addcmul_(minitorch.ones(3), minitorch.ones(3), value=2)
    assert p.tolist() == [2.25, 2.25, 2.25] and p.grad_fn is None
    with pytest.raises(RuntimeError):
        minitorch.zeros(3).addcdiv_(minitorch.ones(2, 3), minitorch.ones(3))
    with pytest.raises(RuntimeError, match="expected dtype float for `end`"):
        minitorch.zeros(3).lerp_(minitorch.ones(3, dtype=minitorch.float64), 0.5)
    # a graph is still recorded through the general path
    a = minitorch.ones(3, requires_grad=True)
    t = minitorch.zeros(3).addcmul_(a, a, value=0.5)
    t.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
