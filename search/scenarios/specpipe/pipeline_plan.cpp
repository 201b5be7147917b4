#include "search/scenarios/specpipe/pipeline_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/config_error.hpp"

namespace search::specpipe {

namespace {

void check_common(int stages, long long tokens) {
  if (stages < 1) throw models::InputError(fmt::format("specpipe: {} pipeline stages (need >= 1)", stages));
  if (tokens < 1) throw models::InputError(fmt::format("--tokens: {} (must be >= 1)", tokens));
}

// Request r's seed in a multi-request run (request 0 keeps the run's: it is the single-request run).
std::uint64_t request_seed(std::uint64_t seed, int r) { return seed + 0x9E3779B97F4A7C15ULL * std::uint64_t(r); }

StepPlan empty_step(int m) {
  StepPlan s;
  s.compute.assign(std::size_t(m), 0);
  s.send.assign(std::size_t(m > 0 ? m - 1 : 0), 0);
  return s;
}

}  // namespace

PipelinePlan plan_specpipe(const SpecPipeParams& p, const RankModel& ranks) {
  check_common(p.stages, p.tokens);
  SpeculativeTree tree(p.width, p.candidates, ranks, p.verification, p.top_p, p.seed);
  std::mt19937_64 rng(p.seed);
  const int m = p.stages;
  PipelinePlan plan;
  plan.method = "specpipe";
  plan.stages = m;
  // slot[i]: the depth of the tree level stage i holds (-1: empty). Decoding starts with the
  // prompt's last token (depth 0, the tree's root) entering stage 0.
  std::vector<long long> slot(std::size_t(m), -1);
  slot[0] = 0;
  FirstInput first = FirstInput::verified_token;
  auto more = [&] { return p.steps > 0 ? (long long)plan.steps.size() < p.steps : plan.tokens < p.tokens + 1; };
  while (more()) {
    StepPlan st = empty_step(m);
    for (int i = 0; i < m; ++i) st.compute[std::size_t(i)] = slot[std::size_t(i)] >= 0 ? tree.size(slot[std::size_t(i)]) : 0;
    st.first = st.compute[0] > 0 ? first : FirstInput::none;
    // The draft appends one level during the step, from the tree as pruned at the previous step.
    int bottom = 0;
    const long long pending = tree.append_level(rng, &bottom);
    if (bottom > 0) st.draft_passes = {bottom};
    st.level_waits_for_verify = true;
    const long long last = slot[std::size_t(m - 1)];
    if (last >= 0) {
      // The last stage holds the verified token at depth `last` and emits the next one.
      const long long e = last + 1;
      st.emitted = 1;
      st.verify = st.prune = true;
      ++plan.tokens;
      ++plan.checks;
      const VerifyOutcome o = tree.verify_with(e, rng);
      st.hit = o != VerifyOutcome::miss;
      plan.hits += st.hit ? 1 : 0;
      plan.substituted += o == VerifyOutcome::substituted ? 1 : 0;
      st.flush = !st.hit;
      tree.drop_through(last);
    }
    if (st.flush) {
      // Every level was pruned; the emitted token re-enters stage 0 alone (Algorithm 1 line 9).
      std::fill(slot.begin(), slot.end(), -1);
      slot[0] = tree.deepest();
      first = FirstInput::verified_token;
    } else {
      for (int i = m - 1; i > 0; --i) slot[std::size_t(i)] = slot[std::size_t(i - 1)];
      for (int i = 0; i + 1 < m; ++i)
        st.send[std::size_t(i)] = slot[std::size_t(i + 1)] >= 0 ? tree.size(slot[std::size_t(i + 1)]) : 0;
      slot[0] = pending;
      st.level_tokens = tree.size(pending);
      first = FirstInput::draft_previous;
    }
    plan.steps.push_back(std::move(st));
  }
  return plan;
}

PipelinePlan plan_specpipe_db(const SpecPipeParams& p, int requests, const RankModel& ranks) {
  check_common(p.stages, p.tokens);
  if (requests < 1) throw models::InputError(fmt::format("--batch: {} requests (must be >= 1)", requests));
  const int m = p.stages;
  // Each request's own run (seed mixed with its index; request 0 is the single-request run), all
  // as long as the slowest so that every request is in every step.
  auto request_params = [&](int r) {
    SpecPipeParams q = p;
    q.seed = request_seed(p.seed, r);
    return q;
  };
  long long steps = 0;
  for (int r = 0; r < requests; ++r) steps = std::max<long long>(steps, (long long)plan_specpipe(request_params(r), ranks).steps.size());
  std::vector<PipelinePlan> runs;
  for (int r = 0; r < requests; ++r) {
    SpecPipeParams q = request_params(r);
    q.steps = steps;
    runs.push_back(plan_specpipe(q, ranks));
  }
  PipelinePlan plan;
  plan.method = "specpipe-db";
  plan.stages = m;
  plan.requests = requests;
  plan.ragged_batches = requests > 1;
  for (long long s = 0; s < steps; ++s) {
    StepPlan st = empty_step(m);
    st.batch.assign(std::size_t(m), 0);
    int drafting = 0, drafted = 0;
    bool any_level = false;
    for (int r = 0; r < requests; ++r) {
      const StepPlan& x = runs[std::size_t(r)].steps[std::size_t(s)];
      for (int i = 0; i < m; ++i) {
        st.compute[std::size_t(i)] += x.compute[std::size_t(i)];
        st.batch[std::size_t(i)] += x.compute[std::size_t(i)] > 0 ? 1 : 0;
      }
      for (int i = 0; i + 1 < m; ++i) st.send[std::size_t(i)] += x.send[std::size_t(i)];
      if (x.first == FirstInput::draft_previous) any_level = true;
      if (x.first == FirstInput::verified_token) st.first_needs_token = true;
      for (int w : x.draft_passes) drafting += w, ++drafted;
      st.level_tokens += x.level_tokens;
      if (x.emitted > 0) {
        st.emitted += x.emitted;
        st.emitted_by.push_back(r);
        st.emitted_each.push_back(x.emitted);
      }
      st.verify = st.verify || x.verify;
      st.prune = st.prune || x.prune;
      st.flush = st.flush || x.flush;
    }
    st.first = any_level ? FirstInput::draft_previous : st.first_needs_token ? FirstInput::verified_token : FirstInput::none;
    if (st.first == FirstInput::verified_token) st.first_needs_token = false;
    st.hit = st.verify && !st.flush;
    st.level_waits_for_verify = true;
    if (drafted > 0) {
      // One batched draft pass over every request's bottom nodes.
      st.draft_passes = {(drafting + drafted - 1) / drafted};
      st.draft_batch = drafted;
    }
    plan.steps.push_back(std::move(st));
  }
  for (const auto& r : runs) {
    plan.checks += r.checks;
    plan.hits += r.hits;
    plan.substituted += r.substituted;
    plan.tokens += r.tokens;
  }
  return plan;
}

PipelinePlan plan_specpipe_interleaved(const SpecPipeParams& p, int requests, const RankModel& ranks) {
  check_common(p.stages, p.tokens);
  if (requests < 1) throw models::InputError(fmt::format("--batch: {} requests (must be >= 1)", requests));
  if (requests == 1) return plan_specpipe(p, ranks);
  const int m = p.stages;
  struct Request {
    SpeculativeTree tree;
    std::mt19937_64 rng;
    long long tokens = 0;
    bool refill = true;       // its verified token (decode start: the prompt's last) must enter stage 0
    long long pending = -1;   // depth of the level drafted for its next turn (-1: none)
  };
  std::vector<Request> req;
  req.reserve(std::size_t(requests));
  for (int r = 0; r < requests; ++r) {
    const std::uint64_t seed = request_seed(p.seed, r);
    req.push_back({SpeculativeTree(p.width, p.candidates, ranks, p.verification, p.top_p, seed), std::mt19937_64(seed)});
  }
  PipelinePlan plan;
  plan.method = "specpipe";
  plan.stages = m;
  plan.requests = requests;
  // slot[i]: (request, depth) of what stage i holds; request -1: empty. Request 0's prompt token
  // (depth 0) enters first, the others at their turns.
  std::vector<std::pair<int, long long>> slot(std::size_t(m), {-1, -1});
  slot[0] = {0, 0};
  req[0].refill = false;
  FirstInput entered = FirstInput::verified_token;  // what entered stage 0 for the coming step
  auto done = [&] {
    for (const auto& r : req)
      if (r.tokens < p.tokens + 1) return false;
    return true;
  };
  for (long long s = 0; !done(); ++s) {
    StepPlan st = empty_step(m);
    for (int i = 0; i < m; ++i) {
      const auto [r, d] = slot[std::size_t(i)];
      st.compute[std::size_t(i)] = r >= 0 ? req[std::size_t(r)].tree.size(d) : 0;
    }
    st.first = st.compute[0] > 0 ? entered : FirstInput::none;
    // Whose turn at stage 0 next step: the draft drafts that request's level during this one.
    const int next = int((s + 1) % requests);
    Request& nx = req[std::size_t(next)];
    if (!nx.refill) {
      int bottom = 0;
      nx.pending = nx.tree.append_level(nx.rng, &bottom);
      if (bottom > 0) st.draft_passes = {bottom};
      st.level_waits_for_verify = true;
    }
    const auto [lr, last] = slot[std::size_t(m - 1)];
    if (lr >= 0) {
      Request& r = req[std::size_t(lr)];
      const long long e = last + 1;
      st.emitted = 1;
      st.emitted_by = {lr};
      st.emitted_each = {1};
      st.verify = st.prune = true;
      ++r.tokens;
      ++plan.tokens;
      ++plan.checks;
      const VerifyOutcome o = r.tree.verify_with(e, r.rng);
      st.hit = o != VerifyOutcome::miss;
      plan.hits += st.hit ? 1 : 0;
      plan.substituted += o == VerifyOutcome::substituted ? 1 : 0;
      st.flush = !st.hit;
      r.tree.drop_through(last);
      if (st.flush) {
        // Its levels in flight are gone; its verified token re-enters at its next turn.
        for (auto& sl : slot)
          if (sl.first == lr) sl = {-1, -1};
        r.refill = true;
        r.pending = -1;
      }
    }
    for (int i = m - 1; i > 0; --i) slot[std::size_t(i)] = slot[std::size_t(i - 1)];
    for (int i = 0; i + 1 < m; ++i) {
      const auto [r, d] = slot[std::size_t(i + 1)];
      st.send[std::size_t(i)] = r >= 0 ? req[std::size_t(r)].tree.size(d) : 0;
    }
    if (nx.refill) {
      slot[0] = {next, nx.tree.deepest()};
      nx.refill = false;
      entered = FirstInput::verified_token;
    } else {
      slot[0] = {next, nx.pending};
      st.level_tokens = nx.tree.size(nx.pending);
      entered = FirstInput::draft_previous;
    }
    plan.steps.push_back(std::move(st));
  }
  return plan;
}

PipelinePlan plan_plain_pp(int stages, long long tokens) {
  check_common(stages, tokens);
  PipelinePlan plan;
  plan.method = "pp";
  plan.stages = stages;
  for (long long s = 0; plan.tokens < tokens + 1; ++s) {
    StepPlan st = empty_step(stages);
    const int at = int(s % stages);
    st.compute[std::size_t(at)] = 1;
    if (at == 0) st.first = FirstInput::verified_token;
    if (at + 1 < stages) st.send[std::size_t(at)] = 1;
    if (at == stages - 1) {
      st.emitted = 1;
      ++plan.tokens;
    }
    plan.steps.push_back(std::move(st));
  }
  return plan;
}

namespace {

// Requests per micro-batch: `requests` over min(requests, stages) micro-batches, the first ones
// taking the remainder.
std::vector<int> micro_batches(int stages, int requests) {
  const int g = std::min(stages, requests);
  std::vector<int> size(std::size_t(g), requests / g);
  for (int j = 0; j < requests % g; ++j) ++size[std::size_t(j)];
  return size;
}

}  // namespace

PipelinePlan plan_multibatch_pp(int stages, int requests, long long tokens) {
  check_common(stages, tokens);
  if (requests < 1) throw models::InputError(fmt::format("--batch: {} requests (must be >= 1)", requests));
  if (requests == 1) return plan_plain_pp(stages, tokens);
  const std::vector<int> size = micro_batches(stages, requests);
  const int g = int(size.size());
  PipelinePlan plan;
  plan.method = "pp";
  plan.stages = stages;
  plan.requests = requests;
  std::vector<long long> emitted(std::size_t(g), 0);  // tokens per request of each micro-batch
  auto done = [&] { return *std::min_element(emitted.begin(), emitted.end()) >= tokens + 1; };
  for (long long s = 0; !done(); ++s) {
    StepPlan st = empty_step(stages);
    st.batch.assign(std::size_t(stages), 0);
    int first_request = 0;
    for (int j = 0; j < g; first_request += size[std::size_t(j)], ++j) {
      if (s < j) continue;
      const int at = int((s - j) % stages);
      const int n = size[std::size_t(j)];
      st.compute[std::size_t(at)] = n;
      st.batch[std::size_t(at)] = n;
      if (at == 0) st.first = FirstInput::verified_token;
      if (at + 1 < stages) st.send[std::size_t(at)] = n;
      if (at == stages - 1) {
        st.emitted += n;
        for (int r = 0; r < n; ++r) st.emitted_by.push_back(first_request + r), st.emitted_each.push_back(1);
        plan.tokens += n;
        ++emitted[std::size_t(j)];
      }
    }
    plan.steps.push_back(std::move(st));
  }
  return plan;
}

PipelinePlan plan_tree_iterations(const TreeIterations& it,
                                  const std::function<int(std::mt19937_64&, long long)>& accepted) {
  check_common(it.stages, it.tokens);
  if (it.requests < 1) throw models::InputError(fmt::format("--batch: {} requests (must be >= 1)", it.requests));
  const int m = it.stages;
  const int x = it.tree_tokens;
  const std::vector<int> size = micro_batches(m, it.requests);
  const int g = int(size.size());
  std::mt19937_64 rng(it.seed);
  PipelinePlan plan;
  plan.method = it.method;
  plan.stages = m;
  plan.requests = it.requests;
  plan.draft_on_last_stage = it.draft_on_last_stage;
  plan.hop_payload_factor = it.hop_payload_factor;
  std::vector<long long> position(std::size_t(it.requests), 0);  // tokens each request emitted
  long long tried = 0;
  auto done = [&] { return *std::min_element(position.begin(), position.end()) >= it.tokens + 1; };
  for (long long s = 0; !done(); ++s) {
    StepPlan st = empty_step(m);
    if (it.requests > 1) st.batch.assign(std::size_t(m), 0);
    int first_request = 0;
    for (int j = 0; j < g; first_request += size[std::size_t(j)], ++j) {
      if (s < j) continue;
      const int at = int((s - j) % m);
      const int n = size[std::size_t(j)];
      st.compute[std::size_t(at)] = n * x;
      if (!st.batch.empty()) st.batch[std::size_t(at)] = n;
      if (at == 0) {
        // The draft builds this micro-batch's trees, level by level, now that its tokens are known.
        st.first = FirstInput::draft_now;
        st.draft_passes = it.passes;
        st.draft_batch = n;
        st.level_tokens = n * x;
      }
      if (at + 1 < m) st.send[std::size_t(at)] = n * x;
      if (at == m - 1) {
        st.verify = st.prune = true;
        for (int r = first_request; r < first_request + n; ++r) {
          const int a = accepted(rng, position[std::size_t(r)]);
          st.emitted += a + 1;
          st.emitted_by.push_back(r);
          st.emitted_each.push_back(a + 1);
          st.hit = a == it.depth;
          ++plan.checks;
          plan.hits += a;  // accepted draft tokens (see the per-depth rate below)
          plan.tokens += a + 1;
          tried += std::min(a + 1, it.depth);
          position[std::size_t(r)] += a + 1;
        }
      }
    }
    plan.steps.push_back(std::move(st));
  }
  // The "hit rate" of a static tree is its per-depth acceptance: accepted / draft depths tried.
  plan.checks = tried;
  return plan;
}

PipelinePlan plan_static_tree(int stages, const std::vector<int>& branching, long long tokens, const RankModel& ranks,
                              std::uint64_t seed, int requests) {
  check_common(stages, tokens);
  if (branching.empty()) throw models::InputError("static tree: no levels");
  std::vector<int> level_nodes;  // nodes per level below the root
  int nodes = 1;
  for (int b : branching) {
    if (b < 1) throw models::InputError(fmt::format("static tree: branching {} (must be >= 1)", b));
    if (b > ranks.max_k()) throw models::InputError(fmt::format("static tree: branching {} exceeds {} candidates", b, ranks.max_k()));
    nodes *= b;
    level_nodes.push_back(nodes);
  }
  TreeIterations it;
  it.method = "static-tree";
  it.stages = stages;
  it.requests = requests;
  it.tree_tokens = 1 + [&] { int s = 0; for (int n : level_nodes) s += n; return s; }();
  // The first iteration's tree has the prompt's last token as its root; later trees are rooted at
  // the bonus token of the previous iteration. The draft extends the tree one level per pass.
  it.passes = {1};
  for (std::size_t d = 0; d + 1 < level_nodes.size(); ++d) it.passes.push_back(level_nodes[d]);
  it.depth = int(branching.size());
  it.tokens = tokens;
  it.seed = seed;
  // Accepted depth: the target's token at depth d must rank within the branching b_d.
  return plan_tree_iterations(it, [&](std::mt19937_64& rng, long long position) {
    int a = 0;
    for (int b : branching) {
      if (ranks.draw(rng, position + a + 1) > b) break;
      ++a;
    }
    return a;
  });
}

double static_tree_aat(const std::vector<int>& branching, const HitCurve& curve) {
  double aat = 1, prod = 1;
  for (int b : branching) {
    prod *= curve(b);
    aat += prod;
  }
  return aat;
}

}  // namespace search::specpipe
