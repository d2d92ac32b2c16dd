"""The JSON objects of Trawl's API, as typed dictionaries.

Each type follows a schema of the OpenAPI document the server serves at
``/openapi.json``: a key is required exactly when the schema lists it as
required (the others are ``NotRequired``), and ``Optional`` exactly when the
schema allows null. The SDK's drift check (``tests/test_drift.py``) compares
every type here with the document and fails on a missing or an extra field,
a changed requirement or a changed type. Answers may carry fields a newer
server added; they stay in the dictionary.
"""

# No "from __future__ import annotations" here: TypedDict reads NotRequired
# from evaluated annotations only.

from typing import Any, Dict, List, Literal, NotRequired, Optional, TypedDict, Union

Render = Literal["auto", "always", "never"]
"""How a page is read: ``auto`` (the server's default) fetches it over HTTP and
renders it in a browser when the static page needs one; ``always`` renders;
``never`` does not."""

Engine = Literal["http", "browser"]
"""How a page was read."""

SearchEngine = Literal["google", "bing", "duckduckgo"]

ServiceType = Literal["scrape", "content", "crawl", "serp", "prompt", "extract"]
"""The services a cost preview prices."""

Reason = Literal[
    "blocked",
    "captcha",
    "page_not_found",
    "site_error",
    "not_html",
    "no_main_content",
    "no_text_layer",
    "encrypted",
    "unreadable_document",
    "too_large",
    "timeout",
    "dns",
    "refused",
    "tls",
    "redirects",
    "fetch_failed",
    "canceled",
    "no_sitemap",
    "render_failed",
    "engine_blocked",
    "engine_unreachable",
    "engine_failed",
    "llm_failed",
    "llm_unavailable",
    "busy",
    "payment_unavailable",
    "not_offered",
    "delivery_failed",
    "unavailable",
]
"""The stable codes of a 503's ``reason``, and of a failed URL of a bulk job.
New codes may be added; treat an unknown one as ``unavailable``."""


class User(TypedDict):
    """The account of the token (``GET /user``)."""

    id: int
    name: str
    email: str
    email_verified_at: Optional[str]
    created_at: str
    updated_at: str


class CreditStatus(TypedDict):
    """The credit status object (``GET /v1/credits/usage-stats``)."""

    balance: int
    formatted_balance: str
    limit: int
    used: int
    is_low: bool
    threshold: int
    percentage_used: float
    next_renewal: Optional[str]


class Credits(TypedDict):
    """The answer of ``GET /v1/credits``."""

    balance: int
    formatted_balance: str
    limit: int
    used: int
    status: CreditStatus


class TransactionMetadata(TypedDict, total=False):
    """What a credit event was for."""

    url: str
    query: str
    job_id: str
    session_id: str
    request_id: str


class Transaction(TypedDict):
    """One credit event: ``credits`` is positive for a charge, negative for credits added."""

    id: int
    service_type: str
    service_name: str
    credits: int
    balance_after: int
    created_at: str
    metadata: TransactionMetadata


class PageLinks(TypedDict):
    """The links of a page of a list; ``prev`` and ``next`` are None at the ends."""

    first: str
    last: str
    prev: Optional[str]
    next: Optional[str]


# "from" is a keyword, so this type is declared the functional way.
TransactionPage = TypedDict(
    "TransactionPage",
    {
        "data": List[Transaction],
        "current_page": int,
        "last_page": int,
        "per_page": int,
        "total": int,
        "from": Optional[int],
        "to": Optional[int],
        "links": PageLinks,
        "path": NotRequired[str],
        "first_page_url": NotRequired[str],
        "last_page_url": NotRequired[str],
        "prev_page_url": NotRequired[Optional[str]],
        "next_page_url": NotRequired[Optional[str]],
    },
)
"""A page of transactions, newest first (``GET /v1/credits/transactions``)."""


class PreviewRequest(TypedDict):
    """The body of ``POST /v1/credits/preview-cost`` and ``/v1/credits/can-afford``."""

    service_type: ServiceType
    quantity: NotRequired[int]


