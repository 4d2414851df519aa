#pragma once
// The frame shared by the HTML reports: doctype, head with the inline stylesheet, page header and
// footer, sections and small building blocks (stat cards, notes, table headers).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "report/html_out.h"

namespace cs::report {

// Opens <html><body> and writes the head (title, inline CSS, no external resources) and the page
// header (h1 + subtitle lines). Close with end_page().
void begin_page(HtmlOut& h, std::string_view title, const std::vector<std::string>& subtitle);
// Writes the footer and closes every open tag.
void end_page(HtmlOut& h);

// A navigation bar: (anchor id, label) pairs.
void nav_bar(HtmlOut& h, const std::vector<std::pair<std::string, std::string>>& links);

// Opens <section id=...><h2>title</h2>; close with h.close().
void begin_section(HtmlOut& h, std::string_view id, std::string_view title);

// <p class="note">text</p>, e.g. "Not computed in this mode."
void note(HtmlOut& h, std::string_view text);

// The standard note of a section whose table is absent.
void not_computed(HtmlOut& h, std::string_view what);

// A row of stat cards: (label, value) pairs; a value of "" is left out.
void stat_cards(HtmlOut& h, const std::vector<std::pair<std::string, std::string>>& cards);

// <thead><tr><th>..</th>...</tr></thead>; headers starting with '#' are right-aligned (numeric),
// the '#' itself is dropped.
void table_head(HtmlOut& h, const std::vector<std::string>& headers);

// A numeric cell (<td class="n">).
void num_cell(HtmlOut& h, std::string_view text);

}  // namespace cs::report
