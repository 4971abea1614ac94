"""The seller's guard against a loopback double of agentrep's POST /trust/evaluate: what it asks, what
it refuses, its time budget, its fail modes and its cache (which honours ``expires_at``)."""

import json
import threading
import time
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentrep_x402_guard.seller import (
    TRUST_FAILED,
    TRUST_UNAVAILABLE,
    TRUST_UNCERTAIN,
    TrustAsker,
    guard_resource_server,
    payer_of,
    usdc_amount,
)

USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
GOOD, BAD, NEW = "0x" + "11" * 20, "0x" + "22" * 20, "0x" + "33" * 20
REQUIREMENTS = {"scheme": "exact", "network": "eip155:8453", "asset": USDC, "amount": "10000", "payTo": GOOD}


def payment(sender):
    return {"x402Version": 2, "resource": {"url": "https://me.example/api"}, "payload": {"authorization": {"from": sender}}}


@pytest.fixture
def agentrep():
    queries, settings = [], {"delay": 0.0, "expires_in": 60.0}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (the stdlib's name)
            q = json.loads(self.rfile.read(int(self.headers["content-length"])))
            queries.append((self.path, q))
            wallet = q["payer"]["wallet"]
            decision = "FAIL" if wallet == BAD else "UNCERTAIN" if wallet == NEW else "PASS"
            expires = datetime.now(timezone.utc) + timedelta(seconds=settings["expires_in"])
            body = json.dumps({"decision": decision, "reason_code": "denylisted" if wallet == BAD else "ok",
                               "expires_at": expires.isoformat().replace("+00:00", "Z")}).encode()
            time.sleep(settings["delay"])
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/agent", queries, settings
    server.shutdown()


def test_reads_the_payer_and_the_amount_the_drafts_ask_for():
    assert payer_of(payment(GOOD.upper().replace("0X", "0x"))) == GOOD
    assert payer_of({"payload": {"permit2Authorization": {"from": BAD}}}) == BAD
    assert payer_of({"payload": {}}) is None
    assert usdc_amount(REQUIREMENTS) == "0.01"
    assert usdc_amount({**REQUIREMENTS, "amount": "1000000"}) == "1"
    assert usdc_amount({**REQUIREMENTS, "amount": "1234567"}) == "1.234567"
    assert usdc_amount({**REQUIREMENTS, "asset": "0x" + "99" * 20}) is None


def test_refuses_fail_accepts_pass_and_uncertain_by_default(agentrep):
    base, queries, _ = agentrep
    ask = TrustAsker(base)
    assert ask(payment(GOOD), REQUIREMENTS)[0] is True
    accept, reason, message, _ = ask(payment(BAD), REQUIREMENTS)
    assert (accept, reason) == (False, TRUST_FAILED) and "denylisted" in message
    assert ask(payment(NEW), REQUIREMENTS)[0] is True
    assert TrustAsker(base, on_uncertain="refuse")(payment(NEW), REQUIREMENTS)[1] == TRUST_UNCERTAIN
    path, q = queries[0]
    assert path == "/api/agent/trust/evaluate" and q["direction"] == "buyer"
    assert q["resource"]["amount"] == {"value": "0.01", "currency": "USDC", "chain": "eip155:8453"}


def test_keeps_an_answer_until_its_expires_at(agentrep):
    base, queries, _ = agentrep
    clock = [time.time()]
    ask = TrustAsker(base, now=lambda: clock[0])
    ask(payment(GOOD), REQUIREMENTS)
    ask(payment(GOOD), REQUIREMENTS)
    assert len(queries) == 1
    clock[0] += 61
    ask(payment(GOOD), REQUIREMENTS)
    assert len(queries) == 2


def test_a_slow_or_absent_agentrep_refuses_when_closed_and_accepts_when_open(agentrep):
    base, _, settings = agentrep
    settings["delay"] = 0.5
    assert TrustAsker(base, timeout=0.05)(payment(GOOD), REQUIREMENTS)[1] == TRUST_UNAVAILABLE
    assert TrustAsker(base, timeout=0.05, fail_mode="open")(payment(BAD), REQUIREMENTS)[0] is True
    assert TrustAsker("http://127.0.0.1:9/api/agent")(payment(GOOD), REQUIREMENTS)[1] == TRUST_UNAVAILABLE


def test_registers_a_before_verify_hook_that_aborts_a_fail(agentrep):
    base, _, _ = agentrep

    class Server:
        hooks = []

        def on_before_verify(self, hook):
            self.hooks.append(hook)
            return self

        def verify_payment(self, payload, requirements):
            raise NotImplementedError

    class Context:
        def __init__(self, sender):
            self.payment_payload, self.requirements = payment(sender), REQUIREMENTS

    server = guard_resource_server(Server(), agentrep=base)
    assert len(server.hooks) == 1
    aborted = server.hooks[0](Context(BAD))
    assert aborted.reason == TRUST_FAILED and "denylisted" in aborted.message
    assert server.hooks[0](Context(GOOD)) is None
    with pytest.raises(TypeError):
        guard_resource_server(object(), agentrep=base)
