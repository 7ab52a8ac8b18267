// tests/distributed/test_tcp_store.cpp — TCPStore in one process: a master and clients on 127.0.0.1 share keys,
// add counts atomically, wait until keys appear; a port in use, a missing server and a missing key are errors.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "distributed/launch.h"
#include "distributed/tcp_store.h"

using tl::distributed::TCPStore;
using namespace std::chrono_literals;

namespace {

std::vector<char> bytes(const std::string& s) { return std::vector<char>(s.begin(), s.end()); }
std::string text(const std::vector<char>& v) { return std::string(v.begin(), v.end()); }

}  // namespace

TEST_CASE("TCPStore: clients share the master's keys; add counts across them") {
  TCPStore master("127.0.0.1", 0, true, 2s);
  REQUIRE(master.port() > 0);
  TCPStore client("127.0.0.1", master.port(), false, 2s);
  master.set("a", bytes("one"));
  CHECK(text(client.get("a")) == "one");
  client.set("a", bytes(""));
  CHECK(text(master.get("a")).empty());
  CHECK(master.check({"a"}));
  CHECK_FALSE(master.check({"a", "b"}));
  CHECK(client.add("count", 2) == 2);
  CHECK(master.add("count", -5) == -3);
  CHECK(text(client.get("count")) == "-3");
  CHECK(client.address() == "127.0.0.1:" + std::to_string(master.port()));
}

TEST_CASE("TCPStore: wait and get block until another client sets the key") {
  TCPStore master("127.0.0.1", 0, true, 5s);
  std::thread setter([port = master.port()] {
    TCPStore client("127.0.0.1", port, false, 5s);
    std::this_thread::sleep_for(100ms);
    client.set("late", bytes("here"));
  });
  master.wait({"late"});
  CHECK(text(master.get("late")) == "here");
  setter.join();
}

TEST_CASE("TCPStore errors: a key never set, a port in use, no server, a value that is not a number") {
  TCPStore master("127.0.0.1", 0, true, 200ms);
  const std::string address = "127.0.0.1:" + std::to_string(master.port());
  CHECK_THROWS_WITH_AS(master.wait({"x", "y"}, 50ms),
                       ("TCPStore " + address + ": timed out after 50 ms waiting for key(s) 'x', 'y'").c_str(),
                       tl::Error);
  CHECK_THROWS_WITH_AS(master.get("x"),
                       ("TCPStore " + address + ": timed out after 200 ms waiting for key(s) 'x'").c_str(), tl::Error);
  CHECK_THROWS_WITH_AS(TCPStore("127.0.0.1", master.port(), true, 1s),
                       ("TCPStore: the master cannot listen on " + address +
                        ": Address already in use (errno 98)").c_str(),
                       tl::Error);
  master.set("word", bytes("abc"));
  CHECK_THROWS_WITH_AS(master.add("word", 1), ("TCPStore " + address + ": add('word'): the value there is not an "
                                               "integer").c_str(),
                       tl::Error);
  CHECK(text(master.get("word")) == "abc");
  const int64_t unused = tl::distributed::free_port("127.0.0.1");
  CHECK_THROWS_WITH_AS(TCPStore("127.0.0.1", static_cast<int>(unused), false, 100ms),
                       ("TCPStore: no server accepted a connection at 127.0.0.1:" + std::to_string(unused) +
                        " within 100 ms (is the master, rank 0, running?); last error: Connection refused (errno 111)")
                           .c_str(),
                       tl::Error);
  CHECK_THROWS_WITH_AS(TCPStore("127.0.0.1", 0, false, 100ms), "TCPStore: a client needs the master's port, got 0",
                       tl::Error);
}
