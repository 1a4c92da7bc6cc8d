"""Navigation family (multi-page sites): link chains, product comparison, search then detail, paginated counts."""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, base_url, el, money, page, site, text
from rlvr_core.envs.web.task import Archetype, Draft, register

CHAIN_LINK = "Continue to the next checkpoint"


def link_chain(rng: Rng, difficulty: str) -> Draft:
    hops = {"easy": 2, "medium": 3, "hard": 5}[difficulty]
    paths = ["/index.html"] + [f"/cp/{rng.token(6)}.html" for _ in range(hops)]
    codes = rng.distinct(rng.code, hops + 2)
    pages = {}
    for i, path in enumerate(paths):
        parts = [el("h1", f"Checkpoint {i}"), el("div", text(codes[i]), class_="checkpoint-code")]
        links = [el("a", "Continue shopping", href="/index.html")]
        if i > 0:
            links.append(el("a", "Back", href=paths[i - 1]))
        if i + 1 < len(paths):
            links.append(el("a", CHAIN_LINK, href=paths[i + 1]))
        if difficulty != "easy":
            links.append(el("a", text(f"{CHAIN_LINK} (preview)"), href=f"/preview/{rng.token(5)}.html"))
        rng.shuffle(links)
        if difficulty != "easy" and i + 1 < len(paths):  # a hidden link with the exact text, first, to a trap page
            trap = f"/cp/{rng.token(6)}.html"
            links.insert(0, el("div", el("a", CHAIN_LINK, href=trap), hide=rng.hide(difficulty)))
            pages[trap] = page(rng, title="Checkpoint", difficulty=difficulty, compact=True,
                               main=el("h1", "Checkpoint") + el("div", text(codes[-1]), class_="checkpoint-code"))
        parts.append(el("nav", " | ".join(links), class_="steps"))
        pages[path] = page(rng, title=f"Checkpoint {i}", main="\n".join(parts), difficulty=difficulty, compact=True)
    query = (f'Starting from this page, follow the visible link whose text is exactly "{CHAIN_LINK}" on each page '
             'until you reach a page without such a link. What is the text of the element with class '
             '"checkpoint-code" on that last page?')
    return Draft(site(base_url(rng), "/index.html", pages), query, {"link": CHAIN_LINK}, "text", codes[hops])


def _buy_box(rng: Rng, difficulty: str, value: float) -> str:
    shown = text(money(value))
    if difficulty != "easy":
        shown = el("del", text(money(round(value * 1.3, 2)))) + " " + shown
    if difficulty == "hard":
        shown += " " + el("small", text(f"or {money(round(value / 10, 2))}/month"))
    return el("div", el("span", shown, class_="price") + el("button", "Add to cart"), class_="buy-box")


def _detail(rng: Rng, difficulty: str, name: str, value: float, specs: dict[str, str]) -> str:
    dl = el("dl", "".join(el("dt", text(k)) + el("dd", text(v)) for k, v in specs.items()), class_="specs")
    related = ""
    if difficulty == "hard":
        related = el("section", "".join(el("div", el("span", text(rng.product_name())) + el("span", text(money(rng.price())),
                                                                                               class_="price"))
                                        for _ in range(2)), class_="related")
    return page(rng, title=name, difficulty=difficulty, compact=True,
                main=el("h1", text(name)) + _buy_box(rng, difficulty, value) + dl + related)


