"""agentrep-x402-guard for sellers: asks agentrep about the payer (``POST {base}/trust/evaluate``, the
x402 trust-provider protocol, direction ``buyer``) before the official x402 resource server (PyPI
``x402``'s ``x402ResourceServer`` or ``x402ResourceServerSync``) verifies a payment, and aborts the
verification of payers agentrep answers ``FAIL`` for, so the facilitator never verifies or settles
their payments.

Usage::

    from x402 import x402ResourceServerSync
    from x402.http import HTTPFacilitatorClientSync, FacilitatorConfig
    from agentrep_x402_guard.seller import guard_resource_server

    server = x402ResourceServerSync(HTTPFacilitatorClientSync(FacilitatorConfig(url=facilitator)))
    guard_resource_server(server, agentrep="https://agentrep.example/api/agent")
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from datetime import datetime, timezone
from typing import Any, Callable, Literal, TypeVar

TRUST_FAILED = "trust_evaluation_failed"
"""Abort reason when agentrep answers FAIL (the trust-provider drafts' name)."""
TRUST_UNCERTAIN = "trust_evaluation_uncertain"
"""Abort reason when agentrep answers UNCERTAIN and ``on_uncertain`` is ``"refuse"``."""
TRUST_UNAVAILABLE = "trust_evaluation_unavailable"
"""Abort reason when agentrep could not be asked and ``fail_mode`` is ``"closed"``."""

_DECISIONS = {"PASS", "FAIL", "UNCERTAIN"}
# USDC contracts whose atomic amounts have 6 decimals: Base, Base Sepolia.
_USDC = {"0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "0x036cbd53842c5426634e7929541ec2318f3dcf7e"}
_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")

S = TypeVar("S")


def _get(obj: Any, *names: str) -> Any:
    for name in names:
        if obj is None:
            return None
        obj = obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)
    return obj


def payer_of(payload: Any) -> str | None:
    """The paying wallet of a payment payload: the EIP-3009 authorization's ``from``, a Permit2
    authorization's ``from``, or the payload's ``payer``."""
    inner = _get(payload, "payload") or {}
    for path in (("authorization", "from"), ("permit2Authorization", "from"), ("permit", "owner")):
        value = _get(inner, *path)
        if isinstance(value, str) and _ADDRESS.match(value):
            return value.lower()
    value = _get(payload, "payer")
    return value.lower() if isinstance(value, str) and _ADDRESS.match(value) else None


def usdc_amount(requirements: Any) -> str | None:
    """The amount of a payment's requirements in whole USDC (the drafts' ``value``), or None."""
    atomic = _get(requirements, "amount") or _get(requirements, "max_amount_required")
    asset = str(_get(requirements, "asset") or "").lower()
    if asset not in _USDC or not re.fullmatch(r"\d+", str(atomic or "")):
        return None
    digits = str(atomic).rjust(7, "0")
    whole = digits[:-6].lstrip("0") or "0"
    frac = digits[-6:].rstrip("0")
    return f"{whole}.{frac}" if frac else whole


class TrustAsker:
    """The check the guard's hook runs, usable on its own: asks about the payer of a payment and
    says whether to accept it (``(accept, reason, message, evaluation)``)."""

    def __init__(
        self,
        agentrep: str,
        *,
        fail_mode: Literal["closed", "open"] = "closed",
        on_uncertain: Literal["allow", "refuse"] = "allow",
        timeout: float = 1.0,
        cache_size: int = 10_000,
        post: Callable[[str, bytes, float], tuple[int, bytes]] | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        if not isinstance(agentrep, str) or not re.match(r"^https?://", agentrep):
            raise TypeError("the seller guard needs agentrep: the API base URL, e.g. https://agentrep.example/api/agent")
        self.base = agentrep.rstrip("/")
        self.fail_mode = fail_mode
        self.on_uncertain = on_uncertain
        self.timeout = timeout
        self.cache_size = cache_size
        self._post = post or _post
        self._now = now
        self._cache: OrderedDict[str, tuple[dict[str, Any], float]] = OrderedDict()
        self._lock = threading.Lock()

    def _unavailable(self, why: str) -> tuple[bool, str | None, str | None, None]:
        if self.fail_mode == "open":
            return True, None, None, None
        return False, TRUST_UNAVAILABLE, f"agentrep could not be asked about the payer: {why}", None

    def __call__(self, payload: Any, requirements: Any) -> tuple[bool, str | None, str | None, dict[str, Any] | None]:
        payer = payer_of(payload)
        if payer is None:
            return self._unavailable("the payment names no paying wallet agentrep can read")
        network = _get(requirements, "network") or "eip155:8453"
        key = f"{payer} {network}"
        with self._lock:
            hit = self._cache.get(key)
            if hit and hit[1] <= self._now():
                del self._cache[key]
                hit = None
        evaluation = hit[0] if hit else None
        if evaluation is None:
            resource: dict[str, Any] = {}
            url = _get(payload, "resource", "url")
            if isinstance(url, str):
                resource["url"] = url
            value = usdc_amount(requirements)
            if value is not None:
                resource["amount"] = {"value": value, "currency": "USDC", "chain": network}
            query = {
                "schema": "x402-trust-query-v0.1",
                "direction": "buyer",
                "payer": {"wallet": payer},
                "resource": resource,
                "requested_at": datetime.fromtimestamp(self._now(), timezone.utc).isoformat().replace("+00:00", "Z"),
            }
            try:
                status, body = self._post(f"{self.base}/trust/evaluate", json.dumps(query).encode(), self.timeout)
            except Exception as error:  # noqa: BLE001 (any transport failure is "unavailable")
                return self._unavailable(str(error) or type(error).__name__)
            if status != 200:
                return self._unavailable(f"HTTP {status}")
            try:
                evaluation = json.loads(body)
            except ValueError:
                return self._unavailable("an answer that is not JSON")
            if not isinstance(evaluation, dict) or evaluation.get("decision") not in _DECISIONS:
                return self._unavailable("an answer without a decision")
            try:
                until = datetime.fromisoformat(str(evaluation.get("expires_at")).replace("Z", "+00:00")).timestamp()
            except ValueError:
                until = 0.0
            if until > self._now():
                with self._lock:
                    if len(self._cache) >= self.cache_size:
                        self._cache.popitem(last=False)
                    self._cache[key] = (evaluation, until)
        decision = evaluation["decision"]
        why = f"agentrep answers {decision} ({evaluation.get('reason_code') or 'no reason given'}) for payer {payer}"
        if decision == "FAIL":
            return False, TRUST_FAILED, why, evaluation
        if decision == "UNCERTAIN" and self.on_uncertain == "refuse":
            return False, TRUST_UNCERTAIN, why, evaluation
        return True, None, None, evaluation


def _post(url: str, body: bytes, timeout: float) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=body, method="POST", headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def guard_resource_server(server: S, agentrep: str, **options: Any) -> S:
    """Guards an official x402 resource server (``x402ResourceServerSync`` or the async
    ``x402ResourceServer``): before it verifies a payment, agentrep is asked about the payer, and a
    ``FAIL`` aborts verification (``trust_evaluation_failed``), so nothing is settled. Options are
    :class:`TrustAsker`'s (``fail_mode``, ``on_uncertain``, ``timeout``, ``cache_size``)."""
    if not callable(getattr(server, "on_before_verify", None)):
        raise TypeError("guard_resource_server: expected an x402ResourceServer or x402ResourceServerSync from x402 2.x")
    from x402.schemas.hooks import AbortResult

    ask = TrustAsker(agentrep, **options)

    def verdict(context: Any) -> Any:
        accept, reason, message, _ = ask(context.payment_payload, context.requirements)
        return None if accept else AbortResult(reason=reason or TRUST_FAILED, message=message)

    if inspect.iscoroutinefunction(getattr(server, "verify_payment", None)):
        # The async server: agentrep is asked on a worker thread, never blocking the event loop.
        async def before_verify(context: Any) -> Any:
            return await asyncio.to_thread(verdict, context)

        server.on_before_verify(before_verify)
    else:
        server.on_before_verify(verdict)
    return server
