"""Papermill parameters for Go notebooks (the GoNB kernel).

papermill injects a notebook's parameters as a new cell, written in the kernel's language
by a translator; it ships translators for Python, R, Scala, Julia, ... but none for Go.
This package adds one, GoTranslator, registered for the kernel name "gonb" and the
language "go" when papermill loads its engine entry points (the entry point of the engine "gonb", papermill's own nbclient engine in
gonb_papermill.engine, makes papermill import this package):

    papermill notebooks/05-throughput-latency.ipynb out.ipynb -p batch 64 \\
        -p tRead 'go:10*unit.Microsecond' -r model deepseek-v3

Values, as papermill hands them over (its -p parses numbers and booleans, -r keeps text):

- int, float, bool, None: Go literals (64, 0.8, true, nil; inf and nan as math.Inf(1),
  math.NaN());
- str: a Go string literal ("deepseek-v3"), unless it starts with "go:": the rest is Go
  source, inserted as it is (typed values: 'go:10*unit.Microsecond', 'go:0.8*unit.TBps');
- list: a Go slice literal of its elements' kind ([]string{...}, []int{...},
  []float64{...}); dict: map[string]T{...}.

The injected cell re-declares the names in a var block (GoNB keeps the last declaration
of a name, so every cell below, and every package-level initializer that depends on a
parameter, sees the new value) and prints what was set. GoTranslator.inspect reads a
parameters cell's names, defaults and comments (papermill --help-notebook).
"""
import json
import math
import re

from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

__all__ = ["GoTranslator", "declared", "NOTE_PREFIX"]

# The line the injected cell prints (docker/run-notebooks.sh and CI look for it).
NOTE_PREFIX = "Parameters of this run (papermill): "

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_SPEC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(?:([^=]*?)\s*)?=\s*(.*)$")


def declared(src):
    """The parameters a Go parameters cell declares, in order: (name, type, default, help).

    It reads `var NAME [TYPE] = EXPR` lines and the specs of `var ( ... )` blocks, one name
    per line or `a, b = 1, 2`; the comment lines just above a spec are its help. Type is
    the declared type, or "" when the default's type is inferred.
    """
    out = []
    in_block = False
    help_lines = []
    for line in src.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            help_lines.append(stripped[2:].strip())
            continue
        code = line.split("//", 1)[0].rstrip()
        s = code.strip()
        if code.startswith("var (") or s == "var (":
            in_block, help_lines = True, []
            continue
        if in_block and s == ")":
            in_block, help_lines = False, []
            continue
        if code.startswith("var "):
            s = s[4:].strip()
        elif not (in_block and code.startswith("\t") and not code.startswith("\t\t")):
            help_lines = []
            continue
        m = _SPEC.match(s)
        if m:
            names = [n.strip() for n in m.group(1).split(",")]
            defaults = _split_top(m.group(3)) if len(names) > 1 else [m.group(3)]
            for i, n in enumerate(names):
                d = defaults[i].strip() if i < len(defaults) else ""
                out.append((n, (m.group(2) or "").strip(), d, " ".join(help_lines)))
        help_lines = []
    return out


def _split_top(expr):
    """Splits "1, f(2, 3)" at its top-level commas."""
    parts, depth, cur, quote = [], 0, [], None
    for ch in expr:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'`":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def _go_kind(vals):
    """The Go element type of a list of Python values, or None when they are mixed."""
    kinds = set()
    for v in vals:
        if isinstance(v, bool):
            kinds.add("bool")
        elif isinstance(v, int):
            kinds.add("int")
        elif isinstance(v, float):
            kinds.add("float64")
        elif isinstance(v, str):
            kinds.add("string")
        else:
            return None
    if kinds == {"int", "float64"}:
        return "float64"
    if len(kinds) == 1:
        return kinds.pop()
    return None if kinds else "string"


class GoTranslator(Translator):
    """Translates papermill parameters into a Go (GoNB) cell."""

    @classmethod
    def translate_raw_str(cls, val):
        return str(val)

    @classmethod
    def translate_escaped_str(cls, str_val):
        # A JSON string is a valid Go interpreted string literal (\", \\, \n, \uXXXX).
        return json.dumps(str(str_val), ensure_ascii=False)

    @classmethod
    def translate_str(cls, val):
        if val.startswith("go:"):
            expr = val[3:].strip()
            if not expr:
                raise ValueError("a go: parameter value needs Go source after the prefix")
            return expr
        return cls.translate_escaped_str(val)

    @classmethod
    def translate_none(cls, val):
        return "nil"

    @classmethod
    def translate_int(cls, val):
        return str(val)

    @classmethod
    def translate_float(cls, val):
        if math.isnan(val):
            return "math.NaN()"
        if math.isinf(val):
            return "math.Inf(1)" if val > 0 else "math.Inf(-1)"
        return repr(float(val))

    @classmethod
    def translate_bool(cls, val):
        return "true" if val else "false"

    @classmethod
    def translate_list(cls, val):
        kind = _go_kind(val)
        if kind is None:
            raise ValueError(f"a Go slice needs elements of one kind: {val!r}")
        if kind == "float64":
            val = [float(v) for v in val]
        return f"[]{kind}{{{', '.join(cls.translate(v) for v in val)}}}"

    @classmethod
    def translate_dict(cls, val):
        kind = _go_kind(list(val.values()))
        if kind is None:
            raise ValueError(f"a Go map needs values of one kind: {val!r}")
        if kind == "float64":
            val = {k: float(v) for k, v in val.items()}
        items = ", ".join(f"{cls.translate_escaped_str(k)}: {cls.translate(v)}" for k, v in val.items())
        return f"map[string]{kind}{{{items}}}"

    @classmethod
    def comment(cls, cmt_str):
        return f"// {cmt_str}".strip()

    @classmethod
    def assign(cls, name, str_val):
        return f"\t{name} = {str_val}"

    @classmethod
    def codify(cls, parameters, comment="Parameters"):
        for name in parameters:
            if not _IDENT.match(name):
                raise ValueError(f"parameter name {name!r} is not a Go identifier")
        values = {name: cls.translate(val) for name, val in parameters.items()}
        decls = "\n".join(cls.assign(n, v) for n, v in values.items())
        note = NOTE_PREFIX + "; ".join(f"{n} = {v}" for n, v in values.items()) + "."
        return (f"{cls.comment(comment)}\nvar (\n{decls}\n)\n\n%%\n"
                f"fmt.Println({cls.translate_escaped_str(note)})\n")

    @classmethod
    def inspect(cls, parameters_cell):
        return [Parameter(name=n, inferred_type_name=t or "inferred from default", default=d, help=h)
                for n, t, d, h in declared(parameters_cell.source)]


papermill_translators.register("gonb", GoTranslator)
papermill_translators.register("go", GoTranslator)
