// distributed/tcp_store.cpp — TCPStore: a length-framed request/reply protocol over POSIX sockets; the
// server is one thread polling its listening socket, its clients and a wake-up pipe.
#include "distributed/tcp_store.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <thread>

#include "core/error.h"

namespace tl::distributed {
namespace {

enum Command : char { kSet = 'S', kGet = 'G', kAdd = 'A', kCheck = 'C' };

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    const ssize_t sent = ::send(fd, data, n, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data += sent;
    n -= static_cast<size_t>(sent);
  }
  return true;
}

bool read_all(int fd, char* data, size_t n) {
  while (n > 0) {
    const ssize_t got = ::recv(fd, data, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    data += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

/// One message on the wire: its length (uint32), then its bytes.
bool write_frame(int fd, const std::vector<char>& frame) {
  const auto n = static_cast<uint32_t>(frame.size());
  return write_all(fd, reinterpret_cast<const char*>(&n), sizeof n) && write_all(fd, frame.data(), frame.size());
}

bool read_frame(int fd, std::vector<char>& frame) {
  uint32_t n = 0;
  if (!read_all(fd, reinterpret_cast<char*>(&n), sizeof n)) return false;
  frame.resize(n);
  return read_all(fd, frame.data(), n);
}

template <typename T>
void append(std::vector<char>& out, const T& value) {
  const size_t at = out.size();
  out.resize(at + sizeof value);
  std::memcpy(out.data() + at, &value, sizeof value);
}

void append_string(std::vector<char>& out, const std::string& s) {
  append(out, static_cast<uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

/// Reads a request's fields in order; a malformed request (not from a TCPStore client) throws.
struct Reader {
  const std::vector<char>& frame;
  size_t at = 0;
  template <typename T>
  T next() {
    TL_CHECK(at + sizeof(T) <= frame.size(), "TCPStore: malformed request");
    T value;
    std::memcpy(&value, frame.data() + at, sizeof value);
    at += sizeof value;
    return value;
  }
  std::string string() {
    const auto n = next<uint32_t>();
    TL_CHECK(at + n <= frame.size(), "TCPStore: malformed request");
    std::string s(frame.data() + at, n);
    at += n;
    return s;
  }
};

std::string errno_text(int err) { return detail::str_cat(std::strerror(err), " (errno ", err, ")"); }

struct AddrInfo {
  addrinfo* list = nullptr;
  /// `who` opens the error: "TCPStore: cannot resolve host ...".
  AddrInfo(const std::string& host, int port, bool passive, const std::string& who = "TCPStore") {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = passive ? AI_PASSIVE : 0;
    const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &list);
    TL_CHECK(rc == 0, who, ": cannot resolve host '", host, "': ", ::gai_strerror(rc));
  }
  ~AddrInfo() { ::freeaddrinfo(list); }
};

/// A socket connected to host:port (its first address that accepts), or -1 with the last error in `err`.
int connect_once(const std::string& host, int port, int& err, const std::string& who = "TCPStore") {
  AddrInfo addresses(host, port, false, who);
  for (addrinfo* a = addresses.list; a != nullptr; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) == 0) return fd;
    err = errno;
    if (fd >= 0) ::close(fd);
  }
  return -1;
}

}  // namespace

void probe_connection(const std::string& what, const std::string& host, int port) {
  int err = 0;
  const int fd = connect_once(host, port, err, what);
  TL_CHECK(fd >= 0, what, " ", host, ":", port, ": ", errno_text(err));
  ::close(fd);
}

/// The master's side: keys and values in memory, served to every client by one thread.
class TCPStore::Server {
 public:
  Server(const std::string& host, int& port) {
    AddrInfo addresses(host, port, true);
    int err = 0;
    for (addrinfo* a = addresses.list; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) {
        err = errno;
        continue;
      }
      const int one = 1;
      ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
      if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
        listen_fd_ = fd;
      } else {
        err = errno;
        ::close(fd);
      }
    }
    TL_CHECK(listen_fd_ >= 0, "TCPStore: the master cannot listen on ", host, ":", port, ": ", errno_text(err));
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &length);
    port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    if (::pipe2(wake_, O_CLOEXEC) != 0) {
      ::close(listen_fd_);
      TL_CHECK(false, "TCPStore: pipe failed: ", errno_text(errno));
    }
    thread_ = std::thread([this] { serve(); });
  }

  ~Server() {
    const char stop = 0;
    (void)::write(wake_[1], &stop, 1);
    thread_.join();
    for (int fd : {listen_fd_, wake_[0], wake_[1]}) ::close(fd);
  }

 private:
  void serve() {
    std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    std::vector<char> frame;
    for (;;) {
      if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) break;
      if (fds[0].revents != 0) break;
      if (fds[1].revents & POLLIN) {
        const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client >= 0) fds.push_back({client, POLLIN, 0});
      }
      for (size_t i = 2; i < fds.size();) {
        const bool ready = fds[i].revents != 0;
        if (ready && !(read_frame(fds[i].fd, frame) && write_frame(fds[i].fd, reply(frame)))) {
          ::close(fds[i].fd);
          fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
          continue;
        }
        fds[i++].revents = 0;
      }
    }
    for (size_t i = 2; i < fds.size(); ++i) ::close(fds[i].fd);
  }

  /// The reply to one request; an empty reply to a malformed one (whose client then fails).
  std::vector<char> reply(const std::vector<char>& frame) {
    std::vector<char> out;
    try {
      Reader in{frame};
      const auto command = in.next<char>();
      if (command == kSet) {
        const std::string key = in.string();
        const std::string value = in.string();
        values_[key] = std::vector<char>(value.begin(), value.end());
      } else if (command == kGet) {
        auto it = values_.find(in.string());
        out.push_back(it != values_.end() ? 1 : 0);
        if (it != values_.end()) out.insert(out.end(), it->second.begin(), it->second.end());
      } else if (command == kAdd) {
        std::vector<char>& value = values_[in.string()];
        const int64_t sum = (value.empty() ? 0 : std::stoll(std::string(value.begin(), value.end()))) +
                            in.next<int64_t>();
        const std::string text = std::to_string(sum);
        value.assign(text.begin(), text.end());
        append(out, sum);
      } else if (command == kCheck) {
        bool all = true;
        for (auto n = in.next<uint32_t>(); n > 0; --n) all = values_.count(in.string()) > 0 && all;
        out.push_back(all ? 1 : 0);
      }
    } catch (const std::exception&) {
      out.clear();
    }
    return out;
  }

  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::map<std::string, std::vector<char>> values_;
  std::thread thread_;
};

