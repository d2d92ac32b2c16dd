"""The Trawl API client."""

from __future__ import annotations

import http.client
import json
import os
import secrets
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import (
    Any,
    Callable,
    Dict,
    Generic,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    cast,
)

from .errors import TrawlConnectionError, TrawlError, header, header_int
from .types import (
    Monitor,
    MonitorCrawl,
    MonitorPage,
    MonitorPatch,
    MonitorRequest,
    MonitorStatus,
    BulkAck,
    BulkJob,
    BulkRequest,
    CanAfford,
    Checkout,
    Content,
    ContentRequest,
    CostPreview,
    CrawlAck,
    CrawlPages,
    CrawlRequest,
    CrawlScope,
    CrawlSitemap,
    CrawlStatus,
    Credits,
    CreditStatus,
    ExtractRequest,
    Extracted,
    PreviewRequest,
    PromptAnswer,
    PromptRequest,
    PurchaseRequest,
    Render,
    Scraped,
    SearchEngine,
    SearchResults,
    ServiceType,
    SiteMap,
    Transaction,
    TransactionPage,
    User,
)

__all__ = ["Client", "Result", "Operation", "OPERATIONS", "VERSION"]

VERSION = "0.1.0"

T = TypeVar("T")


@dataclass(frozen=True)
class Result(Generic[T]):
    """A successful answer: its decoded body and what the call cost.

    ``credits_charged`` and ``credits_remaining`` come from the
    ``X-Credits-Charged`` and ``X-Credits-Remaining`` headers; a billed
    endpoint sends both on every answer (None on free endpoints, which send
    neither). ``replayed`` is True when an ``Idempotency-Key`` retry was
    answered from the server's record, without a second charge. ``cache``
    is the ``X-Trawl-Cache`` header: ``"hit"`` when the answer (every page
    of it) came from the page cache, ``"miss"`` when some was fetched, None
    when the call says nothing of the cache.
    """

    data: T
    status: int
    credits_charged: Optional[int]
    credits_remaining: Optional[int]
    request_id: Optional[str]
    replayed: bool
    headers: Mapping[str, str] = field(repr=False)
    cache: Optional[str] = None

    def header(self, name: str) -> Optional[str]:
        """A header of the answer, whatever the case of its name."""
        return header(self.headers, name)


@dataclass(frozen=True)
class Operation:
    """One operation of the API as the client calls it.

    ``request`` and ``response`` are the typed dictionaries of the JSON body
    sent and of the success answers (``statuses``); ``query`` names the query
    parameters the client may send. The drift check compares this table with
    the OpenAPI document.
    """

    operation_id: str
    method: str
    path: str
    query: Tuple[str, ...]
    request: Optional[Any]
    response: Any
    statuses: Tuple[int, ...]
    billed: bool


_SEARCH_QUERY = ("q", "loc", "hl", "gl", "engine")
_CACHE_QUERY = ("max_age", "store")

