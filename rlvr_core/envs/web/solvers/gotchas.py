"""Solvers of the BeautifulSoup-gotchas family: multi-valued and reserved-word classes, `.string` on elements with
children, missing fields, whitespace between siblings, the parent of a text, text without script and style."""

from bs4 import Comment

from .common import keep, norm, one, soup_of, text_of, visible

_INVISIBLE = ("script", "style", "noscript", "template")


def multivalue_class(fetch, start, p):
    cards = keep(soup_of(fetch(start)).find_all(class_="card"), lambda c: p["class"] in c.get("class", []))
    return [text_of(c.find("h3")) for c in visible(cards)]


def reserved_class(fetch, start, p):
    return text_of(one(visible(soup_of(fetch(start)).find_all(class_=p["class"])), "element with class %r" % p["class"]))


def string_none(fetch, start, p):
    return text_of(one(visible(soup_of(fetch(start)).find_all(class_=p["class"])), "element with class %r" % p["class"]))


def _field(card, cls):
    found = visible(card.find_all(class_=cls))
    return text_of(found[0]) if found else None


def missing_fields(fetch, start, p):
    grid = one(visible(soup_of(fetch(start)).select(".listing-grid")), "listing grid")
    return [{f: _field(card, "f-" + f) for f in p["fields"]} for card in visible(grid.select(".listing"))]


def whitespace_sibling(fetch, start, p):
    page = soup_of(fetch(start))
    specs = one(keep(visible(page.select("dl")), lambda d: d.get("id") == p["list"]), "dl #%s" % p["list"])
    term = one(keep(visible(specs.find_all("dt")), lambda t: text_of(t) == p["label"]), "dt %r" % p["label"])
    return text_of(term.find_next_sibling("dd"))


def text_parent(fetch, start, p):
    strings = soup_of(fetch(start)).find_all(string=True)
    found = keep(strings, lambda s: not isinstance(s, Comment) and s.parent.name not in _INVISIBLE)
    node = one(visible([s for s in found if norm(s) == p["text"]]), "text %r" % p["text"])
    return {"tag": node.parent.name, "class": " ".join(node.parent.get("class", []))}


def script_free_text(fetch, start, p):
    box = one(visible(soup_of(fetch(start)).find_all(id=p["id"])), "element #%s" % p["id"])
    strings = keep(box.find_all(string=True), lambda s: not isinstance(s, Comment) and s.find_parent(_INVISIBLE) is None)
    return norm(" ".join(visible(strings)))


SOLVERS = {"multivalue_class": multivalue_class, "reserved_class": reserved_class, "string_none": string_none,
           "missing_fields": missing_fields, "whitespace_sibling": whitespace_sibling, "text_parent": text_parent,
           "script_free_text": script_free_text}
