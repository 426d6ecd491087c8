"""Runs the revenue SQL of docs/audit.md over an exported transactions.csv, in DuckDB and in
SQLite, and prints both results as JSON: {"duckdb": [rows], "sqlite": [rows]}, each row
{"period", "currency", "grossSales", "refunds", "net"}. The export test compares them with
`subledger report revenue --by month --json`.

usage: export_revenue.py TRANSACTIONS_CSV AUDIT_MD FROM_DAY DAY_AFTER_TO

The SQL is taken from the ```sql block after the line `<!-- revenue-sql -->` in AUDIT_MD, and the
loading statements from the blocks after `<!-- load-duckdb -->`; its example window
'2026-01-01' .. '2026-07-01' is replaced by the one given.
"""
import csv
import json
import os
import sqlite3
import sys


def block_after(text, marker):
    start = text.index("```sql\n", text.index(marker)) + len("```sql\n")
    return text[start:text.index("```", start)]


def rows(cursor_rows):
    return [{"period": p, "currency": c, "grossSales": int(g), "refunds": int(r), "net": int(n)}
            for p, c, g, r, n in cursor_rows]


def main():
    csv_path, audit_path, first_day, day_after = sys.argv[1:5]
    text = open(audit_path, encoding="utf-8").read()
    query = block_after(text, "<!-- revenue-sql -->").replace("'2026-01-01'", f"'{first_day}'").replace("'2026-07-01'", f"'{day_after}'")
    load = block_after(text, "<!-- load-duckdb -->")

    import duckdb
    os.chdir(os.path.dirname(os.path.abspath(csv_path)))
    duck = duckdb.connect()
    duck.execute(load)
    from_duckdb = rows(duck.execute(query).fetchall())

    # As the sqlite3 shell's `.import --csv` loads it: every column TEXT, empty fields ''.
    lite = sqlite3.connect(":memory:")
    with open(csv_path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        lite.execute("CREATE TABLE transactions (" + ", ".join(f'"{c}" TEXT' for c in header) + ")")
        lite.executemany("INSERT INTO transactions VALUES (" + ", ".join("?" * len(header)) + ")", reader)
    from_sqlite = rows(lite.execute(query).fetchall())

    json.dump({"duckdb": from_duckdb, "sqlite": from_sqlite}, sys.stdout)


if __name__ == "__main__":
    main()
