// A small blocking WebSocket client for integration tests: connect, send JSON, wait for
// the next frame (or the next frame of a given type) with a timeout. Plain or TLS.
// Every frame received is kept, so tests can scan all of them (the leak scan).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace parlor::testing {

using Json = nlohmann::json;

class TestClient {
 public:
  struct Options {
    bool tls = false;
    std::string origin;          // sets the Origin header when not empty
    std::string target = "/ws";  // the upgrade request's target (a query: "/ws?node=node-2")
  };
  TestClient(const std::string& host, unsigned short port, Options options);
  // From the local address `bind_address` (a loopback address other than 127.0.0.1: another
  // client, as a server or a proxy sees it).
  TestClient(const std::string& host, unsigned short port, Options options,
             const std::string& bind_address);
  TestClient(const std::string& host, unsigned short port);
  ~TestClient();
  TestClient(const TestClient&) = delete;
  TestClient& operator=(const TestClient&) = delete;

  void send(const Json& message);
  void send_text(const std::string& text);
  // The next frame, or nullopt on timeout or close.
  std::optional<Json> next(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Skips frames until one with this type (and, when given, `re`) arrives.
  std::optional<Json> next_of(const std::string& type,
                              std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Sends a request with a fresh id and waits for the reply carrying that id as `re`.
  Json request(Json message, std::chrono::milliseconds timeout = std::chrono::seconds(5));

  bool closed() const { return closed_; }
  int close_code() const { return close_code_; }
  std::string close_reason() const { return close_reason_; }
  // Waits for the server to close the connection; returns whether it did.
  bool wait_closed(std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // Closes the TCP connection without a WebSocket close (a dropped client).
  void drop();

  // WebSocket pings the server sent that were read so far (each answered with a pong).
  int pings_received() const;

  const std::vector<std::string>& frames() const { return frames_; }
  // Frames that arrived while waiting for something else.
  std::vector<Json>& pending() { return pending_; }

  // Connect + hello; returns the welcome message.
  Json hello(const std::string& name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> frames_;
  std::vector<Json> pending_;
  bool closed_ = false;
  int close_code_ = 0;
  std::string close_reason_;
  long next_id_ = 1;
};

}  // namespace parlor::testing
