#include "sim/fpga/fpga_program_builder.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <initializer_list>
#include <limits>

#include "models/cycle_range.hpp"
#include "models/config_error.hpp"
#include "roofline/fpga_roofline.hpp"

#include <fmt/format.h>

// The largest instruction program one simulated step may allocate: far above any paper workload
// (an 8B step at 16K tokens is ~10^5 instructions, a few MB) and well inside a workstation.
constexpr double kMaxProgramBytes = 16.0 * (1ull << 30);

namespace sim {

using models::Op;
using models::OpKind;

long long dma_cycles(const models::FpgaSpec& f, double bytes, int channels, double efficiency) {
  if (bytes <= 0) return 0;
  const double bursts = std::ceil(bytes / f.burst_bytes);
  const double bursts_on_busiest = std::ceil(bursts / channels);
  const double channel_bytes_per_cycle = f.channel_bandwidth_gbs() * 1e9 / (f.clock_mhz * 1e6) * efficiency;
  return models::checked_cycles(bursts_on_busiest * f.burst_bytes / channel_bytes_per_cycle, "FPGA model: a DMA transfer");
}

namespace {

// Splits `total` cycles over `n` chunks so that they add up exactly (each at least 1 cycle):
// every chunk takes total / n cycles and the last total % n chunks one more. The extra cycles
// sit together at the end, not spread evenly, so that an op's chunks form two runs of identical
// instructions: the event-driven model's fast-forward (sim/fpga/accelerator/) skips repeating
// chunks inside such a run, which an even spread (a pattern as long as the op) ruled out.
long long share(long long total, int n, int c) {
  const long long base = total / n, extra = total % n;
  return std::max(1LL, base + (c >= n - extra ? 1 : 0));
}

// A ring of on-chip buffer slots: the load into a slot waits for the compute that consumed the
// chunk previously held there.
class SlotRing {
 public:
  explicit SlotRing(int slots) : slots_(std::max(2, slots)) {}
  // Dependency for the next load (-1 when a slot is still unused).
  int load_dependency() const {
    return consumers_.size() >= std::size_t(slots_) ? consumers_[consumers_.size() - slots_] : -1;
  }
  void consumed_by(int compute) { consumers_.push_back(compute); }
  int slots() const { return slots_; }
  const std::vector<int>& consumers() const { return consumers_; }
  // The part of the ring that decides future dependencies: the last `slots` consumers, as
  // offsets from `base` (a marker for slots not yet used).
  void append_state(std::vector<long long>& out, long long base) const {
    for (int k = slots_; k >= 1; --k)
      out.push_back(consumers_.size() >= std::size_t(k) ? consumers_[consumers_.size() - std::size_t(k)] - base
                                                         : std::numeric_limits<long long>::min());
  }

 private:
  int slots_;
  std::vector<int> consumers_;
};

class Builder {
 public:
  Builder(const models::FpgaSpec& f, int tokens)
      : f_(f), tokens_(tokens),
        weight_chunk_(f.weight_chunk_kib * 1024),
        kv_chunk_(f.kv_chunk_kib * 1024),
        weights_(int(f.weight_buffer_kib / f.weight_chunk_kib)),
        kv_(int(f.kv_buffer_kib / f.kv_chunk_kib)) {}

