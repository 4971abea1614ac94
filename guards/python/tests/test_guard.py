"""The guard with the real PyPI x402 client (v2, requests transport; one async httpx case) against a
fake agentrep preflight and a fake seller on 127.0.0.1. Refusals happen before anything is signed, so
no chain is needed; a paid case only checks the seller received a PAYMENT-SIGNATURE.

run: PYTHONPATH=guards/python/src /work/main/.tools/py/bin/python -m pytest guards/python/tests
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from eth_account import Account
from x402 import x402Client, x402ClientSync
from x402.http import x402HTTPClient, x402HTTPClientSync
from x402.http.clients import x402_requests
from x402.http.clients.httpx import wrapHttpxWithPayment
from x402.mechanisms.evm.exact import register_exact_evm_client
from x402.schemas import PaymentAbortedError

from agentrep_x402_guard import X402GuardRefusal, guard_client

USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
SELLER = "0x5e11e5e11e5e11e5e11e5e11e5e11e5e11e5e11e"
THIEF = "0xdec0dec0dec0dec0dec0dec0dec0dec0dec0dec0"
ACCOUNT = Account.create()


def b64(value: Any) -> str:
    return base64.b64encode(json.dumps(value).encode()).decode()


def unb64(text: str) -> Any:
    return json.loads(base64.b64decode(text))


class Fake:
    """A loopback HTTP server whose handler is set per test."""

    def __init__(self, handle: Callable[[BaseHTTPRequestHandler, str, Any], None]) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                fake.handle(self, self.command, json.loads(raw) if raw else None)

            do_GET = _serve
            do_POST = _serve

        self.handle = handle
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def reply(handler: BaseHTTPRequestHandler, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
    data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


def offer(**over: Any) -> dict[str, Any]:
    return {
        "scheme": "exact",
        "network": "eip155:8453",
        "asset": USDC,
        "amount": "10000",
        "payTo": SELLER,
        "maxTimeoutSeconds": 60,
        "extra": {"name": "USD Coin", "version": "2"},
        **over,
    }


def offer_v1(**over: Any) -> dict[str, Any]:
    return {
        "scheme": "exact",
        "network": "base",
        "maxAmountRequired": "10000",
        "description": "a paid answer",
        "mimeType": "application/json",
        "payTo": SELLER,
        "maxTimeoutSeconds": 60,
        "asset": USDC,
        "extra": {"name": "USD Coin", "version": "2"},
        **over,
    }


def answer(body: Any, per_offer: dict[int, dict[str, Any]] | None = None, **over: Any) -> dict[str, Any]:
    """A canned agentrep-url-preflight-v1 answer, shaped as agentrep answers: each offer judged
    (payable when ``exact``/``upto`` on ``eip155``), with the answer's decision unless
    ``per_offer[index]`` says otherwise, and acceptable when it pays SELLER within the listed price."""
    accepts = ((body or {}).get("paymentRequired") or {}).get("accepts") or []
    listed_price = over.get("maxAmount", "10000") or "10000"
    per_offer = per_offer or {}

    def mine(o: dict[str, Any]) -> bool:
        return str(o["payTo"]).lower() == SELLER.lower()

    return {
        "version": "agentrep-url-preflight-v1",
        "url": (body or {}).get("url"),
        "listed": True,
        "decision": "PROCEED",
        "payTo": SELLER.lower(),
        "seller": {"address": SELLER.lower(), "decision": "PROCEED", "score": 81, "scoreBasis": "measured", "verdict": "SAFE", "color": "green", "flags": []},
        "listings": [],
        "offers": [
            {
                "index": i,
                "scheme": o["scheme"],
                "network": o["network"],
                "asset": o["asset"].lower(),
                "payTo": o["payTo"].lower(),
                "amount": o.get("amount", o.get("maxAmountRequired")),
                "listedPrice": listed_price if mine(o) else None,
                "acceptable": mine(o) and int(o.get("amount", o.get("maxAmountRequired"))) <= int(listed_price),
                "payable": o["scheme"] in ("exact", "upto") and str(o["network"]).startswith(("eip155:", "base")),
                "decision": over.get("decision", "PROCEED"),
                **per_offer.get(i, {}),
            }
            for i, o in enumerate(accepts)
        ],
        "warnings": [],
        "maxAmount": "10000",
        "hostListings": [],
        "snapshotDate": "2026-11-27",
        "methodology": "3.0",
        **over,
    }


class World:
    def __init__(self) -> None:
        self.accepts: list[dict[str, Any]] = [offer()]
        self.v1 = False
        self.claim: str | None = None
        self.seller_requests: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.respond: Callable[[Any], tuple[int, Any] | None] = lambda body: (200, answer(body))
        self.trust_calls: list[Any] = []
        self.trust: Callable[[Any], Any] = lambda body: {"decision": "PASS", "reason_code": "proceed"}
        self.seller = Fake(self._sell)
        self.agentrep = Fake(self._preflight)

    def reset(self) -> None:
        self.accepts = [offer()]
        self.v1 = False
        self.claim = None
        self.seller_requests = []
        self.calls = []
        self.respond = lambda body: (200, answer(body))
        self.trust_calls = []
        self.trust = lambda body: {"decision": "PASS", "reason_code": "proceed"}

    def _sell(self, handler: BaseHTTPRequestHandler, _method: str, _body: Any) -> None:
        url = f"{self.seller.base}{handler.path}"
        signature = handler.headers.get("PAYMENT-SIGNATURE") or handler.headers.get("X-PAYMENT")
        self.seller_requests.append({"url": url, "signature": signature})
        if signature:
            settlement = {"success": True, "transaction": "0x" + "ab" * 32, "network": "eip155:8453", "payer": ACCOUNT.address}
            return reply(handler, 200, {"ok": True}, {"PAYMENT-RESPONSE": b64(settlement)})
        if self.v1:
            return reply(handler, 402, {"x402Version": 1, "error": "payment required", "accepts": [{**o, "resource": url} for o in self.accepts]})
        payment_required = {
            "x402Version": 2,
            "error": "Payment required",
            "resource": {"url": self.claim or url, "description": "a paid answer", "mimeType": "application/json"},
            "accepts": self.accepts,
        }
        reply(handler, 402, {}, {"PAYMENT-REQUIRED": b64(payment_required)})

    def _preflight(self, handler: BaseHTTPRequestHandler, method: str, body: Any) -> None:
        if handler.path == "/api/agent/trust/evaluate":
            self.trust_calls.append(body)
            return reply(handler, 200, self.trust(body))
        self.calls.append({"method": method, "path": handler.path, "content_type": handler.headers.get("content-type"), "body": body})
        result = self.respond(body)
        if result is None:
            time.sleep(1.5)  # never answers in time
            return
        reply(handler, *result)

    def url(self) -> str:
        return f"{self.seller.base}/api/x?q=1"

    def base(self) -> str:
        return f"{self.agentrep.base}/api/agent"

    def signed(self) -> list[dict[str, Any]]:
        return [r for r in self.seller_requests if r["signature"]]


@pytest.fixture(scope="module")
def world_module() -> Iterator[World]:
    world = World()
    yield world
    world.seller.close()
    world.agentrep.close()


@pytest.fixture
def world(world_module: World) -> World:
    world_module.reset()
    return world_module


def official_client() -> x402ClientSync:
    client = x402ClientSync()
    register_exact_evm_client(client, ACCOUNT)
    return client


def guarded(world: World, **options: Any) -> Any:
    """The official client, guarded through its x402HTTPClientSync (the URL-aware hook)."""
    options.setdefault("agentrep", world.base())
    return x402_requests(guard_client(x402HTTPClientSync(official_client()), **options))


def guarded_plain(world: World, **options: Any) -> Any:
    """The official client guarded as a plain x402ClientSync (the hook before signing asks)."""
    options.setdefault("agentrep", world.base())
    return x402_requests(guard_client(official_client(), **options))


def refused(world: World, call: Callable[[], Any], code: str) -> X402GuardRefusal:
    with pytest.raises(X402GuardRefusal) as caught:
        call()
    error = caught.value
    assert error.code == code, str(error)
    assert world.signed() == [], "nothing was signed and sent to the seller"
    return error


def test_proceed_pays_and_the_preflight_gets_the_url_and_the_402(world: World) -> None:
    response = guarded(world).get(world.url())
    assert response.status_code == 200
    assert len(world.signed()) == 1, "the seller received one PAYMENT-SIGNATURE"
    assert unb64(world.signed()[0]["signature"])["accepted"]["payTo"] == SELLER
    assert unb64(response.headers["PAYMENT-RESPONSE"])["success"] is True
    assert len(world.calls) == 1, "one preflight per payment"
    call = world.calls[0]
    assert call["method"] == "POST"
    assert call["path"] == "/api/agent/preflight"
    assert call["content_type"].startswith("application/json")
    assert call["body"]["url"] == world.url()
    assert call["body"]["paymentRequired"] == {
        "x402Version": 2,
        "error": "Payment required",
        "resource": {"url": world.url(), "description": "a paid answer", "mimeType": "application/json"},
        "accepts": [offer()],
    }


def test_a_trust_fail_for_the_chosen_payee_is_refused_before_signing(world: World) -> None:
    world.trust = lambda body: {"decision": "FAIL", "reason_code": "block"}
    refused(world, lambda: guarded(world).get(world.url()), "trust_fail")
    assert world.signed() == [], "nothing was signed"
    (query,) = world.trust_calls
    assert query["direction"] == "seller"
    assert query["subject"] == {"wallet": SELLER, "chain": "eip155:8453"}
    assert query["resource"]["amount"] == {"value": "0.01", "currency": "USDC", "chain": "eip155:8453"}


def test_the_preflight_is_asked_about_the_url_requested_not_the_one_claimed(world: World) -> None:
    world.claim = "https://famous-seller.example/api/x"
    world.respond = lambda body: (200, answer(body, decision="BLOCK"))
    error = refused(world, lambda: guarded(world).get(world.url()), "block")
    assert error.url == world.url()
    assert world.calls[0]["body"]["url"] == world.url()
    assert world.calls[0]["body"]["paymentRequired"]["resource"]["url"] == "https://famous-seller.example/api/x"


def test_block_is_refused_naming_the_decision_and_the_flags(world: World) -> None:
    seller = {"address": SELLER.lower(), "decision": "BLOCK", "score": 12, "verdict": "SCAM", "color": "red", "flags": ["single-payer", "wash-trading"]}
    world.respond = lambda body: (200, answer(body, decision="BLOCK", seller=seller))
    error = refused(world, lambda: guarded(world).get(world.url()), "block")
    assert "BLOCK" in error.reason
    assert "single-payer, wash-trading" in error.reason
    assert error.preflight["decision"] == "BLOCK"
    assert error.url == world.url()
    assert "[block]" in str(error)
    assert isinstance(error, PaymentAbortedError)


def test_a_decoy_offer_is_refused_quoting_the_warning(world: World) -> None:
    world.accepts = [offer(payTo=THIEF)]
    warning = {"code": "decoy", "severity": "block", "offer": 0, "message": "pays 0xdec0… but the listing pays 0x5e11…"}
    world.respond = lambda body: (200, answer(body, decision="CAUTION", warnings=[warning]))
    error = refused(world, lambda: guarded(world, on_caution={"max_amount": "50000"}).get(world.url()), "decoy")
    assert "pays 0xdec0… but the listing pays 0x5e11…" in error.reason
    assert error.offer == 0


def test_a_decoy_warning_not_tied_to_an_offer_refuses_the_402(world: World) -> None:
    warning = {"code": "decoy", "severity": "block", "offer": None, "message": "this URL impersonates a listed seller"}
    world.respond = lambda body: (200, answer(body, warnings=[warning]))
    assert "impersonates" in refused(world, lambda: guarded(world).get(world.url()), "decoy").reason


def test_a_price_trap_is_refused_quoting_the_warning(world: World) -> None:
    world.accepts = [offer(amount="900000")]
    warning = {"code": "price_trap", "severity": "block", "offer": 0, "message": "asks 0.90 USDC, 90x the listed 0.01"}
    world.respond = lambda body: (200, answer(body, maxAmount="1000000", warnings=[warning]))
    assert "90x the listed" in refused(world, lambda: guarded(world).get(world.url()), "price_trap").reason


def test_caution_is_refused_by_default(world: World) -> None:
    warning = {"code": "overlay", "severity": "caution", "offer": None, "message": "young seller, one payer"}
    world.respond = lambda body: (200, answer(body, decision="CAUTION", warnings=[warning]))
    error = refused(world, lambda: guarded(world).get(world.url()), "caution")
    assert "CAUTION" in error.reason and "young seller, one payer" in error.reason


def test_caution_pays_under_a_cap_and_is_refused_above_it(world: World) -> None:
    world.respond = lambda body: (200, answer(body, decision="CAUTION", maxAmount="100000"))
    assert guarded(world, on_caution={"max_amount": "50000"}).get(world.url()).status_code == 200
    assert len(world.signed()) == 1
    world.seller_requests = []
    world.accepts = [offer(amount="60000")]
    error = refused(world, lambda: guarded(world, on_caution={"max_amount": 50000}).get(world.url()), "caution")
    assert "60000" in error.reason and "cap 50000" in error.reason


def test_low_value_pays_up_to_the_listing_by_default_and_is_refused_on_request(world: World) -> None:
    world.respond = lambda body: (200, answer(body, decision="PROCEED_LOW_VALUE"))
    assert guarded(world).get(world.url()).status_code == 200
    world.seller_requests = []
    refused(world, lambda: guarded(world, on_low_value="refuse").get(world.url()), "low_value")


def test_low_value_with_no_listed_amount_is_capped_at_the_stated_default_unless_allowed(world: World) -> None:
    world.respond = lambda body: (
        200,
        answer(body, {0: {"listedPrice": None, "acceptable": False}}, decision="PROCEED_LOW_VALUE", listed=False, maxAmount=None),
    )
    world.accepts = [offer(amount="100000")]
    assert guarded(world).get(world.url()).status_code == 200, "at the default cap"
    world.seller_requests = []
    world.accepts = [offer(amount="100001")]
    error = refused(world, lambda: guarded(world).get(world.url()), "low_value")
    assert "100001" in error.reason and "cap 100000" in error.reason
    world.seller_requests = []
    assert guarded(world, on_low_value="allow").get(world.url()).status_code == 200, "uncapped when allowed"


def test_each_offer_is_held_to_its_own_decision(world: World) -> None:
    world.accepts = [offer(payTo=THIEF, amount="5000000"), offer()]
    world.respond = lambda body: (
        200,
        answer(body, {0: {"decision": "CAUTION"}, 1: {"decision": "PROCEED"}}, decision="CAUTION", listed=False, maxAmount=None),
    )
    assert guarded(world).get(world.url()).status_code == 200
    assert unb64(world.signed()[0]["signature"])["accepted"]["payTo"] == SELLER, "paid the PROCEED offer"


def test_an_offer_agentrep_cannot_judge_lends_nobody_its_standing(world: World) -> None:
    # The attack of issue 52: an offer of an unknown scheme naming a top seller beside an `exact`
    # offer paying a stranger 5 USDC.
    world.accepts = [offer(scheme="mystery"), offer(payTo=THIEF, amount="5000000")]
    world.respond = lambda body: (
        200,
        answer(body, {0: {"payable": False, "decision": None}, 1: {"decision": "CAUTION"}}, decision="CAUTION", listed=False, maxAmount=None),
    )
    error = refused(world, lambda: guarded(world).get(world.url()), "caution")
    assert "cannot judge mystery" in error.reason


def test_an_offer_judged_otherwise_than_the_402_has_it_is_refused(world: World) -> None:
    world.respond = lambda body: (200, answer(body, {0: {"payTo": THIEF.lower()}}))
    error = refused(world, lambda: guarded(world).get(world.url()), "not_acceptable")
    assert "judged another offer" in error.reason


def test_an_offer_above_the_listing_max_amount_is_refused(world: World) -> None:
    world.accepts = [offer(amount="20000")]
    error = refused(world, lambda: guarded(world).get(world.url()), "over_listing")
    assert "20000" in error.reason and "maxAmount 10000" in error.reason


def test_of_several_offers_only_an_acceptable_one_is_paid(world: World) -> None:
    world.accepts = [offer(payTo=THIEF), offer()]
    warning = {"code": "network_not_listed", "severity": "block", "offer": 0, "message": "offer 0 pays another wallet"}
    world.respond = lambda body: (200, answer(body, warnings=[warning]))
    assert guarded(world).get(world.url()).status_code == 200
    assert len(world.signed()) == 1
    assert unb64(world.signed()[0]["signature"])["accepted"]["payTo"] == SELLER, "paid the acceptable offer, not the first"


def test_a_listed_url_whose_offers_are_all_unacceptable_is_refused(world: World) -> None:
    world.accepts = [offer(payTo=THIEF)]
    refused(world, lambda: guarded(world).get(world.url()), "not_acceptable")


def test_preflight_down_failing_or_slow_is_refused_by_default(world: World) -> None:
    dead = Fake(lambda *_: None)
    dead.close()  # nothing listens there any more
    error = refused(world, lambda: guarded(world, agentrep=f"{dead.base}/api/agent").get(world.url()), "unavailable")
    assert "unavailable" in error.reason and error.preflight is None

    world.respond = lambda body: (503, {"error": {"code": "snapshot_unavailable", "message": "no snapshot yet"}})
    error = refused(world, lambda: guarded(world).get(world.url()), "unavailable")
    assert "HTTP 503 (snapshot_unavailable: no snapshot yet)" in error.reason

    world.respond = lambda body: None
    started = time.monotonic()
    error = refused(world, lambda: guarded(world, timeout_ms=200).get(world.url()), "unavailable")
    assert time.monotonic() - started < 1.4
    assert "within 200 ms" in error.reason

    world.respond = lambda body: (200, {"hello": "world"})
    refused(world, lambda: guarded(world).get(world.url()), "unavailable")


def test_preflight_down_pays_with_on_unavailable_allow(world: World) -> None:
    world.respond = lambda body: (500, {"error": {"code": "internal", "message": "boom"}})
    assert guarded(world, on_unavailable="allow").get(world.url()).status_code == 200
    assert len(world.signed()) == 1


def test_each_payment_asks_once_nothing_is_cached(world: World) -> None:
    session = guarded(world)
    session.get(world.url())
    session.get(world.url())
    assert len(world.calls) == 2
    assert len(world.signed()) == 2


def test_a_guarded_plain_client_asks_about_resource_url(world: World) -> None:
    session = guarded_plain(world)
    assert session.get(world.url()).status_code == 200
    assert world.calls[0]["body"]["url"] == world.url()
    world.seller_requests = []
    world.respond = lambda body: (200, answer(body, decision="BLOCK"))
    error = refused(world, lambda: session.get(world.url()), "block")
    assert error.url == world.url()


def test_v1_sends_the_body_and_holds_max_amount_required_to_the_listing(world: World) -> None:
    world.v1 = True
    world.accepts = [offer_v1(maxAmountRequired="20000")]
    refused(world, lambda: guarded_plain(world).get(world.url()), "over_listing")
    sent = world.calls[0]["body"]
    assert sent["url"] == world.url(), "the v1 offer names the resource"
    assert sent["paymentRequired"]["x402Version"] == 1
    assert sent["paymentRequired"]["accepts"][0]["maxAmountRequired"] == "20000"


def test_the_async_client_with_httpx(world: World) -> None:
    async def pay(decision: str) -> int:
        client = x402Client()
        register_exact_evm_client(client, ACCOUNT)
        guarded_http = guard_client(x402HTTPClient(client), agentrep=world.base())
        world.respond = lambda body: (200, answer(body, decision=decision))
        async with wrapHttpxWithPayment(guarded_http) as http:
            return (await http.get(world.url())).status_code

    assert asyncio.run(pay("PROCEED")) == 200
    assert len(world.signed()) == 1
    world.seller_requests = []
    with pytest.raises(X402GuardRefusal) as caught:
        asyncio.run(pay("BLOCK"))
    assert caught.value.code == "block"
    assert world.signed() == []
    assert world.calls[-1]["body"]["url"] == world.url()


def test_options_are_checked() -> None:
    client = x402ClientSync()
    with pytest.raises(TypeError):
        guard_client(client, agentrep="not a url")
    with pytest.raises(TypeError):
        guard_client(client, agentrep="http://x", on_caution="allow")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        guard_client(client, agentrep="http://x", on_low_value={"max_amount": "1.5"})
    with pytest.raises(TypeError):
        guard_client(object(), agentrep="http://x")
    assert guard_client(client, agentrep="http://x/api/agent/") is client
