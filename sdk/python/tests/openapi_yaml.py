"""A reader for the YAML that Trawl's OpenAPI document is written in.

The document (adapters/httpapi/openapi/openapi.yaml) uses a small part of
YAML: block mappings and sequences, flow mappings and sequences on one line,
plain, single- and double-quoted scalars, and literal block scalars (``|``).
This module reads exactly that and raises ``YAMLError`` on anything else, so
the drift check never works from a document it misread. The standard library
has no YAML reader, and the SDK depends on nothing else.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["YAMLError", "loads"]


class YAMLError(ValueError):
    """The text uses YAML this reader does not handle."""


_INT = re.compile(r"^[-+]?[0-9]+$")
_FLOAT = re.compile(r"^[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$")


def _plain(text: str) -> Any:
    """The value of a plain (unquoted) scalar."""
    if text in ("null", "~", ""):
        return None
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    if _INT.match(text):
        return int(text)
    if _FLOAT.match(text):
        return float(text)
    if text[0] in "&*!%@`|>":
        raise YAMLError(f"unsupported YAML construct: {text!r}")
    return text


class _Flow:
    """A one-line flow value: {a: b, c: [d, e]}, "quoted", 'quoted', plain."""

    def __init__(self, text: str, lineno: int) -> None:
        self.s = text
        self.i = 0
        self.lineno = lineno

    def fail(self, why: str) -> YAMLError:
        return YAMLError(f"line {self.lineno}: {why} at column {self.i + 1}: {self.s!r}")

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def value(self, in_flow: bool) -> Any:
        self.ws()
        if self.i >= len(self.s):
            return None
        c = self.s[self.i]
        if c == "{":
            return self.mapping()
        if c == "[":
            return self.sequence()
        if c == '"':
            return self.double()
        if c == "'":
            return self.single()
        return _plain(self.plain(in_flow, key=False))

    def plain(self, in_flow: bool, key: bool) -> str:
        start = self.i
        while self.i < len(self.s):
            c = self.s[self.i]
            if in_flow and c in ",]}":
                break
            if key and c == ":" and (self.i + 1 == len(self.s) or self.s[self.i + 1] in " ,}]"):
                break
            if c == "#" and self.i > start and self.s[self.i - 1] == " ":
                raise self.fail("comments after values are not supported")
            self.i += 1
        return self.s[start : self.i].strip()

    def double(self) -> str:
        self.i += 1
        out: list[str] = []
        escapes = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0"}
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return "".join(out)
            if c == "\\":
                self.i += 1
                e = self.s[self.i : self.i + 1]
                if e not in escapes:
                    raise self.fail(f"unsupported escape \\{e}")
                out.append(escapes[e])
            else:
                out.append(c)
            self.i += 1
        raise self.fail("unterminated double-quoted string")

    def single(self) -> str:
        self.i += 1
        out: list[str] = []
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == "'":
                if self.s[self.i + 1 : self.i + 2] == "'":
                    out.append("'")
                    self.i += 2
                    continue
                self.i += 1
                return "".join(out)
            out.append(c)
            self.i += 1
        raise self.fail("unterminated single-quoted string")

    def key(self) -> str:
        self.ws()
        c = self.s[self.i : self.i + 1]
        if c == '"':
            k = self.double()
        elif c == "'":
            k = self.single()
        else:
            k = self.plain(in_flow=True, key=True)
        self.ws()
        if self.s[self.i : self.i + 1] != ":":
            raise self.fail("expected ':' after a key")
        self.i += 1
        return k

    def mapping(self) -> dict[str, Any]:
        self.i += 1
        out: dict[str, Any] = {}
        self.ws()
        if self.s[self.i : self.i + 1] == "}":
            self.i += 1
            return out
        while True:
            k = self.key()
            if k in out:
                raise self.fail(f"duplicate key {k!r}")
            out[k] = self.value(in_flow=True)
            self.ws()
            c = self.s[self.i : self.i + 1]
            self.i += 1
            if c == "}":
                return out
            if c != ",":
                raise self.fail("expected ',' or '}'")

    def sequence(self) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        self.ws()
        if self.s[self.i : self.i + 1] == "]":
            self.i += 1
            return out
        while True:
            out.append(self.value(in_flow=True))
            self.ws()
            c = self.s[self.i : self.i + 1]
            self.i += 1
            if c == "]":
                return out
            if c != ",":
                raise self.fail("expected ',' or ']'")

    def whole(self) -> Any:
        v = self.value(in_flow=False)
        self.ws()
        if self.i != len(self.s):
            raise self.fail("unexpected text after the value")
        return v


class _Line:
    __slots__ = ("indent", "text", "lineno")

    def __init__(self, indent: int, text: str, lineno: int) -> None:
        self.indent, self.text, self.lineno = indent, text, lineno


_KEY = re.compile(r"""^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"{\[][^:]*?)\s*:(?:\s+(.*))?$""")


