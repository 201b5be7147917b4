// specdse_cuda_golden: real GPU kernels for the GPU sim model's golden comparison.
//   * cuBLAS GEMM/GEMV, FP16 inputs and outputs with FP32 accumulation (cublasGemmEx),
//     Y[m x n] = X[m x k] W^T, at the projection shapes of the given models' layers;
//   * tree attention as in EAGLE (paper 004 §3.1) and as the GPU model times it
//     (roofline/gpu_roofline.cpp, attention_kernels_with_split): a mask-free prefix kernel over
//     the KV cache -- flash-decoding on tensor cores: GQA-packed 64-row query tiles, 64-key K/V
//     tiles in shared memory, QK^T and PV as WMMA MMAs, online softmax, the cache split into
//     chunks across CTAs -- plus a masked suffix kernel over the tree tokens, merged by
//     log-sum-exp, for a random token tree. Like a tuned library, the chunk size (split) whose
//     kernels finish first is reported. Each run is checked against a plain one-warp-per-query
//     reference of the same three steps (max |difference| printed to stderr; exit 3 above 2e-2).
//   * back-to-back sequences (--sequence-copies C > 0): per GEMM shape and token count, C
//     launches of that GEMM over C distinct weight copies (so every launch streams its weights
//     from HBM, as a decode step's layers do), issued back to back on one stream (rows
//     `gemm_stream`) and replayed as one CUDA graph (rows `gemm_graph`), and the same for an
//     RMSNorm kernel over m rows of the hidden size (`rmsnorm_stream`, `rmsnorm_graph`). The
//     time printed is the sequence's time / C: a kernel's cost inside a step, where launch
//     latency and ramp-up overlap the previous kernel, not the isolated kernel's.
// Each kernel (or sequence) runs after an L2 flush (decode streams weights from HBM), a warm-up,
// then `repeats` timed runs with CUDA events; the minimum is printed.
// Output (stdout): CSV "kernel,m,n,k,measured_s". Usage:
//   specdse_cuda_golden [--repeats N] [--shapes N:K,N:K,...] [--tokens 1,2,...]
//                       [--attention H:KV:D] [--contexts L,...] [--tree-tokens X]
//                       [--sequence-copies C] [--skip-isolated 1] [--skip-attention 1]
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    cudaError_t e_ = (call);                                                               \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));     \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define CHECK_CUBLAS(call)                                                                 \
  do {                                                                                     \
    cublasStatus_t s_ = (call);                                                            \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
      std::fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, int(s_));      \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

std::vector<long long> parse_list(const std::string& s) {
  std::vector<long long> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoll(item));
  return out;
}

__global__ void fill_random(half* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    p[i] = __float2half((float(h & 0xffff) / 65535.0f - 0.5f) * 0.2f);
  }
}

void random_fill(half* p, size_t n, unsigned seed) {
  fill_random<<<1024, 256>>>(p, n, seed);
  CHECK_CUDA(cudaGetLastError());
}

struct Timer {
  half* flush_buf = nullptr;
  size_t flush_bytes = 0;
  int repeats = 20;
  cudaEvent_t a, b;
  Timer(size_t l2_bytes, int reps) : flush_bytes(std::max<size_t>(2 * l2_bytes, 64u << 20)), repeats(reps) {
    CHECK_CUDA(cudaMalloc(&flush_buf, flush_bytes));
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
  }
  template <class F>
  double min_seconds(F&& kernel, cudaStream_t stream = nullptr) {
    kernel();  // warm-up
    CHECK_CUDA(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int r = 0; r < repeats; ++r) {
      CHECK_CUDA(cudaMemsetAsync(flush_buf, r & 0xff, flush_bytes, stream));  // evict L2
      CHECK_CUDA(cudaEventRecord(a, stream));
      kernel();
      CHECK_CUDA(cudaEventRecord(b, stream));
      CHECK_CUDA(cudaEventSynchronize(b));
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
      best = std::min(best, ms);
    }
    return best * 1e-3;
  }
};

#include "tree_attention_kernels.cuh"  // prefix, flash-decoding prefix, suffix, merge

