"""Structured-data family: JSON-LD in `<script type="application/ld+json">` blocks (schema.org).

Blocks come as single objects, arrays or `@graph` lists, `@type` as a string or a list; from medium difficulty up
the page also carries other JSON-LD (BreadcrumbList, Organization) before and after, an unparsable block, a state
script of another type and visible HTML with a different (stale) value.
"""

from __future__ import annotations

import json
from typing import Any

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, el, money, place_twins, single_page, text
from rlvr_core.envs.web.task import Archetype, Draft, register

_CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF")


def _ld(data: Any) -> str:
    return el("script", json.dumps(data, ensure_ascii=False), type="application/ld+json")


def _other_ld(rng: Rng) -> list[Any]:
    return [{"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": [
        {"@type": "ListItem", "position": i + 1, "name": c} for i, c in enumerate(rng.sample(vocab.CATEGORIES, 2))]},
        {"@context": "https://schema.org", "@type": "Organization", "name": f"{rng.pick(vocab.BRANDS)} Ltd",
         "url": "https://example.org"}]


def json_ld_product(rng: Rng, difficulty: str) -> Draft:
    name, currency = rng.product_name(), rng.pick(_CURRENCIES)
    value = round(rng.uniform(5, 2000), 2)
    offer = {"@type": "Offer", "price": value if difficulty == "easy" else f"{value:.2f}", "priceCurrency": currency,
             "availability": "https://schema.org/InStock"}
    product = {"@context": "https://schema.org", "@type": "Product", "name": name, "sku": rng.code("SKU-"),
               "offers": offer if difficulty != "hard" else [offer]}
    blocks = [product]
    if difficulty != "easy":  # other JSON-LD (breadcrumbs, the organisation) before and after the product
        blocks = place_twins(rng, blocks, product, lambda: rng.pick(_other_ld(rng)))
    if difficulty == "hard":  # the product and its neighbours inside one @graph block
        at = blocks.index(product)
        low, high = rng.randint(max(0, at - 2), at), rng.randint(at + 1, min(len(blocks), at + 3))
        graph = {"@context": "https://schema.org", "@graph": blocks[low:high]}
        blocks = [*blocks[:low], graph, *blocks[high:]]
    scripts = [_ld(b) for b in blocks]
    if difficulty != "easy":
        scripts.insert(0, el("script", '{"@type": "Product", "name": "' + text(rng.product_name()) + '", "offers": {'
                             '"price": 1.00,}}', type="application/ld+json"))  # broken: a trailing comma
        scripts.append(el("script", json.dumps({"product": {"name": name, "price": round(value * 1.2, 2)}}),
                          type="application/json", id="state"))
    visible = el("h1", text(name)) + el("p", text(money(round(value * 1.15, 2))), class_="price-was")
    main = visible + "\n".join(scripts)
    query = ('Read the Product described in this page\'s JSON-LD (script elements of type "application/ld+json"; '
             'skip blocks that are not valid JSON). Give an object with its "name", the "price" of its offer as a '
             'JSON number, and the offer\'s "currency" (priceCurrency).')
    expected = {"name": name, "price": value, "currency": currency}
    return Draft(single_page(rng, difficulty, name, main), query, {}, "object", expected, ("name", "price", "currency"))


def json_ld_by_type(rng: Rng, difficulty: str) -> Draft:
    kind = rng.pick(("Event", "Recipe", "Book", "Course"))
    others = [k for k in ("Event", "Recipe", "Book", "Course", "Person", "Place") if k != kind]
    n = {"easy": rng.randint(2, 3), "medium": rng.randint(2, 4), "hard": rng.randint(3, 5)}[difficulty]
    items, expected = [], []
    total = n + rng.randint(1, 3)
    titles = rng.distinct(lambda: f"{rng.pick(vocab.ADJECTIVES)} {rng.pick(vocab.NOUNS)} "
                                  f"{rng.pick(('Workshop', 'Guide', 'Day', 'Session'))}", total)
    for i, title in enumerate(titles):
        is_target = i < n
        if is_target and difficulty == "hard" and rng.random() < 0.4:
            types: Any = [kind, "Thing"]
        else:
            types = kind if is_target else rng.pick(others)
        items.append({"@type": types, "name": title})
        if is_target:
            expected.append(title)
    order = list(range(len(items)))
    rng.shuffle(order)
    items = [items[i] for i in order]
    expected = [it["name"] for it in items if it["name"] in expected]
    if difficulty == "easy":
        blocks = [{"@context": "https://schema.org", **it} for it in items]
    else:
        half = rng.randint(1, len(items) - 1)
        blocks = [[{"@context": "https://schema.org", **it} for it in items[:half]],
                  {"@context": "https://schema.org", "@graph": items[half:]}]
    scripts = [_ld(b) for b in blocks]
    if difficulty != "easy":
        scripts.insert(0, _ld(_other_ld(rng)[0]))
        scripts.insert(1, el("script", json.dumps({"@type": kind, "name": "Preview " + rng.token(4)}),
                             type="application/json"))
    main = el("h1", "Upcoming") + "\n".join(scripts)
    query = (f'List the names of every item whose @type is (or includes) "{kind}" in this page\'s JSON-LD (script '
             'elements of type "application/ld+json": single objects, arrays, and the items of "@graph" lists), in '
             "the order they appear.")
    return Draft(single_page(rng, difficulty, "Listing", main), query, {"type": kind}, "list", expected)


for _a in (
    Archetype("json_ld_product", "structured", "a Product's name, offer price and currency from JSON-LD",
              "easy: one block; medium: other JSON-LD before and after, a broken block, a state script and a stale "
              "visible price; hard: + @graph and an offers list", json_ld_product),
    Archetype("json_ld_by_type", "structured", "the names of the JSON-LD items of one @type",
              "2-3/2-4/3-5 items among others; medium: arrays, @graph, a BreadcrumbList, a non-LD script with the "
              "type; hard: @type lists", json_ld_by_type),
):
    register(_a)
