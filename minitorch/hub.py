"""torch.hub: local hubconf.py entrypoints and weight downloads: load_state_dict_from_url
(cached in torch's own hub directory, so PyTorch and minitorch share downloaded checkpoints) and
download_url_to_file. Mirrors torch.hub.

hub.load(dir, model, source="local") runs the entrypoint of the hubconf.py in a local directory.

Differences from torch: nothing is fetched from GitHub: hub.load with source="github", hub.list
and hub.help raise NotImplementedError; downloads show no progress bar.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # the hash prefix in "resnet18-f37072fd.pth"
READ_DATA_CHUNK = 128 * 1024

_hub_dir = None


def get_dir() -> str:
    """Where downloads are cached: set_dir's, else $TORCH_HOME/hub, else
    $XDG_CACHE_HOME/torch/hub, else ~/.cache/torch/hub. Mirrors torch.hub.get_dir."""
    if _hub_dir is not None:
        return _hub_dir
    torch_home = os.path.expanduser(
        os.getenv(
            ENV_TORCH_HOME,
            os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch"),
        )
    )
    return os.path.join(torch_home, "hub")


def set_dir(d) -> None:
    """Mirrors torch.hub.set_dir."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress=True):
    """Downloads url to dst (through a temporary file beside it, so an interrupted download
    never leaves a partial dst), checking the SHA-256 against hash_prefix when given. Mirrors
    torch.hub.download_url_to_file."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    request = urllib.request.Request(url, headers={"User-Agent": "minitorch.hub"})
    sha256 = hashlib.sha256() if hash_prefix is not None else None
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".partial", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f, urllib.request.urlopen(request) as response:
            while True:
                chunk = response.read(READ_DATA_CHUNK)
                if not chunk:
                    break
                f.write(chunk)
                if sha256 is not None:
                    sha256.update(chunk)
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[: len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(
    url: str,
    model_dir: str | None = None,
    map_location=None,
    progress: bool = True,
    check_hash: bool = False,
    file_name: str | None = None,
    weights_only: bool = False,
):
    """The object saved at url (downloaded once into model_dir, default get_dir()/checkpoints),
    loaded with minitorch.load. check_hash compares the file's SHA-256 with the hex prefix in
    its name ("name-<hash>.ext"). Mirrors torch.hub.load_state_dict_from_url."""
    from minitorch.serialization import load

    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stderr.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            found = HASH_REGEX.search(filename)
            hash_prefix = found.group(1) if found else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    return load(cached_file, map_location=map_location, weights_only=weights_only)


_VALID_SOURCES = ("github", "local")
MODULE_HUBCONF = "hubconf.py"
VAR_DEPENDENCY = "dependencies"


def _no_github(name: str):
    raise NotImplementedError(
        f"hub.{name}: minitorch does not download GitHub repositories; clone the repository and "
        f"call minitorch.hub.load(path, model, source='local'), or build the model in Python and "
        "load its weights with minitorch.hub.load_state_dict_from_url(url)"
    )


@contextlib.contextmanager
def _on_sys_path(path: str):
    """path first on sys.path inside the block, so hubconf.py imports its repository's own
    modules (also while the entrypoint runs, which may import lazily)."""
    sys.path.insert(0, path)
    try:
        yield
    finally:
        if path in sys.path:  # unless hubconf.py took it off itself
            sys.path.remove(path)


def _import_hubconf(hubconf_dir: str):
    """The repository's hubconf.py, run as a module that is not left in sys.modules (two
    repositories' hubconf.py files must not shadow each other)."""
    path = os.path.join(hubconf_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location(MODULE_HUBCONF, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # a missing file raises torch's FileNotFoundError here
    return module


def _check_dependencies(module) -> None:
    """RuntimeError naming the modules in the hubconf's `dependencies` list that cannot be
    imported (checked without importing them)."""
    dependencies = getattr(module, VAR_DEPENDENCY, None)
    if dependencies is None:
        return
    missing = [name for name in dependencies if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _load_entry_from_hubconf(module, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    _check_dependencies(module)
    entry = getattr(module, model, None)
    if entry is None or not callable(entry):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return entry


def _load_local(hubconf_dir, model, *args, **kwargs):
    """Runs entrypoint `model` of the hubconf.py in hubconf_dir with args and kwargs. Mirrors
    torch.hub._load_local."""
    hubconf_dir = os.fspath(hubconf_dir)
    with _on_sys_path(hubconf_dir):
        entry = _load_entry_from_hubconf(_import_hubconf(hubconf_dir), model)
        return entry(*args, **kwargs)


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo="check",
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """The object entrypoint `model` of a repository's hubconf.py returns for args/kwargs.
    Mirrors torch.hub.load; source="local" runs the hubconf.py in directory repo_or_dir
    (checking its `dependencies` list), as torch does.

    Differences from torch: source="github" raises NotImplementedError (nothing is
    downloaded)."""
    source = source.lower()
    if source not in _VALID_SOURCES:
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        _no_github("load")
    return _load_local(repo_or_dir, model, *args, **kwargs)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001 - torch's name
    """Mirrors torch.hub.list's signature (torch's list reads GitHub repositories only).

    Differences from torch: raises NotImplementedError (nothing is downloaded)."""
    _no_github("list")


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001 - torch's name
    """Mirrors torch.hub.help's signature (torch's help reads GitHub repositories only).

    Differences from torch: raises NotImplementedError (nothing is downloaded)."""
    _no_github("help")
