"""Reasoning family: filter then pick (multi-hop), min/max/sum aggregation over prices, counting matches."""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, el, money, single_page, text
from rlvr_core.envs.web.task import Archetype, Draft, register

_page = single_page


def multi_hop_filter(rng: Rng, difficulty: str) -> Draft:
    n = {"easy": 6, "medium": 10, "hard": 14}[difficulty]
    cats = rng.sample(vocab.CATEGORIES, 2 if difficulty == "easy" else 3)
    target_cat = cats[0]
    ratings = rng.sample([x / 10 for x in range(10, 51)], n + 1)
    best = max(ratings)
    skus = rng.distinct(lambda: rng.code("SKU-"), n + 1)
    rows = []
    # The best rating goes to a decoy (out of stock, or another category, or hidden); the answer is the best
    # of what remains among in-stock items of the target category.
    for i in range(n):
        rating = ratings[i]
        cat = target_cat if i % 2 == 0 else rng.pick(cats[1:])
        in_stock = i % 4 != 2
        if rating == best:
            cat, in_stock = target_cat, False
        if i == 0:
            in_stock = True  # at least one candidate
        rows.append({"sku": skus[i], "cat": cat, "stock": in_stock, "rating": rating, "hidden": False})
    if difficulty == "hard":
        top = max(r["rating"] for r in rows) + 0.05
        rows.insert(rng.randrange(n), {"sku": skus[n], "cat": target_cat, "stock": True, "rating": round(min(top, 5.0), 2),
                                       "hidden": True})
    expected = max((r for r in rows if r["cat"] == target_cat and r["stock"] and not r["hidden"]),
                   key=lambda r: r["rating"])["sku"]
    cards = []
    for r in rows:
        stock = ("In stock" if difficulty == "easy" else rng.pick(("In stock", f"Only {rng.randint(1, 4)} left"))) \
            if r["stock"] else ("Out of stock" if difficulty != "hard" else "Out of stock, back soon")
        stars = el("span", "★" * round(r["rating"]) + "☆" * (5 - round(r["rating"])), class_="rating",
                   data_rating=f"{r['rating']:g}", aria_label=f"{r['rating']:g} out of 5")
        inner = (el("h3", text(rng.product_name())) + el("span", text(r["cat"]), class_="category")
                 + el("span", text(stock), class_="stock") + stars)
        cards.append(el("div", inner, class_="product", data_sku=r["sku"], hide=rng.hide(difficulty) if r["hidden"] else None))
    main = el("section", el("h2", "All products") + "\n".join(cards), class_="catalog")
    query = (f'Among the visible products (elements with class "product") in the category "{target_cat}" that are in stock (their stock line does '
             f'not say "Out of stock"), which has the highest rating (data-rating)? Answer with its SKU, the '
             f"data-sku attribute.")
    return Draft(_page(rng, difficulty, "Catalog", main), query, {"category": target_cat}, "text", expected)


