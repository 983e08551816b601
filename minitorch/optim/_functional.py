"""torch.optim._functional: the functional forms of the optimizers' steps (lists of parameters,
gradients and state tensors in, updated in place), for code that keeps its own state."""

from minitorch.optim.adam import adam
from minitorch.optim.adamw import adamw
from minitorch.optim.sgd import sgd

__all__ = ["adam", "adamw", "sgd"]
