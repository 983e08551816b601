"""The package version string that compares as a version. Mirrors torch.torch_version."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["TorchVersion"]


class InvalidVersion(ValueError):
    """A string that is no PEP 440 version."""


# PEP 440's public version scheme, spellings normalised as the spec allows (v1.0, 1.0-rc1, 1.0-1
# for a post-release, any case, . - _ separators); compiled at the first comparison, not at
# `import minitorch` (re caches it: ~2 ms of the import)
_VERSION = (
    r"\s*v?(?:(\d+)!)?(\d+(?:\.\d+)*)"  # epoch, release
    r"(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?(\d+)?)?"  # pre-release
    r"(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?"  # post-release: -N or postN
    r"(?:[-_.]?(dev)[-_.]?(\d+)?)?"  # dev release
    r"(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*"  # local label
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


class Version:
    """A PEP 440 version, ordered as the spec orders them (1.0.dev0 < 1.0a1 < 1.0 < 1.0+local <
    1.0.post1)."""

    __slots__ = ("_key", "_text")

    def __init__(self, text: str) -> None:
        m = re.fullmatch(_VERSION, text, re.IGNORECASE)
        if m is None:
            raise InvalidVersion(f"Invalid version: {text!r}")
        epoch, release, pre_l, pre_n, post_dash, post_l, post_n, dev_l, dev_n, local = m.groups()
        parts = [int(p) for p in release.split(".")]
        while len(parts) > 1 and parts[-1] == 0:  # 1.0 == 1
            parts.pop()
        post = post_dash if post_dash is not None else post_n
        has_post = post_dash is not None or post_l is not None
        # each part keyed so that tuples compare: a missing part sorts where the spec puts it
        if pre_l is not None:
            pre_key = (1, _PRE_RANK[pre_l.lower()], int(pre_n or 0))
        elif dev_l is not None and not has_post:
            pre_key = (0,)  # 1.0.dev0 before 1.0a0
        else:
            pre_key = (2,)
        post_key = (1, int(post or 0)) if has_post else (0,)
        dev_key = (0, int(dev_n or 0)) if dev_l is not None else (1,)
        if local is None:
            local_key = (0,)
        else:
            segs = re.split(r"[-_.]", local.lower())
            local_key = (1, tuple((1, int(s), "") if s.isdigit() else (0, 0, s) for s in segs))
        self._key = (int(epoch or 0), tuple(parts), pre_key, post_key, dev_key, local_key)
        self._text = text

    def __repr__(self) -> str:
        return f"<Version({self._text.strip()!r})>"

    def __eq__(self, other):
        return self._key == other._key if isinstance(other, Version) else NotImplemented

    def __lt__(self, other):
        return self._key < other._key if isinstance(other, Version) else NotImplemented

    def __le__(self, other):
        return self._key <= other._key if isinstance(other, Version) else NotImplemented

    def __gt__(self, other):
        return self._key > other._key if isinstance(other, Version) else NotImplemented

    def __ge__(self, other):
        return self._key >= other._key if isinstance(other, Version) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._key)


def _as_version(x) -> Version:
    """A comparand read as a version: a string parsed, an iterable of parts joined by dots
    ((2, 0) is "2.0")."""
    if isinstance(x, Version):
        return x
    if isinstance(x, str):
        return Version(x)
    if isinstance(x, Iterable):
        return Version(".".join(str(p) for p in x))
    raise InvalidVersion(x)


class TorchVersion(str):
    """A version string that compares with strings and tuples as versions do (__version__ >=
    "2.0", __version__ >= (2, 0)); a comparand that reads as no version is compared as str
    compares it. Mirrors torch.torch_version.TorchVersion (whose != stays str's)."""

    def _compare(self, other, name: str):
        try:
            return getattr(Version(self), name)(_as_version(other))
        except InvalidVersion:
            return getattr(str, name)(self, other)

    def __eq__(self, other):
        return self._compare(other, "__eq__")

    def __lt__(self, other):
        return self._compare(other, "__lt__")

    def __le__(self, other):
        return self._compare(other, "__le__")

    def __gt__(self, other):
        return self._compare(other, "__gt__")

    def __ge__(self, other):
        return self._compare(other, "__ge__")

    __hash__ = str.__hash__
