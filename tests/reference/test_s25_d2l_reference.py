"""Session 25 (d2l): textbook-chapter programs in the style of the Dive into Deep Learning
PyTorch edition and the university courses modelled on it, each written once against a
`torch`-like module and run under torch and minitorch after the same seeds: linear regression
from scratch (normal/matmul synthetic data, a shuffled data_iter, sgd under no_grad), softmax
regression from scratch (NumPy-style axis/keepdims aliases, cross-entropy by fancy indexing,
accuracy with argmax and .type), dropout and batch norm from scratch, corr2d/pool2d loops and a
learned edge kernel, multi-channel corr2d, shape walks of LeNet/AlexNet/VGG/NiN/Inception/
ResNet/DenseNet blocks built with lazy modules, an RNN from scratch with gradient clipping,
sequence masking, masked softmax and additive/dot-product attention, positional encoding,
multi-head transpose_qkv, bounding and anchor boxes, optimisers from scratch against
torch.optim, device fallbacks and the errors of mistyped shapes. Every recorded value
(values, shapes, dtypes, reprs, exception type and message) must agree."""

from __future__ import annotations

import math
import random

import pytest

import minitorch
from tests.reference._programs import Rec, assert_records_match, run_program

torch = pytest.importorskip("torch")


def p_linreg_scratch(lib, rec):
    """Linear regression from scratch: synthetic data, manual data_iter, sgd under no_grad."""
    lib.manual_seed(0)
    random.seed(0)
    true_w, true_b = lib.tensor([2, -3.4]), 4.2
    X = lib.normal(0, 1, (100, len(true_w)))
    y = lib.matmul(X, true_w) + true_b
    y += lib.normal(0, 0.01, y.shape)
    y = y.reshape((-1, 1))
    rec("X0", X[0])
    rec("y0", y[0])

    def data_iter(batch_size, features, labels):
        n = len(features)
        indices = list(range(n))
        random.shuffle(indices)
        for i in range(0, n, batch_size):
            batch = lib.tensor(indices[i : min(i + batch_size, n)])
            yield features[batch], labels[batch]

    w = lib.normal(0, 0.01, size=(2, 1), requires_grad=True)
    b = lib.zeros(1, requires_grad=True)

    def sgd(params, lr, batch_size):
        with lib.no_grad():
            for param in params:
                param -= lr * param.grad / batch_size
                param.grad.zero_()

    for epoch in range(3):
        for Xb, yb in data_iter(10, X, y):
            y_hat = lib.matmul(Xb, w) + b
            loss = (y_hat - yb.reshape(y_hat.shape)) ** 2 / 2
            loss.sum().backward()
            sgd([w, b], 0.03, 10)
        with lib.no_grad():
            train_l = (lib.matmul(X, w) + b - y) ** 2 / 2
            rec(f"epoch{epoch}", train_l.mean())
            rec(f"epoch{epoch}.str", f"loss {float(train_l.mean()):f}"[:10])
    rec("w", w)
    rec("b", b)
    rec("w_err", true_w - w.reshape(true_w.shape))
    rec("b_err", true_b - b)
    rec("w.grad", w.grad)


def p_softmax_scratch(lib, rec):
    """Softmax regression from scratch with NumPy-style aliases and the book's accuracy."""
    lib.manual_seed(1)
    X = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    rec("sum0", X.sum(0, keepdim=True))
    rec("sum_axis0", X.sum(axis=0, keepdims=True))
    rec("sum_axis1", X.sum(axis=1))
    rec("mean_axis", X.mean(axis=1, keepdims=True))
    rec("max_axis", X.max(axis=1).values)
    rec("argmax_axis", X.argmax(axis=1))

    def softmax(X):
        X_exp = lib.exp(X)
        partition = X_exp.sum(1, keepdim=True)
        return X_exp / partition

    Xr = lib.normal(0, 1, (2, 5))
    Xp = softmax(Xr)
    rec("Xp", Xp)
    rec("Xp.sum1", Xp.sum(1))
    W = lib.normal(0, 0.01, size=(784, 10), requires_grad=True)
    b = lib.zeros(10, requires_grad=True)
    imgs = lib.rand(8, 1, 28, 28)
    labels = lib.randint(0, 10, (8,))
    rec("labels", labels)

    def net(X):
        return softmax(lib.matmul(X.reshape((-1, W.shape[0])), W) + b)

    y = lib.tensor([0, 2])
    y_hat = lib.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
    rec("pick", y_hat[[0, 1], y])
    rec("pick_range", y_hat[range(len(y_hat)), y])

    def cross_entropy(y_hat, y):
        return -lib.log(y_hat[range(len(y_hat)), y])

    rec("ce", cross_entropy(y_hat, y))

    def accuracy(y_hat, y):
        if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
            y_hat = y_hat.argmax(axis=1)
        cmp = y_hat.type(y.dtype) == y
        return float(cmp.type(y.dtype).sum())

    rec("acc", accuracy(y_hat, y) / len(y))
    rec("cmp.dtype", str((y_hat.argmax(axis=1).type(y.dtype) == y).dtype))
    for step in range(4):
        y_hat = net(imgs)
        loss = cross_entropy(y_hat, labels)
        loss.mean().backward()
        with lib.no_grad():
            W -= 0.1 * W.grad
            b -= 0.1 * b.grad
            W.grad.zero_()
            b.grad.zero_()
        rec(f"loss{step}", loss.mean())
        rec(f"acc{step}", accuracy(y_hat, labels))
    rec("b", b)
    rec("W.sum", W.sum(axis=0))
    metric = [0.0] * 2
    metric = [a + float(b) for a, b in zip(metric, [loss.sum(), labels.numel()], strict=True)]
    rec("metric", metric)


def p_dropout_bn_scratch(lib, rec):
    """Dropout and batch norm from scratch, with moving statistics and is_grad_enabled."""
    lib.manual_seed(2)

    def dropout_layer(X, dropout):
        assert 0 <= dropout <= 1
        if dropout == 1:
            return lib.zeros_like(X)
        mask = (lib.rand(X.shape) > dropout).float()
        return mask * X / (1.0 - dropout)

    X = lib.arange(16, dtype=lib.float32).reshape((2, 8))
    rec("d0", dropout_layer(X, 0.0))
    rec("d5", dropout_layer(X, 0.5))
    rec("d1", dropout_layer(X, 1.0))

    def batch_norm(X, gamma, beta, moving_mean, moving_var, eps, momentum):
        if not lib.is_grad_enabled():
            X_hat = (X - moving_mean) / lib.sqrt(moving_var + eps)
        else:
            assert len(X.shape) in (2, 4)
            if len(X.shape) == 2:
                mean = X.mean(dim=0)
                var = ((X - mean) ** 2).mean(dim=0)
            else:
                mean = X.mean(dim=(0, 2, 3), keepdim=True)
                var = ((X - mean) ** 2).mean(dim=(0, 2, 3), keepdim=True)
            X_hat = (X - mean) / lib.sqrt(var + eps)
            moving_mean = (1.0 - momentum) * moving_mean + momentum * mean
            moving_var = (1.0 - momentum) * moving_var + momentum * var
        Y = gamma * X_hat + beta
        return Y, moving_mean.data, moving_var.data

    class BatchNorm(lib.nn.Module):
        def __init__(self, num_features, num_dims):
            super().__init__()
            shape = (1, num_features) if num_dims == 2 else (1, num_features, 1, 1)
            self.gamma = lib.nn.Parameter(lib.ones(shape))
            self.beta = lib.nn.Parameter(lib.zeros(shape))
            self.moving_mean = lib.zeros(shape)
            self.moving_var = lib.ones(shape)

        def forward(self, X):
            if self.moving_mean.device != X.device:
                self.moving_mean = self.moving_mean.to(X.device)
                self.moving_var = self.moving_var.to(X.device)
            Y, self.moving_mean, self.moving_var = batch_norm(
                X, self.gamma, self.beta, self.moving_mean, self.moving_var, eps=1e-5, momentum=0.1
            )
            return Y

    bn = BatchNorm(3, 4)
    X4 = lib.randn(4, 3, 5, 5)
    Y = bn(X4)
    (Y**2 + Y).sum().backward()
    rec("Y", Y)
    rec("mm", bn.moving_mean)
    rec("mv", bn.moving_var)
    rec("g.grad", bn.gamma.grad)
    with lib.no_grad():
        rec("eval", bn(X4)[0, :, 0, 0])
    rec("bn.params", str([n for n, _ in bn.named_parameters()]))
    ref = lib.nn.BatchNorm2d(3)
    rec("ref", ref(X4))
    rec("ref.rm", ref.running_mean)
    rec("ref.rv", ref.running_var)
    bn1 = BatchNorm(4, 2)
    X2 = lib.randn(6, 4)
    rec("Y2", bn1(X2))
    rec("mm2", bn1.moving_mean)
    net = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Dropout(0.5))
    rec("drop_train", net(X2))
    net.eval()
    rec("drop_eval", net(X2))


def corr2d(lib, X, K):
    h, w = K.shape
    Y = lib.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i : i + h, j : j + w] * K).sum()
    return Y


