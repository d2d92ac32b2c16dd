"""Compares the SDK's operations and types with Trawl's OpenAPI document.

``problems(doc)`` lists every disagreement, in words: an operation the
document has and the SDK neither models nor lists in ``NOT_MODELLED``, an
operation the SDK calls that the document lacks, a query parameter, a
request or response field missing on either side, a field required on one
side only, a type, nullability or enumeration that differs, an error field
or failure reason the SDK does not know, and the webhook payloads.
"""

from __future__ import annotations

import typing
from typing import Any, Dict, List, Literal, Mapping, Optional, Set, Tuple, Union, get_args, get_origin, get_type_hints

from trawl import OPERATIONS
from trawl.types import BulkCompletion, BulkFailure, CrawlPageEvent, CrawlPageFailed, CrawlStarted, CrawlStatus, ErrorBody, MonitorCheckReport, Reason
from trawl.webhook import EVENT_HEADER, SIGNATURE_HEADER, EventName

# Operations of the document the SDK leaves out on purpose, and why.
NOT_MODELLED: Dict[str, str] = {
    "checkoutPage": "an HTML page for a person paying, opened from checkout_url",
    "checkoutPay": "the Pay button of that page",
    "downloadFile": "a signed, expiring link handed out in emails and download_url",
    "healthz": "liveness, for load balancers",
    "readyz": "readiness, for load balancers",
    "openapi": "this document",
    "docs": "an HTML reference for people",
}

WEBHOOKS = {
    "content-all-results": BulkCompletion,
    "content-bulk-failure": BulkFailure,
    "crawl-started": CrawlStarted,
    "crawl-page": CrawlPageEvent,
    "crawl-page-failed": CrawlPageFailed,
    "crawl-completed": CrawlStatus,
    "monitor-check": MonitorCheckReport,
}

_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


