#include "io/xlsx/xlsx_writer.h"

#include <cstdio>
#include <tuple>

#include "io/markup_escape.h"
#include "io/output_file.h"
#include "io/xlsx/zip_writer.h"

namespace cs::io {

namespace {

constexpr size_t kMaxString = 32767;  // Excel's cell text limit, in characters

// XML character data: & < > escaped (and " in attributes).
void append_xml(std::string& out, std::string_view s, bool attribute = false) {
  append_markup_escaped(out, s, MarkupEscape{.quote = attribute});
}

// A shared string's text as SpreadsheetML escapes it: a literal "_xHHHH_" gets "_x005F" before
// it, and control characters (other than tab and newline) become "_xHHHH_".
std::string escape_control(std::string_view s) {
  std::string out;
  auto hex = [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '_' && i + 6 < s.size() && s[i + 1] == 'x' && hex(s[i + 2]) && hex(s[i + 3]) &&
        hex(s[i + 4]) && hex(s[i + 5]) && s[i + 6] == '_')
      out += "_x005F";
    if (c < 0x20 && c != '\t' && c != '\n') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "_x%04X_", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

// The first `n` characters (code points) of UTF-8 text.
std::string first_chars(const std::string& s, size_t n) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && chars++ == n) return s.substr(0, i);
  return s;
}

std::string g16(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.16G", v);
  return buf;
}

bool same(const XlsxFormat& a, const XlsxFormat& b) {
  return std::tie(a.font_name, a.bold, a.fill_rgb, a.border, a.vcenter) ==
         std::tie(b.font_name, b.bold, b.fill_rgb, b.border, b.vcenter);
}

constexpr const char* kXmlHead = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";
constexpr const char* kMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
constexpr const char* kRel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
constexpr const char* kPkgRel = "http://schemas.openxmlformats.org/package/2006/relationships";

}  // namespace

std::string xlsx_cell_name(int row, int col) {
  std::string letters;
  for (int c = col + 1; c > 0; c = (c - 1) / 26)
    letters.insert(letters.begin(), static_cast<char>('A' + (c - 1) % 26));
  return letters + std::to_string(row + 1);
}

int XlsxSheet::add_format(const XlsxFormat& f) {
  for (size_t i = 0; i < formats_.size(); ++i)
    if (same(formats_[i], f)) return static_cast<int>(i);
  formats_.push_back(f);
  return static_cast<int>(formats_.size() - 1);
}

int XlsxSheet::string_index(const std::string& s) {
  ++string_refs_;
  const auto [it, added] = string_ids_.try_emplace(s, static_cast<int>(strings_.size()));
  if (added) strings_.push_back(s);
  return it->second;
}

void XlsxSheet::write(int row, int col, const std::string& text, int format) {
  Cell c;
  c.format = format;
  if (text.empty()) {
    c.kind = Kind::kBlank;
  } else if (text[0] == '=') {
    c.kind = Kind::kFormula;
    c.formula = text.substr(1);
  } else {
    c.kind = Kind::kString;
    c.string = string_index(first_chars(text, kMaxString));
  }
  rows_[row][col] = std::move(c);
}

void XlsxSheet::number(int row, int col, double v, int format) {
  Cell c;
  c.kind = Kind::kNumber;
  c.number = v;
  c.format = format;
  rows_[row][col] = std::move(c);
}

void XlsxSheet::blank(int row, int col, int format) {
  Cell c;
  c.format = format;
  rows_[row][col] = std::move(c);
}

void XlsxSheet::column_width(int col, double width) {
  // Excel stores a width in units of the maximum digit width (7 pixels) plus 5 pixels of padding,
  // rounded down to 1/256.
  const double px =
      width < 1 ? static_cast<int>(width * 12 + 0.5) : static_cast<int>(width * 7 + 0.5) + 5;
  widths_[col] = static_cast<int>(px / 7.0 * 256.0) / 256.0;
}

void XlsxSheet::row_height(int row, double points) {
  heights_[row] = points;
}

void XlsxSheet::merge(int first_row, int first_col, int last_row, int last_col, int format) {
  for (int r = first_row; r <= last_row; ++r)
    for (int c = first_col; c <= last_col; ++c)
      if (r != first_row || c != first_col) blank(r, c, format);
  merges_.push_back({first_row, first_col, last_row, last_col});
}

