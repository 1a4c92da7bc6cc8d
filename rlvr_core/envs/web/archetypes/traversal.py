"""Traversal family: direct children only (not nested descendants), a filtered search over descendants, the value
that sits beside a label in the same row.

From medium difficulty up the obvious reading (every li, every link, the first row) is wrong: nested lists, near-miss
suffixes, hidden rows and twins placed first.
"""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, el, money, place_twins, single_page, text
from rlvr_core.envs.web.task import Archetype, Draft, register


def direct_children(rng: Rng, difficulty: str) -> Draft:
    ident = rng.pick(("menu", "steps", "categories", "toc"))
    n = {"easy": rng.randint(3, 5), "medium": rng.randint(4, 7), "hard": rng.randint(5, 9)}[difficulty]
    labels = rng.distinct(lambda: f"{rng.pick(vocab.SECTION_TITLES)} {rng.randint(1, 99)}", n)
    items = []
    for label in labels:
        sub = ""
        if rng.random() < (0.4 if difficulty == "easy" else 0.7):
            sub = el("ul", "".join(el("li", text(f"{label}.{k}")) for k in range(1, rng.randint(2, 4))), class_="sub")
        items.append(el("li", text(label) + sub))
    if difficulty != "easy":
        items.insert(rng.randint(0, len(items)), el("li", text("Archived"), hide=rng.hide(difficulty)))
    main = el("nav", el("ul", "".join(items), id=ident), class_="outline")
    query = (f'List the text of each visible direct child li of the list with id "{ident}" (not the items of nested '
             "lists, and without the text of its nested lists), in page order.")
    return Draft(single_page(rng, difficulty, "Contents", main), query, {"id": ident}, "list", labels)


def descendants_filter(rng: Rng, difficulty: str) -> Draft:
    suffix = rng.pick((".pdf", ".zip", ".csv"))
    ident = rng.pick(("downloads", "resources", "attachments"))
    n = {"easy": rng.randint(4, 6), "medium": rng.randint(6, 9), "hard": rng.randint(8, 12)}[difficulty]
    links, expected = [], []
    for i in range(n):
        stem = f"/files/{rng.token(5)}/{rng.pick(('manual', 'report', 'sheet', 'guide'))}-{rng.randint(1, 99)}"
        hit = i % 2 == 0 or rng.random() < 0.3
        if hit:
            href = stem + suffix
            expected.append(href)
        else:
            href = stem + rng.pick((".html", f"{suffix}?download=1", f"{suffix}.html", f"-{suffix[1:]}.html",
                                    suffix.upper()) if difficulty != "easy" else (".html", ".png"))
        link = el("a", text(f"File {i + 1}"), href=href)
        links.append(el("p", el("span", link)) if difficulty == "hard" and i % 3 == 0 else el("li", link))
    if difficulty != "easy":
        links.insert(rng.randint(0, len(links)), el("li", el("a", "Old file", href=f"/old/{rng.token(4)}{suffix}"),
                                                    hide=rng.hide(difficulty)))
    outside = el("p", el("a", "Sample", href=f"/sample{suffix}"))
    main = outside + el("article", el("h2", "Files") + el("ul", "".join(links)), id=ident)
    query = (f'List the href of every visible link inside the element with id "{ident}" whose href ends with '
             f'"{suffix}" (exactly, case included), in page order.')
    return Draft(single_page(rng, difficulty, "Files", main), query, {"id": ident, "suffix": suffix}, "list", expected)


def label_value(rng: Rng, difficulty: str) -> Draft:
    labels = ["Subtotal", "Shipping", "Discount", "Tax", "Gift wrap", "Total"]
    values = {lab: money(rng.price(1, 400)) for lab in labels}
    label = rng.pick(labels)
    rows = [el("div", el("span", text(lab), class_="label") + " " + el("span", text(values[lab]), class_="value"),
               class_="summary-row") for lab in labels]
    target = rows[labels.index(label)]
    if difficulty != "easy":
        if labels.index(label) == 0:  # never the first visible row
            rows.insert(0, el("div", el("span", "Items", class_="label") + " " + el("span", str(rng.randint(2, 9)),
                                                                                      class_="value"), class_="summary-row"))
        rows = place_twins(rng, rows, target, lambda: el(  # earlier quotes' rows with the label, hidden
            "div", el("span", text(label), class_="label") + " " + el("span", text(money(rng.price())), class_="value"),
            class_="summary-row", hide=rng.hide(difficulty)))
    if difficulty == "hard":
        rows.append(el("div", el("span", text(f"{label} (estimate)"), class_="label") + " "
                       + el("span", text(money(rng.price())), class_="value"), class_="summary-row"))
    main = el("aside", el("h2", "Order summary") + "".join(rows), class_="summary")
    query = f'In the order summary, what is the value in the visible row whose label is exactly "{label}"?'
    return Draft(single_page(rng, difficulty, "Checkout", main), query, {"label": label}, "text", values[label])


for _a in (
    Archetype("direct_children", "traversal", "texts of the direct li children of a list with nested sub-lists",
              "3-5/4-7/5-9 items; nested lists on 40%/70% of items; medium: a hidden item", direct_children),
    Archetype("descendants_filter", "traversal", "hrefs of the links under an element that end with a suffix",
              "4-6/6-9/8-12 links; medium: near-miss suffixes (?download=1, .pdf.html, upper case), a hidden "
              "link, a match outside the element; hard: links at several depths", descendants_filter),
    Archetype("label_value", "traversal", "the value in the same row as a label",
              "6 rows; medium: hidden rows with the label before and after, never the first row; hard: + an "
              "'(estimate)' near-miss row", label_value),
):
    register(_a)
