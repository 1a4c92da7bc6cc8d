"""Tables family: one column of a captioned table, its rows as records, the whole grid with spans expanded.

From medium difficulty up decoy tables come before and after it (`page.place_twins`):
visible ones with other captions and hidden ones with the same caption, so no fixed
position picks the asked table; hard tables carry hidden rows, unit spans in headers,
footers and row/column spans.
"""

from __future__ import annotations

from rlvr_core.envs.web import vocab
from rlvr_core.envs.web.page import Rng, el, money, place_twins, single_page, text
from rlvr_core.envs.web.task import Archetype, Draft, register

_COLUMNS = {
    "Model": lambda rng: f"{rng.pick(vocab.ADJECTIVES)} {rng.randint(100, 999)}",
    "Weight": lambda rng: f"{rng.uniform(0.2, 9):.1f} kg",
    "Power": lambda rng: f"{rng.randint(5, 200) * 10} W",
    "Color": lambda rng: rng.pick(vocab.COLORS),
    "Price": lambda rng: money(rng.price()),
    "Capacity": lambda rng: f"{rng.randint(1, 40) / 2:g} L",
}
_CAPTIONS = ("Specifications", "Compare models", "Technical data", "Accessories", "Product overview", "Range",
             "Catalogue extract", "Spare parts")


def _row(rng: Rng, difficulty: str, cells: list[str], spans: dict[int, int] | None = None, first: bool = True,
         hide: str | None = None) -> str:
    out = []
    for c, value in enumerate(cells):
        if spans is not None and c == 0:
            if not first:
                continue  # covered by a rowspan above
            out.append(el("td", text(value), rowspan=str(spans[0]) if spans[0] > 1 else None))
        elif c == 0 and difficulty == "medium":
            out.append(el("th", text(value), scope="row"))
        else:
            out.append(el("td", text(value)))
    return el("tr", "".join(out), hide=hide)


def _table(rng: Rng, difficulty: str, caption: str, headers: list[str], rows: list[list[str]],
           groups: list[int] | None = None, display: dict[str, str] | None = None) -> str:
    """A table; `groups` (hard) makes the first column span row groups of those sizes."""
    display = display or {}
    hcells = "".join(el("th", text(display.get(h, h)) if difficulty != "hard" else
                        f"\n  {text(h)} " + (el("span", text(display[h][len(h):].strip()), class_="unit") if h in display else ""),
                        scope="col") for h in headers)
    body, r = [], 0
    for size in groups or [1] * len(rows):
        for k in range(size):
            body.append(_row(rng, difficulty, rows[r], {0: size} if groups else None, first=k == 0))
            r += 1
    if difficulty == "hard" and not groups:  # a hidden template row the page's script clones
        body.insert(rng.randint(0, len(body)), _row(rng, difficulty, [_COLUMNS[h](rng) for h in headers],
                                                    hide=rng.hide(difficulty)))
    if difficulty == "easy":
        inner = el("caption", text(caption)) + el("tr", hcells) + "".join(body)
    else:
        inner = el("caption", text(caption)) + el("thead", el("tr", hcells)) + el("tbody", "\n".join(body))
        if difficulty == "hard":
            inner += el("tfoot", el("tr", el("td", "Prices include VAT", colspan=str(len(headers)))))
    return el("table", inner, class_="specs-table")


def _with_decoy(rng: Rng, difficulty: str, target: str, headers: list[str], caption: str) -> str:
    """`target` alone (easy), or among decoy tables: other captions, or the same caption hidden (a stale copy)."""
    if difficulty == "easy":
        return target
    cell = lambda h: _COLUMNS[h](rng) if h in _COLUMNS else rng.pick(vocab.CATEGORIES)  # noqa: E731

    def decoy() -> str:
        rows = [[cell(h) for h in headers] for _ in range(3)]
        if rng.random() < 0.5:
            return _table(rng, "medium", rng.pick([c for c in _CAPTIONS if c != caption]), headers, rows)
        return el("div", _table(rng, "medium", caption, headers, rows), hide=rng.hide(difficulty))

    return "\n".join(place_twins(rng, [target], target, decoy))


def table_column(rng: Rng, difficulty: str) -> Draft:
    headers = rng.sample(sorted(_COLUMNS), {"easy": 3, "medium": 4, "hard": 5}[difficulty])
    header = rng.pick(headers[1:])
    nrows = {"easy": rng.randint(3, 5), "medium": rng.randint(4, 7), "hard": rng.randint(6, 10)}[difficulty]
    caption = rng.pick(_CAPTIONS)
    rows = [[_COLUMNS[h](rng) for h in headers] for _ in range(nrows)]
    if difficulty == "hard":
        rows[rng.randrange(nrows)][headers.index(header)] = ""
    display = {h: f"{h} (per unit)" for h in headers} if difficulty == "hard" else {}
    main = _with_decoy(rng, difficulty, _table(rng, difficulty, caption, headers, rows, display=display), headers, caption)
    shown = display.get(header, header)
    query = (f'In the table captioned "{caption}", list the values of the column "{shown}" from top to bottom '
             f'(visible body rows only; an empty cell is "").')
    return Draft(single_page(rng, difficulty, "Specifications", main), query, {"caption": caption, "header": shown},
                 "list", [row[headers.index(header)] for row in rows])


