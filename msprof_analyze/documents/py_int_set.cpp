#include "msprof_analyze/documents/py_int_set.h"

#include <algorithm>

namespace cs::documents {

namespace {
constexpr size_t kMinSize = 8;       // PySet_MINSIZE
constexpr size_t kLinearProbes = 9;  // LINEAR_PROBES
constexpr unsigned kPerturbShift = 5;

int64_t py_hash(int x) {
  return x == -1 ? -2 : x;
}
}  // namespace

PyIntSet::PyIntSet() : table_(kMinSize), mask_(kMinSize - 1) {}

PyIntSet PyIntSet::from_list(const std::vector<int>& v) {
  PyIntSet s;
  for (int x : v) s.add(x);
  return s;
}

// set_insert_clean(): place a key known to be absent into a table without dummies.
void PyIntSet::insert_clean(std::vector<Entry>& table, size_t mask, int key) {
  const int64_t hash = py_hash(key);
  uint64_t perturb = static_cast<uint64_t>(hash);
  size_t i = static_cast<size_t>(hash) & mask;
  while (true) {
    if (!table[i].full) {
      table[i] = {key, true};
      return;
    }
    if (i + kLinearProbes <= mask) {
      for (size_t j = 1; j <= kLinearProbes; ++j) {
        if (!table[i + j].full) {
          table[i + j] = {key, true};
          return;
        }
      }
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + static_cast<size_t>(perturb)) & mask;
  }
}

// set_table_resize(): smallest power of two above minused, old entries re-inserted in slot order.
void PyIntSet::resize(size_t minused) {
  size_t newsize = kMinSize;
  while (newsize <= minused) newsize <<= 1;
  std::vector<Entry> fresh(newsize);
  for (const Entry& e : table_)
    if (e.full) insert_clean(fresh, newsize - 1, e.key);
  table_ = std::move(fresh);
  mask_ = newsize - 1;
  fill_ = used_;
}

// set_add_entry(): returns true when the key was new.
bool PyIntSet::add_entry(int key) {
  const int64_t hash = py_hash(key);
  size_t i = static_cast<size_t>(hash) & mask_;
  uint64_t perturb = static_cast<uint64_t>(hash);
  while (true) {
    size_t probes = (i + kLinearProbes <= mask_) ? kLinearProbes : 0;
    size_t k = i;
    while (true) {
      Entry& e = table_[k];
      if (!e.full) {
        e = {key, true};
        ++fill_;
        ++used_;
        if (fill_ * 5 >= mask_ * 3) resize(used_ > 50000 ? used_ * 2 : used_ * 4);
        return true;
      }
      if (e.key == key) return false;  // an int's hash is a function of its value
      if (probes == 0) break;
      --probes;
      ++k;
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + static_cast<size_t>(perturb)) & mask_;
  }
}

void PyIntSet::add(int x) {
  add_entry(x);
}

void PyIntSet::merge(const PyIntSet& other) {
  if (&other == this || other.used_ == 0) return;
  if ((fill_ + other.used_) * 5 >= mask_ * 3) resize((used_ + other.used_) * 2);
  if (fill_ == 0 && mask_ == other.mask_) {  // copy the table as it is
    table_ = other.table_;
    fill_ = other.fill_;
    used_ = other.used_;
    return;
  }
  if (fill_ == 0) {  // empty target: clean inserts in the other's slot order
    fill_ = used_ = other.used_;
    for (const Entry& e : other.table_)
      if (e.full) insert_clean(table_, mask_, e.key);
    return;
  }
  for (const Entry& e : other.table_)
    if (e.full) add_entry(e.key);
}

bool PyIntSet::contains(int x) const {
  const int64_t hash = py_hash(x);
  size_t i = static_cast<size_t>(hash) & mask_;
  uint64_t perturb = static_cast<uint64_t>(hash);
  while (true) {
    size_t probes = (i + kLinearProbes <= mask_) ? kLinearProbes : 0;
    for (size_t k = i;; ++k) {
      const Entry& e = table_[k];
      if (!e.full) return false;  // no deletions ever happen, so an empty slot ends the chain
      if (e.key == x) return true;
      if (probes == 0) break;
      --probes;
    }
    perturb >>= kPerturbShift;
    i = (i * 5 + 1 + static_cast<size_t>(perturb)) & mask_;
  }
}

int PyIntSet::min() const {
  bool any = false;
  int m = 0;
  for (const Entry& e : table_)
    if (e.full && (!any || e.key < m)) {
      m = e.key;
      any = true;
    }
  return m;
}

std::vector<int> PyIntSet::items() const {
  std::vector<int> out;
  out.reserve(used_);
  for (const Entry& e : table_)
    if (e.full) out.push_back(e.key);
  return out;
}

std::vector<int> PyIntSet::sorted() const {
  std::vector<int> out = items();
  std::sort(out.begin(), out.end());
  return out;
}

std::string PyIntSet::tuple_str() const {
  return py_tuple_str(items());
}

size_t PyIntSet::intersection_size(const PyIntSet& other) const {
  size_t n = 0;
  for (const Entry& e : table_)
    if (e.full && other.contains(e.key)) ++n;
  return n;
}

bool PyIntSet::operator==(const PyIntSet& other) const {
  return used_ == other.used_ && intersection_size(other) == used_;
}

std::string py_tuple_str(const std::vector<int>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  if (v.size() == 1) s += ',';
  s += ')';
  return s;
}

}  // namespace cs::documents
