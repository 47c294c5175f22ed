#include "cdp_browser.h"

#include "e2e_util.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace browser {

using nlohmann::json;

std::string find_chromium() {
  if (const char* env = std::getenv("PCCX_CHROMIUM"); env && *env) return env;
  for (const char* name : {"chromium", "chromium-browser"})
    if (const std::string exe = e2e::find_in_path(name); !exe.empty()) return exe;
  return "";
}

cdp_browser::cdp_browser(const std::string& exe, const std::string& profile_dir) {
  int in[2], out[2];  // in: we write, the browser reads (its fd 3); out: the reverse (fd 4)
  if (pipe(in) != 0 || pipe(out) != 0) throw std::runtime_error("cannot create pipes");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("cannot fork");
  if (pid_ == 0) {
    dup2(in[0], 3);
    dup2(out[1], 4);
    for (int fd : {in[0], in[1], out[0], out[1]})
      if (fd > 4) close(fd);
    const int devnull = ::open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    const std::string profile = "--user-data-dir=" + profile_dir;
    execl(exe.c_str(), exe.c_str(), "--headless=new", "--no-sandbox", "--disable-gpu",
          "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
          "--disable-extensions", "--disable-dev-shm-usage", "--window-size=1200,900",
          "--hide-scrollbars", profile.c_str(), "about:blank", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_browser_ = in[1];
  from_browser_ = out[0];
  signal(SIGPIPE, SIG_IGN);
  const json target = call("Target.createTarget", {{"url", "about:blank"}}, false);
  const json attached = call("Target.attachToTarget",
                             {{"targetId", target.at("targetId")}, {"flatten", true}}, false);
  session_ = attached.at("sessionId").get<std::string>();
  call("Runtime.enable", json::object());
  call("Page.enable", json::object());
  call("Log.enable", json::object());
}

cdp_browser::~cdp_browser() {
  if (to_browser_ >= 0) {
    const std::string msg = json{{"id", next_id_++}, {"method", "Browser.close"}}.dump();
    (void)!write(to_browser_, msg.c_str(), msg.size() + 1);
    close(to_browser_);
  }
  if (from_browser_ >= 0) close(from_browser_);
  if (pid_ > 0) {
    for (int i = 0; i < 50; ++i) {  // up to 5 s to close, then kill
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      usleep(100000);
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

json cdp_browser::read_message() {
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  for (;;) {
    const std::size_t nul = buffer_.find('\0');
    if (nul != std::string::npos) {
      const std::string text = buffer_.substr(0, nul);
      buffer_.erase(0, nul + 1);
      return json::parse(text);
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("the browser did not answer in time");
    pollfd p{from_browser_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(from_browser_, chunk, sizeof chunk);
    if (n <= 0) throw std::runtime_error("the browser closed its pipe (did it start?)");
    buffer_.append(chunk, static_cast<std::size_t>(n));
  }
}

void cdp_browser::note_event(const json& m) {
  const std::string method = m.value("method", "");
  const json& p = m.contains("params") ? m["params"] : json::object();
  if (method == "Page.loadEventFired") loaded_ = true;
  if (method == "Runtime.exceptionThrown")
    errors_.push_back("exception: " + p["exceptionDetails"].dump());
  if (method == "Runtime.consoleAPICalled" && p.value("type", "") == "error")
    errors_.push_back("console.error: " + p["args"].dump());
  if (method == "Log.entryAdded" && p["entry"].value("level", "") == "error")
    errors_.push_back("log: " + p["entry"].value("text", "") + " " + p["entry"].value("url", ""));
}

json cdp_browser::call(const std::string& method, const json& params, bool on_page) {
  const int id = next_id_++;
  json msg = {{"id", id}, {"method", method}, {"params", params}};
  if (on_page) msg["sessionId"] = session_;
  const std::string text = msg.dump();
  if (write(to_browser_, text.c_str(), text.size() + 1) != static_cast<ssize_t>(text.size() + 1))
    throw std::runtime_error("cannot write to the browser");
  for (;;) {
    const json m = read_message();
    if (m.contains("id") && m["id"] == id) {
      if (m.contains("error")) throw std::runtime_error(method + ": " + m["error"].dump());
      return m.value("result", json::object());
    }
    note_event(m);
  }
}

void cdp_browser::open(const std::string& url) {
  loaded_ = false;
  call("Page.navigate", {{"url", url}});
  while (!loaded_) note_event(read_message());
}

json cdp_browser::evaluate(const std::string& expression) {
  const json r = call("Runtime.evaluate",
                      {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}});
  if (r.contains("exceptionDetails"))
    throw std::runtime_error("evaluate failed: " + r["exceptionDetails"].dump());
  return r["result"].value("value", json());
}

void cdp_browser::hover(double x, double y) {
  call("Input.dispatchMouseEvent", {{"type", "mouseMoved"}, {"x", x}, {"y", y}});
}

std::string cdp_browser::screenshot_png(double height, double top) {
  json params = {{"format", "png"}, {"captureBeyondViewport", true}};
  if (height > 0)
    params["clip"] = {{"x", 0}, {"y", top}, {"width", 1200}, {"height", height}, {"scale", 1}};
  const json r = call("Page.captureScreenshot", params);
  return base64_decode(r.at("data").get<std::string>());
}

std::string base64_decode(const std::string& in) {
  static const std::string chars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned value = 0;
  int bits = -8;
  for (char c : in) {
    const auto at = chars.find(c);
    if (at == std::string::npos) continue;  // '=' and line breaks
    value = (value << 6) | static_cast<unsigned>(at);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((value >> bits) & 0xFF));
      bits -= 8;
    }
  }
  return out;
}

}  // namespace browser
