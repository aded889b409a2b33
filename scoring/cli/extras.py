"""Missing optional dependencies: the ``pip install`` line that installs them, before any work is done.

A command of an extra (``data``, ``baselines``, ``plots``...) that finds its module missing ends with one
line, ``error [missing_dependency] ... pip install 'agrieval[EXTRA]'``, and exit code 3.
"""

from __future__ import annotations

import importlib.util
import sys

from agrieval.scoring.cli.command_error import CommandError
from agrieval.scoring.cli.exit_codes import EXIT_HOST

# Third-party module -> (the pip package that provides it, the extra that installs it).
EXTRAS: dict[str, tuple[str, str]] = {
    "PIL": ("pillow", "data"),
    "imagehash": ("imagehash", "data"),
    "pillow_heif": ("pillow-heif", "data"),
    "pyarrow": ("pyarrow", "data"),
    "tqdm": ("tqdm", "data"),
    "torch": ("torch", "baselines"),
    "torchvision": ("torchvision", "baselines"),
    "timm": ("timm", "baselines"),
    "safetensors": ("safetensors", "baselines"),
    "simplejpeg": ("simplejpeg", "baselines"),
    "matplotlib": ("matplotlib", "plots"),
    "sklearn": ("scikit-learn", "test"),
    "skimage": ("scikit-image", "test"),
    "polars": ("polars", "bench"),
    "duckdb": ("duckdb", "bench"),
}


def install_command(extra: str) -> str:
    return f"pip install 'agrieval[{extra}]'"


def missing_extra(module: str, command: str) -> CommandError | None:
    """The one-line error for a missing third-party module, or None when ``module`` belongs to no extra."""
    top = module.split(".")[0]
    if top not in EXTRAS:
        return None
    package, extra = EXTRAS[top]
    if command.startswith("agrieval baselines"):
        extra = "baselines"  # it holds the data extra too: one command installs all a baseline needs
    return CommandError("missing_dependency",
                        f"'{command}' needs {package} (the '{extra}' extra), which this install lacks: "
                        f"{install_command(extra)} (from a clone: pip install -e '.[{extra}]')", EXIT_HOST)


def require(command: str, *modules: str) -> None:
    """Fail up front (before any work or output) when one of ``modules`` is not installed."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            raise missing_extra(module, command) or CommandError(
                "missing_dependency", f"'{command}' needs the Python module {module!r}", EXIT_HOST)


def exit_unless_installed(command: str, *modules: str) -> None:
    """For scripts outside the CLI (benchmarks): the contract's one line and exit 3 when a module is missing."""
    try:
        require(command, *modules)
    except CommandError as exc:
        print(exc.render(), file=sys.stderr)
        sys.exit(exc.exit_code)


def lazy_import(target: str, command: str):
    """``module:attribute`` imported when the command runs; a missing extra is the contract's one line."""
    import importlib

    module_name, attr = target.split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = missing_extra(exc.name or "", command)
        if missing is None:
            raise
        raise missing from None
    return getattr(module, attr)
