// specdse_cuda_golden: real GPU kernels for the GPU sim model's golden comparison.
//   * cuBLAS GEMM/GEMV, FP16 inputs and outputs with FP32 accumulation (cublasGemmEx),
//     Y[m x n] = X[m x k] W^T, at the projection shapes of the given models' layers;
//   * tree attention as in EAGLE (paper 004 §3.1): a mask-free prefix kernel over the KV cache
//     (flash-decoding chunks, online softmax) plus a masked suffix kernel over the tree tokens,
//     merged by log-sum-exp, for a random token tree.
// Each kernel runs after an L2 flush (decode streams weights from HBM), a warm-up, then
// `repeats` timed runs with CUDA events; the minimum is printed.
// Output (stdout): CSV "kernel,m,n,k,measured_s". Usage:
//   specdse_cuda_golden [--repeats N] [--shapes N:K,N:K,...] [--tokens 1,2,...]
//                       [--attention H:KV:D] [--contexts L,...] [--tree-tokens X]
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

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
  double min_seconds(F&& kernel) {
    kernel();  // warm-up
    CHECK_CUDA(cudaDeviceSynchronize());
    float best = 1e30f;
    for (int r = 0; r < repeats; ++r) {
      CHECK_CUDA(cudaMemsetAsync(flush_buf, r & 0xff, flush_bytes));  // evict L2
      CHECK_CUDA(cudaEventRecord(a));
      kernel();
      CHECK_CUDA(cudaEventRecord(b));
      CHECK_CUDA(cudaEventSynchronize(b));
      float ms = 0;
      CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
      best = std::min(best, ms);
    }
    return best * 1e-3;
  }
};

// ---- tree attention -------------------------------------------------------------------------
// Layout: q [heads][x][d], k_cache/v_cache [kv_heads][L][d], k_new/v_new [kv_heads][x][d].
// Partial states: o_part [heads][x][chunks + 1][d] (float), lse_part [heads][x][chunks + 1].
constexpr int kChunk = 256;   // keys per prefix CTA (flash-decoding chunk)
constexpr int kMaxD = 128;

// One key of online softmax for a warp (lane holds every 32nd element of the head): score
// q.k, rescale the running max m, sum l and output accumulator acc, add p * v.
__device__ inline void online_softmax_step(const float* qr, const half* kr, const half* vr, int d, int lane,
                                           float scale, float& m, float& l, float* acc) {
  float s = 0;
  for (int i = 0; i < d / 32; ++i) s += qr[i] * __half2float(kr[lane + 32 * i]);
  for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
  s *= scale;
  const float m_new = fmaxf(m, s), corr = __expf(m - m_new), p = __expf(s - m_new);
  for (int i = 0; i < d / 32; ++i) acc[i] = acc[i] * corr + p * __half2float(vr[lane + 32 * i]);
  l = l * corr + p;
  m = m_new;
}

// One warp per (head, query, chunk): online softmax over the chunk's keys.
__global__ void prefix_attention(const half* q, const half* kc, const half* vc, float* o_part, float* lse_part,
                                 int x, int L, int d, int group, int chunks) {
  const int chunk = blockIdx.x, query = blockIdx.y, head = blockIdx.z, lane = threadIdx.x;
  const int kvh = head / group;
  const half* qv = q + (size_t(head) * x + query) * d;
  float qr[kMaxD / 32];
  for (int i = 0; i < d / 32; ++i) qr[i] = __half2float(qv[lane + 32 * i]);
  const float scale = rsqrtf(float(d));
  float m = -INFINITY, l = 0, acc[kMaxD / 32] = {0};
  const int begin = chunk * kChunk, end = min(L, begin + kChunk);
  for (int j = begin; j < end; ++j) {
    online_softmax_step(qr, kc + (size_t(kvh) * L + j) * d, vc + (size_t(kvh) * L + j) * d, d, lane, scale, m, l, acc);
  }
  const size_t state = (size_t(head) * x + query) * (chunks + 1) + chunk;
  for (int i = 0; i < d / 32; ++i) o_part[state * d + lane + 32 * i] = l > 0 ? acc[i] / l : 0.f;
  if (lane == 0) lse_part[state] = l > 0 ? m + logf(l) : -INFINITY;
}

// One warp per (head, query): masked attention over the tree tokens that are its ancestors.
__global__ void suffix_attention(const half* q, const half* kn, const half* vn, const int* parent, float* o_part,
                                 float* lse_part, int x, int d, int group, int chunks) {
  const int query = blockIdx.y, head = blockIdx.z, lane = threadIdx.x;
  const int kvh = head / group;
  const half* qv = q + (size_t(head) * x + query) * d;
  float qr[kMaxD / 32];
  for (int i = 0; i < d / 32; ++i) qr[i] = __half2float(qv[lane + 32 * i]);
  const float scale = rsqrtf(float(d));
  float m = -INFINITY, l = 0, acc[kMaxD / 32] = {0};
  for (int j = query; j >= 0; j = parent[j]) {  // the tree mask: ancestors and self
    online_softmax_step(qr, kn + (size_t(kvh) * x + j) * d, vn + (size_t(kvh) * x + j) * d, d, lane, scale, m, l, acc);
  }
  const size_t state = (size_t(head) * x + query) * (chunks + 1) + chunks;
  for (int i = 0; i < d / 32; ++i) o_part[state * d + lane + 32 * i] = acc[i] / l;
  if (lane == 0) lse_part[state] = m + logf(l);
}

