// Streaming CSV reader. The file is read in fixed-size chunks into buf_; a record is parsed in
// place (fields are views into buf_, doubled quotes are collapsed in place once the record is
// known to be complete), so nothing is allocated per field. A record cut by the end of the
// buffer is parsed again after the unread tail was moved to the front and the buffer refilled.

#include "io/csv/csv_reader.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "io/input_file.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace cs::io {

namespace {

// Finds the ',', '\n' and '"' bytes of b[0, e), 64 bytes at a time: one bit mask per block
// for commas and one for newlines and quotes, so a run of short unquoted fields costs a few
// instructions per field and no unpredictable branch. b must be readable up to e + 64.
class Scanner {
 public:
  Scanner(const char* b, size_t e, size_t from) : b_(b), e_(e) { load(from); }

  // Position of the first special byte at or after `from` (>= the last answer), or e.
  size_t next(size_t from) {
    skip_to(from);
    while ((commas_ | others_) == 0) {
      if (base_ + 64 >= e_) return e_;
      load(base_ + 64);
    }
    size_t d = base_ + static_cast<size_t>(__builtin_ctzll(commas_ | others_));
    return d < e_ ? d : e_;
  }

  // Calls on_comma(p) for every ',' from `from` on up to the first '\n' or '"', whose position
  // it returns (or e).
  template <typename F>
  size_t run_commas(size_t from, F&& on_comma) {
    skip_to(from);
    while (true) {
      const uint64_t stop = others_;
      const uint64_t below = stop != 0 ? (stop & (0 - stop)) - 1 : ~uint64_t{0};
      for (uint64_t c = commas_ & below; c != 0; c &= c - 1) {
        size_t d = base_ + static_cast<size_t>(__builtin_ctzll(c));
        if (d >= e_) return e_;
        on_comma(d);
      }
      commas_ &= ~below;
      if (stop != 0) {
        size_t d = base_ + static_cast<size_t>(__builtin_ctzll(stop));
        return d < e_ ? d : e_;
      }
      if (base_ + 64 >= e_) return e_;
      load(base_ + 64);
    }
  }

 private:
  void skip_to(size_t from) {
    if (from >= base_ + 64) {
      load(from);
    } else if (from > base_) {
      const uint64_t keep = ~uint64_t{0} << (from - base_);
      commas_ &= keep;
      others_ &= keep;
    }
  }

  void load(size_t base) {
    base_ = base;
    uint64_t c = 0;
    uint64_t o = 0;
#ifdef __SSE2__
    const __m128i comma = _mm_set1_epi8(',');
    const __m128i nl = _mm_set1_epi8('\n');
    const __m128i quote = _mm_set1_epi8('"');
    for (int k = 0; k < 4; ++k) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b_ + base + 16 * k));
      __m128i x = _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, quote));
      c |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma))))
           << (16 * k);
      o |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(x))) << (16 * k);
    }
#else
    for (size_t k = 0; k < 64; ++k) {
      char ch = b_[base + k];
      c |= static_cast<uint64_t>(ch == ',') << k;
      o |= static_cast<uint64_t>(ch == '\n' || ch == '"') << k;
    }
#endif
    commas_ = c;
    others_ = o;
  }

  const char* b_;
  size_t e_;
  size_t base_ = 0;
  uint64_t commas_ = 0;
  uint64_t others_ = 0;
};

// Collapses doubled quotes of a field in place (its bytes are writable: they are in buf_).
std::string_view unescape_quotes(std::string_view f) {
  char* b = const_cast<char*>(f.data());
  size_t w = 0;
  for (size_t r = 0; r < f.size(); ++r) {
    b[w++] = b[r];
    if (b[r] == '"' && r + 1 < f.size() && b[r + 1] == '"') ++r;
  }
  return {b, w};
}

}  // namespace

CsvReader::CsvReader(std::string path, Diagnostics& diag) : path_(std::move(path)), diag_(diag) {}

CsvReader::~CsvReader() {
  if (file_ != nullptr) std::fclose(file_);
}