class CostPreview(TypedDict):
    """What ``quantity`` calls of a service would cost; ``remaining_after`` may be negative."""

    service_type: str
    service_name: str
    credit_cost_per_request: int
    quantity: int
    total_cost: int
    current_balance: int
    remaining_after: int
    can_afford: bool


class CanAfford(TypedDict):
    """The answer of ``POST /v1/credits/can-afford``."""

    can_afford: bool
    preview: CostPreview


class PurchaseRequest(TypedDict):
    """The body of ``POST /v1/credits/purchase``: 100 to 10,000 credits."""

    credits: int


class Checkout(TypedDict):
    """A hosted top-up checkout; the credits are added once it is paid."""

    checkout_url: str
    session_id: str


class Cache(TypedDict):
    """Whether an answer came from the page cache: ``cached_at`` is when the
    site last vouched for the response (None when it is not kept), ``age``
    seconds since then."""

    hit: bool
    cached_at: Optional[str]
    age: int
    revalidated: NotRequired[bool]


class FieldChange(TypedDict):
    """One changed field of an extraction."""

    previous: Any
    current: Any


class Change(TypedDict):
    """An answer compared with the previous one the account got for the page
    (``changes=True``): ``new``, ``same``, ``changed`` (with ``diff``, or
    ``fields`` for an extraction) or ``removed``."""

    status: Literal["new", "same", "changed", "removed"]
    previous_at: Optional[str]
    diff: NotRequired[str]
    fields: NotRequired[Dict[str, FieldChange]]


class Scraped(TypedDict):
    """The raw HTML of a page (``GET /v1/scrape``)."""

    url: str
    final_url: str
    statusCode: int
    contentType: str
    html: str
    engine: NotRequired[Engine]
    cache: NotRequired[Cache]


class Metadata(TypedDict):
    """A page's metadata; ``pageCount`` only for documents (PDF, DOCX)."""

    title: str
    description: str
    keywords: str
    author: str
    language: str
    favicon: str
    ogImage: str
    ogImageWidth: str
    ogImageHeight: str
    ogTitle: str
    ogType: str
    pageCount: NotRequired[int]


Device = Literal["desktop", "mobile"]
"""The device a page is loaded as."""

Format = Literal["markdown", "html", "links", "images", "screenshot", "screenshot_full"]
"""What a content call answers beside the main content."""


class Link(TypedDict):
    """A link of the page: absolute, with its anchor text."""

    url: str
    text: str


class Image(TypedDict):
    """An image of the page: absolute, with its alt text."""

    url: str
    alt: str


class Screenshot(TypedDict):
    """A PNG behind a signed link that expires."""

    url: str
    width: int
    height: int
    expires_at: str


class ActionResult(TypedDict):
    """What one action gave back: an execute step's ``value``, a screenshot step's ``screenshot``."""

    index: int
    type: str
    value: NotRequired[Any]
    screenshot: NotRequired[Screenshot]


class Action(TypedDict):
    """One step run in the page before it is read (``type`` and the fields of that type)."""

    type: Literal["wait", "click", "type", "press", "scroll", "screenshot", "execute"]
    milliseconds: NotRequired[int]
    selector: NotRequired[str]
    text: NotRequired[str]
    key: NotRequired[str]
    direction: NotRequired[Literal["up", "down", "bottom"]]
    script: NotRequired[str]


class ContentRequest(TypedDict):
    """The body of ``POST /v1/content``: the page, and its formats, actions and page options."""

    url: str
    render: NotRequired[Render]
    formats: NotRequired[List[Format]]
    actions: NotRequired[List[Action]]
    device: NotRequired[Device]
    locale: NotRequired[str]
    headers: NotRequired[Dict[str, str]]
    cookies: NotRequired[Dict[str, str]]
    country: NotRequired[str]
    max_age: NotRequired[int]
    store: NotRequired[bool]
    changes: NotRequired[bool]
    tag: NotRequired[str]


