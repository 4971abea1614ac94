"""Sells one call with the official x402 Python resource server (PyPI x402: x402ResourceServerSync, the
exact EVM scheme, a facilitator over HTTP), guarded by agentrep_x402_guard.seller, to a payment made by
the official buyer (x402ClientSync, an eth-account key): the server verifies the payment (the guard
asks agentrep about the payer first) and, when it is valid, settles it, as a resource server's
middleware does before it serves. Prints one JSON line:

    {"served": bool, "refused": null | {"reason", "message"}, "settlement": <SettleResponse or null>}

It exits 0 when it served and when the payment was refused; 1 on any other failure.

usage: python sell.py <agentrep API base> <facilitator URL> <payTo> <payer private key>
"""

import json
import os
import sys
import traceback

try:
    import agentrep_x402_guard  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from eth_account import Account
from x402 import x402ClientSync, x402ResourceServerSync
from x402.http import FacilitatorConfig, HTTPFacilitatorClientSync
from x402.mechanisms.evm.exact import register_exact_evm_client, register_exact_evm_server
from x402.schemas import ResourceConfig, ResourceInfo
from x402.schemas.errors import PaymentAbortedError

from agentrep_x402_guard.seller import guard_resource_server


def main() -> int:
    if len(sys.argv) != 5:
        print("usage: python sell.py <agentrep API base> <facilitator URL> <payTo> <payer private key>", file=sys.stderr)
        return 2
    agentrep, facilitator, pay_to, key = sys.argv[1:5]
    server = x402ResourceServerSync(HTTPFacilitatorClientSync(FacilitatorConfig(url=facilitator)))
    register_exact_evm_server(server, "eip155:8453")
    guard_resource_server(server, agentrep=agentrep, fail_mode="closed")
    server.initialize()
    requirements = server.build_payment_requirements(
        ResourceConfig(scheme="exact", pay_to=pay_to, price="$0.01", network="eip155:8453")
    )
    resource = ResourceInfo(url="http://127.0.0.1/sold", description="a guarded sale", mime_type="application/json")
    payment_required = server.create_payment_required_response(requirements, resource)

    buyer = x402ClientSync()
    register_exact_evm_client(buyer, Account.from_key(key))
    payload = buyer.create_payment_payload(payment_required)

    chosen = server.find_matching_requirements(requirements, payload)
    try:
        verified = server.verify_payment(payload, chosen)
    except PaymentAbortedError as aborted:
        refused = {"reason": aborted.reason, "message": getattr(aborted, "message", None) or str(aborted)}
        print(json.dumps({"served": False, "refused": refused, "settlement": None}))
        return 0
    if not verified.is_valid:
        refused = {"reason": verified.invalid_reason, "message": getattr(verified, "invalid_message", None)}
        print(json.dumps({"served": False, "refused": refused, "settlement": None}))
        return 0
    settlement = server.settle_payment(payload, chosen)
    print(json.dumps({"served": bool(settlement.success), "refused": None, "settlement": settlement.model_dump(mode="json", by_alias=True)}))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
