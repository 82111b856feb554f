#include "loader/output/metrics_server.h"

#include <httplib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace stap {

namespace {

// The OpenMetrics type when the scraper asks for it (Prometheus does),
// else Prometheus' classic text type: the body parses as both
// (metrics_text.h).
const char* content_type(const httplib::Request& req) {
  if (req.get_header_value("Accept").find("application/openmetrics-text") != std::string::npos)
    return "application/openmetrics-text; version=1.0.0; charset=utf-8";
  return "text/plain; version=0.0.4; charset=utf-8";
}

}  // namespace

MetricsServer::MetricsServer() : http_(std::make_unique<httplib::Server>()) {}

MetricsServer::~MetricsServer() {
  stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool MetricsServer::start(const std::string& host, int port, std::string& error) {
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    error = std::string("cannot make the metrics server's eventfd: ") + std::strerror(errno);
    return false;
  }
  http_->Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    std::unique_lock<std::mutex> hold(lock_);
    if (stopping_) {
      res.status = 503;
      return;
    }
    uint64_t mine = ++asked_;
    uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof one) != sizeof one) {
      res.status = 503;
      return;
    }
    // The session answers within one turn of its loop; a script stuck in
    // a long user-context probe makes the scraper wait, up to this bound.
    bool ok = answered_.wait_for(hold, std::chrono::seconds(10),
                                 [&] { return done_ >= mine || stopping_; });
    if (!ok || done_ < mine) {
      res.status = 503;
      return;
    }
    res.set_content(text_, content_type(req));
  });
  port_ = port;
  errno = 0;
  bool bound = port == 0 ? (port_ = http_->bind_to_any_port(host)) > 0 : http_->bind_to_port(host, port);
  if (!bound) {
    // The socket calls leave errno; a name that does not resolve leaves
    // whatever getaddrinfo's own lookups left there.
    bool socket_error = errno == EADDRINUSE || errno == EACCES || errno == EADDRNOTAVAIL;
    error = "cannot listen for --metrics on " + host + ":" + std::to_string(port) + ": " +
            (socket_error ? std::strerror(errno) : "not an address of this host");
    return false;
  }
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  return true;
}

void MetricsServer::serve(const std::function<std::string()>& make_text) {
  uint64_t count;
  if (read(wake_fd_, &count, sizeof count) != sizeof count) return;
  // One text answers every scrape that asked so far.
  std::string text = make_text();
  std::lock_guard<std::mutex> hold(lock_);
  text_ = std::move(text);
  done_ = asked_;
  answered_.notify_all();
}

void MetricsServer::stop() {
  {
    std::lock_guard<std::mutex> hold(lock_);
    stopping_ = true;
    answered_.notify_all();
  }
  if (thread_.joinable()) {
    http_->stop();
    thread_.join();
  }
}

bool parse_listen_address(const std::string& spec, std::string& host, int& port) {
  std::string port_text = spec;
  host = "127.0.0.1";
  if (size_t colon = spec.rfind(':'); colon != std::string::npos) {
    host = spec.substr(0, colon);
    port_text = spec.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) return false;
  }
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  port = std::stoi(port_text);
  return port <= 65535;
}

}  // namespace stap