bool CsvReader::open() {
  // A FIFO or device is refused before any read (a FIFO would block), errors say the errno's
  // own words ("permission denied", "a symlink loop").
  uint64_t size = 0;
  const int fd = open_input_file(path_, diag_, size, /*allow_empty=*/true);
  if (fd < 0) return false;
  file_ = ::fdopen(fd, "rb");
  if (file_ == nullptr) {
    const int err = errno;
    ::close(fd);
    diag_.error(path_, 0, "cannot open: " + errno_text(err), errno_hint(err));
    return false;
  }
  std::setvbuf(file_, nullptr, _IONBF, 0);  // we read big chunks ourselves
  // A file smaller than the buffer gets a buffer of its size (plus one byte, so the first read
  // takes it all and the second sees the end): a rank's small CSVs (step_trace_time.csv, 500
  // bytes) then do not each clear a whole 1 MiB buffer. A file that grows since the stat is
  // still read in full, in buffer-sized pieces.
  const size_t want = std::min<uint64_t>(buffer_size_, std::max<uint64_t>(size + 1, 4096));
  buf_.assign(want + kPad, '\0');
  fill();
  return start();
}

bool CsvReader::open_text(std::string_view text, std::string source) {
  path_ = std::move(source);
  from_text_ = true;
  buf_.assign(text.size() + kPad, '\0');
  if (!text.empty()) std::memcpy(buf_.data(), text.data(), text.size());
  end_ = text.size();
  eof_ = true;
  if (const void* z = std::memchr(buf_.data(), '\0', end_)) {
    end_ = static_cast<size_t>(static_cast<const char*>(z) - buf_.data());
    nul_offset_ = static_cast<int64_t>(end_);
  }
  return start();
}

