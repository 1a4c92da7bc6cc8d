"""Extraction family: text by id or class, attributes, links, images.

From medium difficulty up every task has a hidden twin of its target (same
id, class or text) placed before it, and near-miss decoys around it, so the
first match a lazy scraper takes is wrong.
"""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, around_target, base_url, el, money, page, place_twins, single_page, site, text
from rlvr_core.envs.web.task import Archetype, Draft, register

_one_page = single_page


def _phrase(rng: Rng, difficulty: str) -> tuple[str, str]:
    """(html, plain text) of a short product phrase; inline markup and odd whitespace from medium up."""
    a, b, c = rng.sample(vocab.FEATURES, 3)
    words = [f"{rng.pick(vocab.ADJECTIVES)} design with", a, f"and {b}, plus", c]
    if rng.random() < 0.5:
        words[0] = f"{rng.pick(vocab.BRANDS)} quality: {words[0]}"
    plain = " ".join(words)
    if difficulty == "easy":
        return text(plain), plain
    gap = " " if difficulty == "medium" else "\n        "
    inner = gap.join([text(words[0]), el("strong", text(words[1])), text(words[2]), el("em", text(words[3]))])
    if difficulty == "hard":
        inner = "\n      " + inner.replace(" and ", " and&nbsp;", 1) + "\n    "
    return inner, plain


def text_by_id(rng: Rng, difficulty: str) -> Draft:
    ident = f"{rng.pick(('tagline', 'delivery-note', 'stock-message', 'care-note', 'summary'))}-{rng.pick(('main', 'primary', 'v2', 'top'))}"
    inner, plain = _phrase(rng, difficulty)
    target = el("p", inner, id=ident, class_="lead")
    parts, twin = [el("h1", text(rng.product_name())), target], None
    if difficulty != "easy":
        twin = lambda: el("p", text(_phrase(rng, "easy")[1]), id=ident, hide=rng.hide(difficulty))  # noqa: E731
        parts += [el("p", text(_phrase(rng, "easy")[1]), id=f"{ident}-old"),
                  el("div", text(_phrase(rng, "easy")[1]), class_=ident)]
    if difficulty == "hard":
        parts += [el("span", text(_phrase(rng, "easy")[1]), data_id=ident, aria_describedby=ident),
                  el("p", text(_phrase(rng, "easy")[1]), id=f"{ident}s")]
    main = el("article", "\n".join(around_target(rng, parts, target, twin)), class_="product-detail")
    query = (f'What text does the visible element with id "{ident}" contain? Give its text content with runs of '
             f"whitespace collapsed to single spaces.")
    return Draft(_one_page(rng, difficulty, "Product", main), query, {"id": ident}, "text", plain)


_CLASS_VALUES = {
    "price-now": lambda rng: money(rng.price()),
    "stock-level": lambda rng: f"{rng.randint(2, 40)} left in stock",
    "ship-time": lambda rng: f"Ships in {rng.randint(1, 9)} days",
    "badge-text": lambda rng: f"{rng.pick(('New arrival', 'Best seller', 'Staff pick', 'Limited edition'))} "
                              f"#{rng.randint(2, 99)}",
}


