"""Build realistic HTML: a seeded RNG with shop-data helpers, an element writer, and a page shell around the content.

Every page is a full document (doctype, head, header with navigation,
breadcrumb, nested layout wrappers, sidebar, footer) in one of several site
templates and class-naming styles (`chrome.py`), so the content a task asks
about sits where it would on a real site. `Knobs` holds what difficulty
changes in the shell: nesting depth, noise blocks (cookie banners,
newsletter boxes, related items), scripts and comments, irregular
whitespace, tag soup, and the page's size (bulk blocks up to ~100 KB on hard
pages). The "real" page tier (`page_tier`, for some hard items) builds
pages the size of crawled ones: 100-400 KB, 25 layout wrappers deep, with
script bundles beside the other bulk. Archetypes add their own near-miss
and hidden decoys (`Rng.hide` picks how an element is hidden; the page's
stylesheet declares the hiding classes from medium up).

Text written by `text()` is escaped, and inline children are always separated
from their neighbours by whitespace, so `get_text(" ")` and `get_text()` give
the same words: a task's answer never hinges on a separator choice.
"""

from __future__ import annotations

import contextvars
import html
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from rlvr_core.envs.web import chrome, vocab

T = TypeVar("T")
DIFFICULTIES = ("easy", "medium", "hard")
PAGE_TIERS = ("standard", "real")
_TIER = contextvars.ContextVar("webextract_page_tier", default="standard")
HIDE_METHODS = {"easy": (), "medium": ("attr", "style", "class"),
                "hard": ("attr", "style", "important", "visibility", "class", "class")}


