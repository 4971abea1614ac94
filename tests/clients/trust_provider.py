"""A client written against the x402 trust-provider drafts (0.1 and 02) and nothing else: it reads
the discovery document and the key set, asks `POST /trust/evaluate` in both drafts' forms, checks
every answer's shape and the block rule, recomputes the envelope's `card_ref` with an independent
RFC 8785 implementation (`rfc8785`, PyPI) and verifies its Ed25519 signature with `cryptography`
(OpenSSL), then fetches the evidence `evidence_uri` addresses and checks its digest.

Usage: trust_provider.py ORIGIN BASE_PATH --seller 0x.. --payer 0x.. --denylisted 0x.. --unknown 0x..
Prints one JSON line per query ({name, decision, score, reason_code}) and exits non-zero on the
first violation.
"""

import argparse
import base64
import hashlib
import json
import sys
import urllib.error
import urllib.request
from datetime import datetime

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

CLASSES = {"curated", "behavioral", "community", "attested"}
DECISIONS = {"PASS", "FAIL", "UNCERTAIN"}
JCS = "urn:x402:canonicalisation:jcs-rfc8785-v1"


def fail(message):
    print(f"VIOLATION: {message}", file=sys.stderr)
    sys.exit(1)


def http(method, url, body=None):
    req = urllib.request.Request(url, data=body, method=method)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=15) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def get_json(url):
    status, body = http("GET", url)
    if status != 200:
        fail(f"GET {url}: {status} {body[:200]!r}")
    return json.loads(body)


