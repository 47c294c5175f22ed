// One rank of DDR4 as the controller drives it: per bank the open row and
// when it may next activate, be read or written and precharge; per bank
// group and for the rank the column and activate spacing (tCCD_S/L,
// tRRD_S/L, tFAW); the data bus and its read/write turnarounds; all-bank
// refresh windows. Time is in DRAM clocks (dram_timing), SystemC-free.
//
// Loosely timed, in closed form: serve() splits a transaction into blocks,
// the runs of consecutive addresses inside one row of one bank (the address
// map's block_bytes; the bank-group bits below it interleave inside a
// block), and costs each block from its burst count per bank group, never
// burst by burst. A block opens its rows (precharge, activate: tRP, tRCD,
// tRC, tRAS, tRRD, tFAW), then streams its bursts at the rate the bus and
// the bank groups allow: max(n x max(BL/2, tCCD_S), max over groups of
// (n_g - 1) x tCCD_L + BL/2) clocks for n bursts, n_g in group g.
//
// Requests are served in the order they arrive, but the data bus keeps its
// future reservations as intervals, so a request stamped earlier than one
// already served (a temporally decoupled initiator ran ahead) uses a gap
// before it instead of queueing behind it. Column spacing and turnarounds
// are kept to the data on both sides of the gap, activate spacing to the
// activates on both sides. Refresh windows sit at fixed multiples of tREFI:
// nothing issues in [k x tREFI, k x tREFI + tRFC) and every row is closed
// after one.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/memory/ddr/ddr_config.h"
#include "models/memory/ddr/dram/address_map.h"
#include "models/memory/ddr/dram/dram_timing.h"

namespace pccx::mem {

// Where the data bus's clocks went; `idle` is what the caller has left
// when it subtracts these from the elapsed time.
struct dram_time_breakdown {
  uint64_t data = 0;        // bursts on the bus: BL/2 clocks each
  uint64_t refresh = 0;     // refresh windows (tRFC each)
  uint64_t row_miss = 0;    // waiting for precharge and activate (tRP, tRCD, tRC, tRAS)
  uint64_t activate = 0;    // activates held back by tFAW or tRRD
  uint64_t bank_group = 0;  // bursts spaced by tCCD_L (or tCCD_S beyond BL/2)
  uint64_t turnaround = 0;  // read-to-write and write-to-read (tWTR) turnarounds
};

struct dram_commands {
  uint64_t activates = 0;
  uint64_t precharges = 0;
  uint64_t read_bursts = 0;
  uint64_t write_bursts = 0;
  uint64_t refreshes = 0;  // windows that have begun by the last served clock
};

class dram_rank {
 public:
  dram_rank(const dram_timing& timing, const address_map& map, config::page_policy policy);

  struct access {
    int64_t data_start = 0;  // clock of the first data beat
    int64_t data_end = 0;    // clock after the last
    uint32_t row_hits = 0;   // row visits (one per bank and block) that found the row open
    uint32_t row_misses = 0;
  };
  // `offset` and `bytes` within the rank; earliest: the clock the controller
  // has the request. bytes > 0.
  access serve(bool write, uint64_t offset, uint64_t bytes, int64_t earliest);

  // Whether the bank of `offset` has its row open at `clock` (not closed by
  // a refresh since its last data): the write queue's row-hit test.
  bool row_open(uint64_t offset, int64_t clock) const;

  // No request can arrive before `clock` any more: bus intervals that end
  // before it are dropped.
  void forget_before(int64_t clock);

  const dram_time_breakdown& breakdown() const { return breakdown_; }
  // Commands issued; refreshes counted up to `until` (refresh is periodic).
  dram_commands commands(int64_t until) const;
  // Clocks with no row open in any bank (precharge standby), up to `until`.
  int64_t precharged_clocks(int64_t until) const;
  int64_t refresh_start(int64_t k) const { return k * static_cast<int64_t>(t_.refi); }
  const dram_timing& timing() const { return t_; }
  // The burst holding byte `offset`: offset / burst bytes, as a shift (a
  // burst is a power of two bytes), not a division per transaction.
  uint64_t burst_of(uint64_t offset) const { return offset >> burst_shift_; }
  const address_map& map() const { return map_; }
  size_t bus_intervals() const { return bus_.size(); }

 private:
  static constexpr int64_t kNever = -(int64_t{1} << 50);
  static constexpr uint32_t kMaxGroups = 8;