def compare_products(rng: Rng, difficulty: str) -> Draft:
    k = {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    names = rng.distinct(rng.product_name, k + 3)
    prices = rng.sample(range(1500, 90000), k + 3)
    pages, items = {}, []
    for name, cents in zip(names, prices):
        path = f"/p/{rng.token(6)}.html"
        pages[path] = _detail(rng, difficulty, name, cents / 100, {"Brand": name.split()[0]})
        items.append(el("li", el("a", text(name), href=path) + " " + el("span", "See price", class_="muted")))
    rng.shuffle(items)
    pages["/index.html"] = page(rng, title="Catalog", difficulty=difficulty, compact=True,
                                main=el("h1", "Catalog") + el("ul", "\n".join(items), class_="catalog-list"))
    chosen = names[:k]
    cheapest = min(range(k), key=lambda i: prices[i])
    shown = ", ".join(f'"{n}"' for n in chosen)
    query = (f"Compare the products {shown}. Prices are only on each product's own page (follow its link). Which "
             "has the lowest current price? A struck-through price is an old price.")
    expected = {"name": chosen[cheapest], "price": prices[cheapest] / 100}
    return Draft(site(base_url(rng), "/index.html", pages), query, {"products": chosen}, "object", expected,
                 ("name", "price"))


_SPECS = {
    "Warranty": lambda rng: f"{rng.randint(1, 5)} years",
    "Weight": lambda rng: f"{rng.uniform(0.2, 9):.1f} kg",
    "Color": lambda rng: rng.pick(vocab.COLORS),
    "Made in": lambda rng: rng.pick(vocab.CITIES),
}


def search_then_detail(rng: Rng, difficulty: str) -> Draft:
    n_pages = {"easy": 1, "medium": 2, "hard": 3}[difficulty]
    field = rng.pick(sorted(_SPECS))
    target = rng.product_name()
    names = rng.distinct(rng.product_name, 4 * n_pages, avoid=[target])
    near = [f"{target} Pro", f"{target} Mini"] if difficulty != "easy" else []
    pool = names + near
    rng.shuffle(pool)
    chunks = [pool[i::n_pages] for i in range(n_pages)]
    chunks[-1].insert(rng.randrange(len(chunks[-1]) + 1), target)
    list_paths = ["/index.html"] + [f"/catalog/page-{i + 2}.html" for i in range(n_pages - 1)]
    pages, expected = {}, ""
    for p, chunk in enumerate(chunks):
        items = []
        for name in chunk:
            path = f"/item/{rng.token(7)}.html"
            specs = {f: _SPECS[f](rng) for f in _SPECS}
            if difficulty == "hard":
                specs = {**specs, f"{field} (extended)": _SPECS[field](rng)}
            pages[path] = _detail(rng, difficulty, name, rng.price(), specs)
            if name == target:
                expected = specs[field]
            items.append(el("li", el("a", text(name), href=path)))
        nav = el("a", "Next page", href=list_paths[p + 1], rel="next") if p + 1 < n_pages else ""
        pages[list_paths[p]] = page(rng, title=f"Catalog page {p + 1}", difficulty=difficulty, compact=True,
                                    main=el("div", el("ul", "\n".join(items)), class_="catalog")
                                    + el("nav", nav, class_="pager"))
    query = (f'Find the product named exactly "{target}" in the catalog (it may be on a later page: follow the '
             f'"Next page" links) and report its "{field}" value from its product page, as shown there.')
    return Draft(site(base_url(rng), "/index.html", pages), query, {"product": target, "field": field}, "text", expected)


def paginated_count(rng: Rng, difficulty: str) -> Draft:
    n_pages = {"easy": 2, "medium": 3, "hard": 4}[difficulty]
    status, share = rng.pick(vocab.STATUSES), rng.uniform(0.1, 0.6)
    paths = ["/orders.html"] + [f"/orders/page-{i + 2}.html" for i in range(n_pages - 1)]
    pages, expected = {}, 0
    for p, path in enumerate(paths):
        rows = []
        for _ in range(rng.randint(4, 12)):
            st = status if rng.random() < share else rng.pick(vocab.STATUSES)
            if difficulty == "hard" and st == status and rng.random() < 0.3:
                st = f"{status} (partial)"
            expected += st == status
            rows.append(el("tr", el("td", text(f"#{rng.randint(10000, 99999)}"), class_="id")
                           + el("td", f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", class_="date")
                           + el("td", text(st), class_="status") + el("td", text(money(rng.price())), class_="total")))
        if difficulty != "easy":  # the row template the page's script clones, hidden
            rows.insert(0, el("tr", el("td", "#00000", class_="id") + el("td", "", class_="date")
                              + el("td", text(status), class_="status") + el("td", "", class_="total"),
                              class_="template", hide=rng.hide(difficulty)))
        table = el("table", el("thead", el("tr", "".join(el("th", h) for h in ("Order", "Date", "Status", "Total"))))
                   + el("tbody", "\n".join(rows)), class_="orders")
        pager = el("a", "Next", href=paths[p + 1], rel="next") if p + 1 < n_pages else ""
        if p > 0:
            pager = el("a", "Previous", href=paths[p - 1], rel="prev") + " " + pager
        pages[path] = page(rng, title="Order history", difficulty=difficulty, compact=True,
                           main=el("h1", f"Order history, page {p + 1}") + table + el("nav", pager, class_="pager"))
    query = (f'How many orders with the status exactly "{status}" are listed across all pages of this order history '
             '(follow the "Next" links; count visible rows only)?')
    return Draft(site(base_url(rng), "/orders.html", pages), query, {"status": status}, "number", expected)


for _a in (
    Archetype("link_chain", "navigation", "follow a named link across pages and read the last page's code",
              "2/3/5 hops; medium: near-miss link texts, a hidden link with the exact text first, to a trap page",
              link_chain, multi_page=True),
    Archetype("compare_products", "navigation", "open several product pages and report the cheapest",
              "2/3/4 products among 3 extra; medium: struck-through old prices; hard: per-month prices, priced "
              "related items", compare_products, multi_page=True),
    Archetype("search_then_detail", "navigation", "find a product in a paginated catalog, read a spec on its page",
              "1/2/3 catalog pages; medium: 'Pro'/'Mini' near names; hard: an '(extended)' spec decoy",
              search_then_detail, multi_page=True),
    Archetype("paginated_count", "navigation", "count orders with a status across paginated tables",
              "2/3/4 pages; medium: a hidden template row; hard: '(partial)' near-miss statuses", paginated_count,
              multi_page=True),
):
    register(_a)
