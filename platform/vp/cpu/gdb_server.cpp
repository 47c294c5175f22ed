#include "platform/vp/cpu/gdb_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace pccx::vp {

namespace {

constexpr size_t kMaxPacket = 0x4000;

std::string to_hex(const uint8_t* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += digits[data[i] >> 4];
    s += digits[data[i] & 15];
  }
  return s;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool from_hex(const std::string& s, std::vector<uint8_t>& out) {
  if (s.size() % 2) return false;
  out.clear();
  for (size_t i = 0; i < s.size(); i += 2) {
    const int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<uint8_t>(hi << 4 | lo));
  }
  return true;
}

// A little-endian register value of `bytes` bytes as GDB sends it.
std::string le_hex(uint64_t v, size_t bytes) {
  uint8_t b[8];
  for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<uint8_t>(v >> (8 * i));
  return to_hex(b, bytes);
}

bool parse_number(const std::string& s, uint64_t& v) {
  if (s.empty() || s.size() > 16) return false;
  v = 0;
  for (char c : s) {
    const int d = hex_digit(c);
    if (d < 0) return false;
    v = v << 4 | static_cast<uint64_t>(d);
  }
  return true;
}

// "addr,len" (and the rest after ':' or ';' into `rest`).
bool parse_range(const std::string& s, uint64_t& addr, uint64_t& len, std::string* rest = nullptr) {
  const auto comma = s.find(',');
  if (comma == std::string::npos) return false;
  auto end = s.find_first_of(":;", comma);
  if (rest) *rest = end == std::string::npos ? "" : s.substr(end + 1);
  return parse_number(s.substr(0, comma), addr) &&
         parse_number(s.substr(comma + 1, end == std::string::npos ? std::string::npos
                                                                     : end - comma - 1),
                      len);
}

}  // namespace

gdb_server::gdb_server(uint16_t port) : port_(port) {
  listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener_ < 0) throw std::runtime_error("--gdb: cannot open a socket: " + std::string(strerror(errno)));
  const int one = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(listener_, 1) != 0) {
    const std::string why = strerror(errno);
    ::close(listener_);
    throw std::runtime_error("--gdb " + std::to_string(port) + ": cannot listen on localhost: " + why);
  }
}

gdb_server::~gdb_server() {
  if (client_ >= 0) ::close(client_);
  if (listener_ >= 0) ::close(listener_);
}

