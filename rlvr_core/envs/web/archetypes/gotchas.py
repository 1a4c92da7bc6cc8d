"""BeautifulSoup-gotchas family: what trips up a first program (multi-valued and reserved-word classes, `.string`
on an element with children, missing fields that make `.text` raise on None, whitespace text nodes between
siblings, the parent of a text node, script and style text inside an element).

From medium difficulty up each task also has hidden twins of its target before and after it.
"""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, around_target, el, money, place_twins, single_page, text
from rlvr_core.envs.web.task import Archetype, Draft, register


def multivalue_class(rng: Rng, difficulty: str) -> Draft:
    cls = rng.pick(("featured", "on-sale", "bestseller", "eco"))
    n = {"easy": rng.randint(4, 6), "medium": rng.randint(6, 9), "hard": rng.randint(9, 13)}[difficulty]
    names = rng.distinct(rng.product_name, n)
    cards, expected = [], []
    for i, name in enumerate(names):
        hit = i % 3 == 0 or rng.random() < 0.25
        if hit:
            classes = ["card", cls, rng.pick(("shadow-sm", "p-2", "rounded"))]
            rng.shuffle(classes)
            expected.append(name)
        else:
            near = rng.pick((f"{cls}-soon", f"not-{cls}", f"{cls}s", "plain"))
            classes = ["card", near] if difficulty != "easy" else ["card"]
        inner = el("h3", text(name)) + el("div", text(rng.sentence()), class_="card-body")
        if difficulty == "hard" and not hit:
            inner += el("span", "Featured soon", class_=cls)  # the class on a child, not on the card
        cards.append(el("div", inner, class_=" ".join(classes), data_tag=cls if difficulty == "hard" else None))
    if difficulty != "easy":  # a sold-out card, hidden
        cards.insert(rng.randint(0, len(cards)), el("div", el("h3", text(rng.product_name())), class_=f"card {cls}",
                                                    hide=rng.hide(difficulty)))
    main = el("section", el("h2", "Collection") + "\n".join(cards), class_="collection")
    query = (f'List the titles (the h3 text) of every visible element with class "card" that also has the class '
             f'"{cls}", in page order.')
    return Draft(single_page(rng, difficulty, "Collection", main), query, {"class": cls}, "list", expected)


def reserved_class(rng: Rng, difficulty: str) -> Draft:
    kw = rng.pick(vocab.RESERVED_CLASSES)
    value = f"{rng.sentence()} Reference {rng.code()}."
    others = [k for k in vocab.RESERVED_CLASSES if k != kw]
    target = el("p", text(value), class_=kw if difficulty != "hard" else f"note {kw}")
    decoy_classes = [f"{kw}s", f"{kw}-policy"] + rng.sample(others, 2)
    if difficulty != "easy":
        decoy_classes += [f"no-{kw}", f"{kw}_"] + rng.sample(others, 2)
    blocks = [target] + [el("p", text(f"{rng.sentence()} Reference {rng.code()}."), class_=c) for c in decoy_classes]
    twin = (lambda: el("p", text(f"{rng.sentence()} Reference {rng.code()}."), class_=kw, hide=rng.hide(difficulty))) \
        if difficulty != "easy" else None
    main = el("section", el("h1", "Store policies") + "\n".join(around_target(rng, blocks, target, twin)),
              class_="policies")
    query = f'What is the text of the visible element that has the class "{kw}"?'
    return Draft(single_page(rng, difficulty, "Policies", main), query, {"class": kw}, "text", value)


def string_none(rng: Rng, difficulty: str) -> Draft:
    """The summary has child elements, so `.string` is None and only `get_text` gives its text."""
    cls = rng.pick(("spec-summary", "delivery-info", "offer-terms", "warranty-note"))
    pieces = [f"{rng.pick(vocab.ADJECTIVES)} model", f"{rng.randint(2, 48)}-month warranty",
              f"ships from {rng.pick(vocab.CITIES)}", f"code {rng.code()}"]
    inner = f"{text(pieces[0])} {el('strong', text(pieces[1]))} {text(pieces[2])}"
    plain = " ".join(pieces[:3])
    if difficulty != "easy":
        inner += " " + el("span", el("em", text(pieces[3])), class_="badge")
        plain += " " + pieces[3]
    target = el("div", inner, class_=cls)
    parts = [el("h1", text(rng.product_name())), target, el("p", text(rng.sentence()), class_=f"{cls}-footnote")]
    twin = (lambda: el("div", text(rng.sentence()), class_=cls, hide=rng.hide(difficulty))) if difficulty != "easy" else None
    if difficulty == "hard":
        parts.append(el("div", el("p", text(pieces[0])), class_=f"{cls}s"))
    main = el("article", "\n".join(around_target(rng, parts, target, twin)), class_="product")
    query = (f'What is the full text of the visible element with class "{cls}", including the text of its child '
             "elements, with runs of whitespace collapsed to single spaces?")
    return Draft(single_page(rng, difficulty, "Product", main), query, {"class": cls}, "text", plain)


