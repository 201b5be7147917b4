#include "sim/golden/golden_kernels.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/cpu/cpu_core_model.hpp"

namespace sim {

namespace {

// Pins the calling thread to `cpu`; false where the system refuses.
bool pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

}  // namespace

ThreadTeam::ThreadTeam(int threads) : threads_(std::max(1, threads)) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) cpus_.push_back(c);
  if (int(cpus_.size()) < threads_) cpus_.clear();  // more threads than CPUs: pinning cannot help
  if (!cpus_.empty()) {
    cpu_set_t before;
    if (pthread_getaffinity_np(pthread_self(), sizeof(before), &before) == 0) {
      caller_mask_.assign(reinterpret_cast<unsigned char*>(&before),
                          reinterpret_cast<unsigned char*>(&before) + sizeof(before));
      caller_pinned_ = pin_current_thread(cpus_[0]);
    }
  }
  for (int t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { worker(t); });
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& w : workers_) w.join();
  if (caller_pinned_) {
    cpu_set_t before;
    std::copy(caller_mask_.begin(), caller_mask_.end(), reinterpret_cast<unsigned char*>(&before));
    pthread_setaffinity_np(pthread_self(), sizeof(before), &before);
  }
}

void ThreadTeam::worker(int thread) {
  if (!cpus_.empty()) pin_current_thread(cpus_[std::size_t(thread)]);
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* work;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      work = work_;
    }
    (*work)(thread);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadTeam::run(const std::function<void(int)>& work) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    work_ = &work;
    pending_ = threads_ - 1;
    ++generation_;
  }
  start_cv_.notify_all();
  work(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
}

void linear(const RowMatrix& x, const RowMatrix& w, RowMatrix& y, ThreadTeam& team) {
  const std::int64_t n = w.rows();
  y.resize(x.rows(), n);
  const std::int64_t blocks = (n + kCpuColumnBlock - 1) / kCpuColumnBlock;
  const std::int64_t per_thread = (blocks + team.size() - 1) / team.size();
  team.run([&](int t) {
    const std::int64_t begin = std::min(n, t * per_thread * kCpuColumnBlock);
    const std::int64_t end = std::min(n, (t + 1) * per_thread * kCpuColumnBlock);
    if (end <= begin) return;
    if (x.rows() == 1)  // GEMV: y = W x
      y.row(0).segment(begin, end - begin).noalias() =
          (w.middleRows(begin, end - begin) * x.row(0).transpose()).transpose();
    else
      y.middleCols(begin, end - begin).noalias() = x * w.middleRows(begin, end - begin).transpose();
  });
}

AttentionState attend(const RowMatrix& q, const RowMatrix& k, const RowMatrix& v,
                      const std::function<bool(int, int)>& allowed) {
  const float scale = 1.0f / std::sqrt(float(q.cols()));
  const float neg_inf = -std::numeric_limits<float>::infinity();
  RowMatrix scores = (q * k.transpose()) * scale;
  AttentionState s;
  s.out = RowMatrix::Zero(q.rows(), v.cols());
  s.lse.resize(q.rows());
  for (int i = 0; i < q.rows(); ++i) {
    if (allowed)
      for (int j = 0; j < k.rows(); ++j)
        if (!allowed(i, j)) scores(i, j) = neg_inf;
    const float mx = k.rows() > 0 ? scores.row(i).maxCoeff() : neg_inf;
    if (mx == neg_inf) {
      s.lse(i) = neg_inf;
      continue;
    }
    Eigen::RowVectorXf p = (scores.row(i).array() - mx).exp().matrix();
    const float sum = p.sum();
    s.out.row(i) = (p * v) / sum;
    s.lse(i) = mx + std::log(sum);
  }
  return s;
}

AttentionState merge_states(const AttentionState& a, const AttentionState& b) {
  AttentionState m;
  m.out.resize(a.out.rows(), a.out.cols());
  m.lse.resize(a.lse.size());
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < a.out.rows(); ++i) {
    const float mx = std::max(a.lse(i), b.lse(i));
    if (mx == neg_inf) {
      m.out.row(i).setZero();
      m.lse(i) = neg_inf;
      continue;
    }
    const float wa = std::exp(a.lse(i) - mx), wb = std::exp(b.lse(i) - mx);
    m.out.row(i) = (wa * a.out.row(i) + wb * b.out.row(i)) / (wa + wb);
    m.lse(i) = mx + std::log(wa + wb);
  }
  return m;
}

std::vector<int> random_tree(int nodes, std::mt19937_64& rng) {
  std::vector<int> parent(std::max(0, nodes), -1);
  for (int i = 1; i < nodes; ++i) parent[i] = std::uniform_int_distribution<int>(0, i - 1)(rng);
  return parent;
}

bool is_ancestor_or_self(const std::vector<int>& parent, int ancestor, int node) {
  for (int n = node; n >= 0; n = parent[n])
    if (n == ancestor) return true;
  return false;
}

RowMatrix tree_attention_masked(const RowMatrix& q, const RowMatrix& k_cache, const RowMatrix& v_cache,
                                const RowMatrix& k_new, const RowMatrix& v_new,
                                const std::vector<int>& parent) {
  const auto cached = k_cache.rows();
  RowMatrix k(cached + k_new.rows(), q.cols()), v(cached + v_new.rows(), v_new.cols());
  k << k_cache, k_new;
  v << v_cache, v_new;
  // The explicit (x) x (L + x) mask: the whole cache, then the tree's ancestor relation.
  std::vector<std::vector<bool>> mask(q.rows(), std::vector<bool>(k.rows(), true));
  for (int i = 0; i < q.rows(); ++i)
    for (int j = 0; j < k_new.rows(); ++j) mask[i][cached + j] = is_ancestor_or_self(parent, j, i);
  return attend(q, k, v, [&](int i, int j) { return bool(mask[i][j]); }).out;
}

RowMatrix tree_attention_split(const RowMatrix& q, const RowMatrix& k_cache, const RowMatrix& v_cache,
                               const RowMatrix& k_new, const RowMatrix& v_new,
                               const std::vector<int>& parent) {
  const AttentionState prefix = attend(q, k_cache, v_cache);  // mask-free
  const AttentionState suffix =
      attend(q, k_new, v_new, [&](int i, int j) { return is_ancestor_or_self(parent, j, i); });
  return merge_states(prefix, suffix).out;
}

RowMatrix random_matrix(std::int64_t rows, std::int64_t cols, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  RowMatrix m(rows, cols);
  for (std::int64_t i = 0; i < m.size(); ++i) m.data()[i] = u(rng);
  return m;
}

}  // namespace sim
