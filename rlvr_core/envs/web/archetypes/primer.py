"""Primer tier: the first things a scraper does (one element by id, class or tag, one link's href, one count) on
small pages. Easy instances are exactly that; from medium difficulty up hidden twins of the target come before and after it
and near-miss decoys sit around it, as on every other task."""

from __future__ import annotations

from collections.abc import Callable

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, around_target, el, single_page, text
from rlvr_core.envs.web.task import Archetype, Draft, register


def _small(rng: Rng, difficulty: str, title: str, parts: list[str], target: str, twin: Callable[[], str] | None) -> dict:
    ordered = around_target(rng, parts, target, twin if difficulty != "easy" else None)
    return single_page(rng, difficulty, title, el("div", "\n".join(ordered), class_="content"), compact=True)


def _line(rng: Rng) -> str:
    return f"{rng.sentence()[:-1]}, ref {rng.code()}."


def primer_by_id(rng: Rng, difficulty: str) -> Draft:
    ident = f"{rng.pick(('target', 'main-text', 'intro', 'notice'))}-{rng.token(3)}"
    value = _line(rng)
    target = el("p", text(value), id=ident)
    parts = [target, el("p", text(_line(rng)), id=f"{ident}-2"), el("p", text(_line(rng)))]
    twin = lambda: el("p", text(_line(rng)), id=ident, hide=rng.hide(difficulty))  # noqa: E731
    query = f'What is the text of the visible element with id "{ident}"?'
    return Draft(_small(rng, difficulty, "Page", parts, target, twin), query, {"id": ident}, "text", value)


def primer_by_class(rng: Rng, difficulty: str) -> Draft:
    cls = rng.pick(("headline", "lead", "price-tag", "status-line", "author-name"))
    value = _line(rng) if cls != "author-name" else rng.person() + f" ({rng.code()})"
    target = el("span", text(value), class_=cls)
    parts = [target, el("span", text(_line(rng)), class_=f"{cls}-alt"), el("span", text(_line(rng)), class_=f"{cls}s")]
    twin = lambda: el("span", text(_line(rng)), class_=cls, hide=rng.hide(difficulty))  # noqa: E731
    query = f'What is the text of the visible element with class "{cls}"?'
    return Draft(_small(rng, difficulty, "Page", parts, target, twin), query, {"class": cls}, "text", value)


def primer_by_tag(rng: Rng, difficulty: str) -> Draft:
    tag = rng.pick(("h1", "h2", "blockquote", "figcaption"))
    value = f"{rng.product_name()} {rng.code()}"
    target = el(tag, text(value))
    parts = [target, el("p", text(_line(rng)))]
    twin = lambda: el(tag, text(f"{rng.product_name()} {rng.code()}"), hide=rng.hide(difficulty))  # noqa: E731
    query = f"What is the text of the page's only visible <{tag}> element?"
    return Draft(_small(rng, difficulty, "Page", parts, target, twin), query, {"tag": tag}, "text", value)


def primer_attribute(rng: Rng, difficulty: str) -> Draft:
    label = rng.pick(("Read more", "Download", "Contact sales", "View details", "Documentation"))
    href = f"/{rng.pick(('docs', 'files', 'pages', 'help'))}/{rng.token(6)}.html"
    target = el("a", text(label), href=href)
    parts = [target, el("a", text(f"{label} (PDF)"), href=f"/files/{rng.token(6)}.pdf"),
             el("a", text(rng.pick(vocab.SECTION_TITLES)), href=f"/s/{rng.token(4)}")]
    twin = lambda: el("p", el("a", text(label), href=f"/old/{rng.token(6)}.html", hide=rng.hide(difficulty)))  # noqa: E731
    query = f'What is the href of the visible link whose text is "{label}"? Give it exactly as written.'
    return Draft(_small(rng, difficulty, "Page", [el("p", p) for p in parts], el("p", target), twin), query,
                 {"text": label}, "url", href)


def primer_count(rng: Rng, difficulty: str) -> Draft:
    ident = f"{rng.pick(('items', 'results', 'features', 'tasks'))}-{rng.token(3)}"
    n = rng.randint(3, 40)
    items = [el("li", text(f"{rng.pick(vocab.NOUNS)} {i + 1}")) for i in range(n)]
    if difficulty != "easy":  # hidden placeholders, and a nested list whose items do not count
        for _ in range(rng.randint(1, 3)):
            items.insert(rng.randint(0, len(items)), el("li", "…", hide=rng.hide(difficulty)))
        at = rng.randrange(len(items))
        items[at] = items[at].replace("</li>", el("ul", el("li", "more") + el("li", "even more")) + "</li>")
    target = el("ul", "".join(items), id=ident)
    parts = [target, el("ul", "".join(el("li", "x") for _ in range(rng.randint(2, 5))), id=f"{ident}-old")]
    query = f'How many visible li elements are direct children of the list with id "{ident}"?'
    return Draft(_small(rng, difficulty, "List", parts, target, None), query, {"id": ident}, "number", n)


for _a in (
    Archetype("primer_by_id", "primer", "text of the element with an id", "medium: hidden twins before and after", primer_by_id),
    Archetype("primer_by_class", "primer", "text of the element with a class",
              "near-miss classes; medium: hidden twins before and after", primer_by_class),
    Archetype("primer_by_tag", "primer", "text of the only visible element of a tag", "medium: hidden twins before and after",
              primer_by_tag),
    Archetype("primer_attribute", "primer", "href of the link with a text",
              "a '(PDF)' near miss; medium: hidden twins before and after", primer_attribute),
    Archetype("primer_count", "primer", "count the direct li children of a list (3-40)",
              "medium: hidden placeholders and a nested list", primer_count),
):
    register(_a)
