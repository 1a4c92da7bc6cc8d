"""What a problem's reference solution tells the grader: which names are the program's, which are trusted.

The reference solution is dataset content, like the setup code. Its
top-level `def` names are the entry functions a program must provide (so an
entry named like a builtin, MBPP 126's `sum`, is graded as the program's,
not resolved to the builtin). Its imports, classes and literal constants
form the prelude, trusted code the tests run with: MBPP 601's tests build
`Pair(5, 24)` with the reference's `Pair`, never with a class the program
wrote; names the tests take from the reference's imports (`Counter` after
`from collections import Counter`) resolve here, not in the program.
"""

from __future__ import annotations

import ast
import textwrap


def trusted_parts(reference_code: str) -> tuple[tuple[str, ...], str]:
    """(entry names, prelude source) of a reference solution; ((), "") when it does not parse."""
    try:
        tree = ast.parse(textwrap.dedent(reference_code.replace("\r\n", "\n")))
    except (SyntaxError, ValueError):
        return (), ""
    entries, prelude = [], []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            entries.append(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):  # a module this process lacks is no reason to fail
            prelude.append("try:\n" + textwrap.indent(ast.unparse(stmt), "    ") + "\nexcept ImportError:\n    pass")
        elif isinstance(stmt, ast.ClassDef):
            prelude.append(ast.unparse(stmt))
        elif isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets) and _literal(stmt.value):
            prelude.append(ast.unparse(stmt))
    return tuple(dict.fromkeys(entries)), "\n".join(prelude)


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True
