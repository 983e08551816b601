"""minitorch.optim: optimizers and learning-rate schedulers. Mirrors torch.optim."""

from minitorch.optim import lr_scheduler, swa_utils  # noqa: F401
from minitorch.optim.adadelta import Adadelta
from minitorch.optim.adafactor import Adafactor
from minitorch.optim.adagrad import Adagrad
from minitorch.optim.adam import Adam
from minitorch.optim.adamax import Adamax
from minitorch.optim.adamw import AdamW
from minitorch.optim.asgd import ASGD
from minitorch.optim.lbfgs import LBFGS
from minitorch.optim.muon import Muon
from minitorch.optim.nadam import NAdam
from minitorch.optim.optimizer import Optimizer
from minitorch.optim.radam import RAdam
from minitorch.optim.rmsprop import RMSprop
from minitorch.optim.rprop import Rprop
from minitorch.optim.sgd import SGD
from minitorch.optim.sparse_adam import SparseAdam

# torch files these two under the package itself (torch.optim.Adafactor prints so)
Adafactor.__module__ = Muon.__module__ = "minitorch.optim"

__all__ = [
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "ASGD",
    "LBFGS",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "SparseAdam",
    "lr_scheduler",
    "swa_utils",
]