def text_by_class(rng: Rng, difficulty: str) -> Draft:
    cls = rng.pick(sorted(_CLASS_VALUES))
    names = rng.distinct(rng.product_name, {"easy": 3, "medium": 5, "hard": 8}[difficulty])
    target = rng.randrange(len(names)) if difficulty == "easy" else rng.randrange(1, len(names) - 1)
    cards, expected = [], ""
    for i, name in enumerate(names):
        value = _CLASS_VALUES[cls](rng)
        expected = value if i == target else expected
        own_class = cls if difficulty != "hard" else f"{rng.pick(('price', 'info', 'meta'))} {cls} js-live"
        shown = el("p", text(value), class_=own_class)
        body = [el("h3", text(name), class_="card-title"), shown]
        if difficulty != "easy":
            body.insert(1, el("span", "Now:" if cls == "price-now" else "Info:", class_=f"{cls}-label"))
            body.append(el("p", text(_CLASS_VALUES[cls](rng)), class_=f"{cls}--strike"))
            if i == target:  # old and upcoming values, hidden, before and after the current one
                body = place_twins(rng, body, shown, lambda: el("p", text(_CLASS_VALUES[cls](rng)), class_=cls,
                                                                hide=rng.hide(difficulty)))
        if difficulty == "hard":
            body.append(el("p", text(_CLASS_VALUES[cls](rng)), class_=f"{cls}s", data_class=cls))
        cards.append(el("div", "".join(body), class_="product-card"))
    main = el("section", el("h2", "Products") + el("div", "\n".join(cards), class_="grid"), class_="listing")
    query = f'In the product card titled "{names[target]}", what is the text of the visible element with class "{cls}"?'
    return Draft(_one_page(rng, difficulty, "Products", main), query, {"card": names[target], "class": cls},
                 "text", expected)


def attribute(rng: Rng, difficulty: str) -> Draft:
    kind = rng.pick(("button", "link", "image"))
    hard = difficulty == "hard"
    twin = None
    if kind == "button":
        sku, others = rng.code("SKU-"), rng.distinct(lambda: rng.code("SKU-"), 4)
        target = el("button", "Add to cart", type="button", class_="btn btn-primary", data_sku=sku)
        parts = [el("h1", text(rng.product_name())), target,
                 el("button", "Add to wishlist", type="button", class_="btn", data_sku=others[0])]
        if difficulty != "easy":  # the sticky bar's copy of the button, hidden until the page scrolls
            twin = lambda: el("div", el("button", "Add to cart", data_sku=rng.code("SKU-")),  # noqa: E731
                              class_="sticky-bar", hide=rng.hide(difficulty))
        related = "".join(el("div", el("h3", text(rng.product_name())) + el("button", "Add to cart", data_sku=o),
                              class_="card") for o in others[2:]) if difficulty != "easy" else ""
        main = el("div", "".join(around_target(rng, parts, target, twin)), id="product-main") + \
            el("section", related, class_="related")
        query = ('What is the value of the data-sku attribute of the visible "Add to cart" button inside the '
                 'element with id "product-main"?')
        params = {"tag": "button", "match": "Add to cart", "attr": "data-sku", "scope": "#product-main"}
        return Draft(_one_page(rng, difficulty, "Product", main), query, params, "url", sku)
    if kind == "link":
        fmt = rng.pick(("PDF", "HTML", "ZIP"))
        label = f"Download the manual ({fmt})"
        href = f"/files/{rng.token(6)}/manual-{rng.randint(2, 9)}.{fmt.lower()}" + (
            f"?rev={rng.randint(1, 9)}&lang=en" if hard else "")
        target = el("li", el("a", text(label), href=href))
        parts = [target] + [el("li", el("a", text(t), href=h)) for t, h in (
            (f"Download the quick guide ({fmt})", f"/files/{rng.token(6)}/guide.{fmt.lower()}"),
            ("Download the manual (print)", f"/files/{rng.token(6)}/print.pdf"))]
        if difficulty != "easy":  # last year's manual, hidden
            twin = lambda: el("li", el("a", text(label), href=f"/files/old/{rng.token(6)}.pdf"),  # noqa: E731
                              hide=rng.hide(difficulty))
        main = el("section", el("h2", "Downloads") + el("ul", "".join(around_target(rng, parts, target, twin))),
                  class_="downloads")
        query = f'What is the href of the visible link whose text is "{label}"? Give it exactly as written.'
        params = {"tag": "a", "match": label, "attr": "href"}
        return Draft(_one_page(rng, difficulty, "Downloads", main), query, params, "url", href)
    name = rng.product_name()
    alt = f"{name} in {rng.pick(vocab.COLORS)}"
    src = f"/img/{rng.token(8)}-{rng.randint(300, 1200)}.jpg"
    target = el("img", src=src, alt=alt)
    parts = [target, el("img", src=f"/img/{rng.token(8)}.jpg", alt=f"{alt} thumbnail"),
             el("img", src=f"/img/{rng.token(8)}.jpg", alt=f"{name} box contents")]
    if difficulty != "easy":  # the lazy-loading placeholder with the same alt, hidden
        twin = lambda: el("img", src=f"/img/placeholder-{rng.token(4)}.jpg", alt=alt,  # noqa: E731
                          hide=rng.hide(difficulty))
    main = el("figure", "".join(around_target(rng, parts, target, twin)) + el("figcaption", text(name)),
              class_="media")
    query = f'What is the src of the visible image whose alt text is "{alt}"? Give it exactly as written.'
    params = {"tag": "img", "match_attr": "alt", "match": alt, "attr": "src"}
    return Draft(_one_page(rng, difficulty, "Product", main), query, params, "url", src)