_LISTING_FIELDS = ("name", "price", "rating", "seller")


def missing_fields(rng: Rng, difficulty: str) -> Draft:
    fields = list(_LISTING_FIELDS[: {"easy": 3, "medium": 3, "hard": 4}[difficulty]])
    cards, expected = [], []
    for i in range(rng.randint(3, 6) if difficulty != "hard" else rng.randint(5, 8)):
        record = {"name": rng.product_name(), "price": money(rng.price()), "rating": f"{rng.randint(10, 50) / 10:.1f}",
                  "seller": rng.person()}
        shown = {f: record[f] for f in fields if f == "name" or rng.random() > 0.3}
        body = "".join(el("span", text(shown[f]), class_=f"f-{f}") for f in fields if f in shown)
        if difficulty == "hard" and "price" not in shown:
            body += el("span", "Price on request", class_="f-price-note")
        cards.append(el("div", body, class_="listing"))
        expected.append({f: shown.get(f) for f in fields})
    if difficulty != "easy":  # the card the page's script clones, hidden
        cards.insert(rng.randint(0, len(cards)), el("div", "".join(el("span", "—", class_=f"f-{f}") for f in fields),
                                                    class_="listing", hide=rng.hide(difficulty)))
    main = el("div", "\n".join(cards), class_="listing-grid")
    keys = ", ".join(f'"{f}"' for f in fields)
    query = (f'For each visible element with class "listing" inside the element with class "listing-grid", give an '
             f'object with the keys {keys}: the text of its visible element with class "f-<key>" (for example '
             f'"f-price"), or null when the listing has no such element. In page order.')
    return Draft(single_page(rng, difficulty, "Listings", main), query, {"fields": fields}, "records", expected,
                 tuple(fields))


def whitespace_sibling(rng: Rng, difficulty: str) -> Draft:
    """A dt's value is its next sibling element, with whitespace text nodes (and comments) in between."""
    specs = {"Weight": f"{rng.uniform(0.2, 9):.1f} kg", "Battery": f"{rng.randint(10, 60) * 100} mAh",
             "Made in": rng.pick(vocab.CITIES), "Warranty": f"{rng.randint(1, 5)} years",
             "Model": rng.code(), "Colour": rng.pick(vocab.COLORS)}
    label = rng.pick(sorted(specs))
    gap = "\n    " if difficulty == "easy" else "\n    <!-- value -->\n    "
    ident = rng.pick(("tech-specs", "product-specs", "details-list"))

    def dl(values: dict[str, str], hide: str | None = None, **kw) -> str:
        return el("dl", "".join(f"\n  {el('dt', text(k))}{gap}{el('dd', text(v))}" for k, v in values.items()),
                  hide=hide, **kw)

    target = dl(specs, id=ident)
    lists = [target]
    if difficulty != "easy":  # stale lists with the same id, hidden, before and after; the accessories' list
        lists.append(dl({label: "see box", **{k: specs[k] for k in list(specs)[:2]}}, id=f"{ident}-accessories"))
        lists = place_twins(rng, lists, target, lambda: dl({k: f"{v} ({rng.pick(('old', 'draft', 'v1'))})"
                                                            for k, v in specs.items()},
                                                           hide=rng.hide(difficulty), id=ident))
    main = el("h1", text(rng.product_name())) + "\n".join(lists)
    query = (f'In the visible description list with id "{ident}", what is the value (the dd element) that follows '
             f'the term "{label}"?')
    return Draft(single_page(rng, difficulty, "Specifications", main), query, {"list": ident, "label": label}, "text",
                 specs[label])


_PARENTS = (("p", "intro"), ("span", "note"), ("div", "callout"), ("li", "feature"), ("em", "highlight"),
            ("td", "cell-copy"), ("blockquote", "quote"))