def p_conv_scratch(lib, rec):
    """corr2d loops, edge detection, learning a kernel, pool2d loops, multi-channel corr2d."""
    lib.manual_seed(3)
    X = lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    K = lib.tensor([[0.0, 1.0], [2.0, 3.0]])
    rec("corr2d", corr2d(lib, X, K))
    X = lib.ones((6, 8))
    X[:, 2:6] = 0
    K = lib.tensor([[1.0, -1.0]])
    Y = corr2d(lib, X, K)
    rec("edge", Y)
    rec("edge.t", corr2d(lib, X.t(), K))
    conv2d = lib.nn.LazyConv2d(1, kernel_size=(1, 2), bias=False)
    X = X.reshape((1, 1, 6, 8))
    Y = Y.reshape((1, 1, 6, 7))
    lr = 3e-2
    for i in range(10):
        Y_hat = conv2d(X)
        loss = (Y_hat - Y) ** 2
        conv2d.zero_grad()
        loss.sum().backward()
        conv2d.weight.data[:] -= lr * conv2d.weight.grad
        if (i + 1) % 2 == 0:
            rec(f"loss{i}", loss.sum())
    rec("learned", conv2d.weight.data.reshape((1, 2)))
    rec("lazy.repr", repr(conv2d))

    def pool2d(X, pool_size, mode="max"):
        p_h, p_w = pool_size
        Y = lib.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
        for i in range(Y.shape[0]):
            for j in range(Y.shape[1]):
                if mode == "max":
                    Y[i, j] = X[i : i + p_h, j : j + p_w].max()
                elif mode == "avg":
                    Y[i, j] = X[i : i + p_h, j : j + p_w].mean()
        return Y

    X = lib.arange(9.0).reshape(3, 3)
    rec("maxpool", pool2d(X, (2, 2)))
    rec("avgpool", pool2d(X, (2, 2), "avg"))
    X = lib.arange(16, dtype=lib.float32).reshape((1, 1, 4, 4))
    rec("mp3", lib.nn.MaxPool2d(3)(X))
    rec("mp3p", lib.nn.MaxPool2d(3, padding=1, stride=2)(X))
    rec("mp23", lib.nn.MaxPool2d((2, 3), stride=(2, 3), padding=(0, 1))(X))
    X2 = lib.cat((X, X + 1), 1)
    rec("mp_ch", lib.nn.MaxPool2d(3, padding=1, stride=2)(X2))

    def corr2d_multi_in(X, K):
        return sum(corr2d(lib, x, k) for x, k in zip(X, K, strict=True))

    X = lib.tensor(
        [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
         [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]]
    )  # fmt: skip
    K = lib.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
    rec("multi_in", corr2d_multi_in(X, K))

    def corr2d_multi_in_out(X, K):
        return lib.stack([corr2d_multi_in(X, k) for k in K], 0)

    K = lib.stack((K, K + 1, K + 2), 0)
    rec("K.shape", str(K.shape))
    rec("multi_out", corr2d_multi_in_out(X, K))

    def corr2d_multi_in_out_1x1(X, K):
        c_i, h, w = X.shape
        c_o = K.shape[0]
        X = X.reshape((c_i, h * w))
        K = K.reshape((c_o, c_i))
        Y = lib.matmul(K, X)
        return Y.reshape((c_o, h, w))

    X = lib.normal(0, 1, (3, 3, 3))
    K = lib.normal(0, 1, (2, 3, 1, 1))
    Y1 = corr2d_multi_in_out_1x1(X, K)
    Y2 = corr2d_multi_in_out(X, K)
    rec("1x1", Y1)
    rec("1x1.close", float(lib.abs(Y1 - Y2).sum()) < 1e-6)

    def comp_conv2d(conv2d, X):
        X = X.reshape((1, 1) + X.shape)
        Y = conv2d(X)
        return Y.reshape(Y.shape[2:])

    X = lib.rand(size=(8, 8))
    rec("pad1", str(comp_conv2d(lib.nn.LazyConv2d(1, kernel_size=3, padding=1), X).shape))
    rec(
        "pad2",
        str(comp_conv2d(lib.nn.LazyConv2d(1, kernel_size=(5, 3), padding=(2, 1)), X).shape),
    )
    rec(
        "stride",
        str(
            comp_conv2d(
                lib.nn.LazyConv2d(1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)), X
            ).shape
        ),
    )


def shape_walk(lib, net, X, rec, tag):
    for layer in net:
        X = layer(X)
        rec(f"{tag}.{layer.__class__.__name__}", str(X.shape))
    return X


def p_cnn_shape_walks(lib, rec):
    """LeNet/AlexNet/VGG/NiN shape walks with lazy modules, apply(init) with xavier_uniform_."""
    nn = lib.nn
    lib.manual_seed(4)

    def init_cnn(module):
        if type(module) is nn.Linear or type(module) is nn.Conv2d:
            nn.init.xavier_uniform_(module.weight)

    lenet = nn.Sequential(
        nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.LazyLinear(120), nn.Sigmoid(),
        nn.LazyLinear(84), nn.Sigmoid(),
        nn.LazyLinear(10),
    )  # fmt: skip
    rec("lenet.lazy_repr", repr(lenet))
    rec("lenet.nparams_lazy", str(len(list(lenet.parameters()))))
    rec("lenet.uninit", str(type(lenet[0].weight).__name__))
    rec("lenet.uninit_repr", repr(lenet[0].weight))
    X = lib.randn(1, 1, 28, 28)
    rec.warns("lenet.first_call", lambda: lenet(X))
    lenet.apply(init_cnn)
    rec("lenet.w0", lenet[0].weight[0, 0])
    rec("lenet.repr", repr(lenet))
    out = shape_walk(lib, lenet, X, rec, "lenet")
    rec("lenet.out", out)
    rec("lenet.nparams", sum(p.numel() for p in lenet.parameters()))

    alex = nn.Sequential(
        nn.LazyConv2d(96, kernel_size=11, stride=4, padding=1), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2),
        nn.LazyConv2d(256, kernel_size=5, padding=2), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2),
        nn.LazyConv2d(384, kernel_size=3, padding=1), nn.ReLU(),
        nn.MaxPool2d(kernel_size=3, stride=2), nn.Flatten(),
        nn.LazyLinear(64), nn.ReLU(), nn.Dropout(p=0.5),
        nn.LazyLinear(10),
    )  # fmt: skip
    shape_walk(lib, alex, lib.randn(1, 1, 112, 112), rec, "alex")

    def vgg_block(num_convs, out_channels):
        layers = []
        for _ in range(num_convs):
            layers.append(nn.LazyConv2d(out_channels, kernel_size=3, padding=1))
            layers.append(nn.ReLU())
        layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
        return nn.Sequential(*layers)

    conv_blks = [vgg_block(n, c) for n, c in ((1, 4), (1, 8), (2, 8))]
    vgg = nn.Sequential(*conv_blks, nn.Flatten(), nn.LazyLinear(16), nn.ReLU(), nn.LazyLinear(10))
    shape_walk(lib, vgg, lib.randn(1, 1, 32, 32), rec, "vgg")

    def nin_block(out_channels, kernel_size, strides, padding):
        return nn.Sequential(
            nn.LazyConv2d(out_channels, kernel_size, strides, padding), nn.ReLU(),
            nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU(),
            nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU(),
        )  # fmt: skip

    nin = nn.Sequential(
        nin_block(8, kernel_size=11, strides=4, padding=0),
        nn.MaxPool2d(3, stride=2),
        nin_block(10, kernel_size=3, strides=1, padding=1),
        nn.AdaptiveAvgPool2d((1, 1)),
        nn.Flatten(),
    )
    out = shape_walk(lib, nin, lib.rand(size=(1, 1, 96, 96)), rec, "nin")
    rec("nin.out", out)
    rec("nin.summary", str([(n, tuple(p.shape)) for n, p in nin.named_parameters()]))
    rec("nin.state", str(list(nin.state_dict().keys())))