  Program build(const std::vector<Op>& ops, int layers, ProgramForm form, std::vector<Instruction>* recycled) {
    if (recycled) {
      p_.instructions = std::move(*recycled);
      p_.instructions.clear();
    }
    p_.layers = layers;
    // Reserve once: growing a vector of ~10^5 instructions page-faults its way through fresh
    // memory on every reallocation, which cost more than building the program.
    double per_layer = 1;
    for (const auto& op : ops)
      per_layer += 4 + 2 * std::ceil(op.weight_bytes / weight_chunk_) +
                   4 * std::ceil((op.kv_read_bytes * roofline::fpga_kv_read_factor(f_, op) + op.activation_load_bytes +
                                  op.activation_store_bytes) / kv_chunk_);
    // A step whose program would not fit this machine's memory (a context of ~10^12 tokens) is
    // refused before allocating: a failed multi-terabyte allocation is not a clean bad_alloc
    // under every allocator (AddressSanitizer aborts instead of throwing).
    const double program_bytes = per_layer * layers * double(sizeof(Instruction));
    if (!(program_bytes <= kMaxProgramBytes))
      models::throw_input_error("command line", "--context",
                                fmt::format("a step whose SystemC program fits this machine's memory ({:.0f} GiB "
                                            "at most; use --engine roofline for this context)",
                                            kMaxProgramBytes / double(1ull << 30)),
                                fmt::format("one needing {:.3g} GiB", program_bytes / double(1ull << 30)));
    p_.instructions.reserve(std::size_t(per_layer * (form == ProgramForm::full ? layers : 1)));
    for (const auto& op : ops) p_.op_names.push_back(op.name);
    if (form == ProgramForm::compact && layers > 1) {
      build_template(ops);
      return std::move(p_);
    }
    // A layer's instructions depend only on the builder's state at its start (the previous
    // compute and the buffer rings, relative to the layer's first instruction): once that
    // state repeats, every further layer is the previous one shifted, and is copied as such.
    std::vector<long long> previous_state, state;
    std::size_t previous_start = 0;
    for (layer_ = 0; layer_ < layers; ++layer_) {
      const std::size_t start = p_.instructions.size();
      state.clear();
      state.push_back(last_compute_ < 0 ? std::numeric_limits<long long>::min() : last_compute_ - (long long)start);
      weights_.append_state(state, (long long)start);
      kv_.append_state(state, (long long)start);
      if (layer_ > 0 && state == previous_state) {
        copy_previous_layers(start - previous_start, layers);
        break;
      }
      previous_state.swap(state);
      previous_start = start;
      add_layer(ops);
    }
    return std::move(p_);
  }

 private:
  // One layer: its overhead instruction, then its ops.
  void add_layer(const std::vector<Op>& ops) {
    add_memory(DmaQueue::weights, f_.layer_overhead_cycles, {}, -1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].kind == OpKind::attention_qk && i + 2 < ops.size() &&
          ops[i + 1].kind == OpKind::softmax && ops[i + 2].kind == OpKind::attention_pv) {
        attention(ops[i], ops[i + 1], ops[i + 2], int(i));
        i += 2;
      } else {
        plain_op(ops[i], int(i));
      }
    }
  }

  // The compact form (Program): one template layer whose buffer rings and previous compute hold
  // what K earlier layers left there. Every layer makes the same instructions, and a layer's
  // dependencies are the consumers of its ring slots and the previous compute, so layer l of
  // the full program is the template shifted by l layers with the dependencies that land before
  // instruction 0 dropped: ring consumer n of the full program (n = l * c + local - slots for a
  // ring with c consumers a layer) exists iff n >= 0, exactly when its shifted index is >= 0.
  // A first pass builds a layer on empty rings to learn its size and where its consumers sit;
  // the template is then built as layer K (its indices K layers on) on rings primed with K such
  // layers, enough to fill them, and shifted back by K layers.
  void build_template(const std::vector<Op>& ops) {
    Builder probe(f_, tokens_);
    probe.count_only_ = true;  // only the layer's size and where its computes sit are needed
    probe.add_layer(ops);
    const long long per = probe.added_;
    long long virtual_layers = 1;  // the previous compute lies in the layer before
    for (const SlotRing* ring : {&probe.weights_, &probe.kv_}) {
      const long long per_layer = (long long)ring->consumers().size();
      if (per_layer > 0) virtual_layers = std::max(virtual_layers, (ring->slots() + per_layer - 1) / per_layer);
    }
    const long long base = virtual_layers * per;
    if (base + per > std::numeric_limits<int>::max())
      throw std::logic_error("compact program template beyond int indices");
    for (long long l = 0; l < virtual_layers; ++l) {
      for (int c : probe.weights_.consumers()) weights_.consumed_by(int(l * per + c));
      for (int c : probe.kv_.consumers()) kv_.consumed_by(int(l * per + c));
    }
    last_compute_ = probe.last_compute_ < 0 ? -1 : int(base - per + probe.last_compute_);
    index_base_ = int(base);
    add_layer(ops);
    if ((long long)p_.instructions.size() != per ||
        (long long)weights_.consumers().size() != (virtual_layers + 1) * (long long)probe.weights_.consumers().size() ||
        (long long)kv_.consumers().size() != (virtual_layers + 1) * (long long)probe.kv_.consumers().size())
      throw std::logic_error("compact program: the template layer differs from a layer on empty rings");
    for (Instruction& in : p_.instructions) {
      Dependencies shifted;
      for (int d : in.deps) shifted.add_any(int(d - base));
      in.deps = shifted;
    }
    p_.materialised_layers = 1;
    p_.period_start = 0;
    p_.period = FastDivisor(p_.instructions.size());
  }

