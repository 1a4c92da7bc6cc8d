"""Solvers of the forms family: fields, select options, action and method, labels, credential fields, honeypots."""

from .common import keep, one, soup_of, text_of, visible

CONTROLS = ("input", "select", "textarea")
_NOT_FIELDS = ("submit", "button", "reset", "image")


def form_by_id(page, ident):
    return one(keep(visible(page.find_all("form")), lambda f: f.get("id") == ident), "form #%s" % ident)


def control_type(control):
    if control.name != "input":
        return control.name
    return (control.get("type") or "text").lower()


def fields(form):
    """The form's named controls that submit a value (not buttons), in page order."""
    return keep(form.find_all(CONTROLS), lambda c: c.get("name") and control_type(c) not in _NOT_FIELDS)


def form_fields(fetch, start, p):
    form = form_by_id(soup_of(fetch(start)), p["form"])
    return [{"name": c["name"], "type": control_type(c), "required": c.has_attr("required")} for c in fields(form)]


def select_options(fetch, start, p):
    page = soup_of(fetch(start))
    label = one(keep(visible(page.find_all("label")), lambda lab: text_of(lab) == p["label"]), "label %r" % p["label"])
    select = one(keep(visible(page.find_all("select")), lambda s: s.get("id") == label.get("for")), "select")
    return [{"value": o["value"] if o.has_attr("value") else text_of(o), "label": text_of(o)}
            for o in keep(select.find_all("option"), lambda o: not o.has_attr("disabled"))]


def form_action_method(fetch, start, p):
    page = soup_of(fetch(start))
    headed = keep(visible(page.find_all("form")), lambda f: f.find("h3") is not None and text_of(f.find("h3")) == p["heading"])
    form = one(headed, "form headed %r" % p["heading"])
    action = form.get("action") or p["page"]
    return {"action": action, "method": (form.get("method") or "get").upper()}


def label_input_mapping(fetch, start, p):
    form = form_by_id(soup_of(fetch(start)), p["form"])
    out = []
    for label in visible(form.find_all("label")):
        if label.get("for"):
            control = one(keep(form.find_all(CONTROLS), lambda c: c.get("id") == label["for"]), "control #%s" % label["for"])
        else:
            control = one(label.find_all(CONTROLS), "control inside a label")
        text = " ".join(s.strip() for s in label.find_all(string=True) if s.find_parent(CONTROLS) is None)
        out.append({"label": " ".join(text.split()), "name": control.get("name")})
    return out


def credential_fields(fetch, start, p):
    page = soup_of(fetch(start))
    forms = keep(visible(page.find_all("form")), lambda f: any(text_of(b) == p["button"] for b in f.find_all("button")))
    form = one(forms, "form with a %r button" % p["button"])
    creds = keep(visible(form.find_all("input")),
                 lambda i: control_type(i) == "password" or i.get("autocomplete") == "username")
    return [i["name"] for i in creds]


def form_honeypot(fetch, start, p):
    form = form_by_id(soup_of(fetch(start)), p["form"])
    return [c["name"] for c in visible(keep(fields(form), lambda c: control_type(c) != "hidden"))]


SOLVERS = {"form_fields": form_fields, "select_options": select_options, "form_action_method": form_action_method,
           "label_input_mapping": label_input_mapping, "credential_fields": credential_fields,
           "form_honeypot": form_honeypot}
