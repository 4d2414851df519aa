#include "io/sqlite/table_reader.h"

namespace cs::io::sqlite {

TableRead read_table(const std::string& path, std::string_view table,
                     std::vector<std::string>& columns,
                     const std::function<bool(const std::vector<StoredValue>&)>& row) {
  const PagedDatabase db(path);
  if (!db.ok()) return TableRead::kDeclined;
  const PagedTable* t = db.table(table);
  if (!t) return TableRead::kNoTable;
  auto rows = db.rows(*t);
  if (!rows) return TableRead::kDeclined;
  columns = t->columns;
  std::vector<StoredValue> v;
  for (size_t r = 0; r < rows->size(); ++r) {
    rows->decode(r, v);
    if (!row(v)) break;
  }
  return TableRead::kRead;
}

}  // namespace cs::io::sqlite
