#include "sim/fpga_program_builder.hpp"

#include <algorithm>
#include <cmath>

#include "roofline/fpga_roofline.hpp"

namespace sim {

using models::Op;
using models::OpKind;

long long dma_cycles(const models::FpgaSpec& f, double bytes, int channels, double efficiency) {
  if (bytes <= 0) return 0;
  const double bursts = std::ceil(bytes / f.burst_bytes);
  const double bursts_on_busiest = std::ceil(bursts / channels);
  const double channel_bytes_per_cycle = f.channel_bandwidth_gbs() * 1e9 / (f.clock_mhz * 1e6) * efficiency;
  return static_cast<long long>(std::ceil(bursts_on_busiest * f.burst_bytes / channel_bytes_per_cycle));
}

namespace {

// Splits `total` cycles over `n` chunks so that they add up exactly.
long long share(long long total, int n, int c) {
  return total * (c + 1) / n - total * c / n;
}

class Builder {
 public:
  Builder(const models::FpgaSpec& f, int tokens) : f_(f), tokens_(tokens) {
    weight_chunk_ = f.weight_buffer_kib * 1024 / 2;
    kv_chunk_ = f.activation_buffer_kib * 1024 / 2;
  }

  Program build(const std::vector<Op>& ops) {
    sync_ = add(Unit::sync, f_.layer_overhead_cycles, {}, -1);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      p_.op_names.push_back(ops[i].name);
      const Op& op = ops[i];
      const bool attention_qk = op.kind == OpKind::attention_qk;
      if (attention_qk && i + 2 < ops.size() && ops[i + 1].kind == OpKind::softmax &&
          ops[i + 2].kind == OpKind::attention_pv) {
        p_.op_names.push_back(ops[i + 1].name);
        p_.op_names.push_back(ops[i + 2].name);
        attention(ops[i], ops[i + 1], ops[i + 2], int(i));
        i += 2;
      } else {
        plain_op(op, int(i));
      }
    }
    return std::move(p_);
  }

 private:
  int add(Unit u, long long cycles, std::vector<int> deps, int op) {
    p_.instructions.push_back({u, cycles, std::move(deps), op});
    return int(p_.instructions.size()) - 1;
  }

  // Dependencies every op's first compute has: the previous op's last compute (or the SYNC).
  std::vector<int> after_previous() const {
    return {last_compute_ >= 0 ? last_compute_ : sync_};
  }

  // A LOAD into buffer slot (g mod 2): waits for the compute that last used the slot.
  int load(double bytes, bool kv, int op) {
    std::vector<int> deps{sync_};
    if (slot_users_.size() >= 2) deps.push_back(slot_users_[slot_users_.size() - 2]);
    const long long cycles = kv ? dma_cycles(f_, bytes, f_.kv_channels, f_.kv_access_efficiency)
                                : dma_cycles(f_, bytes, f_.channels, f_.weight_stream_efficiency);
    return add(Unit::load_dma, cycles, deps, op);
  }

  void plain_op(const Op& op, int index) {
    const roofline::FpgaOpWork w = roofline::fpga_op_work(f_, op, tokens_);
    const bool on_sfu = w.sfu_cycles > 0 && w.matrix_cycles == 0;
    const Unit unit = on_sfu ? Unit::sfu : Unit::matrix;
    const long long compute = static_cast<long long>(on_sfu ? w.sfu_cycles : w.matrix_cycles);
    const double streamed = op.weight_bytes + (w.kv_bytes - op.kv_write_bytes);
    const bool kv = op.weight_bytes == 0;
    const double chunk = kv ? kv_chunk_ : weight_chunk_;
    const int chunks = streamed > 0 ? int(std::ceil(streamed / chunk)) : 1;
    int last = -1;
    for (int c = 0; c < chunks; ++c) {
      std::vector<int> deps = c == 0 ? after_previous() : std::vector<int>{last};
      if (streamed > 0) {
        const double bytes = std::min(chunk, streamed - c * chunk);
        deps.push_back(load(bytes, kv, index));
      }
      last = add(unit, share(compute, chunks, c), deps, index);
      if (streamed > 0) slot_users_.push_back(last);
    }
    last_compute_ = last;
    if (op.kv_write_bytes > 0)
      add(Unit::store_dma, dma_cycles(f_, op.kv_write_bytes, f_.kv_channels, f_.kv_access_efficiency),
          {last}, index);
  }

  // QK^T -> softmax -> PV over KV chunks, software-pipelined: QK of chunk c + 1 is issued
  // before PV of chunk c so the SFU's softmax of chunk c overlaps with matrix work.
  void attention(const Op& qk, const Op& softmax, const Op& pv, int index) {
    const roofline::FpgaOpWork wq = roofline::fpga_op_work(f_, qk, tokens_);
    const roofline::FpgaOpWork ws = roofline::fpga_op_work(f_, softmax, tokens_);
    const roofline::FpgaOpWork wp = roofline::fpga_op_work(f_, pv, tokens_);
    const double k_bytes = wq.kv_bytes, v_bytes = wp.kv_bytes;
    const int chunks = std::max(1, int(std::ceil(std::max(k_bytes, v_bytes) / kv_chunk_)));
    std::vector<int> qk_ids, sm_ids;
    auto issue_qk = [&](int c) {
      std::vector<int> deps = c == 0 ? after_previous() : std::vector<int>{qk_ids.back()};
      if (k_bytes > 0) deps.push_back(load(k_bytes / chunks, true, index));
      qk_ids.push_back(add(Unit::matrix, share(static_cast<long long>(wq.matrix_cycles), chunks, c), deps, index));
      if (k_bytes > 0) slot_users_.push_back(qk_ids.back());
      sm_ids.push_back(add(Unit::sfu, share(static_cast<long long>(ws.sfu_cycles), chunks, c),
                           {qk_ids.back()}, index + 1));
    };
    int last_pv = -1;
    issue_qk(0);
    for (int c = 0; c < chunks; ++c) {
      if (c + 1 < chunks) issue_qk(c + 1);
      std::vector<int> deps{sm_ids[c]};
      if (last_pv >= 0) deps.push_back(last_pv);
      if (v_bytes > 0) deps.push_back(load(v_bytes / chunks, true, index + 2));
      last_pv = add(Unit::matrix, share(static_cast<long long>(wp.matrix_cycles), chunks, c), deps, index + 2);
      if (v_bytes > 0) slot_users_.push_back(last_pv);
    }
    last_compute_ = last_pv;
  }

  const models::FpgaSpec& f_;
  int tokens_;
  double weight_chunk_ = 0, kv_chunk_ = 0;
  Program p_;
  int sync_ = -1;
  int last_compute_ = -1;
  std::vector<int> slot_users_;  // compute instruction that consumed each loaded chunk
};

}  // namespace

Program build_fpga_program(const models::FpgaSpec& f, const std::vector<Op>& ops, int tokens) {
  return Builder(f, tokens).build(ops);
}

}  // namespace sim