class _Block:
    def __init__(self, text: str) -> None:
        self.raw = text.split("\n")
        self.lines: list[_Line] = []
        for n, line in enumerate(self.raw, 1):
            if "\t" in line[: len(line) - len(line.lstrip())]:
                raise YAMLError(f"line {n}: tabs in indentation")
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped in ("---", "..."):
                raise YAMLError(f"line {n}: several documents are not supported")
            self.lines.append(_Line(len(line) - len(line.lstrip(" ")), line.strip(), n))
        self.pos = 0

    def parse(self) -> Any:
        if not self.lines:
            return None
        v = self.node(self.lines[0].indent)
        if self.pos != len(self.lines):
            ln = self.lines[self.pos]
            raise YAMLError(f"line {ln.lineno}: unexpected indentation")
        return v

    def node(self, indent: int) -> Any:
        ln = self.lines[self.pos]
        if ln.text == "-" or ln.text.startswith("- "):
            return self.sequence(indent)
        return self.mapping(indent)

    def sequence(self, indent: int) -> list[Any]:
        out: list[Any] = []
        while self.pos < len(self.lines):
            ln = self.lines[self.pos]
            if ln.indent != indent or not (ln.text == "-" or ln.text.startswith("- ")):
                if ln.indent > indent:
                    raise YAMLError(f"line {ln.lineno}: unexpected indentation")
                break
            rest = ln.text[1:].lstrip(" ")
            if not rest:
                self.pos += 1
                out.append(self.child(indent))
                continue
            # "- key: value" opens a mapping whose keys sit under "key".
            inner = indent + (len(ln.text) - len(rest))
            if rest[0] not in "{[\"'" and _KEY.match(rest):
                self.lines[self.pos] = _Line(inner, rest, ln.lineno)
                out.append(self.mapping(inner))
            else:
                self.pos += 1
                out.append(_Flow(rest, ln.lineno).whole())
        return out

    def child(self, indent: int) -> Any:
        """The block under a key or dash at indent, or None when there is none."""
        if self.pos >= len(self.lines):
            return None
        nxt = self.lines[self.pos]
        if nxt.indent > indent:
            return self.node(nxt.indent)
        return None

    def mapping(self, indent: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        while self.pos < len(self.lines):
            ln = self.lines[self.pos]
            if ln.indent < indent:
                break
            if ln.indent > indent:
                raise YAMLError(f"line {ln.lineno}: unexpected indentation")
            if ln.text.startswith("- "):
                break
            m = _KEY.match(ln.text)
            if not m:
                raise YAMLError(f"line {ln.lineno}: expected 'key: value': {ln.text!r}")
            raw_key, rest = m.group(1), (m.group(2) or "").strip()
            key = _Flow(raw_key + ":", ln.lineno).key() if raw_key[0] in "\"'" else raw_key
            if key in out:
                raise YAMLError(f"line {ln.lineno}: duplicate key {key!r}")
            self.pos += 1
            if rest in ("|", "|-", "|+"):
                out[key] = self.literal(indent, ln.lineno, rest)
            elif rest.startswith((">", "|")):
                raise YAMLError(f"line {ln.lineno}: only literal block scalars (|) are supported")
            elif rest:
                out[key] = _Flow(rest, ln.lineno).whole()
            else:
                nxt = self.lines[self.pos] if self.pos < len(self.lines) else None
                if nxt is not None and nxt.indent == indent and (nxt.text == "-" or nxt.text.startswith("- ")):
                    out[key] = self.sequence(indent)
                else:
                    out[key] = self.child(indent)
        return out

    def literal(self, indent: int, lineno: int, style: str) -> str:
        """A literal block scalar: the raw lines indented deeper than its key."""
        body: list[str] = []
        n = lineno  # raw index of the line after the key
        block_indent = None
        while n < len(self.raw):
            line = self.raw[n]
            if line.strip():
                ind = len(line) - len(line.lstrip(" "))
                if ind <= indent:
                    break
                if block_indent is None:
                    block_indent = ind
                if ind < block_indent:
                    raise YAMLError(f"line {n + 1}: a block scalar line less indented than its first")
                body.append(line[block_indent:])
            else:
                body.append("")
            n += 1
        # Skip the parsed lines that belong to the scalar.
        while self.pos < len(self.lines) and self.lines[self.pos].lineno <= n:
            self.pos += 1
        while body and body[-1] == "":
            body.pop()
        text = "\n".join(body)
        if style == "|-":
            return text
        return text + "\n"


def loads(text: str) -> Any:
    """Parses YAML text of the subset described in the module docstring."""
    return _Block(text).parse()
