"""Solvers of the limits family: what the HTML cannot hold (an image, a canvas, a script, a PDF) is an abstention
with its reason, unless the page carries the same data as text; SVG geometry is data BeautifulSoup can read."""

import re

from .common import abstain, keep, one, price, soup_of, text_of, visible

_CODE = re.compile(r"\b[A-Z]{2}-\d{4}\b")


def limit_image_text(fetch, start, p):
    banner = one(visible(soup_of(fetch(start)).select(".promo-banner")), "promo banner")
    texts = [str(s) for s in visible(banner.find_all(string=True))]
    texts += [img.get("alt", "") + " " + img.get("title", "") for img in visible(banner.find_all("img"))]
    codes = list(dict.fromkeys(c for t in texts for c in _CODE.findall(t)))
    if codes:
        return one(codes, "promo code")
    return abstain("image") if banner.find("img") else abstain("not_present")


def limit_canvas(fetch, start, p):
    page = soup_of(fetch(start))
    figure = one(keep(visible(page.select("figure.chart")), lambda f: text_of(f.figcaption) == p["chart"]), "chart")
    table = figure.find("table")
    if table is not None:
        return max(price(text_of(td)) for td in visible(table.select("td.value")))
    return abstain("canvas") if figure.find("canvas") else abstain("not_present")


def limit_js_required(fetch, start, p):
    box = one(visible(soup_of(fetch(start)).find_all(id="reviews")), "reviews box")
    names = [text_of(t) for t in visible(box.select(".reviewer"))]
    if names:
        return names
    return abstain("javascript") if box.has_attr("data-src") or box.find("script") else abstain("not_present")


def limit_pdf_embed(fetch, start, p):
    page = soup_of(fetch(start))
    report = one(keep(visible(page.select("section.report")), lambda s: text_of(s.find("h2")) == p["report"]), "report")
    rows = keep(visible(report.select("tr")), lambda r: r.th is not None and text_of(r.th) == p["figure"])
    if rows:
        return price(text_of(one(rows, "row %r" % p["figure"]).td))
    embedded = report.find(["embed", "object", "iframe"])
    return abstain("pdf") if embedded is not None else abstain("not_present")


def svg_chart(fetch, start, p):
    page = soup_of(fetch(start))
    figure = one(keep(visible(page.select("figure.chart")), lambda f: text_of(f.figcaption) == p["chart"]), "chart")
    svg = figure.find("svg")
    if svg is None:
        return abstain("image") if figure.find("img") else abstain("not_present")
    scale = float(svg["data-scale"])
    bars = keep(visible(svg.find_all("rect")), lambda r: "bar" in r.get("class", []))
    return [round(float(r["height"]) / scale) for r in sorted(bars, key=lambda r: float(r.get("x", 0)))]


SOLVERS = {"limit_image_text": limit_image_text, "limit_canvas": limit_canvas, "limit_js_required": limit_js_required,
           "limit_pdf_embed": limit_pdf_embed, "svg_chart": svg_chart}