def p_modern_blocks(lib, rec):
    """Inception, residual and dense blocks as in the book's chapters, with a tiny training step."""
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(5)

    class Inception(nn.Module):
        def __init__(self, c1, c2, c3, c4, **kwargs):
            super().__init__(**kwargs)
            self.b1_1 = nn.LazyConv2d(c1, kernel_size=1)
            self.b2_1 = nn.LazyConv2d(c2[0], kernel_size=1)
            self.b2_2 = nn.LazyConv2d(c2[1], kernel_size=3, padding=1)
            self.b3_1 = nn.LazyConv2d(c3[0], kernel_size=1)
            self.b3_2 = nn.LazyConv2d(c3[1], kernel_size=5, padding=2)
            self.b4_1 = nn.MaxPool2d(kernel_size=3, stride=1, padding=1)
            self.b4_2 = nn.LazyConv2d(c4, kernel_size=1)

        def forward(self, x):
            b1 = F.relu(self.b1_1(x))
            b2 = F.relu(self.b2_2(F.relu(self.b2_1(x))))
            b3 = F.relu(self.b3_2(F.relu(self.b3_1(x))))
            b4 = F.relu(self.b4_2(self.b4_1(x)))
            return lib.cat((b1, b2, b3, b4), dim=1)

    inc = Inception(2, (2, 4), (1, 2), 2)
    X = lib.randn(2, 3, 8, 8)
    Y = inc(X)
    rec("inception", Y.sum(axis=(0, 2, 3)))
    rec("inception.shape", str(Y.shape))

    class Residual(nn.Module):
        def __init__(self, num_channels, use_1x1conv=False, strides=1):
            super().__init__()
            self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1, stride=strides)
            self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
            self.conv3 = nn.LazyConv2d(num_channels, 1, stride=strides) if use_1x1conv else None
            self.bn1 = nn.LazyBatchNorm2d()
            self.bn2 = nn.LazyBatchNorm2d()

        def forward(self, X):
            Y = F.relu(self.bn1(self.conv1(X)))
            Y = self.bn2(self.conv2(Y))
            if self.conv3:
                X = self.conv3(X)
            Y += X
            return F.relu(Y)

    blk = Residual(3)
    rec("res.shape", str(blk(X).shape))
    blk = Residual(6, use_1x1conv=True, strides=2)
    Yr = blk(X)
    rec("res2.shape", str(Yr.shape))
    rec("res2", Yr[0, :, 0, 0])
    rec("res2.rm", blk.bn1.running_mean)
    rec("res2.repr", repr(blk))

    def conv_block(num_channels):
        return nn.Sequential(
            nn.LazyBatchNorm2d(), nn.ReLU(), nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        )

    class DenseBlock(nn.Module):
        def __init__(self, num_convs, num_channels):
            super().__init__()
            layer = []
            for _ in range(num_convs):
                layer.append(conv_block(num_channels))
            self.net = nn.Sequential(*layer)

        def forward(self, X):
            for blk in self.net:
                Y = blk(X)
                X = lib.cat((X, Y), dim=1)
            return X

    dblk = DenseBlock(2, 10)
    Yd = dblk(lib.randn(4, 3, 8, 8))
    rec("dense.shape", str(Yd.shape))

    def transition_block(num_channels):
        return nn.Sequential(
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.LazyConv2d(num_channels, kernel_size=1),
            nn.AvgPool2d(kernel_size=2, stride=2),
        )  # fmt: skip

    tb = transition_block(10)
    rec("trans.shape", str(tb(Yd).shape))
    net = nn.Sequential(dblk, tb, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.LazyLinear(3))
    net(lib.randn(4, 3, 8, 8))
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    y = lib.tensor([0, 1, 2, 1])
    for step in range(3):
        loss = F.cross_entropy(net(lib.randn(4, 3, 8, 8)), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        rec(f"loss{step}", loss)
    rec("nparams", sum(p.numel() for p in net.parameters()))


def p_rnn_scratch(lib, rec):
    """RNN from scratch: get_params, tuple state, one_hot(X.T), grad clipping, sgd."""
    F = lib.nn.functional
    lib.manual_seed(6)
    vocab_size, num_hiddens = 12, 16
    rec("one_hot", F.one_hot(lib.tensor([0, 2]), 5))
    X = lib.arange(10).reshape((2, 5))
    rec("oh.shape", str(F.one_hot(X.T, 28).shape))

    def get_params(vocab_size, num_hiddens):
        num_inputs = num_outputs = vocab_size

        def normal(shape):
            return lib.randn(size=shape) * 0.01

        W_xh = normal((num_inputs, num_hiddens))
        W_hh = normal((num_hiddens, num_hiddens))
        b_h = lib.zeros(num_hiddens)
        W_hq = normal((num_hiddens, num_outputs))
        b_q = lib.zeros(num_outputs)
        params = [W_xh, W_hh, b_h, W_hq, b_q]
        for param in params:
            param.requires_grad_(True)
        return params

    def init_rnn_state(batch_size, num_hiddens):
        return (lib.zeros((batch_size, num_hiddens)),)

    def rnn(inputs, state, params):
        W_xh, W_hh, b_h, W_hq, b_q = params
        (H,) = state
        outputs = []
        for X in inputs:
            H = lib.tanh(lib.mm(X, W_xh) + lib.mm(H, W_hh) + b_h)
            Y = lib.mm(H, W_hq) + b_q
            outputs.append(Y)
        return lib.cat(outputs, dim=0), (H,)

    params = get_params(vocab_size, num_hiddens)

    def net(X, state):
        X = F.one_hot(X.T, vocab_size).type(lib.float32)
        return rnn(X, state, params)

    def grad_clipping(params, theta):
        norm = lib.sqrt(sum(lib.sum(p.grad**2) for p in params))
        if norm > theta:
            for param in params:
                param.grad[:] *= theta / norm
        return norm

    corpus = lib.randint(0, vocab_size, (200,))
    loss_fn = lib.nn.CrossEntropyLoss()
    state = None
    for step in range(6):
        i = step * 20
        Xb = corpus[i : i + 20].reshape(2, 10)
        Yb = corpus[i + 1 : i + 21].reshape(2, 10)
        if state is None:
            state = init_rnn_state(Xb.shape[0], num_hiddens)
        else:
            for s in state:
                s.detach_()
        y = Yb.T.reshape(-1)
        y_hat, state = net(Xb, state)
        loss = loss_fn(y_hat, y.long()).mean()
        for p in params:
            if p.grad is not None:
                p.grad.zero_()
        loss.backward()
        norm = grad_clipping(params, 0.01)
        rec(f"norm{step}", norm)
        with lib.no_grad():
            for p in params:
                p -= 1.0 * p.grad
        rec(f"loss{step}", loss)
        rec(f"ppl{step}", math.exp(loss.item()))
    rec("state.shape", str(state[0].shape))

    def predict(prefix, num_preds):
        state = init_rnn_state(batch_size=1, num_hiddens=num_hiddens)
        outputs = [prefix[0]]

        def get_input():
            return lib.tensor([outputs[-1]]).reshape((1, 1))

        for y in prefix[1:]:
            _, state = net(get_input(), state)
            outputs.append(y)
        for _ in range(num_preds):
            y, state = net(get_input(), state)
            outputs.append(int(y.argmax(dim=1).reshape(1)))
        return outputs

    rec("predict", predict([1, 2, 3], 8))
    rnn_layer = lib.nn.RNN(vocab_size, num_hiddens)
    state = lib.zeros((1, 2, num_hiddens))
    Xs = lib.rand(size=(5, 2, vocab_size))
    Y, state_new = rnn_layer(Xs, state)
    rec("rnn_layer", Y[-1])
    rec("rnn_layer.shapes", str((Y.shape, state_new.shape)))
    rec("rnn_layer.repr", repr(rnn_layer))
    gru = lib.nn.GRU(vocab_size, num_hiddens)
    rec("gru", gru(Xs)[0][-1])
    lstm = lib.nn.LSTM(vocab_size, num_hiddens, num_layers=2)
    out, (h, c) = lstm(Xs)
    rec("lstm", out[-1])
    rec("lstm.hc", str((h.shape, c.shape)))
    birnn = lib.nn.LSTM(vocab_size, num_hiddens, bidirectional=True)
    rec("bi.shape", str(birnn(Xs)[0].shape))
    nn_utils_norm = lib.nn.utils.clip_grad_norm_(params, 0.01)
    rec("clip_norm", nn_utils_norm)


def p_attention(lib, rec):
    """Sequence masking, masked softmax, additive and dot-product attention, positional encoding,
    multi-head transpose_qkv, as the attention chapter writes them."""
    nn = lib.nn
    lib.manual_seed(7)

    def sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = (
            lib.arange((maxlen), dtype=lib.float32, device=X.device)[None, :] < valid_len[:, None]
        )
        X[~mask] = value
        return X

    X = lib.tensor([[1, 2, 3], [4, 5, 6]])
    rec("seqmask", sequence_mask(X, lib.tensor([1, 2])))
    X = lib.ones(2, 3, 4)
    rec("seqmask_neg", sequence_mask(X, lib.tensor([1, 2]), value=-1))

    def masked_softmax(X, valid_lens):
        if valid_lens is None:
            return nn.functional.softmax(X, dim=-1)
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = lib.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)

    rec("ms1", masked_softmax(lib.rand(2, 2, 4), lib.tensor([2, 3])))
    rec("ms2", masked_softmax(lib.rand(2, 2, 4), lib.tensor([[1, 3], [2, 4]])))
    rec("bmm", lib.bmm(lib.ones((2, 1, 4)), lib.ones((2, 4, 6))))

    class AdditiveAttention(nn.Module):
        def __init__(self, num_hiddens, dropout, **kwargs):
            super().__init__(**kwargs)
            self.W_k = nn.LazyLinear(num_hiddens, bias=False)
            self.W_q = nn.LazyLinear(num_hiddens, bias=False)
            self.w_v = nn.LazyLinear(1, bias=False)
            self.dropout = nn.Dropout(dropout)

        def forward(self, queries, keys, values, valid_lens):
            queries, keys = self.W_q(queries), self.W_k(keys)
            features = queries.unsqueeze(2) + keys.unsqueeze(1)
            features = lib.tanh(features)
            scores = self.w_v(features).squeeze(-1)
            self.attention_weights = masked_softmax(scores, valid_lens)
            return lib.bmm(self.dropout(self.attention_weights), values)

    queries = lib.normal(0, 1, (2, 1, 20))
    keys = lib.normal(0, 1, (2, 10, 2))
    values = lib.arange(40, dtype=lib.float32).reshape(1, 10, 4).repeat(2, 1, 1)
    valid_lens = lib.tensor([2, 6])
    attention = AdditiveAttention(num_hiddens=8, dropout=0.1)
    attention.eval()
    out = attention(queries, keys, values, valid_lens)
    rec("additive", out)
    rec("additive.w", attention.attention_weights)

    class DotProductAttention(nn.Module):
        def __init__(self, dropout):
            super().__init__()
            self.dropout = nn.Dropout(dropout)

        def forward(self, queries, keys, values, valid_lens=None):
            d = queries.shape[-1]
            scores = lib.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
            self.attention_weights = masked_softmax(scores, valid_lens)
            return lib.bmm(self.dropout(self.attention_weights), values)

    queries = lib.normal(0, 1, (2, 1, 2))
    attention = DotProductAttention(dropout=0.5)
    attention.eval()
    rec("dot", attention(queries, keys, values, valid_lens))
    attention.train()
    rec("dot_train", attention(queries, keys, values, valid_lens))

    class PositionalEncoding(nn.Module):
        def __init__(self, num_hiddens, dropout, max_len=1000):
            super().__init__()
            self.dropout = nn.Dropout(dropout)
            self.P = lib.zeros((1, max_len, num_hiddens))
            X = lib.arange(max_len, dtype=lib.float32).reshape(-1, 1) / lib.pow(
                10000, lib.arange(0, num_hiddens, 2, dtype=lib.float32) / num_hiddens
            )
            self.P[:, :, 0::2] = lib.sin(X)
            self.P[:, :, 1::2] = lib.cos(X)

        def forward(self, X):
            X = X + self.P[:, : X.shape[1], :].to(X.device)
            return self.dropout(X)

    pe = PositionalEncoding(32, 0)
    pe.eval()
    Xp = pe(lib.zeros((1, 60, 32)))
    rec("pe", Xp[0, ::10, 4:10])
    rec("pe.P", pe.P[0, 59, -4:])
    rec("binary", str([f"{i} in binary is {i:>03b}" for i in range(3)]))

    def transpose_qkv(X, num_heads):
        X = X.reshape(X.shape[0], X.shape[1], num_heads, -1)
        X = X.permute(0, 2, 1, 3)
        return X.reshape(-1, X.shape[2], X.shape[3])

    def transpose_output(X, num_heads):
        X = X.reshape(-1, num_heads, X.shape[1], X.shape[2])
        X = X.permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], X.shape[1], -1)

    class MultiHeadAttention(nn.Module):
        def __init__(self, num_hiddens, num_heads, dropout, bias=False):
            super().__init__()
            self.num_heads = num_heads
            self.attention = DotProductAttention(dropout)
            self.W_q = nn.LazyLinear(num_hiddens, bias=bias)
            self.W_k = nn.LazyLinear(num_hiddens, bias=bias)
            self.W_v = nn.LazyLinear(num_hiddens, bias=bias)
            self.W_o = nn.LazyLinear(num_hiddens, bias=bias)

        def forward(self, queries, keys, values, valid_lens):
            queries = transpose_qkv(self.W_q(queries), self.num_heads)
            keys = transpose_qkv(self.W_k(keys), self.num_heads)
            values = transpose_qkv(self.W_v(values), self.num_heads)
            if valid_lens is not None:
                valid_lens = lib.repeat_interleave(valid_lens, repeats=self.num_heads, dim=0)
            output = self.attention(queries, keys, values, valid_lens)
            return self.W_o(transpose_output(output, self.num_heads))

    mha = MultiHeadAttention(16, 4, 0.5)
    mha.eval()
    X = lib.ones((2, 4, 16))
    Y = lib.randn((2, 6, 16))
    out = mha(X, Y, Y, lib.tensor([3, 2]))
    rec("mha", out[:, 0])
    rec("mha.shape", str(out.shape))
    loss = out.pow(2).sum()
    loss.backward()
    rec("mha.gq", mha.W_q.weight.grad)
    ln = nn.LayerNorm(2)
    bn = nn.LazyBatchNorm1d()
    Xl = lib.tensor([[1, 2], [2, 3]], dtype=lib.float32)
    rec("ln", ln(Xl))
    rec("bn", bn(Xl))

    class PositionWiseFFN(nn.Module):
        def __init__(self, ffn_num_hiddens, ffn_num_outputs):
            super().__init__()
            self.dense1 = nn.LazyLinear(ffn_num_hiddens)
            self.relu = nn.ReLU()
            self.dense2 = nn.LazyLinear(ffn_num_outputs)

        def forward(self, X):
            return self.dense2(self.relu(self.dense1(X)))

    ffn = PositionWiseFFN(4, 8)
    ffn.eval()
    rec("ffn", ffn(lib.ones((2, 3, 4)))[0])
    # Nadaraya-Watson kernel regression
    n_train = 20
    x_train, _ = lib.sort(lib.rand(n_train) * 5)
    y_train = 2 * lib.sin(x_train) + x_train**0.8 + lib.normal(0.0, 0.5, (n_train,))
    x_test = lib.arange(0, 5, 0.5)
    X_repeat = x_test.repeat_interleave(n_train).reshape((-1, n_train))
    attention_weights = nn.functional.softmax(-((X_repeat - x_train) ** 2) / 2, dim=1)
    rec("nw", lib.matmul(attention_weights, y_train))
    rec("nw.w", attention_weights.unsqueeze(0).unsqueeze(0).shape[1:])


