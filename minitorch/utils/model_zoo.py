"""torch.utils.model_zoo: the old home of load_url (old torchvision-style model files import it)."""

from __future__ import annotations

from minitorch.hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
