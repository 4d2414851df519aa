#include "recipes/recipe_registry.h"

#include <algorithm>
#include <functional>
#include <map>

#include "recipes/cann_api_sum.h"
#include "recipes/cluster_time_compare_summary/cluster_time_compare_summary.h"
#include "recipes/cluster_time_summary.h"
#include "recipes/communication_bottleneck/communication_bottleneck.h"
#include "recipes/communication_group_map.h"
#include "recipes/communication_matrix_sum.h"
#include "recipes/communication_time_sum.h"
#include "recipes/compute_op_sum.h"
#include "recipes/free_analysis.h"
#include "recipes/freq_analysis/freq_analysis.h"
#include "recipes/hccl_sum.h"
#include "recipes/mstx_sum.h"
#include "recipes/slow_link/slow_link.h"
#include "recipes/slow_rank/slow_rank.h"

namespace cs::recipes {

namespace {

const std::map<std::string, std::function<std::unique_ptr<Recipe>()>>& registry() {
  static const std::map<std::string, std::function<std::unique_ptr<Recipe>()>> r = {
      {"cann_api_sum", [] { return std::make_unique<CannApiSum>(); }},
      {"cluster_time_compare_summary",
       [] { return std::make_unique<cluster_time_compare_summary::ClusterTimeCompareSummary>(); }},
      {"cluster_time_summary", [] { return std::make_unique<ClusterTimeSummary>(); }},
      {"communication_bottleneck",
       [] { return std::make_unique<communication_bottleneck::CommunicationBottleneck>(); }},
      {"communication_group_map", [] { return std::make_unique<CommunicationGroupMap>(); }},
      {"communication_matrix_sum", [] { return std::make_unique<CommunicationMatrixSum>(); }},
      {"communication_time_sum", [] { return std::make_unique<CommunicationTimeSum>(); }},
      {"compute_op_sum", [] { return std::make_unique<ComputeOpSum>(); }},
      {"free_analysis", [] { return std::make_unique<FreeAnalysis>(); }},
      {"freq_analysis", [] { return std::make_unique<freq_analysis::FreqAnalysis>(); }},
      {"hccl_sum", [] { return std::make_unique<HcclSum>(); }},
      {"mstx_sum", [] { return std::make_unique<MstxSum>(); }},
      {"slow_link", [] { return std::make_unique<slow_link::SlowLink>(); }},
      {"slow_rank", [] { return std::make_unique<slow_rank::SlowRank>(); }},
  };
  return r;
}

}  // namespace

std::unique_ptr<Recipe> make_recipe(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second();
}

std::vector<std::string> recipe_names() {
  std::vector<std::string> names;
  for (const auto& [n, _] : registry()) names.push_back(n);
  return names;
}

}  // namespace cs::recipes
