#pragma once
// module_statistic's three per-rank queries (module_queries.h: the module ranges, each kernel
// table's rows with their framework ops, the forward/backward links), which SQLite answers with
// automatic indexes and sorts it builds for every rank, done as one plain scan per table plus
// C++. Each answer is exactly the SQL's rows in its order, converted as the recipe reads them, or
// false and the caller runs the SQL (which also reports any damage): nothing here writes a
// diagnostic. The rules are in docs/formats.md §9 ("module_statistic: the scans").

#include <memory>
#include <string>
#include <vector>

#include "db/database.h"
#include "msprof_analyze/recipes/module_statistic/module_tree.h"

namespace cs::recipes::module_statistic {

class ModuleScan {
 public:
  // Reads nothing yet: each table is read once, when an answer first needs it.
  explicit ModuleScan(const db::Database& db);
  ~ModuleScan();
  ModuleScan(const ModuleScan&) = delete;
  ModuleScan& operator=(const ModuleScan&) = delete;

  // kModulesSql's rows as module ranges (forward). Used only for SQLite's plan (MSTX_EVENTS
  // scanned, both STRING_IDS by primary key, a sort by start).
  bool modules(std::vector<ModuleRange>& out);
  // kernel_query(table)'s rows appended to `out`. Used only for SQLite's plan (the table scanned
  // in rowid order, TASK, CONNECTION_IDS and PYTORCH_API through automatic covering indexes,
  // STRING_IDS by primary key, a sort by (op_ts, kernel_ts)).
  bool kernels(const std::string& table, std::vector<KernelRow>& out);
  // kFwdBwdSql's rows. Used only for SQLite's plan (CONNECTION_IDS grouped through a temporary
  // b-tree, PYTORCH_API through automatic covering indexes, STRING_IDS by primary key).
  bool links(std::vector<FwdBwdLink>& out);

 private:
  struct Tables;
  const db::Database& db_;
  std::unique_ptr<Tables> t_;
};

}  // namespace cs::recipes::module_statistic
