"""Pays for one resource with the official x402 Python buyer (PyPI x402[evm,clients], v2, requests
transport, default spend controls), guarded by agentrep-x402-guard (on_caution: pay up to 50000 atomic
units, on_low_value: allow), and prints one JSON line:

    {"status": <HTTP status or null>, "paid": bool, "refused": null | {"code", "reason"},
     "settlement": <decoded PAYMENT-RESPONSE or null>}

It exits 0 when it paid and when the guard refused; 1 on any other failure. The guard is imported
from the installed package, else from ../src beside this script.

usage: python buy.py <agentrep API base> <url> <private key>
"""

import base64
import json
import os
import sys
import traceback

try:
    import agentrep_x402_guard  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from eth_account import Account
from x402 import x402ClientSync
from x402.http import x402HTTPClientSync
from x402.http.clients import x402_requests
from x402.mechanisms.evm.exact import register_exact_evm_client

from agentrep_x402_guard import X402GuardRefusal, guard_client


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: python buy.py <agentrep API base> <url> <private key>", file=sys.stderr)
        return 2
    agentrep, url, key = sys.argv[1:4]
    client = x402ClientSync()
    register_exact_evm_client(client, Account.from_key(key))
    signed = []
    client.on_after_payment_creation(lambda _context: signed.append(True))
    guarded = guard_client(
        x402HTTPClientSync(client),
        agentrep=agentrep,
        on_caution={"max_amount": "50000"},
        on_low_value="allow",
    )
    try:
        response = x402_requests(guarded).get(url)
    except X402GuardRefusal as refusal:
        print(json.dumps({"status": None, "paid": False, "refused": {"code": refusal.code, "reason": refusal.reason}, "settlement": None}))
        return 0
    except Exception:
        traceback.print_exc()
        return 1
    header = response.headers.get("PAYMENT-RESPONSE") or response.headers.get("X-PAYMENT-RESPONSE")
    settlement = json.loads(base64.b64decode(header)) if header else None
    paid = bool(signed) and response.ok and (settlement is None or settlement.get("success") is not False)
    print(json.dumps({"status": response.status_code, "paid": paid, "refused": None, "settlement": settlement}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
