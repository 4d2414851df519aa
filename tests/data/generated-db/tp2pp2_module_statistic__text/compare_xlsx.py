# Compares two .xlsx workbooks as a reader sees them, with openpyxl: sheet names, every cell's
# value and type (numbers, strings, blanks, formulas), its font, bold, fill, border and vertical
# alignment, the merged ranges, the width of every column (and of the one after the last) and the
# first row's height.
# Usage: compare_xlsx.py EXPECTED GOT; prints the first difference and exits 1, else exits 0.
import sys

import openpyxl
from openpyxl.utils import get_column_letter


def style(cell):
    fill = cell.fill.fgColor.rgb if cell.fill.fill_type else None
    return (cell.font.name, bool(cell.font.b), fill, cell.border.left.style,
            cell.border.top.style, cell.alignment.vertical)


def main(expected, got):
    a, b = openpyxl.load_workbook(expected), openpyxl.load_workbook(got)
    if a.sheetnames != b.sheetnames:
        return f"sheets {a.sheetnames} != {b.sheetnames}"
    for name in a.sheetnames:
        x, y = a[name], b[name]
        if (x.max_row, x.max_column) != (y.max_row, y.max_column):
            return f"{name}: size {x.dimensions} != {y.dimensions}"
        for r in range(1, x.max_row + 1):
            for c in range(1, x.max_column + 1):
                p, q = x.cell(r, c), y.cell(r, c)
                if (p.value, p.data_type) != (q.value, q.data_type):
                    return f"{name}!{p.coordinate}: {p.value!r} ({p.data_type}) != {q.value!r} ({q.data_type})"
                if style(p) != style(q):
                    return f"{name}!{p.coordinate}: style {style(p)} != {style(q)}"
        ma = sorted(str(m) for m in x.merged_cells.ranges)
        mb = sorted(str(m) for m in y.merged_cells.ranges)
        if ma != mb:
            return f"{name}: merged {ma} != {mb}"
        for col in (get_column_letter(c) for c in range(1, x.max_column + 2)):
            if x.column_dimensions[col].width != y.column_dimensions[col].width:
                return f"{name}: column {col} width {x.column_dimensions[col].width} != {y.column_dimensions[col].width}"
        if x.row_dimensions[1].height != y.row_dimensions[1].height:
            return f"{name}: row 1 height {x.row_dimensions[1].height} != {y.row_dimensions[1].height}"
    return None


if __name__ == "__main__":
    diff = main(sys.argv[1], sys.argv[2])
    if diff:
        print(diff)
        sys.exit(1)
