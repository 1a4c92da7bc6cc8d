"""What every reference solver relies on: parsing, the visibility rule, the one-of rule, prices, abstention.

Standard library and bs4 only (the oracle runs this package inside the
`run_python` sandbox). Parsed pages are cached (`soup_of`), so solvers never
modify a tree.

Visibility (stated to the model in the system prompt): an element is hidden
when it or an ancestor has the `hidden` attribute, an inline style with
`display: none` or `visibility: hidden`, a class that a `<style>` block of
the page sets to one of those (a rule whose selector is just that class), or
sits inside a `<template>` (inert markup a browser never renders).

Lazy reading (`lazy_reading(pick)`): the same solvers with every filter
turned off: `visible` keeps hidden elements, `keep` keeps decoys, and `one`
takes the candidate at a fixed position (`PICKS`: the first, second, ...
fifth, the last, second-to-last, ... fifth-to-last, or the middle one)
instead of requiring exactly one. It answers what a scraper that picks the
right element kind by position, without filtering, would answer; the
generators make sure that, from medium difficulty up, the first, second,
middle, second-to-last and last picks are wrong on every item and that the
target's position is spread, so that no fixed position pays on more than a
few items.
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


# A pick: the index from the start (>= 0) or from the end (< 0) of a candidate list, or one of its middles.
PICKS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1, "second_last": -2,
         "third_last": -3, "fourth_last": -4, "fifth_last": -5, "middle": "middle", "middle_low": "middle_low"}


def pick_index(pick, n):
    """The index `pick` (a name of `PICKS`) takes from a list of `n` >= 1 candidates, clamped to the list."""
    at = PICKS[pick]
    if at == "middle":
        return n // 2
    if at == "middle_low":
        return (n - 1) // 2
    return min(at, n - 1) if at >= 0 else max(n + at, 0)


class lazy_reading:
    """Context manager: solvers inside it read lazily, taking the candidate at `pick` (a name of `PICKS`)."""

    def __init__(self, pick="first"):
        if pick not in PICKS:
            raise ValueError("lazy_reading(pick=%r): pick must be one of %s" % (pick, sorted(PICKS)))
        self.pick = pick

    def __enter__(self):
        self._token = _LAZY.set(self.pick)
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
    """The single item; ValueError unless there is exactly one (lazily: the one at the reading's pick)."""
    items = list(items)
    if is_lazy() and items:
        return items[pick_index(_LAZY.get(), len(items))]
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
