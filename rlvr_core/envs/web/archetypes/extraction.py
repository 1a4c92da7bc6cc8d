"""Extraction family: text by id or class, attributes, links, images, tables, multi-valued and reserved-word classes."""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, base_url, el, money, page, site, text
from rlvr_core.envs.web.task import Archetype, Draft, register

HIDE = "display:none"


def _one_page(rng: Rng, difficulty: str, title: str, main: str, **kw) -> dict:
    url = base_url(rng)
    return site(url, "/index.html", {"/index.html": page(rng, title=title, main=main, difficulty=difficulty, **kw)})


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
    parts = [el("h1", text(rng.product_name())), el("p", inner, id=ident, class_="lead")]
    if difficulty != "easy":
        parts.insert(0, el("p", text(_phrase(rng, "easy")[1]), id=f"{ident}-old", style=HIDE))
        parts.append(el("div", text(_phrase(rng, "easy")[1]), class_=ident))
    if difficulty == "hard":
        parts.append(el("span", text(_phrase(rng, "easy")[1]), data_id=ident, aria_describedby=ident))
        parts.insert(1, el("p", text(_phrase(rng, "easy")[1]), id=f"{ident}s"))
    rng.shuffle(parts)
    main = el("article", "\n".join(parts), class_="product-detail")
    query = (f'What text does the element with id "{ident}" contain? Give its text content with runs of '
             f"whitespace collapsed to single spaces.")
    return Draft(_one_page(rng, difficulty, "Product", main), query, {"id": ident}, "text", plain)


_CLASS_VALUES = {
    "price-now": lambda rng: money(rng.price()),
    "stock-level": lambda rng: f"{rng.randint(2, 40)} left in stock",
    "ship-time": lambda rng: f"Ships in {rng.randint(1, 9)} days",
    "badge-text": lambda rng: rng.pick(("New arrival", "Best seller", "Staff pick", "Limited edition")),
}


def text_by_class(rng: Rng, difficulty: str) -> Draft:
    cls = rng.pick(sorted(_CLASS_VALUES))
    names = rng.distinct(rng.product_name, {"easy": 3, "medium": 5, "hard": 8}[difficulty])
    target = rng.randrange(len(names))
    cards, expected = [], ""
    for i, name in enumerate(names):
        value = _CLASS_VALUES[cls](rng)
        expected = value if i == target else expected
        own_class = cls if difficulty != "hard" else f"{rng.pick(('price', 'info', 'meta'))} {cls} js-live"
        body = [el("h3", text(name), class_="card-title"), el("p", text(value), class_=own_class)]
        if difficulty != "easy":
            body.insert(1, el("span", "Now:" if cls == "price-now" else "Info:", class_=f"{cls}-label"))
            body.append(el("p", text(_CLASS_VALUES[cls](rng)), class_=f"{cls}--strike"))
        if difficulty == "hard":
            body.append(el("p", text(_CLASS_VALUES[cls](rng)), class_=f"{cls}s", data_class=cls))
        cards.append(el("div", "".join(body), class_="product-card"))
    main = el("section", el("h2", "Products") + el("div", "\n".join(cards), class_="grid"), class_="listing")
    query = f'In the product card titled "{names[target]}", what is the text of the element with class "{cls}"?'
    return Draft(_one_page(rng, difficulty, "Products", main), query, {"card": names[target], "class": cls},
                 "text", expected)