class _Doc:
    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.doc = doc
        self.out: List[str] = []

    def resolve(self, node: Any) -> Any:
        seen = 0
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#/"):
                raise ValueError(f"unsupported $ref {ref!r}")
            cur: Any = self.doc
            for part in ref[2:].split("/"):
                cur = cur[part.replace("~1", "/").replace("~0", "~")]
            node = cur
            seen += 1
            if seen > 50:
                raise ValueError(f"$ref loop at {ref}")
        return node

    def problem(self, text: str) -> None:
        self.out.append(text)

    # Schemas against annotations.

    @staticmethod
    def _types(schema: Mapping[str, Any]) -> Tuple[List[str], bool]:
        """The schema's JSON types without null, and whether null is allowed."""
        t = schema.get("type")
        types = [t] if isinstance(t, str) else list(t or [])
        nullable = "null" in types or schema.get("nullable") is True
        return [x for x in types if x != "null"], nullable

    def _split_one_of(self, schema: Mapping[str, Any]) -> Tuple[Mapping[str, Any], bool]:
        """oneOf [X, {type: null}] is X, nullable."""
        alts = schema.get("oneOf") or schema.get("anyOf")
        if not alts:
            return schema, False
        resolved = [self.resolve(a) for a in alts]
        nulls = [a for a in resolved if a.get("type") == "null"]
        rest = [a for a in resolved if a.get("type") != "null"]
        if len(rest) != 1:
            raise ValueError("only oneOf [schema, null] is supported")
        return rest[0], bool(nulls)

    def _merge_all_of(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        """allOf of object schemas is one object: their properties and required
        fields together (a later schema's property replaces an earlier one's)."""
        parts = schema.get("allOf")
        if not parts:
            return schema
        props: Dict[str, Any] = {}
        required: List[str] = []
        for part in parts:
            part = self._merge_all_of(self.resolve(part))
            if self._types(part)[0] not in ([], ["object"]):
                raise ValueError("only allOf of object schemas is supported")
            props.update(part.get("properties") or {})
            required += [r for r in part.get("required") or [] if r not in required]
        return {"type": "object", "properties": props, "required": required}

    @staticmethod
    def _unwrap_optional(ann: Any) -> Tuple[Any, bool]:
        if get_origin(ann) is Union:
            args = [a for a in get_args(ann) if a is not type(None)]
            if len(args) != len(get_args(ann)):
                return (args[0] if len(args) == 1 else Union[tuple(args)]), True
        return ann, False

    def compare(self, schema: Any, ann: Any, where: str) -> None:
        schema = self.resolve(schema)
        schema, one_of_null = self._split_one_of(schema)
        schema = self.resolve(schema)
        schema = self._merge_all_of(schema)
        types, nullable = self._types(schema)
        nullable = nullable or one_of_null
        inner, ann_nullable = self._unwrap_optional(ann)
        if nullable != ann_nullable:
            self.problem(
                f"{where}: the document says {'nullable' if nullable else 'never null'}, "
                f"the SDK says {'Optional' if ann_nullable else 'not Optional'}"
            )
        if inner is Any:
            if types:
                self.problem(f"{where}: the document types it {types}, the SDK says Any")
            return
        if len(types) > 1:
            members = list(get_args(inner)) if get_origin(inner) is Union else [inner]
            if len(members) != len(types):
                self.problem(f"{where}: the document allows {types}, the SDK {members}")
                return
            for t in types:
                if not any(self._kind_matches(t, m) for m in members):
                    self.problem(f"{where}: the document allows {t}, the SDK's {members} does not")
            return
        if not types:
            self.problem(f"{where}: the document gives no type, the SDK says {inner}")
            return
        t = types[0]
        if not self._kind_matches(t, inner):
            self.problem(f"{where}: the document says {t}, the SDK says {inner}")
            return
        if t == "string" and get_origin(inner) is Literal:
            allowed = schema.get("enum") or ([schema["const"]] if "const" in schema else None)
            if allowed is None:
                self.problem(f"{where}: the SDK lists values {list(get_args(inner))}, the document allows any string")
            elif set(allowed) != set(get_args(inner)):
                self.problem(f"{where}: the document allows {sorted(allowed)}, the SDK {sorted(get_args(inner))}")
        elif t == "array":
            self.compare(schema.get("items", {}), get_args(inner)[0], where + "[]")
        elif t == "object":
            if typing.is_typeddict(inner):
                self.compare_object(schema, inner, where)
            else:
                extra = schema.get("additionalProperties")
                value = get_args(inner)[1] if get_args(inner) else Any
                if schema.get("properties"):
                    self.problem(f"{where}: the document lists properties, the SDK models a plain dictionary")
                elif isinstance(extra, dict):
                    self.compare(extra, value, where + "{}")
                elif value is not Any:
                    self.problem(f"{where}: the document allows any values, the SDK says {value}")

    @staticmethod
    def _kind_matches(t: str, ann: Any) -> bool:
        origin = get_origin(ann)
        if t == "integer":
            return ann is int
        if t == "number":
            return ann is float
        if t == "boolean":
            return ann is bool
        if t == "string":
            return ann is str or (origin is Literal and all(isinstance(a, str) for a in get_args(ann)))
        if t == "array":
            return origin in (list, List)
        if t == "object":
            return typing.is_typeddict(ann) or origin in (dict, Dict) or ann is dict
        return False

    def compare_object(self, schema: Mapping[str, Any], td: Any, where: str) -> None:
        props: Dict[str, Any] = dict(schema.get("properties") or {})
        required = set(schema.get("required") or [])
        hints = get_type_hints(td)
        for name in sorted(set(props) - set(hints)):
            self.problem(f"{where}.{name}: in the document, missing from the SDK's {td.__name__}")
        for name in sorted(set(hints) - set(props)):
            self.problem(f"{where}.{name}: in the SDK's {td.__name__}, not in the document")
        for name in sorted(set(props) & set(hints)):
            doc_req, sdk_req = name in required, name in td.__required_keys__
            if doc_req != sdk_req:
                self.problem(
                    f"{where}.{name}: {'required' if doc_req else 'optional'} in the document, "
                    f"{'required' if sdk_req else 'NotRequired'} in the SDK"
                )
            self.compare(props[name], hints[name], f"{where}.{name}")

    # The whole document.

    def operations(self) -> Dict[str, Tuple[str, str, Mapping[str, Any], List[Any]]]:
        ops: Dict[str, Tuple[str, str, Mapping[str, Any], List[Any]]] = {}
        for path, item in (self.doc.get("paths") or {}).items():
            item = self.resolve(item)
            shared = list(item.get("parameters") or [])
            for method in _METHODS:
                if method in item:
                    op = item[method]
                    op_id = op.get("operationId") or f"{method.upper()} {path}"
                    ops[op_id] = (method.upper(), path, op, shared + list(op.get("parameters") or []))
        return ops

    def check(self) -> List[str]:
        ops = self.operations()
        for op_id in sorted(ops):
            if op_id not in OPERATIONS and op_id not in NOT_MODELLED:
                m, p, _, _ = ops[op_id]
                self.problem(f"operation {op_id} ({m} {p}) is in the document; the SDK neither calls it nor lists it in NOT_MODELLED")
        for op_id in sorted(NOT_MODELLED):
            if op_id not in ops:
                self.problem(f"NOT_MODELLED names {op_id}, which the document no longer has")
        for op_id, sdk in sorted(OPERATIONS.items()):
            if op_id not in ops:
                self.problem(f"operation {op_id} ({sdk.method} {sdk.path}) is called by the SDK but not in the document")
                continue
            method, path, op, params = ops[op_id]
            if (method, path) != (sdk.method, sdk.path):
                self.problem(f"operation {op_id}: the document has {method} {path}, the SDK {sdk.method} {sdk.path}")
            self.check_parameters(op_id, sdk.path, sdk.query, params)
            self.check_request(op_id, op, sdk.request)
            self.check_responses(op_id, op, sdk)
        self.check_errors(ops)
        self.check_webhooks()
        return self.out

    def check_parameters(self, op_id: str, sdk_path: str, sdk_query: Tuple[str, ...], params: List[Any]) -> None:
        def base(name: str) -> str:
            return name[:-2] if name.endswith("[]") else name

        query: Set[str] = set()
        path: Set[str] = set()
        for p in params:
            p = self.resolve(p)
            if p.get("in") == "query":
                query.add(base(p["name"]))
            elif p.get("in") == "path":
                path.add(p["name"])
        sdk = {base(q) for q in sdk_query}
        for name in sorted(query - sdk):
            self.problem(f"operation {op_id}: query parameter {name} is in the document, the SDK never sends it")
        for name in sorted(sdk - query):
            self.problem(f"operation {op_id}: the SDK sends query parameter {name}, the document does not have it")
        sdk_path_params = {seg[1:-1] for seg in sdk_path.split("/") if seg.startswith("{")}
        if path != sdk_path_params:
            self.problem(f"operation {op_id}: path parameters {sorted(path)} in the document, {sorted(sdk_path_params)} in the SDK")

    def _json_schema(self, holder: Any) -> Optional[Any]:
        holder = self.resolve(holder)
        media = (holder.get("content") or {}).get("application/json")
        return None if media is None else media.get("schema", {})

    def check_request(self, op_id: str, op: Mapping[str, Any], sdk_request: Any) -> None:
        body = op.get("requestBody")
        schema = None if body is None else self._json_schema(body)
        if schema is None and sdk_request is not None:
            self.problem(f"operation {op_id}: the SDK sends a JSON body, the document takes none")
        elif schema is not None and sdk_request is None:
            self.problem(f"operation {op_id}: the document takes a JSON body, the SDK sends none")
        elif schema is not None:
            self.compare(schema, sdk_request, f"{op_id} request")

    def check_responses(self, op_id: str, op: Mapping[str, Any], sdk: Any) -> None:
        responses = op.get("responses") or {}
        ok = sorted(int(s) for s in responses if str(s).isdigit() and 200 <= int(s) < 300)
        if tuple(ok) != tuple(sorted(sdk.statuses)):
            self.problem(f"operation {op_id}: success statuses {ok} in the document, {list(sdk.statuses)} in the SDK")
        for status in ok:
            schema = self._json_schema(responses[str(status)] if str(status) in responses else responses[status])
            if schema is None and sdk.response is None:
                continue  # an answer without a body (204), which the SDK reads as none
            if schema is None:
                self.problem(f"operation {op_id}: the {status} answer has no JSON body in the document")
                continue
            self.compare(schema, sdk.response, f"{op_id} {status}")
        billed = "402" in {str(s) for s in responses}
        if billed != sdk.billed:
            self.problem(
                f"operation {op_id}: the document {'bills' if billed else 'does not bill'} it (402), "
                f"the SDK {'sends' if sdk.billed else 'does not send'} an Idempotency-Key"
            )

    def check_errors(self, ops: Mapping[str, Tuple[str, str, Mapping[str, Any], List[Any]]]) -> None:
        fields: Dict[str, Any] = {}
        headers: Set[str] = set()
        for op_id, (_, _, op, _) in ops.items():
            for status, res in (op.get("responses") or {}).items():
                res = self.resolve(res)
                headers.update((res.get("headers") or {}).keys())
                if str(status).isdigit() and int(status) < 400:
                    continue
                schema = self._json_schema(res)
                if schema is None:
                    continue
                schema = self.resolve(schema)
                for name, prop in (schema.get("properties") or {}).items():
                    fields.setdefault(name, prop)
        hints = get_type_hints(ErrorBody)
        for name in sorted(set(fields) - set(hints)):
            self.problem(f"error field {name} is in the document's error answers, missing from the SDK's ErrorBody")
        for name in sorted(set(hints) - set(fields)):
            self.problem(f"ErrorBody.{name} is in the SDK, in no error answer of the document")
        for name in sorted(set(fields) & set(hints)):
            prop = self.resolve(fields[name])
            types, _ = self._types(prop)
            if types and not self._kind_matches(types[0], hints[name]):
                self.problem(f"ErrorBody.{name}: the document says {types[0]}, the SDK says {hints[name]}")
        reason = self.resolve(fields.get("reason") or {})
        doc_reasons = list(reason.get("enum") or [])
        if set(doc_reasons) != set(get_args(Reason)):
            self.problem(
                f"failure reasons: the document has {sorted(set(doc_reasons) - set(get_args(Reason)))} more and "
                f"{sorted(set(get_args(Reason)) - set(doc_reasons))} fewer than trawl.types.Reason"
            )
        for name in ("X-Credits-Charged", "X-Credits-Remaining", "Retry-After"):
            if name not in headers:
                self.problem(f"no answer of the document carries the {name} header the SDK reads")

    def check_webhooks(self) -> None:
        hooks = self.doc.get("webhooks") or {}
        if set(hooks) != set(get_args(EventName)) or set(hooks) != set(WEBHOOKS):
            self.problem(f"webhooks: the document has {sorted(hooks)}, the SDK {sorted(get_args(EventName))}")
        for name, td in WEBHOOKS.items():
            post = self.resolve(hooks.get(name, {})).get("post")
            if post is None:
                continue
            header_names = {self.resolve(p).get("name") for p in post.get("parameters") or []}
            for h in (SIGNATURE_HEADER, EVENT_HEADER):
                if h not in header_names:
                    self.problem(f"webhook {name}: the document has no {h} header")
            schema = self._json_schema(post.get("requestBody") or {})
            if schema is None:
                self.problem(f"webhook {name}: no JSON body in the document")
            else:
                self.compare(schema, td, f"webhook {name}")


def problems(doc: Mapping[str, Any]) -> List[str]:
    """Every disagreement between the document and the SDK, empty when none."""
    return _Doc(doc).check()