class Rng(random.Random):
    """`random.Random` seeded from a string (stable across processes and Python versions) with shop helpers."""

    def __init__(self, key: str) -> None:
        super().__init__(key)

    def pick(self, items: Sequence[T]) -> T:
        return items[self.randrange(len(items))]

    def token(self, length: int = 6, alphabet: str = "abcdefghjkmnpqrstuvwxyz23456789") -> str:
        return "".join(self.pick(alphabet) for _ in range(length))

    def code(self, prefix: str = "") -> str:
        """A code such as 'KX-4821' (no easily confused letters)."""
        letters = "".join(self.pick("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(2))
        return f"{prefix}{letters}-{self.randint(1000, 9999)}"

    def product_name(self) -> str:
        return f"{self.pick(vocab.BRANDS)} {self.pick(vocab.ADJECTIVES)} {self.pick(vocab.NOUNS)}"

    def person(self) -> str:
        return f"{self.pick(vocab.FIRST_NAMES)} {self.pick(vocab.LAST_NAMES)}"

    def price(self, low: float = 5, high: float = 900) -> float:
        return round(self.uniform(low, high), 2)

    def sentence(self) -> str:
        return self.pick(vocab.FILLER)

    def distinct(self, make: Any, count: int, *, avoid: Sequence[Any] = ()) -> list[Any]:
        """`count` distinct values from the zero-argument `make`, none of them in `avoid`."""
        out: list[Any] = []
        while len(out) < count:
            value = make()
            if value not in out and value not in avoid:
                out.append(value)
        return out

    def hide(self, difficulty: str) -> str:
        """How to hide a decoy at `difficulty` (for `el(..., hide=...)`); medium and hard only."""
        return self.pick(HIDE_METHODS[difficulty] or HIDE_METHODS["medium"])


def money(value: float, style: str = "plain") -> str:
    """A price as shops print it: plain '$1,299.00', 'code' 'USD 1299.00', or 'bare' '1299.00'."""
    if style == "code":
        return f"USD {value:.2f}"
    if style == "bare":
        return f"{value:.2f}"
    return f"${value:,.2f}"


def text(value: str) -> str:
    """Escape text content (&, <, >)."""
    return html.escape(value, quote=False)


def attrs(**values: Any) -> str:
    """Attributes as written in a tag: `class_` -> class, `data_x` -> data-x, True -> bare, None/False -> omitted."""
    parts = []
    for key, value in values.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        parts.append(f" {name}" if value is True else f' {name}="{html.escape(str(value), quote=True)}"')
    return "".join(parts)


def _hidden_attrs(method: str, values: dict[str, Any]) -> dict[str, Any]:
    if method == "attr":
        return {**values, "hidden": True}
    if method in ("style", "important", "visibility"):
        rule = {"style": "display:none", "important": "display: none !important", "visibility": "visibility: hidden"}
        return {**values, "style": rule[method]}
    if method == "class":
        hider = chrome.HIDING_CLASSES[len(str(values.get("class_", ""))) % len(chrome.HIDING_CLASSES)]
        return {**values, "class_": f"{values.get('class_') or ''} {hider}".strip()}
    raise ValueError(f"unknown hiding method {method!r}; one of {sorted(set(sum(HIDE_METHODS.values(), ())))}")


def el(tag: str, inner: str = "", *, hide: str | None = None, **values: Any) -> str:
    """One element; `inner` is raw HTML (escape text with `text`). Void tags get no closing tag.

    `hide` (a method from `Rng.hide`) hides the element by the page's visibility rule."""
    if hide:
        values = _hidden_attrs(hide, values)
    if tag in ("img", "br", "hr", "input", "meta", "link", "source", "embed"):
        return f"<{tag}{attrs(**values)}>"
    return f"<{tag}{attrs(**values)}>{inner}</{tag}>"


class page_tier:
    """Context manager: pages built inside it are of `tier` (`PAGE_TIERS`); "real" is for hard items only."""

    def __init__(self, tier: str) -> None:
        if tier not in PAGE_TIERS:
            raise ValueError(f"page_tier({tier!r}): the tier must be one of {PAGE_TIERS}")
        self.tier = tier

    def __enter__(self) -> "page_tier":
        self._token = _TIER.set(self.tier)
        return self

    def __exit__(self, *exc: object) -> None:
        _TIER.reset(self._token)


@dataclass(frozen=True)
class Knobs:
    """What difficulty (and the page tier) changes in the page shell."""

    depth: int  # layout wrappers around the main content
    noise: int  # noise blocks around the content
    scripts: bool  # inline analytics / JSON scripts, the hiding stylesheet
    comments: bool  # HTML comments between blocks
    messy: bool  # irregular whitespace and newlines inside markup
    soup: int  # blocks of tag soup (unclosed p/li, upper-case tags, unquoted attributes, stray end tags)
    size: tuple[int, int]  # characters the page is grown to with bulk blocks (0: no bulk)
    bundles: bool = False  # script bundles among the bulk (the real tier)

    @classmethod
    def of(cls, difficulty: str, compact: bool = False) -> "Knobs":
        """`compact`: one page of a multi-page site (a third of the size). Hard pages of the "real" tier
        (`page_tier`) are 100-400 KB and 25 wrappers deep."""
        knobs = {"easy": cls(1, 1, False, False, False, 0, (0, 0)),
                 "medium": cls(3, 3, True, True, False, 1, (8_000, 30_000)),
                 "hard": cls(6, 6, True, True, True, 3, (30_000, 100_000))}[difficulty]
        if _TIER.get() == "real":
            if difficulty != "hard":
                raise ValueError(f"the real page tier is for hard items; got difficulty {difficulty!r}")
            knobs = cls(25, 8, True, True, True, 4, (100_000, 400_000), bundles=True)
        if compact:
            knobs = cls(knobs.depth, knobs.noise, knobs.scripts, knobs.comments, knobs.messy, knobs.soup,
                        (knobs.size[0] // 3, knobs.size[1] // 3), knobs.bundles)
        return knobs


_WRAPPERS = ("container", "row", "col", "layout__inner", "grid", "section-body", "content-wrap", "panel", "stack",
             "region", "cell", "box")


def nest(rng: Rng, inner: str, depth: int, styler: chrome.Styler | None = None) -> str:
    """`inner` inside `depth` layout divs with class names in the page's style."""
    for _ in range(depth):
        cls = styler.cls() if styler else f"{rng.pick(_WRAPPERS)} {rng.pick(_WRAPPERS)}-{rng.randint(1, 12)}"
        stamp = styler.stamp() if styler else ""
        inner = f'<div class="{html.escape(cls)}"{stamp}>{inner}</div>'
    return inner


NOISE_KINDS = 9


def noise_block(rng: Rng, kind: int) -> str:
    """One block a real shop page carries around its content (kind 0..8): banner, newsletter, related items, ..."""
    if kind == 0:
        return el("div", el("p", text("We use cookies to improve your experience.")) + el("button", "Accept", type="button"),
                  class_="cookie-banner", role="dialog")
    if kind == 1:
        return el("form", el("label", "Newsletter", for_="nl-email") + el("input", type="email", id="nl-email",
                                                                           name="email") + el("button", "Subscribe"),
                  class_="newsletter", action="/subscribe")
    if kind == 2:
        items = "".join(el("li", el("a", text(rng.product_name()), href=f"/p/{rng.token(5)}.html")) for _ in range(3))
        return el("section", el("h3", "You may also like") + el("ul", items), class_="related")
    if kind == 3:
        return el("div", el("span", "Advertisement", class_="ad-label"), class_="ad-slot", data_slot=rng.token(4))
    if kind == 4:
        return el("details", el("summary", "Shipping FAQ") + el("p", text(rng.sentence())), class_="faq")
    if kind == 5:
        return el("div", text(rng.sentence()), class_="promo-strip")
    if kind == 6:
        items = "".join(el("li", el("a", el("img", src=f"/thumbs/{rng.token(6)}.jpg", alt="") + " " + text(rng.product_name()),
                                    href=f"/p/{rng.token(5)}.html")) for _ in range(2))
        return el("section", el("h3", "Recently viewed") + el("ul", items), class_="recent")
    if kind == 7:
        badges = "".join(el("li", text(b)) for b in ("Secure payment", "Fast delivery", "30-day returns"))
        return el("ul", badges, class_="trust-badges")
    return el("p", text(rng.sentence()), class_="notice")


def _head(rng: Rng, title: str, knobs: Knobs, styler: chrome.Styler, extra: str) -> str:
    head = el("meta", charset="utf-8") + el("title", text(title))
    head += el("meta", name="viewport", content="width=device-width, initial-scale=1")
    head += el("link", rel="stylesheet", href=f"/static/site.{rng.token(8)}.css")
    if knobs.scripts:
        head += chrome.stylesheet(rng, styler, hiding=True)
        head += el("script", "window.dataLayer=window.dataLayer||[];dataLayer.push({event:'view',id:'"
                   + rng.token(8) + "'});")
    return head + extra


def default_nav(rng: Rng) -> list[tuple[str, str]]:
    return [("Home", "/index.html")] + [(c, f"/c/{c.lower()}.html") for c in rng.sample(vocab.CATEGORIES, 3)]


def page(rng: Rng, *, title: str, main: str, difficulty: str, site_name: str = "", lang: str = "en",
         dir_: str | None = None, nav: Sequence[tuple[str, str]] | None = None, head_extra: str = "",
         body_end: str = "", compact: bool = False) -> str:
    """A full HTML document with `main` (raw HTML) placed inside a site template's shell.

    `compact`: a page of a multi-page site, grown to a third of the usual size."""
    knobs = Knobs.of(difficulty, compact)
    styler = chrome.Styler(rng, rng.pick(chrome.STYLES))
    template = rng.pick(chrome.TEMPLATES)
    site_name = site_name or f"{rng.pick(vocab.BRANDS)} {rng.pick(('Store', 'Journal', 'Docs', 'News', 'App'))}"
    blocks = [noise_block(rng, kind) for kind in rng.sample(range(NOISE_KINDS), knobs.noise)]
    blocks += [chrome.malformed(rng, styler) for _ in range(knobs.soup)]
    rng.shuffle(blocks)
    split = rng.randint(0, len(blocks))
    sep = "\n" if not knobs.messy else "\n   \n\t"
    comment = (lambda: f"<!-- block {rng.token(4)} -->") if knobs.comments else (lambda: "")
    crumbs = el("ol", "".join(el("li", el("a", text(c), href="#")) for c in ("Home", rng.pick(vocab.CATEGORIES))),
                class_="breadcrumb")
    head_html = _head(rng, title, knobs, styler, head_extra)
    top = chrome.header(rng, styler, template, site_name, nav or default_nav(rng))
    side, foot = chrome.aside(rng, styler, template), chrome.footer(rng, styler, site_name)
    scripts = el("script", '{"@context":"https://schema.org","@type":"WebPage"}', type="application/ld+json") \
        if knobs.scripts else ""
    estimate = len(head_html) + len(top) + len(main) + len(side) + len(foot) + sum(map(len, blocks)) + 600
    grown = chrome.bulk(rng, styler, rng.randint(*knobs.size), estimate, bundles=knobs.bundles) if knobs.size[1] else {}
    before = [*grown.get("content", [])[:1], *blocks[:split]]
    after = [*blocks[split:], *grown.get("content", [])[1:]]
    content = sep.join([*(comment() + b for b in before), crumbs, main, *(comment() + b for b in after)])
    body = sep.join([top, *grown.get("top", []), el("main", nest(rng, content, knobs.depth, styler), id="content"),
                     side, *grown.get("bottom", []), foot, scripts, *grown.get("end", []), body_end])
    head_html += "".join(grown.get("head", []))
    root = el("div", body, id=rng.pick(("__next", "root", "app")), class_=styler.cls("root")) \
        if template == "app" else body
    return ("<!DOCTYPE html>\n" + el("html", el("head", head_html) + sep + el("body", root), lang=lang, dir=dir_)
            + "\n")


def site(base_url: str, start: str, pages: dict[str, str]) -> dict[str, Any]:
    """The record a task carries: where it starts and every page by path."""
    if start not in pages:
        raise ValueError(f"site start {start!r} is not one of its pages {sorted(pages)}")
    return {"base_url": base_url, "start": start, "pages": dict(pages)}


def base_url(rng: Rng) -> str:
    return f"https://{rng.pick(vocab.BRANDS).lower().replace(' & ', '-').replace(' ', '-')}-{rng.token(4)}.example"


def single_page(rng: Rng, difficulty: str, title: str, main: str, **kw: Any) -> dict[str, Any]:
    """A one-page site at /index.html with `main` in the page shell."""
    return site(base_url(rng), "/index.html", {"/index.html": page(rng, title=title, main=main, difficulty=difficulty,
                                                                    **kw)})


TWINS_PER_SIDE = (2, 11)  # hidden twins before and after a target, from medium difficulty up


def twin_counts(rng: Rng) -> tuple[int, int]:
    """How many twins go before and after a target: each 2 to 11, never within one of each other.

    A reader that takes a fixed position of the candidate list without filtering (the first, second,
    second-to-last, last or middle candidate) then never lands on the target when the twins are the only
    other candidates, and every other fixed position lands on it for about one item in nine at most."""
    low, high = TWINS_PER_SIDE
    pairs = [(a, b) for a in range(low, high + 1) for b in range(low, high + 1) if abs(a - b) >= 2]
    return rng.pick(pairs)


def place_twins(rng: Rng, parts: list[str], target: str, decoy: Callable[[], str]) -> list[str]:
    """`parts` with `twin_counts` decoys from `decoy()` at random places before and after `target` (kept in order)."""
    at = parts.index(target)
    head, tail = parts[:at], parts[at + 1:]
    before, after = twin_counts(rng)
    for _ in range(before):
        head.insert(rng.randint(0, len(head)), decoy())
    for _ in range(after):
        tail.insert(rng.randint(0, len(tail)), decoy())
    return [*head, target, *tail]


def around_target(rng: Rng, parts: list[str], target: str, decoy: Callable[[], str] | None = None) -> list[str]:
    """`parts` (shuffled, `target` among them) with, when `decoy` is given, twins placed by `place_twins`."""
    rng.shuffle(parts)
    return parts if decoy is None else place_twins(rng, parts, target, decoy)
