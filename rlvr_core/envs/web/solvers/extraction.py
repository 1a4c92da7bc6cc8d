"""Solvers of the extraction family: text by id or class, attributes, links, images."""

from .common import keep, one, soup_of, text_of, visible


def text_by_id(fetch, start, p):
    return text_of(one(visible(soup_of(fetch(start)).find_all(id=p["id"])), "visible element #%s" % p["id"]))


def text_by_class(fetch, start, p):
    page = soup_of(fetch(start))
    cards = keep(visible(page.select(".product-card")), lambda c: text_of(c.select_one(".card-title")) == p["card"])
    card = one(cards, "card %r" % p["card"])
    return text_of(one(visible(card.find_all(class_=p["class"])), "element with class %r" % p["class"]))


def attribute(fetch, start, p):
    page = soup_of(fetch(start))
    scope = page.select_one(p["scope"]) if p.get("scope") else page
    if p.get("match_attr"):
        found = keep(scope.find_all(p["tag"]), lambda t: t.get(p["match_attr"]) == p["match"])
    else:
        found = keep(scope.find_all(p["tag"]), lambda t: text_of(t) == p["match"])
    return one(visible(found), "visible <%s>" % p["tag"])[p["attr"]]


def links(fetch, start, p):
    page = soup_of(fetch(start))
    heading = one(keep(visible(page.select("footer h4")), lambda h: text_of(h) == p["heading"]), "footer heading")
    return [{"text": text_of(a), "href": a["href"]} for a in visible(heading.parent.find_all("a", href=True))]


def images(fetch, start, p):
    gallery = one(visible(soup_of(fetch(start)).select(".gallery")), "gallery")
    return [{"src": img.get("src"), "alt": img.get("alt")} for img in visible(gallery.find_all("img"))]


SOLVERS = {"text_by_id": text_by_id, "text_by_class": text_by_class, "attribute": attribute, "links": links,
           "images": images}
