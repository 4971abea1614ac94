"""Pays for one resource with the official x402 Python buyer (PyPI x402[evm,clients] 2.25, v2,
requests transport, default spend controls) and prints one JSON line: the status, the decoded
PAYMENT-RESPONSE and the body.

usage: python x402_buyer.py <url> <private key>
"""

import base64
import json
import sys

from eth_account import Account
from x402 import x402ClientSync
from x402.http.clients import x402_requests
from x402.mechanisms.evm.exact import register_exact_evm_client

url, key = sys.argv[1:3]
client = x402ClientSync()
register_exact_evm_client(client, Account.from_key(key))
response = x402_requests(client).get(url)
header = response.headers.get("PAYMENT-RESPONSE")
try:
    body = response.json()
except ValueError:
    body = response.text
print(json.dumps({
    "status": response.status_code,
    "settlement": json.loads(base64.b64decode(header)) if header else None,
    "body": body,
}))