def b64url(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def check_card(card):
    for field in ("provider", "description", "endpoint", "directions", "evidence_classes", "decisions",
                  "score", "freshness", "spec_url", "docs", "pricing", "chains"):
        if field not in card:
            fail(f"discovery document lacks {field}")
    for field in ("method", "url", "request_schema", "response_schema"):
        if field not in card["endpoint"]:
            fail(f"discovery endpoint lacks {field}")
    if set(card["evidence_classes"]) != CLASSES or set(card["decisions"]) != DECISIONS:
        fail(f"discovery classes or decisions: {card['evidence_classes']} {card['decisions']}")
    if set(card["directions"]) != {"seller", "buyer"}:
        fail(f"directions: {card['directions']}")
    env = card.get("envelope")
    if not env or env.get("canonicalisation") != JCS or env.get("alg") != "Ed25519" or "jwks_url" not in env:
        fail(f"discovery envelope: {env}")


def check_shape(name, e):
    if e.get("schema") != "x402-trust-evaluation-v0.1":
        fail(f"{name}: schema {e.get('schema')!r}")
    if e.get("decision") not in DECISIONS:
        fail(f"{name}: decision {e.get('decision')!r}")
    score = e.get("score")
    if (score is None) != ("null_reason" in e):
        fail(f"{name}: score {score!r} but null_reason present={'null_reason' in e}")
    if score is not None and not (0.0 <= score <= 1.0):
        fail(f"{name}: score {score} outside 0..1")
    basis = e.get("basis")
    if not isinstance(basis, list) or not all(
            isinstance(b, dict) and b.get("class") in CLASSES and isinstance(b.get("kind"), str) for b in basis):
        fail(f"{name}: basis {basis!r}")
    if e["decision"] == "FAIL" and not any(b["class"] in ("curated", "behavioral") for b in basis):
        fail(f"{name}: FAIL without curated or behavioral evidence: {basis}")
    uri = e.get("evidence_uri", "")
    if not (uri.startswith("sha256:") and len(uri) == 71):
        fail(f"{name}: evidence_uri {uri!r}")
    issued, expires = datetime.fromisoformat(e["issued_at"]), datetime.fromisoformat(e["expires_at"])
    if (expires - issued).total_seconds() != e["ttl"] or e["ttl"] != e["ttl_seconds"]:
        fail(f"{name}: expires_at != issued_at + ttl")
    if not issued <= datetime.fromisoformat(e["recheck_after"]) <= expires:
        fail(f"{name}: recheck_after outside [issued_at, expires_at]")


def check_envelope(name, e, jwks):
    env = e.get("envelope")
    if env is None:
        fail(f"{name}: unsigned answer")
    if env["canonicalisation"] != JCS or env["alg"] != "Ed25519":
        fail(f"{name}: envelope {env}")
    body = {k: v for k, v in e.items() if k != "envelope"}
    canonical = rfc8785.dumps(body)
    if env["card_ref"] != "sha256:" + hashlib.sha256(canonical).hexdigest():
        fail(f"{name}: card_ref does not match the RFC 8785 bytes")
    key = next((k for k in jwks["keys"] if k["kid"] == env["kid"]), None)
    if key is None or key["kty"] != "OKP" or key["crv"] != "Ed25519":
        fail(f"{name}: kid {env['kid']} not an Ed25519 key of jwks.json")
    public = Ed25519PublicKey.from_public_bytes(b64url(key["x"]))
    try:
        public.verify(b64url(env["signature"]), canonical)
    except InvalidSignature:
        fail(f"{name}: the signature does not verify")
    tampered = dict(body, decision="PASS" if e["decision"] != "PASS" else "FAIL")
    try:
        public.verify(b64url(env["signature"]), rfc8785.dumps(tampered))
        fail(f"{name}: a tampered answer verifies")
    except InvalidSignature:
        pass


def check_evidence(name, origin, e):
    status, raw = http("GET", origin + e["evidence_url"])
    if status != 200:
        fail(f"{name}: evidence {status} {raw[:200]!r}")
    doc = json.loads(raw)
    if "sha256:" + hashlib.sha256(rfc8785.dumps(doc)).hexdigest() != e["evidence_uri"]:
        fail(f"{name}: the evidence served is not what evidence_uri addresses")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("origin")
    ap.add_argument("base")
    for who in ("seller", "payer", "denylisted", "unknown"):
        ap.add_argument(f"--{who}", required=True)
    a = ap.parse_args()
    card = get_json(a.origin + "/.well-known/x402-trust-provider")
    check_card(card)
    jwks = get_json(a.origin + card["envelope"]["jwks_url"])
    endpoint = a.origin + card["endpoint"]["url"]
    queries = {
        # draft-02: subject and direction.
        "seller": {"schema": "x402-trust-query-v0.1", "direction": "seller",
                   "subject": {"wallet": a.seller, "chain": "eip155:8453"},
                   "resource": {"amount": {"value": "0.01", "currency": "USDC", "chain": "base"}}},
        "seller_above_cap": {"direction": "seller", "subject": {"wallet": a.seller, "chain": "base"},
                             "resource": {"amount": {"value": "250", "currency": "USDC"}}},
        # draft 0.1: the payer, a resource and its amount.
        "payer": {"schema": "x402-trust-query-v0.1", "payer": {"wallet": a.payer},
                  "resource": {"url": "https://seller.example/api", "method": "GET",
                               "amount": {"value": "0.01", "currency": "USDC", "chain": "base"}},
                  "requested_at": "2026-12-04T00:00:00Z"},
        "denylisted_payer": {"direction": "buyer", "subject": {"wallet": a.denylisted}},
        "denylisted_seller": {"direction": "seller", "subject": {"wallet": a.denylisted}},
        "unknown_payer": {"direction": "buyer", "subject": {"wallet": a.unknown}},
        "unknown_seller": {"direction": "seller", "subject": {"wallet": a.unknown}},
        "unsupported_chain": {"direction": "seller", "subject": {"wallet": a.seller, "chain": "eip155:137"}},
    }
    answers = {}
    for name, q in queries.items():
        status, raw = http("POST", endpoint, json.dumps(q).encode())
        if status != 200:
            fail(f"{name}: {status} {raw[:300]!r}")
        e = json.loads(raw)
        check_shape(name, e)
        check_envelope(name, e, jwks)
        check_evidence(name, a.origin, e)
        answers[name] = e
        print(json.dumps({"name": name, "decision": e["decision"], "score": e["score"],
                          "reason_code": e["reason_code"], "null_reason": e.get("null_reason")}))
    status, _ = http("POST", endpoint, b"{not json")
    if not 400 <= status < 500:
        fail(f"malformed body: {status}")
    status, _ = http("POST", endpoint, json.dumps({"direction": "seller", "subject": {"chain": "base"}}).encode())
    if not 400 <= status < 500:
        fail(f"a query naming nobody: {status}")
    for name in ("denylisted_payer", "denylisted_seller"):
        if answers[name]["decision"] != "FAIL":
            fail(f"{name}: {answers[name]['decision']}")
    for name in ("unknown_payer", "unknown_seller"):
        e = answers[name]
        if e["decision"] != "UNCERTAIN" or e["score"] is not None or e.get("null_reason") != "unknown_subject":
            fail(f"{name}: an unseen wallet must be UNCERTAIN with no score: {e}")
    if answers["payer"]["direction"] != "buyer" or answers["payer"]["decision"] != "PASS":
        fail(f"payer: {answers['payer']}")
    if answers["unsupported_chain"].get("null_reason") != "unsupported_chain":
        fail(f"unsupported_chain: {answers['unsupported_chain']}")
    if answers["seller"]["decision"] != "PASS" or answers["seller_above_cap"]["decision"] == "FAIL":
        fail(f"seller: {answers['seller']['decision']}, above the cap {answers['seller_above_cap']['decision']}")


if __name__ == "__main__":
    main()