TCPStore::TCPStore(std::string host, int port, bool is_master, std::chrono::milliseconds timeout)
    : host_(std::move(host)), port_(port), timeout_(timeout) {
  TL_CHECK(port >= 0 && port <= 65535, "TCPStore: port must be in [0, 65535], got ", port);
  TL_CHECK(is_master || port > 0, "TCPStore: a client needs the master's port, got 0");
  if (is_master) server_ = std::make_unique<Server>(host_, port_);
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  int err = 0;
  while (fd_ < 0) {
    fd_ = connect_once(host_, port_, err);
    if (fd_ < 0) {
      TL_CHECK(std::chrono::steady_clock::now() < deadline, "TCPStore: no server accepted a connection at ",
               address(), " within ", timeout_.count(), " ms (is the master, rank 0, running?); last error: ",
               errno_text(err));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

TCPStore::~TCPStore() {
  if (fd_ >= 0) ::close(fd_);
}

std::string TCPStore::address() const { return detail::str_cat(host_, ":", port_); }

std::vector<char> TCPStore::request(const std::vector<char>& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<char> reply;
  TL_CHECK(write_frame(fd_, message) && read_frame(fd_, reply), "TCPStore ", address(),
           ": the connection to the server was lost (did the master, rank 0, exit?)");
  return reply;
}

void TCPStore::set(const std::string& key, const std::vector<char>& value) {
  std::vector<char> message = {kSet};
  append_string(message, key);
  append_string(message, std::string(value.begin(), value.end()));
  request(message);
}

std::vector<char> TCPStore::get(const std::string& key) {
  wait({key});
  std::vector<char> message = {kGet};
  append_string(message, key);
  std::vector<char> reply = request(message);
  TL_CHECK(!reply.empty() && reply[0] == 1, "TCPStore ", address(), ": key '", key, "' is not set");
  return std::vector<char>(reply.begin() + 1, reply.end());
}

int64_t TCPStore::add(const std::string& key, int64_t amount) {
  std::vector<char> message = {kAdd};
  append_string(message, key);
  append(message, amount);
  std::vector<char> reply = request(message);
  TL_CHECK(reply.size() == sizeof(int64_t), "TCPStore ", address(), ": add('", key,
           "'): the value there is not an integer");
  int64_t sum = 0;
  std::memcpy(&sum, reply.data(), sizeof sum);
  return sum;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::vector<char> message = {kCheck};
  append(message, static_cast<uint32_t>(keys.size()));
  for (const std::string& key : keys) append_string(message, key);
  std::vector<char> reply = request(message);
  return !reply.empty() && reply[0] == 1;
}

void TCPStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void TCPStore::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!check(keys)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      std::string names;
      for (const std::string& key : keys) names += (names.empty() ? "'" : ", '") + key + "'";
      TL_CHECK(false, "TCPStore ", address(), ": timed out after ", timeout.count(), " ms waiting for key(s) ",
               names);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace tl::distributed