def p_boxes(lib, rec):
    """Bounding boxes with stack(axis=-1), anchor boxes with meshgrid(indexing='ij'), IoU, NMS."""
    lib.manual_seed(8)

    def box_corner_to_center(boxes):
        x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        cx = (x1 + x2) / 2
        cy = (y1 + y2) / 2
        w = x2 - x1
        h = y2 - y1
        return lib.stack((cx, cy, w, h), axis=-1)

    def box_center_to_corner(boxes):
        cx, cy, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        x1 = cx - 0.5 * w
        y1 = cy - 0.5 * h
        x2 = cx + 0.5 * w
        y2 = cy + 0.5 * h
        return lib.stack((x1, y1, x2, y2), axis=-1)

    dog_bbox, cat_bbox = [60.0, 45.0, 378.0, 516.0], [400.0, 112.0, 655.0, 493.0]
    boxes = lib.tensor((dog_bbox, cat_bbox))
    rec("roundtrip", box_center_to_corner(box_corner_to_center(boxes)) == boxes)

    def multibox_prior(data, sizes, ratios):
        in_height, in_width = data.shape[-2:]
        device, num_sizes, num_ratios = data.device, len(sizes), len(ratios)
        boxes_per_pixel = num_sizes + num_ratios - 1
        size_tensor = lib.tensor(sizes, device=device)
        ratio_tensor = lib.tensor(ratios, device=device)
        offset_h, offset_w = 0.5, 0.5
        steps_h = 1.0 / in_height
        steps_w = 1.0 / in_width
        center_h = (lib.arange(in_height, device=device) + offset_h) * steps_h
        center_w = (lib.arange(in_width, device=device) + offset_w) * steps_w
        shift_y, shift_x = lib.meshgrid(center_h, center_w, indexing="ij")
        shift_y, shift_x = shift_y.reshape(-1), shift_x.reshape(-1)
        w = (
            lib.cat(
                (size_tensor * lib.sqrt(ratio_tensor[0]), sizes[0] * lib.sqrt(ratio_tensor[1:]))
            )
            * in_height
            / in_width
        )
        h = lib.cat(
            (size_tensor / lib.sqrt(ratio_tensor[0]), sizes[0] / lib.sqrt(ratio_tensor[1:]))
        )
        anchor_manipulations = lib.stack((-w, -h, w, h)).T.repeat(in_height * in_width, 1) / 2
        out_grid = lib.stack([shift_x, shift_y, shift_x, shift_y], dim=1).repeat_interleave(
            boxes_per_pixel, dim=0
        )
        output = out_grid + anchor_manipulations
        return output.unsqueeze(0)

    img = lib.rand(3, 8, 6)
    Y = multibox_prior(img, sizes=[0.75, 0.5, 0.25], ratios=[1, 2, 0.5])
    rec("Y.shape", str(Y.shape))
    boxes = Y.reshape(8, 6, 5, 4)
    rec("boxes250", boxes[2, 5, 0, :])
    rec("Y.dtype", str(Y.dtype))

    def box_iou(boxes1, boxes2):
        def box_area(boxes):
            return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])

        areas1 = box_area(boxes1)
        areas2 = box_area(boxes2)
        inter_upperlefts = lib.max(boxes1[:, None, :2], boxes2[:, :2])
        inter_lowerrights = lib.min(boxes1[:, None, 2:], boxes2[:, 2:])
        inters = (inter_lowerrights - inter_upperlefts).clamp(min=0)
        inter_areas = inters[:, :, 0] * inters[:, :, 1]
        union_areas = areas1[:, None] + areas2 - inter_areas
        return inter_areas / union_areas

    ground_truth = lib.tensor([[0, 0.1, 0.08, 0.52, 0.92], [1, 0.55, 0.2, 0.9, 0.88]])
    anchors = lib.tensor(
        [[0, 0.1, 0.2, 0.3], [0.15, 0.2, 0.4, 0.4], [0.63, 0.05, 0.88, 0.98],
         [0.66, 0.45, 0.8, 0.8], [0.57, 0.3, 0.92, 0.9]]
    )  # fmt: skip
    jaccard = box_iou(anchors, ground_truth[:, 1:])
    rec("iou", jaccard)

    def assign_anchor_to_bbox(ground_truth, anchors, device, iou_threshold=0.5):
        num_anchors, num_gt_boxes = anchors.shape[0], ground_truth.shape[0]
        jaccard = box_iou(anchors, ground_truth)
        anchors_bbox_map = lib.full((num_anchors,), -1, dtype=lib.long, device=device)
        max_ious, indices = lib.max(jaccard, dim=1)
        anc_i = lib.nonzero(max_ious >= iou_threshold).reshape(-1)
        box_j = indices[max_ious >= iou_threshold]
        anchors_bbox_map[anc_i] = box_j
        col_discard = lib.full((num_anchors,), -1)
        row_discard = lib.full((num_gt_boxes,), -1)
        for _ in range(num_gt_boxes):
            max_idx = lib.argmax(jaccard)
            box_idx = (max_idx % num_gt_boxes).long()
            anc_idx = (max_idx / num_gt_boxes).long()
            anchors_bbox_map[anc_idx] = box_idx
            jaccard[:, box_idx] = col_discard
            jaccard[anc_idx, :] = row_discard
        return anchors_bbox_map

    rec("assign", assign_anchor_to_bbox(ground_truth[:, 1:], anchors, "cpu"))

    def nms(boxes, scores, iou_threshold):
        B = lib.argsort(scores, dim=-1, descending=True)
        keep = []
        while B.numel() > 0:
            i = B[0]
            keep.append(i)
            if B.numel() == 1:
                break
            iou = box_iou(boxes[i, :].reshape(-1, 4), boxes[B[1:], :].reshape(-1, 4)).reshape(-1)
            inds = lib.nonzero(iou <= iou_threshold).reshape(-1)
            B = B[inds + 1]
        return lib.tensor(keep, device=boxes.device)

    scores = lib.tensor([0.9, 0.8, 0.7, 0.6, 0.5])
    rec("nms", nms(anchors, scores, 0.5))
    rec("keep_repr", repr(nms(anchors, scores, 0.5)))
    offsets = lib.zeros_like(anchors)
    rec("offset_inv", lib.log(anchors[:, 2:] / anchors[:, :2].clamp(min=0.01)))
    rec("offsets", offsets.sum())
    X = lib.rand(size=(1, 3, 4, 4))
    Yc = lib.nn.LazyConv2d(5 * 3, kernel_size=3, padding=1)(X)
    rec(
        "flatten_pred",
        lib.cat([lib.flatten(p.permute(0, 2, 3, 1), start_dim=1) for p in [Yc]], 1).shape,
    )


