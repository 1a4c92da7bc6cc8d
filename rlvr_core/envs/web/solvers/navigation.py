"""Solvers of the navigation family (several pages, read through `fetch`): link chains, comparisons, search then
detail, paginated counts."""

from .common import current_price, keep, link_by_text, one, soup_of, text_of, visible


def link_chain(fetch, start, p):
    path = start
    for _ in range(50):
        page = soup_of(fetch(path))
        nxt = keep(visible(page.find_all("a", href=True)), lambda a: text_of(a) == p["link"])
        if not nxt:
            return text_of(one(visible(page.select(".checkpoint-code")), "checkpoint code"))
        path = one(nxt, "next link")["href"]
    raise ValueError("link chain longer than 50 pages")


def _detail_price(html):
    return current_price(one(visible(soup_of(html).select(".buy-box")), "buy box").select_one(".price"))


def compare_products(fetch, start, p):
    page = soup_of(fetch(start))
    offers = [(name, _detail_price(fetch(link_by_text(page, name)["href"]))) for name in p["products"]]
    name, value = min(offers, key=lambda o: o[1])
    return {"name": name, "price": value}


def spec(html, label):
    page = soup_of(html)
    term = one(keep(visible(page.select("dl.specs dt")), lambda dt: text_of(dt) == label), "spec %r" % label)
    return text_of(term.find_next_sibling("dd"))


def search_then_detail(fetch, start, p):
    path = start
    for _ in range(20):
        page = soup_of(fetch(path))
        hits = keep(visible(page.select(".catalog a[href]")), lambda a: text_of(a) == p["product"])
        if hits:
            return spec(fetch(one(hits, "product link")["href"]), p["field"])
        path = one(page.select('a[rel="next"]'), "next page")["href"]
    raise ValueError("product not found")


def paginated_count(fetch, start, p):
    path, count = start, 0
    for _ in range(20):
        page = soup_of(fetch(path))
        count += len(keep(visible(page.select("table.orders td.status")), lambda td: text_of(td) == p["status"]))
        nxt = page.select('a[rel="next"]')
        if not nxt:
            return count
        path = nxt[0]["href"]
    raise ValueError("more than 20 pages")


SOLVERS = {"link_chain": link_chain, "compare_products": compare_products, "search_then_detail": search_then_detail,
           "paginated_count": paginated_count}
