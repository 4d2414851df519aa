#pragma once
// What the cluster report reads of rank_manifest (a row per rank directory), in a table a fraction
// of its size, so the caller can write the manifest and free it before the analyses: per row the
// rank, its status and its directory's host (dictionary-encoded: a few distinct values), and the
// path and problems of the rows the page lists (status not "ok"; "" elsewhere). The page drawn
// from the digest is the one drawn from the manifest.
//
//   io::Table small = manifest_digest(build_manifest_table(ranks, skipped));
//   in.manifest = &small;

#include "io/table.h"

namespace cs::report {

// The digest of `manifest` (rank_manifest's columns: rank, path, status, problems), named
// "rank_manifest", columns rank, status, host, path, problems.
io::Table manifest_digest(const io::Table& manifest);

}  // namespace cs::report
