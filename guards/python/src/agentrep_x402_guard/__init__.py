"""agentrep-x402-guard: asks agentrep's URL preflight before the official x402 client signs a payment.

``guard_client`` registers on the client it is given, through the client's own extension points
(PyPI ``x402`` 2.25, v2 API), and refuses what agentrep's answer (``agentrep-url-preflight-v1``)
says not to pay, by raising :class:`X402GuardRefusal` before any signature is made:

- ``x402HTTPClientSync`` / ``x402HTTPClient`` ``on_payment_required``: sees the URL requested and
  the decoded 402; the guard asks the preflight there;
- ``x402ClientSync`` / ``x402Client`` ``register_policy``: keeps the client's choice to the offers the
  preflight allows;
- ``on_before_payment_creation``: the last check of the chosen offer before the scheme signs (and,
  when only an ``x402ClientSync``/``x402Client`` is guarded, where the preflight is asked, about the
  URL the 402 names: ``resource.url``, v1 ``accepts[].resource``).

Usage::

    from x402 import x402ClientSync
    from x402.http import x402HTTPClientSync
    from x402.http.clients import x402_requests
    from agentrep_x402_guard import guard_client

    client = x402ClientSync()            # register_exact_evm_client(client, account) ...
    guarded = guard_client(x402HTTPClientSync(client), agentrep="https://agentrep.example/api/agent")
    response = x402_requests(guarded).get(url)
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import socket
import threading
import urllib.error
import urllib.request
import weakref
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from x402.schemas import PaymentAbortedError

__all__ = [
    "LOW_VALUE_DEFAULT_CAP",
    "PREFLIGHT_VERSION",
    "X402GuardRefusal",
    "ask_preflight",
    "guard_client",
]

__version__ = "0.2.0"

#: The answer version this guard reads.
PREFLIGHT_VERSION = "agentrep-url-preflight-v1"

_DECISIONS = frozenset({"PROCEED", "PROCEED_LOW_VALUE", "CAUTION", "BLOCK"})
_MARK = "agentrep x402 guard refused payment"

RefusalCode = Literal[
    "block",
    "decoy",
    "price_trap",
    "caution",
    "low_value",
    "over_listing",
    "not_acceptable",
    "trust_fail",
    "unavailable",
]


def _transport_payment_errors() -> tuple[type[BaseException], ...]:
    """The ``PaymentError`` classes of the x402 transports that are installed.

    The requests adapter and the httpx transport re-raise their own ``PaymentError`` unchanged and
    wrap anything else in a new one ("Failed to handle payment: ..."); subclassing theirs lets the
    refusal reach the caller as itself.
    """
    found: list[type[BaseException]] = []
    for module in ("x402.http.clients.requests", "x402.http.clients.httpx"):
        try:
            error = getattr(importlib.import_module(module), "PaymentError", None)
        except Exception:  # the transport's HTTP library is not installed
            continue
        if isinstance(error, type) and issubclass(error, Exception) and error not in found:
            found.append(error)
    return tuple(found)


class X402GuardRefusal(PaymentAbortedError, *_transport_payment_errors()):  # type: ignore[misc]
    """A payment the guard refused, raised before anything is signed.

    A subclass of ``x402.schemas.PaymentAbortedError`` (itself ``x402.schemas.PaymentError``) and
    of the installed transports' ``PaymentError`` (``x402.http.clients.requests`` / ``.httpx``),
    so the requests adapter and the httpx transport raise it as is.

    Attributes:
        code: why (``block``, ``decoy``, ``price_trap``, ``caution``, ``low_value``,
            ``over_listing``, ``not_acceptable``, ``unavailable``).
        reason: the explanation, in words.
        url: the URL the preflight was asked about.
        offer: the index in ``accepts`` of the refused offer, when one.
        preflight: agentrep's answer (a dict), ``None`` when it was unavailable.
    """

    def __init__(
        self,
        code: RefusalCode,
        reason: str,
        *,
        url: str | None = None,
        offer: int | None = None,
        preflight: dict[str, Any] | None = None,
    ) -> None:
        self.code = code
        self.reason = reason
        self.url = url
        self.offer = offer
        self.preflight = preflight
        Exception.__init__(self, f"{_MARK}{f' for {url}' if url else ''} [{code}]: {reason}")

    def __reduce__(self) -> Any:
        return (_rebuild_refusal, (self.code, self.reason, self.url, self.offer, self.preflight))


def _rebuild_refusal(code: Any, reason: str, url: Any, offer: Any, preflight: Any) -> X402GuardRefusal:
    return X402GuardRefusal(code, reason, url=url, offer=offer, preflight=preflight)


# ============================================================================
# Options
# ============================================================================


@dataclass(frozen=True)
class _Options:
    base: str
    on_caution: Literal["refuse"] | int
    on_low_value: Literal["cap", "allow", "refuse"] | int
    on_unavailable: Literal["refuse", "allow"]
    timeout_s: float
    http_client: Any
    trust: bool = True


def _atomic(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def _policy(name: str, value: Any, words: tuple[str, ...]) -> Any:
    if isinstance(value, str) and value in words:
        return value
    if isinstance(value, dict):
        cap = value.get("max_amount", value.get("maxAmount"))
        cap = _atomic(cap)
        if cap is not None:
            return cap
    choices = " or ".join(f'"{w}"' for w in words)
    raise TypeError(f"guard_client: {name} must be {choices} or {{'max_amount': <atomic units>}}")


# ============================================================================
# The preflight call
# ============================================================================


def _endpoint(base: str) -> str:
    return f"{base.rstrip('/')}/preflight"


def _body(url: str, payment_required: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"url": url}
    if payment_required is not None:
        if hasattr(payment_required, "model_dump"):
            payment_required = payment_required.model_dump(mode="json", by_alias=True, exclude_none=True)
        body["paymentRequired"] = payment_required
    return body


def _read_answer(endpoint: str, status: int, text: str) -> tuple[dict[str, Any] | None, str | None]:
    try:
        data = json.loads(text) if text else None
    except ValueError:
        data = None
    if status != 200:
        err = data.get("error") if isinstance(data, dict) else None
        if isinstance(err, dict):
            detail = f"{err.get('code', 'error')}: {err.get('message', '')}".strip()
        else:
            detail = text[:200]
        return None, f"agentrep preflight {endpoint} answered HTTP {status}" + (f" ({detail})" if detail else "")
    if (
        not isinstance(data, dict)
        or data.get("version") != PREFLIGHT_VERSION
        or data.get("decision") not in _DECISIONS
    ):
        return None, f"agentrep preflight {endpoint} answered something other than {PREFLIGHT_VERSION}"
    return data, None


def _is_timeout(error: BaseException) -> bool:
    if isinstance(error, (socket.timeout, TimeoutError)):
        return True
    if isinstance(error, urllib.error.URLError) and isinstance(error.reason, (socket.timeout, TimeoutError)):
        return True
    return "timeout" in type(error).__name__.lower() or "timed out" in str(error).lower()


def _failed(endpoint: str, error: BaseException, timeout_s: float) -> str:
    why = f"no answer within {round(timeout_s * 1000)} ms" if _is_timeout(error) else f"{type(error).__name__}: {error}"
    return f"agentrep preflight {endpoint} unavailable: {why}"


def ask_preflight(
    base: str,
    url: str,
    payment_required: Any = None,
    *,
    timeout_ms: float = 3000,
    http_client: Any = None,
) -> tuple[dict[str, Any] | None, str | None]:
    """Asks agentrep's URL preflight once (no cache).

    Args:
        base: the agentrep API base, e.g. ``http://127.0.0.1:8080/api/agent``.
        url: the URL about to be paid.
        payment_required: the 402 as received (an x402 ``PaymentRequired``/``PaymentRequiredV1``
            model or its JSON dict), or ``None``.
        timeout_ms: the timeout (connect and each read).
        http_client: optional ``requests.Session``/``httpx.Client``-like object with
            ``post(url, json=..., headers=..., timeout=...)``; default: urllib.

    Returns:
        ``(answer, None)``, or ``(None, why)`` when the preflight is unavailable.
    """
    endpoint = _endpoint(base)
    body = _body(url, payment_required)
    timeout_s = timeout_ms / 1000
    try:
        if http_client is not None:
            response = http_client.post(endpoint, json=body, headers={"accept": "application/json"}, timeout=timeout_s)
            status, text = int(response.status_code), str(response.text)
        else:
            request = urllib.request.Request(
                endpoint,
                data=json.dumps(body).encode("utf-8"),
                headers={"content-type": "application/json", "accept": "application/json"},
                method="POST",
            )
            try:
                with urllib.request.urlopen(request, timeout=timeout_s) as response:
                    status, text = response.status, response.read().decode("utf-8", "replace")
            except urllib.error.HTTPError as error:
                status, text = error.code, error.read().decode("utf-8", "replace")
    except Exception as error:
        return None, _failed(endpoint, error, timeout_s)
    return _read_answer(endpoint, status, text)


async def _ask_preflight_async(opts: _Options, url: str, payment_required: Any) -> tuple[dict[str, Any] | None, str | None]:
    client = opts.http_client
    post = getattr(client, "post", None) if client is not None else None
    if post is not None and inspect.iscoroutinefunction(post):
        endpoint = _endpoint(opts.base)
        try:
            response = await asyncio.wait_for(
                post(endpoint, json=_body(url, payment_required), headers={"accept": "application/json"}, timeout=opts.timeout_s),
                opts.timeout_s + 1,
            )
            status, text = int(response.status_code), str(response.text)
        except Exception as error:
            return None, _failed(endpoint, error, opts.timeout_s)
        return _read_answer(endpoint, status, text)
    return await asyncio.to_thread(
        ask_preflight, opts.base, url, payment_required, timeout_ms=opts.timeout_s * 1000, http_client=client
    )


# ============================================================================
# Reading the answer
# ============================================================================


@dataclass
class _Verdict:
    url: str
    preflight: dict[str, Any] | None
    allow_all: bool
    #: why each offer (by index) may not be paid; None: it may
    reasons: list[tuple[RefusalCode, str] | None] = field(default_factory=list)


_RANK = {"block": 0, "decoy": 0, "price_trap": 0, "over_listing": 1, "caution": 2, "low_value": 2, "not_acceptable": 3}

#: What ``on_low_value="cap"`` (the default) pays at most on PROCEED_LOW_VALUE when agentrep states
#: no listed amount for the offer: 100000 atomic units (0.10 USDC).
LOW_VALUE_DEFAULT_CAP = 100_000

#: Decisions, worst first.
_ORDER = ("BLOCK", "CAUTION", "PROCEED_LOW_VALUE", "PROCEED")


def _lower_of(a: str, b: str) -> str:
    return a if _ORDER.index(a) <= _ORDER.index(b) else b


def _refuse_offers(verdict: _Verdict, indexes: list[int | None]) -> X402GuardRefusal:
    refused = [(i, verdict.reasons[i]) for i in indexes if i is not None and 0 <= i < len(verdict.reasons) and verdict.reasons[i]]
    if not refused:
        return X402GuardRefusal("not_acceptable", "no offer of the 402 may be paid", url=verdict.url, preflight=verdict.preflight)
    worst = refused[0]
    for item in refused[1:]:
        if _RANK.get(item[1][0], 9) < _RANK.get(worst[1][0], 9):  # type: ignore[index]
            worst = item
    index, (code, reason) = worst  # type: ignore[misc]
    if len(refused) > 1:
        reason = "; ".join(f"offer {i}: {r[1]}" for i, r in refused)  # type: ignore[index]
    return X402GuardRefusal(code, reason, url=verdict.url, offer=index, preflight=verdict.preflight)


def _seller_text(preflight: dict[str, Any], pay_to: Any = None) -> str:
    """The judged payee in words (with its standing when it is the answer's seller)."""
    seller = preflight.get("seller")
    if not isinstance(seller, dict) or (pay_to and str(seller.get("address") or "").lower() != str(pay_to).lower()):
        return f" for payee {pay_to}" if pay_to else ""
    bits = []
    if seller.get("verdict"):
        bits.append(f"verdict {seller['verdict']}")
    if seller.get("score") is not None:
        bits.append(f"score {seller['score']}")
    flags = seller.get("flags")
    bits.append(f"flags: {', '.join(map(str, flags))}" if isinstance(flags, list) and flags else "no flags")
    return f" for seller {seller.get('address') or preflight.get('payTo') or '?'} ({', '.join(bits)})"


def _field(offer: Any, *names: str) -> str:
    for name in names:
        value = offer.get(name) if isinstance(offer, dict) else getattr(offer, name, None)
        if value is not None:
            return str(value)
    return ""


def _same_offer(judged: dict[str, Any], offer: Any, amount_text: str) -> bool:
    """Whether agentrep's judged offer is the very offer of the 402 (scheme, network, asset, payTo
    and amount): the guard pays only what was judged."""
    return (
        str(judged.get("scheme") or "").lower() == _field(offer, "scheme").lower()
        and str(judged.get("network") or "") == _field(offer, "network")
        and str(judged.get("asset") or "").lower() == _field(offer, "asset").lower()
        and str(judged.get("payTo") or "").lower() == _field(offer, "pay_to", "payTo").lower()
        and str(judged.get("amount") or "") == amount_text
    )


def _amount_of(offer: Any) -> str:
    getter = getattr(offer, "get_amount", None)
    if callable(getter):
        return str(getter())
    if isinstance(offer, dict):
        return str(offer.get("amount", offer.get("maxAmountRequired", "")))
    return str(getattr(offer, "amount", getattr(offer, "max_amount_required", "")))


def _unavailable(opts: _Options, why: str, url: str) -> _Verdict:
    if opts.on_unavailable == "allow":
        return _Verdict(url=url, preflight=None, allow_all=True)
    raise X402GuardRefusal("unavailable", f'{why}; on_unavailable is "refuse"', url=url or None)


def _evaluate(opts: _Options, preflight: dict[str, Any], payment_required: Any, url: str) -> _Verdict:
    """Reads an answer against the 402's offers, one by one (as the JS guard does).

    Each offer may be paid only when agentrep judged that very offer (same scheme, network, asset,
    payTo and amount), could judge it (a scheme or network it cannot read lends nobody's
    standing), warns of no trap in it, asks no more than its listing, and its own decision (its
    payee's, lowered by the warnings about it and about the URL) passes the policy. Raises the
    refusal of the whole 402 for a decoy or price trap not tied to one offer.
    """
    accepts = list(getattr(payment_required, "accepts", None) or [])
    warnings = [w for w in (preflight.get("warnings") or []) if isinstance(w, dict)]

    def tied(w: dict[str, Any]) -> bool:
        return isinstance(w.get("offer"), int) and not isinstance(w.get("offer"), bool)

    # 1. Decoys and price traps not tied to one offer refuse the whole 402.
    for w in warnings:
        if w.get("code") in ("decoy", "price_trap") and not tied(w):
            raise X402GuardRefusal(w["code"], f"agentrep warns ({w['code']}): {w.get('message')}", url=url, preflight=preflight)

    # 2. What the warnings about the URL (not one offer) leave of every offer's decision.
    url_decision = "PROCEED"
    for w in warnings:
        if not tied(w) and w.get("severity") == "block":
            url_decision = "BLOCK"
        elif not tied(w) and w.get("severity") == "caution":
            url_decision = _lower_of(url_decision, "CAUTION")
    assessed = [o for o in (preflight.get("offers") or []) if isinstance(o, dict)]
    # An agentrep older than per-offer decisions: every offer gets the answer's decision.
    per_offer = any(o.get("decision") in _DECISIONS for o in assessed)
    stated_cap: int | None = None
    if preflight.get("maxAmount") is not None:
        stated_cap = _atomic(preflight["maxAmount"])
        if stated_cap is None:
            return _unavailable(opts, f"agentrep's maxAmount {preflight['maxAmount']!r} is not an atomic amount", url)

    def judge_offer(index: int, offer: Any) -> tuple[RefusalCode, str] | None:
        amount_text = _amount_of(offer)
        amount = _atomic(amount_text)
        scheme, network = _field(offer, "scheme"), _field(offer, "network")
        described = (
            f"payTo {_field(offer, 'pay_to', 'payTo')}, {scheme} on {network}, asset {_field(offer, 'asset')}, amount {amount_text}"
        )
        judged = next((o for o in assessed if o.get("index") == index and not isinstance(o.get("index"), bool)), None)
        if judged is None:
            return "not_acceptable", f"agentrep did not judge the offer ({described})"
        if not _same_offer(judged, offer, amount_text):
            return "not_acceptable", f"agentrep judged another offer at index {index} than the 402's ({described})"
        if judged.get("payable") is False:
            return "not_acceptable", f"agentrep cannot judge {scheme} on {network}: no wallet's standing covers it ({described})"
        mine = [w for w in warnings if tied(w) and w.get("offer") == index]
        trap = next((w for w in mine if w.get("code") in ("decoy", "price_trap")), None)
        if trap is not None:
            return trap["code"], f"agentrep warns ({trap['code']}): {trap.get('message')}"
        own = judged.get("decision") if per_offer and judged.get("decision") in _DECISIONS else preflight["decision"]
        decision = _lower_of(own, url_decision)
        payee = _seller_text(preflight, judged.get("payTo"))
        said = [str(w.get("message")) for w in warnings if w.get("severity") != "info" and (not tied(w) or w.get("offer") == index)]
        if decision == "BLOCK":
            blocking = [str(w.get("message")) for w in warnings if w.get("severity") == "block" and (not tied(w) or w.get("offer") == index)]
            return "block", f"agentrep's decision for the offer is BLOCK{payee}" + (f": {'; '.join(blocking)}" if blocking else "")
        # The listed amount: the offer's own listing, else what the answer states for its payee.
        same_payee = str(judged.get("payTo") or "").lower() == str(preflight.get("payTo") or "").lower()
        listing_cap = _atomic(judged["listedPrice"]) if judged.get("listedPrice") is not None else (stated_cap if same_payee else None)
        if listing_cap is not None and (amount is None or amount > listing_cap):
            return "over_listing", f"the offer asks {amount_text or 'an unreadable amount'}, more than the listing allows (maxAmount {listing_cap})"
        if preflight.get("listed") is True and judged.get("acceptable") is not True:
            mismatch = [str(w.get("message")) for w in mine if w.get("severity") != "info"]
            return "not_acceptable", f"the offer ({described}) does not match the listing: " + (
                "; ".join(mismatch) if mismatch else "agentrep marks it not acceptable"
            )
        if decision in ("CAUTION", "PROCEED_LOW_VALUE"):
            caution = decision == "CAUTION"
            code: RefusalCode = "caution" if caution else "low_value"
            name = "on_caution" if caution else "on_low_value"
            policy = opts.on_caution if caution else opts.on_low_value
            if policy == "refuse":
                return code, f"agentrep's decision for the offer is {decision}{payee}" + (f": {'; '.join(said)}" if said else "") + f'; {name} is "refuse"'
            cap = policy if isinstance(policy, int) else (listing_cap if listing_cap is not None else LOW_VALUE_DEFAULT_CAP) if policy == "cap" else None
            if cap is not None and (amount is None or amount > cap):
                return code, (
                    f"agentrep's decision for the offer is {decision}{payee} and it asks "
                    f"{amount_text or 'an unreadable amount'}, above the {name} cap {cap}"
                )
        return None

    reasons = [judge_offer(index, offer) for index, offer in enumerate(accepts)]
    return _Verdict(url=url, preflight=preflight, allow_all=False, reasons=reasons)


def _url_named_by(payment_required: Any, selected: Any) -> str | None:
    resource = getattr(payment_required, "resource", None)
    candidates = [
        getattr(resource, "url", None),
        getattr(selected, "resource", None),
    ]
    accepts = getattr(payment_required, "accepts", None) or []
    if accepts:
        candidates.append(getattr(accepts[0], "resource", None))
    return next((u for u in candidates if isinstance(u, str) and u), None)


def _index_of_offer(accepts: list[Any], chosen: Any) -> int:
    for i, offer in enumerate(accepts):
        if offer is chosen:
            return i
    for i, offer in enumerate(accepts):
        try:
            if offer == chosen:
                return i
        except Exception:
            continue
    return -1


class _ByIdentity:
    """Values keyed by an object's identity, dropped when the object is collected (no cache:
    each 402 decoded is a new object, so each payment asks the preflight once)."""

    def __init__(self) -> None:
        self._items: dict[int, tuple[weakref.ref[Any], Any]] = {}
        self._lock = threading.Lock()

    def get(self, obj: Any) -> Any:
        item = self._items.get(id(obj))
        if item is None or item[0]() is not obj:
            return None
        return item[1]

    def set(self, obj: Any, value: Any) -> None:
        key = id(obj)
        try:
            ref = weakref.ref(obj)
        except TypeError:
            return
        with self._lock:
            fresh = key not in self._items or self._items[key][0]() is not obj
            self._items[key] = (ref, value)
        if fresh:
            weakref.finalize(obj, self._drop, key, ref)

    def _drop(self, key: int, ref: weakref.ref[Any]) -> None:
        with self._lock:
            item = self._items.get(key)
            if item is not None and item[0] is ref:
                del self._items[key]


# ============================================================================
# guard_client
# ============================================================================

C = TypeVar("C")


def guard_client(
    client: C,
    *,
    agentrep: str,
    on_caution: Literal["refuse"] | dict[str, Any] = "refuse",
    on_low_value: Literal["cap", "allow", "refuse"] | dict[str, Any] = "cap",
    on_unavailable: Literal["refuse", "allow"] = "refuse",
    timeout_ms: float = 3000,
    http_client: Any = None,
    trust: bool = True,
) -> C:
    """Guards an official x402 client; returns it.

    Args:
        client: an ``x402HTTPClientSync``/``x402HTTPClient`` (recommended: the preflight is asked
            about the URL actually requested) or an ``x402ClientSync``/``x402Client`` (the
            preflight is asked about the URL the 402 names, from the hook before signing).
        agentrep: the agentrep API base, e.g. ``https://agentrep.example/api/agent``.
        on_caution: on CAUTION, ``"refuse"`` (default) or ``{"max_amount": <atomic units>}``.
        on_low_value: on PROCEED_LOW_VALUE ("pay, but only small amounts"): ``"cap"`` (default:
            up to the offer's listed amount, or ``LOW_VALUE_DEFAULT_CAP`` when none is stated),
            ``"allow"`` (uncapped), ``"refuse"`` or ``{"max_amount": ...}``.
        on_unavailable: when the preflight cannot be asked, ``"refuse"`` (default) or ``"allow"``.
        timeout_ms: the preflight's timeout, default 3000.
        http_client: optional client for the preflight call (``requests.Session``, ``httpx.Client``
            or, with an async x402 client, ``httpx.AsyncClient``); default: urllib. Never a paying one.
        trust: also ask agentrep's trust-provider answer (``POST /trust/evaluate``, direction
            ``seller``) about the chosen offer's payee before signing, and refuse a ``FAIL``
            (``trust_fail``); default True. Unreachable, it stands in the way of nothing the
            preflight allowed.

    Raises:
        TypeError: on bad options or a client this guard does not know.
    """
    if not isinstance(agentrep, str) or not agentrep.startswith(("http://", "https://")):
        raise TypeError("guard_client: agentrep must be the agentrep API base URL (http(s)://...)")
    if on_unavailable not in ("refuse", "allow"):
        raise TypeError('guard_client: on_unavailable must be "refuse" or "allow"')
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, (int, float)) or timeout_ms <= 0:
        raise TypeError("guard_client: timeout_ms must be a positive number")
    opts = _Options(
        base=agentrep.rstrip("/"),
        on_caution=_policy("on_caution", on_caution, ("refuse",)),
        on_low_value=_policy("on_low_value", on_low_value, ("cap", "allow", "refuse")),
        on_unavailable=on_unavailable,
        timeout_s=float(timeout_ms) / 1000,
        http_client=http_client,
        trust=bool(trust),
    )

    http = client if callable(getattr(client, "on_payment_required", None)) else None
    # x402HTTPClient(Sync) keeps the client it wraps in `_client`.
    core: Any = getattr(client, "_client", None) if http is not None else client
    for method in ("register_policy", "on_before_payment_creation", "create_payment_payload"):
        if not callable(getattr(core, method, None)):
            raise TypeError("guard_client: expected an x402 client (x402ClientSync, x402Client, x402HTTPClientSync or x402HTTPClient)")
    is_async = inspect.iscoroutinefunction(core.create_payment_payload)

    verdicts = _ByIdentity()  # the 402 (a decoded model, one per response) -> its verdict
    offers = _ByIdentity()  # an offer of that 402 -> (verdict, index)

    def remember(payment_required: Any, verdict: _Verdict) -> None:
        verdicts.set(payment_required, verdict)
        for index, offer in enumerate(getattr(payment_required, "accepts", None) or []):
            offers.set(offer, (verdict, index))

    def read(payment_required: Any, url: str | None, answer: tuple[dict[str, Any] | None, str | None]) -> _Verdict:
        preflight, why = answer
        if preflight is None:
            return _unavailable(opts, why or "no answer", url or "")
        verdict = _evaluate(opts, preflight, payment_required, url or "")
        if verdict.reasons and all(verdict.reasons):
            raise _refuse_offers(verdict, list(range(len(verdict.reasons))))
        return verdict

    def judge_sync(payment_required: Any, url: str | None) -> _Verdict:
        if not url:
            return _unavailable(opts, "cannot tell which URL is being paid (the 402 names none)", "")
        answer = ask_preflight(opts.base, url, payment_required, timeout_ms=opts.timeout_s * 1000, http_client=opts.http_client)
        return read(payment_required, url, answer)

    async def judge_async(payment_required: Any, url: str | None) -> _Verdict:
        if not url:
            return _unavailable(opts, "cannot tell which URL is being paid (the 402 names none)", "")
        return read(payment_required, url, await _ask_preflight_async(opts, url, payment_required))

    def check_chosen(verdict: _Verdict, payment_required: Any, selected: Any) -> None:
        if verdict.allow_all:
            return
        index = _index_of_offer(list(getattr(payment_required, "accepts", None) or []), selected)
        if index < 0:
            raise X402GuardRefusal(
                "not_acceptable", "the offer the client chose is not one of the 402 as received", url=verdict.url, preflight=verdict.preflight
            )
        refusal = verdict.reasons[index] if index < len(verdict.reasons) else None
        if refusal is not None:
            raise X402GuardRefusal(refusal[0], refusal[1], url=verdict.url, offer=index, preflight=verdict.preflight)

    def check_trust(verdict: _Verdict, payment_required: Any, selected: Any) -> None:
        if verdict.allow_all or not opts.trust:
            return
        evaluation = _ask_trust(opts, selected, verdict.url)
        if evaluation is not None and evaluation.get("decision") == "FAIL":
            index = _index_of_offer(list(getattr(payment_required, "accepts", None) or []), selected)
            payee = getattr(selected, "pay_to", None) or _attr(selected, "payTo")
            reason = f"agentrep's trust-provider answer for payee {payee} is FAIL ({evaluation.get('reason_code') or 'no reason given'})"
            raise X402GuardRefusal("trust_fail", reason, url=verdict.url, offer=index, preflight=verdict.preflight)

    def policy(_version: int, requirements: list[Any]) -> list[Any]:
        verdict: _Verdict | None = None
        kept = []
        for offer in requirements:
            known = offers.get(offer)
            if known is None:
                kept.append(offer)  # not judged yet: the hook before signing judges it
                continue
            verdict = known[0]
            if verdict.allow_all or not verdict.reasons[known[1]]:
                kept.append(offer)
        if not kept and verdict is not None:
            raise _refuse_offers(verdict, [(offers.get(o) or (None, None))[1] for o in requirements])
        return kept

    core.register_policy(policy)

    if is_async:

        async def before_async(context: Any) -> None:
            verdict = verdicts.get(context.payment_required)
            if verdict is None:
                url = _url_named_by(context.payment_required, context.selected_requirements)
                verdict = await judge_async(context.payment_required, url)
                remember(context.payment_required, verdict)
            check_chosen(verdict, context.payment_required, context.selected_requirements)
            await asyncio.to_thread(check_trust, verdict, context.payment_required, context.selected_requirements)

        core.on_before_payment_creation(before_async)
        if http is not None:

            async def on_402_async(context: Any) -> None:
                url = context.request_url or _url_named_by(context.payment_required, None)
                remember(context.payment_required, await judge_async(context.payment_required, url))

            http.on_payment_required(on_402_async)
    else:

        def before_sync(context: Any) -> None:
            verdict = verdicts.get(context.payment_required)
            if verdict is None:
                url = _url_named_by(context.payment_required, context.selected_requirements)
                verdict = judge_sync(context.payment_required, url)
                remember(context.payment_required, verdict)
            check_chosen(verdict, context.payment_required, context.selected_requirements)
            check_trust(verdict, context.payment_required, context.selected_requirements)

        core.on_before_payment_creation(before_sync)
        if http is not None:

            def on_402_sync(context: Any) -> None:
                url = context.request_url or _url_named_by(context.payment_required, None)
                remember(context.payment_required, judge_sync(context.payment_required, url))

            http.on_payment_required(on_402_sync)

    return client


def _attr(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _ask_trust(opts: _Options, offer: Any, url: str | None) -> dict[str, Any] | None:
    """agentrep's trust-provider answer about an offer's payee, for its amount and URL; None when it
    cannot be asked (the preflight, asked first, has judged the offer already)."""
    from .seller import usdc_amount

    network = _attr(offer, "network")
    requirements = {"amount": _attr(offer, "amount"), "asset": _attr(offer, "asset")}
    value = usdc_amount(requirements)
    resource: dict[str, Any] = {"url": url} if url else {}
    if value is not None:
        resource["amount"] = {"value": value, "currency": "USDC", "chain": network}
    query = {
        "schema": "x402-trust-query-v0.1",
        "direction": "seller",
        "subject": {"wallet": getattr(offer, "pay_to", None) or _attr(offer, "payTo"), "chain": network},
        "resource": resource,
    }
    req = urllib.request.Request(
        f"{opts.base}/trust/evaluate",
        data=json.dumps(query).encode(),
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(req, timeout=opts.timeout_s) as resp:
            answer = json.loads(resp.read())
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None