// Log-sum-exp merge of the chunk states and the suffix state.
__global__ void merge_states(const float* o_part, const float* lse_part, half* out, int x, int d, int chunks) {
  const int query = blockIdx.y, head = blockIdx.z, lane = threadIdx.x;
  const size_t base = (size_t(head) * x + query) * (chunks + 1);
  float mx = -INFINITY;
  for (int c = 0; c <= chunks; ++c) mx = fmaxf(mx, lse_part[base + c]);
  float wsum = 0, acc[kMaxD / 32] = {0};
  for (int c = 0; c <= chunks; ++c) {
    const float w = __expf(lse_part[base + c] - mx);
    wsum += w;
    for (int i = 0; i < d / 32; ++i) acc[i] += w * o_part[(base + c) * d + lane + 32 * i];
  }
  for (int i = 0; i < d / 32; ++i) out[(size_t(head) * x + query) * d + lane + 32 * i] = __float2half(acc[i] / wsum);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 20, tree_tokens = 16;
  // Default shapes: Llama-3.1-8B's projections (qkv, o, gate_up, down) as N:K.
  std::string shapes = "6144:4096,4096:4096,28672:4096,4096:14336", tokens = "1,2,4,8,16,32,64,128,256",
              attention = "32:8:128", contexts = "1024,4096,16384";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--repeats") repeats = std::stoi(v);
    else if (k == "--shapes") shapes = v;
    else if (k == "--tokens") tokens = v;
    else if (k == "--attention") attention = v;
    else if (k == "--contexts") contexts = v;
    else if (k == "--tree-tokens") tree_tokens = std::stoi(v);
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
  std::printf("kernel,m,n,k,measured_s\n");

  for (const std::string& nk : [&] {
         std::vector<std::string> v;
         std::stringstream ss(shapes);
         std::string s;
         while (std::getline(ss, s, ',')) v.push_back(s);
         return v;
       }()) {
    const long long n = std::stoll(nk.substr(0, nk.find(':'))), k = std::stoll(nk.substr(nk.find(':') + 1));
    const auto ms = parse_list(tokens);
    const long long m_max = *std::max_element(ms.begin(), ms.end());
    half *w, *x, *y;
    CHECK_CUDA(cudaMalloc(&w, sizeof(half) * n * k));
    CHECK_CUDA(cudaMalloc(&x, sizeof(half) * m_max * k));
    CHECK_CUDA(cudaMalloc(&y, sizeof(half) * m_max * n));
    random_fill(w, size_t(n) * k, 1);
    random_fill(x, size_t(m_max) * k, 2);
    const float alpha = 1, beta = 0;
    for (long long m : ms) {
      // Column-major view: Y^T[n x m] = W[n x k] (stored k x n, transposed) * X^T[k x m].
      const double t = timer.min_seconds([&] {
        CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(n), int(m), int(k), &alpha, w, CUDA_R_16F,
                                  int(k), x, CUDA_R_16F, int(k), &beta, y, CUDA_R_16F, int(n), CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
      });
      std::printf("%s,%lld,%lld,%lld,%.9g\n", m == 1 ? "gemv" : "gemm", m, n, k, t);
      std::fflush(stdout);
    }
    CHECK_CUDA(cudaFree(w));
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaFree(y));
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
  for (long long L : parse_list(contexts)) {
    const int chunks = int((L + kChunk - 1) / kChunk);
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
    const double t = timer.min_seconds([&] {
      prefix_attention<<<dim3(chunks, x, heads), 32>>>(q, kc, vc, o_part, lse_part, x, int(L), d, group, chunks);
      suffix_attention<<<dim3(1, x, heads), 32>>>(q, kn, vn, parent_d, o_part, lse_part, x, d, group, chunks);
      merge_states<<<dim3(1, x, heads), 32>>>(o_part, lse_part, out, x, d, chunks);
    });
    CHECK_CUDA(cudaGetLastError());
    std::printf("tree_attention_h%d_kv%d,%d,%lld,%d,%.9g\n", heads, kv_heads, x, L, d, t);
    std::fflush(stdout);
    for (void* p : {(void*)q, (void*)kc, (void*)vc, (void*)kn, (void*)vn, (void*)out, (void*)o_part, (void*)lse_part})
      CHECK_CUDA(cudaFree(p));
  }
  CHECK_CUDA(cudaFree(parent_d));
  CHECK_CUBLAS(cublasDestroy(handle));
  return 0;
}
