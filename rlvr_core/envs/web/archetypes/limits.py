"""Limits family: information the HTML does not hold (pixels of an image, a canvas drawn from fetched data, content
a script loads, a PDF shown in an embed), where the right move is to abstain with the reason, unless the page
also carries the data as text. SVG charts are the counterpoint: their geometry is in the markup and can be read.

Every archetype mixes answerable and unanswerable instances at every difficulty (`ANSWERABLE_SHARE`), so neither
"always abstain" nor "always answer" pays; answerable instances carry a decoy from medium up.
"""

from __future__ import annotations

from rlvr_core.envs.web.page import Rng, el, money, place_twins, single_page, text
from rlvr_core.envs.web.solvers.common import abstain
from rlvr_core.envs.web.task import Archetype, Draft, register

ANSWERABLE_SHARE = {"easy": 0.6, "medium": 0.65, "hard": 0.7}


def limit_image_text(rng: Rng, difficulty: str) -> Draft:
    code = rng.code()
    answerable = rng.random() < ANSWERABLE_SHARE[difficulty]
    season = rng.pick(("Spring", "Summer", "Autumn", "Winter"))
    in_alt = answerable and rng.random() < 0.5

    def banner_img(alt: str, hide: str | None = None) -> str:
        return el("img", src=f"/img/banner-{rng.token(6)}.png", alt=alt, width="1200", height="300", hide=hide)

    def stale() -> str:  # another season's code, hidden: a caption or, where the code is in the alt, an image
        other = rng.code()
        if in_alt:
            return banner_img(f"{rng.pick(('Last', 'Next'))} sale: use code {other} at checkout", rng.hide(difficulty))
        return el("p", text(f"{rng.pick(('Use', 'Coming soon: use'))} code {other} at checkout."),
                  hide=rng.hide(difficulty))

    if in_alt:
        shown = banner_img(f"{season} sale: use code {code} at checkout")
        inner = [shown]
    else:
        shown = el("p", text(f"Use code {code} at checkout."), class_="promo-caption")
        inner = [banner_img(f"{season} sale banner")] + ([shown] if answerable else [])
    if difficulty != "easy":  # unanswerable banners too: a reader that keeps hidden text answers a stale code
        inner = place_twins(rng, inner, shown if answerable else inner[0], stale)
    banner = el("div", "".join(inner), class_="promo-banner")
    parts = [el("h1", text(f"{season} sale")), banner, el("p", text(rng.sentence()))]
    if difficulty != "easy":
        parts.append(el("p", text(f"Last season's code {rng.code()} has expired."), class_="expired"))
    query = ('What promo code is shown in the sale banner (the visible element with class "promo-banner")? If the '
             "page's HTML does not contain it, abstain with the reason.")
    return Draft(single_page(rng, difficulty, "Sale", "\n".join(parts)), query, {}, "text",
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
    shown = _chart(rng, title, values if answerable else None)
    figures = [shown]
    if difficulty != "easy":  # the previous year's and the forecast charts, with tables, before and after
        figures = place_twins(rng, figures, shown, lambda: _chart(
            rng, rng.pick((other, f"{metric} (forecast)", f"{metric} (target)")),
            [rng.randint(100, 99999) for _ in range(6)]))
    main = el("h1", "Dashboard") + "\n".join(figures)
    query = (f'What is the highest monthly value plotted in the chart titled "{title}"? If the page\'s HTML does not '
             "contain the values, abstain with the reason.")
    return Draft(single_page(rng, difficulty, "Dashboard", main), query, {"chart": title}, "number",
                 float(max(values)) if answerable else abstain("canvas"))


def limit_js_required(rng: Rng, difficulty: str) -> Draft:
    answerable = rng.random() < ANSWERABLE_SHARE[difficulty]
    names = rng.distinct(rng.person, rng.randint(2, 5))
    if answerable:
        inner = "".join(el("article", el("span", text(n), class_="reviewer") + el("p", text(rng.sentence())),
                           class_="review") for n in names)
        if difficulty != "easy":  # the template the page's script clones, hidden, first
            inner = el("article", el("span", "{{reviewer}}", class_="reviewer"), class_="review",
                       hide=rng.hide(difficulty)) + inner
        box = el("div", inner, id="reviews")
    else:
        template = el("article", el("span", "{{reviewer}}", class_="reviewer"), class_="review",
                      hide=rng.hide(difficulty)) if difficulty != "easy" else ""  # what the script fills in
        box = el("div", el("div", "Loading reviews…", class_="spinner") + template, id="reviews",
                 data_src=f"/api/reviews/{rng.token(8)}")
        box += el("script", "document.addEventListener('DOMContentLoaded',()=>loadReviews('#reviews'));")
        box += el("noscript", "Please enable JavaScript to see customer reviews.")
    parts = [el("h1", text(rng.product_name())), el("h2", "Reviews"), box]
    if difficulty == "hard":
        staff = "".join(el("li", el("span", text(rng.person()), class_="staff") + ": " + text(rng.sentence()))
                        for _ in range(2))
        parts.append(el("section", el("h2", "Questions and answers") + el("ul", staff), class_="qa"))
    query = ('List the names of the reviewers shown in the reviews section (the element with id "reviews"), in page '
             "order. If the page's HTML does not contain them, abstain with the reason.")
    return Draft(single_page(rng, difficulty, "Product", "\n".join(parts)), query, {}, "list",
                 names if answerable else abstain("javascript"))


def _embed(rng: Rng, src: str) -> str:
    kind = rng.randrange(3)
    if kind == 0:
        return el("embed", src=src, type="application/pdf", width="100%", height="600")
    if kind == 1:
        return el("object", el("p", el("a", "Download the report", href=src)), data=src, type="application/pdf")
    return el("iframe", "", src=src, title="Report viewer", width="100%", height="600")


def limit_pdf_embed(rng: Rng, difficulty: str) -> Draft:
    year = rng.randint(2018, 2025)
    report, figure = f"Annual report {year}", rng.pick(("Revenue", "Operating profit", "Total assets", "Net income"))
    answerable = rng.random() < ANSWERABLE_SHARE[difficulty]
    value = round(rng.uniform(1e5, 9e7), 2)
    body = el("h2", text(report)) + _embed(rng, f"/reports/{year}-{rng.token(5)}.pdf")
    if answerable:
        rows = [el("tr", el("th", text(f)) + el("td", text(money(value if f == figure else rng.uniform(1e5, 9e7)))))
                for f in ("Revenue", "Operating profit", "Total assets", "Net income")]
        if difficulty != "easy":  # earlier restated figures, hidden, before and after
            row = next(r for r in rows if f">{figure}<" in r)
            rows = place_twins(rng, rows, row, lambda: el("tr", el("th", text(figure)) + el(
                "td", text(money(rng.uniform(1e5, 9e7)))), hide=rng.hide(difficulty)))
        body += el("table", el("caption", "Key figures") + "".join(rows), class_="summary")
    shown = el("section", body, class_="report")
    sections = [shown]
    if difficulty != "easy":  # other years' reports with the figure, before and after
        sections = place_twins(rng, sections, shown, lambda: el("section", el("h2", text(
            f"Annual report {year + rng.pick((-3, -2, -1, 1))}")) + el("table", el("tr", el("th", text(figure)) + el(
                "td", text(money(rng.uniform(1e5, 9e7)))))), class_="report"))
    main = el("h1", "Investors") + "\n".join(sections)
    query = (f'What is the "{figure}" figure of the {report} on this page, as a number? If the page\'s HTML does not '
             "contain it (only the embedded document does), abstain with the reason.")
    return Draft(single_page(rng, difficulty, "Investors", main), query, {"report": report, "figure": figure},
                 "number", round(value, 2) if answerable else abstain("pdf"))


def svg_chart(rng: Rng, difficulty: str) -> Draft:
    title = (f"{rng.pick(('Units sold', 'Returns', 'New customers', 'Downloads'))} by "
             f"{rng.pick(('region', 'month', 'store'))}")
    n = {"easy": rng.randint(3, 5), "medium": rng.randint(4, 6), "hard": rng.randint(5, 8)}[difficulty]
    values, scale = [rng.randint(3, 120) for _ in range(n)], rng.pick((1, 2, 2.5, 4))
    as_image = difficulty != "easy" and rng.random() < 0.2
    if as_image:
        chart = el("img", src=f"/charts/{rng.token(6)}.svg", alt=title)
    else:
        bars = [el("rect", "", class_="bar", x=str(10 + 30 * i), y=str(300 - v * scale), width="24",
                   height=f"{v * scale:g}") for i, v in enumerate(values)]
        if difficulty == "hard":
            rng.shuffle(bars)  # drawn in any order: left to right is by x
        extra = []
        if difficulty != "easy":
            extra = [el("rect", "", class_="grid", x="0", y=str(300 - 50 * k), width="400", height="1") for k in range(1, 4)]
            extra.insert(0, el("rect", "", class_="bar", x="5", y="0", width="24", height="300", hide=rng.hide(difficulty)))
        chart = el("svg", "".join(extra + bars), viewBox="0 0 400 300", data_scale=f"{scale:g}",
                   xmlns="http://www.w3.org/2000/svg")
    figure = el("figure", el("figcaption", text(title)) + chart, class_="chart")
    figures = [figure]
    if difficulty != "easy":  # other periods' charts before and after
        figures = place_twins(rng, figures, figure, lambda: el("figure", el("figcaption", text(
            f"{title} ({rng.pick(('last year', 'forecast', 'two years ago'))})")) + el("svg", "".join(
                el("rect", "", class_="bar", x=str(10 + 30 * i), y="0", width="24", height=str(rng.randint(3, 120)))
                for i in range(3)), data_scale="1"), class_="chart"))
    query = (f'The figure captioned "{title}" holds a bar chart. Each visible bar is an SVG rect with class "bar" whose '
             'height is its value times the number in the svg\'s data-scale attribute. List the values from left to '
             "right (by x), as numbers. If the chart's values are not in the page's HTML, abstain with the reason.")
    return Draft(single_page(rng, difficulty, "Statistics", el("h1", "Statistics") + "\n".join(figures)), query,
                 {"chart": title}, "list", abstain("image") if as_image else values)


for _a in (
    Archetype("limit_image_text", "limits", "a promo code that is often only in a banner image (abstain: image)",
              "60/65/70% answerable via alt text or caption; medium: other seasons' codes hidden before and after (also "
              "in unanswerable items), an expired code elsewhere", limit_image_text, can_abstain=True),
    Archetype("limit_canvas", "limits", "a chart value drawn on a canvas from fetched data (abstain: canvas)",
              "60/65/70% carry a fallback table; medium: other charts with tables before and after", limit_canvas,
              can_abstain=True),
    Archetype("limit_js_required", "limits", "reviews loaded by JavaScript (abstain: javascript)",
              "60/65/70% server-rendered; medium: a hidden template review (also in unanswerable items); hard: staff "
              "names in a Q&A",
              limit_js_required, can_abstain=True),
    Archetype("limit_pdf_embed", "limits", "a figure of a report shown as an embedded PDF (abstain: pdf)",
              "embed, object or iframe; 60/65/70% with an HTML key-figures table; medium: other years' reports "
              "before and after, hidden restated rows", limit_pdf_embed, can_abstain=True),
    Archetype("svg_chart", "limits", "bar values read from SVG geometry (height / data-scale), left to right",
              "3-5/4-6/5-8 bars; medium: grid lines, a hidden bar, other charts before and after, 20% an external SVG "
              "image (abstain: image); hard: bars drawn out of order", svg_chart, can_abstain=True),
):
    register(_a)
