"""CatTransform and StackTransform: other transforms applied to sections or slices of one dim.
Re-exported by minitorch.distributions.transforms (kept apart to keep that file readable)."""

from __future__ import annotations

import minitorch
from minitorch.distributions import constraints
from minitorch.distributions.transforms import Transform
from minitorch.distributions.utils import _sum_rightmost

__all__ = ["CatTransform", "StackTransform"]


def _transform_list(tseq, cache_size: int) -> list:
    tseq = list(tseq)
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")  # torch's
    return [t.with_cache(cache_size) for t in tseq] if cache_size else tseq


def _check_dim(x, dim: int) -> None:
    if not -x.dim() <= dim < x.dim():
        raise AssertionError(f"dim {dim} out of range for tensor with {x.dim()} dimensions")


class CatTransform(Transform):
    """transforms[i] applied to the i-th consecutive section (of size lengths[i], 1 each by
    default) of `dim`, the results concatenated: the transform counterpart of constraints.cat.

    Mirrors torch.distributions.transforms.CatTransform."""

    def __init__(self, tseq, dim: int = 0, lengths=None, cache_size: int = 0):
        self.transforms = _transform_list(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})"
            )
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _sections(self, z):
        """z cut into the sections of `dim` that the transforms act on."""
        _check_dim(z, self.dim)
        if z.size(self.dim) != self.length:
            raise AssertionError(
                f"x.size({self.dim}) = {z.size(self.dim)} must equal length "
                f"{self.length}"
            )
        out, start = [], 0
        for length in self.lengths:
            out.append(z.narrow(self.dim, start, length))
            start += length
        return out

    def _call(self, x):
        parts = zip(self.transforms, self._sections(x), strict=True)
        return minitorch.cat([t(xs) for t, xs in parts], self.dim)

    def _inverse(self, y):
        parts = zip(self.transforms, self._sections(y), strict=True)
        return minitorch.cat([t.inv(ys) for t, ys in parts], self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = []
        for t, xs, ys in zip(self.transforms, self._sections(x), self._sections(y), strict=True):
            # a part with fewer event dims is summed up to the common event_dim first
            terms.append(
                _sum_rightmost(t.log_abs_det_jacobian(xs, ys), self.event_dim - t.event_dim)
            )
        # `dim` counted from the right of the per-element jacobian: still a batch dim there
        # (negative) means the sections line up and are concatenated; inside the event they
        # were summed over and the totals add
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return minitorch.cat(terms, dim)
        return sum(terms[1:], terms[0])

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """transforms[i] applied to the i-th slice of `dim`, the results stacked: the transform
    counterpart of constraints.stack.

    Mirrors torch.distributions.transforms.StackTransform."""

    def __init__(self, tseq, dim: int = 0, cache_size: int = 0):
        self.transforms = _transform_list(tseq, cache_size)
        super().__init__(cache_size=cache_size)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z):
        _check_dim(z, self.dim)
        if z.size(self.dim) != len(self.transforms):
            raise AssertionError(
                f"x.size({self.dim}) = {z.size(self.dim)} must equal "
                f"len(transforms) {len(self.transforms)}"
            )
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        parts = zip(self.transforms, self._slices(x), strict=True)
        return minitorch.stack([t(xs) for t, xs in parts], self.dim)

    def _inverse(self, y):
        parts = zip(self.transforms, self._slices(y), strict=True)
        return minitorch.stack([t.inv(ys) for t, ys in parts], self.dim)

    def log_abs_det_jacobian(self, x, y):
        parts = zip(self.transforms, self._slices(x), self._slices(y), strict=True)
        return minitorch.stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in parts], self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


# Public from (and named by their reprs as in) transforms.py, as torch's.
CatTransform.__module__ = "minitorch.distributions.transforms"
StackTransform.__module__ = "minitorch.distributions.transforms"
