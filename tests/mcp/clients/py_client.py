"""Drives agentrep's MCP server with the official Python SDK (PyPI `mcp`) and prints what it saw as one JSON
line on stdout; tests/mcp/main.rs compares it with the HTTP reads. Run by the Rust test with the venv that
scripts/fetch-test-clients.sh installs in .tools/py.

    python py_client.py '<plan JSON>'
    plan: {"mode": "auto" | "legacy" | "2026-07-28", "url"?: str, "command"?: str, "args"?: [str],
           "search": str, "intent": str, "calls"?: [{"name": str, "arguments": {...}}]}

Besides a fixed flow (the leaderboard's top seller's score, a search, a match, an invalid address, an unknown
tool), it makes every call of `calls` and reports each result; the SDK validates every structured_content
against the tool's outputSchema, so a schema that does not fit its answer fails here.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


def structured(result):
    if result.is_error:
        raise RuntimeError(f"unexpected tool error: {result.content}")
    if result.structured_content is None:
        raise RuntimeError("no structured_content")
    if json.loads(result.content[0].text) != result.structured_content:
        raise RuntimeError("the text block differs from structured_content")
    return result.structured_content


async def main(plan):
    server = plan["url"] if "url" in plan else StdioServerParameters(command=plan["command"], args=plan["args"])
    async with Client(server, mode=plan["mode"]) as client:
        info = client.server_info
        out = {
            "sdk": "python",
            "transport": "http" if "url" in plan else "stdio",
            "protocolVersion": client.protocol_version,
            "server": info.model_dump(exclude_none=True) if info else None,
        }
        listed = await client.list_tools()
        out["tools"] = [t.name for t in listed.tools]
        out["listTtlMs"] = getattr(listed, "ttl_ms", None)
        out["listCacheScope"] = getattr(listed, "cache_scope", None)
        score_tool = next(t for t in listed.tools if t.name == "mainstreet_score")
        out["scoreTool"] = score_tool.model_dump(by_alias=True, exclude_none=True)
        out["leaderboard"] = structured(await client.call_tool("mainstreet_leaderboard", {"limit": 3}))
        top = out["leaderboard"]["results"][0]["payTo"]
        out["score"] = structured(await client.call_tool("mainstreet_score", {"address": top}))
        out["search"] = structured(await client.call_tool("mainstreet_search", {"q": plan["search"]}))
        out["match"] = structured(await client.call_tool("mainstreet_match", {"intent": plan["intent"], "limit": 3}))
        out["history"] = structured(await client.call_tool("agentrep_history", {"address": top, "days": 3}))
        bad = await client.call_tool("mainstreet_score", {"address": "0x12"})
        out["invalid"] = {"isError": bad.is_error, "text": bad.content[0].text, "structured": bad.structured_content}
        try:
            await client.call_tool("no_such_tool", {})
            out["unknownTool"] = None
        except MCPError as e:
            out["unknownTool"] = {"code": e.code, "message": e.message}
        out["calls"] = []
        for call in plan.get("calls", []):
            try:
                r = await client.call_tool(call["name"], call["arguments"])
                text = r.content[0].text if r.content else None
                out["calls"].append(
                    {"name": call["name"], "isError": r.is_error, "structured": r.structured_content, "text": text}
                )
            except Exception as e:  # noqa: BLE001 - reported per call, asserted on by the Rust test
                out["calls"].append({"name": call["name"], "thrown": f"{type(e).__name__}: {e}"})
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