// RMSNorm over rows of `hidden` halves (hidden a multiple of 8, at most 8 * 256 * kNormVectors):
// one CTA of 256 threads per row, each thread loading its 16-byte vectors of the row at once
// (so the loads overlap instead of waiting one after another), summing the squares, then
// scaling the vectors it holds: one read and one write of the row, the shape of the GPU model's
// element-wise kernels. Used to time a small kernel inside a back-to-back sequence.
constexpr int kNormThreads = 256, kNormVectors = 4;
__global__ void rmsnorm(const half* in, const half* gain, half* out, int hidden) {
  __shared__ float partial[kNormThreads / 32];
  const int vectors = hidden / 8;
  const int4* row = reinterpret_cast<const int4*>(in + size_t(blockIdx.x) * hidden);
  int4 held[kNormVectors];
  float sum = 0;
#pragma unroll
  for (int i = 0; i < kNormVectors; ++i) {
    const int v = threadIdx.x + i * kNormThreads;
    held[i] = v < vectors ? row[v] : make_int4(0, 0, 0, 0);
    const half* h = reinterpret_cast<const half*>(&held[i]);
#pragma unroll
    for (int j = 0; j < 8; ++j) sum += __half2float(h[j]) * __half2float(h[j]);
  }
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, off);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  float total = 0;
  for (int w = 0; w < kNormThreads / 32; ++w) total += partial[w];
  const float inv = rsqrtf(total / hidden + 1e-5f);
  int4* dst = reinterpret_cast<int4*>(out + size_t(blockIdx.x) * hidden);
  const int4* g = reinterpret_cast<const int4*>(gain);
#pragma unroll
  for (int i = 0; i < kNormVectors; ++i) {
    const int v = threadIdx.x + i * kNormThreads;
    if (v >= vectors) break;
    const int4 gv = g[v];
    int4 result;
    const half* h = reinterpret_cast<const half*>(&held[i]);
    const half* gh = reinterpret_cast<const half*>(&gv);
    half* r = reinterpret_cast<half*>(&result);
#pragma unroll
    for (int j = 0; j < 8; ++j) r[j] = __float2half(__half2float(h[j]) * inv * __half2float(gh[j]));
    dst[v] = result;
  }
}