def p_optim_scratch(lib, rec):
    """Optimisation chapter: gd/sgd/momentum/adagrad/rmsprop/adadelta/adam from scratch on a
    small regression against torch.optim, plus learning-rate schedules by hand."""
    nn = lib.nn
    lib.manual_seed(9)
    X = lib.randn(64, 5)
    y = X @ lib.tensor([1.0, -2.0, 0.5, 0.0, 3.0]) + 0.1 * lib.randn(64)

    def init():
        return lib.normal(0, 0.01, size=(5, 1), requires_grad=True), lib.zeros(
            1, requires_grad=True
        )

    def loss_fn(w, b):
        return ((X @ w + b - y.reshape(-1, 1)) ** 2 / 2).mean()

    def init_states(kind):
        z = [lib.zeros((5, 1)), lib.zeros(1)]
        if kind in ("adadelta", "adam"):
            return list(zip(z, [lib.zeros((5, 1)), lib.zeros(1)], strict=True))
        return z

    def step_scratch(kind, params, states, hp, t):
        with lib.no_grad():
            for i, p in enumerate(params):
                if kind == "sgd":
                    p[:] -= hp["lr"] * p.grad
                elif kind == "momentum":
                    v = states[i]
                    v[:] = hp["momentum"] * v + p.grad
                    p[:] -= hp["lr"] * v
                elif kind == "adagrad":
                    s = states[i]
                    s[:] += lib.square(p.grad)
                    p[:] -= hp["lr"] * p.grad / lib.sqrt(s + 1e-10)
                elif kind == "rmsprop":
                    s = states[i]
                    s[:] = hp["gamma"] * s + (1 - hp["gamma"]) * lib.square(p.grad)
                    p[:] -= hp["lr"] * p.grad / lib.sqrt(s + 1e-8)
                elif kind == "adadelta":
                    s, delta = states[i]
                    rho, eps = hp["rho"], 1e-6
                    s[:] = rho * s + (1 - rho) * lib.square(p.grad)
                    g = (lib.sqrt(delta + eps) / lib.sqrt(s + eps)) * p.grad
                    p[:] -= g
                    delta[:] = rho * delta + (1 - rho) * g * g
                elif kind == "adam":
                    v, s = states[i]
                    b1, b2, eps = 0.9, 0.999, 1e-8
                    v[:] = b1 * v + (1 - b1) * p.grad
                    s[:] = b2 * s + (1 - b2) * lib.square(p.grad)
                    v_c = v / (1 - b1**t)
                    s_c = s / (1 - b2**t)
                    p[:] -= hp["lr"] * v_c / (lib.sqrt(s_c) + eps)
                p.grad.data.zero_()

    cases = [
        ("sgd", {"lr": 0.1}, lambda ps: lib.optim.SGD(ps, lr=0.1)),
        ("momentum", {"lr": 0.05, "momentum": 0.9},
         lambda ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9)),
        ("adagrad", {"lr": 0.1}, lambda ps: lib.optim.Adagrad(ps, lr=0.1, eps=1e-10)),
        ("rmsprop", {"lr": 0.01, "gamma": 0.9},
         lambda ps: lib.optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=1e-8)),
        ("adadelta", {"rho": 0.9}, lambda ps: lib.optim.Adadelta(ps, lr=1.0, rho=0.9)),
        ("adam", {"lr": 0.01}, lambda ps: lib.optim.Adam(ps, lr=0.01)),
    ]  # fmt: skip
    for kind, hp, make in cases:
        lib.manual_seed(10)
        w, b = init()
        states = init_states(kind)
        for t in range(1, 6):
            loss = loss_fn(w, b)
            loss.backward()
            step_scratch(kind, [w, b], states, hp, t)
        rec(f"{kind}.scratch.w", w)
        rec(f"{kind}.scratch.loss", loss)
        lib.manual_seed(10)
        w2, b2 = init()
        opt = make([w2, b2])
        for _ in range(5):
            opt.zero_grad()
            loss2 = loss_fn(w2, b2)
            loss2.backward()
            opt.step()
        rec(f"{kind}.optim.w", w2)
        rec(f"{kind}.optim.same", bool((w - w2).abs().max() < 1e-4))
    # gradient descent on f(x) = x ** 2 and a 2-D function, written with plain floats/tensors
    results = [10.0]
    x = 10.0
    for _ in range(10):
        x -= 0.2 * 2 * x
        results.append(float(x))
    rec("gd", results)
    x1, x2, s1, s2 = -5.0, -2.0, 0.0, 0.0
    path = []
    for _ in range(10):
        g1, g2 = 0.2 * x1, 4 * x2
        s1 += g1**2
        s2 += g2**2
        x1 -= 0.4 / math.sqrt(s1 + 1e-6) * g1
        x2 -= 0.4 / math.sqrt(s2 + 1e-6) * g2
        path.append((x1, x2))
    rec("adagrad2d", path)
    x = lib.arange(-2.0, 2.0, 0.01)
    rec("f_conv", (0.5 * x**2)[::50])
    sq = lib.tensor(0.5)
    rec("noisy", lib.normal(0.0, 1, (1,)) * sq)

    # learning-rate schedules by hand and with lr_scheduler
    class SquareRootScheduler:
        def __init__(self, lr=0.1):
            self.lr = lr

        def __call__(self, num_update):
            return self.lr * pow(num_update + 1.0, -0.5)

    class FactorScheduler:
        def __init__(self, factor=1, stop_factor_lr=1e-7, base_lr=0.1):
            self.factor = factor
            self.stop_factor_lr = stop_factor_lr
            self.base_lr = base_lr

        def __call__(self, num_update):
            self.base_lr = max(self.stop_factor_lr, self.base_lr * self.factor)
            return self.base_lr

    class CosineScheduler:
        def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0):
            self.base_lr_orig = base_lr
            self.max_update = max_update
            self.final_lr = final_lr
            self.warmup_steps = warmup_steps
            self.warmup_begin_lr = warmup_begin_lr
            self.max_steps = self.max_update - self.warmup_steps

        def get_warmup_lr(self, epoch):
            increase = (
                (self.base_lr_orig - self.warmup_begin_lr) * float(epoch) / float(self.warmup_steps)
            )
            return self.warmup_begin_lr + increase

        def __call__(self, epoch):
            if epoch < self.warmup_steps:
                return self.get_warmup_lr(epoch)
            if epoch <= self.max_update:
                self.base_lr = (
                    self.final_lr
                    + (self.base_lr_orig - self.final_lr)
                    * (1 + math.cos(math.pi * (epoch - self.warmup_steps) / self.max_steps))
                    / 2
                )
            return self.base_lr

    rec("sqrt_sched", [SquareRootScheduler()(t) for t in range(6)])
    fs = FactorScheduler(factor=0.9, stop_factor_lr=1e-2, base_lr=2.0)
    rec("factor_sched", [fs(t) for t in range(6)])
    cs = CosineScheduler(20, warmup_steps=5, base_lr=0.3, final_lr=0.01)
    rec("cos_sched", [cs(t) for t in range(0, 24, 3)])
    net = nn.Linear(5, 1)
    trainer = lib.optim.SGD(net.parameters(), lr=0.5)
    sched = lib.optim.lr_scheduler.MultiStepLR(trainer, milestones=[3, 5], gamma=0.5)
    lrs = []
    for _ in range(7):
        trainer.zero_grad()
        nn.functional.mse_loss(net(X).squeeze(-1), y).backward()
        trainer.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    rec("multistep", lrs)
    sched = lib.optim.lr_scheduler.CosineAnnealingLR(trainer, T_max=5)
    lrs = []
    for _ in range(6):
        trainer.step()
        sched.step()
        lrs.append(trainer.param_groups[0]["lr"])
    rec("cos_annealing", lrs)
    hand = CosineScheduler(20)
    for param_group in trainer.param_groups:
        param_group["lr"] = hand(3)
    rec("hand_lr", trainer.param_groups[0]["lr"])
    rec("net.w", net.weight)


def p_devices_and_printing(lib, rec):
    """Computational-performance idioms (try_gpu with no GPU) and printing as the book prints."""
    lib.manual_seed(11)

    def cpu():
        return lib.device("cpu")

    def gpu(i=0):
        return lib.device(f"cuda:{i}")

    def num_gpus():
        return lib.cuda.device_count()

    def try_gpu(i=0):
        if num_gpus() >= i + 1:
            return gpu(i)
        return cpu()

    def try_all_gpus():
        return [gpu(i) for i in range(num_gpus())]

    rec("devices", repr((cpu(), gpu(), gpu(1))))
    rec("try_gpu", repr((try_gpu(), try_gpu(10), try_all_gpus())))
    x = lib.tensor([1, 2, 3])
    rec("x.device", repr(x.device))
    X = lib.ones(2, 3, device=try_gpu())
    rec("X", repr(X))
    rec("avail", str(lib.cuda.is_available()))
    net = lib.nn.Sequential(lib.nn.LazyLinear(1))
    net = net.to(device=try_gpu())
    rec("net_out", net(X))
    rec("net.dev", repr(net[0].weight.data.device))
    x = lib.arange(12)
    rec("arange", repr(x))
    rec("numel", x.numel())
    rec("shape", repr(x.shape))
    X = x.reshape(3, 4)
    rec("X.repr", repr(X))
    rec("zeros", repr(lib.zeros((2, 3, 4))))
    rec("randn", repr(lib.randn(3, 4)))
    rec("tensor", repr(lib.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])))
    X = lib.arange(12, dtype=lib.float32).reshape((3, 4))
    Y = lib.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
    rec("cat0", repr(lib.cat((X, Y), dim=0)))
    rec("cat1", repr(lib.cat((X, Y), axis=1)))
    rec("eq", repr(X == Y))
    rec("sum", repr(X.sum()))
    a = lib.arange(3).reshape((3, 1))
    b = lib.arange(2).reshape((1, 2))
    rec("bcast", repr(a + b))
    rec("X[-1]", repr(X[-1]))
    rec("X[1:3]", repr(X[1:3]))
    X[1, 2] = 17
    X[:2, :] = 12
    rec("X.set", repr(X))
    before = id(Y)
    Y = Y + X
    rec("id_changed", str(id(Y) == before))
    Z = lib.zeros_like(Y)
    before = id(Z)
    Z[:] = X + Y
    rec("id_same", str(id(Z) == before))
    A = X.numpy()
    B = lib.from_numpy(A)
    rec("types", str((type(A).__name__, type(B).__name__)))
    a = lib.tensor([3.5])
    rec("scalars", str((a, a.item(), float(a), int(a))))
    rec("float_of", f"{float(X.sum()):.2f}")
    x = lib.arange(4.0)
    rec("x4", repr(x))
    rec("len", len(x))
    A = lib.arange(20, dtype=lib.float32).reshape(5, 4)
    rec("A.T", repr(A.T))
    B = A.clone()
    rec("hadamard", repr(A * B))
    rec("sum_axis", repr(A.sum(axis=[0, 1])))
    rec("mean", repr(A.mean()))
    rec("mean_axis", repr(A.mean(axis=0)))
    rec("cumsum", repr(A.cumsum(axis=0)))
    sum_A = A.sum(axis=1, keepdims=True)
    rec("sum_A", repr(sum_A))
    rec("A/sum_A", repr(A / sum_A))
    rec("mv", repr(lib.mv(A, x)))
    rec("mm", repr(lib.mm(A, lib.ones(4, 3))))
    u = lib.tensor([3.0, -4.0])
    rec("norm", repr(lib.norm(u)))
    rec("l1", repr(lib.abs(u).sum()))
    rec("fro", repr(lib.norm(lib.ones((4, 9)))))
    x = lib.arange(4.0, requires_grad=True)
    y = 2 * lib.dot(x, x)
    rec("y", repr(y))
    y.backward()
    rec("x.grad", repr(x.grad))
    rec("check", repr(x.grad == 4 * x))
    x.grad.zero_()
    y = x.sum()
    y.backward()
    rec("x.grad2", repr(x.grad))
    x.grad.zero_()
    y = x * x
    y.backward(gradient=lib.ones(len(y)))
    rec("x.grad3", repr(x.grad))
    x.grad.zero_()
    y = x * x
    u = y.detach()
    z = u * x
    z.sum().backward()
    rec("detach", repr(x.grad == u))

    def f(a):
        b = a * 2
        while b.norm() < 1000:
            b = b * 2
        if b.sum() > 0:
            c = b
        else:
            c = 100 * b
        return c

    a = lib.randn(size=(), requires_grad=True)
    d = f(a)
    d.backward()
    rec("ctrl_flow", repr(a.grad == d / a))
    probs = lib.ones(6) / 6
    rec("multinomial", lib.distributions.multinomial.Multinomial(1, probs).sample())
    counts = lib.distributions.multinomial.Multinomial(1000, probs).sample()
    rec("counts", counts / 1000)
    counts = lib.distributions.multinomial.Multinomial(10, probs).sample((20,))
    cum_counts = counts.cumsum(dim=0)
    estimates = cum_counts / cum_counts.sum(dim=1, keepdims=True)
    rec("estimates", estimates[-1])
    rec("dir", str([n for n in dir(lib.distributions) if n == "Multinomial"]))


def caught(fn, kind, tail=""):
    """'Type: True' when fn raises an exception of kind whose message ends with tail."""
    try:
        fn()
    except kind as e:
        return f"{kind.__name__}: {str(e).endswith(tail)}"
    return "no error"