OPERATIONS: Dict[str, Operation] = {
    op.operation_id: op
    for op in (
        Operation("getUser", "GET", "/user", (), None, User, (200,), False),
        Operation("getCredits", "GET", "/v1/credits", (), None, Credits, (200,), False),
        Operation("getUsageStats", "GET", "/v1/credits/usage-stats", (), None, CreditStatus, (200,), False),
        Operation(
            "listTransactions", "GET", "/v1/credits/transactions", ("page", "per_page"), None, TransactionPage, (200,), False
        ),
        Operation("previewCost", "POST", "/v1/credits/preview-cost", (), PreviewRequest, CostPreview, (200,), False),
        Operation("canAfford", "POST", "/v1/credits/can-afford", (), PreviewRequest, CanAfford, (200,), False),
        Operation("purchaseCredits", "POST", "/v1/credits/purchase", (), PurchaseRequest, Checkout, (200,), False),
        Operation("scrape", "GET", "/v1/scrape", ("url", "render") + _CACHE_QUERY, None, Scraped, (200,), True),
        Operation(
            "getContent",
            "GET",
            "/v1/content",
            ("url", "render", "formats", "device", "locale", "country") + _CACHE_QUERY + ("changes", "tag"),
            None,
            Content,
            (200,),
            True,
        ),
        Operation("postContent", "POST", "/v1/content", (), ContentRequest, Content, (200,), True),
        Operation("map", "GET", "/v1/map", ("url", "limit", "include_links"), None, SiteMap, (200,), True),
        Operation("search", "GET", "/v1/serp", _SEARCH_QUERY + _CACHE_QUERY, None, SearchResults, (200,), True),
        Operation(
            "searchContent",
            "GET",
            "/v1/serp/content",
            _SEARCH_QUERY
            + ("max_content", "whitelist_domains[]", "blacklist_domains[]", "render")
            + _CACHE_QUERY
            + ("formats", "device", "locale", "country"),
            None,
            SearchResults,
            (200,),
            True,
        ),
        Operation("prompt", "POST", "/v1/prompt", (), PromptRequest, PromptAnswer, (200,), True),
        Operation("extract", "POST", "/v1/extract", (), ExtractRequest, Extracted, (200,), True),
        Operation("createBulkContentJob", "POST", "/v1/content/bulk", (), BulkRequest, BulkAck, (200, 202), True),
        Operation("getBulkContentJob", "GET", "/v1/content/bulk/{job_id}", (), None, BulkJob, (200,), False),
        Operation("createCrawl", "POST", "/v1/crawl", (), CrawlRequest, CrawlAck, (202,), True),
        Operation("getCrawl", "GET", "/v1/crawl/{crawl_id}", (), None, CrawlStatus, (200,), False),
        Operation(
            "listCrawlPages", "GET", "/v1/crawl/{crawl_id}/pages", ("cursor", "per_page"), None, CrawlPages, (200,), False
        ),
        Operation("cancelCrawl", "DELETE", "/v1/crawl/{crawl_id}", (), None, CrawlStatus, (200,), False),
        Operation("createMonitor", "POST", "/v1/monitors", (), MonitorRequest, Monitor, (201,), False),
        Operation("listMonitors", "GET", "/v1/monitors", ("page", "per_page"), None, MonitorPage, (200,), False),
        Operation("getMonitor", "GET", "/v1/monitors/{monitor_id}", (), None, Monitor, (200,), False),
        Operation("updateMonitor", "PATCH", "/v1/monitors/{monitor_id}", (), MonitorPatch, Monitor, (200,), False),
        Operation("deleteMonitor", "DELETE", "/v1/monitors/{monitor_id}", (), None, None, (204,), False),
    )
}

_FINISHED = ("completed", "failed")

# What a broken connection raises (URLError and timeouts are OSErrors).
_TRANSPORT_ERRORS = (OSError, http.client.HTTPException)

