"""Build realistic HTML: a seeded RNG with shop-data helpers, an element writer, and a page shell with noise.

Every page is a full document (doctype, head with styles and analytics
scripts, header with navigation, breadcrumb, nested layout wrappers, aside,
footer) so the content a task asks about sits where it would on a real shop
site. `Knobs` holds what difficulty changes in the shell: how deep the
content is nested, how many noise blocks (cookie banners, newsletter boxes,
related items) surround it, and whether scripts, comments and irregular
whitespace are sprinkled in. Archetypes add their own near-miss distractors.

Text written by `text()` is escaped, and inline children are always separated
from their neighbours by whitespace, so `get_text(" ")` and `get_text()` give
the same words: a task's answer never hinges on a separator choice.
"""

from __future__ import annotations

import html
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from rlvr_core.envs.web import vocab

T = TypeVar("T")
DIFFICULTIES = ("easy", "medium", "hard")


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


def el(tag: str, inner: str = "", **values: Any) -> str:
    """One element; `inner` is raw HTML (escape text with `text`). Void tags get no closing tag."""
    if tag in ("img", "br", "hr", "input", "meta", "link", "source"):
        return f"<{tag}{attrs(**values)}>"
    return f"<{tag}{attrs(**values)}>{inner}</{tag}>"


@dataclass(frozen=True)
class Knobs:
    """What difficulty changes in the page shell."""

    depth: int  # layout wrappers around the main content
    noise: int  # noise blocks around the content
    scripts: bool  # inline analytics / JSON scripts and styles
    comments: bool  # HTML comments between blocks
    messy: bool  # irregular whitespace and newlines inside markup

    @classmethod
    def of(cls, difficulty: str) -> "Knobs":
        return {"easy": cls(1, 1, False, False, False), "medium": cls(3, 3, True, True, False),
                "hard": cls(6, 6, True, True, True)}[difficulty]


_WRAPPERS = ("container", "row", "col", "layout__inner", "grid", "section-body", "content-wrap", "panel", "stack",
             "region", "cell", "box")


def nest(rng: Rng, inner: str, depth: int) -> str:
    """`inner` inside `depth` layout divs with random utility classes."""
    for _ in range(depth):
        inner = el("div", inner, class_=f"{rng.pick(_WRAPPERS)} {rng.pick(_WRAPPERS)}-{rng.randint(1, 12)}")
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


def _head(rng: Rng, title: str, knobs: Knobs, extra: str) -> str:
    head = el("meta", charset="utf-8") + el("title", text(title))
    head += el("meta", name="viewport", content="width=device-width, initial-scale=1")
    head += el("link", rel="stylesheet", href=f"/static/site.{rng.token(8)}.css")
    if knobs.scripts:
        head += el("style", ".hidden{display:none}.promo{color:#c00}")
        head += el("script", "window.dataLayer=window.dataLayer||[];dataLayer.push({event:'view',id:'"
                   + rng.token(8) + "'});")
    return head + extra


def _nav(rng: Rng, links: Sequence[tuple[str, str]]) -> str:
    items = "".join(el("li", el("a", text(label), href=href)) for label, href in links)
    return el("nav", el("ul", items, class_="menu"), class_="site-nav", aria_label="Main")


def default_nav(rng: Rng) -> list[tuple[str, str]]:
    return [("Home", "/index.html")] + [(c, f"/c/{c.lower()}.html") for c in rng.sample(vocab.CATEGORIES, 3)]


def page(rng: Rng, *, title: str, main: str, difficulty: str, site_name: str = "", lang: str = "en",
         dir_: str | None = None, nav: Sequence[tuple[str, str]] | None = None, head_extra: str = "",
         body_end: str = "") -> str:
    """A full HTML document with `main` (raw HTML) placed inside the page shell."""
    knobs = Knobs.of(difficulty)
    site_name = site_name or f"{rng.pick(vocab.BRANDS)} Store"
    blocks = [noise_block(rng, kind) for kind in rng.sample(range(NOISE_KINDS), knobs.noise)]
    split = rng.randint(0, knobs.noise)
    blocks_before, blocks_after = blocks[:split], blocks[split:]
    sep = "\n" if not knobs.messy else "\n   \n\t"
    comment = (lambda: f"<!-- block {rng.token(4)} -->") if knobs.comments else (lambda: "")
    crumbs = el("ol", "".join(el("li", el("a", text(c), href="#")) for c in ("Home", rng.pick(vocab.CATEGORIES))),
                class_="breadcrumb")
    content = sep.join([*(comment() + b for b in blocks_before), crumbs, main, *(comment() + b for b in blocks_after)])
    header = el("header", el("a", text(site_name), href="/index.html", class_="logo") + _nav(rng, nav or default_nav(rng)),
                class_="site-header")
    aside = el("aside", el("h4", "Help") + el("p", text(rng.sentence())), class_="sidebar")
    footer = el("footer", el("p", text(f"© 2025 {site_name}. All rights reserved.")) + el("a", "Privacy", href="/privacy.html"),
                class_="site-footer")
    scripts = el("script", '{"@context":"https://schema.org","@type":"WebPage"}', type="application/ld+json") \
        if knobs.scripts else ""
    body = sep.join([header, el("main", nest(rng, content, knobs.depth), id="content"), aside, footer,
                     scripts, body_end])
    return ("<!DOCTYPE html>\n" + el("html", el("head", _head(rng, title, knobs, head_extra)) + sep + el("body", body),
                                     lang=lang, dir=dir_) + "\n")


def site(base_url: str, start: str, pages: dict[str, str]) -> dict[str, Any]:
    """The record a task carries: where it starts and every page by path."""
    if start not in pages:
        raise ValueError(f"site start {start!r} is not one of its pages {sorted(pages)}")
    return {"base_url": base_url, "start": start, "pages": dict(pages)}


def base_url(rng: Rng) -> str:
    return f"https://{rng.pick(vocab.BRANDS).lower().replace(' & ', '-').replace(' ', '-')}-{rng.token(4)}.example"