bool CsvReader::fill() {
  if (eof_ || stopped_ || file_ == nullptr) return false;
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
    base_offset_ += static_cast<int64_t>(pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  size_t cap = buffer_capacity();
  if (end_ == cap) {  // a single record fills the whole buffer: grow it
    cap *= 2;
    buf_.resize(cap + kPad, '\0');
  }
  size_t n = std::fread(buf_.data() + end_, 1, cap - end_, file_);
  if (n == 0) {
    if (std::ferror(file_) != 0) {
      read_error_ = true;
      diag_.error(path_, 0, std::string("read error: ") + std::strerror(errno),
                  "the rows before this point were used; check the file system",
                  base_offset_ + static_cast<int64_t>(end_));
    }
    eof_ = true;
    return false;
  }
  if (const void* z = std::memchr(buf_.data() + end_, '\0', n)) {
    // Binary data, or a file zero-filled by a crash: the text ends here.
    size_t at = static_cast<size_t>(static_cast<const char*>(z) - buf_.data());
    nul_offset_ = base_offset_ + static_cast<int64_t>(at);
    end_ = at;
    eof_ = true;
    return true;
  }
  end_ += n;
  return true;
}

bool CsvReader::start() {
  const auto* u = reinterpret_cast<const unsigned char*>(buf_.data());
  size_t avail = end_ - pos_;
  if (avail >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
    diag_.error(path_, 0, "the file is UTF-16 encoded, not UTF-8 text",
                "convert it, e.g. iconv -f UTF-16 -t UTF-8 in > out", 0);
    stopped_ = true;
    return false;
  }
  // NUL bytes before the first newline: not text at all (gzip, HDF5, a zero-filled file).
  auto binary = [&] {
    diag_.error(path_, 0, "not a CSV file: it holds binary data (NUL bytes)",
                "check that this is the profiler's CSV output and not a compressed or damaged file",
                nul_offset_);
    nul_reported_ = true;
    stopped_ = true;
    return false;
  };
  if (nul_offset_ >= 0 && std::memchr(buf_.data(), '\n', end_) == nullptr) return binary();
  if (avail >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) pos_ += 3;  // UTF-8 BOM
  if (avail == 0 && eof_ && !stopped_ && !read_error_) {
    diag_.error(path_, 0, "the file is empty",
                "the producer wrote nothing: re-run the profiler's parsing step for this rank", 0);
    return false;
  }
  std::vector<std::string_view> fields;
  int64_t line = 0;
  int64_t offset = 0;
  const bool ok = read_record(fields, line, offset);
  // (With a small buffer the NUL may only show up while reading the header.)
  if (ok && nul_offset_ >= 0 && pos_ == end_ && buf_[pos_ - 1] != '\n') return binary();
  if (!ok) {
    if (!stopped_ && !nul_reported_ && !read_error_) {
      diag_.error(path_, 0, "no header row (the file holds only blank lines)",
                  "re-run the profiler's parsing step for this rank", 0);
    }
    return false;
  }
  header_.clear();
  header_.reserve(fields.size());
  for (auto f : fields) header_.emplace_back(trim(f));
  return true;
}

int CsvReader::column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

bool CsvReader::next(CsvRow& row) {
  if (!read_record(row.fields, row.line, row.offset)) return false;
  ++rows_read_;
  return true;
}

void CsvReader::report_row(int64_t line, int64_t offset, size_t begin, size_t end, std::string what,
                           std::string hint, bool error) {
  // The row's text is not repeated (a file linked in by mistake may hold secrets): its line
  // and byte offset say where it is.
  while (end > begin && (buf_[end - 1] == '\n' || buf_[end - 1] == '\r')) --end;
  what += " (a row of " + std::to_string(end - begin) + " bytes)";
  Diagnostic d{error ? Severity::kError : Severity::kWarning,
               path_,
               line,
               offset,
               std::move(what),
               std::move(hint)};
  diag_.add(std::move(d));
}

bool CsvReader::read_record(std::vector<std::string_view>& fields, int64_t& line, int64_t& offset) {
  while (!stopped_) {
    size_t rec_end = 0;
    size_t n = 0;
    int64_t newlines = 0;
    Parse r = parse_record(fields, n, rec_end, newlines);
    if (r == Parse::kNeedMore) {
      if (end_ - pos_ >= kMaxRecordBytes) {
        diag_.error(path_, line_,
                    "a row longer than " + std::to_string(kMaxRecordBytes >> 20) +
                        " MiB (an unbalanced quote, or not a CSV file)",
                    "reading stopped here; check the quotes on this line",
                    base_offset_ + static_cast<int64_t>(pos_));
        stopped_ = true;
        return false;
      }
      if (!fill() && !eof_) stopped_ = true;  // not opened, or a read error
      continue;
    }
    if (r == Parse::kEof) break;
    fields.resize(n);

    size_t begin = pos_;
    line = line_;
    offset = base_offset_ + static_cast<int64_t>(begin);
    line_ += 1 + newlines;
    pos_ = rec_end;
    bytes_consumed_ = base_offset_ + static_cast<int64_t>(pos_);

    if (unterminated_) {
      ++rows_skipped_;
      report_row(line, offset, begin, rec_end,
                 "a quoted field is not closed before the end of the file",
                 "the row was skipped; the file is probably truncated", true);
      continue;
    }
    if (n == 1 && fields[0].empty() && unescape_.empty()) continue;  // blank line
    if (extra_fields_ > 0) {
      const std::string what = "more than " + std::to_string(kMaxFields) + " fields in a row (" +
                               std::to_string(n + extra_fields_) + ")";
      if (header_.empty()) {  // the header: not a table this reader can use
        diag_.error(path_, line, what + " in the header",
                    "this is not a profiler CSV file; check the file", offset);
        stopped_ = true;
        return false;
      }
      ++rows_skipped_;
      report_row(line, offset, begin, rec_end, what,
                 "the row was skipped; check that the file was not damaged", true);
      continue;
    }
    if (!header_.empty() && n != header_.size() && !(allow_short_rows_ && n < header_.size())) {
      ++rows_skipped_;
      const bool at_eof = rec_end == end_ && eof_ && buf_[rec_end - 1] != '\n';
      std::string what =
          "row has " + std::to_string(n) + " fields, header has " + std::to_string(header_.size());
      std::string hint =
          at_eof && n < header_.size()
              ? "the row was skipped; the file ends inside it (an interrupted write?)"
              : "the row was skipped; check that cells containing commas are quoted and that the "
                "file was not cut or concatenated";
      report_row(line, offset, begin, rec_end, std::move(what), std::move(hint), true);
      continue;
    }
    for (uint32_t i : unescape_) fields[i] = unescape_quotes(fields[i]);
    return true;
  }
  if (nul_offset_ >= 0 && !nul_reported_) {
    nul_reported_ = true;
    diag_.error(path_, line_,
                "NUL byte at byte " + std::to_string(nul_offset_) +
                    ": the rest of the file is binary (a crash can leave zero-filled blocks)",
                "the rows before it were used, the rest was ignored; regenerate the file",
                nul_offset_);
  }
  return false;
}

CsvReader::Parse CsvReader::parse_record(std::vector<std::string_view>& fields, size_t& n,
                                         size_t& rec_end, int64_t& newlines) {
  char* b = buf_.data();
  const size_t e = end_;
  const size_t p = pos_;
  unescape_.clear();
  newlines = 0;
  n = 0;
  unterminated_ = false;
  if (p >= e) return eof_ ? Parse::kEof : Parse::kNeedMore;

  // Fields are written by index into `fields`, grown as needed and cut to n by the caller,
  // so a steady stream of rows of the header's width never reallocates.
  extra_fields_ = 0;
  auto push = [&](size_t begin, size_t end) {
    if (n == kMaxFields) {
      ++extra_fields_;
      return;
    }
    if (n == fields.size()) fields.resize(n < 16 ? 16 : 2 * n);
    fields[n++] = std::string_view(b + begin, end - begin);
  };
  Scanner scan(b, e, p);
  size_t field_start = p;
  size_t i = p;
  bool quoted = false;  // the current field was quoted: its text is [qb, qe)
  bool escaped = false;
  size_t qb = 0;
  size_t qe = 0;
  auto on_comma = [&](size_t c) {
    push(field_start, c);
    field_start = c + 1;
  };
  while (true) {
    // Unquoted fields: all their commas at once. After a quoted field: its delimiter.
    size_t d = quoted ? scan.next(i) : scan.run_commas(i, on_comma);
    if (d < e && b[d] == '"') {
      if (d != field_start || quoted) {  // a quote inside an unquoted field is text
        i = d + 1;
        continue;
      }
      // The closing quote: the next '"' not followed by another one. Commas and newlines
      // inside are text (newlines are counted for line numbers).
      size_t x = d + 1;
      escaped = false;
      while (true) {
        x = scan.next(x);
        if (x == e) {
          if (!eof_) return Parse::kNeedMore;
          unterminated_ = true;
          rec_end = e;
          return Parse::kRecord;
        }
        if (b[x] != '"') {
          newlines += b[x] == '\n';
          ++x;
          continue;
        }
        if (x + 1 == e && !eof_) return Parse::kNeedMore;  // "" split by the buffer end?
        if (x + 1 < e && b[x + 1] == '"') {
          escaped = true;
          x += 2;
          continue;
        }
        break;
      }
      qb = d + 1;
      qe = x;
      quoted = true;
      i = x + 1;
      continue;
    }
    if (d == e && !eof_) return Parse::kNeedMore;
    // d is a ',', a '\n' or the end of the data (last record without a newline).
    if (quoted) {
      // Text between the closing quote and the delimiter (e.g. a CR) is dropped.
      if (escaped && n < kMaxFields) unescape_.push_back(static_cast<uint32_t>(n));
      push(qb, qe);
      quoted = false;
    } else {
      size_t fe = d;
      if (fe > field_start && b[fe - 1] == '\r' && (d == e || b[d] == '\n')) --fe;
      push(field_start, fe);
    }
    if (d == e) {
      rec_end = e;
      return Parse::kRecord;
    }
    if (b[d] == '\n') {
      rec_end = d + 1;
      return Parse::kRecord;
    }
    field_start = i = d + 1;
  }
}

}  // namespace cs::io
