"""Solvers of the tables family: one column, rows as records, the whole grid with spans expanded."""

from .common import keep, one, soup_of, text_of, visible


def _table(page, caption):
    tables = keep(visible(page.find_all("table")), lambda t: t.caption is not None and text_of(t.caption) == caption)
    return one(tables, "table captioned %r" % caption)


def grid(table):
    """Every row (header rows first) as cell texts, a cell spanning rows or columns repeated in each it covers."""
    rows, pending = [], {}  # pending: column -> (text, rows still covered)
    for tr in visible(table.find_all("tr")):
        if tr.find_parent("table") is not table or tr.find_parent("tfoot") is not None:
            continue
        cells, col, queue = [], 0, list(tr.find_all(["th", "td"], recursive=False))
        while queue or col in pending:
            if col in pending:
                value, left = pending.pop(col)
                cells.append(value)
                if left > 1:
                    pending[col] = (value, left - 1)
                col += 1
                continue
            cell = queue.pop(0)
            value = text_of(cell)
            span, down = int(cell.get("colspan", 1)), int(cell.get("rowspan", 1))
            for _ in range(span):
                cells.append(value)
                if down > 1:
                    pending[col] = (value, down - 1)
                col += 1
        rows.append(cells)
    return rows


def _header_and_body(table):
    head = table.find("thead")
    rows = grid(table)
    n_head = len(head.find_all("tr")) if head is not None else 1
    return rows[n_head - 1], rows[n_head:]


def table_column(fetch, start, p):
    headers, body = _header_and_body(_table(soup_of(fetch(start)), p["caption"]))
    index = headers.index(p["header"])
    return [row[index] if index < len(row) else "" for row in body]


def table_records(fetch, start, p):
    headers, body = _header_and_body(_table(soup_of(fetch(start)), p["caption"]))
    return [dict(zip(headers, row)) for row in body]


def table_grid(fetch, start, p):
    return grid(_table(soup_of(fetch(start)), p["caption"]))


SOLVERS = {"table_column": table_column, "table_records": table_records, "table_grid": table_grid}
