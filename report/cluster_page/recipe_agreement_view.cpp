#include "report/cluster_page/cluster_sections.h"
#include "report/report_page.h"
#include "report/table_view.h"

namespace cs::report {

void recipe_agreement_view(HtmlOut& h, const ClusterContext& ctx) {
  const io::Table* t = ctx.in.recipe_agreement;
  if (rows(t) == 0) return;
  h.element("h3", attr("id", "recipe-agreement"), "msprof-analyze's recipes beside these findings");
  note(h,
       "msprof-analyze's slow_rank, slow_link and freq_analysis recipes, run on the same ranks, "
       "count statistical outliers; the findings above measure what a problem costs the job. "
       "Where they differ, the last column says why. All rows: recipe_agreement.csv.");
  const ColumnRef recipe(t, "recipe"), subject(t, "subject"), theirs(t, "msprof_analyze"),
      ours(t, "clusterscope"), agree(t, "agree"), why(t, "why");
  h.open("table");
  table_head(h,
             {"recipe", "subject", "msprof-analyze", "clusterscope", "agree", "why they differ"});
  h.open("tbody");
  for (size_t r = 0; r < rows(t) && r < 40; ++r) {
    const bool yes = agree.str(r) == "yes";
    h.open("tr", yes ? std::string() : attr("class", "flag"));
    h.element("td", "", recipe.str(r));
    h.element("td", "", subject.str(r));
    h.element("td", "", theirs.str(r));
    h.element("td", "", ours.str(r));
    h.element("td", "", agree.str(r));
    h.element("td", "", yes ? "" : why.str(r));
    h.close();
  }
  h.close();
  h.close();
}

}  // namespace cs::report
