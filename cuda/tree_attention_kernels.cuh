// Tree attention kernels of specdse_cuda_golden (cuda_golden.cu, the only includer): the prefix
// over the KV cache (a one-warp reference and the flash-decoding tensor-core kernel the GPU model
// times), the masked suffix over the tree tokens and the log-sum-exp merge. Kept in a header of
// their own so the program file holds the measurement driver alone; included inside
// cuda_golden.cu's anonymous namespace, after its includes.
#pragma once

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

// ---- flash-decoding prefix on tensor cores (the algorithm the GPU model times) ---------------
// One CTA of 4 warps per (KV head, 64-row query tile, KV chunk). The rows of a tile are the
// queries of all heads sharing the KV head (row r: query r / group, head kvh * group + r % group),
// so each K/V byte is read once per KV head. Per 64-key tile: S = Q K^T (WMMA, FP32), online
// softmax per row (running max m and sum l; O rescaled), O += P V (WMMA). Shared memory: the Q
// tile, one K-or-V tile (V is loaded over K once S is taken), S, P and O.
namespace wmma = nvcuda::wmma;
constexpr int kRowTile = 64, kKeyTile = 64, kFlashWarps = 4, kWmma = 16;

__host__ __device__ constexpr size_t flash_shared_bytes(int d) {
  return size_t(kRowTile) * d * sizeof(half)            // Q tile
         + size_t(kKeyTile) * d * sizeof(half)          // K, then V tile
         + size_t(kRowTile) * kKeyTile * sizeof(float)  // S
         + size_t(kRowTile) * kKeyTile * sizeof(half)   // P
         + size_t(kRowTile) * d * sizeof(float)         // O
         + 2 * size_t(kRowTile) * sizeof(float);        // m, l
}

__device__ inline void load_tile(half* dst, const half* src, int rows, int valid_rows, int d) {
  // 16-byte vectors; rows past the valid ones (the chunk's or the query rows' end) are zeros.
  const int vecs_per_row = d / 8;
  for (int v = threadIdx.x; v < rows * vecs_per_row; v += blockDim.x) {
    const int r = v / vecs_per_row, c = (v % vecs_per_row) * 8;
    int4 value = make_int4(0, 0, 0, 0);
    if (r < valid_rows) value = *reinterpret_cast<const int4*>(src + size_t(r) * d + c);
    *reinterpret_cast<int4*>(dst + size_t(r) * d + c) = value;
  }
}

