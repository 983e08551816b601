"""Named tuples returned by multi-output ops (max, median, sort...). Mirrors torch.return_types."""

from __future__ import annotations

# fmt: off
__all__ = [
    "max", "min", "median", "nanmedian", "mode", "kthvalue", "sort", "topk", "cummax", "cummin",
    "aminmax", "slogdet", "linalg_slogdet", "qr", "linalg_qr", "svd", "linalg_svd", "linalg_eigh",
    "linalg_eig", "linalg_inv_ex", "linalg_cholesky_ex", "linalg_lstsq", "frexp", "histogram",
    "geqrf",
    "linalg_lu", "linalg_lu_factor", "lu_unpack", "triangular_solve", "linalg_solve_ex",
    "linalg_lu_factor_ex", "histogramdd",
]
# fmt: on


class _StructSeq(tuple):
    """A tuple whose items are also reachable by name; `repr` as torch prints its return types."""

    __slots__ = ()
    _names: tuple = ()

    def __new__(cls, sequence=()):
        items = tuple(sequence)
        if len(items) != len(cls._names):
            raise TypeError(
                f"torch.return_types.{cls.__name__}() takes a {len(cls._names)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return tuple.__new__(cls, items)

    @property
    def n_fields(self) -> int:
        return len(self._names)

    n_sequence_fields = n_fields

    def __repr__(self):
        body = ",\n".join(f"{n}={v!r}" for n, v in zip(self._names, self, strict=False))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (tuple(self),))


def _structseq(name: str, names: tuple) -> type:
    """A return type `name` with fields `names` (defined at module level, so it pickles)."""
    body = {"__slots__": (), "_names": names, "__module__": __name__, "__qualname__": name}
    for i, n in enumerate(names):
        body[n] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (_StructSeq,), body)


_VI = ("values", "indices")

max = _structseq("max", _VI)
min = _structseq("min", _VI)
median = _structseq("median", _VI)
nanmedian = _structseq("nanmedian", _VI)
mode = _structseq("mode", _VI)
kthvalue = _structseq("kthvalue", _VI)
sort = _structseq("sort", _VI)
topk = _structseq("topk", _VI)
cummax = _structseq("cummax", _VI)
cummin = _structseq("cummin", _VI)
aminmax = _structseq("aminmax", ("min", "max"))
slogdet = _structseq("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _structseq("linalg_slogdet", ("sign", "logabsdet"))
qr = _structseq("qr", ("Q", "R"))
linalg_qr = _structseq("linalg_qr", ("Q", "R"))
svd = _structseq("svd", ("U", "S", "V"))
linalg_svd = _structseq("linalg_svd", ("U", "S", "Vh"))
linalg_eigh = _structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = _structseq("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_inv_ex = _structseq("linalg_inv_ex", ("inverse", "info"))
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ("L", "info"))
linalg_lstsq = _structseq("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
frexp = _structseq("frexp", ("mantissa", "exponent"))
histogram = _structseq("histogram", ("hist", "bin_edges"))
geqrf = _structseq("geqrf", ("a", "tau"))
linalg_lu = _structseq("linalg_lu", ("P", "L", "U"))
linalg_lu_factor = _structseq("linalg_lu_factor", ("LU", "pivots"))
lu_unpack = _structseq("lu_unpack", ("P", "L", "U"))
triangular_solve = _structseq("triangular_solve", ("solution", "cloned_coefficient"))
linalg_solve_ex = _structseq("linalg_solve_ex", ("result", "info"))
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_lu_with_info = _structseq("_lu_with_info", ("LU", "pivots", "info"))
histogramdd = _structseq("histogramdd", ("hist", "bin_edges"))