def table_records(rng: Rng, difficulty: str) -> Draft:
    others = sorted(h for h in _COLUMNS if h != "Model")
    headers = ["Category", *rng.sample(others, {"easy": 2, "medium": 3, "hard": 3}[difficulty])]
    caption = rng.pick(_CAPTIONS)
    groups = [rng.randint(1, 3) for _ in range(3)] if difficulty == "hard" else None
    if groups:
        first = [c for c, g in zip(rng.sample(vocab.CATEGORIES, 3), groups) for _ in range(g)]
    else:
        first = [rng.pick(vocab.CATEGORIES) for _ in range(rng.randint(3, 6))]
    rows = [[cat] + [_COLUMNS[h](rng) for h in headers[1:]] for cat in first]
    main = _with_decoy(rng, difficulty, _table(rng, difficulty, caption, headers, rows, groups=groups), headers, caption)
    query = (f'Convert the table captioned "{caption}" into a list of objects, one per body row, keyed by the column '
             f"headers. A cell spanning several rows counts for each row it spans.")
    return Draft(single_page(rng, difficulty, "Range", main), query, {"caption": caption}, "records",
                 [dict(zip(headers, row)) for row in rows], tuple(headers))


def table_grid(rng: Rng, difficulty: str) -> Draft:
    """A timetable: header row, then rows whose cells may span columns (colspan) and, when hard, rows."""
    days = ["Mon", "Tue", "Wed", "Thu", "Fri"][: {"easy": 3, "medium": 4, "hard": 5}[difficulty]]
    caption = rng.pick(("Store hours", "Workshop schedule", "Delivery slots", "Support rota"))
    slots = rng.sample(("08:00", "09:00", "10:00", "12:00", "14:00", "16:00", "18:00"), rng.randint(3, 5))
    grid, html_rows = [["Slot", *days]], [el("tr", "".join(el("th", d) for d in ["Slot", *days]))]
    covered: dict[int, int] = {}
    for slot in sorted(slots):
        row, cells, col = [slot], [el("th", slot)], 0
        while col < len(days):
            if covered.get(col, 0) > 0:
                covered[col] -= 1
                row.append(grid[-1][col + 1])
                col += 1
                continue
            free = next((c for c in range(col, len(days)) if covered.get(c, 0) > 0), len(days)) - col
            span = rng.randint(1, min(3, free)) if difficulty != "easy" and rng.random() < 0.4 else 1
            down = 2 if difficulty == "hard" and span == 1 and rng.random() < 0.3 and slot != max(slots) else 1
            value = rng.pick(("Closed", "Open", "Staff training", "Pickup only", rng.person(), rng.code()))
            cells.append(el("td", text(value), colspan=str(span) if span > 1 else None, rowspan="2" if down > 1 else None))
            for c in range(col, col + span):
                row.append(value)
                if down > 1:
                    covered[c] = 1
            col += span
        grid.append(row)
        html_rows.append(el("tr", "".join(cells)))
    table = el("table", el("caption", text(caption)) + "\n".join(html_rows), class_="timetable")
    main = table
    if difficulty != "easy":  # other months' timetables, and stale copies of this one, hidden, before and after

        def other() -> str:
            rows = "".join(el("tr", el("th", s) + "".join(el("td", text(rng.pick(("Closed", "Open")))) for _ in days))
                           for s in slots[:2])
            if rng.random() < 0.5:
                when = rng.pick(("last month", "next month", "holidays", "last year"))
                return el("table", el("caption", text(f"{caption} ({when})")) + html_rows[0] + rows, class_="timetable")
            return el("table", el("caption", text(caption)) + html_rows[0] + rows, class_="timetable",
                      hide=rng.hide(difficulty))

        main = "\n".join(place_twins(rng, [table], table, other))
    query = (f'Return the table captioned "{caption}" as a list of rows, each a list of its cell texts from left to '
             "right, the header row first; a cell spanning several columns or rows appears in each position it covers.")
    return Draft(single_page(rng, difficulty, "Timetable", main), query, {"caption": caption}, "list", grid)


for _a in (
    Archetype("table_column", "tables", "one column of a captioned table",
              "3-5/4-7/6-10 rows; medium: decoy tables (other captions, hidden stale copies) before and after, row "
              "headers; hard: header with unit span, empty cell, a hidden template row, tfoot", table_column),
    Archetype("table_records", "tables", "a captioned table as a list of row objects",
              "3-6 rows; medium: decoy tables (other captions, hidden stale copies) before and after, row header "
              "cells; hard: rowspan groups in the first column",
              table_records),
    Archetype("table_grid", "tables", "a timetable as a list of rows with colspan/rowspan cells repeated",
              "3/4/5 days; medium: colspans and decoy tables before and after (captions that extend the asked one, "
              "hidden stale copies); hard: + rowspans", table_grid),
):
    register(_a)