def attribute(rng: Rng, difficulty: str) -> Draft:
    kind = rng.pick(("button", "link", "image"))
    sku, others = rng.code("SKU-"), rng.distinct(lambda: rng.code("SKU-"), 4)
    if kind == "button":
        main_parts = [el("h1", text(rng.product_name())),
                      el("button", "Add to cart", type="button", class_="btn btn-primary", data_sku=sku),
                      el("button", "Add to wishlist", type="button", class_="btn", data_sku=others[0])]
        if difficulty == "hard":
            main_parts.append(el("div", el("button", "Add to cart", data_sku=others[1]), class_="sticky-bar", style=HIDE))
        related = "".join(el("div", el("h3", text(rng.product_name())) + el("button", "Add to cart", data_sku=o),
                              class_="card") for o in others[2:]) if difficulty != "easy" else ""
        main = el("div", "".join(main_parts), id="product-main") + el("section", related, class_="related")
        query = ('What is the value of the data-sku attribute of the visible "Add to cart" button inside the '
                 'element with id "product-main"?')
        params = {"tag": "button", "match": "Add to cart", "attr": "data-sku", "scope": "#product-main"}
        return Draft(_one_page(rng, difficulty, "Product", main), query, params, "url", sku)
    if kind == "link":
        fmt = rng.pick(("PDF", "HTML", "ZIP"))
        label = f"Download the manual ({fmt})"
        href = f"/files/{rng.token(6)}/manual-{rng.randint(2, 9)}.{fmt.lower()}"
        if difficulty == "hard":
            href += f"?rev={rng.randint(1, 9)}&lang=en"
        decoys = [(f"Download the quick guide ({fmt})", f"/files/{rng.token(6)}/guide.{fmt.lower()}"),
                  ("Download the manual (print)", f"/files/{rng.token(6)}/print.pdf")]
        items = [el("li", el("a", text(label), href=href))] + [el("li", el("a", text(t), href=h)) for t, h in decoys]
        if difficulty == "hard":
            items.append(el("li", el("a", text(label), href=f"/files/old/{rng.token(6)}.pdf"), style=HIDE))
        rng.shuffle(items)
        main = el("section", el("h2", "Downloads") + el("ul", "".join(items)), class_="downloads")
        query = f'What is the href of the visible link whose text is "{label}"? Give it exactly as written.'
        params = {"tag": "a", "match": label, "attr": "href"}
        return Draft(_one_page(rng, difficulty, "Downloads", main), query, params, "url", href)
    name = rng.product_name()
    alt = f"{name} in {rng.pick(vocab.COLORS)}"
    src = f"/img/{rng.token(8)}-{rng.randint(300, 1200)}.jpg"
    imgs = [el("img", src=src, alt=alt), el("img", src=f"/img/{rng.token(8)}.jpg", alt=f"{alt} thumbnail"),
            el("img", src=f"/img/{rng.token(8)}.jpg", alt=f"{name} box contents")]
    if difficulty == "hard":
        imgs.append(el("img", src=f"/img/{rng.token(8)}.jpg", alt=alt, style=HIDE))
    rng.shuffle(imgs)
    main = el("figure", "".join(imgs) + el("figcaption", text(name)), class_="media")
    query = f'What is the src of the visible image whose alt text is "{alt}"? Give it exactly as written.'
    params = {"tag": "img", "match_attr": "alt", "match": alt, "attr": "src"}
    return Draft(_one_page(rng, difficulty, "Product", main), query, params, "url", src)


_FOOTER = {
    "Resources": ("Size guide", "Care instructions", "Product manuals", "Warranty", "Recycling"),
    "Company": ("About us", "Careers", "Press", "Sustainability", "Investors"),
    "Support": ("Contact", "Track an order", "Returns", "Shipping", "FAQ"),
    "Legal": ("Terms", "Privacy", "Cookies", "Imprint", "Accessibility"),
}


def links(rng: Rng, difficulty: str) -> Draft:
    heading = rng.pick(sorted(_FOOTER))
    count = {"easy": 3, "medium": 4, "hard": 5}[difficulty]
    columns, expected = [], []
    for name in sorted(_FOOTER):
        labels = list(_FOOTER[name][:count])
        hrefs = [f"/{name.lower()}/{lab.lower().replace(' ', '-')}" for lab in labels]
        if difficulty == "hard":
            hrefs = [h if i % 2 else f"https://help.example.org{h}?src=footer&v={rng.randint(1, 9)}"
                     for i, h in enumerate(hrefs)]
        anchors = [el("a", (el("span", "", class_="icon", aria_hidden="true") + " " if difficulty != "easy" else "")
                      + text(lab), href=h) for lab, h in zip(labels, hrefs)]
        if difficulty != "easy":
            anchors.insert(1, el("a", "", id=f"{name.lower()}-anchor"))  # an anchor without href is not a link
        body = "".join(el("li", a) for a in anchors)
        if difficulty == "hard":
            body = el("li", el("ul", body, class_="sub"))
        columns.append(el("div", el("h4", text(name)) + el("ul", body), class_="footer-col"))
        if name == heading:
            expected = [{"text": lab, "href": h} for lab, h in zip(labels, hrefs)]
    nav = [(lab, f"/{lab.lower().replace(' ', '-')}.html") for lab in _FOOTER[heading][:2]]
    body_end = el("footer", el("div", "".join(columns), class_="footer-grid"), class_="links-footer")
    main = el("article", el("h1", "Help centre") + el("p", text(rng.sentence())))
    url = base_url(rng)
    pages = {"/index.html": page(rng, title="Help", main=main, difficulty=difficulty, nav=nav, body_end=body_end)}
    query = (f'List every link (an a element with an href) in the footer column headed "{heading}", in page order, '
             'as objects with the link text and the href exactly as written.')
    return Draft(site(url, "/index.html", pages), query, {"heading": heading}, "records", expected, ("text", "href"))