def p_mistakes(lib, rec):
    """Errors students get when a chapter's shapes or dtypes are mistyped."""
    nn = lib.nn
    lib.manual_seed(12)
    X = lib.randn(2, 3)
    W = lib.randn(4, 5)
    rec.err("matmul", lambda: lib.matmul(X, W))
    rec.err("mm", lambda: lib.mm(X, W))
    rec.err("mv", lambda: lib.mv(X, lib.ones(4)))
    rec.err("dot_2d", lambda: lib.dot(X, X))
    rec.err("dot_len", lambda: lib.dot(lib.ones(3), lib.ones(4)))
    rec.err("bmm_2d", lambda: lib.bmm(X, X))
    rec.err("bmm", lambda: lib.bmm(lib.ones(2, 3, 4), lib.ones(2, 5, 6)))
    rec.err("cat", lambda: lib.cat((X, W), dim=0))
    rec.err("stack", lambda: lib.stack((X, W), axis=-1))
    rec.err("reshape", lambda: X.reshape(4, 2))
    rec.err("view", lambda: X.t().view(-1))
    rec.err("add", lambda: X + W)
    lin = nn.Linear(784, 10)
    rec.err("linear_img", lambda: lin(lib.rand(2, 1, 28, 28)))
    conv = nn.Conv2d(1, 6, kernel_size=5)
    rec.err("conv_3ch", lambda: conv(lib.rand(2, 3, 28, 28)))
    rec.err("conv_small", lambda: conv(lib.rand(1, 1, 3, 3)))
    rec.err("conv_unbatched_ok", lambda: conv(lib.rand(1, 28, 28)).shape)
    rec.err("conv_2d", lambda: conv(lib.rand(28, 28)))
    rec.err("pool_small", lambda: nn.MaxPool2d(3)(lib.rand(1, 1, 2, 2)))
    seq = nn.Sequential(nn.Flatten(), nn.Linear(10, 5))
    rec.err("flatten_lin", lambda: seq(lib.rand(4, 3, 5)))
    y = lib.tensor([0, 2])
    y_hat = lib.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
    rec.err("ce_float_target", lambda: nn.functional.cross_entropy(y_hat, y.float()))
    rec.err("ce_int32", lambda: nn.functional.cross_entropy(y_hat, y.int()))
    rec.err("ce_oob", lambda: nn.functional.cross_entropy(y_hat, lib.tensor([0, 3])))
    rec.err("ce_shape", lambda: nn.functional.cross_entropy(y_hat, lib.tensor([0, 1, 2])))
    rec.err("pick_oob", lambda: y_hat[range(3), lib.tensor([0, 1, 2])])
    rec.err("mse_bcast", lambda: nn.MSELoss()(lib.ones(3, 1), lib.ones(3)))
    w = lib.ones(2, requires_grad=True)
    rec.err("inplace_leaf", lambda: w.sub_(1))

    def sub_w():
        nonlocal w
        w -= 1

    rec.err("isub_leaf", sub_w)
    rec.err("numpy_grad", lambda: w.numpy())
    rec.err("backward_nonscalar", lambda: (w * 2).backward())
    rec.err("item_multi", lambda: w.item())
    rec.err("float_multi", lambda: float(lib.ones(2)))
    rec.err("int_tensor_grad", lambda: lib.tensor([1, 2], requires_grad=True))
    rec.err("arange_grad", lambda: lib.arange(4, requires_grad=True))
    w2 = lib.ones(2, requires_grad=True)
    (w2 * 2).sum().backward()
    rec.err("grad_twice_free", lambda: None)
    z = (w2 * w2).sum()
    z.backward()
    rec.err("backward_twice", lambda: z.backward())
    rec.err("zero_none_grad", lambda: lib.ones(2, requires_grad=True).grad.zero_())
    rec.err("one_hot_float", lambda: nn.functional.one_hot(lib.tensor([0.0, 1.0]), 3))
    rec.err("one_hot_small", lambda: nn.functional.one_hot(lib.tensor([0, 5]), 3))
    rec.err("embedding_float", lambda: nn.Embedding(5, 2)(lib.tensor([0.0, 1.0])))
    rec.err("rnn_2d_ok", lambda: nn.RNN(4, 3)(lib.ones(5, 4))[0].shape)
    rec.err("rnn_bad_in", lambda: nn.RNN(4, 3)(lib.ones(5, 2, 3)))
    rec.err("rnn_bad_state", lambda: nn.RNN(4, 3)(lib.ones(5, 2, 4), lib.zeros(1, 3, 3)))
    # (minitorch's message adds what LSTM expected before torch's, which it ends with)
    rec(
        "lstm_state_tensor",
        caught(
            lambda: nn.LSTM(4, 3)(lib.ones(5, 2, 4), lib.zeros(1, 2, 3)),
            IndexError,
            "index 1 is out of bounds for dimension 0 with size 1",
        ),
    )
    rec.err("bn_batch1", lambda: nn.BatchNorm1d(3)(lib.ones(1, 3)))
    rec.err("lazy_access", lambda: nn.LazyLinear(3).weight.shape)
    rec.err("long_float_mm", lambda: lib.mm(lib.ones(2, 2, dtype=lib.long), lib.ones(2, 2)))
    rec.err("sum_axis_bad", lambda: X.sum(axis=2))
    rec.err("argmax_axis_bad", lambda: X.argmax(axis=2))
    rec.err("sequence_mask_dtype", lambda: lib.ones(2, 3)[lib.tensor([[1, 0, 1], [0, 1, 1]])])
    rec.err("mask_shape", lambda: lib.ones(2, 3)[lib.tensor([True, False, True])])
    rec.err("zip_corr", lambda: lib.ones(2, 3, 3) * lib.ones(3, 2, 2))
    rec.err("param_wrap", lambda: nn.Parameter(lib.tensor([1, 2])))
    rec.err("device_str", lambda: lib.device("gpu"))
    # (minitorch's error is both a RuntimeError and an AssertionError, with its own message)
    if not lib.cuda.is_available():
        rec("cuda_tensor", caught(lambda: lib.ones(2, device="cuda:1"), AssertionError))
    rec.err("transpose_3d", lambda: lib.ones(2, 3, 4).T.shape)
    rec.err("t_3d", lambda: lib.ones(2, 3, 4).t())
    rec.err("permute_bad", lambda: lib.ones(2, 3, 4).permute(0, 2))
    rec.err(
        "repeat_interleave_bad",
        lambda: lib.repeat_interleave(lib.tensor([1, 2]), lib.tensor([1, 2, 3])),
    )
    rec.err("meshgrid_noidx", lambda: lib.meshgrid(lib.ones(2), lib.ones(3))[0].shape)


def p_builders_guide(lib, rec):
    """Builders' guide chapter: custom Sequential, fixed hidden MLP, parameter access, init,
    tied layers, custom layers, file I/O, d2l-style data module with TensorDataset/DataLoader."""
    import io

    nn = lib.nn
    F = nn.functional
    lib.manual_seed(13)
    random.seed(13)

    class MySequential(nn.Module):
        def __init__(self, *args):
            super().__init__()
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

        def forward(self, X):
            for module in self.children():
                X = module(X)
            return X

    class FixedHiddenMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.rand_weight = lib.rand((20, 20))
            self.linear = nn.LazyLinear(20)

        def forward(self, X):
            X = self.linear(X)
            X = F.relu(X @ self.rand_weight + 1)
            X = self.linear(X)
            while X.abs().sum() > 1:
                X /= 2
            return X.sum()

    X = lib.rand(2, 20)
    net = MySequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
    rec("myseq", net(X))
    rec("myseq.repr", repr(net))
    rec("fixed", FixedHiddenMLP()(X))
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    net(X)
    rec("state2", repr(net[2].state_dict()))
    rec("bias_type", repr(type(net[2].bias)))
    rec("bias.data", repr(net[2].bias.data))
    rec("bias_sd", repr(net.state_dict()["2.bias"].data))
    rec("grad_none", str(net[2].weight.grad is None))
    rec("named", str([(name, param.shape) for name, param in net.named_parameters()]))

    def init_normal(module):
        if type(module) is nn.Linear:
            nn.init.normal_(module.weight, mean=0, std=0.01)
            nn.init.zeros_(module.bias)

    net.apply(init_normal)
    rec("init_normal", net[0].weight.data[0])
    rec("bias0", net[0].bias.data[0])

    def init_constant(module):
        if type(module) is nn.Linear:
            nn.init.constant_(module.weight, 1)
            nn.init.zeros_(module.bias)

    net.apply(init_constant)
    rec("const", net[0].weight.data[0])

    def init_xavier(module):
        if type(module) is nn.Linear:
            nn.init.xavier_uniform_(module.weight)

    def init_42(module):
        if type(module) is nn.Linear:
            nn.init.constant_(module.weight, 42)

    net[0].apply(init_xavier)
    net[2].apply(init_42)
    rec("xavier", net[0].weight.data[0])
    rec("c42", net[2].weight.data)

    def my_init(module):
        if type(module) is nn.Linear:
            nn.init.uniform_(module.weight, -10, 10)
            module.weight.data *= module.weight.data.abs() >= 5

    net.apply(my_init)
    rec("my_init", net[0].weight[:2])
    net[0].weight.data[:] += 1
    net[0].weight.data[0, 0] = 42
    rec("manual", net[0].weight.data[0])
    shared = nn.LazyLinear(8)
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(),
                        nn.LazyLinear(1))  # fmt: skip
    net(X)
    rec("tied", str(net[2].weight.data[0] == net[4].weight.data[0]))
    net[2].weight.data[0, 0] = 100
    rec("tied2", str(net[2].weight.data[0] == net[4].weight.data[0]))
    rec("tied_params", len(list(net.parameters())))

    class CenteredLayer(nn.Module):
        def forward(self, X):
            return X - X.mean()

    layer = CenteredLayer()
    rec("centered", layer(lib.tensor([1.0, 2, 3, 4, 5])))
    net = nn.Sequential(nn.LazyLinear(128), CenteredLayer())
    Y = net(lib.rand(4, 8))
    rec("centered_mean", Y.mean().abs() < 1e-6)

    class MyLinear(nn.Module):
        def __init__(self, in_units, units):
            super().__init__()
            self.weight = nn.Parameter(lib.randn(in_units, units))
            self.bias = nn.Parameter(lib.randn(units))

        def forward(self, X):
            linear = lib.matmul(X, self.weight.data) + self.bias.data
            return F.relu(linear)

    linear = MyLinear(5, 3)
    rec("mylinear.w", linear.weight)
    rec("mylinear", linear(lib.rand(2, 5)))
    rec("mylinear.repr", repr(linear))
    # file I/O through an in-memory buffer
    x = lib.arange(4)
    buf = io.BytesIO()
    lib.save(x, buf)
    buf.seek(0)
    rec("load_x", lib.load(buf))
    y = lib.zeros(4)
    buf = io.BytesIO()
    lib.save([x, y], buf)
    buf.seek(0)
    x2, y2 = lib.load(buf)
    rec("load_list", repr((x2, y2)))
    mydict = {"x": x, "y": y}
    buf = io.BytesIO()
    lib.save(mydict, buf)
    buf.seek(0)
    rec("load_dict", repr(lib.load(buf)))

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.LazyLinear(256)
            self.output = nn.LazyLinear(10)

        def forward(self, x):
            return self.output(F.relu(self.hidden(x)))

    net = MLP()
    X = lib.randn(size=(2, 20))
    Y = net(X)
    buf = io.BytesIO()
    lib.save(net.state_dict(), buf)
    buf.seek(0)
    clone = MLP()
    rec("clone_load", repr(clone.load_state_dict(lib.load(buf))))
    rec("clone_eval", repr(clone.eval()))
    rec("clone_same", str(bool((clone(X) == Y).all())))

    # a d2l-style data module: synthetic data and a shuffled DataLoader
    w, b, noise, n = lib.tensor([2, -3.4]), 4.2, 0.01, 60
    Xs = lib.randn(n, len(w))
    noise = lib.randn(n, 1) * noise
    ys = lib.matmul(Xs, w.reshape((-1, 1))) + b + noise
    dataset = lib.utils.data.TensorDataset(Xs, ys)
    loader = lib.utils.data.DataLoader(dataset, 16, shuffle=True)
    rec("nbatches", len(loader))
    model = nn.LazyLinear(1)
    model(Xs[:1])
    model.weight.data.normal_(0, 0.01)
    model.bias.data.fill_(0)
    opt = lib.optim.SGD(model.parameters(), 0.03)
    loss_fn = nn.MSELoss()
    for epoch in range(2):
        for Xb, yb in loader:
            loss = loss_fn(model(Xb), yb)
            opt.zero_grad()
            with lib.no_grad():
                loss.backward()
                opt.step()
        rec(f"dm.loss{epoch}", loss)
    rec("dm.w", model.weight)
    rec("get_w_b", repr((model.weight.data, model.bias.data)))
    # weight decay: per-group settings as the chapter's concise version writes them
    net = nn.Sequential(nn.Linear(2, 1))
    for param in net.parameters():
        param.data.normal_()
    trainer = lib.optim.SGD(
        [{"params": net[0].weight, "weight_decay": 3}, {"params": net[0].bias}], lr=0.003
    )
    for Xb, yb in loader:
        trainer.zero_grad()
        l2 = loss_fn(net(Xb), yb) + 0.0 * (net[0].weight ** 2).sum() / 2
        l2.mean().backward()
        trainer.step()
    rec("wd.norm", net[0].weight.norm().item())
    rec("wd.groups", str([sorted(g.keys()) for g in trainer.param_groups]))


