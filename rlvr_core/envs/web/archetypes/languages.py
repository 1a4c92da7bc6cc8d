"""Languages family: one section among many languages, right-to-left pages with bidi marks, text with emoji,
combining marks and non-breaking spaces. From medium difficulty up hidden twins of the target come before and after it."""

from __future__ import annotations

import unicodedata

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, around_target, base_url, el, page, place_twins, single_page, site, text
from rlvr_core.envs.web.task import Archetype, Draft, register

LANGUAGE_NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "ja": "Japanese",
                  "zh": "Chinese", "ko": "Korean", "ru": "Russian", "hi": "Hindi", "ar": "Arabic", "he": "Hebrew"}
REGIONS = {"en": "GB", "de": "DE", "fr": "FR", "es": "ES", "ja": "JP", "zh": "CN", "ko": "KR", "ru": "RU", "hi": "IN",
           "ar": "EG", "he": "IL"}
RLM = "\u200f"


def multilingual(rng: Rng, difficulty: str) -> Draft:
    codes = rng.sample(sorted(vocab.MULTILINGUAL), {"easy": 3, "medium": 5, "hard": 7}[difficulty])
    target = rng.pick(codes)
    phrases = len(vocab.MULTILINGUAL["en"]["text"])
    sections, expected, attr = [], "", ""
    for code in codes:
        lang = f"{code}-{REGIONS[code]}" if difficulty == "hard" else code
        desc = vocab.MULTILINGUAL[code]["text"][rng.randrange(phrases)]
        inner = el("h3", text(vocab.MULTILINGUAL[code]["name"][0])) + el("p", text(desc), class_="desc")
        if difficulty == "hard":
            inner += el("p", text(vocab.MULTILINGUAL[code]["text"][rng.randrange(phrases)]), class_="note")
        sections.append(el("section", inner, class_="description", lang=lang,
                           dir="rtl" if code in vocab.RTL_LANGUAGES else None))
        if code == target:
            expected, attr = desc, lang
    if difficulty != "easy":  # an archived translation with another class
        code = rng.pick(codes)
        sections.append(el("section", el("p", text(vocab.MULTILINGUAL[code]["text"][0]), class_="desc"),
                           class_="description-archive", lang=code))
    rng.shuffle(sections)
    if difficulty != "easy":  # earlier and later descriptions in the target language, hidden, before and after
        own = [phrase for phrase in vocab.MULTILINGUAL[target]["text"] if phrase != expected]
        shown = next(section for section in sections if f'lang="{attr}"' in section)
        sections = place_twins(rng, sections, shown, lambda: el("section", el("p", text(rng.pick(own)), class_="desc"),
                                                                class_="description", lang=attr,
                                                                hide=rng.hide(difficulty)))
    main = el("h1", text(rng.product_name())) + el("div", "\n".join(sections), class_="translations")
    where = f'the section with lang="{attr}"' if difficulty == "easy" else f"the {LANGUAGE_NAMES[target]} section"
    query = (f'This product page shows its description in several languages (section elements with class '
             f'"description"). What is the description text (the element with class "desc") in {where}? Only '
             "visible sections count.")
    url = base_url(rng)
    pages = {"/index.html": page(rng, title="Product", main=main, difficulty=difficulty)}
    return Draft(site(url, "/index.html", pages), query, {"lang": attr}, "text", expected)


def _rtl_value(rng: Rng, lang: str, prop: str, difficulty: str) -> str:
    if prop == "price":
        amount = f"{rng.randint(20, 900)}.{rng.pick(('00', '50', '99'))}"
        value = f"{amount} ر.س" if lang == "ar" else f"₪{amount}"
    else:
        value = f"{rng.pick(vocab.RTL_PRODUCTS[lang])} {rng.pick(vocab.BRANDS).split()[0]} {rng.randint(100, 990)}"
    if difficulty != "easy":
        value = f"{RLM}{value}{RLM}" if prop == "price" else value.replace(" ", f" {RLM}", 1)
    return value


