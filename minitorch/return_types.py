"""Named tuples returned by multi-output ops (max, median, sort...). Mirrors torch.return_types."""

from __future__ import annotations


class _StructSeq(tuple):
    """A tuple whose items are also reachable by name; `repr` as torch prints its return types."""

    __slots__ = ()
    _names: tuple = ()

    def __new__(cls, sequence=()):
        try:
            items = iter(sequence)
        except TypeError:
            raise TypeError("constructor requires a sequence") from None
        items = tuple(items)
        if len(items) != len(cls._names):
            raise TypeError(
                f"torch.return_types.{cls.__name__}() takes a {len(cls._names)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return tuple.__new__(cls, items)

    # Class attributes, as torch's structseq types have them (return_types.max.n_fields is 2);
    # each return type sets its own in _structseq. All fields are named and in the sequence.
    n_fields = n_sequence_fields = 0
    n_unnamed_fields = 0

    def __repr__(self):
        body = ",\n".join(f"{n}={v!r}" for n, v in zip(self._names, self, strict=False))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))

    # torch's messages name the type in full ('torch.return_types.max' object ...)
    def __getattr__(self, name):
        raise AttributeError(f"'{self._full_name()}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        self._refuse_set(name)

    def __delattr__(self, name):
        self._refuse_set(name)

    def _refuse_set(self, name):
        if name in self._names:
            raise AttributeError("readonly attribute")
        if hasattr(type(self), name):
            raise AttributeError(f"'{self._full_name()}' object attribute '{name}' is read-only")
        raise AttributeError(f"'{self._full_name()}' object has no attribute '{name}'")

    def _full_name(self) -> str:
        return f"torch.return_types.{type(self).__name__}"


def _structseq(name: str, names: tuple) -> type:
    """A return type `name` with fields `names` (defined at module level, so it pickles)."""
    body = {"__slots__": (), "_names": names, "__module__": __name__, "__qualname__": name}
    body["n_fields"] = body["n_sequence_fields"] = len(names)
    for i, n in enumerate(names):
        body[n] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (_StructSeq,), body)


_VI = ("values", "indices")

# Each class is made on first use (a module __getattr__; ~20 us apiece, and most programs use
# one or two of them), once: setdefault keeps the first made if two threads race.
_FIELDS = {
    "max": _VI,
    "min": _VI,
    "median": _VI,
    "nanmedian": _VI,
    "mode": _VI,
    "kthvalue": _VI,
    "sort": _VI,
    "topk": _VI,
    "cummax": _VI,
    "cummin": _VI,
    "aminmax": ("min", "max"),
    "slogdet": ("sign", "logabsdet"),
    "linalg_slogdet": ("sign", "logabsdet"),
    "qr": ("Q", "R"),
    "linalg_qr": ("Q", "R"),
    "svd": ("U", "S", "V"),
    "linalg_svd": ("U", "S", "Vh"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"),
    "linalg_eig": ("eigenvalues", "eigenvectors"),
    "linalg_inv_ex": ("inverse", "info"),
    "linalg_cholesky_ex": ("L", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
    "frexp": ("mantissa", "exponent"),
    "histogram": ("hist", "bin_edges"),
    "geqrf": ("a", "tau"),
    "linalg_lu": ("P", "L", "U"),
    "linalg_lu_factor": ("LU", "pivots"),
    "linalg_ldl_factor": ("LD", "pivots"),
    "linalg_ldl_factor_ex": ("LD", "pivots", "info"),
    "lu_unpack": ("P", "L", "U"),
    "triangular_solve": ("solution", "cloned_coefficient"),
    "linalg_solve_ex": ("result", "info"),
    "linalg_lu_factor_ex": ("LU", "pivots", "info"),
    "_lu_with_info": ("LU", "pivots", "info"),
    "histogramdd": ("hist", "bin_edges"),
}
__all__ = [name for name in _FIELDS if not name.startswith("_")]


def __getattr__(name):
    # `<op>_out`: the type of the tuple an op returns when given out= (torch.return_types.max_out)
    names = _FIELDS.get(name[:-4] if name.endswith("_out") else name)
    if names is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return globals().setdefault(name, _structseq(name, names))


def out_type(result_type: type) -> type:
    """The return type of an op given out= (max -> max_out), for an op's return type."""
    return __getattr__(result_type.__name__ + "_out")


def __dir__():
    return sorted(set(globals()) | set(_FIELDS) | {n + "_out" for n in _FIELDS})