bool gdb_server::accept_client() {
  std::fprintf(stderr, "pccx-vp: waiting for GDB on localhost:%u (target remote :%u)\n", port_,
               port_);
  client_ = ::accept(listener_, nullptr, nullptr);
  if (client_ < 0) return false;
  const int one = 1;
  ::setsockopt(client_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return true;
}

bool gdb_server::read_packet(std::string& packet) {
  char c = 0;
  for (;;) {
    if (::recv(client_, &c, 1, 0) != 1) return false;
    if (c == '$') break;  // acks ('+', '-') and interrupts (0x03) outside packets
  }
  packet.clear();
  for (;;) {
    if (::recv(client_, &c, 1, 0) != 1) return false;
    if (c == '#') break;
    if (packet.size() > kMaxPacket) return false;
    packet += c;
  }
  char sum[2];
  if (::recv(client_, sum, 2, MSG_WAITALL) != 2) return false;
  if (!no_ack_) ::send(client_, "+", 1, MSG_NOSIGNAL);
  return true;
}

void gdb_server::send_packet(const std::string& data) {
  unsigned sum = 0;
  for (char c : data) sum += static_cast<unsigned char>(c);
  char tail[4];
  std::snprintf(tail, sizeof tail, "#%02x", sum & 0xff);
  const std::string frame = "$" + data + tail;
  ::send(client_, frame.data(), frame.size(), MSG_NOSIGNAL);
  if (!no_ack_) {
    char ack = 0;
    ::recv(client_, &ack, 1, 0);  // '+' (a '-' would ask again; TCP does not lose bytes)
  }
}

std::string gdb_server::stop_reply(const stop& s) const {
  char b[64];
  switch (s.what) {
    case stop::kind::exited: std::snprintf(b, sizeof b, "W%02x", s.exit_code & 0xff); return b;
    case stop::kind::watchpoint: {
      const char* kind = s.watch == gdb_target::watch_kind::write  ? "watch"
                         : s.watch == gdb_target::watch_kind::read ? "rwatch"
                                                                   : "awatch";
      std::snprintf(b, sizeof b, "T05%s:%llx;", kind,
                    static_cast<unsigned long long>(s.watch_address));
      return b;
    }
    case stop::kind::signal: break;
  }
  std::snprintf(b, sizeof b, "S%02x", s.signal & 0xff);
  return b;
}

std::string gdb_server::target_xml() const {
  std::string x =
      "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\"><target>"
      "<architecture>aarch64</architecture><feature name=\"org.gnu.gdb.aarch64.core\">";
  for (int i = 0; i <= 30; ++i) x += "<reg name=\"x" + std::to_string(i) + "\" bitsize=\"64\"/>";
  x += "<reg name=\"sp\" bitsize=\"64\" type=\"data_ptr\"/>"
       "<reg name=\"pc\" bitsize=\"64\" type=\"code_ptr\"/>"
       "<reg name=\"cpsr\" bitsize=\"32\"/></feature></target>";
  return x;
}

std::string gdb_server::handle(const std::string& p, gdb_target& t, const stop& last,
                               resume& go) {
  if (p.empty()) return "";
  const char cmd = p[0];
  const std::string arg = p.substr(1);
  uint64_t addr = 0, len = 0;
  switch (cmd) {
    case '?': return stop_reply(last);
    case 'g': {
      std::string r;
      for (unsigned n = 0; n <= 32; ++n) r += le_hex(t.read_register(n), 8);
      return r + le_hex(t.read_register(33), 4);
    }
    case 'G': {
      std::vector<uint8_t> b;
      if (!from_hex(arg, b) || b.size() < 33 * 8 + 4) return "E01";
      for (unsigned n = 0; n <= 33; ++n) {
        uint64_t v = 0;
        const size_t w = n == 33 ? 4 : 8;
        for (size_t i = 0; i < w; ++i) v |= uint64_t{b[n * 8 + i]} << (8 * i);
        t.write_register(n, v);
      }
      return "OK";
    }
    case 'p': {
      uint64_t n = 0;
      if (!parse_number(arg, n) || n > 33) return "E01";
      return le_hex(t.read_register(static_cast<unsigned>(n)), n == 33 ? 4 : 8);
    }
    case 'P': {
      const auto eq = arg.find('=');
      uint64_t n = 0;
      std::vector<uint8_t> b;
      if (eq == std::string::npos || !parse_number(arg.substr(0, eq), n) || n > 33 ||
          !from_hex(arg.substr(eq + 1), b) || b.empty() || b.size() > 8)
        return "E01";
      uint64_t v = 0;
      for (size_t i = 0; i < b.size(); ++i) v |= uint64_t{b[i]} << (8 * i);
      t.write_register(static_cast<unsigned>(n), v);
      return "OK";
    }
    case 'm': {
      if (!parse_range(arg, addr, len) || len > kMaxPacket / 2) return "E01";
      std::vector<uint8_t> b(len);
      if (!t.read_memory(addr, b.data(), b.size())) return "E14";
      return to_hex(b.data(), b.size());
    }
    case 'M': {
      std::string data;
      std::vector<uint8_t> b;
      if (!parse_range(arg, addr, len, &data) || !from_hex(data, b) || b.size() != len)
        return "E01";
      return t.write_memory(addr, b.data(), b.size()) ? "OK" : "E14";
    }
    case 'Z':
    case 'z': {
      const bool on = cmd == 'Z';
      if (arg.size() < 2 || arg[1] != ',') return "E01";
      const char type = arg[0];
      if (!parse_range(arg.substr(2), addr, len)) return "E01";
      if (type == '0' || type == '1') {
        t.set_breakpoint(addr, on);
        return "OK";
      }
      if (type < '2' || type > '4') return "";
      const auto kind = type == '2'   ? gdb_target::watch_kind::write
                        : type == '3' ? gdb_target::watch_kind::read
                                      : gdb_target::watch_kind::access;
      return t.set_watchpoint(addr, len, kind, on) ? "OK" : "E01";
    }
    case 'c':
    case 's':
      if (!arg.empty()) {
        if (!parse_number(arg, addr)) return "E01";
        t.write_register(32, addr);
      }
      go = cmd == 'c' ? resume::run : resume::step;
      return "";
    case 'D':
      go = resume::detached;
      return "OK";
    case 'k': go = resume::killed; return "";
    case 'H': return "OK";
    case 'T': return "OK";
    case 'q':
      if (p.rfind("qSupported", 0) == 0)
        return "PacketSize=" + std::to_string(kMaxPacket) +
               ";qXfer:features:read+;swbreak+;hwbreak+;QStartNoAckMode+";
      if (p == "qAttached") return "1";
      if (p == "qC") return "QC1";
      if (p == "qfThreadInfo") return "m1";
      if (p == "qsThreadInfo") return "l";
      if (p.rfind("qXfer:features:read:target.xml:", 0) == 0) {
        const std::string xml = target_xml();
        if (!parse_range(p.substr(32), addr, len)) return "E01";
        if (addr >= xml.size()) return "l";
        const std::string part = xml.substr(addr, len);
        return (addr + part.size() >= xml.size() ? "l" : "m") + part;
      }
      return "";
    case 'Q':
      if (p == "QStartNoAckMode") {
        send_packet("OK");
        no_ack_ = true;
        return "\x01";  // already answered
      }
      return "";
    default: return "";
  }
}

gdb_server::resume gdb_server::hold(const stop& s, gdb_target& target) {
  if (detached_) return resume::detached;
  if (client_ < 0) {
    if (!accept_client()) return resume::detached;
  } else {
    send_packet(stop_reply(s));
  }
  std::string packet;
  while (read_packet(packet)) {
    resume go = resume::run;
    bool resumes = false;
    if (!packet.empty() && (packet[0] == 'c' || packet[0] == 's' || packet[0] == 'D' ||
                            packet[0] == 'k'))
      resumes = true;
    const std::string reply = handle(packet, target, s, go);
    if (reply != "\x01" && !(resumes && reply.empty())) send_packet(reply);
    if (resumes && (reply.empty() || reply == "OK")) {
      if (go == resume::detached || go == resume::killed) {
        detached_ = true;
        ::close(client_);
        client_ = -1;
      }
      return go;
    }
  }
  // The debugger went away: the program runs on.
  detached_ = true;
  if (client_ >= 0) ::close(client_);
  client_ = -1;
  return resume::detached;
}

void gdb_server::exited(int code) {
  if (client_ < 0) return;
  stop s;
  s.what = stop::kind::exited;
  s.exit_code = code;
  send_packet(stop_reply(s));
  ::close(client_);
  client_ = -1;
}

}  // namespace pccx::vp