// Times `launch(c)` for c = 0..copies-1 issued back to back on `stream`, and the same captured
// as one CUDA graph; returns {stream, graph} seconds per launch (minimum over the repeats).
template <class Launch>
std::pair<double, double> time_sequence(Timer& timer, cudaStream_t stream, int copies, Launch&& launch) {
  const double eager = timer.min_seconds([&] {
    for (int c = 0; c < copies; ++c) launch(c);
  }, stream);
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  for (int c = 0; c < copies; ++c) launch(c);
  CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const double replay = timer.min_seconds([&] { CHECK_CUDA(cudaGraphLaunch(exec, stream)); }, stream);
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  return {eager / copies, replay / copies};
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 20, tree_tokens = 16, sequence_copies = 0, skip_isolated = 0, skip_attention = 0;
  // Default shapes: Llama-3.1-8B's projections (qkv, o, gate_up, down) as N:K.
  std::string shapes = "6144:4096,4096:4096,28672:4096,4096:14336", tokens = "1,2,4,8,16,32,64,128,256",
              attention = "32:8:128", contexts = "1024,4096,16384";
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s: expected a value\n", k.c_str());
      return 2;
    }
    const std::string v = argv[i + 1];
    if (k == "--repeats") repeats = std::stoi(v);
    else if (k == "--shapes") shapes = v;
    else if (k == "--tokens") tokens = v;
    else if (k == "--attention") attention = v;
    else if (k == "--contexts") contexts = v;
    else if (k == "--tree-tokens") tree_tokens = std::stoi(v);
    else if (k == "--sequence-copies") sequence_copies = std::stoi(v);
    else if (k == "--skip-isolated") skip_isolated = std::stoi(v);
    else if (k == "--skip-attention") skip_attention = std::stoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::fprintf(stderr, "device: %s, %d SMs, L2 %d MiB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  Timer timer(size_t(prop.l2CacheSize), repeats);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::printf("kernel,m,n,k,measured_s\n");

  std::vector<std::string> shape_list;
  {
    std::stringstream ss(shapes);
    std::string item;
    while (std::getline(ss, item, ',')) shape_list.push_back(item);
  }
  const auto ms = parse_list(tokens);
  const long long m_max = *std::max_element(ms.begin(), ms.end());
  const float alpha = 1, beta = 0;
  for (const std::string& nk : shape_list) {
    const long long n = std::stoll(nk.substr(0, nk.find(':'))), k = std::stoll(nk.substr(nk.find(':') + 1));
    // Weight copies: one for the isolated rows; for sequences as many as asked, bounded by a
    // third of the free memory (at least 2, so consecutive launches never share weights).
    int copies = std::max(1, sequence_copies);
    if (sequence_copies > 0) {
      size_t free_bytes = 0, total_bytes = 0;
      CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
      const size_t per_copy = sizeof(half) * size_t(n) * size_t(k);
      copies = int(std::max<size_t>(2, std::min<size_t>(size_t(sequence_copies), free_bytes / 3 / per_copy)));
    }
    std::vector<half*> w(copies);
    half *x, *y;
    for (int c = 0; c < copies; ++c) {
      CHECK_CUDA(cudaMalloc(&w[c], sizeof(half) * n * k));
      random_fill(w[c], size_t(n) * k, 1 + c);
    }
    CHECK_CUDA(cudaMalloc(&x, sizeof(half) * m_max * k));
    CHECK_CUDA(cudaMalloc(&y, sizeof(half) * m_max * n));
    random_fill(x, size_t(m_max) * k, 2);
    CHECK_CUBLAS(cublasSetStream(handle, stream));
    for (long long m : ms) {
      // Column-major view: Y^T[n x m] = W[n x k] (stored k x n, transposed) * X^T[k x m].
      auto gemm = [&](int c) {
        CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k), &alpha, w[c], CUDA_R_16F,
                                  int(k), x, CUDA_R_16F, int(k), &beta, y, CUDA_R_16F, int(n), CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
      };
      if (!skip_isolated) {
        const double t = timer.min_seconds([&] { gemm(0); }, stream);
        std::printf("%s,%lld,%lld,%lld,%.9g\n", m == 1 ? "gemv" : "gemm", m, n, k, t);
      }
      if (sequence_copies > 0) {
        const auto [eager, graph] = time_sequence(timer, stream, copies, gemm);
        std::printf("gemm_stream,%lld,%lld,%lld,%.9g\n", m, n, k, eager);
        std::printf("gemm_graph,%lld,%lld,%lld,%.9g\n", m, n, k, graph);
        std::fprintf(stderr, "sequence of %d GEMMs m=%lld n=%lld k=%lld\n", copies, m, n, k);
      }
      std::fflush(stdout);
    }
    for (half* p : w) CHECK_CUDA(cudaFree(p));
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaFree(y));
  }
  // RMSNorm sequences at the first shape's K (the hidden size): a small kernel's cost in a step.
  if (sequence_copies > 0 && !shape_list.empty()) {
    const long long hidden = std::stoll(shape_list[0].substr(shape_list[0].find(':') + 1));
    if (hidden % 8 || hidden > 8LL * kNormThreads * kNormVectors) {
      std::fprintf(stderr, "rmsnorm: hidden size %lld is not a multiple of 8 up to %d\n", hidden,
                   8 * kNormThreads * kNormVectors);
      return 2;
    }
    const int copies = sequence_copies;
    half *in, *gain, *out;
    CHECK_CUDA(cudaMalloc(&in, sizeof(half) * copies * m_max * hidden));
    CHECK_CUDA(cudaMalloc(&out, sizeof(half) * m_max * hidden));
    CHECK_CUDA(cudaMalloc(&gain, sizeof(half) * hidden));
    random_fill(in, size_t(copies) * m_max * hidden, 8);
    random_fill(gain, size_t(hidden), 9);
    for (long long m : ms) {
      auto norm = [&](int c) {
        rmsnorm<<<unsigned(m), kNormThreads, 0, stream>>>(in + size_t(c) * m_max * hidden, gain, out, int(hidden));
      };
      if (!skip_isolated) {
        const double t = timer.min_seconds([&] { norm(0); }, stream);
        std::printf("rmsnorm,%lld,%lld,1,%.9g\n", m, hidden, t);
      }
      const auto [eager, graph] = time_sequence(timer, stream, copies, norm);
      CHECK_CUDA(cudaGetLastError());
      std::printf("rmsnorm_stream,%lld,%lld,1,%.9g\n", m, hidden, eager);
      std::printf("rmsnorm_graph,%lld,%lld,1,%.9g\n", m, hidden, graph);
      std::fflush(stdout);
    }
    for (half* p : {in, gain, out}) CHECK_CUDA(cudaFree(p));
  }
  if (skip_attention) {
    CHECK_CUBLAS(cublasDestroy(handle));
    return 0;
  }

  // Tree attention.
  int heads = 0, kv_heads = 0, d = 0;
  if (std::sscanf(attention.c_str(), "%d:%d:%d", &heads, &kv_heads, &d) != 3 || d % 32 || d > kMaxD) {
    std::fprintf(stderr, "--attention: expected H:KV:D with D a multiple of 32 up to %d\n", kMaxD);
    return 2;
  }
  const int x = tree_tokens, group = heads / kv_heads;
  std::mt19937_64 rng(3);
  std::vector<int> parent(x, -1);
  for (int i = 1; i < x; ++i) parent[i] = std::uniform_int_distribution<int>(0, i - 1)(rng);
  int* parent_d;
  CHECK_CUDA(cudaMalloc(&parent_d, sizeof(int) * x));
  CHECK_CUDA(cudaMemcpy(parent_d, parent.data(), sizeof(int) * x, cudaMemcpyHostToDevice));
  const int row_tiles = (x * group + kRowTile - 1) / kRowTile;
  const size_t flash_smem = flash_shared_bytes(d);
  CHECK_CUDA(cudaFuncSetAttribute(flash_prefix_attention, cudaFuncAttributeMaxDynamicSharedMemorySize, int(flash_smem)));
  for (long long L : parse_list(contexts)) {
    const int chunks = int((L + kChunk - 1) / kChunk);  // the most chunks any run below uses
    half *q, *kc, *vc, *kn, *vn, *out;
    float *o_part, *lse_part;
    CHECK_CUDA(cudaMalloc(&q, sizeof(half) * heads * x * d));
    CHECK_CUDA(cudaMalloc(&kc, sizeof(half) * kv_heads * L * d));
    CHECK_CUDA(cudaMalloc(&vc, sizeof(half) * kv_heads * L * d));
    CHECK_CUDA(cudaMalloc(&kn, sizeof(half) * kv_heads * x * d));
    CHECK_CUDA(cudaMalloc(&vn, sizeof(half) * kv_heads * x * d));
    CHECK_CUDA(cudaMalloc(&out, sizeof(half) * heads * x * d));
    CHECK_CUDA(cudaMalloc(&o_part, sizeof(float) * heads * x * (chunks + 1) * d));
    CHECK_CUDA(cudaMalloc(&lse_part, sizeof(float) * heads * x * (chunks + 1)));
    random_fill(q, size_t(heads) * x * d, 3);
    random_fill(kc, size_t(kv_heads) * L * d, 4);
    random_fill(vc, size_t(kv_heads) * L * d, 5);
    random_fill(kn, size_t(kv_heads) * x * d, 6);
    random_fill(vn, size_t(kv_heads) * x * d, 7);
    const size_t out_elems = size_t(heads) * x * d;
    // Reference: one warp per (head, query, 256-key chunk), the same prefix/suffix/merge split.
    prefix_attention<<<dim3(chunks, x, heads), 32>>>(q, kc, vc, o_part, lse_part, x, int(L), d, group, chunks);
    suffix_attention<<<dim3(1, x, heads), 32>>>(q, kn, vn, parent_d, o_part, lse_part, x, d, group, chunks);
    merge_states<<<dim3(1, x, heads), 32>>>(o_part, lse_part, out, x, d, chunks);
    CHECK_CUDA(cudaGetLastError());
    std::vector<half> reference(out_elems), result(out_elems);
    CHECK_CUDA(cudaMemcpy(reference.data(), out, sizeof(half) * out_elems, cudaMemcpyDeviceToHost));
    // The modelled kernels at every split the model considers (powers of two up to 32, chunks of
    // at least 256 keys, in 64-key tiles); the fastest is reported, as a tuned library picks it.
    double best = 1e30;
    int best_split = 1;
    for (int split = 1; split <= 32; split *= 2) {
      if (split > 1 && L / split < 256) break;
      const int chunk_keys = int(((L + split - 1) / split + kKeyTile - 1) / kKeyTile * kKeyTile);
      const int n_chunks = int((L + chunk_keys - 1) / chunk_keys);
      auto run = [&] {
        flash_prefix_attention<<<dim3(n_chunks, row_tiles, kv_heads), kFlashWarps * 32, flash_smem>>>(
            q, kc, vc, o_part, lse_part, x, int(L), d, group, chunk_keys, n_chunks, n_chunks + 1);
        suffix_attention<<<dim3(1, x, heads), 32>>>(q, kn, vn, parent_d, o_part, lse_part, x, d, group, n_chunks);
        merge_states<<<dim3(1, x, heads), 32>>>(o_part, lse_part, out, x, d, n_chunks);
      };
      run();
      CHECK_CUDA(cudaGetLastError());
      CHECK_CUDA(cudaMemcpy(result.data(), out, sizeof(half) * out_elems, cudaMemcpyDeviceToHost));
      float worst = 0;
      for (size_t i = 0; i < out_elems; ++i)
        worst = std::max(worst, std::fabs(__half2float(result[i]) - __half2float(reference[i])));
      std::fprintf(stderr, "tree attention L=%lld split %d (%d-key chunks): max |flash - reference| = %.3g\n", L,
                   split, chunk_keys, worst);
      if (!(worst <= 2e-2f)) {
        std::fprintf(stderr, "tree attention: the flash-decoding kernel disagrees with the reference\n");
        return 3;
      }
      const double t = timer.min_seconds(run);
      if (t < best) best = t, best_split = split;
    }
    std::fprintf(stderr, "tree attention L=%lld: fastest split %d\n", L, best_split);
    std::printf("tree_attention_h%d_kv%d,%d,%lld,%d,%.9g\n", heads, kv_heads, x, L, d, best);
    std::fflush(stdout);
    for (void* p : {(void*)q, (void*)kc, (void*)vc, (void*)kn, (void*)vn, (void*)out, (void*)o_part, (void*)lse_part})
      CHECK_CUDA(cudaFree(p));
  }
  CHECK_CUDA(cudaFree(parent_d));
  CHECK_CUBLAS(cublasDestroy(handle));
  return 0;
}
