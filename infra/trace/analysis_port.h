// A model's output for observers, in the manner of tlm_analysis_port: any
// number of subscribers, each called with every record in the order they
// subscribed, and none can replace another. A model writes only when
// connected(), so an unobserved port costs one test.
#pragma once

#include <functional>
#include <utility>
#include <vector>

namespace pccx::trace {

template <class Record>
class analysis_port {
 public:
  using subscriber = std::function<void(const Record&)>;

  void subscribe(subscriber s) { subscribers_.push_back(std::move(s)); }
  bool connected() const { return !subscribers_.empty(); }
  void write(const Record& r) const {
    for (const auto& s : subscribers_) s(r);
  }

 private:
  std::vector<subscriber> subscribers_;
};

}  // namespace pccx::trace
