#include "io/csv/csv_collective.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "io/csv/csv_writer.h"
#include "io/output_file.h"
#include "io/output_ledger.h"

namespace cs::io {

namespace {

// Writes all of `text` at `offset` of fd. 0 or the errno of the failure.
int write_all_at(int fd, const std::string& text, uint64_t offset) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n =
        ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// The offset of each of this process's blocks in the file, and the file's size, from every
// process's (key, bytes) pairs; false when a key is used twice.
bool place_blocks(const std::vector<std::vector<uint64_t>>& all, uint64_t header,
                  const std::vector<uint64_t>& my_keys, std::vector<uint64_t>& offsets,
                  uint64_t& total) {
  std::vector<std::pair<uint64_t, uint64_t>> blocks;  // key, bytes
  for (const std::vector<uint64_t>& p : all)
    for (size_t i = 1; i + 1 < p.size(); i += 2) blocks.emplace_back(p[i], p[i + 1]);
  std::sort(blocks.begin(), blocks.end());
  for (size_t i = 1; i < blocks.size(); ++i)
    if (blocks[i].first == blocks[i - 1].first) return false;
  std::vector<uint64_t> start(blocks.size());
  total = header;
  for (size_t i = 0; i < blocks.size(); ++i) {
    start[i] = total;
    total += blocks[i].second;
  }
  offsets.clear();
  for (uint64_t key : my_keys) {
    const auto at =
        std::lower_bound(blocks.begin(), blocks.end(), std::make_pair(key, uint64_t{0}));
    offsets.push_back(start[static_cast<size_t>(at - blocks.begin())]);
  }
  return true;
}

}  // namespace

bool write_table_csv_collective(const Table& local, const std::vector<RowBlock>& blocks,
                                const std::string& path, const Collective& coll,
                                Diagnostics& diag) {
  const bool root = coll.process() == 0;
  // This process's blocks as text, and what every process needs to place them.
  uint64_t rows = 0;
  for (const RowBlock& b : blocks) rows += b.rows;
  bool ok = rows == local.rows();
  for (const Column& c : local.columns) ok = ok && c.size() == local.rows();
  if (!ok)
    diag.error(path, 0,
               "table " + local.name + ": this process's rows (" + std::to_string(local.rows()) +
                   ") do not match its blocks (" + std::to_string(rows) + ")",
               "the file was not written; this is a bug in clusterscope, please report it");
  std::vector<std::string> texts;
  std::vector<uint64_t> mine = {ok ? 1u : 0u}, my_keys;
  if (ok) {
    uint64_t first = 0;
    for (const RowBlock& b : blocks) {
      std::string& text = texts.emplace_back();
      append_csv_rows(text, local, first, first + b.rows);
      first += b.rows;
      mine.push_back(b.key);
      mine.push_back(text.size());
      my_keys.push_back(b.key);
    }
  }
  const std::vector<std::vector<uint64_t>> all = coll.all_gather(mine);
  for (const std::vector<uint64_t>& p : all)
    if (p.empty() || p[0] == 0) return false;  // that process said why
  std::string header;
  append_csv_header(header, local);
  std::vector<uint64_t> offsets;
  uint64_t total = 0;
  if (!place_blocks(all, header.size(), my_keys, offsets, total)) {
    if (root)
      diag.error(path, 0, "table " + local.name + ": two processes gave rows of the same key",
                 "the file was not written; this is a bug in clusterscope, please report it");
    return false;
  }

  // The root creates the file at its full size with the header; the others wait for it.
  const std::string tmp = temporary_name(path);
  auto fail = [&](int err, const char* doing) {
    diag.error(path, 0,
               std::string(doing) + " (process " + std::to_string(coll.process()) + " of " +
                   std::to_string(coll.processes()) + "): " + std::strerror(err),
               output_errno_hint(err));
  };
  std::FILE* file = nullptr;
  int err = 0;
  bool root_ok = false;
  if (root) {
    file = OutputLedger::instance().open_temporary(path);
    if (!file) {
      fail(errno, "cannot create file");
    } else if (::ftruncate(::fileno(file), static_cast<off_t>(total)) != 0) {
      fail(errno, "cannot size file");
    } else if ((err = write_all_at(::fileno(file), header, 0)) != 0) {
      fail(err, "cannot write file");
    } else {
      root_ok = true;
    }
  }
  const bool created = coll.all_max({root_ok ? 1u : 0u})[0] == 1;
  bool failed = !created;
  if (created) {
    int fd = root ? ::fileno(file) : ::open(tmp.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      fail(errno, "cannot open file");
      failed = true;
    }
    for (size_t i = 0; fd >= 0 && !failed && i < texts.size(); ++i)
      if ((err = write_all_at(fd, texts[i], offsets[i])) != 0) {
        fail(err, "cannot write file");
        failed = true;
      }
    if (!root && fd >= 0 && ::close(fd) != 0 && !failed) {
      fail(errno, "cannot write file");
      failed = true;
    }
  }
  failed = coll.all_max({failed ? 1u : 0u})[0] == 1;
  if (!root) return !failed;
  if (file && std::fclose(file) != 0 && !failed) {
    fail(errno, "cannot write file");
    failed = true;
  }
  if (failed) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    OutputLedger::instance().failed(path);
    return false;
  }
  return publish_output(tmp, path, diag);
}

}  // namespace cs::io
