"""Parsers family: markup that html.parser and a browser (html5lib) build into different trees, and tag soup that
every parser reads the same way.

- parser_differences: unclosed paragraphs and block elements opened inside a paragraph. A browser closes the
  paragraph; html.parser nests what follows inside it, so the paragraphs' texts differ. The task names the parser
  (html5lib); from medium up the two parsers always disagree on the answer.
- broken_markup: unquoted and upper-case attributes, unclosed list items, entities without a semicolon, stray end
  tags; the solver checks that html.parser, lxml and html5lib agree. From medium up a hidden deal comes first.
"""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, el, money, single_page, text
from rlvr_core.envs.web.task import Archetype, Draft, register


def _block(rng: Rng) -> tuple[str, str]:
    """(html, its text) of a block element that closes an open paragraph in a browser."""
    kind = rng.randrange(3)
    if kind == 0:
        items = [rng.pick(vocab.FEATURES) for _ in range(2)]
        return "<ul>" + "".join(f"<li>{text(i)}</li>" for i in items) + "</ul>", " ".join(items)
    if kind == 1:
        cell = rng.code()
        return f"<table><tr><td>{cell}</td></tr></table>", cell
    note = rng.sentence()
    return f"<div class=\"note\">{text(note)}</div>", note


def parser_differences(rng: Rng, difficulty: str) -> Draft:
    ident = rng.pick(("description", "story", "details", "notes"))
    n = {"easy": rng.randint(2, 3), "medium": rng.randint(3, 4), "hard": rng.randint(4, 6)}[difficulty]
    texts = [f"{rng.sentence()[:-1]} ({rng.code()})" for _ in range(n)]
    markup = []
    for i, t in enumerate(texts):
        if difficulty == "easy":
            markup.append(f"<p>{text(t)}</p>")
            continue
        style = rng.randrange(3)
        if style == 0:
            markup.append(f"<p>{text(t)}")  # unclosed: the next <p> closes it in a browser
        elif style == 1:
            block, _ = _block(rng)
            markup.append(f"<p>{text(t)}{block}")  # a block opened inside the paragraph
        else:
            markup.append(f"<p>{text(t)}</p>")
    if difficulty != "easy":
        markup[0] = f"<p>{text(texts[0])}"  # at least one unclosed paragraph with others after it
    main = el("h1", text(rng.product_name())) + el("div", "\n".join(markup), id=ident)
    query = (f'Parse the page as a web browser does (BeautifulSoup(HTML, "html5lib")) and list the text of every p '
             f'element inside the element with id "{ident}", in document order, with runs of whitespace collapsed.')
    return Draft(single_page(rng, difficulty, "Product story", main), query, {"id": ident}, "list", texts)


def broken_markup(rng: Rng, difficulty: str) -> Draft:
    deals, items = [], []
    for _ in range({"easy": 2, "medium": rng.randint(3, 4), "hard": rng.randint(4, 6)}[difficulty]):
        a, b = rng.sample(vocab.NOUNS, 2)
        title, price = f"{a} &amp {b}", money(rng.price())
        deals.append({"title": f"{a} & {b}", "price": price})
        if difficulty == "easy":
            items.append(f'<li class="deal"><span class="deal-title">{text(a)} &amp; {text(b)}</span> '
                         f'<span class="deal-price">{price}</span></li>')
        else:
            close = "" if rng.random() < 0.5 else "</li>"
            items.append(f"<LI CLASS=deal><B CLASS=deal-title>{title}</b></i> <span class=deal-price>{price}"
                         f"</SPAN>{close}")
    if difficulty != "easy":  # an expired deal, hidden, closed so it cannot swallow the ones after it
        items.insert(0, f'<li class="deal" hidden><span class="deal-title">Expired</span> '
                        f'<span class="deal-price">{money(rng.price())}</span></li>')
    main = el("h2", "Today's deals") + "<ul class=deals>" + "\n".join(items) + "</ul>"
    query = ('List the visible deals (elements with class "deal" inside the element with class "deals") as objects '
             'with "title" (the text of its element with class "deal-title") and "price" (the text of its element '
             "with class \"deal-price\"), in page order. The markup is sloppy; read it as any HTML parser would.")
    return Draft(single_page(rng, difficulty, "Deals", main), query, {}, "records", deals, ("title", "price"))


for _a in (
    Archetype("parser_differences", "parsers", "paragraph texts as a browser (html5lib) parses sloppy markup",
              "2-3/3-4/4-6 paragraphs; medium/hard: unclosed paragraphs and blocks opened inside them",
              parser_differences),
    Archetype("broken_markup", "parsers", "records from tag soup every parser reads alike",
              "2/3-4/4-6 deals; medium/hard: upper-case tags, unquoted attributes, unclosed li, '&amp' without ';', "
              "stray end tags, a hidden deal first", broken_markup),
):
    register(_a)
