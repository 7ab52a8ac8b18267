// distributed/tcp_store.h — TCPStore, c10d's key-value store over TCP, as a Gloo rendezvous store: the master
// process serves it from a thread listening on host:port, and every process (the master too) is a client.
#pragma once

#include <gloo/rendezvous/store.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tl::distributed {

/// A key-value store reached over TCP (torch.distributed.TCPStore, which env:// and tcp:// rendezvous use):
/// Gloo's connectFullMesh exchanges the ranks' addresses through it. get() and wait() block until their keys
/// are set; past `timeout` they throw tl::Error naming the keys and the store. Thread-safe.
class TCPStore : public gloo::rendezvous::Store {
 public:
  /// Connects to host:port, retrying until `timeout`; with is_master it first listens there (port 0: a free
  /// port, see port()). Throws tl::Error when the master cannot listen (the port is in use), the host does
  /// not resolve, or no server accepts within `timeout`.
  TCPStore(std::string host, int port, bool is_master, std::chrono::milliseconds timeout);
  ~TCPStore() override;
  TCPStore(const TCPStore&) = delete;
  TCPStore& operator=(const TCPStore&) = delete;

  void set(const std::string& key, const std::vector<char>& value) override;
  /// The value of `key`, once set (waits up to the store's timeout).
  std::vector<char> get(const std::string& key) override;
  /// Adds `amount` to the integer at `key` (0 when unset) and returns the sum, atomically for all clients.
  int64_t add(const std::string& key, int64_t amount);
  /// Whether every key is set, without waiting.
  bool check(const std::vector<std::string>& keys);
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;

  /// The port the store listens on (the master's, resolved when it was given 0).
  int port() const { return port_; }
  /// "host:port", as the errors name the store.
  std::string address() const;

 private:
  class Server;
  /// Sends one request and returns the server's reply (under mutex_).
  std::vector<char> request(const std::vector<char>& message);

  std::string host_;
  int port_;
  std::chrono::milliseconds timeout_;
  std::unique_ptr<Server> server_;
  int fd_ = -1;
  std::mutex mutex_;
};

/// Connects to host:port once and closes the connection: throws tl::Error "<what> host:port: <reason>" when
/// nothing accepts there or the host does not resolve (a server's reachability, checked before a client
/// library that would not say it clearly).
void probe_connection(const std::string& what, const std::string& host, int port);

}  // namespace tl::distributed