class Content(TypedDict):
    """The main content of a page (``GET /v1/content``)."""

    url: str
    success: bool
    statusCode: int
    errorMessage: Optional[str]
    html: str
    markdown: str
    metadata: Metadata
    engine: NotRequired[Engine]
    warning: NotRequired[str]
    cache: NotRequired[Cache]
    change: NotRequired[Change]
    links: NotRequired[List[Link]]
    images: NotRequired[List[Image]]
    screenshot: NotRequired[Screenshot]
    actions: NotRequired[List[ActionResult]]


class SiteMap(TypedDict):
    """A domain's URLs from its sitemaps (``GET /v1/map``)."""

    url: str
    total: int
    truncated: bool
    sources: List[str]
    urls: List[str]


class Sitelink(TypedDict):
    """A link under a search result."""

    title: str
    link: str


class OrganicResult(TypedDict):
    """One web result; ``content`` is set on results ``search_content`` fetched."""

    position: int
    title: str
    link: str
    snippet: str
    displayed_link: str
    thumbnail: Optional[str]
    favicon: str
    sitelinks: Optional[List[Sitelink]]
    source: str
    content: NotRequired[Content]


class SearchInformation(TypedDict):
    """About a search as the engine ran it."""

    query_displayed: str
    total_results: int
    time_taken: float


class RelatedQuestion(TypedDict):
    """A "people also ask" question."""

    question: str
    answer: NotRequired[str]


class RelatedSearch(TypedDict):
    """A related search."""

    query: str
    link: str
    image: NotRequired[str]


class SearchResults(TypedDict):
    """A result page (``GET /v1/serp`` and ``GET /v1/serp/content``)."""

    search_parameters: NotRequired[Dict[str, str]]
    search_information: SearchInformation
    organic_results: List[OrganicResult]
    related_questions: List[RelatedQuestion]
    related_searches: List[RelatedSearch]
    cache: NotRequired[Cache]


class PromptRequest(TypedDict):
    """The body of ``POST /v1/prompt``."""

    prompt: str
    url: NotRequired[str]
    render: NotRequired[Render]


class PromptAnswer(TypedDict):
    """The model's text."""

    response: str


class ExtractRequest(TypedDict):
    """The body of ``POST /v1/extract``: ``schema`` is a JSON Schema (or its JSON text)."""

    url: str
    schema: Union[Dict[str, Any], str]
    prompt: NotRequired[str]
    render: NotRequired[Render]
    changes: NotRequired[bool]
    tag: NotRequired[str]


class Extracted(TypedDict):
    """Data from a page, valid against the schema asked for."""

    data: Any
    url: str
    change: NotRequired[Change]


class BulkRequest(TypedDict, total=False):
    """The body of ``POST /v1/content/bulk``: ``urls`` (1 to 100) or a ``sitemap``."""

    urls: Optional[List[str]]
    sitemap: str
    email: bool
    callback_url: str
    sync: bool
    render: Render
    max_age: int
    store: bool
    changes: bool
    tag: str
    formats: List[Format]
    actions: List[Action]
    device: Device
    locale: str
    headers: Dict[str, str]
    cookies: Dict[str, str]
    country: str


class BulkAck(TypedDict):
    """A bulk job accepted (202) or, with ``sync``, processed (200)."""

    message: str
    job_id: str
    urls_count: int
    url_source: Literal["urls", "sitemap"]
    delivery_method: str
    estimated_completion_time: str
    status: Literal["queued"]
    queued_at: str


class BulkResult(TypedDict):
    """The outcome of one URL of a job.

    ``engine`` says how a page was read (``http`` or ``browser``); a failed
    URL carries ``reason``, the stable code a single-URL 503 would have, and
    ``retryable``, whether reading it again may succeed.
    """

    url: str
    status: Literal["pending", "succeeded", "failed"]
    success: bool
    statusCode: int
    error: Optional[str]
    engine: NotRequired[Engine]
    reason: NotRequired[Reason]
    retryable: NotRequired[bool]


