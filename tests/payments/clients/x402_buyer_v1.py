"""Pays for one resource through the official x402 Python buyer's v1 path (PyPI x402[evm] 2.25:
x402HTTPClientSync.handle_402_response, ExactEvmSchemeV1) and prints one JSON line: the status,
the decoded X-PAYMENT-RESPONSE and the body.

The client takes its v2 path whenever a 402 carries the PAYMENT-REQUIRED header, which agentrep
always sends beside the v1 body. This buyer hands the client the 402 as a v1-only seller sends it
(the body, no header), so the official code parses the v1 `accepts`, picks the requirement, signs
the EIP-3009 authorization and encodes the `X-PAYMENT` header; the transport is `requests`.

usage: python x402_buyer_v1.py <url> <private key>
"""

import base64
import json
import sys

import requests
from eth_account import Account
from x402 import x402ClientSync
from x402.http import x402HTTPClientSync
from x402.mechanisms.evm.exact import register_exact_evm_client

url, key = sys.argv[1:3]
client = x402ClientSync()
register_exact_evm_client(client, Account.from_key(key))
http = x402HTTPClientSync(client)

first = requests.get(url, timeout=60)
if first.status_code != 402:
    print(json.dumps({"status": first.status_code, "settlement": None, "body": first.text}))
    sys.exit(0)
headers, payload = http.handle_402_response({}, first.content, url)
assert payload is not None and payload.x402_version == 1, payload
assert list(headers) == ["X-PAYMENT"], headers
paid = requests.get(url, headers=headers, timeout=120)
header = paid.headers.get("X-PAYMENT-RESPONSE")
try:
    body = paid.json()
except ValueError:
    body = paid.text
print(json.dumps({
    "status": paid.status_code,
    "settlement": json.loads(base64.b64decode(header)) if header else None,
    "body": body,
}))