_FOOTER = {
    "Resources": ("Size guide", "Care instructions", "Product manuals", "Warranty", "Recycling", "Gift cards"),
    "Company": ("About us", "Careers", "Press", "Sustainability", "Investors", "Affiliates"),
    "Support": ("Contact", "Track an order", "Returns", "Shipping", "FAQ", "Repairs"),
    "Legal": ("Terms", "Privacy", "Cookies", "Imprint", "Accessibility", "Licences"),
}


def links(rng: Rng, difficulty: str) -> Draft:
    heading = rng.pick(sorted(_FOOTER))
    columns, expected = [], []
    for name in rng.sample(sorted(_FOOTER), len(_FOOTER)):
        labels = rng.sample(_FOOTER[name], {"easy": 3, "medium": 4, "hard": 5}[difficulty])
        hrefs = [f"/{name.lower()}/{lab.lower().replace(' ', '-')}-{rng.token(3)}" for lab in labels]
        if difficulty == "hard":
            hrefs = [h if i % 2 else f"https://help.example.org{h}?src=footer&v={rng.randint(1, 9)}"
                     for i, h in enumerate(hrefs)]
        anchors = [el("a", (el("span", "", class_="icon", aria_hidden="true") + " " if difficulty != "easy" else "")
                      + text(lab), href=h) for lab, h in zip(labels, hrefs)]
        if difficulty != "easy":
            anchors.insert(1, el("a", "", id=f"{name.lower()}-anchor"))  # an anchor without href is not a link
            anchors.insert(rng.randint(0, len(anchors)), el("a", text("Old catalogue"), href=f"/archive/{rng.token(5)}",
                                                            hide=rng.hide(difficulty)))
        body = "".join(el("li", a) for a in anchors)
        if difficulty == "hard":
            body = el("li", el("ul", body, class_="sub"))
        columns.append(el("div", el("h4", text(name)) + el("ul", body), class_="footer-col"))
        if name == heading:
            expected = [{"text": lab, "href": h} for lab, h in zip(labels, hrefs)]
    if difficulty != "easy":  # last season's footer column with the same heading, hidden, first
        old = "".join(el("li", el("a", text(lab), href=f"/old/{rng.token(4)}")) for lab in _FOOTER[heading][:2])
        columns.insert(0, el("div", el("h4", text(heading)) + el("ul", old), class_="footer-col",
                             hide=rng.hide(difficulty)))
    nav = [(lab, f"/{lab.lower().replace(' ', '-')}.html") for lab in _FOOTER[heading][:2]]
    body_end = el("footer", el("div", "".join(columns), class_="footer-grid"), class_="links-footer")
    main = el("article", el("h1", "Help centre") + el("p", text(rng.sentence())))
    pages = {"/index.html": page(rng, title="Help", main=main, difficulty=difficulty, nav=nav, body_end=body_end)}
    query = (f'List every visible link (an a element with an href) in the visible footer column headed "{heading}", '
             'in page order, as objects with the link text and the href exactly as written.')
    return Draft(site(base_url(rng), "/index.html", pages), query, {"heading": heading}, "records", expected,
                 ("text", "href"))


