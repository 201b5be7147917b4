#pragma once
// Golden reference kernels that run for real on the host CPU (Eigen, FP32): the weight
// GEMM/GEMV of a linear layer, decode attention, and tree attention both as the naive form
// with an explicit tree mask and as EAGLE's split form (paper 004 §3.1): a mask-free prefix
// over the KV cache plus a masked suffix over the tree tokens, merged by log-sum-exp. They are
// functional references (the two tree forms must agree) and timing references for the CPU
// model (sim/golden_timing.hpp times them).
#include <Eigen/Dense>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace sim {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// A fixed team of threads (the calling thread is thread 0) that runs one function on every
// thread and waits for all: a fork/join region with no thread creation per call.
// A fixed team of threads for the golden kernels. Each thread is pinned to its own CPU of the
// process's allowed set (thread t to the t-th allowed CPU; the calling thread, thread 0, for the
// team's lifetime only), so the scheduler cannot move a timed thread or stack two on one core;
// where pinning is refused (a restricted container) the threads run unpinned.
class ThreadTeam {
 public:
  explicit ThreadTeam(int threads);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;
  int size() const { return threads_; }
  void run(const std::function<void(int thread)>& work);
  // Runs an empty region: workers that slept through a cache flush (tens of ms) take tens of
  // microseconds to wake on a shared VM, a cost a decode loop, whose ops follow each other,
  // never pays. The golden wakes them before each timed kernel, outside the timer.
  void wake() {
    run([](int) {});
  }

 private:
  void worker(int thread);
  int threads_;
  std::vector<int> cpus_;           // the allowed CPUs, in order (empty: not pinned)
  bool caller_pinned_ = false;
  std::vector<unsigned char> caller_mask_;  // the caller's affinity before the team pinned it
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(int)>* work_ = nullptr;
  std::uint64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

// Y[m x n] = X[m x k] * W^T with W[n x k] row-major (a PyTorch Linear). Columns of Y are dealt
// to the team in contiguous runs of kCpuColumnBlock-wide blocks, as the CPU model assumes.
void linear(const RowMatrix& x, const RowMatrix& w, RowMatrix& y, ThreadTeam& team);

// Attention output for a set of queries plus each query's log-sum-exp of scaled scores, the
// state that lets partial attentions be merged.
struct AttentionState {
  RowMatrix out;              // queries x head_dim
  Eigen::VectorXf lse;        // per query
};

// Softmax(Q K^T / sqrt(d) + mask) V for one head. `allowed(i, j)` false masks key j for query
// i; an empty function means no mask. A query with every key masked gets lse = -inf, out = 0.
AttentionState attend(const RowMatrix& q, const RowMatrix& k, const RowMatrix& v,
                      const std::function<bool(int, int)>& allowed = {});

// Merges two attention states over disjoint key sets (log-sum-exp weighting).
AttentionState merge_states(const AttentionState& a, const AttentionState& b);

// Token tree of x nodes: parent[0] = -1 (the root), parent[i] < i otherwise.
std::vector<int> random_tree(int nodes, std::mt19937_64& rng);
bool is_ancestor_or_self(const std::vector<int>& parent, int ancestor, int node);

// Tree attention of the x tree tokens (queries q, their keys/values k_new/v_new) over the
// cached context (k_cache/v_cache, all visible) and their tree ancestors.
RowMatrix tree_attention_masked(const RowMatrix& q, const RowMatrix& k_cache, const RowMatrix& v_cache,
                                const RowMatrix& k_new, const RowMatrix& v_new,
                                const std::vector<int>& parent);
RowMatrix tree_attention_split(const RowMatrix& q, const RowMatrix& k_cache, const RowMatrix& v_cache,
                               const RowMatrix& k_new, const RowMatrix& v_new,
                               const std::vector<int>& parent);

RowMatrix random_matrix(std::int64_t rows, std::int64_t cols, std::mt19937_64& rng);

}  // namespace sim
