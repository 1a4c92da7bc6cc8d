"""Solvers of the languages family: one language among several, right-to-left pages, emoji and combining marks."""

from .common import keep, one, soup_of, text_of, visible


def multilingual(fetch, start, p):
    sections = keep(visible(soup_of(fetch(start)).select("section.description")), lambda s: s.get("lang") == p["lang"])
    return text_of(one(sections, "section lang=%r" % p["lang"]).select_one(".desc"))


def rtl(fetch, start, p):
    product = soup_of(fetch(start)).select_one('[itemtype="https://schema.org/Product"]')
    own = keep(product.find_all(itemprop=p["itemprop"]), lambda t: t.find_parent(itemscope=True) is product)
    return text_of(one(visible(own), "itemprop %r" % p["itemprop"]))


def emoji_text(fetch, start, p):
    return text_of(one(visible(soup_of(fetch(start)).find_all(class_=p["class"])), "element with class %r" % p["class"]))


SOLVERS = {"multilingual": multilingual, "rtl": rtl, "emoji_text": emoji_text}