  struct bank_state {
    int64_t open_row = -1;
    int64_t col_ready = kNever;  // first column command after the activate (tRCD)
    int64_t pre_ready = kNever;  // earliest precharge (tRAS, tRTP, tWR)
    int64_t act_ready = kNever;  // earliest activate (tRP after a precharge, tRC)
    int64_t last_use = kNever;   // clock of its last data, for refresh closing the row
  };
  struct activate_record {
    int64_t clock;
    uint32_t group;
  };
  // Data on the bus: a run of one direction. Data next to it keeps the
  // column spacing (tCCD_L to the same bank group, tCCD_S to another, less
  // the burst's own BL/2) or, in the other direction, the turnaround (read
  // to write: 2 idle clocks; write to read: tWTR_S/L + CL from the end of
  // the write data to read data). Both sides are checked, so data placed in
  // a gap keeps the rules against what follows it too.
  struct interval {
    int64_t start, end;
    bool write;
    uint32_t first_group;  // bank group of its first burst
    uint32_t last_group;   // and of its last
  };
  using group_counts = std::array<uint32_t, kMaxGroups>;

  access serve_block(bool write, uint32_t bank, uint32_t row, const group_counts& n,
                     uint32_t first_group, uint32_t last_group, int64_t earliest);
  int64_t activate(uint32_t group, bank_state& k, int64_t at, int64_t& held);
  // The first clock >= from at which an activate to `group` keeps tRRD_S/L
  // to every activate around it and no five activates within tFAW.
  int64_t activate_slot(int64_t from, uint32_t group) const;
  // The same placed after every activate so far (time order).
  int64_t activate_after_last(int64_t from, uint32_t group) const;
  using bus_iterator = std::vector<interval>::iterator;
  // First clock >= from at which [c, c + span) is free of bus reservations
  // and refresh windows, with the turnaround to the data on either side;
  // `after`: the first reservation ending after it (first_ending_after),
  // which the search has found on its way.
  struct slot {
    int64_t start;
    bus_iterator after;
  };
  slot free_slot(int64_t from, const interval& data);
  // Idle clocks the bus needs between data `a` and data `b` after it.
  int64_t clearance(const interval& a, const interval& b) const;
  bus_iterator first_ending_after(int64_t clock);
  int64_t refresh_window_end(int64_t clock) const;  // clock itself when outside a window
  // clock / tREFI x tREFI: where the refresh period holding `clock` starts
  // (clock >= 0). Most questions are about the period of the last one, so
  // that period is kept rather than divided for again.
  int64_t period_start(int64_t clock) const {
    if (clock >= period_start_ && clock < period_start_ + refi_) return period_start_;
    const int64_t start = clock / refi_ * refi_;
    if (clock >= 0) period_start_ = start;
    return start;
  }
  // Books iv; `after`: first_ending_after(iv.start).
  void reserve_bus(const interval& iv, bus_iterator after);
  // The latest end of a reservation or refresh window at or before clock;
  // `before`: the last reservation ending at or before it (or null).
  int64_t bus_end_before(int64_t clock, const interval* before) const;
  bool refreshed_between(int64_t a, int64_t b) const;
  int64_t first_refresh_end_after(int64_t clock) const;  // every row is closed then
  void note_all_closed(int64_t clock);

  dram_timing t_;
  unsigned burst_shift_ = 0;          // log2 of the burst bytes
  int64_t refi_;                      // tREFI in clocks
  mutable int64_t period_start_ = 0;  // period_start()'s last answer
  address_map map_;
  config::page_policy policy_;
  uint32_t groups_count_, banks_per_group_;
  // Bursts per block, and per period of the bank-group bits (at most a
  // block): serve() splits a block's bursts among the groups by them.
  uint64_t block_bursts_ = 1, group_period_ = 1;
  std::vector<bank_state> banks_;

  // Recent activates in time order: requests are placed out of order, so
  // the spacing rules look at the activates on both sides of a new one.
  std::vector<activate_record> acts_;
  int64_t last_data_end_ = 0;        // latest data end served
  std::vector<interval> bus_;        // future data-bus reservations, sorted, disjoint
  dram_time_breakdown breakdown_;
  int64_t attributed_until_ = kNever;  // bus idle time before this is attributed
  dram_commands commands_;
  // Precharge standby: open rows counted, and since when none is open.
  uint32_t open_rows_ = 0;
  int64_t closed_since_ = 0;
  int64_t precharged_ = 0;
};

}  // namespace pccx::mem
