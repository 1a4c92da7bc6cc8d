"""Solvers of the traversal family: direct children only, a filtered descendant search, a value beside its label."""

from .common import keep, norm, one, soup_of, text_of, visible


def direct_children(fetch, start, p):
    top = one(visible(soup_of(fetch(start)).find_all(id=p["id"])), "list #%s" % p["id"])
    items = keep(visible(top.find_all("li")), lambda li: li.parent is top)
    return [norm(" ".join(keep(li.find_all(string=True), lambda s, li=li: s.find_parent("li") is li))) for li in items]


def descendants_filter(fetch, start, p):
    article = one(visible(soup_of(fetch(start)).find_all(id=p["id"])), "element #%s" % p["id"])
    return [a["href"] for a in keep(visible(article.find_all("a", href=True)), lambda a: a["href"].endswith(p["suffix"]))]


def label_value(fetch, start, p):
    box = one(visible(soup_of(fetch(start)).select(".summary")), "summary box")
    rows = keep(visible(box.select(".summary-row")), lambda r: text_of(r.select_one(".label")) == p["label"])
    return text_of(one(rows, "row %r" % p["label"]).select_one(".value"))


SOLVERS = {"direct_children": direct_children, "descendants_filter": descendants_filter, "label_value": label_value}
