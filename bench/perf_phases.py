#!/usr/bin/python3
"""Groups a `perf report --no-children --sort dso,symbol --stdio` listing (read on stdin) into the
phases of a `clusterscope cluster` run by the symbol each sample fell in, and prints one line per
phase with its share of the samples. Symbols are matched by name, so the grouping is approximate
(malloc and memmove serve every phase: they are their own rows).

    perf record -F 2000 -o perf.data build/clusterscope cluster -d JOB -o OUT --quiet
    perf report -i perf.data --no-children --sort dso,symbol --stdio | bench/perf_phases.py
"""
import re
import sys

PHASES = [  # (phase, patterns tried in order on "dso symbol")
    ("read input: kernel (read, page cache)", [r"\[k\] (_copy_to_iter|filemap_|copy_page_to_iter|generic_file_read)"]),
    ("write outputs: kernel (write, page cache)", [r"\[k\] (copy_folio_from_iter|iomap_|ext4_|xfs_|generic_perform_write|__filemap_add)"]),
    ("page faults, process start (kernel)", [r"\[k\] (clear_page|exc_page_fault|do_anonymous|handle_mm|__handle_mm|next_uptodate|filemap_map|zap_|release_pages|free_unref|unmap)"]),
    ("other kernel", [r"\[k\]"]),
    ("parse JSON (simdjson, readers)", [r"simdjson", r"cs::readers::", r"json_input|JsonFile|gzip_input"]),
    ("parse CSV / numbers", [r"CsvReader|csv_cells|csv_number|from_chars|parse_number|decimal"]),
    ("pack / gather ranks (load)", [r"cs::load::|rank_data_codec|BatchStream"]),
    ("msprof-analyze documents (compute)", [r"cs::documents::"]),
    # libstdc++'s unnamed code is std::to_chars's shortest-digits search (its callers are
    # py_format's, by the call graph of `perf record --call-graph dwarf`).
    ("write JSON (json_writer, py_format)", [r"JsonWriter|append_json_string|plain_run_end|append_py|py_repr|py_round|py_format|format_python", r"libstdc\+\+\S* +\[\.\] 0x"]),
    ("clusterscope tables (analysis/, stats/)", [r"cs::analysis::|cs::stats::|DictionaryEncoder|sorted_order|introsort"]),
    ("HDF5 (deflate, chunks, library)", [r"libz|adler32|deflate|hdf5|H5|filter_table_chunks"]),
    ("write CSV tables", [r"csv_writer|append_csv|append_row|write_table_csv"]),
    ("report.html", [r"cs::report::"]),
    ("malloc / free", [r"malloc|_int_free|cfree|unlink_chunk|free@|_int_realloc|realloc|operator new|operator delete"]),
    ("memcpy / memmove / memset / memcmp / hash", [r"memmove|memcpy|memset|memcmp|memchr|_Hash_bytes|strlen|string_view.*compare|_Hashtable|hash_bytes|StringPool|TextHash"]),
    ("dynamic loader, MPI, libstdc++ start", [r"ld-linux|libmpi|libopen|libpmix|libevent|libhwloc|_dl_"]),
]

shares = {name: 0.0 for name, _ in PHASES}
shares["other"] = 0.0
for line in sys.stdin:
    m = re.match(r"\s+([0-9.]+)%\s+(.*)", line)
    if not m:
        continue
    pct, rest = float(m.group(1)), m.group(2)
    for name, pats in PHASES:
        if any(re.search(p, rest) for p in pats):
            shares[name] += pct
            break
    else:
        shares["other"] += pct
for name, pct in sorted(shares.items(), key=lambda kv: -kv[1]):
    if pct >= 0.05:
        print("%-45s %5.1f%%" % (name, pct))