  // Layers layer_..layers-1 as copies of the layer before, `per` instructions each.
  void copy_previous_layers(std::size_t per, int layers) {
    for (; layer_ < layers; ++layer_) {
      const std::size_t start = p_.instructions.size();
      for (std::size_t i = start - per; i < start; ++i) {
        Instruction in = p_.instructions[i];
        Dependencies shifted;
        for (int d : in.deps) shifted.add(d + int(per));
        in.deps = shifted;
        in.layer = layer_;
        p_.instructions.push_back(in);
      }
    }
  }

  // `deps`: instruction indices, -1 for none (indices are >= 0 while building, build_template's
  // virtual layers included).
  int add(Unit u, DmaQueue q, long long cycles, std::initializer_list<int> deps, int op) {
    if (count_only_) return index_base_ + int(added_++);
    // Written field by field in place: a temporary Instruction assembled from narrow stores and
    // copied with wide loads stalled on store forwarding, most of the build time.
    Instruction& in = p_.instructions.emplace_back();
    in.unit = u;
    in.queue = q;
    in.cycles = std::max(1LL, cycles);
    for (int d : deps)
      if (d >= 0) in.deps.add_any(d);
    in.op = op;
    in.layer = layer_;
    return index_base_ + int(p_.instructions.size()) - 1;
  }
  int add_memory(DmaQueue q, long long cycles, std::initializer_list<int> deps, int op) {
    return add(Unit::memory, q, cycles, deps, op);
  }

  // A load into the next slot of `ring` (the weight ring, or the activation ring for
  // activations and the KV cache) over that tensor class's channel group; `after` is an extra
  // dependency (a load of scores waits for their store, and goes to the scores queue).
  int load(SlotRing& ring, double bytes, bool activations, int op, int after = -1) {
    const models::FpgaChannelGroup& g = activations ? f_.activation_loads : f_.weights;
    const DmaQueue q = !activations ? DmaQueue::weights : after >= 0 ? DmaQueue::scores : DmaQueue::kv;
    return add_memory(q, transfer_cycles(bytes, g, activations ? 1 : 0), {ring.load_dependency(), after}, op);
  }
  int store(double bytes, int after, int op) {
    if (bytes <= 0) return -1;
    return add(Unit::store, DmaQueue::store, transfer_cycles(bytes, f_.stores, 2), {after}, op);
  }
  // dma_cycles with the last answer kept per channel group (0 weights, 1 activation loads,
  // 2 stores): an op's full chunks all move the same bytes.
  long long transfer_cycles(double bytes, const models::FpgaChannelGroup& g, int group) {
    LastTransfer& last = last_transfer_[std::size_t(group)];
    if (last.cycles < 0 || last.bytes != bytes) {
      last.bytes = bytes;
      last.cycles = dma_cycles(f_, bytes, g.channels, g.efficiency);
    }
    return last.cycles;
  }
  struct LastTransfer {
    double bytes = 0;
    long long cycles = -1;
  };
  std::array<LastTransfer, 3> last_transfer_{};

  // A projection, norm or elementwise op: its activation inputs and its weights stream in chunk
  // by chunk (compute chunk c waits for weight chunk c and activation chunk c), then its
  // outputs (and new K/V) leave through the store port.
  void plain_op(const Op& op, int index) {
    const roofline::FpgaOpWork w = roofline::fpga_op_work(f_, op, tokens_);
    const bool on_sfu = w.sfu_cycles > 0 && w.matrix_cycles == 0;
    const Unit unit = on_sfu ? Unit::sfu : Unit::matrix;
    const long long compute = models::checked_cycles(on_sfu ? w.sfu_cycles : w.matrix_cycles, "FPGA model: op " + op.name);
    const double weights = w.weight_bytes, inputs = w.load_bytes;
    const int weight_chunks = int(std::ceil(weights / weight_chunk_));
    const int input_chunks = int(std::ceil(inputs / kv_chunk_));
    const int chunks = std::max({1, weight_chunks, input_chunks});
    for (int c = 0; c < chunks; ++c) {
      const bool weight_load = c < weight_chunks, input_load = c < input_chunks;
      const int weight = weight_load ? load(weights_, std::min(weight_chunk_, weights - c * weight_chunk_), false, index) : -1;
      const int input = input_load ? load(kv_, std::min(kv_chunk_, inputs - c * kv_chunk_), true, index) : -1;
      last_compute_ = add(unit, DmaQueue::weights, share(compute, chunks, c), {last_compute_, weight, input}, index);
      if (weight_load) weights_.consumed_by(last_compute_);
      if (input_load) kv_.consumed_by(last_compute_);
    }
    store(w.store_bytes, last_compute_, index);
  }

