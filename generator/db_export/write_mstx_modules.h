#pragma once
// The mstx ranges torch_npu records around every nn.Module's forward when module profiling is on
// (`generate --mstx-modules`): MSTX_EVENTS ranges (eventType start/end) in the domain "Module",
// on the host, nesting the framework ops (PYTORCH_API) the module launched; and autograd's
// forward/backward links between framework ops (two CONNECTION_IDS rows sharing a connectionId
// no task has). What msprof-analyze's module_statistic maps to kernel time. The module tree is
// computed apart from the writing (module_spans) so the Nsight Systems twin of the job
// (write_nsys_sqlite.h) nests the same modules over its NVTX ranges.

#include <cstdint>
#include <string>
#include <vector>

#include "generator/db_export/sqlite_writer.h"
#include "generator/job/simulation.h"

namespace cs::generator {

// One framework op: its host span (absolute ns), its PYTORCH_API connectionId and when its
// device event starts (relative us), in launch order; and what the GPU twin needs: the op's name,
// its device event's type (kernel_catalog.h Type, or the HCCL stem of a collective) and device
// span (absolute ns).
struct HostOpSpan {
  int64_t start_ns = 0, end_ns = 0;
  int64_t api_id = 0;
  double device_us = 0;
  std::string op, type;
  int64_t dev_start_ns = 0, dev_end_ns = 0;
  bool comm = false;
};

// The names of the simulated model's modules: the model, its embedding, each transformer layer,
// the attention inside a layer, and the two leaf modules after the layers.
struct ModuleNames {
  const char *model, *embedding, *layer, *attention, *leaf1, *leaf2;
};
// The default tree (a Megatron GPT).
inline constexpr ModuleNames kGptModules{"GPTModel",  "embedding", "TransformerLayer",
                                         "attention", "Linear",    "Linear"};
// A Qwen2 model as vLLM-Ascend names it on the NPU and vLLM on the GPU (`generate --nsys-sqlite`):
// names msprof-analyze's calibrate_npu_gpu recognises as modules on the GPU side ("Qwen",
// "Attention", "Embedding", "RMSNorm", "Logits"), the NPU's with the "Ascend" it removes.
inline constexpr ModuleNames kQwenNpuModules{"Qwen2Model",        "VocabParallelEmbedding",
                                             "Qwen2DecoderLayer", "AscendQwen2Attention",
                                             "AscendRMSNorm",     "LogitsProcessor"};
inline constexpr ModuleNames kQwenGpuModules{"Qwen2Model",        "VocabParallelEmbedding",
                                             "Qwen2DecoderLayer", "Qwen2Attention",
                                             "RMSNorm",           "LogitsProcessor"};

// One module range (absolute ns).
struct ModuleSpan {
  int64_t start_ns = 0, end_ns = 0;
  const char* name = "";
};

// A forward pass's ops and the backward pass's of the same step and micro-batch.
struct PassOps {
  std::vector<const HostOpSpan*> fwd, bwd;
};

// Per forward pass of `tl` in schedule order (its ops: those whose device event starts in the
// pass), skipping passes without ops.
std::vector<PassOps> forward_passes(const std::vector<HostOpSpan>& ops, const RankTimeline& tl);

// The module ranges over one forward pass's ops, outer before inner: the model spanning them all,
// inside it the embedding (the first op), two layers splitting the middle ops (each with an
// attention child over the first half of its ops, the rest directly in the layer) and two leaf
// ranges over the last two ops; a pass with fewer than 8 ops gets only the model. Each range is
// widened by 3 (model), 2 (layer) or 1 ns (the others) beyond its ops.
std::vector<ModuleSpan> module_spans(const std::vector<const HostOpSpan*>& ops,
                                     const ModuleNames& names);

struct MstxModuleSink {
  Insert& mstx;         // MSTX_EVENTS
  Insert& connections;  // CONNECTION_IDS
  StringIdTable& ids;
  int64_t& next_connection;  // fresh connectionIds for the forward/backward links
  int64_t global_tid = 0;
  int64_t first_range_id = 0;
};

// The module ranges of every forward pass of `tl` (module_spans) as MSTX_EVENTS rows; the
// backward pass of the same step and micro-batch links its ops, last first, to the forward ones
// (forward op i with backward op n_b - 1 - i).
void write_mstx_modules(MstxModuleSink& sink, const std::vector<HostOpSpan>& ops,
                        const RankTimeline& tl, const ModuleNames& names = kGptModules);

}  // namespace cs::generator
