#!/usr/bin/env python3
"""Copies the published Solidity sources the chain tests compile into contracts/vendor/<unit>/.

Each unit is one solc compilation (scripts/compile-contracts.mjs): the entry contracts at a pinned
commit of their repository plus the transitive closure of their imports, each library at the commit
the repository pins it to. Files are stored under the source-unit name solc sees, so an import
resolves without remappings: `src/...` for the project, `@openzeppelin/contracts/...`,
`solady/...`, `solmate/src/...` for the libraries. Nothing is edited.

    scripts/vendor-contracts.py <mirrors dir>

where <mirrors dir> holds bare-or-not git repositories named owner+name/repo (as the tool library's
fetch leaves them). Re-running rewrites contracts/vendor from the commits below.
"""
import pathlib
import re
import subprocess
import sys

OZ = "OpenZeppelin+openzeppelin-contracts"
UNITS = {
    # Uniswap Permit2 at the commit x402's contracts pin as lib/permit2; solmate at permit2's pin.
    "permit2": {
        "project": ("Uniswap+permit2", "cc56ad0f3439c502c246fc5cfcc3db92bb8b7219", ""),
        "entries": ["src/Permit2.sol"],
        "libraries": {"solmate/": ("transmissions11+solmate", "8d910d876f51c3b2585c9109409d601f600e68e1", "")},
    },
    # coinbase/x402 contracts/evm at the squash commit that added x402BatchSettlement; OpenZeppelin
    # 5.5.0 as lib/openzeppelin-contracts pins it.
    "x402": {
        "project": ("coinbase+x402", "84ffb641", "contracts/evm/"),
        "entries": [
            "src/x402ExactPermit2Proxy.sol",
            "src/x402UptoPermit2Proxy.sol",
            "src/x402BatchSettlement.sol",
            "src/periphery/ERC3009DepositCollector.sol",
        ],
        "libraries": {"@openzeppelin/contracts/": (OZ, "fcbae5394ae8ad52d8e580a3477db99814b9d565", "contracts/")},
    },
    # base/commerce-payments v1.0.0 (the escrow deployed at 0xBdEA…0cff); OpenZeppelin as its
    # spend-permissions submodule pins it, solady as lib/solady pins it.
    "commerce-payments": {
        "project": ("base+commerce-payments", "d33b5d5", ""),
        "entries": [
            "src/AuthCaptureEscrow.sol",
            "src/collectors/ERC3009PaymentCollector.sol",
            "src/collectors/OperatorRefundCollector.sol",
        ],
        "libraries": {
            "@openzeppelin/contracts/": (OZ, "1edc2ae0", "contracts/"),
            "solady/": ("Vectorized+solady", "5ea5d9f5", "src/"),
        },
    },
}

IMPORT = re.compile(r'^\s*import\s+(?:[^"\']*\sfrom\s+)?["\']([^"\']+)["\']', re.M)


def show(mirrors, repo, commit, path):
    git = ["git", "-C", str(mirrors / repo / "repo"), "show", f"{commit}:{path}"]
    return subprocess.run(git, check=True, capture_output=True, text=True).stdout


def resolve(importer, target):
    if not target.startswith("."):
        return target
    parts = importer.split("/")[:-1]
    for piece in target.split("/"):
        if piece == "..":
            parts.pop()
        elif piece != ".":
            parts.append(piece)
    return "/".join(parts)


def locate(unit, name):
    for prefix, (repo, commit, root) in unit["libraries"].items():
        if name.startswith(prefix):
            return repo, commit, root + name[len(prefix):]
    repo, commit, root = unit["project"]
    return repo, commit, root + name


def main():
    mirrors = pathlib.Path(sys.argv[1])
    out_root = pathlib.Path(__file__).resolve().parent.parent / "contracts" / "vendor"
    for unit_name, unit in UNITS.items():
        seen, queue = {}, list(unit["entries"])
        while queue:
            name = queue.pop()
            if name in seen:
                continue
            text = show(mirrors, *locate(unit, name))
            seen[name] = text
            queue.extend(resolve(name, t) for t in IMPORT.findall(text))
        out = out_root / unit_name
        subprocess.run(["rm", "-rf", str(out)], check=True)
        for name, text in seen.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        lines = sum(t.count("\n") for t in seen.values())
        print(f"{unit_name}: {len(seen)} files, {lines} lines")


if __name__ == "__main__":
    main()