  // QK^T -> softmax -> PV over KV chunks, software-pipelined: QK of chunk c + 1 is issued
  // before PV of chunk c, so the SFU's softmax of chunk c overlaps with matrix work. QK^T loads
  // Q and the step's own K with its first chunk and stores each chunk's scores; the softmax
  // normalises them as they are loaded back (after their store), and PV takes them with its V
  // chunk (V, like K, is prefetched through the ring) and stores the attention output at the end.
  void attention(const Op& qk, const Op& softmax, const Op& pv, int index) {
    const roofline::FpgaOpWork wq = roofline::fpga_op_work(f_, qk, tokens_);
    const roofline::FpgaOpWork ws = roofline::fpga_op_work(f_, softmax, tokens_);
    const roofline::FpgaOpWork wp = roofline::fpga_op_work(f_, pv, tokens_);
    const double k_bytes = wq.kv_read_bytes, v_bytes = wp.kv_read_bytes;
    const double scores = qk.activation_store_bytes;  // = PV's score loads
    const double fresh_v = pv.activation_load_bytes - scores;
    const int chunks = std::max(1, int(std::ceil(std::max({k_bytes, v_bytes, scores}) / kv_chunk_)));
    std::vector<int> softmax_ids;
    int previous = last_compute_;
    // A load through the activation ring of `bytes` (none if empty), consumed by the compute
    // instruction the caller adds next.
    auto ring_load = [&](double bytes, int op, int after = -1) { return bytes > 0 ? load(kv_, bytes, true, op, after) : -1; };
    auto issue_qk = [&](int c) {
      const int k_load = ring_load(k_bytes / chunks + (c == 0 ? qk.activation_load_bytes : 0), index);
      previous = add(Unit::matrix, DmaQueue::weights, share(models::checked_cycles(wq.matrix_cycles, "FPGA model: attention"), chunks, c),
                     {previous, k_load}, index);
      if (k_load >= 0) kv_.consumed_by(previous);
      const int stored = store(scores / chunks, previous, index);
      const int score_load = ring_load(scores / chunks, index + 2, stored);  // PV's input (its breakdown row)
      softmax_ids.push_back(add(Unit::sfu, DmaQueue::weights, share(models::checked_cycles(ws.sfu_cycles, "FPGA model: softmax"), chunks, c),
                                {score_load >= 0 ? score_load : previous}, index + 1));
      if (score_load >= 0) kv_.consumed_by(softmax_ids.back());
    };
    // QK^T runs `lead` chunks ahead of PV: the scores' round trip through off-chip memory
    // (store, then load) hides behind the QK^T chunks in between.
    constexpr int lead = 2;
    for (int c = 0; c < std::min(lead, chunks); ++c) issue_qk(c);
    for (int c = 0; c < chunks; ++c) {
      if (c + lead < chunks) issue_qk(c + lead);
      const int v_load = ring_load(v_bytes / chunks + (c == 0 ? fresh_v : 0), index + 2);
      previous = add(Unit::matrix, DmaQueue::weights, share(models::checked_cycles(wp.matrix_cycles, "FPGA model: attention"), chunks, c),
                     {softmax_ids[std::size_t(c)], previous, v_load}, index + 2);
      if (v_load >= 0) kv_.consumed_by(previous);
    }
    last_compute_ = previous;
    store(wp.store_bytes, last_compute_, index + 2);
  }

  const models::FpgaSpec& f_;
  int tokens_;
  double weight_chunk_, kv_chunk_;
  SlotRing weights_, kv_;
  Program p_;
  int layer_ = 0;
  int last_compute_ = -1;
  int index_base_ = 0;  // index of p_'s first instruction (build_template's virtual layers)
  long long added_ = 0;  // instructions counted when count_only_ (none stored)
  bool count_only_ = false;
};

}  // namespace

Program build_fpga_program(const models::FpgaSpec& f, const std::vector<Op>& ops, int tokens, int layers,
                           ProgramForm form, std::vector<Instruction>* recycled) {
  return Builder(f, tokens).build(ops, layers, form, recycled);
}

}  // namespace sim