__global__ void flash_prefix_attention(const half* q, const half* kc, const half* vc, float* o_part, float* lse_part,
                                       int x, int L, int d, int group, int chunk_keys, int chunks, int state_stride) {
  extern __shared__ __align__(16) unsigned char smem[];
  half* q_s = reinterpret_cast<half*>(smem);
  half* kv_s = q_s + kRowTile * d;
  float* s_s = reinterpret_cast<float*>(kv_s + kKeyTile * d);
  half* p_s = reinterpret_cast<half*>(s_s + kRowTile * kKeyTile);
  float* o_s = reinterpret_cast<float*>(p_s + kRowTile * kKeyTile);
  float* m_s = o_s + kRowTile * d;
  float* l_s = m_s + kRowTile;
  const int chunk = blockIdx.x, tile = blockIdx.y, kvh = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int rows = x * group, row0 = tile * kRowTile, valid_rows = min(kRowTile, rows - row0);
  const float scale = rsqrtf(float(d));

  // Q tile: row r is (query (row0 + r) / group, head kvh * group + (row0 + r) % group).
  for (int v = threadIdx.x; v < kRowTile * (d / 8); v += blockDim.x) {
    const int r = v / (d / 8), c = (v % (d / 8)) * 8;
    int4 value = make_int4(0, 0, 0, 0);
    if (r < valid_rows) {
      const int row = row0 + r, query = row / group, head = kvh * group + row % group;
      value = *reinterpret_cast<const int4*>(q + (size_t(head) * x + query) * d + c);
    }
    *reinterpret_cast<int4*>(q_s + size_t(r) * d + c) = value;
  }
  for (int i = threadIdx.x; i < kRowTile * d; i += blockDim.x) o_s[i] = 0.f;
  for (int i = threadIdx.x; i < kRowTile; i += blockDim.x) m_s[i] = -INFINITY, l_s[i] = 0.f;
  __syncthreads();

  const int begin = chunk * chunk_keys, end = min(L, begin + chunk_keys);
  const int warp_row = warp * kWmma;  // each warp owns 16 rows of S, P and O
  for (int key0 = begin; key0 < end; key0 += kKeyTile) {
    const int keys = min(kKeyTile, end - key0);
    load_tile(kv_s, kc + (size_t(kvh) * L + key0) * d, kKeyTile, keys, d);
    __syncthreads();
    // S[16 rows x 64 keys] for this warp's rows.
    for (int n0 = 0; n0 < kKeyTile; n0 += kWmma) {
      wmma::fragment<wmma::accumulator, kWmma, kWmma, kWmma, float> acc;
      wmma::fill_fragment(acc, 0.f);
      for (int k0 = 0; k0 < d; k0 += kWmma) {
        wmma::fragment<wmma::matrix_a, kWmma, kWmma, kWmma, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, kWmma, kWmma, kWmma, half, wmma::col_major> b;
        wmma::load_matrix_sync(a, q_s + size_t(warp_row) * d + k0, d);
        wmma::load_matrix_sync(b, kv_s + size_t(n0) * d + k0, d);  // K^T: key n, element k
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(s_s + size_t(warp_row) * kKeyTile + n0, acc, kKeyTile, wmma::mem_row_major);
    }
    __syncwarp();
    // Online softmax over the tile, row by row (two keys per lane).
    for (int r = warp_row; r < warp_row + kWmma; ++r) {
      float s0 = lane < keys ? s_s[r * kKeyTile + lane] * scale : -INFINITY;
      float s1 = lane + 32 < keys ? s_s[r * kKeyTile + lane + 32] * scale : -INFINITY;
      float mx = fmaxf(s0, s1);
      for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, off));
      const float m_old = m_s[r], m_new = fmaxf(m_old, mx);
      const float p0 = __expf(s0 - m_new), p1 = __expf(s1 - m_new);
      float sum = p0 + p1;
      for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, off);
      const float corr = __expf(m_old - m_new);  // 0 on the first tile (m_old = -inf)
      p_s[r * kKeyTile + lane] = __float2half(p0);
      p_s[r * kKeyTile + lane + 32] = __float2half(p1);
      for (int c = lane; c < d; c += 32) o_s[r * d + c] *= corr;
      __syncwarp();
      if (lane == 0) m_s[r] = m_new, l_s[r] = l_s[r] * corr + sum;
    }
    __syncthreads();  // every warp is done with K
    load_tile(kv_s, vc + (size_t(kvh) * L + key0) * d, kKeyTile, keys, d);
    __syncthreads();
    // O[16 rows x d] += P[16 x 64] V[64 x d].
    for (int n0 = 0; n0 < d; n0 += kWmma) {
      wmma::fragment<wmma::accumulator, kWmma, kWmma, kWmma, float> acc;
      wmma::load_matrix_sync(acc, o_s + size_t(warp_row) * d + n0, d, wmma::mem_row_major);
      for (int k0 = 0; k0 < kKeyTile; k0 += kWmma) {
        wmma::fragment<wmma::matrix_a, kWmma, kWmma, kWmma, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, kWmma, kWmma, kWmma, half, wmma::row_major> b;
        wmma::load_matrix_sync(a, p_s + size_t(warp_row) * kKeyTile + k0, kKeyTile);
        wmma::load_matrix_sync(b, kv_s + size_t(k0) * d + n0, d);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(o_s + size_t(warp_row) * d + n0, acc, d, wmma::mem_row_major);
    }
    __syncthreads();  // before the next K tile overwrites V
  }
  // This chunk's state per valid row: normalised O and its log-sum-exp.
  for (int r = warp_row; r < warp_row + kWmma; ++r) {
    if (r >= valid_rows) break;
    const int row = row0 + r, query = row / group, head = kvh * group + row % group;
    const size_t state = (size_t(head) * x + query) * state_stride + chunk;
    const float l = l_s[r];
    for (int c = lane; c < d; c += 32) o_part[state * d + c] = l > 0 ? o_s[r * d + c] / l : 0.f;
    if (lane == 0) lse_part[state] = l > 0 ? m_s[r] + logf(l) : -INFINITY;
  }
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