std::string XlsxSheet::sheet_xml() const {
  std::string x = kXmlHead;
  x += std::string("<worksheet xmlns=\"") + kMain + "\" xmlns:r=\"" + kRel + "\">";
  int max_row = 0, max_col = 0;
  for (const auto& [r, cells] : rows_) {
    max_row = std::max(max_row, r);
    if (!cells.empty()) max_col = std::max(max_col, cells.rbegin()->first);
  }
  x += "<dimension ref=\"" +
       (rows_.empty()
            ? std::string("A1")
            : xlsx_cell_name(rows_.begin()->first, 0) + ":" + xlsx_cell_name(max_row, max_col)) +
       "\"/>";
  x += "<sheetViews><sheetView tabSelected=\"1\" workbookViewId=\"0\"/></sheetViews>";
  x += "<sheetFormatPr defaultRowHeight=\"15\"/>";
  if (!widths_.empty()) {
    x += "<cols>";
    for (const auto& [c, w] : widths_)
      x += "<col min=\"" + std::to_string(c + 1) + "\" max=\"" + std::to_string(c + 1) +
           "\" width=\"" + g16(w) + "\" customWidth=\"1\"/>";
    x += "</cols>";
  }
  x += "<sheetData>";
  std::map<int, std::map<int, Cell>> all = rows_;
  for (const auto& [r, h] : heights_) all[r];
  for (const auto& [r, cells] : all) {
    x += "<row r=\"" + std::to_string(r + 1) + "\"";
    if (const auto h = heights_.find(r); h != heights_.end())
      x += " ht=\"" + g16(h->second) + "\" customHeight=\"1\"";
    x += ">";
    for (const auto& [c, cell] : cells) {
      x += "<c r=\"" + xlsx_cell_name(r, c) + "\"";
      if (cell.format) x += " s=\"" + std::to_string(cell.format) + "\"";
      switch (cell.kind) {
        case Kind::kBlank:
          x += "/>";
          break;
        case Kind::kString:
          x += " t=\"s\"><v>" + std::to_string(cell.string) + "</v></c>";
          break;
        case Kind::kNumber:
          x += "><v>" + g16(cell.number) + "</v></c>";
          break;
        case Kind::kFormula:
          x += "><f>";
          append_xml(x, cell.formula);
          x += "</f><v>0</v></c>";
          break;
      }
    }
    x += "</row>";
  }
  x += "</sheetData>";
  if (!merges_.empty()) {
    x += "<mergeCells count=\"" + std::to_string(merges_.size()) + "\">";
    for (const Merge& m : merges_)
      x += "<mergeCell ref=\"" + xlsx_cell_name(m.r0, m.c0) + ":" + xlsx_cell_name(m.r1, m.c1) +
           "\"/>";
    x += "</mergeCells>";
  }
  x += "<pageMargins left=\"0.7\" right=\"0.7\" top=\"0.75\" bottom=\"0.75\" header=\"0.3\" "
       "footer=\"0.3\"/></worksheet>";
  return x;
}

std::string XlsxSheet::styles_xml() const {
  // One font and one border per format (0: Calibri, no border); fills 0 and 1 are the two Excel
  // requires (none, gray125), then one per filled format.
  std::string fonts, fills, borders, xfs;
  int fill_count = 2;
  for (size_t i = 0; i < formats_.size(); ++i) {
    const XlsxFormat& f = formats_[i];
    fonts += "<font>";
    if (f.bold) fonts += "<b/>";
    fonts += "<sz val=\"11\"/><color theme=\"1\"/><name val=\"";
    append_xml(fonts, f.font_name, true);
    fonts += "\"/><family val=\"2\"/>";
    if (f.font_name == "Calibri") fonts += "<scheme val=\"minor\"/>";
    fonts += "</font>";
    borders += f.border ? "<border><left style=\"thin\"><color auto=\"1\"/></left><right "
                          "style=\"thin\"><color auto=\"1\"/></right><top style=\"thin\"><color "
                          "auto=\"1\"/></top><bottom style=\"thin\"><color "
                          "auto=\"1\"/></bottom><diagonal/></border>"
                        : "<border><left/><right/><top/><bottom/><diagonal/></border>";
    int fill = 0;
    if (!f.fill_rgb.empty()) {
      fill = fill_count++;
      fills += "<fill><patternFill patternType=\"solid\"><fgColor rgb=\"FF";
      append_xml(fills, f.fill_rgb, true);
      fills += "\"/><bgColor indexed=\"64\"/></patternFill></fill>";
    }
    const std::string n = std::to_string(i);
    xfs += "<xf numFmtId=\"0\" fontId=\"" + n + "\" fillId=\"" + std::to_string(fill) +
           "\" borderId=\"" + n + "\" xfId=\"0\"";
    if (i > 0) xfs += " applyFont=\"1\"";
    if (fill) xfs += " applyFill=\"1\"";
    if (f.border) xfs += " applyBorder=\"1\"";
    if (f.vcenter)
      xfs += " applyAlignment=\"1\"><alignment vertical=\"center\"/></xf>";
    else
      xfs += "/>";
  }
  std::string x = kXmlHead;
  x += std::string("<styleSheet xmlns=\"") + kMain + "\">";
  x += "<fonts count=\"" + std::to_string(formats_.size()) + "\">" + fonts + "</fonts>";
  x += "<fills count=\"" + std::to_string(fill_count) +
       "\"><fill><patternFill patternType=\"none\"/></fill><fill><patternFill "
       "patternType=\"gray125\"/></fill>" +
       fills + "</fills>";
  x += "<borders count=\"" + std::to_string(formats_.size()) + "\">" + borders + "</borders>";
  x += "<cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" "
       "borderId=\"0\"/></cellStyleXfs>";
  x += "<cellXfs count=\"" + std::to_string(formats_.size()) + "\">" + xfs + "</cellXfs>";
  x += "<cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/>"
       "</cellStyles><dxfs count=\"0\"/><tableStyles count=\"0\"/></styleSheet>";
  return x;
}