def rtl(rng: Rng, difficulty: str) -> Draft:
    lang = rng.pick(vocab.RTL_LANGUAGES)
    prop = rng.pick(("name", "name", "price"))
    labels = vocab.RTL_LABELS[lang]
    values = {p: _rtl_value(rng, lang, p, difficulty) for p in ("name", "price")}
    shown = {"name": el("h1", text(values["name"]), itemprop="name"),
             "price": el("span", text(values["price"]), itemprop="price")}
    if difficulty != "easy":  # values before an update and drafts of the next one, hidden, before and after
        shown[prop] = "".join(place_twins(rng, [shown[prop]], shown[prop], lambda: el(
            "span", text(_rtl_value(rng, lang, prop, difficulty)), itemprop=prop, hide=rng.hide(difficulty))))
    head = shown["name"]
    price = el("p", text(labels["price"]) + ": " + shown["price"])
    related = ""
    if difficulty != "easy":
        related = el("div", "".join(el("div", el("span", text(_rtl_value(rng, lang, "name", difficulty)), itemprop="name")
                                           + el("span", text(_rtl_value(rng, lang, "price", difficulty)), itemprop="price"),
                                           itemscope=True, itemtype="https://schema.org/Product", class_="mini")
                                    for _ in range(3)), class_="related")
    inner = head + price + el("p", text(labels["stock"]), class_="stock")
    if difficulty == "hard":  # related products nested inside the main product's scope
        product = el("div", inner + related, itemscope=True, itemtype="https://schema.org/Product", class_="product")
    else:
        product = el("div", inner, itemscope=True, itemtype="https://schema.org/Product", class_="product") + related
    url = base_url(rng)
    pages = {"/index.html": page(rng, title=labels["name"], main=product, difficulty=difficulty, lang=lang, dir_="rtl")}
    query = (f'This is a right-to-left ({LANGUAGE_NAMES[lang]}) product page. What is the text of the main product\'s '
             f'visible itemprop="{prop}" element (the first element with itemtype "https://schema.org/Product"; not one of '
             "the related products)? Keep the text as it is, including any direction marks.")
    return Draft(site(url, "/index.html", pages), query, {"itemprop": prop}, "text", values[prop])


_EMOJI = ("🔥", "✨", "🎁", "👍🏽", "🇯🇵", "👩‍💻", "☕️", "🚚")


def emoji_text(rng: Rng, difficulty: str) -> Draft:
    """Text with emoji (skin tones, flags, ZWJ sequences), accents and currency signs kept exactly as written."""
    cls = rng.pick(("tagline", "promo-line", "hero-copy"))
    word = rng.pick(("Café", "Crème", "Jalapeño", "Smörgås", "Señor", "Naïve"))
    if difficulty == "hard":
        word = unicodedata.normalize("NFD", word)  # the accent as a combining mark
    value = (f"{rng.pick(_EMOJI)} {word} {rng.pick(vocab.NOUNS)} — {rng.pick(('€', '£', '¥', '₹'))}"
             f"{rng.randint(5, 500)} {rng.pick(_EMOJI)}")
    if difficulty != "easy":
        value = value.replace(" — ", "\u00a0—\u00a0")  # non-breaking spaces (collapsed like any whitespace)
    target = el("p", text(value), class_=cls)
    parts = [el("h1", text(rng.product_name())), target, el("p", text(rng.sentence()), class_=f"{cls}-sub")]
    twin = (lambda: el("p", text(f"{rng.pick(_EMOJI)} {word} {rng.pick(vocab.NOUNS)}"), class_=cls,
                       hide=rng.hide(difficulty))) if difficulty != "easy" else None
    main = el("div", "\n".join(around_target(rng, parts, target, twin)), class_="hero")
    query = (f'What is the text of the visible element with class "{cls}"? Keep every character as written (emoji, '
             "accents, currency signs); collapse runs of whitespace to single spaces.")
    return Draft(single_page(rng, difficulty, "Offer", main), query, {"class": cls}, "text", " ".join(value.split()))


for _a in (
    Archetype("multilingual", "languages", "the description in one language among several",
              "3/5/7 languages; easy: names the lang code; medium: names the language, archived decoy section, "
              "hidden stale sections before and after; hard: region subtags (ja-JP) and a second paragraph per "
              "section", multilingual),
    Archetype("emoji_text", "languages", "text with emoji, flags, ZWJ sequences and accents, exactly",
              "medium: non-breaking spaces, hidden twins before and after; hard: accents as combining marks (NFD)", emoji_text),
    Archetype("rtl", "languages", "a product name or price on an Arabic or Hebrew right-to-left page",
              "easy: plain; medium: right-to-left marks in the value, hidden stale values before and after, related "
              "products; hard: related products nested inside the main product's itemscope", rtl),
):
    register(_a)
