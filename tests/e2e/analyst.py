"""What an analyst does with a snapshot's exports, with the real DuckDB and polars packages.

Run by tests/e2e/analyst.rs from a folder whose `demo` links to a built world (lake/ and
snapshots/), as `python analyst.py docs/analysing.md DATA_DICTIONARY.md`. It checks that:
- every export has exactly the columns and types DATA_DICTIONARY.md lists, as DuckDB and polars
  read them;
- scores.csv carries every scores.parquet column by the same name with the same values;
- the analysts' guide's queries (its SQL blocks under "The exports", statement by statement) each answer rows, and its
  polars script runs.
"""

import contextlib
import csv
import io
import re
import sys

import duckdb
import polars as pl

SNAPSHOT = "demo/snapshots/current"
POLARS_TYPES = {
    "VARCHAR": pl.String,
    "BOOLEAN": pl.Boolean,
    "UTINYINT": pl.UInt8,
    "UINTEGER": pl.UInt32,
    "UBIGINT": pl.UInt64,
    "BIGINT": pl.Int64,
    "DOUBLE": pl.Float64,
    "DATE": pl.Date,
    "TIMESTAMP": pl.Datetime("us"),
    "VARCHAR[]": pl.List(pl.String),
}


def fail(message):
    print(f"analyst: {message}", file=sys.stderr)
    sys.exit(1)


def dictionary_tables(path):
    """{file name: [(column, sql type, place)]} of the export sections."""
    tables, files = {}, None
    for line in open(path, encoding="utf-8"):
        heading = re.match(r"^### (.*)$", line)
        if heading:
            files = re.findall(r"`([^`]+)`", heading.group(1))
            continue
        row = re.match(r"^\| `([^`]+)` \| ([^|]+) \| (yes|no) \| [^|]* \| (both|CSV|Parquet) \|", line)
        if row and files:
            for f in files:
                tables.setdefault(f, []).append((row.group(1), row.group(2).strip(), row.group(4)))
    return tables


def check_parquet(con, name, columns):
    expected = [(c, t) for c, t, place in columns if place != "CSV"]
    described = con.sql(f"DESCRIBE SELECT * FROM '{SNAPSHOT}/{name}'").fetchall()
    actual = [(r[0], r[1]) for r in described]
    if actual != expected:
        fail(f"{name}: DuckDB reads {actual}, the dictionary says {expected}")
    frame = pl.read_parquet(f"{SNAPSHOT}/{name}")
    for column, sql_type in expected:
        if frame.schema[column] != POLARS_TYPES[sql_type]:
            fail(f"{name}.{column}: polars reads {frame.schema[column]}, the dictionary says {sql_type}")
    if frame.height == 0:
        fail(f"{name} is empty")
    return frame.height


def check_csv_header(name, columns):
    with open(f"{SNAPSHOT}/{name}", newline="", encoding="utf-8") as f:
        header = next(csv.reader(f))
    expected = [c for c, _, place in columns if place != "Parquet"]
    if header != expected:
        fail(f"{name}: header {header}, the dictionary says {expected}")


def check_csv_matches_parquet(con, columns):
    """Every scores.parquet column has the same value in scores.csv, row by row."""
    con.sql(f"CREATE TABLE p AS SELECT * FROM '{SNAPSHOT}/scores.parquet'")
    con.sql(f"CREATE TABLE c AS SELECT * FROM read_csv('{SNAPSHOT}/scores.csv', all_varchar = true, header = true)")
    rows_p, rows_c = (con.sql(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("p", "c"))
    if rows_p != rows_c:
        fail(f"scores.parquet has {rows_p} rows, scores.csv {rows_c}")
    order = con.sql(
        "SELECT count(*) FROM (SELECT address, row_number() OVER () AS n FROM p) a "
        "JOIN (SELECT address, row_number() OVER () AS n FROM c) b ON a.address = b.address AND a.n = b.n"
    ).fetchone()[0]
    if order != rows_p:
        fail("scores.csv and scores.parquet list the sellers in different orders")
    for column, sql_type, place in columns:
        if place == "CSV":
            continue
        if sql_type.endswith("[]"):
            from_csv = f"""from_json(c."{column}", '["VARCHAR"]')"""
        elif sql_type == "VARCHAR":
            from_csv = f"""coalesce(c."{column}", '')"""
        else:
            from_csv = f"""CAST(c."{column}" AS {sql_type})"""
        from_parquet = f"""coalesce(p."{column}", '')""" if sql_type == "VARCHAR" else f'p."{column}"'
        differ = con.sql(
            f"SELECT count(*) FROM p JOIN c USING (address) WHERE {from_parquet} IS DISTINCT FROM {from_csv}"
        ).fetchone()[0]
        if differ:
            fail(f"scores.csv and scores.parquet differ in {column} on {differ} rows")


def readme_blocks(path, language):
    text = open(path, encoding="utf-8").read()
    section = text[text.index("## The exports") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)


def run_readme(con, readme):
    statements = [s.strip() for block in readme_blocks(readme, "sql") for s in block.split(";")]
    statements = [s for s in statements if any(l.strip() and not l.strip().startswith("--") for l in s.splitlines())]
    if len(statements) < 3:
        fail(f"the analysts' guide has {len(statements)} SQL statements")
    for sql in statements:
        try:
            rows = con.sql(sql).fetchall()
        except duckdb.Error as e:
            fail(f"documented query failed: {e}\n{sql}")
        if not rows:
            fail(f"documented query answered no rows:\n{sql}")
    scripts = readme_blocks(readme, "python")
    if not scripts:
        fail("the analysts' guide has no polars script")
    for script in scripts:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(script, readme, "exec"), {})
        if not out.getvalue().strip():
            fail("the guide's polars script printed nothing")
    return len(statements), len(scripts)


def main():
    readme, dictionary = sys.argv[1], sys.argv[2]
    tables = dictionary_tables(dictionary)
    for name in ("scores.parquet", "scores.csv", "history.parquet", "counterparties.parquet", "settlement-forms.parquet"):
        if name not in tables:
            fail(f"DATA_DICTIONARY.md has no table for {name}")
    con = duckdb.connect()
    sellers = check_parquet(con, "scores.parquet", tables["scores.parquet"])
    days = check_parquet(con, "history.parquet", tables["history.parquet"])
    check_csv_header("scores.csv", tables["scores.csv"])
    payers = check_parquet(con, "counterparties.parquet", tables["counterparties.parquet"])
    paid = check_parquet(con, "settlement-forms.parquet", tables["settlement-forms.parquet"])
    check_csv_matches_parquet(con, tables["scores.parquet"])
    queries, scripts = run_readme(con, readme)
    print(
        f"analyst: {sellers} sellers, {days} history rows, {payers} counterparties, {paid} sellers paid; "
        f"{queries} documented queries and {scripts} polars script ran"
    )


if __name__ == "__main__":
    main()
