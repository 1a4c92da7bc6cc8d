"""One config document, read so that every hostile input ends in an exception within milliseconds.

`read_bytes` raises `FileProblem`, `decode` and `parse` raise `YamlProblem`;
the loader words either as a one-line `ConfigError` naming who pointed at it.

Covered, each with its own message: paths that are not regular files (a
FIFO is refused before any read could block, a directory or device is never
read), files over 64 KiB, bytes that are not UTF-8, YAML syntax errors,
duplicate keys, nesting deeper than 32 levels (libyaml's composer recurses in
C and kills the interpreter at about 100,000 levels, so depth is checked on
the event stream first), more than 10,000 YAML nodes, aliases that expand to
more than 10,000 values or refer to themselves ("billion laughs"), keys that
are not text, and value types a config never holds (dates, binary, sets).
Not covered: a file replaced between the checks and the read (the read is
still bounded), and symlinks, which are followed.

What comes back is a fresh tree of dict/list/str/int/float/bool/None that
shares no nodes, so merging and overrides can never edit two places at once.
"""

from __future__ import annotations

import datetime
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from rlvr_core.config.errors import problem_line, show

MAX_BYTES = 64 * 1024  # shipped configs are < 2 KiB; parsing 64 KiB of worst-case YAML takes ~0.1 s
MAX_DEPTH = 32  # shipped configs nest 4 levels
MAX_NODES = 10_000  # YAML nodes in one document, and values after expanding aliases

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MERGE_TAG = "tag:yaml.org,2002:merge"
SYNTAX_FIX = "check the indentation, quotes and brackets at that line"


class FileProblem(Exception):
    """Why a path cannot be read as a config; the caller words the line (it knows who named the path)."""

    def __init__(self, what: str, fix: str) -> None:
        super().__init__(what)
        self.what, self.fix = what, fix


class YamlProblem(Exception):
    """Why a text is not a usable config value: what, fix, and where (1-based line/column, or a dotted field)."""

    def __init__(self, what: str, fix: str, *, line: int | None = None, column: int | None = None,
                 field: str | None = None) -> None:
        super().__init__(what)
        self.what, self.fix, self.line, self.column, self.field = what, fix, line, column, field

    def locate(self, source: str) -> str:
        """`source:line:column`, as far as known."""
        return ":".join([source, *(str(n) for n in (self.line, self.column) if n is not None)])

    def line_for(self, source: str) -> str:
        return problem_line(self.locate(source), self.field, self.what, self.fix)


class _DuplicateKey(yaml.MarkedYAMLError):
    pass


