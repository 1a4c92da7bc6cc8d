"""What real pages carry around their content: framework class names, site templates, bulk, malformed markup.

- `Styler`: class names in one of five house styles seen on real sites: BEM
  (`site-header__nav--open`), utility classes (`flex items-center px-4`),
  Bootstrap grids (`col-md-6 d-flex`), CSS modules (`Header_nav__x8Kd2`) and
  styled-components (`sc-bdVaJa kXjTqz`), plus the framework attributes
  that come with them (`data-v-…`, `_ngcontent-…`).
- Templates: the header, navigation, sidebar and footer of a shop, a blog,
  a documentation site, a news portal or a single-page app.
- `bulk`: blocks a big page is made of (mega menus, link farms, tiles, state
  scripts, stylesheets, icon sprites) added until the page reaches its size.
- `malformed`: markup browsers tolerate (unclosed `p`/`li`, upper-case tags,
  unquoted attributes, stray end tags, entities without `;`), always inside
  a closed container so it never changes where a task's content sits.

Nothing here uses a class a task selects on (see `RESERVED`), so bulk never
becomes an answer; it only makes pages look and weigh like real ones.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from typing import Any

from rlvr_core.envs.web import vocab

STYLES = ("bem", "utility", "bootstrap", "modules", "styled")
TEMPLATES = ("shop", "blog", "docs", "portal", "app")
HIDING_CLASSES = ("d-none", "is-hidden", "u-hide")  # the stylesheet of every medium/hard page hides these
_UTILITY = ("flex", "grid", "items-center", "justify-between", "gap-2", "gap-4", "px-4", "py-2", "md:px-6", "mt-4",
            "lg:grid-cols-3", "text-sm", "text-gray-700", "rounded-lg", "shadow-sm", "max-w-7xl", "mx-auto",
            "hover:underline", "dark:bg-gray-900", "w-full", "space-y-2", "truncate", "font-medium", "sm:hidden")
_BOOTSTRAP = ("container", "container-fluid", "row", "col", "col-12", "col-md-6", "col-lg-4", "d-flex",
              "align-items-center", "justify-content-between", "mb-3", "mt-2", "p-2", "px-3", "g-3", "shadow-sm",
              "rounded", "text-muted", "small", "border-bottom")
_BLOCKS = ("site", "page", "layout", "c-section", "o-wrap", "m-teaser", "l-grid")
_ROLES = ("wrapper", "inner", "body", "content", "region", "column", "panel", "stack", "cell", "box", "nav",
          "header", "footer", "list", "link", "tile", "label", "meta")
_CAMEL = "abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"


class Styler:
    """Class names and framework attributes in one house style (chosen per page)."""

    def __init__(self, rng: Any, style: str) -> None:
        self.rng, self.style = rng, style
        self.scope = rng.token(8, "0123456789abcdef")  # vue/angular scope id of this page's components
        self.module = rng.pick(("Layout", "Header", "ProductGrid", "Shell", "Page", "Sidebar"))

    def cls(self, role: str = "") -> str:
        rng = self.rng
        role = role or rng.pick(_ROLES)
        if self.style == "bem":
            block = rng.pick(_BLOCKS)
            return f"{block}__{role}" + (f" {block}__{role}--{rng.pick(('open', 'wide', 'alt', 'compact'))}"
                                         if rng.random() < 0.3 else "")
        if self.style == "utility":
            return " ".join(rng.sample(_UTILITY, rng.randint(2, 6)))
        if self.style == "bootstrap":
            return " ".join(rng.sample(_BOOTSTRAP, rng.randint(1, 4)))
        if self.style == "modules":
            return f"{self.module}_{role}__{rng.token(5, _CAMEL)}"
        return f"sc-{rng.token(6, _CAMEL)} {rng.token(6, _CAMEL)}"

    def stamp(self) -> str:
        """The bare attribute (with its leading space) a component framework stamps on scoped elements, or ""."""
        if self.style == "utility":
            return f" data-v-{self.scope}"
        if self.style == "bootstrap":
            return f" _ngcontent-ng-c{int(self.scope, 16) % 10**9}"
        return ""


def _a(label: str, href: str, cls: str = "") -> str:
    classes = f' class="{html.escape(cls)}"' if cls else ""
    return f'<a href="{html.escape(href)}"{classes}>{html.escape(label, quote=False)}</a>'


def _slug(label: str) -> str:
    return "-".join(label.lower().replace("&", "and").split())


def header(rng: Any, st: Styler, template: str, site_name: str, links: Sequence[tuple[str, str]]) -> str:
    """The site header of `template`: logo, main navigation and what the template adds (search, version, ticker)."""
    items = "".join(f'<li class="{st.cls("item")}">{_a(label, href)}</li>' for label, href in links)
    nav = f'<nav class="site-nav {st.cls("nav")}" aria-label="Main"><ul class="menu">{items}</ul></nav>'
    logo = f'<a href="/index.html" class="logo {st.cls("logo")}">{html.escape(site_name, quote=False)}</a>'
    extra = {
        "shop": f'<form class="{st.cls("search")}" action="/search" role="search"><input type="search" name="q" '
                f'placeholder="Search products"><button type="submit">Search</button></form>'
                + _a("Cart (0)", "/cart.html", st.cls("cart")),
        "blog": f'<p class="{st.cls("tagline")}">{html.escape(rng.sentence(), quote=False)}</p>',
        "docs": f'<span class="{st.cls("version")}">v{rng.randint(1, 9)}.{rng.randint(0, 20)}</span>'
                f'{_a("Edit this page", "/edit/" + rng.token(6))}',
        "portal": f'<div class="{st.cls("ticker")}" aria-live="polite">{html.escape(rng.sentence(), quote=False)}</div>',
        "app": f'<button class="{st.cls("menu-toggle")}" aria-expanded="false">Menu</button>',
    }[template]
    return f'<header class="site-header {st.cls("header")}">{logo}{nav}{extra}</header>'


def aside(rng: Any, st: Styler, template: str) -> str:
    title = {"shop": "Help", "blog": "Recent posts", "docs": "On this page", "portal": "Most read", "app": "Shortcuts"}
    links = "".join(f"<li>{_a(rng.sentence()[:28].rstrip(), '/' + template + '/' + rng.token(5) + '.html')}</li>"
                    for _ in range(3))
    return (f'<aside class="sidebar {st.cls("aside")}"><h4>{title[template]}</h4><ul class="{st.cls("list")}">{links}'
            f"</ul><p>{html.escape(rng.sentence(), quote=False)}</p></aside>")


def footer(rng: Any, st: Styler, site_name: str) -> str:
    return (f'<footer class="site-footer {st.cls("footer")}"><p>© 2025 {html.escape(site_name, quote=False)}. All '
            f'rights reserved.</p>{_a("Privacy", "/privacy.html")} {_a("Terms", "/terms.html")}</footer>')


def stylesheet(rng: Any, st: Styler, hiding: bool) -> str:
    """An inline stylesheet: layout rules, and (medium/hard) the classes that hide elements."""
    rules = [".site-header{display:flex;gap:1rem}", ".sidebar{width:18rem}", ".promo{color:#c00}",
             ".container{margin:0 auto}", ".modal-backdrop{display:none}"]
    if hiding:
        rules += [f".{c}{{display:none!important}}" for c in HIDING_CLASSES[:2]] + \
                 [f".{HIDING_CLASSES[2]}{{visibility:hidden}}", ".sr-only{position:absolute;clip:rect(0,0,0,0)}"]
    rng.shuffle(rules)
    return "<style>" + "".join(rules) + "</style>"


def malformed(rng: Any, st: Styler) -> str:
    """A block of tag soup that every parser recovers the same way, closed by its own container."""
    kind = rng.randrange(6)
    words = html.escape(rng.sentence(), quote=False)
    if kind == 0:
        inner = f"<p>{words}<p>{html.escape(rng.sentence(), quote=False)}"
    elif kind == 1:
        inner = "<ul>" + "".join(f"<li>{html.escape(rng.product_name(), quote=False)}" for _ in range(3)) + "</ul>"
    elif kind == 2:
        inner = f"<P CLASS={rng.token(5)}>{words}</P><BR><SPAN>Note</SPAN>"
    elif kind == 3:
        inner = f"<a href=/deals/{rng.token(5)}.html class=deal-link target=_blank>Deals</a></span></b>"
    elif kind == 4:
        inner = f"<p>Terms &amp conditions apply &copy 2025&nbsp{words}</p>"
    else:
        inner = f"<p><b><i>{words}</b></i></p><img src=/px/{rng.token(4)}.gif alt=\"\" />"
    return f'<div class="{st.cls("legacy")}">{inner}</div>'


def _mega_menu(rng: Any, st: Styler) -> str:
    cols = []
    for category in rng.sample(vocab.CATEGORIES, rng.randint(4, 8)):
        links = "".join(f'<li class="{st.cls("item")}">{_a(f"{category} {w}", f"/c/{_slug(category)}/{_slug(w)}")}</li>'
                        for w in rng.sample(_MENU_WORDS, rng.randint(8, 14)))
        cols.append(f'<div class="{st.cls("column")}"><p class="{st.cls("label")}">{category}</p><ul>{links}</ul></div>')
    return f'<div class="mega-menu {st.cls("menu")}" role="menu">{"".join(cols)}</div>'


_MENU_WORDS = ("deals", "new in", "bestsellers", "gift ideas", "bundles", "clearance", "accessories", "spare parts",
               "premium", "budget picks", "outlet", "brands", "guides", "reviews", "compare", "services")


def _link_farm(rng: Any, st: Styler) -> str:
    links = "".join(f"<li>{_a(f'{rng.pick(vocab.CITIES)} {w}', f'/local/{rng.token(6)}')}</li>"
                    for w in rng.choices(("store", "pickup point", "service centre", "outlet", "events"),
                                         k=rng.randint(20, 40)))
    return f'<div class="{st.cls("seo-links")}"><p>Find us near you</p><ul class="{st.cls("list")}">{links}</ul></div>'


def _tiles(rng: Any, st: Styler) -> str:
    tiles = []
    for _ in range(rng.randint(8, 20)):
        name = f"{rng.pick(vocab.BRANDS)} {rng.pick(vocab.CATEGORIES)} Collection"
        tiles.append(f'<div class="{st.cls("tile")}"><a href="/collections/{rng.token(6)}" class="{st.cls("link")}">'
                     f'<img src="/cdn/{rng.token(10)}.webp" alt="" loading="lazy" width="320" height="320">'
                     f'<span class="{st.cls("title")}">{html.escape(name, quote=False)}</span></a>'
                     f'<span class="{st.cls("meta")}">from {rng.randint(5, 99)} items</span></div>')
    return f'<section class="{st.cls("promo-grid")}"><h3>Shop the collections</h3>{"".join(tiles)}</section>'


def _state_script(rng: Any, st: Styler) -> str:
    state = {"props": {"pageProps": {"locale": "en", "buildId": rng.token(12), "items": [
        {"id": rng.token(8), "slug": rng.token(10), "title": rng.sentence(), "score": rng.randint(1, 999)}
        for _ in range(rng.randint(20, 80))]}}, "page": "/[...slug]", "isFallback": False}
    return f'<script id="__NEXT_DATA__" type="application/json">{json.dumps(state)}</script>'


def _sprite(rng: Any, st: Styler) -> str:
    symbols = "".join(f'<symbol id="icon-{name}" viewBox="0 0 24 24"><path d="M{rng.randint(1, 9)} {rng.randint(1, 9)}'
                      + "".join(f"l{rng.randint(-9, 9)} {rng.randint(-9, 9)}" for _ in range(12)) + 'z"/></symbol>'
                      for name in ("cart", "user", "search", "heart", "close", "menu", "chevron", "star"))
    return f'<svg xmlns="http://www.w3.org/2000/svg" style="display:none" aria-hidden="true">{symbols}</svg>'


def _css(rng: Any, st: Styler) -> str:
    rules = "".join(f".{rng.token(6)}-{rng.pick(_ROLES)}{{margin:{rng.randint(0, 32)}px;padding:{rng.randint(0, 16)}px;"
                    f"color:#{rng.token(6, '0123456789abcdef')}}}" for _ in range(rng.randint(40, 120)))
    return f"<style>{rules}</style>"


_JS_WORDS = ("render", "hydrate", "track", "fetch", "dispatch", "observe", "schedule", "resolve", "mount", "emit")


def _bundle(rng: Any, st: Styler) -> str:
    """A minified script bundle, as frameworks and tag managers inline them."""
    body = ";".join(f"function {rng.token(2)}{i}(e,t){{var n=e.{rng.pick(_JS_WORDS)}({rng.randint(0, 99)});"
                    f"return t&&t.{rng.pick(_JS_WORDS)}?n[\"{rng.token(5)}\"]:void 0}}"
                    for i in range(rng.randint(30, 90)))
    attrs = rng.pick(("", ' async', ' defer', f' nonce="{rng.token(12)}"', ' type="module"'))
    return f"<script{attrs}>!function(){{{body}}}();</script>"


BULK: tuple[tuple[str, Callable[[Any, Styler], str]], ...] = (
    ("top", _mega_menu), ("bottom", _link_farm), ("content", _tiles), ("end", _state_script), ("end", _sprite),
    ("head", _css))
BUNDLES: tuple[tuple[str, Callable[[Any, Styler], str]], ...] = (("head", _bundle), ("end", _bundle), ("end", _bundle))


def bulk(rng: Any, st: Styler, target: int, current: int, bundles: bool = False) -> dict[str, list[str]]:
    """Blocks by place ("head", "top", "content", "bottom", "end") adding about `target - current` characters;
    `bundles` adds script bundles to the kinds drawn."""
    out: dict[str, list[str]] = {"head": [], "top": [], "content": [], "bottom": [], "end": []}
    kinds = BULK + BUNDLES if bundles else BULK
    while current < target:
        place, make = rng.pick(kinds)
        block = make(rng, st)
        out[place].append(block)
        current += len(block)
    return out
