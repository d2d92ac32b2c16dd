"""The SDK's operations and types agree with Trawl's OpenAPI document.

The document is read from the repository (adapters/httpapi/openapi/
openapi.yaml, or the file named by TRAWL_OPENAPI_PATH) and, when
TRAWL_API_URL names a running server, also as that server serves it at
/openapi.json. Either disagreeing with the SDK fails the test with the list
of differences.
"""

from __future__ import annotations

import copy
import json
import os
import pathlib
import unittest
import urllib.request
from typing import Any, Dict, Optional

import drift
import openapi_yaml

REPO_DOCUMENT = pathlib.Path(__file__).resolve().parents[3] / "adapters" / "httpapi" / "openapi" / "openapi.yaml"


def repository_document() -> Optional[Dict[str, Any]]:
    path = pathlib.Path(os.environ.get("TRAWL_OPENAPI_PATH") or REPO_DOCUMENT)
    if not path.exists():
        return None
    text = path.read_text(encoding="utf-8")
    doc: Dict[str, Any] = json.loads(text) if path.suffix == ".json" else openapi_yaml.loads(text)
    return doc


def served_document() -> Optional[Dict[str, Any]]:
    base = os.environ.get("TRAWL_API_URL")
    if not base:
        return None
    with urllib.request.urlopen(base.rstrip("/") + "/openapi.json", timeout=30) as res:
        doc: Dict[str, Any] = json.loads(res.read())
    return doc


class DocumentAgreesWithTheSDK(unittest.TestCase):
    def assertNoDrift(self, doc: Dict[str, Any], source: str) -> None:
        found = drift.problems(doc)
        if found:
            self.fail(f"the SDK and {source} disagree:\n  " + "\n  ".join(found))

    def test_repository_document(self) -> None:
        doc = repository_document()
        if doc is None:
            self.skipTest(f"no OpenAPI document at {REPO_DOCUMENT} (set TRAWL_OPENAPI_PATH)")
        self.assertNoDrift(doc, "the repository's OpenAPI document")

    def test_served_document(self) -> None:
        doc = served_document()
        if doc is None:
            if os.environ.get("TRAWL_SDK_REQUIRE_SERVER"):
                self.fail("TRAWL_API_URL is not set")
            self.skipTest("TRAWL_API_URL is not set")
        self.assertNoDrift(doc, "the served /openapi.json")
        repo = repository_document()
        if repo is not None:
            # The YAML reader and the server read the same file the same way.
            self.assertEqual(sorted(drift._Doc(repo).operations()), sorted(drift._Doc(doc).operations()))