def p_seq2seq_pieces(lib, rec):
    """Encoder-decoder pieces as the chapter writes them: GRU encoder/decoder with context
    concatenation, the masked softmax cross-entropy subclass, greedy prediction and BLEU."""
    import collections

    nn = lib.nn
    lib.manual_seed(14)

    def init_seq2seq(module):
        if type(module) is nn.Linear:
            nn.init.xavier_uniform_(module.weight)
        if type(module) is nn.GRU:
            for param in module._flat_weights_names:
                if "weight" in param:
                    nn.init.xavier_uniform_(module._parameters[param])

    class Encoder(nn.Module):
        def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.rnn = nn.GRU(embed_size, num_hiddens, num_layers, dropout=dropout)
            self.apply(init_seq2seq)

        def forward(self, X, *args):
            embs = self.embedding(X.t().type(lib.int64))
            outputs, state = self.rnn(embs)
            return outputs, state

    class Decoder(nn.Module):
        def __init__(self, vocab_size, embed_size, num_hiddens, num_layers, dropout=0):
            super().__init__()
            self.embedding = nn.Embedding(vocab_size, embed_size)
            self.rnn = nn.GRU(embed_size + num_hiddens, num_hiddens, num_layers, dropout=dropout)
            self.dense = nn.LazyLinear(vocab_size)
            self.apply(init_seq2seq)

        def init_state(self, enc_all_outputs, *args):
            return enc_all_outputs

        def forward(self, X, state):
            embs = self.embedding(X.t().type(lib.int32))
            enc_output, hidden_state = state
            context = enc_output[-1]
            context = context.repeat(embs.shape[0], 1, 1)
            embs_and_context = lib.cat((embs, context), -1)
            outputs, hidden_state = self.rnn(embs_and_context, hidden_state)
            outputs = self.dense(outputs).swapaxes(0, 1)
            return outputs, [enc_output, hidden_state]

    vocab_size, embed_size, num_hiddens, num_layers = 10, 8, 16, 2
    batch_size, num_steps = 4, 9
    encoder = Encoder(vocab_size, embed_size, num_hiddens, num_layers)
    X = lib.zeros((batch_size, num_steps))
    enc_outputs, enc_state = encoder(X)
    rec("enc.shapes", str((enc_outputs.shape, enc_state.shape)))
    decoder = Decoder(vocab_size, embed_size, num_hiddens, num_layers)
    state = decoder.init_state(encoder(X))
    dec_outputs, state = decoder(X, state)
    rec("dec.shapes", str((dec_outputs.shape, state[1].shape)))
    rec("dec0", dec_outputs[0, 0])

    def sequence_mask(X, valid_len, value=0):
        maxlen = X.size(1)
        mask = (
            lib.arange((maxlen), dtype=lib.float32, device=X.device)[None, :] < valid_len[:, None]
        )
        X[~mask] = value
        return X

    class MaskedSoftmaxCELoss(nn.CrossEntropyLoss):
        def forward(self, pred, label, valid_len):
            weights = lib.ones_like(label)
            weights = sequence_mask(weights, valid_len)
            self.reduction = "none"
            unweighted_loss = super().forward(pred.permute(0, 2, 1), label)
            weighted_loss = (unweighted_loss * weights).mean(dim=1)
            return weighted_loss

    loss = MaskedSoftmaxCELoss()
    rec("mce", loss(lib.ones(3, 4, 10), lib.ones((3, 4), dtype=lib.long), lib.tensor([4, 2, 0])))
    src = lib.randint(1, vocab_size, (batch_size, num_steps))
    tgt = lib.randint(1, vocab_size, (batch_size, num_steps))
    valid = lib.tensor([9, 5, 7, 3])
    params = list(encoder.parameters()) + list(decoder.parameters())
    opt = lib.optim.Adam(params, lr=0.01)
    for step in range(3):
        bos = lib.tensor([1] * batch_size).reshape(-1, 1)
        dec_input = lib.cat([bos, tgt[:, :-1]], 1)
        Y_hat, _ = decoder(dec_input, decoder.init_state(encoder(src)))
        lo = loss(Y_hat, tgt, valid)
        opt.zero_grad()
        lo.sum().backward()
        num_tokens = valid.sum()
        grads = [p.grad for p in params if p.requires_grad]
        norm = lib.sqrt(sum(lib.sum(g**2) for g in grads))
        if norm > 1:
            for g in grads:
                g[:] *= 1 / norm
        opt.step()
        rec(f"loss{step}", lo.sum() / num_tokens)
    with lib.no_grad():
        enc_all = encoder(src[:1])
        dec_state = decoder.init_state(enc_all)
        outputs = [lib.tensor([1]).reshape(1, 1)]
        for _ in range(5):
            Y, dec_state = decoder(outputs[-1], dec_state)
            outputs.append(Y.argmax(2))
        rec("greedy", lib.cat(outputs[1:], 1))

    def bleu(pred_seq, label_seq, k):
        pred_tokens, label_tokens = pred_seq.split(" "), label_seq.split(" ")
        len_pred, len_label = len(pred_tokens), len(label_tokens)
        score = math.exp(min(0, 1 - len_label / len_pred))
        for n in range(1, min(k, len_pred) + 1):
            num_matches, label_subs = 0, collections.defaultdict(int)
            for i in range(len_label - n + 1):
                label_subs[" ".join(label_tokens[i : i + n])] += 1
            for i in range(len_pred - n + 1):
                if label_subs[" ".join(pred_tokens[i : i + n])] > 0:
                    num_matches += 1
                    label_subs[" ".join(pred_tokens[i : i + n])] -= 1
            score *= math.pow(num_matches / (len_pred - n + 1), math.pow(0.5, n))
        return score

    rec("bleu", bleu("il est calme .", "il est calme .", k=2))