class BulkDelivery(TypedDict):
    """One attempt to deliver a job's results; ``status_code`` is the receiver's answer."""

    channel: Literal["email", "webhook"]
    attempt: int
    status_code: NotRequired[int]
    error: Optional[str]
    duration_ms: int
    at: str


BulkStatus = Literal["queued", "processing", "completed", "failed"]


class BulkJob(TypedDict):
    """A job's state (``GET /v1/content/bulk/{job_id}``)."""

    job_id: str
    status: BulkStatus
    url_source: str
    delivery_method: str
    sync: NotRequired[bool]
    render: NotRequired[Render]
    urls_count: int
    processed_count: int
    success_count: int
    failed_count: int
    queued_at: str
    started_at: NotRequired[Optional[str]]
    completed_at: NotRequired[Optional[str]]
    failed_at: NotRequired[Optional[str]]
    error: NotRequired[Optional[str]]
    download_url: NotRequired[Optional[str]]
    results: List[BulkResult]
    deliveries: List[BulkDelivery]


CrawlScope = Literal["host", "domain", "subdomains"]
"""Which hosts a crawl may read: the start ``host``, the registrable
``domain`` and all its subdomains, or the start host and its ``subdomains``."""

CrawlSitemap = Literal["include", "skip", "only"]
"""How a crawl uses sitemaps: seed from them and follow links (``include``),
links only (``skip``), or the sitemaps' URLs only (``only``)."""


class CrawlRequest(TypedDict):
    """The body of ``POST /v1/crawl``; ``url`` is required."""

    url: str
    limit: NotRequired[int]
    max_depth: NotRequired[int]
    include: NotRequired[List[str]]
    exclude: NotRequired[List[str]]
    scope: NotRequired[CrawlScope]
    sitemap: NotRequired[CrawlSitemap]
    ignore_query_params: NotRequired[List[str]]
    render: NotRequired[Render]
    callback_url: NotRequired[str]
    email: NotRequired[bool]
    max_age: NotRequired[int]
    store: NotRequired[bool]
    changes: NotRequired[bool]
    tag: NotRequired[str]
    formats: NotRequired[List[Format]]
    actions: NotRequired[List[Action]]
    device: NotRequired[Device]
    locale: NotRequired[str]
    headers: NotRequired[Dict[str, str]]
    cookies: NotRequired[Dict[str, str]]
    country: NotRequired[str]


class CrawlAck(TypedDict):
    """A crawl accepted (202)."""

    crawl_id: str
    status: Literal["queued"]
    url: str
    limit: int
    max_depth: int
    queued_at: str


class CrawlSkipped(TypedDict):
    """The URLs a crawl skipped, by reason; every reason is always present."""

    robots: int
    filter: int
    scope: int
    depth: int
    duplicate: int
    limit: int


CrawlState = Literal["queued", "running", "completed", "cancelled", "failed"]


class CrawlStatus(TypedDict):
    """A crawl's state and counts (``GET`` and ``DELETE /v1/crawl/{crawl_id}``)."""

    crawl_id: str
    status: CrawlState
    url: str
    limit: int
    max_depth: int
    discovered: int
    queued: int
    in_flight: int
    succeeded: int
    failed: int
    skipped: CrawlSkipped
    credits_charged: int
    queued_at: str
    started_at: Optional[str]
    completed_at: Optional[str]
    error: Optional[str]


class CrawlPage(Content):
    """An extracted page of a crawl: a :class:`Content` plus its link
    ``depth`` and the ``parent`` page it was found on (empty for the start
    URL and sitemap URLs)."""

    depth: int
    parent: str


class CrawlPages(TypedDict):
    """A page of a crawl's extracted pages; ``next_cursor`` is None once the
    crawl is over and every page was listed."""

    crawl_id: str
    pages: List[CrawlPage]
    next_cursor: Optional[str]


class WebhookUser(TypedDict):
    """The account a webhook delivery is for."""

    id: int
    email: str