def aggregate_min_max(rng: Rng, difficulty: str) -> Draft:
    names = rng.sample(vocab.CATEGORIES, 3)
    target = rng.pick(names) if difficulty == "easy" else rng.pick(names[1:])  # never the first section from medium
    op = rng.pick(("min", "max")) if difficulty != "hard" else rng.pick(("min", "max", "sum"))
    sections, values = [], []
    for name in names:
        items = []
        for i in range({"easy": 4, "medium": 6, "hard": 9}[difficulty]):
            value = rng.price(10, 2500)
            style = rng.pick(("plain", "code")) if difficulty != "easy" else "plain"
            shown = text(money(value, style))
            if difficulty != "easy" and i % 3 == 1:
                shown = el("del", text(money(round(value * 1.25, 2)))) + " " + shown
            if difficulty == "hard" and i % 4 == 2:
                shown += " " + el("small", text(f"or {money(round(value / 12, 2))}/month"))
            discontinued = difficulty == "hard" and i % 5 == 3
            classes = "item discontinued" if discontinued else "item"
            badge = el("span", "Discontinued", class_="badge") if discontinued else ""
            items.append(el("div", el("span", text(rng.product_name()), class_="name") + badge
                            + el("span", shown, class_="price"), class_=classes))
            if name == target and not discontinued:
                values.append(value)
        if difficulty != "easy":  # an item sold out and hidden, with an extreme price
            extreme = money(rng.pick((rng.price(1, 9), rng.price(2600, 9000))))
            items.insert(rng.randint(0, len(items)), el("div", el("span", "Sold out", class_="name") + el(
                "span", text(extreme), class_="price"), class_="item", hide=rng.hide(difficulty)))
        sections.append(el("section", el("h2", text(name)) + "\n".join(items), class_="shelf"))
    expected = round({"min": min, "max": max, "sum": sum}[op](values), 2)
    what = {"min": "lowest current price", "max": "highest current price", "sum": "sum of the current prices"}[op]
    query = (f'What is the {what} of the items in the "{target}" section (the section headed by an h2 "{target}")? '
             "A struck-through price is an old price, not the current one."
             + (' Ignore items with the class "discontinued".' if difficulty == "hard" else ""))
    return Draft(_page(rng, difficulty, "Shop", "\n".join(sections)), query, {"section": target, "op": op}, "number",
                 expected)


def count_matching(rng: Rng, difficulty: str) -> Draft:
    n = {"easy": rng.randint(6, 14), "medium": rng.randint(10, 24), "hard": rng.randint(16, 36)}[difficulty]
    k, share = rng.randint(1, 5), rng.uniform(0.15, 0.6)
    reviews, expected = [], 0
    for i in range(n):
        rating = k if rng.random() < share else rng.randint(1, 5)
        icons = difficulty == "hard" and i % 2 == 1 or difficulty == "medium"
        if icons:
            stars = el("div", el("i", "", class_="star is-filled") * rating + el("i", "", class_="star") * (5 - rating),
                       class_="stars", aria_label=f"{rating} stars")
        else:
            stars = el("div", f"{rating}/5", class_="stars", data_rating=str(rating))
        body = el("span", text(rng.person()), class_="author") + stars + el("p", text(rng.sentence()))
        if difficulty == "hard" and i % 5 == 4:
            body += el("div", el("p", text("Seller reply: thank you for your feedback.")), class_="reply")
        reviews.append(el("article", body, class_="review"))
        expected += rating == k
    if difficulty != "easy":  # the template the page's script clones, and a review awaiting moderation, hidden
        for _ in range(2 if difficulty == "hard" else 1):
            template = el("article", el("span", "{{author}}", class_="author") + el("div", "", class_="stars",
                                                                                   data_rating=str(k)),
                          class_="review", hide=rng.hide(difficulty))
            reviews.insert(rng.randrange(n), template)
    main = el("section", el("h2", "Customer reviews") + "\n".join(reviews), class_="reviews")
    query = f"How many visible reviews (article elements with class \"review\") rate the product exactly {k} out of 5 stars?"
    return Draft(_page(rng, difficulty, "Reviews", main), query, {"stars": k}, "number", expected)


for _a in (
    Archetype("multi_hop_filter", "reasoning", "filter products by category and stock, then take the best-rated SKU",
              "6/10/14 products; the top rating always sits on a decoy; medium: 3 categories, 'Only n left' "
              "stock lines; hard: + a hidden best product", multi_hop_filter),
    Archetype("aggregate_min_max", "reasoning", "min, max (or sum) of current prices in one section",
              "4/6/9 items per section; medium: USD/$ formats, struck-through old prices; hard: + per-month "
              "prices, discontinued items, sum", aggregate_min_max),
    Archetype("count_matching", "reasoning", "count reviews with a given star rating",
              "6-14/10-24/16-36 reviews; easy: data-rating; medium: star icons, a hidden template review; hard: "
              "mixed, seller replies, two hidden reviews", count_matching),
):
    register(_a)
