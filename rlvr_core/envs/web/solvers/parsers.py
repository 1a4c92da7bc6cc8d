"""Solvers of the parsers family: the tree a browser builds (html5lib) from tag soup, and tag soup every parser reads
the same way."""

from .common import is_lazy, one, soup_of, text_of, visible

PARSERS = ("html.parser", "lxml", "html5lib")


def parser_differences(fetch, start, p):
    page = soup_of(fetch(start), "html.parser" if is_lazy() else "html5lib")
    box = one(visible(page.find_all(id=p["id"])), "element #%s" % p["id"])
    return [text_of(par) for par in box.find_all("p")]


def _deals(html, parser):
    box = one(visible(soup_of(html, parser).select(".deals")), "deals list")
    return [{"title": text_of(li.select_one(".deal-title")), "price": text_of(li.select_one(".deal-price"))}
            for li in visible(box.select(".deal"))]


def broken_markup(fetch, start, p):
    html = fetch(start)
    answers = [_deals(html, parser) for parser in (PARSERS[:1] if is_lazy() else PARSERS)]
    if any(a != answers[0] for a in answers):
        raise ValueError("the parsers disagree on this markup")
    return answers[0]


SOLVERS = {"parser_differences": parser_differences, "broken_markup": broken_markup}