def p_cv_and_nlp_pieces(lib, rec):
    """Transposed convolution from scratch and as a kernel matrix, a bilinear-kernel
    initialised upsampler, skip-gram with a masked sigmoid BCE, BERT-style masked position
    gathering, parametric Nadaraya-Watson and time-series lag features."""
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(15)

    def trans_conv(X, K):
        h, w = K.shape
        Y = lib.zeros((X.shape[0] + h - 1, X.shape[1] + w - 1))
        for i in range(X.shape[0]):
            for j in range(X.shape[1]):
                Y[i : i + h, j : j + w] += X[i, j] * K
        return Y

    X = lib.tensor([[0.0, 1.0], [2.0, 3.0]])
    K = lib.tensor([[0.0, 1.0], [2.0, 3.0]])
    rec("trans_conv", trans_conv(X, K))
    X, K = X.reshape(1, 1, 2, 2), K.reshape(1, 1, 2, 2)
    tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, bias=False)
    tconv.weight.data = K
    rec("tconv", tconv(X))
    tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, padding=1, bias=False)
    tconv.weight.data = K
    rec("tconv_pad", tconv(X))
    tconv = nn.ConvTranspose2d(1, 1, kernel_size=2, stride=2, bias=False)
    tconv.weight.data = K
    rec("tconv_stride", tconv(X))
    X = lib.rand(size=(1, 10, 16, 16))
    conv = nn.Conv2d(10, 20, kernel_size=5, padding=2, stride=3)
    tconv = nn.ConvTranspose2d(20, 10, kernel_size=5, padding=2, stride=3)
    rec("shape_back", str(tconv(conv(X)).shape == X.shape))
    X = lib.arange(9.0).reshape(3, 3)
    K = lib.tensor([[1.0, 2.0], [3.0, 4.0]])

    def kernel2matrix(K):
        k, W = lib.zeros(5), lib.zeros((4, 9))
        k[:2], k[3:5] = K[0, :], K[1, :]
        W[0, :5], W[1, 1:6], W[2, 3:8], W[3, 4:] = k, k, k, k
        return W

    W = kernel2matrix(K)
    rec("k2m", W)
    rec("mm_conv", lib.matmul(W, X.reshape(-1)).reshape(2, 2) == corr2d(lib, X, K))
    Y = corr2d(lib, X, K)
    rec("mm_tconv", lib.matmul(W.T, Y.reshape(-1)).reshape(3, 3) == trans_conv(Y, K))

    def bilinear_kernel(in_channels, out_channels, kernel_size):
        factor = (kernel_size + 1) // 2
        center = factor - 1 if kernel_size % 2 == 1 else factor - 0.5
        og = (lib.arange(kernel_size).reshape(-1, 1), lib.arange(kernel_size).reshape(1, -1))
        filt = (1 - lib.abs(og[0] - center) / factor) * (1 - lib.abs(og[1] - center) / factor)
        weight = lib.zeros((in_channels, out_channels, kernel_size, kernel_size))
        weight[range(in_channels), range(out_channels), :, :] = filt
        return weight

    conv_trans = nn.ConvTranspose2d(3, 3, kernel_size=4, padding=1, stride=2, bias=False)
    conv_trans.weight.data.copy_(bilinear_kernel(3, 3, 4))
    img = lib.rand(1, 3, 5, 5)
    out = conv_trans(img)
    rec("bilinear", out[0, 1])
    rec("bilinear.perm", out[0].permute(1, 2, 0).detach().shape)
    # skip-gram pieces
    embed = nn.Embedding(num_embeddings=20, embedding_dim=4)
    rec("embed.w.shape", str(embed.weight.shape))
    rec("embed.repr", repr(embed))
    x = lib.tensor([[1, 2, 3], [4, 5, 6]])
    rec("embed_x", embed(x).shape)

    def skip_gram(center, contexts_and_negatives, embed_v, embed_u):
        v = embed_v(center)
        u = embed_u(contexts_and_negatives)
        return lib.bmm(v, u.permute(0, 2, 1))

    embed_u = nn.Embedding(20, 4)
    rec("sg", skip_gram(lib.ones((2, 1), dtype=lib.long), lib.ones((2, 4), dtype=lib.long),
                        embed, embed_u))  # fmt: skip

    class SigmoidBCELoss(nn.Module):
        def forward(self, inputs, target, mask=None):
            out = F.binary_cross_entropy_with_logits(inputs, target, weight=mask, reduction="none")
            return out.mean(dim=1)

    loss = SigmoidBCELoss()
    pred = lib.tensor([[1.1, -2.2, 3.3, -4.4]] * 2)
    label = lib.tensor([[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    mask = lib.tensor([[1, 1, 1, 1], [1, 1, 0, 0]])
    rec("sbce", loss(pred, label, mask) * mask.shape[1] / mask.sum(axis=1))

    def sigmd(x):
        return -math.log(1 / (1 + math.exp(-x)))

    rec("sigmd", f"{(sigmd(1.1) + sigmd(2.2) + sigmd(-3.3) + sigmd(4.4)) / 4:.4f}")
    W = embed.weight.data
    xq = W[3]
    cos = lib.mv(W, xq) / lib.sqrt(lib.sum(W * W, axis=1) * lib.sum(xq * xq) + 1e-9)
    topk = lib.topk(cos, k=4)[1].cpu().numpy().astype("int32")
    rec("topk", topk)
    # BERT-style gathering of masked positions
    batch_size, num_pred = 2, 3
    Xe = lib.randn(batch_size, 8, 6)
    pred_positions = lib.tensor([[1, 5, 2], [6, 1, 5]])
    pp = pred_positions.reshape(-1)
    batch_idx = lib.arange(0, batch_size)
    batch_idx = lib.repeat_interleave(batch_idx, num_pred)
    masked_X = Xe[batch_idx, pp]
    masked_X = masked_X.reshape((batch_size, num_pred, -1))
    rec("masked_X", masked_X)
    tokens = ["<cls>", "a", "b", "<sep>"]
    segments = [0] * 4
    seg = nn.Embedding(2, 6)
    pos = nn.Parameter(lib.randn(1, 10, 6))
    Xt = seg(lib.tensor([segments])) + pos[:, : len(tokens), :]
    rec("bert_in", Xt)
    # parametric Nadaraya-Watson
    n_train = 10
    x_train, _ = lib.sort(lib.rand(n_train) * 5)
    y_train = 2 * lib.sin(x_train) + x_train**0.8 + lib.normal(0.0, 0.5, (n_train,))
    X_tile = x_train.repeat((n_train, 1))
    Y_tile = y_train.repeat((n_train, 1))
    keys = X_tile[(1 - lib.eye(n_train)).type(lib.bool)].reshape((n_train, -1))
    values = Y_tile[(1 - lib.eye(n_train)).type(lib.bool)].reshape((n_train, -1))

    class NWKernelRegression(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(lib.rand((1,), requires_grad=True))

        def forward(self, queries, keys, values):
            queries = queries.repeat_interleave(keys.shape[1]).reshape((-1, keys.shape[1]))
            self.attention_weights = F.softmax(-(((queries - keys) * self.w) ** 2) / 2, dim=1)
            return lib.bmm(self.attention_weights.unsqueeze(1), values.unsqueeze(-1)).reshape(-1)

    net = NWKernelRegression()
    loss = nn.MSELoss(reduction="none")
    trainer = lib.optim.SGD(net.parameters(), lr=0.5)
    for epoch in range(3):
        trainer.zero_grad()
        lo = loss(net(x_train, keys, values), y_train)
        lo.sum().backward()
        trainer.step()
        rec(f"nw.loss{epoch}", float(lo.sum()))
    rec("nw.w", net.w)
    # time-series lag features
    T, tau = 100, 4
    time = lib.arange(1, T + 1, dtype=lib.float32)
    x = lib.sin(0.01 * time) + lib.normal(0, 0.2, (T,))
    features = lib.zeros((T - tau, tau))
    for i in range(tau):
        features[:, i] = x[i : T - tau + i]
    labels = x[tau:].reshape((-1, 1))
    rec("features", features[:3])
    rec("labels", labels[:3])
    multistep_preds = lib.zeros(T)
    multistep_preds[: 60 + tau] = x[: 60 + tau]
    lin = nn.Linear(4, 1)
    for i in range(60 + tau, T):
        multistep_preds[i] = lin(multistep_preds[i - tau : i].reshape((1, -1))).item()
    rec("multistep", multistep_preds[-4:])


def p_warnings(lib, rec):
    """The warnings a chapter's code gives: lazy modules, broadcasting losses, meshgrid without
    indexing, .T of a 3-D tensor, tensor(tensor), softmax without dim, .grad of a non-leaf,
    deprecated init aliases, scheduler order."""
    nn = lib.nn
    F = nn.functional
    lib.manual_seed(16)
    rec.warns("lazy_linear", lambda: nn.LazyLinear(3))
    rec.warns("lazy_conv", lambda: nn.LazyConv2d(3, 3))
    rec.warns("lazy_bn", lambda: nn.LazyBatchNorm2d())
    rec.warns("mse_bcast", lambda: nn.MSELoss()(lib.ones(3, 1), lib.ones(3)))
    rec.warns("l1_bcast", lambda: F.l1_loss(lib.ones(3, 1), lib.ones(3)))
    rec.warns("meshgrid", lambda: lib.meshgrid(lib.ones(2), lib.ones(3)))
    rec.warns("T3d", lambda: lib.ones(2, 3, 4).T)
    rec.warns("tensor_of_tensor", lambda: lib.tensor(lib.ones(2)))
    rec.warns("softmax_nodim", lambda: F.softmax(lib.ones(2, 3)))
    rec.warns("log_softmax_nodim", lambda: F.log_softmax(lib.ones(2, 3)))
    rec.warns("Softmax_module", lambda: nn.Softmax()(lib.ones(2, 3)))
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    rec.warns("nonleaf_grad", lambda: y.grad)
    rec.warns("xavier_alias", lambda: nn.init.xavier_uniform(lib.empty(3, 4)))
    rec.warns("normal_alias", lambda: nn.init.normal(lib.empty(3, 4)))
    rec.warns("constant_alias", lambda: nn.init.constant(lib.empty(3, 4), 1.0))
    net = nn.Linear(2, 1)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    sched = lib.optim.lr_scheduler.StepLR(opt, 2)
    rec.warns("sched_before_step", lambda: sched.step())
    rec.warns("get_lr", lambda: sched.get_lr())
    rec.warns("clip_alias", lambda: nn.utils.clip_grad_norm(net.parameters(), 1.0))
    rec.warns("size_average", lambda: nn.CrossEntropyLoss(size_average=False))
    rec.warns("sigmoid_f", lambda: F.sigmoid(lib.ones(2)))
    rec.warns("tanh_f", lambda: F.tanh(lib.ones(2)))
    rec.warns("upsample", lambda: F.upsample(lib.ones(1, 1, 2, 2), scale_factor=2))
    rec.warns("dropout_bad", lambda: nn.Dropout2d(0.5)(lib.ones(2, 3)))
    rec.warns("range", lambda: lib.range(0, 3))
    rec.warns("lstm_dropout", lambda: nn.LSTM(2, 3, dropout=0.5))
    rec.warns("bce_shape", lambda: rec.err("bce", lambda: F.binary_cross_entropy(
        lib.full((3,), 0.5), lib.ones(3, 1))))  # fmt: skip


def p_multi_gpu_fallbacks(lib, rec):
    """The multi-GPU chapter's helpers on a machine without a GPU: split_batch through
    nn.parallel.scatter, gather, DataParallel on the CPU, an allreduce by hand."""
    nn = lib.nn
    lib.manual_seed(17)
    devices = [lib.device(f"cuda:{i}") for i in range(lib.cuda.device_count())] or [
        lib.device("cpu")
    ]
    rec("devices", repr(devices))
    X = lib.arange(24, dtype=lib.float32).reshape(6, 4)
    y = lib.arange(6)

    def split_batch(X, y, devices):
        assert X.shape[0] == y.shape[0]
        return (nn.parallel.scatter(X, devices), nn.parallel.scatter(y, devices))

    rec.err("split_batch", lambda: split_batch(X, y, devices))
    rec.err("scatter_str", lambda: nn.parallel.scatter(X, ["cpu"]))
    rec.err("scatter_meta", lambda: nn.parallel.scatter(X, [lib.device("meta")]))
    rec("scatter_int", repr(nn.parallel.scatter(3, devices)))
    rec("scatter_empty", repr(nn.parallel.scatter([], devices)))
    rec.err("gather_cpu", lambda: nn.parallel.gather([X, X], "cpu"))
    rec("gather_none", repr(nn.parallel.gather([None, None], "cpu")))
    rec.err("gather_dicts", lambda: nn.parallel.gather([{"a": None}, {}], "cpu"))
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    dp = nn.DataParallel(net, device_ids=devices)
    out = dp(X)
    rec("dp", out)
    rec("dp.keys", str(list(dp.state_dict().keys())))
    data = [X.clone() for _ in devices]

    def allreduce(data):
        for i in range(1, len(data)):
            data[0][:] += data[i].to(data[0].device)
        for i in range(1, len(data)):
            data[i][:] = data[0].to(data[i].device)

    allreduce(data)
    rec("allreduce", data[0])


PROGRAMS = [
    "linreg_scratch", "softmax_scratch", "dropout_bn_scratch", "conv_scratch", "cnn_shape_walks",
    "modern_blocks", "rnn_scratch", "attention", "boxes", "optim_scratch", "devices_and_printing",
    "mistakes", "builders_guide", "seq2seq_pieces", "cv_and_nlp_pieces",
    "warnings", "multi_gpu_fallbacks",
]  # fmt: skip


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_matches_torch(name):
    prog = globals()["p_" + name]
    want = run_program(prog, torch, rec=Rec(dtypes=True, first_line=True))
    got = run_program(prog, minitorch, rec=Rec(dtypes=True, first_line=True))
    assert_records_match(want, got, 1e-5, rename=True)

