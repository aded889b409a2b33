"""The checkers of ``test_trust_rule_homes.py``: each reads one module's syntax tree and lists the calls that
bypass a trust rule's home (DESIGN.md, trust rules). Kept apart from the test so that the test can feed them a
planted module and show that each catches the bypass it forbids."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scoring", "data_tools", "baselines")

# --- opening a file someone else wrote --------------------------------------------------------------------------
# (receiver, function) calls that open or parse a file by its path; ".x": a method of any object (Path.read_text)
MODULE_READERS = {("json", "load"), ("pd", "read_csv"), ("pd", "read_parquet"), ("pd", "read_json"),
                  ("pd", "read_table"), ("pd", "read_excel"), ("Image", "open"), ("np", "load"), ("np", "fromfile"),
                  ("np", "memmap"), ("np", "loadtxt"), ("np", "genfromtxt"), ("torch", "load"), ("pq", "read_table"),
                  ("pq", "ParquetFile"), ("tomllib", "load"), ("tomli", "load"), ("pickle", "load"), ("yaml", "safe_load"),
                  ("io", "open"), ("os", "open"), ("gzip", "open"), ("zipfile", "ZipFile"), ("tarfile", "open"),
                  ("safetensors", "safe_open"), ("h5py", "File")}
METHOD_READERS = {"read_text", "read_bytes"}
IN_MEMORY = {"BytesIO", "StringIO"}  # reading what the rule already read: no file is opened


def _qualnames(tree: ast.AST):
    """(node, qualified name of the function or class around it) for every node."""
    def visit(node, qual):
        for child in ast.iter_child_nodes(node):
            q = qual
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                q = f"{qual}.{child.name}" if qual else child.name
            yield child, q or "<module>"
            yield from visit(child, q)
    yield from visit(tree, "")


def _callee(f: ast.expr) -> str | None:
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        base = f.value
        if isinstance(base, ast.Name):
            return f"{base.id}.{f.attr}"
        if isinstance(base, ast.Attribute):
            return f"{base.attr}.{f.attr}"
        return f".{f.attr}"
    return None


def opening_calls(path: Path):
    """(qualname, call) of each call that opens a file by its path."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node, qual in _qualnames(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _callee(node.func)
        if name is None:
            continue
        if node.args and isinstance(node.args[0], ast.Call) and (_callee(node.args[0].func) or "").split(".")[-1] in IN_MEMORY:
            continue
        parts = tuple(name.split("."))
        if name == "open" or parts in MODULE_READERS or (parts[-1] in METHOD_READERS and len(parts) == 2):
            yield qual, name if parts[-1] not in METHOD_READERS else f".{parts[-1]}"
        elif parts[-1] == "open":  # some_path.open(), a handle's open
            yield qual, ".open"


# --- text reaching a terminal: every padded text column of a table is terminal.cell -----------------------------
_NUMERIC_SPEC_END = set("dfeEgG%nxXob,")
TERMINAL_SAFE = {"cell", "one_line", "fmt", "len", "int", "float", "round", "sum", "max", "min"}


def padded_raw_cells(path: Path):
    """(qualname, source) of each f-string field padded to a width (``{name:<24}``) that is neither a number
    (a numeric format: ``{n:>5d}``) nor escaped (``terminal.cell``/``one_line``): a table column that prints a
    name raw."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node, qual in _qualnames(tree):
        if not isinstance(node, ast.FormattedValue) or node.format_spec is None:
            continue
        spec = "".join(v.value for v in node.format_spec.values if isinstance(v, ast.Constant))
        if spec and spec[-1] in _NUMERIC_SPEC_END:
            continue
        v = node.value
        if isinstance(v, ast.Constant) or (isinstance(v, ast.Call) and (_callee(v.func) or "").split(".")[-1] in TERMINAL_SAFE):
            continue
        yield qual, ast.unparse(v) if hasattr(ast, "unparse") else type(v).__name__


# --- CSV written for people: tables.csv_text ---------------------------------------------------------------------
CSV_WRITERS = {"writer", "DictWriter", "to_csv"}


def csv_writer_calls(path: Path):
    """(qualname, call) of each CSV writer: ``csv.writer``, ``csv.DictWriter``, ``DataFrame.to_csv``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node, qual in _qualnames(tree):
        if isinstance(node, ast.Call):
            name = _callee(node.func) or ""
            if name in ("csv.writer", "csv.DictWriter") or name.endswith(".to_csv"):
                yield qual, "to_csv" if name.endswith(".to_csv") else name


# --- values handed to another program: argv lists, shell words, #SBATCH lines from the templates' sbatch hole ---
_RUNNERS = {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
            "subprocess.Popen"}


def _string_start(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        return node.values[0].value
    return None


def program_value_bypasses(path: Path):
    """(qualname, what) of each way a value reaches another program without its one function: a command run
    through a shell (``shell=True``, ``os.system``, ``os.popen``, a command given as one string), and a
    ``#SBATCH`` line formatted outside the template module's ``sbatch`` hole (``scoring/text/template.py``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node, qual in _qualnames(tree):
        if isinstance(node, ast.Call):
            name = _callee(node.func) or ""
            if name in ("os.system", "os.popen"):
                yield qual, name
            elif name in _RUNNERS:
                if any(k.arg == "shell" and not (isinstance(k.value, ast.Constant) and k.value.value is False)
                       for k in node.keywords):
                    yield qual, f"{name}(shell=...)"
                elif node.args and _string_start(node.args[0]) is not None:
                    yield qual, f"{name}(a command string)"
        elif isinstance(node, (ast.Constant, ast.JoinedStr)):
            start = _string_start(node)
            if start is not None and start.lstrip().startswith("#SBATCH "):
                yield qual, "#SBATCH line"


def modules(skip: tuple[Path, ...] = ()):
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path not in skip:
                yield path


def bypasses(check, allowed: dict, skip: tuple[Path, ...] = ()) -> tuple[list[str], list[tuple]]:
    """(each call ``check`` finds that ``allowed`` does not list, each ``allowed`` entry that matches nothing)."""
    found, seen = [], set()
    for path in modules(skip):
        rel = path.relative_to(ROOT).as_posix()
        for qual, what in check(path):
            key = (rel, qual, what)
            if key in allowed:
                seen.add(key)
            else:
                found.append(f"{rel}: {qual}: {what}")
    return found, sorted(set(allowed) - seen)