class BulkCompletionResult(TypedDict):
    """One URL of a finished job, as delivered by webhook; ``engine``,
    ``reason`` and ``retryable`` as in :class:`BulkResult`."""

    url: str
    success: bool
    content: Optional[Content]
    error: Optional[str]
    engine: NotRequired[Engine]
    reason: NotRequired[Reason]
    retryable: NotRequired[bool]
    change: NotRequired[Change]


class BulkCompletion(TypedDict):
    """The ``content-all-results`` webhook payload."""

    job_id: NotRequired[str]
    processed_count: int
    success_count: int
    failed_count: int
    results: List[BulkCompletionResult]
    user: WebhookUser
    processing_completed_at: str


class BulkFailure(TypedDict):
    """The ``content-bulk-failure`` webhook payload."""

    job_id: str
    status: Literal["failed"]
    error: str
    failed_at: str
    user: WebhookUser


class CrawlStarted(TypedDict):
    """The ``crawl-started`` webhook payload: always a crawl's first event."""

    crawl_id: str
    status: Literal["running"]
    url: str
    limit: int
    max_depth: int
    started_at: str


class CrawlPageEvent(TypedDict):
    """The ``crawl-page`` webhook payload: an extracted page, already listed
    by ``crawl_pages``."""

    crawl_id: str
    page: CrawlPage


class CrawlPageFailed(TypedDict):
    """The ``crawl-page-failed`` webhook payload: a page that could not be
    extracted (free)."""

    crawl_id: str
    url: str
    reason: Reason
    error: str
    status_code: int
    depth: int
    parent: str


class MonitorCrawl(TypedDict):
    """A monitor's crawl, as ``POST /v1/crawl`` takes it; its delivery and
    change tracking are the monitor's."""

    url: str
    limit: NotRequired[int]
    max_depth: NotRequired[int]
    include: NotRequired[List[str]]
    exclude: NotRequired[List[str]]
    scope: NotRequired[CrawlScope]
    sitemap: NotRequired[CrawlSitemap]
    ignore_query_params: NotRequired[List[str]]
    render: NotRequired[Render]
    max_age: NotRequired[int]
    store: NotRequired[bool]
    formats: NotRequired[List[Format]]
    actions: NotRequired[List[Action]]
    device: NotRequired[Device]
    locale: NotRequired[str]
    headers: NotRequired[Dict[str, str]]
    cookies: NotRequired[Dict[str, str]]
    country: NotRequired[str]


class MonitorRequest(TypedDict):
    """The body of ``POST /v1/monitors``: ``urls`` or ``crawl``, a cron
    ``schedule``, and ``callback_url`` and/or ``email``."""

    schedule: str
    name: NotRequired[str]
    urls: NotRequired[List[str]]
    crawl: NotRequired[MonitorCrawl]
    callback_url: NotRequired[str]
    email: NotRequired[bool]
    changes_only: NotRequired[bool]


MonitorStatus = Literal["active", "paused"]
"""A monitor takes its scheduled checks (``active``) or none (``paused``)."""

CheckStatus = Literal["queued", "running", "completed", "failed", "insufficient_credits"]
"""Where a monitor check stands."""


class MonitorPatch(TypedDict, total=False):
    """The body of ``PATCH /v1/monitors/{monitor_id}``: only the fields given change."""

    status: MonitorStatus
    name: str
    schedule: str
    callback_url: Optional[str]
    email: bool
    changes_only: bool


class MonitorCheck(TypedDict):
    """One check of a monitor."""

    id: str
    scheduled_at: str
    started_at: Optional[str]
    finished_at: Optional[str]
    status: CheckStatus
    pages_checked: int
    changed: int
    credits: int
    error: Optional[str]


class Monitor(TypedDict):
    """A monitor; ``checks`` (newest first) only from :meth:`Client.monitor`."""

    id: str
    name: str
    urls: Optional[List[str]]
    crawl: Optional[MonitorCrawl]
    schedule: str
    callback_url: Optional[str]
    email: bool
    changes_only: bool
    status: MonitorStatus
    paused_reason: Optional[str]
    next_run_at: Optional[str]
    created_at: str
    updated_at: str
    checks: NotRequired[List[MonitorCheck]]


