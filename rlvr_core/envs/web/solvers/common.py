"""What every reference solver relies on: parsing, the visibility rule, the one-of rule, prices, abstention.

Standard library and bs4 only (the oracle runs this package inside the
`run_python` sandbox). Parsed pages are cached (`soup_of`), so solvers never
modify a tree.

Visibility (stated to the model in the system prompt): an element is hidden
when it or an ancestor has the `hidden` attribute, an inline style with
`display: none` or `visibility: hidden`, a class that a `<style>` block of
the page sets to one of those (a rule whose selector is just that class), or
sits inside a `<template>` (inert markup a browser never renders).

Lazy reading (`lazy_reading()`): the same solvers with every filter turned
off: `visible` keeps hidden elements, `keep` keeps decoys, `one` takes the
first candidate (`lazy_reading("last")`: the last) instead of requiring
exactly one. It answers what a scraper that picks the right element kind
without filtering would answer; the generators make sure that, from medium
difficulty up, this is wrong whichever end it takes from.
"""

import contextvars
import functools
import re

from bs4 import BeautifulSoup

ABSTAIN = "$abstain"
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_HIDING = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_CLASS_SELECTOR = re.compile(r"^\s*\.([A-Za-z_][\w-]*)\s*$")
_LAZY = contextvars.ContextVar("webextract_lazy_reading", default="")


class lazy_reading:
    """Context manager: solvers inside it read lazily, taking the `end` ("first" or "last") of each candidate list."""

    def __init__(self, end="first"):
        if end not in ("first", "last"):
            raise ValueError("lazy_reading(end=%r): end must be 'first' or 'last'" % (end,))
        self.end = end

    def __enter__(self):
        self._token = _LAZY.set(self.end)
        return self

    def __exit__(self, *exc):
        _LAZY.reset(self._token)
        return False


def is_lazy():
    return bool(_LAZY.get())


def abstain(reason):
    return {ABSTAIN: reason}


@functools.lru_cache(maxsize=32)
def soup_of(html, parser="html.parser"):
    return BeautifulSoup(html, parser)


def norm(value):
    return " ".join(str(value).split())


def text_of(tag):
    return norm(tag.get_text(" "))


def _hiding_classes(root):
    cached = root.__dict__.get("_hiding_classes")
    if cached is None:
        cached = set()
        for style in root.find_all("style"):
            for selectors, body in _RULE.findall(style.get_text()):
                if _HIDING.search(body):
                    cached.update(m.group(1) for s in selectors.split(",") if (m := _CLASS_SELECTOR.match(s)))
        root.__dict__["_hiding_classes"] = cached
    return cached


def hidden(tag):
    """Whether `tag` is hidden by the rule above (an element or a text node)."""
    classes = set()
    node = tag if getattr(tag, "attrs", None) is not None else tag.parent
    root = None
    while node is not None:
        if node.parent is None:
            root = node
            break
        if node.name == "template" or node.has_attr("hidden") or _HIDING.search(node.get("style", "")):
            return True
        classes.update(node.get("class", []))
        node = node.parent
    return root is not None and bool(classes & _hiding_classes(root))


def visible(tags):
    """The visible ones of `tags` (all of them when reading lazily)."""
    return list(tags) if is_lazy() else [t for t in tags if not hidden(t)]


def keep(items, predicate):
    """The items a filter keeps (all of them when reading lazily): how solvers drop decoys."""
    return list(items) if is_lazy() else [x for x in items if predicate(x)]


def one(items, what):
    """The single item; ValueError unless there is exactly one (lazily: the first)."""
    items = list(items)
    if is_lazy() and items:
        return items[-1] if _LAZY.get() == "last" else items[0]
    if len(items) != 1:
        raise ValueError("expected exactly one %s, found %d" % (what, len(items)))
    return items[0]


def price(value):
    match = _NUMBER.search(value.replace("\xa0", " "))
    if match is None:
        raise ValueError("no number in %r" % value)
    return float(match.group(0).replace(",", ""))


def current_price(tag):
    """The price in `tag` without its struck-through old prices (del, s) and small print (lazily: the first)."""
    strings = keep(tag.find_all(string=True), lambda s: s.find_parent(["del", "s", "small"]) is None)
    return price(norm(" ".join(strings)))


def link_by_text(page, label):
    return one(keep(visible(page.find_all("a", href=True)), lambda a: text_of(a) == label), "visible link %r" % label)


def section_by_heading(page, tag, title):
    """The parent of the visible heading `tag` whose text is `title`."""
    return one(keep(visible(page.find_all(tag)), lambda h: text_of(h) == title), "%s %r" % (tag, title)).parent
