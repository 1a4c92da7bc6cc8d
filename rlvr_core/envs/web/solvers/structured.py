"""Solvers of the structured-data family: JSON-LD blocks (single objects, arrays, @graph), selected by @type."""

import json

from .common import keep, one, soup_of


def ld_items(page):
    """Every object in the page's JSON-LD blocks (arrays and @graph unrolled); unparsable blocks are skipped."""
    items = []
    for script in page.find_all("script", type="application/ld+json"):
        try:
            data = json.loads(script.get_text())
        except ValueError:
            continue
        queue = data if isinstance(data, list) else [data]
        for item in queue:
            if isinstance(item, dict):
                items.append(item)
                items.extend(x for x in item.get("@graph", []) if isinstance(x, dict))
    return items


def _is(item, kind):
    types = item.get("@type")
    return kind in (types if isinstance(types, list) else [types])


def json_ld_product(fetch, start, p):
    product = one(keep(ld_items(soup_of(fetch(start))), lambda x: _is(x, "Product")), "JSON-LD Product")
    offer = product["offers"][0] if isinstance(product["offers"], list) else product["offers"]
    return {"name": product["name"], "price": float(offer["price"]), "currency": offer["priceCurrency"]}


def json_ld_by_type(fetch, start, p):
    return [x["name"] for x in keep(ld_items(soup_of(fetch(start))), lambda x: _is(x, p["type"]))]


SOLVERS = {"json_ld_product": json_ld_product, "json_ld_by_type": json_ld_by_type}
