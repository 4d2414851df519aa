#include "db/simple_select.h"

#include <cctype>

namespace cs::db {

namespace {

// A cursor over the query's words: names ([A-Za-z_][A-Za-z0-9_]*), "," and "*".
class Words {
 public:
  explicit Words(std::string_view s) : s_(s) {}
  // The next word; empty at the end; "?" for anything that is not a word.
  std::string_view next() {
    while (at_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[at_]))) ++at_;
    if (at_ == s_.size()) return {};
    const size_t start = at_;
    const char c = s_[at_];
    if (c == ',' || c == '*') return s_.substr(at_++, 1);
    if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) return "?";
    while (at_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[at_])) || s_[at_] == '_'))
      ++at_;
    return s_.substr(start, at_ - start);
  }

 private:
  std::string_view s_;
  size_t at_ = 0;
};

bool is_name(std::string_view w) {
  return !w.empty() && w != "?" && w != "," && w != "*";
}

}  // namespace

std::optional<SimpleSelect> parse_simple_select(std::string_view sql) {
  Words w(sql);
  if (!io::sqlite::sql_name_equal(w.next(), "SELECT")) return std::nullopt;
  SimpleSelect q;
  std::string_view word = w.next();
  if (word == "*") {
    word = w.next();
  } else {
    while (true) {
      if (!is_name(word) || io::sqlite::sql_name_equal(word, "FROM") ||
          io::sqlite::sql_name_equal(word, "DISTINCT") || io::sqlite::sql_name_equal(word, "ALL"))
        return std::nullopt;
      q.columns.emplace_back(word);
      word = w.next();
      if (word != ",") break;
      word = w.next();
    }
  }
  if (!io::sqlite::sql_name_equal(word, "FROM")) return std::nullopt;
  word = w.next();
  if (!is_name(word)) return std::nullopt;
  q.table = std::string(word);
  word = w.next();
  if (io::sqlite::sql_name_equal(word, "NOT") && io::sqlite::sql_name_equal(w.next(), "INDEXED")) {
    q.not_indexed = true;
    word = w.next();
  }
  if (!word.empty()) return std::nullopt;  // WHERE, ORDER BY, LIMIT, a join, "t.x", ...
  return q;
}

std::optional<std::vector<int>> page_answerable(const SimpleSelect& q,
                                                const io::sqlite::PagedTable& t, bool rowid) {
  if (!t.readable) return std::nullopt;
  std::vector<int> pick;
  if (q.columns.empty()) {
    for (size_t c = 0; c < t.columns.size(); ++c) pick.push_back(static_cast<int>(c));
    if (!q.not_indexed && t.index_may_cover(t.columns)) return std::nullopt;
    return pick;
  }
  std::vector<std::string> from_table;
  for (const auto& name : q.columns) {
    const int c = io::sqlite::column_index(t.columns, name);
    if (c >= 0) {
      pick.push_back(c);
      from_table.push_back(t.columns[static_cast<size_t>(c)]);
    } else if (rowid && (io::sqlite::sql_name_equal(name, "rowid") ||
                         io::sqlite::sql_name_equal(name, "oid") ||
                         io::sqlite::sql_name_equal(name, "_rowid_"))) {
      pick.push_back(-1);
    } else {
      return std::nullopt;  // SQLite says what is wrong
    }
  }
  // SQLite reads an index instead of the table when the index holds every column asked for.
  if (!q.not_indexed && t.index_may_cover(from_table)) return std::nullopt;
  return pick;
}

}  // namespace cs::db