def images(rng: Rng, difficulty: str) -> Draft:
    count = {"easy": rng.randint(2, 4), "medium": rng.randint(3, 6), "hard": rng.randint(5, 9)}[difficulty]
    name = rng.product_name()
    entries, expected = [], []
    for i in range(count):
        src = f"/media/{rng.token(6)}/{i + 1}.{rng.pick(('jpg', 'png', 'webp'))}"
        alt = f"{name}, view {i + 1}"
        if difficulty != "easy" and i % 3 == 1:
            alt = None
        if difficulty != "easy" and i % 3 == 2:
            alt = ""
        tag = el("img", src=src, alt=alt, loading="lazy" if difficulty == "hard" else None)
        if difficulty == "hard" and i % 2 == 0:
            tag = el("picture", el("source", srcset=src.rsplit(".", 1)[0] + ".avif", type="image/avif") + tag)
        if difficulty == "hard":
            tag = el("figure", tag + el("figcaption", text(f"Photo {i + 1}")))
        entries.append(tag)
        expected.append({"src": src, "alt": alt})
    if difficulty != "easy":  # the zoom viewer's image, hidden until opened
        entries.insert(rng.randint(0, len(entries)), el("img", src=f"/media/zoom/{rng.token(6)}.jpg", alt=name,
                                                        hide=rng.hide(difficulty)))
    gallery = el("div", "\n".join(entries), class_="gallery")
    related = el("section", "".join(el("img", src=f"/thumbs/{rng.token(5)}.jpg", alt=rng.product_name())
                                    for _ in range(2)), class_="related") if difficulty != "easy" else ""
    main = el("h1", text(name)) + gallery + related
    pixel = el("img", src=f"/t.gif?id={rng.token(8)}", width="1", height="1", alt="")
    pages = {"/index.html": page(rng, title=name, main=main, difficulty=difficulty, body_end=pixel)}
    query = ('List the visible images (img elements) inside the element with class "gallery", in page order, as '
             'objects with the src attribute exactly as written and the alt attribute; use null for an image without '
             'an alt attribute and "" for an empty one.')
    return Draft(site(base_url(rng), "/index.html", pages), query, {}, "records", expected, ("src", "alt"))


for _a in (
    Archetype("text_by_id", "extraction", "text of the visible element with a given id",
              "easy: one target; medium: hidden twins with the same id before and after it, inline children, '-old' id, class "
              "with the same name; hard: + data-id/aria decoys, newlines and &nbsp; inside the text", text_by_id),
    Archetype("text_by_class", "extraction", "text of the element with a class inside one product card",
              "cards 3/5/8; medium: the target card is neither first nor last, hidden old values with the class "
              "before and after, '-label' and '--strike' near misses; hard: multi-class target, data-class and "
              "plural-class decoys",
              text_by_class),
    Archetype("attribute", "extraction", "an attribute (data-sku, href, src) of one element",
              "easy: few candidates; medium: hidden twins before and after (sticky bar, old file, placeholder), related "
              "duplicates; hard: query strings with &", attribute),
    Archetype("links", "extraction", "every visible link of one footer column as {text, href}",
              "3/4/5 links; medium: a hidden old column with the same heading first, a hidden link inside, icon "
              "spans, an anchor without href; hard: nested lists, absolute URLs with query strings", links),
    Archetype("images", "extraction", "the gallery's visible images as {src, alt}, null for a missing alt",
              "2-4/3-6/5-9 images; medium: a hidden zoom image, missing and empty alts, related thumbnails; hard: "
              "picture/source, figures, tracking pixel", images),
):
    register(_a)
