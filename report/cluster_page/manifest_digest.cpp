#include "report/cluster_page/manifest_digest.h"

#include "report/cluster_page/cluster_sections.h"
#include "report/table_view.h"

namespace cs::report {

io::Table manifest_digest(const io::Table& manifest) {
  const ColumnRef rank(&manifest, "rank"), status(&manifest, "status"), path(&manifest, "path"),
      problems(&manifest, "problems");
  io::Table t("rank_manifest");
  io::Column& rank_col = t.add_int("rank");
  io::DictionaryEncoder status_col(t.add_encoded_string("status"));
  io::DictionaryEncoder host_col(t.add_encoded_string("host"));
  io::DictionaryEncoder path_col(t.add_encoded_string("path"));
  io::DictionaryEncoder problems_col(t.add_encoded_string("problems"));
  for (size_t r = 0; r < manifest.rows(); ++r) {
    const bool listed = status.text(r) != "ok";
    rank_col.ints.push_back(rank.integer(r));
    status_col.push(status.text(r));
    host_col.push(host_of_rank_dir(path.text(r)));
    path_col.push(listed ? path.text(r) : std::string_view());
    problems_col.push(listed ? problems.text(r) : std::string_view());
  }
  return t;
}

}  // namespace cs::report
