#pragma once
// A set of non-negative ints that iterates in exactly the order CPython's `set` does.
//
// msprof-analyze prints rank sets straight out of Python sets: `str(tuple(s))` is the group key
// of cluster_communication.json ("(0, 1)"), `list(s)` fills communication_group.json and the stage
// index of cluster_step_trace_time.csv. CPython iterates a set in hash-table slot order, which is
// ascending for small contiguous ranks but not in general: {7, 15} built by adding 7 then 15
// iterates as 15, 7. This class replays CPython 3.7+'s open addressing (hash(i) == i, linear probes
// of 9, perturbed probing, resize at 3/5 fill) so those strings come out byte for byte.
//
//   PyIntSet s; s.add(7); s.add(15);
//   s.items() == {15, 7};  s.tuple_str() == "(15, 7)"

#include <cstdint>
#include <string>
#include <vector>

namespace cs::documents {

class PyIntSet {
 public:
  PyIntSet();
  // set(list): adds each element in order.
  static PyIntSet from_list(const std::vector<int>& v);

  // s.add(x). Negative values are accepted (CPython hashes -1 as -2; other negatives as
  // themselves).
  void add(int x);
  // s |= other (CPython's set_merge, including its copy-the-table fast paths).
  void merge(const PyIntSet& other);
  bool contains(int x) const;
  size_t size() const { return used_; }
  bool empty() const { return used_ == 0; }
  int min() const;  // smallest element; 0 for an empty set

  // Elements in CPython iteration order.
  std::vector<int> items() const;
  // Elements sorted ascending.
  std::vector<int> sorted() const;
  // str(tuple(s)): "(0, 1)", "(3,)", "()".
  std::string tuple_str() const;
  // Number of elements shared with other.
  size_t intersection_size(const PyIntSet& other) const;
  // Set equality (order ignored), like Python's ==.
  bool operator==(const PyIntSet& other) const;

 private:
  // A slot: 8 bytes. CPython keeps each key's hash beside it; an int's hash is a function of its
  // value (py_hash), so it is computed again where needed instead of stored (the communication
  // groups of a 16,384-rank job hold about 200,000 slots).
  struct Entry {
    int key = 0;
    bool full = false;
  };
  void insert_clean(std::vector<Entry>& table, size_t mask, int key);
  void resize(size_t minused);
  bool add_entry(int key);

  std::vector<Entry> table_;
  size_t mask_;
  size_t fill_ = 0;
  size_t used_ = 0;
};

// "(a, b, c)" for a list as Python's str(tuple(list)) prints it ("(3,)" for one element).
std::string py_tuple_str(const std::vector<int>& v);

}  // namespace cs::documents
