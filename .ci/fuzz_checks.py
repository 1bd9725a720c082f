"""Schemathesis checks of our own, loaded by ../schemathesis.toml (`hooks`).

`created_record_found` replaces Schemathesis's built-in `ensure_resource_availability`
(ST302) on the session API, whose PUT and DELETE operations name their record by an `id`
in the JSON body, not in the path (DECISIONS §1, docs/conventions.md). `.ci/fuzz` turns
the built-in check off for the session-API pass (`--exclude-checks`; a per-operation
setting in schemathesis.toml did not reach the stateful phase) and keeps it for the public
API, whose records are named in the path.

Why: the built-in check reports "created resource not found" when a step after a POST
answers 404 and "all parameters come from links". It counts only path, query, header and
cookie parameters, never the body, so for an operation whose only input is its body the
condition is always true, even when the step's body carries a random id that Schemathesis
generated instead of the one the POST answered (a stateful step applies a link's body
value only with some probability). Two clean-clone runs reported exactly that: a DELETE
/api/employees for a version-3 UUID, which this server never makes.

This check asks the question the built-in one means, with the body taken into account: a
PUT or DELETE that answers 404 for a record id that an earlier POST to the same path
created, and that no successful DELETE has removed since, is a failure. Webhooks and API
keys scoped to an entity go with it when it is deleted (ON DELETE CASCADE), so those two
are not judged once an entity has been deleted; payments go with their invoice or bill
(docs/accounting.md#payments), so they are not judged once a document has been deleted.
"""

import re

import schemathesis

# Session-API collections: PUT and DELETE take the record's id in the body.
_COLLECTION = re.compile(r"^/api/[a-z-]+$")
_GONE_WITH_ENTITY = {"/api/webhooks", "/api/api-keys", "/api/members"}
_GONE_WITH_DOCUMENT = {"/api/payments"}
_DOCUMENTS = {"/api/invoices", "/api/bills"}

# (path, id) -> (entity deletions, document deletions) seen at creation
_created: dict[tuple[str, str], tuple[int, int]] = {}
_deleted: set[tuple[str, str]] = set()
_entities_deleted: set[str] = set()
_documents_deleted: set[str] = set()


def _json(response):
    try:
        return response.json()
    except Exception:  # noqa: BLE001 - a body that is not JSON names no record
        return None


@schemathesis.check
def created_record_found(ctx, response, case):
    path = case.operation.path
    if not _COLLECTION.match(path):
        return None
    method = case.operation.method.upper()
    status = response.status_code
    body = case.body if isinstance(case.body, dict) else {}
    record_id = body.get("id") if isinstance(body.get("id"), str) else None

    if method == "POST" and status == 201:
        answer = _json(response)
        data = answer.get("data") if isinstance(answer, dict) else None
        if isinstance(data, dict) and isinstance(data.get("id"), str):
            _created.setdefault((path, data["id"]), (len(_entities_deleted), len(_documents_deleted)))
        return None
    if method == "DELETE" and 200 <= status < 300 and record_id is not None:
        _deleted.add((path, record_id))
        if path == "/api/entities":
            _entities_deleted.add(record_id)
        if path in _DOCUMENTS:
            _documents_deleted.add(record_id)
        return None
    if method not in ("PUT", "DELETE") or status != 404 or record_id is None:
        return None

    key = (path, record_id)
    if key not in _created or key in _deleted:
        return None
    entities_then, documents_then = _created[key]
    if path in _GONE_WITH_ENTITY and len(_entities_deleted) > entities_then:
        return None
    if path in _GONE_WITH_DOCUMENT and len(_documents_deleted) > documents_then:
        return None
    answer = _json(response)
    message = answer.get("message", "") if isinstance(answer, dict) else ""
    # A 404 for another record the body names (a contact, a product) is not about this one.
    if record_id not in str(message):
        return None
    raise AssertionError(
        f"{method} {path} answered 404 for record {record_id}, which POST {path} created "
        f"and no DELETE has removed: {message}"
    )


# Idempotency-Key (docs/idempotency.md): Schemathesis draws short header values, so two
# requests would often share a key ("0") with different bodies and get the documented 422,
# which its positive-data check reads as a valid request refused. Each request's key is
# made unique just before it is sent (in every phase; generation hooks miss the coverage
# phase), keeping a key over the 255-character limit over it, for the 400 to be checked.
_keys_sent = 0


# Decimals (docs/public-api.md#exact-amounts) are documented as `format: decimal` with their
# places in `x-decimal-places`, not a float `multipleOf`, which JSON Schema can only state
# in binary floating point. Schemathesis would otherwise draw numbers with more places than
# the field takes (a documented 400), so every float in a body is cut to two places, which
# every decimal field takes; integers and strings are left as drawn.
def _two_places(value):
    if isinstance(value, float):
        return round(value, 2)
    if isinstance(value, dict):
        return {k: _two_places(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_two_places(v) for v in value]
    return value


@schemathesis.hook
def before_call(ctx, case, kwargs):
    global _keys_sent
    if isinstance(case.body, (dict, list)):
        case.body = _two_places(case.body)
    headers = case.headers or {}
    for name in list(headers):
        value = headers[name]
        if name.lower() == "idempotency-key" and isinstance(value, str) and value:
            _keys_sent += 1
            unique = f"fuzz-{_keys_sent}-{value}"
            headers[name] = unique if len(value) > 255 else unique[:255]