std::string XlsxSheet::shared_strings_xml() const {
  std::string x = kXmlHead;
  x += std::string("<sst xmlns=\"") + kMain + "\" count=\"" + std::to_string(string_refs_) +
       "\" uniqueCount=\"" + std::to_string(strings_.size()) + "\">";
  for (const std::string& s : strings_) {
    const bool pad = !s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' ||
                                    s.back() == ' ' || s.back() == '\t' || s.back() == '\n');
    x += pad ? "<si><t xml:space=\"preserve\">" : "<si><t>";
    append_xml(x, escape_control(s));
    x += "</t></si>";
  }
  x += "</sst>";
  return x;
}

bool XlsxSheet::save(const std::string& path, Diagnostics& diag) const {
  const std::string types =
      std::string(kXmlHead) +
      "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
      "<Default Extension=\"rels\" "
      "ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
      "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
      "<Override PartName=\"/xl/workbook.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>"
      "<Override PartName=\"/xl/worksheets/sheet1.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>"
      "<Override PartName=\"/xl/styles.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>"
      "<Override PartName=\"/xl/sharedStrings.xml\" "
      "ContentType=\"application/"
      "vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml\"/>"
      "</Types>";
  const std::string rels = std::string(kXmlHead) + "<Relationships xmlns=\"" + kPkgRel +
                           "\"><Relationship Id=\"rId1\" Type=\"" + kRel +
                           "/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>";
  std::string workbook = std::string(kXmlHead) + "<workbook xmlns=\"" + kMain + "\" xmlns:r=\"" +
                         kRel + "\"><bookViews><workbookView/></bookViews><sheets><sheet name=\"";
  append_xml(workbook, name_, true);
  workbook += "\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";
  const std::string workbook_rels =
      std::string(kXmlHead) + "<Relationships xmlns=\"" + kPkgRel + "\">" +
      "<Relationship Id=\"rId1\" Type=\"" + kRel +
      "/worksheet\" Target=\"worksheets/sheet1.xml\"/>"
      "<Relationship Id=\"rId2\" Type=\"" +
      kRel +
      "/styles\" Target=\"styles.xml\"/>"
      "<Relationship Id=\"rId3\" Type=\"" +
      kRel + "/sharedStrings\" Target=\"sharedStrings.xml\"/></Relationships>";
  ZipWriter zip;
  std::string error, bytes;
  const bool zipped =
      zip.add("[Content_Types].xml", types, error) && zip.add("_rels/.rels", rels, error) &&
      zip.add("xl/workbook.xml", workbook, error) &&
      zip.add("xl/_rels/workbook.xml.rels", workbook_rels, error) &&
      zip.add("xl/styles.xml", styles_xml(), error) &&
      zip.add("xl/sharedStrings.xml", shared_strings_xml(), error) &&
      zip.add("xl/worksheets/sheet1.xml", sheet_xml(), error) && zip.finish(bytes, error);
  if (!zipped) {
    diag.error(path, 0, error, "write fewer rows per workbook");
    return false;
  }
  return write_output_text(path, bytes, diag);
}

}  // namespace cs::io
