#!/usr/bin/env python3
"""contracts_check.py SRC DOC: every table perfstudy makes has one typed
contract, and docs/output.md lists each table's columns as that contract
says (issue 53, part 1).

Reads the C sources as text, as t_layout.sh does:
- a contract is an X-macro column list in a header (or, for a table
  only its maker reads, in the maker's own file),
    #define NAME_COLUMNS(X) X(ID, "column", type) ...
- every table_new("name", title, schema) call under SRC passes
  TABLE_SCHEMA(NAME_COLUMNS) of one such list, never a schema string;
- a table whose maker sets `<its variable>->internal = 1` is internal
  (util/table.h: no CSV) and must not be in DOC; every other table must
  have a row in DOC's table of tables whose columns are the contract's,
  in order;
- every row of DOC's table of tables names a table some call makes.
Prints one line per problem and exits 1 on any; else prints a count.
"""
import glob
import os
import re
import sys

src, doc = sys.argv[1], sys.argv[2]
problems = []

def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)

contracts = {}  # macro -> [column names]
for h in sorted(glob.glob(os.path.join(src, "**", "*.[ch]"), recursive=True)):
    text = strip_comments(open(h, encoding="utf-8").read())
    for m in re.finditer(r"#define (\w+_COLUMNS)\(X\)((?:[^\n]*\\\n)*[^\n]*)", text):
        cols = re.findall(r'X\(\s*\w+\s*,\s*"([^"]+)"\s*,\s*(\w+)\s*\)', m.group(2))
        if not cols:
            problems.append(f"{h}: {m.group(1)} lists no columns")
        if m.group(1) in contracts:
            problems.append(f"{h}: {m.group(1)} defined twice")
        contracts[m.group(1)] = [c for c, _ in cols]

tables = {}  # name -> (where, macro, internal)
for c in sorted(glob.glob(os.path.join(src, "**", "*.c"), recursive=True)):
    if c.endswith(os.path.join("util", "table.c")):
        continue
    text = strip_comments(open(c, encoding="utf-8").read())
    for m in re.finditer(r"table_new\(", text):
        line = text.count("\n", 0, m.start()) + 1
        where = f"{c}:{line}"
        call = re.match(r'table_new\(\s*"(\w+)"\s*,\s*(?:"(?:[^"\\]|\\.)*"\s*)+,', text[m.start():], re.S)
        if not call:
            problems.append(f"{where}: table_new without a literal name and title")
            continue
        # the third argument: up to the call's closing parenthesis
        i, depth = m.start() + call.end(), 0
        j = i
        while depth or text[j] != ")":
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        name, schema = call.group(1), " ".join(text[i:j].split())
        sm = re.fullmatch(r"TABLE_SCHEMA\((\w+_COLUMNS)\)", schema)
        if not sm:
            problems.append(f"{where}: table {name} is made from {schema[:60]!r}, not TABLE_SCHEMA(<a contract>)")
            tables.setdefault(name, (where, None, False))
            continue
        macro = sm.group(1)
        if macro not in contracts:
            problems.append(f"{where}: table {name}: no header defines {macro}(X)")
            tables.setdefault(name, (where, None, False))
            continue
        # internal: the variable the call's table is assigned to is flagged in the same file
        before = text[:m.start()]
        var = re.search(r"([\w.>-]+)\s*=\s*$", before)
        internal = bool(var and re.search(re.escape(var.group(1)) + r"->internal\s*=\s*1", text))
        if name in tables and tables[name][1] != macro:
            problems.append(f"{where}: table {name} made with {macro}, at {tables[name][0]} with {tables[name][1]}")
        tables.setdefault(name, (where, macro, internal))

rows = {}
for line in open(doc, encoding="utf-8"):
    m = re.match(r"\| `(\w+)\.csv` \| `([^`]*)` \|", line)
    if m:
        rows[m.group(1)] = m.group(2).split(",")

for name, (where, macro, internal) in sorted(tables.items()):
    if macro is None:
        continue  # said above
    if internal:
        if name in rows:
            problems.append(f"{doc}: lists {name}.csv, an internal table ({where}) that is never written")
        continue
    if name not in rows:
        problems.append(f"{doc}: no row for {name}.csv (made at {where}, contract {macro})")
    elif rows[name] != contracts[macro]:
        problems.append(f"{doc}: {name}.csv's columns {','.join(rows[name])} are not its contract "
                        f"{macro}'s {','.join(contracts[macro])}")
for name in sorted(set(rows) - set(tables)):
    problems.append(f"{doc}: lists {name}.csv, which no table_new under {src} makes")

for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f"contracts_check: {len(tables)} tables, each from a contract; {len(rows)} documented with its contract's columns")