# "from" is a keyword, so this type is declared the functional way.
MonitorPage = TypedDict(
    "MonitorPage",
    {
        "data": List[Monitor],
        "current_page": int,
        "last_page": int,
        "per_page": int,
        "total": int,
        "from": Optional[int],
        "to": Optional[int],
        "links": PageLinks,
        "path": NotRequired[str],
        "first_page_url": NotRequired[str],
        "last_page_url": NotRequired[str],
        "prev_page_url": NotRequired[Optional[str]],
        "next_page_url": NotRequired[Optional[str]],
    },
)


class MonitorReportMonitor(TypedDict):
    """The monitor a report is about."""

    id: str
    name: str
    schedule: str
    status: MonitorStatus
    changes_only: bool
    paused_reason: NotRequired[str]


class MonitorReportCheck(TypedDict):
    """The check a report is about."""

    id: str
    status: Literal["completed", "insufficient_credits"]
    scheduled_at: str
    started_at: Optional[str]
    finished_at: str
    pages_checked: int
    changed: int
    credits: int
    error: NotRequired[str]


class MonitorReportCounts(TypedDict):
    """How many pages of a check were new, changed, the same, removed or failed."""

    new: int
    changed: int
    same: int
    removed: int
    failed: int


class MonitorPageChange(TypedDict):
    """A page of a check's report: its status, and for a changed page the diff."""

    url: str
    status: Literal["new", "changed", "same", "removed", "failed"]
    previous_at: NotRequired[str]
    diff: NotRequired[str]
    error: NotRequired[str]
    reason: NotRequired[Reason]


class MonitorCheckReport(TypedDict):
    """The ``monitor-check`` webhook payload: one per check (with
    ``changes_only``, none when nothing changed)."""

    event: Literal["monitor-check"]
    monitor: MonitorReportMonitor
    check: MonitorReportCheck
    counts: MonitorReportCounts
    changes: List[MonitorPageChange]
    user: WebhookUser


class ErrorBody(TypedDict, total=False):
    """Every field an error answer may carry (see the README's error table)."""

    message: str
    error: str
    errors: Dict[str, List[str]]
    required: int
    balance: int
    reason: str
    retryable: bool


__all__ = [
    "Action",
    "ActionResult",
    "BulkAck",
    "BulkCompletion",
    "BulkCompletionResult",
    "BulkDelivery",
    "BulkFailure",
    "BulkJob",
    "BulkRequest",
    "BulkResult",
    "BulkStatus",
    "CanAfford",
    "Checkout",
    "Content",
    "ContentRequest",
    "CostPreview",
    "CrawlAck",
    "CrawlPage",
    "CrawlPages",
    "CrawlPageEvent",
    "CrawlPageFailed",
    "CrawlStarted",
    "CrawlRequest",
    "CrawlScope",
    "CrawlSitemap",
    "CrawlSkipped",
    "CrawlState",
    "CrawlStatus",
    "CreditStatus",
    "Credits",
    "Engine",
    "ErrorBody",
    "ExtractRequest",
    "Extracted",
    "Metadata",
    "Monitor",
    "MonitorCheck",
    "MonitorCheckReport",
    "MonitorPageChange",
    "MonitorReportCheck",
    "MonitorReportCounts",
    "MonitorReportMonitor",
    "MonitorCrawl",
    "MonitorPage",
    "MonitorPatch",
    "MonitorRequest",
    "MonitorStatus",
    "CheckStatus",
    "OrganicResult",
    "PageLinks",
    "PreviewRequest",
    "PromptAnswer",
    "PromptRequest",
    "PurchaseRequest",
    "Reason",
    "RelatedQuestion",
    "RelatedSearch",
    "Render",
    "Scraped",
    "SearchEngine",
    "SearchInformation",
    "SearchResults",
    "ServiceType",
    "SiteMap",
    "Sitelink",
    "Transaction",
    "TransactionMetadata",
    "TransactionPage",
    "User",
    "WebhookUser",
    "Device",
    "Format",
    "Image",
    "Link",
    "Screenshot",
]
