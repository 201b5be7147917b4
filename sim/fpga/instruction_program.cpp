#include "sim/fpga/instruction_program.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

namespace sim {

const char* to_string(Unit u) {
  switch (u) {
    case Unit::memory: return "memory";
    case Unit::matrix: return "matrix";
    case Unit::sfu: return "sfu";
    case Unit::store: return "store";
  }
  return "?";
}

Instruction Program::at(std::size_t i) const {
  const Source s = source(i);
  Instruction in = instructions[s.index];
  if (!compact()) return in;
  Dependencies shifted;
  for (int d : in.deps)
    if (const long long j = dependency_index(d, s); j >= 0) shifted.add(int(j));
  in.deps = shifted;
  in.layer += int(s.copy);
  return in;
}

Program Program::expanded() const {
  if (!compact()) return *this;
  Program full;
  full.op_names = op_names;
  full.layers = layers;
  const std::size_t n = size();
  full.instructions.reserve(n);
  for (std::size_t i = 0; i < n; ++i) full.instructions.push_back(at(i));
  return full;
}

UnitQueues::UnitQueues(const Program& p) {
  // A compact program's cached divisor must match its period (only the builder makes them).
  if (p.compact() && (p.materialised_layers != 1 || p.period_start != 0 || p.period.divisor() != p.period_size() ||
                      p.instructions.empty()))
    throw std::logic_error("compact program that is not one template layer");
  slots_.resize(p.instructions.size());
  InstructionQueue* queues[dma_queue_count + 2] = {&dma[0], &dma[1], &dma[2], &dma[3], &matrix, &sfu};
  std::array<std::size_t, dma_queue_count + 2> sizes{};
  for (const Instruction& in : p.instructions) ++sizes[std::size_t(queue_index(in))];
  for (std::size_t k = 0; k < sizes.size(); ++k) queues[k]->listed_.reserve(sizes[k]);
  for (std::size_t i = 0; i < p.instructions.size(); ++i) {
    const Instruction& in = p.instructions[i];
    for (int d : in.deps)
      if ((d < 0 && !p.compact()) || (d >= 0 && std::size_t(d) >= i))
        throw std::logic_error("instruction depends on a later one");
    if (in.cycles < 1) throw std::logic_error("instruction shorter than one cycle");
    InstructionQueue& q = *queues[queue_index(in)];
    slots_[i] = {int(q.listed_.size()), std::int8_t(queue_index(in)), std::int8_t(in.unit)};
    q.listed_.push_back(int(i));
    if (p.compact() && i >= p.period_start) ++q.per_copy_;
  }
  if (p.compact())
    for (InstructionQueue* q : queues) {
      q->copies_ = std::size_t(p.layers - p.materialised_layers);
      q->shift_ = p.period_size();
      q->per_copy_divisor_ = FastDivisor(q->per_copy_);
    }
}

LayerStructure analyse_layers(const Program& p) {
  LayerStructure s;
  const std::size_t n = p.size();
  if (p.layers < 2 || n % std::size_t(p.layers) != 0) return s;
  const std::size_t per = n / std::size_t(p.layers);
  s.instructions_per_layer = int(per);
  for (std::size_t i = 0; i < per; ++i) ++s.per_layer_in_queue[std::size_t(queue_index(p.instructions[i]))];
  if (p.compact()) {
    // One template layer (Program): layer l drops the template's dependencies d < -l * per.
    // The first layer that keeps the most negative one keeps them all (complete_from); it is not
    // a copy of its predecessor, every later layer is.
    if (p.period_size() != per) return s;
    long long most_negative = 0;
    for (const Instruction& in : p.instructions)
      for (int d : in.deps) most_negative = std::min(most_negative, (long long)d);
    s.uniform = true;
    const long long complete = (-most_negative + (long long)per - 1) / (long long)per;  // ceil
    s.complete_from = int(std::min<long long>(complete, p.layers));
    const long long from = most_negative < 0 ? complete + 1 : 1;
    s.copies_from = from < p.layers ? int(from) : -1;
    return s;
  }
  auto same_work = [&](const Instruction& a, const Instruction& b) {
    return a.unit == b.unit && a.queue == b.queue && a.cycles == b.cycles && a.op == b.op;
  };
  for (std::size_t i = per; i < n; ++i)
    if (!same_work(p.instructions[i], p.instructions[i - per]) || p.instructions[i].layer != int(i / per)) return s;
  s.uniform = true;
  auto shifted_deps = [&](std::size_t i) {
    const Dependencies& a = p.instructions[i].deps;
    const Dependencies& b = p.instructions[i - per].deps;
    if (a.end() - a.begin() != b.end() - b.begin()) return false;
    for (const int *x = a.begin(), *y = b.begin(); x != a.end(); ++x, ++y)
      if (std::size_t(*x) != std::size_t(*y) + per) return false;
    return true;
  };
  // Scan back from the last layer to the first that is not a copy of its predecessor.
  int from = p.layers;
  for (int l = p.layers - 1; l >= 1; --l) {
    bool copy = true;
    for (std::size_t i = std::size_t(l) * per; copy && i < std::size_t(l + 1) * per; ++i) copy = shifted_deps(i);
    if (!copy) break;
    from = l;
  }
  s.copies_from = from < p.layers ? from : -1;
  return s;
}

RepeatingRuns analyse_repeating_runs(const Program& p) {
  RepeatingRuns r;
  const std::vector<Instruction>& in = p.instructions;
  const int n = int(in.size());
  r.run_of.assign(std::size_t(n), -1);
  // The stride of each instruction: the previous one's first (inside a run it nearly always
  // holds), else the smallest that does.
  int begin = 0, stride = 0;
  auto close = [&](int end) {
    if (stride > 0 && end - begin >= RepeatingRuns::min_strides * stride) {
      for (int j = begin; j < end; ++j) r.run_of[std::size_t(j)] = int(r.runs.size());
      r.runs.push_back({begin, end, stride});
    }
  };
  for (int j = 0; j < n; ++j) {
    int s = 0;
    if (stride > 0 && j >= stride && repeats_shifted(in[std::size_t(j)], in[std::size_t(j - stride)], stride)) {
      s = stride;
    } else {
      for (int t = 1; t <= RepeatingRuns::max_stride && t <= j; ++t)
        if (repeats_shifted(in[std::size_t(j)], in[std::size_t(j - t)], t)) {
          s = t;
          break;
        }
    }
    if (s != stride) {
      close(j);
      begin = j;
      stride = s;
    }
  }
  close(n);
  return r;
}

std::vector<long long> Schedule::layer_finish(const Program& p) const {
  if (p.compact()) throw std::logic_error("layer_finish needs the expanded program");
  std::vector<long long> f(std::size_t(p.layers), 0);
  for (std::size_t i = 0; i < p.instructions.size(); ++i)
    f[std::size_t(p.instructions[i].layer)] = std::max(f[std::size_t(p.instructions[i].layer)], finish[i]);
  return f;
}

Schedule schedule_directly(const Program& compact_or_full) {
  const Program p = compact_or_full.expanded();
  const UnitQueues q(p);
  const std::size_t n = p.instructions.size();
  constexpr long long unset = std::numeric_limits<long long>::max();
  Schedule s;
  s.start.assign(n, unset);
  s.finish.assign(n, unset);
  auto ready = [&](int i, long long t) {
    for (int d : p.instructions[i].deps)
      if (s.finish[d] > t) return false;
    return true;
  };
  std::size_t head_matrix = 0, head_sfu = 0, head_dma[dma_queue_count] = {};
  long long free_matrix = 0, free_sfu = 0, free_memory = 0, free_store = 0;
  std::size_t issued = 0;
  long long t = 0;
  auto issue = [&](int i, long long& unit_free) {
    s.start[i] = t;
    s.finish[i] = t + p.instructions[i].cycles;
    unit_free = s.finish[i];
    ++issued;
  };
  while (issued < n) {
    if (free_matrix <= t && head_matrix < q.matrix.size() && ready(q.matrix[head_matrix], t))
      issue(q.matrix[head_matrix++], free_matrix);
    if (free_sfu <= t && head_sfu < q.sfu.size() && ready(q.sfu[head_sfu], t))
      issue(q.sfu[head_sfu++], free_sfu);
    const std::size_t store = std::size_t(DmaQueue::store);
    if (free_store <= t && head_dma[store] < q.dma[store].size() && ready(q.dma[store][head_dma[store]], t))
      issue(q.dma[store][head_dma[store]++], free_store);
    if (free_memory <= t) {
      int pick = -1;
      for (int k = 0; k < load_queue_count; ++k)
        if (head_dma[k] < q.dma[k].size()) {
          const int i = q.dma[k][head_dma[k]];
          if (ready(i, t) && (pick < 0 || i < q.dma[pick][head_dma[pick]])) pick = k;
        }
      if (pick >= 0) issue(q.dma[pick][head_dma[pick]++], free_memory);
    }
    // Next event: the earliest unit to become free after t.
    long long next = unset;
    for (long long f : {free_matrix, free_sfu, free_memory, free_store})
      if (f > t) next = std::min(next, f);
    if (next == unset) {
      if (issued < n) throw std::logic_error("instruction program deadlocked");
      break;
    }
    t = next;
  }
  for (long long f : s.finish) s.total_cycles = std::max(s.total_cycles, f);
  return s;
}

}  // namespace sim
