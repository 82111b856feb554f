// --metrics=[ADDR:]PORT: an HTTP endpoint (cpp-httplib, on its own
// threads) whose GET /metrics returns the script's metrics while it runs.
//
// The text is made on the session's thread, never on the server's: the
// handler posts the request (an eventfd the session's loop watches) and
// waits for the answer, so the globals, the stack symbols and the
// interpreter (a probe prometheus body) are only ever touched by one
// thread.  The kernel's probes never wait for a scrape; the loop's
// ring-buffer drain waits for as long as one scrape takes to read the maps
// (tests/bench measures it).
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace stap {

class MetricsServer {
 public:
  MetricsServer();
  ~MetricsServer();  // stops the server; a scrape still waiting gets 503

  // Listens on host:port (port 0: any free one); false with `error`.
  bool start(const std::string& host, int port, std::string& error);
  int port() const { return port_; }
  // Readable when a scrape waits for its text: the session then calls
  // serve() with it.
  int wake_fd() const { return wake_fd_; }
  void serve(const std::function<std::string()>& make_text);
  void stop();

 private:
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int wake_fd_ = -1;
  int port_ = 0;
  std::mutex lock_;
  std::condition_variable answered_;
  uint64_t asked_ = 0, done_ = 0;  // scrapes asked for, and answered
  std::string text_;               // the latest answer
  bool stopping_ = false;
};

// "[ADDR:]PORT" (ADDR a host name, an IPv4 address or [IPv6]; loopback
// when absent) into host and port; false when it does not parse.
bool parse_listen_address(const std::string& spec, std::string& host, int& port);

}  // namespace stap
