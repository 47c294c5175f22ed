#include "models/memory/ddr/dram/dram_scheduler.h"

#include <algorithm>
#include <cmath>

namespace pccx::mem {

dram_scheduler::dram_scheduler(const config::ddr_config& c)
    : config_(c),
      timing_(dram_timing::of(c)),
      rank_(timing_, address_map(c), c.page),
      costs_(dram_energy_costs::of(c.energy, c.organisation.devices, timing_)) {}

int64_t dram_scheduler::clocks(double ns) const {
  return static_cast<int64_t>(std::ceil(ns / timing_.tck_ns - 1e-9));
}

void dram_scheduler::account(ddr_port port, traffic_class cls, const dram_rank::access& a,
                             uint32_t bursts, bool write) {
  for (row_stats* s : {&ports_[static_cast<size_t>(port)], &classes_[static_cast<size_t>(cls)]}) {
    s->hits += a.row_hits;
    s->misses += a.row_misses;
    s->activates += a.row_misses;
    (write ? s->write_bursts : s->read_bursts) += bursts;
  }
}

dram_scheduler::read_result dram_scheduler::read(ddr_port port, traffic_class cls,
                                                 uint64_t offset, uint64_t bytes,
                                                 double earliest_ns) {
  const dram_rank::access a = rank_.serve(false, offset, bytes, clocks(earliest_ns));
  account(port, cls, a, bursts_of(offset, bytes), false);
  return {timing_.ns(static_cast<uint64_t>(a.data_start)),
          timing_.ns(static_cast<uint64_t>(a.data_end))};
}

uint32_t dram_scheduler::bursts_of(uint64_t offset, uint64_t bytes) const {
  return static_cast<uint32_t>(rank_.burst_of(offset + bytes + timing_.burst_bytes - 1) -
                               rank_.burst_of(offset));
}

size_t dram_scheduler::next_write(int64_t clock) const {
  const auto& wb = config_.write_buffer;
  if (wb.order == config::write_order::fcfs || pending_.front().overtaken >= wb.age_limit)
    return 0;
  for (size_t i = 0; i < pending_.size(); ++i)
    if (rank_.row_open(pending_[i].offset, clock)) return i;
  return 0;
}

double dram_scheduler::drain(double at_ns, uint32_t down_to) {
  double end = at_ns;
  if (pending_.empty()) return end;
  ++drains_;
  const int64_t at = clocks(at_ns);
  while (!pending_.empty() && pending_bursts_ > down_to) {
    const size_t i = next_write(at);
    const pending_write w = pending_[i];
    for (size_t j = 0; j < i; ++j) ++pending_[j].overtaken;
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    pending_bursts_ -= w.bursts;
    const dram_rank::access a = rank_.serve(true, w.offset, w.bytes, at);
    account(w.port, w.cls, a, w.bursts, true);
    end = std::max(end, timing_.ns(static_cast<uint64_t>(a.data_end)));
  }
  return end;
}

double dram_scheduler::write(ddr_port port, traffic_class cls, uint64_t offset, uint64_t bytes,
                             double arrival_ns) {
  const auto& wb = config_.write_buffer;
  const uint32_t bursts = bursts_of(offset, bytes);
  double accepted = arrival_ns;
  // A write larger than the buffer, or one that does not fit: make room.
  if (pending_bursts_ + bursts > wb.entries)
    accepted = std::max(accepted, drain(arrival_ns, bursts >= wb.entries ? 0 : wb.entries - bursts));
  pending_.push_back({port, cls, offset, bytes, bursts, 0});
  pending_bursts_ += bursts;
  if (pending_bursts_ >= wb.high_watermark) drain(accepted, wb.low_watermark);
  if (pending_bursts_ > wb.entries) accepted = std::max(accepted, drain(accepted, 0));
  return accepted;
}

void dram_scheduler::flush(double at_ns) { drain(at_ns, 0); }

void dram_scheduler::forget_before(double now_ns) {
  rank_.forget_before(static_cast<int64_t>(now_ns / timing_.tck_ns) - 1);
}

dram_energy dram_scheduler::energy(double until_ns) const {
  const int64_t until = std::max<int64_t>(clocks(until_ns), 0);
  return energy_of(costs_, rank_.commands(until), until, rank_.precharged_clocks(until));
}

dram_energy dram_scheduler::class_energy(traffic_class c, double until_ns) const {
  const row_stats& s = classes_[static_cast<size_t>(c)];
  const dram_energy all = energy(until_ns);
  uint64_t bursts = 0;
  for (const row_stats& k : classes_) bursts += k.read_bursts + k.write_bursts;
  const double share =
      bursts ? static_cast<double>(s.read_bursts + s.write_bursts) / static_cast<double>(bursts)
             : 0.0;
  dram_energy e;
  e.activate_j = costs_.activate_j * static_cast<double>(s.activates);
  e.read_j = costs_.read_burst_j * static_cast<double>(s.read_bursts);
  e.write_j = costs_.write_burst_j * static_cast<double>(s.write_bursts);
  e.refresh_j = all.refresh_j * share;
  e.background_j = all.background_j * share;
  return e;
}

nlohmann::ordered_json dram_scheduler::summary(double until_ns) const {
  const int64_t until = std::max<int64_t>(clocks(until_ns), 0);
  const dram_commands c = rank_.commands(until);
  const dram_time_breakdown& b = rank_.breakdown();
  const uint64_t refresh = c.refreshes * timing_.rfc;
  const uint64_t used = b.data + refresh + b.row_miss + b.activate + b.bank_group + b.turnaround;
  const uint64_t idle = static_cast<uint64_t>(until) > used ? static_cast<uint64_t>(until) - used : 0;
  nlohmann::ordered_json j;
  j["address_map"] = rank_.map().describe();
  j["page_policy"] = config::enum_name(config_.page);
  j["timing"] = to_json(timing_);
  const auto ns = [&](uint64_t clk) { return timing_.ns(clk); };
  j["time_ns"] = {{"elapsed", ns(static_cast<uint64_t>(until))},
                  {"data", ns(b.data)},
                  {"refresh", ns(refresh)},
                  {"row_miss", ns(b.row_miss)},
                  {"activate_limit", ns(b.activate)},
                  {"bank_group", ns(b.bank_group)},
                  {"turnaround", ns(b.turnaround)},
                  {"idle", ns(idle)}};
  j["commands"] = {{"activates", c.activates},     {"precharges", c.precharges},
                   {"read_bursts", c.read_bursts}, {"write_bursts", c.write_bursts},
                   {"refreshes", c.refreshes},     {"write_drains", drains_}};
  const auto rows = [](const row_stats& s) {
    nlohmann::ordered_json r;
    r["row_hits"] = s.hits;
    r["row_misses"] = s.misses;
    r["row_hit_rate"] = s.hit_rate();
    return r;
  };
  nlohmann::ordered_json per_port, per_class;
  for (size_t p = 0; p < kDdrPorts; ++p)
    if (ports_[p].hits + ports_[p].misses)
      per_port[ddr_port_name(static_cast<ddr_port>(p))] = rows(ports_[p]);
  for (size_t k = 0; k < kTrafficClasses; ++k)
    if (classes_[k].hits + classes_[k].misses) {
      auto r = rows(classes_[k]);
      r["energy_mj"] = class_energy(static_cast<traffic_class>(k), until_ns).total_j() * 1e3;
      per_class[traffic_class_name(static_cast<traffic_class>(k))] = r;
    }
  j["ports"] = per_port;
  j["classes"] = per_class;
  j["energy"] = to_json(energy(until_ns));
  return j;
}

}  // namespace pccx::mem
