"""Buys a paid agentrep MCP tool with the official x402 MCP client (PyPI x402 2.25, `x402.mcp`:
x402MCPSession over an async x402Client with the exact EVM scheme) through the official MCP
Python SDK's streamable HTTP client, and prints one JSON line: whether the result is an error,
whether a payment was made, the settlement from `_meta["x402/payment-response"]`, and the answer.

x402 2.25's MCP client reads results in the shape of MCP SDK 1.x (`isError`, `structuredContent`);
the pinned SDK is 2.3 (`is_error`, `structured_content`). `Session` below hands it the 2.3 client
under the 1.x names; the payment flow (spotting PaymentRequired, signing, retrying with
`_meta["x402/payment"]`, reading the settlement) is the official client's.

usage: python x402_mcp_buyer.py <mcp url> <private key> <tool> <address> [auto|legacy|2026-07-28]
"""

import asyncio
import json
import sys
from types import SimpleNamespace

from eth_account import Account
from mcp import Client
from x402 import x402Client
from x402.mcp import x402MCPSession
from x402.mechanisms.evm.exact import register_exact_evm_client


class Session:
    def __init__(self, client):
        self._client = client

    async def initialize(self):
        pass

    async def list_tools(self):
        return await self._client.list_tools()

    async def call_tool(self, name, arguments=None, meta=None, read_timeout_seconds=None):
        timeout = getattr(read_timeout_seconds, "total_seconds", lambda: read_timeout_seconds)()
        r = await self._client.call_tool(name, arguments, read_timeout_seconds=timeout, meta=meta)
        return SimpleNamespace(isError=r.is_error, structuredContent=r.structured_content, content=r.content, meta=r.meta)


async def main(url, key, tool, address, mode):
    payer = x402Client()
    register_exact_evm_client(payer, Account.from_key(key))
    async with Client(url, mode=mode) as client:
        listed = await client.list_tools()
        session = x402MCPSession(Session(client), payer)
        result = await session.call_tool(tool, {"address": address})
        response = result.payment_response
        if hasattr(response, "model_dump"):
            response = response.model_dump(by_alias=True, exclude_none=True)
        print(json.dumps({
            "listed": tool in [t.name for t in listed.tools],
            "isError": result.is_error,
            "paymentMade": result.payment_made,
            "paymentResponse": response,
            "answer": json.loads(result.content[0].text) if result.content else None,
        }))


url, key, tool, address = sys.argv[1:5]
asyncio.run(main(url, key, tool, address, sys.argv[5] if len(sys.argv) > 5 else "auto"))