Query = Sequence[Tuple[str, str]]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The API never redirects; a redirect is answered as an error, so the
    token is never sent on to another address."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Client:
    """A client of one Trawl server with one token.

    Calls are retried as the API asks: after ``Retry-After`` on 429, with
    exponential backoff (1 s, 2 s, 4 s, 8 s) on 5xx and when the server
    cannot be reached, never on 401, 402, 403, 404, 409 or 422, nor on a 503
    whose body says ``retryable: false``. Billed calls carry an
    ``Idempotency-Key``, the same on every attempt, so a retry of a call that
    did succeed is answered from the server's record and never charged twice;
    a 409 for that key after an attempt whose answer was lost (a timeout) is
    that attempt still running, and is waited for with backoff too.

    ``attempts`` is the number of attempts in all (1 disables retrying; the
    TypeScript and Go clients name it the same),
    ``backoff`` the first wait after a 5xx (doubled each time), ``max_wait``
    the cap on any single wait (Retry-After included), ``timeout`` the limit
    of one attempt in seconds. ``sleep`` waits between attempts and polls.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        attempts: int = 5,
        backoff: float = 1.0,
        max_wait: float = 60.0,
        timeout: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
        user_agent: str = f"trawl-python/{VERSION}",
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required, e.g. http://127.0.0.1:8080")
        if not api_key:
            raise ValueError("api_key is required (a trawl_... token)")
        self.base_url = base_url.rstrip("/")
        self._key = api_key
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.max_wait = max_wait
        self.timeout = timeout
        self._sleep = sleep
        self.user_agent = user_agent
        self._opener = urllib.request.build_opener(_NoRedirect())

    @classmethod
    def from_env(cls, **options: Any) -> "Client":
        """A client for ``TRAWL_API_URL`` (default http://127.0.0.1:8080) with the token in ``TRAWL_API_KEY``."""
        return cls(os.environ.get("TRAWL_API_URL") or "http://127.0.0.1:8080", os.environ.get("TRAWL_API_KEY", ""), **options)

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    # Transport.

    def _call(
        self,
        operation_id: str,
        *,
        query: Optional[Query] = None,
        body: Optional[Mapping[str, Any]] = None,
        path_params: Optional[Mapping[str, str]] = None,
    ) -> Result[Any]:
        op = OPERATIONS[operation_id]
        path = op.path
        for k, v in (path_params or {}).items():
            path = path.replace("{" + k + "}", urllib.parse.quote(v, safe=""))
        pairs = list(query or ())
        for k, _ in pairs:
            if k not in op.query:
                raise ValueError(f"{operation_id} takes no query parameter {k!r}")
        url = self.base_url + path
        if pairs:
            url += "?" + urllib.parse.urlencode(pairs)
        raw = None if body is None else json.dumps(body).encode("utf-8")
        key = "trawl-py-" + secrets.token_hex(16) if op.billed else None
        return self._send(op.method, url, raw, key)

    def _send(self, method: str, url: str, raw: Optional[bytes], key: Optional[str]) -> Result[Any]:
        wait = self.backoff
        last: Optional[TrawlError] = None
        # lost: an earlier attempt of this call may still be running on the
        # server (its answer never arrived), so a 409 for its key is that
        # attempt, and waiting gets its stored answer.
        lost = False
        for attempt in range(1, self.attempts + 1):
            req = urllib.request.Request(url, data=raw, method=method)
            req.add_header("Authorization", "Bearer " + self._key)
            req.add_header("Accept", "application/json")
            req.add_header("User-Agent", self.user_agent)
            if raw is not None:
                req.add_header("Content-Type", "application/json")
            if key is not None:
                req.add_header("Idempotency-Key", key)
            pause: float
            try:
                with self._opener.open(req, timeout=self.timeout) as res:
                    status, headers, data = res.status, dict(res.headers.items()), res.read()
            except urllib.error.HTTPError as e:
                try:
                    last = TrawlError.from_response(e.code, dict(e.headers.items()), e.read())
                except _TRANSPORT_ERRORS as read_err:
                    last = TrawlConnectionError(f"the answer broke off: {read_err}", read_err)
                finally:
                    e.close()
                if last.status == 409 and lost and key is not None:
                    last.retryable = True
                if not last.retryable:
                    raise last
                if last.retry_after is not None:
                    pause = last.retry_after
                else:
                    pause, wait = wait, wait * 2
            except _TRANSPORT_ERRORS as e:
                reason = getattr(e, "reason", e)
                last = TrawlConnectionError(f"{self.base_url} could not be reached: {reason}", e)
                lost = True
                pause, wait = wait, wait * 2
            else:
                return self._result(status, headers, data)
            if attempt == self.attempts:
                break
            self._sleep(min(pause, self.max_wait))
        assert last is not None
        raise last

    @staticmethod
    def _result(status: int, headers: Mapping[str, str], data: bytes) -> Result[Any]:
        try:
            body = json.loads(data.decode("utf-8")) if data else None
        except (UnicodeDecodeError, ValueError) as e:
            raise TrawlError(status, "the answer is not JSON", request_id=header(headers, "X-Request-Id")) from e
        return Result(
            data=body,
            status=status,
            credits_charged=header_int(headers, "X-Credits-Charged"),
            credits_remaining=header_int(headers, "X-Credits-Remaining"),
            request_id=header(headers, "X-Request-Id"),
            replayed=(header(headers, "Idempotent-Replayed") or "").lower() == "true",
            headers=headers,
            cache=header(headers, "X-Trawl-Cache"),
        )

    # Account and credits (free).

    def user(self) -> Result[User]:
        """The account of the token (verifies a token)."""
        return cast(Result[User], self._call("getUser"))

    def credits(self) -> Result[Credits]:
        """Balance, limit, used and the credit status."""
        return cast(Result[Credits], self._call("getCredits"))

    def usage_stats(self) -> Result[CreditStatus]:
        """The credit status object."""
        return cast(Result[CreditStatus], self._call("getUsageStats"))

    def transactions(self, page: Optional[int] = None, per_page: Optional[int] = None) -> Result[TransactionPage]:
        """One page of credit events, newest first (``per_page`` 1 to 100, default 20)."""
        q: List[Tuple[str, str]] = []
        if page is not None:
            q.append(("page", str(page)))
        if per_page is not None:
            q.append(("per_page", str(per_page)))
        return cast(Result[TransactionPage], self._call("listTransactions", query=q))

    def transaction_pages(self, per_page: Optional[int] = None, start: int = 1) -> Iterator[Result[TransactionPage]]:
        """Every page of credit events from ``start`` to the last, one request per page."""
        page = start
        while True:
            r = self.transactions(page=page, per_page=per_page)
            yield r
            if not r.data["data"] or r.data["current_page"] >= r.data["last_page"]:
                return
            page += 1

    def iter_transactions(self, per_page: Optional[int] = None) -> Iterator[Transaction]:
        """Every credit event, newest first, fetching pages as the iteration needs them.

        An event recorded while the iteration runs pushes older ones down a
        page; each event is still yielded once (events already yielded are
        skipped by id)."""
        seen: set[int] = set()
        for r in self.transaction_pages(per_page=per_page):
            for tx in r.data["data"]:
                if tx["id"] not in seen:
                    seen.add(tx["id"])
                    yield tx

    def preview_cost(self, service_type: ServiceType, quantity: int = 1) -> Result[CostPreview]:
        """What ``quantity`` calls of a service would cost (deducts nothing)."""
        body: PreviewRequest = {"service_type": service_type, "quantity": quantity}
        return cast(Result[CostPreview], self._call("previewCost", body=body))

    def can_afford(self, service_type: ServiceType, quantity: int = 1) -> Result[CanAfford]:
        """Whether the balance covers ``quantity`` calls, with the preview."""
        body: PreviewRequest = {"service_type": service_type, "quantity": quantity}
        return cast(Result[CanAfford], self._call("canAfford", body=body))

    def purchase(self, credits: int) -> Result[Checkout]:
        """A hosted checkout for 100 to 10,000 top-up credits, added once it is paid."""
        body: PurchaseRequest = {"credits": credits}
        return cast(Result[Checkout], self._call("purchaseCredits", body=body))

    # Pages.

    def scrape(
        self, url: str, render: Optional[Render] = None, *, max_age: Optional[int] = None, store: Optional[bool] = None
    ) -> Result[Scraped]:
        """The raw HTML of a page (1 credit). ``max_age`` (seconds) accepts a
        cached response that old; ``store=False`` keeps this one out of the cache."""
        return cast(Result[Scraped], self._call("scrape", query=_page_query(url, render) + _cache_query(max_age, store)))

    def content(
        self,
        url: str,
        render: Optional[Render] = None,
        *,
        max_age: Optional[int] = None,
        store: Optional[bool] = None,
        changes: Optional[bool] = None,
        tag: Optional[str] = None,
        formats: Optional[Sequence[str]] = None,
        device: Optional[str] = None,
        locale: Optional[str] = None,
        country: Optional[str] = None,
    ) -> Result[Content]:
        """The main content of a page as clean HTML and Markdown with metadata (2 credits).
        ``max_age`` and ``store`` as for :meth:`scrape`; ``changes=True`` compares
        it with the previous answer for the page (and ``tag``). ``formats`` adds
        ``links``, ``images`` or a ``screenshot``/``screenshot_full``; ``device``,
        ``locale`` and ``country`` say how the page is loaded."""
        q = _page_query(url, render)
        if formats:
            q.append(("formats", ",".join(formats)))
        for k, v in (("device", device), ("locale", locale), ("country", country)):
            if v is not None:
                q.append((k, v))
        q += _cache_query(max_age, store)
        if changes is not None:
            q.append(("changes", "true" if changes else "false"))
        if tag is not None:
            q.append(("tag", tag))
        return cast(Result[Content], self._call("getContent", query=q))

    def content_with(self, request: ContentRequest) -> Result[Content]:
        """The main content of a page with formats, actions (at most 50 steps run
        before the read), device, locale, headers and cookies for the target's host,
        and a proxy ``country`` (2 credits; screenshots and actions add nothing)."""
        return cast(Result[Content], self._call("postContent", body=dict(request)))

    def map(self, url: str, limit: Optional[int] = None, include_links: bool = False) -> Result[SiteMap]:
        """A domain's URLs from its sitemaps (3 credits; free when none is found).

        With ``include_links``, when the sitemaps are missing or short, also the
        URLs a shallow link crawl from ``url`` finds (robots.txt obeyed);
        ``sources`` then includes ``"links"``.
        """
        q: List[Tuple[str, str]] = [("url", url)]
        if limit is not None:
            q.append(("limit", str(limit)))
        if include_links:
            q.append(("include_links", "true"))
        return cast(Result[SiteMap], self._call("map", query=q))

    # Search.

    def search(
        self,
        q: str,
        *,
        engine: Optional[SearchEngine] = None,
        loc: Optional[str] = None,
        hl: Optional[str] = None,
        gl: Optional[str] = None,
        max_age: Optional[int] = None,
        store: Optional[bool] = None,
    ) -> Result[SearchResults]:
        """Search results from one engine (5 credits)."""
        query = _search_query(q, engine, loc, hl, gl) + _cache_query(max_age, store)
        return cast(Result[SearchResults], self._call("search", query=query))

    def search_content(
        self,
        q: str,
        *,
        engine: Optional[SearchEngine] = None,
        loc: Optional[str] = None,
        hl: Optional[str] = None,
        gl: Optional[str] = None,
        max_content: Optional[int] = None,
        whitelist: Iterable[str] = (),
        blacklist: Iterable[str] = (),
        render: Optional[Render] = None,
        max_age: Optional[int] = None,
        store: Optional[bool] = None,
        formats: Optional[Sequence[str]] = None,
        device: Optional[str] = None,
        locale: Optional[str] = None,
        country: Optional[str] = None,
    ) -> Result[SearchResults]:
        """Search results with the content of the top results (5 + 2 per page extracted);
        ``formats``, ``device``, ``locale`` and ``country`` apply to each page read."""
        query = _search_query(q, engine, loc, hl, gl)
        if max_content is not None:
            query.append(("max_content", str(max_content)))
        query += [("whitelist_domains[]", d) for d in whitelist]
        query += [("blacklist_domains[]", d) for d in blacklist]
        if render is not None:
            query.append(("render", render))
        query += _cache_query(max_age, store)
        if formats:
            query.append(("formats", ",".join(formats)))
        for k, v in (("device", device), ("locale", locale), ("country", country)):
            if v is not None:
                query.append((k, v))
        return cast(Result[SearchResults], self._call("searchContent", query=query))

    # Prompt and extraction.

    def prompt(self, prompt: str, url: Optional[str] = None, render: Optional[Render] = None) -> Result[PromptAnswer]:
        """An LLM answer, grounded on the page at ``url`` when given (10 credits)."""
        body: PromptRequest = {"prompt": prompt}
        if url is not None:
            body["url"] = url
        if render is not None:
            body["render"] = render
        return cast(Result[PromptAnswer], self._call("prompt", body=body))

    def extract(
        self,
        url: str,
        schema: Union[Mapping[str, Any], str],
        prompt: Optional[str] = None,
        render: Optional[Render] = None,
        *,
        changes: Optional[bool] = None,
        tag: Optional[str] = None,
    ) -> Result[Extracted]:
        """Data from a page that validates against the JSON Schema ``schema`` (10 credits).

        A model answer that does not validate twice is a free 503 with reason ``llm_failed``.
        ``changes=True`` compares the data with this account's previous
        extraction of the page (under ``tag``) field by field: ``change``."""
        body: ExtractRequest = {"url": url, "schema": schema if isinstance(schema, str) else dict(schema)}
        if prompt is not None:
            body["prompt"] = prompt
        if render is not None:
            body["render"] = render
        if changes is not None:
            body["changes"] = changes
        if tag is not None:
            body["tag"] = tag
        return cast(Result[Extracted], self._call("extract", body=body))

    # Bulk jobs.

    def create_bulk_job(
        self,
        urls: Optional[Sequence[str]] = None,
        *,
        sitemap: Optional[str] = None,
        email: Optional[bool] = None,
        callback_url: Optional[str] = None,
        sync: Optional[bool] = None,
        render: Optional[Render] = None,
        page_options: Optional[Mapping[str, Any]] = None,
        max_age: Optional[int] = None,
        store: Optional[bool] = None,
        changes: Optional[bool] = None,
        tag: Optional[str] = None,
    ) -> Result[BulkAck]:
        """Queues up to 100 URLs (or a sitemap's) for extraction, delivered by
        email and/or signed webhook (2 credits per URL extracted). With
        ``sync`` and 10 URLs or fewer the job runs inside the call (status 200).
        ``render`` reads every URL of the job the way the single-URL calls do
        (the server's default is ``auto``); each result says which ``engine``
        read it, and a failed one its ``reason`` and whether it is ``retryable``.
        ``page_options`` (formats, actions, device, locale, headers, cookies,
        country) apply to every URL, as ``content_with`` takes them.
        ``max_age``, ``store``, ``changes`` and ``tag`` apply to every page,
        as :meth:`content` takes them."""
        body: BulkRequest = {}
        if urls is not None:
            body["urls"] = list(urls)
        if sitemap is not None:
            body["sitemap"] = sitemap
        if email is not None:
            body["email"] = email
        if callback_url is not None:
            body["callback_url"] = callback_url
        if sync is not None:
            body["sync"] = sync
        if render is not None:
            body["render"] = render
        _freshness(cast(Dict[str, Any], body), max_age, store, changes, tag)
        body.update(cast(BulkRequest, dict(page_options or {})))
        return cast(Result[BulkAck], self._call("createBulkContentJob", body=body))

    def bulk_job(self, job_id: str) -> Result[BulkJob]:
        """A job's state, counts, per-URL outcome and delivery attempts (free)."""
        return cast(Result[BulkJob], self._call("getBulkContentJob", path_params={"job_id": job_id}))

    def wait_bulk_job(
        self,
        job_id: str,
        *,
        on_progress: Optional[Callable[[BulkJob], None]] = None,
        poll_interval: float = 1.0,
        timeout: Optional[float] = None,
    ) -> Result[BulkJob]:
        """Polls a job until it is ``completed`` or ``failed`` and returns it.

        ``on_progress`` is called with the job on the first poll and whenever
        its status or counts change. Raises ``TimeoutError`` when ``timeout``
        seconds pass first; the job carries on on the server either way."""
        deadline = None if timeout is None else time.monotonic() + timeout
        seen: Optional[Tuple[Any, ...]] = None
        while True:
            r = self.bulk_job(job_id)
            job = r.data
            now = (job["status"], job["processed_count"], job["success_count"], job["failed_count"], len(job["deliveries"]))
            if on_progress is not None and now != seen:
                on_progress(job)
            seen = now
            if job["status"] in _FINISHED:
                return r
            pause = poll_interval
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(
                        f"bulk job {job_id} is still {job['status']} "
                        f"({job['processed_count']} of {job['urls_count']} URLs) after {timeout} s"
                    )
                pause = min(pause, left)
            self._sleep(pause)


    # Crawls.

    def create_crawl(
        self,
        url: str,
        *,
        limit: Optional[int] = None,
        max_depth: Optional[int] = None,
        include: Optional[Sequence[str]] = None,
        exclude: Optional[Sequence[str]] = None,
        scope: Optional[CrawlScope] = None,
        sitemap: Optional[CrawlSitemap] = None,
        ignore_query_params: Optional[Sequence[str]] = None,
        render: Optional[Render] = None,
        callback_url: Optional[str] = None,
        email: Optional[bool] = None,
        page_options: Optional[Mapping[str, Any]] = None,
        max_age: Optional[int] = None,
        store: Optional[bool] = None,
        changes: Optional[bool] = None,
        tag: Optional[str] = None,
    ) -> Result[CrawlAck]:
        """Queues a crawl of the site from ``url`` (2 credits per page
        extracted; the cost of ``limit`` pages is held at submission and what
        is left released when the crawl ends). Unset options take the
        server's defaults: ``limit`` 100, ``max_depth`` 3, ``scope`` ``host``,
        ``sitemap`` ``include``, ``render`` ``auto``. ``include`` and
        ``exclude`` are globs or, prefixed ``re:``, RE2 expressions matched on
        the path plus query; exclude wins. ``page_options`` (formats,
        actions, device, locale, headers, cookies, country) apply to every page,
        and so do ``max_age``, ``store``, ``changes`` and ``tag``."""
        body: CrawlRequest = {"url": url}
        if limit is not None:
            body["limit"] = limit
        if max_depth is not None:
            body["max_depth"] = max_depth
        if include is not None:
            body["include"] = list(include)
        if exclude is not None:
            body["exclude"] = list(exclude)
        if scope is not None:
            body["scope"] = scope
        if sitemap is not None:
            body["sitemap"] = sitemap
        if ignore_query_params is not None:
            body["ignore_query_params"] = list(ignore_query_params)
        if render is not None:
            body["render"] = render
        if callback_url is not None:
            body["callback_url"] = callback_url
        if email is not None:
            body["email"] = email
        _freshness(cast(Dict[str, Any], body), max_age, store, changes, tag)
        # formats, actions, device, locale, headers, cookies, country: for
        # every page, as content_with takes them.
        cast(Dict[str, Any], body).update(page_options or {})
        return cast(Result[CrawlAck], self._call("createCrawl", body=body))

    def crawl(self, crawl_id: str) -> Result[CrawlStatus]:
        """A crawl's status and counts, skipped URLs by reason (free; never waits)."""
        return cast(Result[CrawlStatus], self._call("getCrawl", path_params={"crawl_id": crawl_id}))

    def crawl_pages(
        self, crawl_id: str, cursor: Optional[str] = None, per_page: Optional[int] = None
    ) -> Result[CrawlPages]:
        """One page of a crawl's extracted pages in the order they finished
        (free; ``per_page`` 1 to 100, default 20). Pass ``next_cursor`` as
        ``cursor`` for the next; it is None once the crawl is over and every
        page was listed."""
        q: List[Tuple[str, str]] = []
        if cursor is not None:
            q.append(("cursor", cursor))
        if per_page is not None:
            q.append(("per_page", str(per_page)))
        return cast(Result[CrawlPages], self._call("listCrawlPages", query=q, path_params={"crawl_id": crawl_id}))

    def cancel_crawl(self, crawl_id: str) -> Result[CrawlStatus]:
        """Cancels a crawl: pages in flight finish (and are charged if they
        succeed), nothing new starts, the rest of the hold is released."""
        return cast(Result[CrawlStatus], self._call("cancelCrawl", path_params={"crawl_id": crawl_id}))

    # Monitors (free; each check is charged 2 credits per page it reads).

    def create_monitor(
        self,
        schedule: str,
        *,
        urls: Optional[Sequence[str]] = None,
        crawl: Optional[MonitorCrawl] = None,
        name: Optional[str] = None,
        callback_url: Optional[str] = None,
        email: Optional[bool] = None,
        changes_only: Optional[bool] = None,
    ) -> Result[Monitor]:
        """Watches ``urls`` (1 to 100) or a ``crawl`` on the cron ``schedule``
        (at most every 5 minutes): each check compares the pages with the
        previous check and reports to ``callback_url`` and/or by ``email``;
        with ``changes_only`` (the server's default) only changes, and
        nothing when none changed."""
        body: MonitorRequest = {"schedule": schedule}
        _given(
            cast(Dict[str, Any], body),
            urls=None if urls is None else list(urls),
            crawl=crawl,
            name=name,
            callback_url=callback_url,
            email=email,
            changes_only=changes_only,
        )
        return cast(Result[Monitor], self._call("createMonitor", body=body))

    def monitors(self, page: Optional[int] = None, per_page: Optional[int] = None) -> Result[MonitorPage]:
        """A page of the account's monitors, newest first (``per_page`` 1 to 100, default 20)."""
        q: List[Tuple[str, str]] = []
        if page is not None:
            q.append(("page", str(page)))
        if per_page is not None:
            q.append(("per_page", str(per_page)))
        return cast(Result[MonitorPage], self._call("listMonitors", query=q))

    def monitor(self, monitor_id: str) -> Result[Monitor]:
        """A monitor with its latest checks, newest first."""
        return cast(Result[Monitor], self._call("getMonitor", path_params={"monitor_id": monitor_id}))

    def update_monitor(
        self,
        monitor_id: str,
        *,
        status: Optional[MonitorStatus] = None,
        schedule: Optional[str] = None,
        name: Optional[str] = None,
        callback_url: Optional[str] = None,
        email: Optional[bool] = None,
        changes_only: Optional[bool] = None,
    ) -> Result[Monitor]:
        """Pauses (``status="paused"``) or resumes (``"active"``) a monitor, or
        changes its schedule, name, delivery or ``changes_only``; ``callback_url=""``
        removes the webhook. A resume or a new schedule runs from now."""
        body: MonitorPatch = {}
        _given(
            cast(Dict[str, Any], body),
            status=status,
            schedule=schedule,
            name=name,
            callback_url=callback_url,
            email=email,
            changes_only=changes_only,
        )
        return cast(Result[Monitor], self._call("updateMonitor", body=body, path_params={"monitor_id": monitor_id}))

    def delete_monitor(self, monitor_id: str) -> Result[None]:
        """Deletes a monitor and its checks; a check already running finishes and reports nothing."""
        return cast(Result[None], self._call("deleteMonitor", path_params={"monitor_id": monitor_id}))


def _page_query(url: str, render: Optional[Render]) -> List[Tuple[str, str]]:
    q = [("url", url)]
    if render is not None:
        q.append(("render", render))
    return q


def _given(body: Dict[str, Any], **fields: Any) -> None:
    """Adds to a body the fields given (those not None)."""
    for name, value in fields.items():
        if value is not None:
            body[name] = value


def _freshness(
    body: Dict[str, Any], max_age: Optional[int], store: Optional[bool], changes: Optional[bool], tag: Optional[str]
) -> None:
    """Adds a job's page cache and change tracking fields to its body, those given."""
    _given(body, max_age=max_age, store=store, changes=changes, tag=tag)


def _cache_query(max_age: Optional[int], store: Optional[bool]) -> List[Tuple[str, str]]:
    q: List[Tuple[str, str]] = []
    if max_age is not None:
        q.append(("max_age", str(max_age)))
    if store is not None:
        q.append(("store", "true" if store else "false"))
    return q


def _search_query(
    q: str, engine: Optional[str], loc: Optional[str], hl: Optional[str], gl: Optional[str]
) -> List[Tuple[str, str]]:
    out = [("q", q)]
    for k, v in (("engine", engine), ("loc", loc), ("hl", hl), ("gl", gl)):
        if v is not None:
            out.append((k, v))
    return out

