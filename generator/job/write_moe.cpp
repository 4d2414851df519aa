#include "generator/job/write_moe.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace cs::generator {

namespace {

constexpr int kMeanTokens = 2048;  // tokens a rank's experts get per call on average
constexpr int kExperts = 16;       // experts of the model, split over the EP group
constexpr int kHidden = 4096;
constexpr int kFfn = 1408;  // one expert's intermediate size

uint64_t moe_mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A number in [0, 1) from the key.
double unit(uint64_t key) {
  return static_cast<double>(moe_mix(key) >> 11) / 9007199254740992.0;
}

bool is_mlp_matmul(uint16_t spec) {
  return spec == kMatMulFc1 || spec == kMatMulFc2;
}

}  // namespace

std::vector<int> expert_group_ranks(const GeneratorOptions& o, const Topology& t, int r) {
  std::vector<int> ranks;
  if (o.ep <= 1) return ranks;
  const int first = t.dp_index(r) / o.ep * o.ep;
  for (int k = 0; k < o.ep; ++k)
    ranks.push_back(t.tp_index(r) + t.tp * (first + k + t.dp * t.pp_index(r)));
  return ranks;
}

std::string expert_group_id(const GeneratorOptions& o, const Topology& t, int r) {
  const auto ranks = expert_group_ranks(o, t, r);
  const int index = ranks.empty() ? 0 : ranks.front();
  return node_ip(index) + "%enp67s0f5_60000_" + std::to_string(index) + "_exp_" +
         std::to_string(1708156014257560ULL + moe_mix(o.seed) % 1000000);
}

int routed_tokens(const GeneratorOptions& o, int r, const KernelEvent& e) {
  const double share = 0.7 + 0.6 * unit(o.seed * 1000003ULL + static_cast<uint64_t>(r));
  uint64_t start_bits = 0;
  std::memcpy(&start_bits, &e.start_us, sizeof start_bits);
  const double call =
      1.0 + 0.1 * (2.0 * unit(start_bits ^ moe_mix(static_cast<uint64_t>(r))) - 1.0);
  return static_cast<int>(std::lround(kMeanTokens * share * call));
}

const KernelSpec& recorded_kernel(const WriteContext& ctx, int r, const KernelEvent& e,
                                  MoeSpec& storage) {
  const KernelSpec& k = kernel_catalog()[e.spec];
  if (ctx.opts.ep <= 1 || !is_mlp_matmul(e.spec)) return k;
  const int tokens = routed_tokens(ctx.opts, r, e);
  const int local = std::max(1, kExperts / ctx.opts.ep);
  const bool up = e.spec == kMatMulFc1;
  const std::string t = std::to_string(tokens), ex = std::to_string(local);
  const std::string f = std::to_string(up ? kFfn : kHidden);
  const std::string in = std::to_string(up ? kHidden : kFfn);
  // x (tokens, in); the local experts' weights (experts, in, out); the group list (experts).
  storage.input_shapes = t + "," + in + ";" + ex + "," + in + "," + f + ";" + ex;
  storage.output_shapes = t + "," + f;
  storage.spec = k;
  storage.spec.name = "aclnnGroupedMatmulV4_GroupedMatmul_GroupedMatmul";
  storage.spec.type = "GroupedMatmul";
  storage.spec.core = Core::kMixAic;
  storage.spec.mix_block_dim = k.block_dim * 2;
  storage.spec.input_shapes = storage.input_shapes;
  storage.spec.input_dtypes = "DT_BF16;DT_BF16;INT64";
  storage.spec.input_formats = "ND;ND;ND";
  storage.spec.output_shapes = storage.output_shapes;
  return storage.spec;
}

}  // namespace cs::generator
