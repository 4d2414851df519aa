#pragma once
// A one-sheet Excel workbook (.xlsx, Office Open XML SpreadsheetML) written directly: the package
// parts (content types, relationships, workbook, styles, shared strings, the worksheet) zipped by
// zip_writer.h. Cells are strings (in the shared string table), numbers, blanks or formulas, each
// with a cell format (font, bold, fill, thin border, vertical centring); columns can have widths,
// rows heights, and cell ranges can be merged. Cells are written as XlsxWriter (the Python
// library msprof-analyze writes its workbooks with) writes them, so a reader sees the same values
// and types.
//
//   io::XlsxSheet sheet("Sheet1");
//   const int bold = sheet.add_format({.bold = true});
//   sheet.write(0, 0, "Module", bold);
//   sheet.number(1, 0, 12.5, 0);
//   if (!sheet.save("OUT/x.xlsx", diag)) ...

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "io/diagnostics.h"

namespace cs::io {

// A cell format: what a cell looks like (0 = Excel's default, Calibri 11).
struct XlsxFormat {
  std::string font_name = "Calibri";
  bool bold = false;
  std::string fill_rgb;  // "AFEEEE": a solid background; empty: none
  bool border = false;   // a thin border on all four sides
  bool vcenter = false;  // vertically centred
};

class XlsxSheet {
 public:
  explicit XlsxSheet(std::string name) : name_(std::move(name)) {}
  // Registers a format and returns its index for the cell calls (equal formats share one).
  int add_format(const XlsxFormat& f);
  // A text cell as XlsxWriter's write() stores a str: "" becomes a blank cell, text starting
  // with "=" a formula (its cached value 0), anything else a shared string (cut at Excel's 32,767
  // characters).
  void write(int row, int col, const std::string& text, int format);
  // A number cell (written with 16 significant digits, as XlsxWriter does).
  void number(int row, int col, double v, int format);
  // A cell with a format and no value.
  void blank(int row, int col, int format);
  // Column width in characters (converted to Excel's stored width as XlsxWriter does).
  void column_width(int col, double width);
  // Row height in points.
  void row_height(int row, double points);
  // Merges the cells of rows first..last and columns first_col..last_col (the first cell keeps
  // its value; the others are written blank with `format`).
  void merge(int first_row, int first_col, int last_row, int last_col, int format);
  // Writes the workbook to `path` (through "<path>.tmp"). False with an error naming the file.
  bool save(const std::string& path, Diagnostics& diag) const;

 private:
  enum class Kind : uint8_t { kBlank, kString, kNumber, kFormula };
  struct Cell {
    Kind kind = Kind::kBlank;
    int format = 0;
    double number = 0;
    int string = -1;      // shared string index
    std::string formula;  // without the "="
  };
  struct Merge {
    int r0, c0, r1, c1;
  };
  int string_index(const std::string& s);
  std::string sheet_xml() const;
  std::string styles_xml() const;
  std::string shared_strings_xml() const;

  std::string name_;
  std::vector<XlsxFormat> formats_{XlsxFormat{}};
  std::map<int, std::map<int, Cell>> rows_;
  std::map<int, double> widths_, heights_;
  std::vector<Merge> merges_;
  std::vector<std::string> strings_;
  std::map<std::string, int> string_ids_;
  size_t string_refs_ = 0;  // string cells written (sharedStrings' count)
};

// "A1" notation of a zero-based cell: (0, 0) -> "A1", (9, 27) -> "AB10".
std::string xlsx_cell_name(int row, int col);

}  // namespace cs::io
