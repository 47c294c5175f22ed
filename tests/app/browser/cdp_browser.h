// A headless Chromium driven over the DevTools protocol, for tests of the
// HTML reports. The browser is started with --remote-debugging-pipe: the
// protocol's JSON messages go through two pipes (the browser reads fd 3 and
// writes fd 4), each message ending in a NUL byte, so no network and no
// WebSocket code is needed.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace browser {

class cdp_browser {
 public:
  // Starts `exe` headless; throws std::runtime_error when it cannot.
  explicit cdp_browser(const std::string& exe, const std::string& profile_dir);
  ~cdp_browser();
  cdp_browser(const cdp_browser&) = delete;
  cdp_browser& operator=(const cdp_browser&) = delete;

  // Opens `url` in a new page and waits for its load event.
  void open(const std::string& url);
  // Runs `expression` in the page; its value (returnByValue).
  nlohmann::json evaluate(const std::string& expression);
  // Moves the mouse to (x, y), CSS pixels of the viewport.
  void hover(double x, double y);
  // A PNG of the whole page, or of `height` CSS pixels of it from `top`.
  std::string screenshot_png(double height = 0, double top = 0);
  // Errors the page reported: uncaught exceptions, console.error, log
  // entries of level error.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  nlohmann::json call(const std::string& method, const nlohmann::json& params,
                      bool on_page = true);
  nlohmann::json read_message();
  void note_event(const nlohmann::json& m);

  pid_t pid_ = -1;
  int to_browser_ = -1, from_browser_ = -1;
  int next_id_ = 1;
  std::string session_;
  std::string buffer_;
  bool loaded_ = false;
  std::vector<std::string> errors_;
  std::chrono::seconds timeout_{60};
};

// Chromium's executable (PCCX_CHROMIUM, else chromium or chromium-browser
// on the PATH), or "" when there is none.
std::string find_chromium();

std::string base64_decode(const std::string& in);

}  // namespace browser
