"""Limits family: the asked-for value is in an image, on a canvas, or loaded by JavaScript, so the honest answer is to abstain.

From medium up some instances are answerable after all (the code is also in
the alt text or a caption, the chart has a fallback table, the reviews are
server-rendered), so abstaining cannot be learnt from the question alone.
"""

from __future__ import annotations

from rlvr_core.envs.web.page import Rng, base_url, el, page, site, text
from rlvr_core.envs.web.solvers import abstain
from rlvr_core.envs.web.task import Archetype, Draft, register

ANSWERABLE_SHARE = {"easy": 0.0, "medium": 0.35, "hard": 0.35}


def _page(rng: Rng, difficulty: str, title: str, main: str) -> dict:
    return site(base_url(rng), "/index.html", {"/index.html": page(rng, title=title, main=main, difficulty=difficulty)})


def limit_image_text(rng: Rng, difficulty: str) -> Draft:
    code, old = rng.distinct(rng.code, 2)
    answerable = rng.random() < ANSWERABLE_SHARE[difficulty]
    season = rng.pick(("Spring", "Summer", "Autumn", "Winter"))
    alt = f"{season} sale banner"
    caption = ""
    if answerable:
        if rng.random() < 0.5:
            alt = f"{season} sale: use code {code} at checkout"
        else:
            caption = el("p", text(f"Use code {code} at checkout."), class_="promo-caption")
    banner = el("div", el("img", src=f"/img/banner-{rng.token(6)}.png", alt=alt, width="1200", height="300") + caption,
                class_="promo-banner")
    parts = [el("h1", text(f"{season} sale")), banner, el("p", text(rng.sentence()))]
    if difficulty != "easy":
        parts.append(el("p", text(f"Last season's code {old} has expired."), class_="expired"))
    query = 'What promo code is shown in the sale banner (the element with class "promo-banner")?'
    return Draft(_page(rng, difficulty, "Sale", "\n".join(parts)), query, {}, "text",
                 code if answerable else abstain("image"))


def _chart(rng: Rng, title: str, values: list[int] | None) -> str:
    inner = el("figcaption", text(title)) + el("canvas", "", id=f"chart-{rng.token(4)}", width="640", height="320")
    inner += el("script", f"fetch('/api/series/{rng.token(6)}.json').then(r => r.json()).then(drawChart);")
    if values is not None:
        months = ("Jan", "Feb", "Mar", "Apr", "May", "Jun")
        rows = "".join(el("tr", el("th", m) + el("td", f"{v:,}", class_="value")) for m, v in zip(months, values))
        inner += el("table", rows, class_="chart-fallback")
    return el("figure", inner, class_="chart")


def limit_canvas(rng: Rng, difficulty: str) -> Draft:
    metric = rng.pick(("Monthly sales", "Website visits", "Orders shipped", "Support tickets"))
    title, other = f"{metric} {rng.randint(2019, 2025)}", f"{metric} (previous year)"
    answerable = rng.random() < ANSWERABLE_SHARE[difficulty]
    values = [rng.randint(100, 99999) for _ in range(6)]
    figures = [_chart(rng, title, values if answerable else None)]
    if difficulty != "easy":
        figures.append(_chart(rng, other, [rng.randint(100, 99999) for _ in range(6)]))
        rng.shuffle(figures)
    main = el("h1", "Dashboard") + "\n".join(figures)
    query = f'What is the highest monthly value plotted in the chart titled "{title}"?'
    return Draft(_page(rng, difficulty, "Dashboard", main), query, {"chart": title}, "number",
                 float(max(values)) if answerable else abstain("canvas"))


def limit_js_required(rng: Rng, difficulty: str) -> Draft:
    answerable = rng.random() < ANSWERABLE_SHARE[difficulty]
    names = rng.distinct(rng.person, 3)
    if answerable:
        inner = "".join(el("article", el("span", text(n), class_="reviewer") + el("p", text(rng.sentence())),
                           class_="review") for n in names)
        box = el("div", inner, id="reviews")
    else:
        box = el("div", el("div", "Loading reviews…", class_="spinner"), id="reviews",
                 data_src=f"/api/reviews/{rng.token(8)}")
        box += el("script", "document.addEventListener('DOMContentLoaded',()=>loadReviews('#reviews'));")
        box += el("noscript", "Please enable JavaScript to see customer reviews.")
    parts = [el("h1", text(rng.product_name())), el("h2", "Reviews"), box]
    if difficulty == "hard":
        staff = "".join(el("li", el("span", text(rng.person()), class_="staff") + ": " + text(rng.sentence()))
                        for _ in range(2))
        parts.append(el("section", el("h2", "Questions and answers") + el("ul", staff), class_="qa"))
    query = 'List the names of the reviewers shown in the reviews section (the element with id "reviews"), in page order.'
    return Draft(_page(rng, difficulty, "Product", "\n".join(parts)), query, {}, "list",
                 names if answerable else abstain("javascript"))


for _a in (
    Archetype("limit_image_text", "limits", "a promo code that is only in a banner image (abstain: image)",
              "easy: always unanswerable; medium/hard: 35% answerable via alt text or caption, an expired code "
              "elsewhere on the page", limit_image_text, can_abstain=True),
    Archetype("limit_canvas", "limits", "a chart value drawn on a canvas from fetched data (abstain: canvas)",
              "easy: always unanswerable; medium/hard: 35% carry a fallback table, a second chart with a table",
              limit_canvas, can_abstain=True),
    Archetype("limit_js_required", "limits", "reviews loaded by JavaScript (abstain: javascript)",
              "easy: always unanswerable; medium/hard: 35% server-rendered; hard: staff names in a Q&A section",
              limit_js_required, can_abstain=True),
):
    register(_a)