def images(rng: Rng, difficulty: str) -> Draft:
    count = {"easy": 3, "medium": 4, "hard": 6}[difficulty]
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
    gallery = el("div", "\n".join(entries), class_="gallery")
    related = el("section", "".join(el("img", src=f"/thumbs/{rng.token(5)}.jpg", alt=rng.product_name())
                                    for _ in range(2)), class_="related") if difficulty != "easy" else ""
    main = el("h1", text(name)) + gallery + related
    pixel = el("img", src=f"/t.gif?id={rng.token(8)}", width="1", height="1", alt="")
    url = base_url(rng)
    pages = {"/index.html": page(rng, title=name, main=main, difficulty=difficulty, body_end=pixel)}
    query = ('List the images (img elements) inside the element with class "gallery", in page order, as objects with '
             'the src attribute exactly as written and the alt attribute; use null for an image without an alt '
             'attribute and "" for an empty one.')
    return Draft(site(url, "/index.html", pages), query, {}, "records", expected, ("src", "alt"))


_COLUMNS = {
    "Model": lambda rng: f"{rng.pick(vocab.ADJECTIVES)} {rng.randint(100, 999)}",
    "Weight": lambda rng: f"{rng.uniform(0.2, 9):.1f} kg",
    "Power": lambda rng: f"{rng.randint(5, 200) * 10} W",
    "Color": lambda rng: rng.pick(vocab.COLORS),
    "Price": lambda rng: money(rng.price()),
    "Capacity": lambda rng: f"{rng.randint(1, 40) / 2:g} L",
}


def _table_html(rng: Rng, difficulty: str, caption: str, headers: list[str], rows: list[list[str]],
                spans: dict[int, int] | None = None, display: dict[str, str] | None = None) -> str:
    display = display or {}
    hcells = "".join(el("th", text(display.get(h, h)) if difficulty != "hard" else
                        f"\n  {text(h)} " + (el("span", text(display[h][len(h):].strip()), class_="unit") if h in display else ""),
                        scope="col") for h in headers)
    body = []
    for r, row in enumerate(rows):
        cells = []
        for c, value in enumerate(row):
            if spans is not None and c == 0:
                if r not in spans:
                    continue  # covered by a rowspan above
                cells.append(el("td", text(value), rowspan=str(spans[r]) if spans[r] > 1 else None))
            elif c == 0 and difficulty == "medium":
                cells.append(el("th", text(value), scope="row"))
            else:
                cells.append(el("td", text(value)))
        body.append(el("tr", "".join(cells)))
    if difficulty == "easy":
        inner = el("caption", text(caption)) + el("tr", hcells) + "".join(body)
    else:
        inner = el("caption", text(caption)) + el("thead", el("tr", hcells)) + el("tbody", "\n".join(body))
        if difficulty == "hard":
            inner += el("tfoot", el("tr", el("td", "Prices include VAT", colspan=str(len(headers)))))
    return el("table", inner, class_="specs-table")


def table_column(rng: Rng, difficulty: str) -> Draft:
    headers = rng.sample(sorted(_COLUMNS), {"easy": 3, "medium": 4, "hard": 5}[difficulty])
    header = rng.pick(headers[1:])
    nrows = {"easy": 3, "medium": 5, "hard": 8}[difficulty]
    caption, other = rng.sample(("Specifications", "Compare models", "Technical data", "Accessories"), 2)
    rows = [[_COLUMNS[h](rng) for h in headers] for _ in range(nrows)]
    if difficulty == "hard":
        rows[rng.randrange(nrows)][headers.index(header)] = ""
    display = {h: f"{h} (per unit)" for h in headers} if difficulty == "hard" else {}
    decoy = _table_html(rng, difficulty, other, headers, [[_COLUMNS[h](rng) for h in headers] for _ in range(3)],
                        display=display)
    target = _table_html(rng, difficulty, caption, headers, rows, display=display)
    main = "\n".join(rng.sample([decoy, target], 2))
    shown = display.get(header, header)
    query = (f'In the table captioned "{caption}", list the values of the column "{shown}" from top to bottom '
             f'(body rows only; an empty cell is "").')
    return Draft(_one_page(rng, difficulty, "Specifications", main), query, {"caption": caption, "header": shown},
                 "list", [row[headers.index(header)] for row in rows])


