"""Solvers of the reasoning family: filter then pick, aggregate prices, count matches."""

from .common import current_price, keep, section_by_heading, soup_of, text_of, visible


def _products(page):
    out = []
    for card in visible(page.select(".product")):
        out.append({"sku": card["data-sku"], "category": text_of(card.select_one(".category")),
                    "in_stock": "Out of stock" not in text_of(card.select_one(".stock")),
                    "rating": float(card.select_one(".rating")["data-rating"])})
    return out


def multi_hop_filter(fetch, start, p):
    items = keep(_products(soup_of(fetch(start))), lambda x: x["category"] == p["category"] and x["in_stock"])
    return max(items, key=lambda x: x["rating"])["sku"]


def aggregate(fetch, start, p):
    section = section_by_heading(soup_of(fetch(start)), "h2", p["section"])
    items = keep(visible(section.select(".item")), lambda i: "discontinued" not in i.get("class", []))
    values = [current_price(i.select_one(".price")) for i in items]
    return round({"min": min, "max": max, "sum": sum}[p["op"]](values), 2)


def count_matching(fetch, start, p):
    count = 0
    for review in visible(soup_of(fetch(start)).select("article.review")):
        stars = review.select_one(".stars")
        rating = int(stars["data-rating"]) if stars.has_attr("data-rating") else len(stars.select(".star.is-filled"))
        count += rating == p["stars"]
    return count


SOLVERS = {"multi_hop_filter": multi_hop_filter, "aggregate_min_max": aggregate, "count_matching": count_matching}