class TheCheckFindsDrift(unittest.TestCase):
    """Each kind of change to the document is reported, so the check can fail."""

    doc: Dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        doc = repository_document()
        if doc is None:
            raise unittest.SkipTest("no OpenAPI document in reach")
        cls.doc = doc

    def changed(self, change: Any) -> list[str]:
        doc = copy.deepcopy(self.doc)
        change(doc)
        return drift.problems(doc)

    def assertReported(self, change: Any, *words: str) -> None:
        found = self.changed(change)
        self.assertTrue(
            any(all(w in p for w in words) for p in found),
            f"no problem mentions {words}; found: {found}",
        )

    def test_unchanged_is_clean(self) -> None:
        self.assertEqual(self.changed(lambda d: None), [])

    def test_response_field_added(self) -> None:
        self.assertReported(
            lambda d: d["components"]["schemas"]["Content"]["properties"].__setitem__("language", {"type": "string"}),
            "Content",
            "language",
            "missing from the SDK",
        )

    def test_response_field_removed(self) -> None:
        self.assertReported(
            lambda d: d["components"]["schemas"]["Metadata"]["properties"].pop("ogType"), "ogType", "not in the document"
        )

    def test_all_of_part_changed(self) -> None:
        def change(d: Dict[str, Any]) -> None:
            own = d["components"]["schemas"]["CrawlPage"]["allOf"][1]
            own["properties"].pop("parent")
            own["required"].remove("parent")

        self.assertReported(change, "listCrawlPages 200.pages[].parent", "not in the document")
        self.assertReported(
            lambda d: d["components"]["schemas"]["Content"]["required"].remove("html"), "pages[].html", "optional"
        )

    def test_request_field_added(self) -> None:
        def change(d: Dict[str, Any]) -> None:
            props = d["paths"]["/v1/prompt"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]
            props["temperature"] = {"type": "number"}

        self.assertReported(change, "prompt request", "temperature")

    def test_required_changed(self) -> None:
        self.assertReported(lambda d: d["components"]["schemas"]["User"]["required"].remove("name"), "User", "name", "optional")

    def test_type_changed(self) -> None:
        self.assertReported(
            lambda d: d["components"]["schemas"]["CreditStatus"]["properties"].__setitem__("balance", {"type": "string"}),
            "balance",
            "string",
        )

    def test_nullability_changed(self) -> None:
        self.assertReported(
            lambda d: d["components"]["schemas"]["Content"]["properties"].__setitem__("errorMessage", {"type": "string"}),
            "errorMessage",
            "never null",
        )

    def test_enum_changed(self) -> None:
        self.assertReported(
            lambda d: d["components"]["schemas"]["Render"]["enum"].append("sometimes"), "render", "sometimes"
        )

    def test_operation_added(self) -> None:
        self.assertReported(
            lambda d: d["paths"].__setitem__(
                "/v1/screenshot", {"get": {"operationId": "screenshot", "responses": {"200": {"description": "x"}}}}
            ),
            "screenshot",
            "neither calls it",
        )

    def test_operation_removed(self) -> None:
        self.assertReported(lambda d: d["paths"].pop("/v1/map"), "map", "not in the document")

    def test_query_parameter_added(self) -> None:
        self.assertReported(
            lambda d: d["paths"]["/v1/map"]["get"]["parameters"].append({"name": "depth", "in": "query", "schema": {"type": "integer"}}),
            "depth",
        )

    def test_failure_reason_added(self) -> None:
        self.assertReported(
            lambda d: d["components"]["schemas"]["Reason"]["enum"].append("paywall"), "paywall"
        )

    def test_webhook_field_added(self) -> None:
        self.assertReported(
            lambda d: d["components"]["schemas"]["BulkFailure"]["properties"].__setitem__("retry_at", {"type": "string"}),
            "content-bulk-failure",
            "retry_at",
        )

    def test_success_status_added(self) -> None:
        self.assertReported(
            lambda d: d["paths"]["/v1/content"]["get"]["responses"].__setitem__(
                "206", d["paths"]["/v1/content"]["get"]["responses"]["200"]
            ),
            "getContent",
            "206",
        )


class TheYAMLReader(unittest.TestCase):
    def test_subset(self) -> None:
        text = (
            'a: 1\nb: "two: 2"\nc: [x, "y,z", {k: v}]\nd:\n  - e: true\n    f: null\n  - 3.5\n'
            "g: |\n  line one\n\n  line two\nh: {'q''s': it's}\n"
        )
        self.assertEqual(
            openapi_yaml.loads(text),
            {
                "a": 1,
                "b": "two: 2",
                "c": ["x", "y,z", {"k": "v"}],
                "d": [{"e": True, "f": None}, 3.5],
                "g": "line one\n\nline two\n",
                "h": {"q's": "it's"},
            },
        )

    def test_refuses_what_it_does_not_read(self) -> None:
        for text in ("a: &anchor 1\nb: *anchor\n", "a: >\n  folded\n", "a: [1, 2\n", "a: 1\n a: 2\n"):
            with self.subTest(text=text), self.assertRaises(openapi_yaml.YAMLError):
                openapi_yaml.loads(text)


if __name__ == "__main__":
    unittest.main()
