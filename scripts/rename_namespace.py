#!/usr/bin/env python3
"""Moves one source folder's declarations from one namespace to another, and every use with them.

    scripts/rename_namespace.py FOLDER OLD NEW [--dry-run]
    e.g. scripts/rename_namespace.py load cs::cluster cs::load

What it does (a mechanical step, re-runnable after merging other branches):
  1. The folder's namespace-scope names in OLD: universal-ctags over FOLDER/*.h (classes,
     structs, enums, aliases, functions, variables, nested namespaces). Names OLD also declares
     outside FOLDER are listed as conflicts and left alone (their uses are fixed by hand).
  2. In FOLDER's files: `namespace OLD {` (and `OLD::x {`, the closing comments) become NEW.
  3. In FOLDER's files, an unqualified use of a name that stays in OLD (declared there by another
     folder's header) becomes `<OLD's last part>::name` (not when NEW nests in OLD: OLD's names
     are seen from NEW as they are).
  4. Everywhere (.cpp/.h outside build trees): `OLD::name` and its short forms (`cluster::name`
     where OLD is cs::cluster) become NEW's; in files whose code is inside OLD (they open it) an
     unqualified use of a name becomes `<NEW's last part>::name`, in code only (not comments or
     string literals; not after `.`, `->` or `::`; not a GoogleTest suite name; not a name the
     file declares itself, such as a local variable).
Then build: what is left is a compile error to fix by hand (a local variable named like a moved
function, say).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_TOP = ("build", ".")
SYMBOL_KINDS = {"name", "class", "struct", "enum", "typedef", "function", "prototype", "variable",
                "externvar", "union", "alias", "namespace"}


def source_files():
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        first = rel.split(os.sep)[0]
        if rel != "." and first.startswith(SKIP_TOP):
            dirnames[:] = []
            continue
        for f in filenames:
            if f.endswith((".cpp", ".h")):
                yield os.path.join(rel, f) if rel != "." else f


def folder_of(path):
    return os.path.dirname(path)


def ctags(files):
    out = subprocess.run(["ctags", "-o", "-", "--languages=C++", "--kinds-C++=+pxN-l",
                          "--fields=+sKe", "--extras=-q"] + files, cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split("\t")
        name, path = parts[0], parts[1]
        fields = dict(p.split(":", 1) for p in parts[3:] if ":" in p)
        kind = next((p for p in parts[3:] if ":" not in p), "")
        yield name, path, kind, fields


def declared_in_files(files):
    """Every name each file declares itself, at any scope (locals, parameters, members too)."""
    declared = {}
    out = subprocess.run(["ctags", "-o", "-", "--languages=C++", "--kinds-C++=*", "--extras=-q"] +
                         files, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        parts = line.split("\t")
        declared.setdefault(parts[1], set()).add(parts[0])
    return declared


def namespace_names(files, ns, scoped_enums):
    names = set()
    for name, path, kind, fields in ctags(files):
        if re.match(r"operator\b", name) or name.startswith("__anon"):  # not operators_topn
            continue
        if kind in SYMBOL_KINDS and fields.get("namespace") == ns:
            # A namespace nested in OLD moves with the folder; but moving out of `cs` itself, the
            # namespaces of the other folders (cs::io, cs::runtime) stay where they are.
            if kind != "namespace" or ns != "cs":
                names.add(name)
        # An unscoped enum's values live in the enclosing namespace.
        if kind == "enumerator" and "enum" in fields:
            enum = fields["enum"]
            if enum.rsplit("::", 1)[0] == ns and enum.rsplit("::", 1)[-1] not in scoped_enums:
                names.add(name)
    return names


def scoped_enums_in(files):
    scoped = set()
    for f in files:
        text = open(os.path.join(ROOT, f)).read()
        for m in re.finditer(r"enum class (\w+)", text):
            scoped.add(m.group(1))
    return scoped


def code_spans(line, state):
    """Splits a line into (is_code, text) pieces; state['block'] carries /* */ across lines."""
    pieces, i, start, n = [], 0, 0, len(line)
    while i < n:
        if state["block"]:
            j = line.find("*/", i)
            if j < 0:
                pieces.append((False, line[start:]))
                return pieces
            i = j + 2
            pieces.append((False, line[start:i]))
            start = i
            state["block"] = False
            continue
        c = line[i]
        if line.startswith("//", i):
            pieces.append((True, line[start:i]))
            pieces.append((False, line[i:]))
            return pieces
        if line.startswith("/*", i):
            pieces.append((True, line[start:i]))
            start = i
            state["block"] = True
            i += 2
            continue
        if c == '"' or (c == "'" and not (i > 0 and line[i - 1].isalnum())):
            # A raw string R"(...)" is treated as text to its closing )".
            if c == '"' and i > 0 and line[i - 1] == "R":
                j = line.find(')"', i)
                j = n if j < 0 else j + 2
            else:
                j = i + 1
                while j < n and line[j] != c:
                    j += 2 if line[j] == "\\" else 1
                j = min(j + 1, n)
            pieces.append((True, line[start:i]))
            pieces.append((False, line[i:j]))
            i = start = j
            continue
        i += 1
    pieces.append((True, line[start:]))
    return pieces


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    dry = "--dry-run" in sys.argv
    if len(args) != 3:
        sys.exit(__doc__)
    folder, old, new = args[0].rstrip("/"), args[1], args[2]
    files = sorted(source_files())
    mine = [f for f in files if folder_of(f) == folder]
    headers = [f for f in mine if f.endswith(".h")]
    scoped = scoped_enums_in(files)
    names = namespace_names(headers, old, scoped)
    others = namespace_names([f for f in files if f.endswith(".h") and folder_of(f) != folder
                              and not f.startswith("tests")], old, scoped)
    conflicts = sorted(names & others)
    names -= set(conflicts)
    # What stays in OLD, which the folder's own code named unqualified: now `<OLD's last part>::x`.
    # (When NEW nests in OLD, e.g. cs::recipes -> cs::recipes::slow_rank, OLD's names are seen
    # from NEW unqualified: nothing to do.)
    staying = set() if new.startswith(old + "::") else others - set(conflicts)
    print(f"{folder}: {len(names)} names move from {old} to {new}: {' '.join(sorted(names))}")
    if conflicts:
        print(f"  conflicts (also declared in {old} elsewhere; left alone): {' '.join(conflicts)}")
    if dry or not names:
        return
    new_short = new.split("::")[-1]
    # Qualified forms of OLD as code may spell them: cs::cluster::x, cluster::x.
    old_parts = old.split("::")
    qualified = ["::".join(old_parts[k:]) for k in range(len(old_parts)) if old_parts[k:] != []]
    qualified = [q for q in qualified if q != ""]
    name_alt = "|".join(sorted((re.escape(n) for n in names), key=len, reverse=True))
    qual_re = re.compile(r"(?<![\w:])(" + "|".join(re.escape(q) for q in qualified) +
                         r")::(" + name_alt + r")\b")
    new_parts = new.split("::")

    def qualified_sub(m):
        q = m.group(1).split("::")
        # Keep as much of the spelling as was there: cs::cluster::x -> cs::load::x, cluster::x ->
        # load::x; out of `cs` itself, cs::x -> cs::runtime::x.
        keep = new_parts if len(q) == len(old_parts) else new_parts[max(0, len(new_parts) - len(q)):]
        return "::".join(keep) + "::" + m.group(2)

    bare_re = re.compile(r"(?<![\w.:>])(" + name_alt + r")\b(?!\s*::\s*~)")
    # GoogleTest's suite names are names, not uses: TEST(RankData, ...) stays.
    test_suite = re.compile(r"\b(TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P|FRIEND_TEST)\(\s*$|"
                            r"\bINSTANTIATE_TEST_SUITE_P\(\s*\w+\s*,\s*$")

    def prefix(short, pattern, piece, mine_names):
        def sub(m):
            if m.group(1) in mine_names or test_suite.search(piece[:m.start()]):
                return m.group(0)
            return short + "::" + m.group(1)
        return pattern.sub(sub, piece)
    old_short = old.split("::")[-1]
    stay_re = None
    if staying:
        stay_alt = "|".join(sorted((re.escape(n) for n in staying), key=len, reverse=True))
        stay_re = re.compile(r"(?<![\w.:>])(" + stay_alt + r")\b(?!\s*::\s*~)")
    opens_old = re.compile(r"^\s*namespace " + re.escape(old) + r"(::\w+)* \{", re.M)
    if old == "cs":
        opens_old = re.compile(r"^\s*namespace cs(::\w+)* \{", re.M)
    # A name a file declares itself (a local `rows`, a parameter `partition`) is that file's own:
    # its unqualified uses there are left alone.
    own = declared_in_files(files)
    changed = 0
    for f in files:
        path = os.path.join(ROOT, f)
        text = open(path).read()
        orig = text
        if f in mine:
            # (Out of `cs` itself only `namespace cs {` moves: cs::io in the same file is not cs's.)
            nested = r"()" if old == "cs" else r"((?:::\w+)*)"
            text = re.sub(r"^namespace " + re.escape(old) + nested + r" \{",
                          "namespace " + new + r"\1 {", text, flags=re.M)
            text = re.sub(r"^\}  // namespace " + re.escape(old) + nested + r"[ \t]*$",
                          "}  // namespace " + new + r"\1", text, flags=re.M)
        inside_old = f not in mine and opens_old.search(text) is not None
        # A file that says `using namespace OLD;` at its top also says `using namespace NEW;`.
        using_old = re.compile(r"^using namespace " + re.escape(old) + r";.*$", re.M)
        if f not in mine and not inside_old and using_old.search(text) and bare_re.search(text):
            text = using_old.sub(lambda m: m.group(0) + "\nusing namespace " + new + ";", text,
                                 count=1)
        state = {"block": False}
        out_lines = []
        for line in text.split("\n"):
            if line.lstrip().startswith("#"):  # preprocessor lines (#include "load/x.h") as they are
                out_lines.append(line)
                continue
            pieces = []
            for is_code, piece in code_spans(line, state):
                if is_code:
                    piece = qual_re.sub(qualified_sub, piece)
                    if inside_old:
                        piece = prefix(new_short, bare_re, piece, own.get(f, set()))
                    if f in mine and stay_re is not None:
                        piece = prefix(old_short, stay_re, piece, own.get(f, set()))
                pieces.append(piece)
            out_lines.append("".join(pieces))
        text = "\n".join(out_lines)
        if text != orig:
            changed += 1
            open(path, "w").write(text)
    print(f"  {changed} files changed")


if __name__ == "__main__":
    main()
