#include "msprof_analyze/recipes/recipe_registry.h"

#include <algorithm>
#include <functional>
#include <map>

#include "msprof_analyze/recipes/calibrate_npu_gpu/calibrate_npu_gpu.h"
#include "msprof_analyze/recipes/cann_api_sum/cann_api_sum.h"
#include "msprof_analyze/recipes/cluster_time_compare_summary/cluster_time_compare_summary.h"
#include "msprof_analyze/recipes/cluster_time_summary/cluster_time_summary.h"
#include "msprof_analyze/recipes/communication_bottleneck/communication_bottleneck.h"
#include "msprof_analyze/recipes/communication_group_map/communication_group_map.h"
#include "msprof_analyze/recipes/communication_matrix_sum/communication_matrix_sum.h"
#include "msprof_analyze/recipes/communication_time_sum/communication_time_sum.h"
#include "msprof_analyze/recipes/computational_op_masking/computational_op_masking.h"
#include "msprof_analyze/recipes/compute_op_sum/compute_op_sum.h"
#include "msprof_analyze/recipes/ep_load_balance/ep_load_balance.h"
#include "msprof_analyze/recipes/export_summary/export_summary.h"
#include "msprof_analyze/recipes/free_analysis/free_analysis.h"
#include "msprof_analyze/recipes/freq_analysis/freq_analysis.h"
#include "msprof_analyze/recipes/hccl_sum/hccl_sum.h"
#include "msprof_analyze/recipes/module_statistic/module_statistic.h"
#include "msprof_analyze/recipes/mstx2commop/mstx2commop.h"
#include "msprof_analyze/recipes/mstx_sum/mstx_sum.h"
#include "msprof_analyze/recipes/operator_mfu/operator_mfu.h"
#include "msprof_analyze/recipes/p2p_pairing/p2p_pairing.h"
#include "msprof_analyze/recipes/pp_chart/pp_chart.h"
#include "msprof_analyze/recipes/slow_link/slow_link.h"
#include "msprof_analyze/recipes/slow_rank/slow_rank.h"

namespace cs::recipes {

namespace {

const std::map<std::string, std::function<std::unique_ptr<Recipe>()>>& registry() {
  static const std::map<std::string, std::function<std::unique_ptr<Recipe>()>> r = {
      {"calibrate_npu_gpu", [] { return std::make_unique<calibrate_npu_gpu::CalibrateNpuGpu>(); }},
      {"cann_api_sum", [] { return std::make_unique<cann_api_sum::CannApiSum>(); }},
      {"cluster_time_compare_summary",
       [] { return std::make_unique<cluster_time_compare_summary::ClusterTimeCompareSummary>(); }},
      {"cluster_time_summary",
       [] { return std::make_unique<cluster_time_summary::ClusterTimeSummary>(); }},
      {"communication_bottleneck",
       [] { return std::make_unique<communication_bottleneck::CommunicationBottleneck>(); }},
      {"communication_group_map",
       [] { return std::make_unique<communication_group_map::CommunicationGroupMap>(); }},
      {"communication_matrix_sum",
       [] { return std::make_unique<communication_matrix_sum::CommunicationMatrixSum>(); }},
      {"communication_time_sum",
       [] { return std::make_unique<communication_time_sum::CommunicationTimeSum>(); }},
      {"computational_op_masking",
       [] { return std::make_unique<computational_op_masking::ComputationalOpMasking>(); }},
      {"compute_op_sum", [] { return std::make_unique<compute_op_sum::ComputeOpSum>(); }},
      {"ep_load_balance", [] { return std::make_unique<ep_load_balance::EpLoadBalance>(); }},
      {"export_summary", [] { return std::make_unique<export_summary::ExportSummary>(); }},
      {"free_analysis", [] { return std::make_unique<free_analysis::FreeAnalysis>(); }},
      {"freq_analysis", [] { return std::make_unique<freq_analysis::FreqAnalysis>(); }},
      {"hccl_sum", [] { return std::make_unique<hccl_sum::HcclSum>(); }},
      {"module_statistic", [] { return std::make_unique<module_statistic::ModuleStatistic>(); }},
      {"mstx2commop", [] { return std::make_unique<mstx2commop::Mstx2Commop>(); }},
      {"mstx_sum", [] { return std::make_unique<mstx_sum::MstxSum>(); }},
      {"operator_mfu", [] { return std::make_unique<operator_mfu::OperatorMfu>(); }},
      {"p2p_pairing", [] { return std::make_unique<p2p_pairing::P2PPairing>(); }},
      {"pp_chart", [] { return std::make_unique<pp_chart::PPChart>(); }},
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