def table_records(rng: Rng, difficulty: str) -> Draft:
    headers = ["Category", *rng.sample(sorted(h for h in _COLUMNS if h != "Model"), {"easy": 2, "medium": 3, "hard": 3}[difficulty])]
    caption = rng.pick(("Product overview", "Range", "Catalogue extract"))
    spans: dict[int, int] | None = None
    if difficulty == "hard":
        groups = [rng.randint(1, 3) for _ in range(3)]
        cats = rng.sample(vocab.CATEGORIES, 3)
        first = [c for c, g in zip(cats, groups) for _ in range(g)]
        spans, r = {}, 0
        for g in groups:
            spans[r] = g
            r += g
    else:
        first = [rng.pick(vocab.CATEGORIES) for _ in range({"easy": 3, "medium": 5}[difficulty])]
    rows = [[cat] + [_COLUMNS[h](rng) for h in headers[1:]] for cat in first]
    main = _table_html(rng, difficulty, caption, headers, rows, spans=spans)
    query = (f'Convert the table captioned "{caption}" into a list of objects, one per body row, keyed by the column '
             f"headers. A cell spanning several rows counts for each row it spans.")
    expected = [dict(zip(headers, row)) for row in rows]
    return Draft(_one_page(rng, difficulty, "Range", main), query, {"caption": caption}, "records", expected,
                 tuple(headers))


def multivalue_class(rng: Rng, difficulty: str) -> Draft:
    cls = rng.pick(("featured", "on-sale", "bestseller", "eco"))
    n = {"easy": 4, "medium": 7, "hard": 10}[difficulty]
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
    main = el("section", el("h2", "Collection") + "\n".join(cards), class_="collection")
    query = (f'List the titles (the h3 text) of every element with class "card" that also has the class "{cls}", '
             "in page order.")
    return Draft(_one_page(rng, difficulty, "Collection", main), query, {"class": cls}, "list", expected)


def reserved_class(rng: Rng, difficulty: str) -> Draft:
    kw = rng.pick(vocab.RESERVED_CLASSES)
    value = f"{rng.sentence()} Reference {rng.code()}."
    others = [k for k in vocab.RESERVED_CLASSES if k != kw]
    blocks = [el("p", text(value), class_=kw if difficulty != "hard" else f"note {kw}")]
    decoy_classes = [f"{kw}s", f"{kw}-policy"] + rng.sample(others, 2)
    if difficulty != "easy":
        decoy_classes += [f"no-{kw}", f"{kw}_"] + rng.sample(others, 2)
    blocks += [el("p", text(f"{rng.sentence()} Reference {rng.code()}."), class_=c) for c in decoy_classes]
    rng.shuffle(blocks)
    main = el("section", el("h1", "Store policies") + "\n".join(blocks), class_="policies")
    query = f'What is the text of the element that has the class "{kw}"?'
    return Draft(_one_page(rng, difficulty, "Policies", main), query, {"class": kw}, "text", value)


for _a in (
    Archetype("text_by_id", "extraction", "text of the element with a given id",
              "easy: one target; medium: inline children, hidden '-old' twin, class with the same name; "
              "hard: + data-id/aria decoys, newlines and &nbsp; inside the text, deeper nesting", text_by_id),
    Archetype("text_by_class", "extraction", "text of the element with a class inside one product card",
              "cards 3/5/8; medium: '-label' and '--strike' near-miss classes; hard: multi-class target, "
              "data-class and plural-class decoys", text_by_class),
    Archetype("attribute", "extraction", "an attribute (data-sku, href, src) of one element",
              "easy: few candidates; medium: related-section duplicates; hard: hidden duplicates, query strings "
              "with &", attribute),
    Archetype("links", "extraction", "every link of one footer column as {text, href}",
              "3/4/5 links; medium: icon spans, an anchor without href; hard: nested lists, absolute URLs with "
              "query strings", links),
    Archetype("images", "extraction", "the gallery's images as {src, alt}, null for a missing alt",
              "3/4/6 images; medium: missing and empty alts, related thumbnails; hard: picture/source, figures, "
              "tracking pixel", images),
    Archetype("table_column", "extraction", "one column of a captioned table",
              "3/5/8 rows; medium: thead/tbody, row headers, a decoy table; hard: header with unit span, empty "
              "cell, tfoot", table_column),
    Archetype("table_records", "extraction", "a captioned table as a list of row objects",
              "3/5 rows; medium: row header cells; hard: rowspan groups in the first column", table_records),
    Archetype("multivalue_class", "extraction", "cards whose multi-valued class includes a token",
              "4/7/10 cards; medium: near-miss class tokens; hard: + the class on a child and in data-tag",
              multivalue_class),
    Archetype("reserved_class", "extraction", "text of the element whose class is a Python keyword (class_=)",
              "easy: 4 decoys; medium: 8 near-miss classes; hard: target has two classes", reserved_class),
):
    register(_a)
