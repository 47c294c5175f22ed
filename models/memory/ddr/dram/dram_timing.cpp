#include "models/memory/ddr/dram/dram_timing.h"

#include <cmath>
#include <sstream>

namespace pccx::mem {

uint32_t dram_timing::clocks(double ns, double tck_ns) {
  return static_cast<uint32_t>(std::ceil(ns / tck_ns - 1e-6));
}

dram_timing dram_timing::of(const config::ddr_config& c) {
  const auto& t = c.timing;
  dram_timing d;
  d.tck_ns = c.tck_ns();
  d.burst_bytes = c.burst_bytes();
  d.burst = c.burst_length / 2;
  d.cl = t.cl;
  d.cwl = t.cwl;
  d.ccd_s = t.tccd_s;
  d.ccd_l = t.tccd_l;
  const auto nck = [&](double ns) { return clocks(ns, d.tck_ns); };
  d.rcd = nck(t.trcd_ns);
  d.rp = nck(t.trp_ns);
  d.ras = nck(t.tras_ns);
  d.rc = nck(t.trc_ns);
  d.rrd_s = nck(t.trrd_s_ns);
  d.rrd_l = nck(t.trrd_l_ns);
  d.faw = nck(t.tfaw_ns);
  d.wtr_s = nck(t.twtr_s_ns);
  d.wtr_l = nck(t.twtr_l_ns);
  d.wr = nck(t.twr_ns);
  d.rtp = nck(t.trtp_ns);
  d.rfc = nck(t.trfc_ns);
  d.refi = nck(t.trefi_ns);
  return d;
}

std::string timing_problem(const config::ddr_config& c) {
  const auto& t = c.timing;
  std::ostringstream out;
  if (t.tras_ns > t.trc_ns) {
    out << "tras_ns " << t.tras_ns << " > trc_ns " << t.trc_ns
        << ": a row cannot stay open longer than the row cycle";
  } else if (t.trc_ns < t.tras_ns + t.trp_ns - 1e-9) {
    out << "trc_ns " << t.trc_ns << " < tras_ns + trp_ns = " << t.tras_ns + t.trp_ns
        << ": the row cycle holds an active and a precharge time";
  } else if (t.trfc_ns >= t.trefi_ns) {
    out << "trfc_ns " << t.trfc_ns << " >= trefi_ns " << t.trefi_ns
        << ": a refresh would never end before the next one is due";
  } else if (t.tfaw_ns < t.trrd_s_ns) {
    out << "tfaw_ns " << t.tfaw_ns << " < trrd_s_ns " << t.trrd_s_ns
        << ": four activates cannot fit in less than the spacing of two";
  } else {
    // Within one bank group nothing is faster than across groups.
    const struct {
      const char *same, *other;
      double l, s;
    } pairs[] = {{"tccd_l", "tccd_s", double(t.tccd_l), double(t.tccd_s)},
                 {"trrd_l_ns", "trrd_s_ns", t.trrd_l_ns, t.trrd_s_ns},
                 {"twtr_l_ns", "twtr_s_ns", t.twtr_l_ns, t.twtr_s_ns}};
    for (const auto& p : pairs)
      if (p.l < p.s) {
        out << p.same << " " << p.l << " < " << p.other << " " << p.s
            << ": the same bank group cannot be faster than different ones";
        break;
      }
  }
  return out.str();
}

nlohmann::ordered_json to_json(const dram_timing& t) {
  nlohmann::ordered_json j;
  j["tck_ns"] = t.tck_ns;
  j["burst_bytes"] = t.burst_bytes;
  j["nck"] = {{"burst", t.burst}, {"cl", t.cl},       {"cwl", t.cwl},     {"tccd_s", t.ccd_s},
              {"tccd_l", t.ccd_l}, {"trcd", t.rcd},   {"trp", t.rp},      {"tras", t.ras},
              {"trc", t.rc},       {"trrd_s", t.rrd_s}, {"trrd_l", t.rrd_l}, {"tfaw", t.faw},
              {"twtr_s", t.wtr_s}, {"twtr_l", t.wtr_l}, {"twr", t.wr},     {"trtp", t.rtp},
              {"trfc", t.rfc},     {"trefi", t.refi}};
  return j;
}

}  // namespace pccx::mem
