"""Solvers of the primer tier: one element by id, class or tag, one attribute, one count, on small pages."""

from .common import keep, one, soup_of, text_of, visible


def primer_by_id(fetch, start, p):
    return text_of(one(visible(soup_of(fetch(start)).find_all(id=p["id"])), "element #%s" % p["id"]))


def primer_by_class(fetch, start, p):
    return text_of(one(visible(soup_of(fetch(start)).find_all(class_=p["class"])), "element .%s" % p["class"]))


def primer_by_tag(fetch, start, p):
    return text_of(one(visible(soup_of(fetch(start)).find_all(p["tag"])), "<%s>" % p["tag"]))


def primer_attribute(fetch, start, p):
    links = keep(visible(soup_of(fetch(start)).find_all("a", href=True)), lambda a: text_of(a) == p["text"])
    return one(links, "link %r" % p["text"])["href"]


def primer_count(fetch, start, p):
    top = one(visible(soup_of(fetch(start)).find_all(id=p["id"])), "list #%s" % p["id"])
    return len(keep(visible(top.find_all("li")), lambda li: li.parent is top))


SOLVERS = {"primer_by_id": primer_by_id, "primer_by_class": primer_by_class, "primer_by_tag": primer_by_tag,
           "primer_attribute": primer_attribute, "primer_count": primer_count}