def text_parent(rng: Rng, difficulty: str) -> Draft:
    """Which element holds a given text directly (a NavigableString's parent), not a comment or script with it."""
    sentence = f"{rng.pick(vocab.FILLER)[:-1]} (ref {rng.code()})."
    tag, base = rng.pick(_PARENTS)
    cls = f"{base} {base}--{rng.randint(1, 40)}"
    if difficulty != "easy":
        cls += f" {rng.pick(('is-active', 'text-sm', 'u-bold', 'm-0'))}"
    wrap = {"li": lambda x: el("ul", x), "td": lambda x: el("table", el("tr", x))}.get(tag, lambda x: x)
    target = wrap(el(tag, text(sentence), class_=cls))
    parts = [el("h2", text(rng.pick(vocab.SECTION_TITLES))), target, el("p", text(rng.sentence()))]
    copies = [lambda: f"<!-- {sentence} -->",
              lambda: el("div", el("p", text(sentence), class_="draft"), hide=rng.hide(difficulty))]
    twin = (lambda: rng.pick(copies)()) if difficulty != "easy" else None  # the text where no element shows it
    if difficulty == "hard":
        parts += [el("script", f"window.copy = {sentence!r};") for _ in range(2)]
    main = el("section", "\n".join(around_target(rng, parts, target, twin)), class_="content")
    query = (f'Which visible element directly contains the text "{sentence}"? Answer with an object: "tag" its tag '
             'name and "class" its class attribute exactly as written ("" when it has none).')
    return Draft(single_page(rng, difficulty, "Article", main), query, {"text": sentence}, "object",
                 {"tag": tag, "class": cls}, ("tag", "class"))


def script_free_text(rng: Rng, difficulty: str) -> Draft:
    """get_text() also returns script, style and noscript text: the visible text needs them left out."""
    ident = rng.pick(("price-box", "hero", "promo-panel", "offer"))
    words = [f"{rng.pick(vocab.ADJECTIVES)} {rng.pick(vocab.NOUNS)}", f"now {money(rng.price())}",
             f"save {rng.randint(5, 60)}%", f"until {rng.pick(('Friday', 'Sunday', 'midnight', 'the 30th'))}"]
    noise = [el("script", f"track('{rng.token(6)}', {{price: {rng.price()}}});"),
             el("style", f"#{ident} .x{{color:#{rng.token(6, '0123456789abcdef')}}}")]
    if difficulty != "easy":
        noise += [el("noscript", "Enable JavaScript for live prices."),
                  el("span", text(f"was {money(rng.price())}"), hide=rng.hide(difficulty))]
    if difficulty == "hard":
        noise.append(el("template", el("p", text(f"now {money(rng.price())}"))))
    pieces = [(el("span", text(w)), w) for w in words] + [(n, "") for n in noise]
    rng.shuffle(pieces)
    visible_words = [w for _, w in pieces if w]
    target = el("div", " ".join(html for html, _ in pieces), id=ident)
    main = el("h1", "Deals") + target
    query = (f'What text does a visitor see in the element with id "{ident}"? Leave out the content of script, style, '
             "noscript and template elements and of hidden elements; collapse runs of whitespace to single spaces.")
    return Draft(single_page(rng, difficulty, "Deals", main), query, {"id": ident}, "text", " ".join(visible_words))


for _a in (
    Archetype("multivalue_class", "gotchas", "cards whose multi-valued class includes a token",
              "4-6/6-9/9-13 cards; medium: near-miss class tokens, a hidden card; hard: + the class on a child and "
              "in data-tag", multivalue_class),
    Archetype("reserved_class", "gotchas", "text of the element whose class is a Python keyword (class_=)",
              "easy: 4 decoys; medium: 8 near-miss classes and hidden twins before and after; hard: target has two classes",
              reserved_class),
    Archetype("string_none", "gotchas", "full text of an element with children (.string is None)",
              "easy: one child; medium: nested badge, hidden twins before and after; hard: + plural-class decoy", string_none),
    Archetype("missing_fields", "gotchas", "listings as records with null for fields a listing lacks",
              "3 fields/3-6 listings; medium: a hidden template listing; hard: 4 fields, 5-8 listings, "
              "'Price on request' notes", missing_fields),
    Archetype("whitespace_sibling", "gotchas", "the dd after a dt with whitespace (and comments) between",
              "easy: whitespace; medium: comments between, hidden stale lists with the same id before and after, an "
              "accessories list", whitespace_sibling),
    Archetype("text_parent", "gotchas", "tag and class of the element that directly contains a text",
              "easy: one copy; medium: the same text before and after in comments and hidden drafts; hard: + in "
              "scripts",
              text_parent),
    Archetype("script_free_text", "gotchas", "visible text of an element that also holds script and style",
              "easy: script and style; medium: + noscript and a hidden old price; hard: + a template", script_free_text),
):
    register(_a)