class StrictLoader(_Base):  # type: ignore[misc, valid-type]
    """YAML's safe loader, except that a key given twice in one mapping is an error, not "last one wins"."""

    def construct_mapping(self, node: yaml.Node, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            first: dict[Any, yaml.Node] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE_TAG:
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    earlier = first.setdefault(key, key_node)
                except TypeError:
                    raise yaml.constructor.ConstructorError(
                        None, None, "a key is a list or mapping, not a name", key_node.start_mark) from None
                if earlier is not key_node:
                    raise _DuplicateKey(
                        None, None, f"duplicate key {show(key)} (first given at line {earlier.start_mark.line + 1})",
                        key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


def read_bytes(path: Path) -> bytes:
    """The bytes of a regular file of at most MAX_BYTES; `FileProblem` (what, fix) otherwise."""
    try:
        info = os.stat(path)
    except ValueError:
        raise FileProblem("the path contains a NUL byte", "remove it from the path") from None
    except FileNotFoundError:
        raise FileProblem("no such file", "check the path (relative paths are taken from the current folder, "
                                          "or for `extends:` from the folder of the file that extends)") from None
    except OSError as err:
        raise FileProblem(f"cannot be read ({err.strerror})", "check the path and its permissions") from None
    kind = _kind(info.st_mode)
    if kind != "file":
        raise FileProblem(f"is a {kind}, not a config file", "name a .yaml file")
    if info.st_size > MAX_BYTES:
        raise FileProblem(f"is {info.st_size} bytes; a config may be at most {MAX_BYTES // 1024} KiB",
                          "split it, or check that the path names the config and not a data file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError as err:
        raise FileProblem(f"cannot be opened ({err.strerror})", "check the path and its permissions") from None
    try:
        if _kind(os.fstat(fd).st_mode) != "file":  # replaced between stat and open
            raise FileProblem("is not a regular file", "name a .yaml file")
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, MAX_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise FileProblem(f"cannot be read ({err.strerror})", "check the file") from None
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        raise FileProblem(f"is over {MAX_BYTES // 1024} KiB", "split it")
    return b"".join(chunks)


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "device"


def decode(data: bytes) -> str:
    """UTF-8 text (a leading byte-order mark is dropped)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise YamlProblem(f"not UTF-8 text (byte 0x{data[err.start]:02x} at offset {err.start})",
                          "save the file as UTF-8", line=data[: err.start].count(b"\n") + 1) from None
    return text.removeprefix("\ufeff")


def parse(text: str) -> Any:
    """The YAML value in `text` as a fresh plain tree, or YamlProblem saying where and why not."""
    if len(text) > MAX_BYTES:
        raise YamlProblem(f"is {len(text)} characters; at most {MAX_BYTES} are read", "shorten it")
    try:
        _check_events(text)
        value = yaml.load(text, Loader=StrictLoader)  # noqa: S506 (a safe loader)
    except YamlProblem:
        raise
    except yaml.MarkedYAMLError as err:
        raise _syntax_problem(err) from None
    except yaml.reader.ReaderError as err:  # a character YAML never allows (NUL, other controls)
        line = text.count("\n", 0, err.position) + 1
        column = err.position - (text.rfind("\n", 0, err.position) + 1) + 1
        raise YamlProblem(f"not valid YAML: {err.reason} (character #x{err.character:04x})",
                          "remove the character (a config is plain text)", line=line, column=column) from None
    except yaml.YAMLError as err:
        raise YamlProblem(f"not valid YAML ({_one_line(err)})", SYNTAX_FIX) from None
    except Exception as err:  # noqa: BLE001  e.g. ValueError for an integer of over 4,300 digits or a 13th month
        raise YamlProblem(f"not a usable YAML value ({_one_line(err)[:120]})",
                          "correct the value, or quote it to make it text") from None
    return _plain(value, "", 0, [0], [])


def _check_events(text: str) -> None:
    """Reject deep nesting and huge documents from the event stream, before any node is built."""
    depth = nodes = 0
    for event in yaml.parse(text, Loader=StrictLoader):
        if isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent)):
            nodes += 1
            if nodes > MAX_NODES:
                raise YamlProblem(f"more than {MAX_NODES} YAML values",
                                  "a config is a few dozen fields; check that this is the right file",
                                  line=event.start_mark.line + 1)
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlProblem(f"nested deeper than {MAX_DEPTH} levels",
                                  "flatten it; config sections nest a few levels at most",
                                  line=event.start_mark.line + 1)
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _plain(value: Any, path: str, depth: int, budget: list[int], stack: list[int]) -> Any:
    """A fresh copy of `value`; checks expanded size, depth, self-reference, key and value types."""
    where = path or "<top level>"
    budget[0] += 1
    if budget[0] > MAX_NODES:
        raise YamlProblem(f"aliases expand to more than {MAX_NODES} values",
                          "write the values out; anchors and aliases may only repeat small parts", field=where)
    if isinstance(value, (dict, list)):
        if id(value) in stack:
            raise YamlProblem("an alias refers to a value that contains it",
                              "write the value out instead of referring back to it", field=where)
        if depth >= MAX_DEPTH:
            raise YamlProblem(f"nested deeper than {MAX_DEPTH} levels (after expanding aliases)", "flatten it",
                              field=where)
        stack.append(id(value))
        try:
            if isinstance(value, list):
                return [_plain(v, f"{path}.{i}" if path else str(i), depth + 1, budget, stack)
                        for i, v in enumerate(value)]
            out = {}
            for key, item in value.items():
                if not isinstance(key, str):
                    raise YamlProblem(f"the key {show(key)} is read by YAML as {type(key).__name__}, not as a name",
                                      f"quote it: '{show(key)}'", field=path or "<top level>")
                out[key] = _plain(item, f"{path}.{key}" if path else key, depth + 1, budget, stack)
            return out
        finally:
            stack.pop()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (datetime.date, datetime.datetime)):
        what, fix = "is read by YAML as a date", "quote it to make it text"
    elif isinstance(value, bytes):
        what, fix = "is a !!binary value", "write text instead"
    elif isinstance(value, (set, frozenset)):
        what, fix = "is a !!set", "write a list instead"
    elif isinstance(value, tuple):
        what, fix = "is an ordered-pairs value (!!omap/!!pairs)", "write a plain mapping instead"
    else:
        what, fix = f"is a YAML {type(value).__name__}", "write text, a number, true/false, a list or a mapping"
    raise YamlProblem(what, fix, field=where)


def _syntax_problem(err: yaml.MarkedYAMLError) -> YamlProblem:
    mark = err.problem_mark or err.context_mark
    where = {"line": mark.line + 1, "column": mark.column + 1} if mark is not None else {}
    if isinstance(err, _DuplicateKey):
        return YamlProblem(str(err.problem), "keep one of them", **where)
    problem = ", ".join(p for p in (err.context, err.problem) if p)
    return YamlProblem(f"not valid YAML: {problem}", SYNTAX_FIX, **where)


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split())[:200]
