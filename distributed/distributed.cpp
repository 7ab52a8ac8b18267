// distributed/distributed.cpp — the process-wide state of torch.distributed: the rendezvous store, the default
// group and the groups new_group made (each under its own store prefix), and the global-to-group rank maps.
#include "distributed/distributed.h"

#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/redis_store.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "core/distributed_info.h"
#include "core/error.h"
#include "core/record_function.h"
#include "core/warning.h"
#include "distributed/tcp_store.h"

namespace tl::distributed {
namespace {

struct State {
  std::mutex mutex;
  std::shared_ptr<gloo::rendezvous::Store> store;
  std::string store_name;
  std::string key_prefix;  ///< before every group's prefix: redis://'s job prefix ("job/"), else empty
  std::string hostname;  ///< where this process's Gloo device listens
  std::chrono::milliseconds timeout{kDefaultTimeout};
  std::shared_ptr<ProcessGroup> world;
  int64_t groups_made = 0;  ///< new_group calls, which every rank makes: the store prefix of the next group
  std::map<const ProcessGroup*, std::vector<int64_t>> global_ranks;  ///< by group: its members' global ranks
};

State& state() {
  static State s;
  return s;
}

const char* kNotInitialized =
    "Default process group has not been initialized, please make sure to call init_process_group.";

int64_t parse_int(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  TL_CHECK(!text.empty() && *end == '\0' && errno == 0, "init_process_group: ", what, " must be an integer, got '",
           text, "'");
  return value;
}

/// `given` when set (>= 0), else the environment variable `name`, which must then be set.
int64_t from_env(int64_t given, const char* name, const std::string& method) {
  if (given >= 0) return given;
  const char* value = std::getenv(name);
  TL_CHECK(value != nullptr, "Error initializing torch.distributed using ", method,
           " rendezvous: environment variable ", name, " expected, but not set");
  return parse_int(value, name);
}

std::string env_string(const char* name) {
  const char* value = std::getenv(name);
  TL_CHECK(value != nullptr, "Error initializing torch.distributed using env:// rendezvous: environment variable ",
           name, " expected, but not set");
  return value;
}

/// Gloo's RedisStore, refusing a key that is set already with a tl::Error before Gloo's SETNX would (whose failure
/// leaks its reply): Redis keeps a finished job's keys.
class RedisRendezvous final : public gloo::rendezvous::Store {
 public:
  RedisRendezvous(const std::string& host, int port) : redis_(host, port) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    TL_CHECK(!redis_.check({key}), "key '", key, "' is set already: Redis keeps a finished job's keys; give this job ",
             "a prefix of its own (redis://host:port/prefix)");
    redis_.set(key, data);
  }
  std::vector<char> get(const std::string& key) override { return redis_.get(key); }
  void wait(const std::vector<std::string>& keys) override { redis_.wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    redis_.wait(keys, timeout);
  }

 private:
  gloo::rendezvous::RedisStore redis_;
};

/// "host:port[/prefix]" after a scheme of `scheme_length` characters: host, port and the prefix ("" when absent);
/// `form` is what the error says was expected.
struct Address {
  std::string host;
  int64_t port = 0;
  std::string prefix;
};
Address parse_address(const std::string& method, size_t scheme_length, const char* form) {
  std::string address = method.substr(scheme_length);
  Address out;
  if (const auto slash = address.find('/'); slash != std::string::npos) {
    out.prefix = address.substr(slash + 1);
    address.resize(slash);
  }
  const auto colon = address.rfind(':');
  TL_CHECK(colon != std::string::npos && colon > 0, "init_process_group: expected ", form, ", got '", method, "'");
  out.host = address.substr(0, colon);
  out.port = parse_int(address.substr(colon + 1), "the port of " + method);
  return out;
}

bool is_loopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

/// This machine's name, as PyTorch's Gloo device binds to it (ranks on one machine meet on loopback).
std::string machine_hostname() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? name : "127.0.0.1";
}

/// The group's members' global ranks, or null (with PyTorch's warning) when this process is not one.
ProcessGroup* resolve(const std::shared_ptr<ProcessGroup>& group, const char* what) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  TL_CHECK(s.world != nullptr, kNotInitialized);
  ProcessGroup* pg = group ? group.get() : s.world.get();
  TL_CHECK(s.global_ranks.count(pg) > 0, what, ": the group was destroyed (destroy_process_group)");
  if (pg->rank() < 0) {
    tl::warn("Running ", what, " on global rank ", s.world->rank(),
             " which does not belong to the given group.");
    return nullptr;
  }
  return pg;
}

/// The group rank of global rank `rank` in `pg`.
int64_t group_rank(const ProcessGroup* pg, int64_t rank, const char* what) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const std::vector<int64_t>& ranks = s.global_ranks.at(pg);
  auto it = std::find(ranks.begin(), ranks.end(), rank);
  TL_CHECK(it != ranks.end(), what, ": global rank ", rank, " is not part of the group");
  return it - ranks.begin();
}

/// Issues `call` (which queues the work inside record_param_comms) inside the Function scope PyTorch's profiler
/// shows for it on the calling thread: "c10d::allreduce_" with the tensor's Input Dims. The work itself is recorded
/// on the thread that runs it (gloo:all_reduce).
template <typename Call>
std::shared_ptr<Work> issue(const char* op, const Tensor* tensor, const Call& call) {
  RecordFunction scope(op, [&] { return tensor ? ScopeArgs{*tensor} : ScopeArgs{}; });
  return call();
}

std::shared_ptr<Work> finish(std::shared_ptr<Work> work, bool async_op) {
  if (async_op) return work;
  work->wait();
  return nullptr;
}

}  // namespace

void init_process_group(const std::string& backend, const InitProcessGroupOptions& options) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  std::string name = backend;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  TL_CHECK(name == "gloo", "init_process_group: backend '", backend, "' is not available; torchless has 'gloo'");
  TL_CHECK(s.world == nullptr, "trying to initialize the default process group twice!");
  const std::string& method = options.init_method;
  int64_t rank = -1, world_size = -1;
  std::shared_ptr<gloo::rendezvous::Store> store;
  std::string store_name, hostname, key_prefix;
  if (method == "env://" || method.rfind("tcp://", 0) == 0) {
    std::string host;
    int64_t port = 0;
    if (method == "env://") {
      rank = from_env(options.rank, "RANK", method);
      world_size = from_env(options.world_size, "WORLD_SIZE", method);
      host = env_string("MASTER_ADDR");
      port = parse_int(env_string("MASTER_PORT"), "MASTER_PORT");
    } else {
      const Address address = parse_address(method, 6, "tcp://host:port");
      TL_CHECK(address.prefix.empty(), "init_process_group: expected tcp://host:port, got '", method, "'");
      host = address.host;
      port = address.port;
      TL_CHECK(options.rank >= 0, "init_process_group: rank parameter missing for ", method);
      TL_CHECK(options.world_size >= 0, "init_process_group: world size parameter missing for ", method);
      rank = options.rank;
      world_size = options.world_size;
    }
    TL_CHECK(port > 0 && port <= 65535, "init_process_group: MASTER_PORT must be in [1, 65535], got ", port);
    TL_CHECK(rank >= 0 && rank < world_size, "init_process_group: rank must be in [0, world_size = ", world_size,
             "), got ", rank);
    store = std::make_shared<TCPStore>(host, static_cast<int>(port), rank == 0, options.timeout);
    store_name = "TCPStore " + host + ":" + std::to_string(port);
    hostname = is_loopback(host) ? "127.0.0.1" : machine_hostname();
  } else if (method.rfind("file://", 0) == 0) {
    const std::string dir = method.substr(7);
    TL_CHECK(!dir.empty(), "init_process_group: expected file://directory, got '", method, "'");
    rank = from_env(options.rank, "RANK", method);
    world_size = from_env(options.world_size, "WORLD_SIZE", method);
    TL_CHECK(::mkdir(dir.c_str(), 0755) == 0 || errno == EEXIST, "init_process_group: cannot create the FileStore ",
             "directory ", dir, ": ", std::strerror(errno));
    store = std::make_shared<gloo::rendezvous::FileStore>(dir);
    store_name = "FileStore " + dir;
    hostname = machine_hostname();
  } else if (method.rfind("redis://", 0) == 0) {
    const Address address = parse_address(method, 8, "redis://host:port or redis://host:port/prefix");
    TL_CHECK(address.port > 0 && address.port <= 65535, "init_process_group: the port of ", method,
             " must be in [1, 65535], got ", address.port);
    rank = from_env(options.rank, "RANK", method);
    world_size = from_env(options.world_size, "WORLD_SIZE", method);
    store_name = detail::str_cat("RedisStore ", address.host, ":", address.port);
    // Gloo's RedisStore enforces its connection inside its constructor, leaking the client it allocated when
    // that fails: whether the server is there is asked first.
    probe_connection("init_process_group: cannot reach Redis at", address.host, static_cast<int>(address.port));
    try {
      store = std::make_shared<RedisRendezvous>(address.host, static_cast<int>(address.port));
    } catch (const std::exception& e) {
      TL_CHECK(false, "init_process_group: cannot reach Redis at ", address.host, ":", address.port, ": ", e.what());
    }
    if (!address.prefix.empty()) key_prefix = address.prefix + "/";
    hostname = is_loopback(address.host) ? "127.0.0.1" : machine_hostname();
  } else {
    TL_CHECK(false, "init_process_group: unsupported init_method '", method,
             "'; expected env://, tcp://host:port, file://directory or redis://host:port[/prefix]");
  }
  gloo::rendezvous::PrefixStore prefixed(key_prefix + "default_pg", *store);
  auto world = std::make_shared<ProcessGroup>(prefixed, store_name, rank, world_size, options.timeout, hostname,
                                              GroupDescription{.name = "0", .desc = "default_pg"});
  std::vector<int64_t> all(static_cast<size_t>(world_size));
  for (int64_t r = 0; r < world_size; ++r) all[static_cast<size_t>(r)] = r;
  s.global_ranks[world.get()] = std::move(all);
  s.store = std::move(store);
  s.store_name = store_name;
  s.key_prefix = key_prefix;
  s.hostname = hostname;
  s.timeout = options.timeout;
  s.world = std::move(world);
  s.groups_made = 0;
  set_distributed_info({"gloo", rank, world_size});
}

bool is_initialized() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.world != nullptr;
}

bool is_available() { return true; }

void destroy_process_group(const std::shared_ptr<ProcessGroup>& group) {
  State& s = state();
  std::shared_ptr<ProcessGroup> world;  // closed outside the lock: it finishes its queued work first
  std::lock_guard<std::mutex> lock(s.mutex);
  TL_CHECK(s.world != nullptr, kNotInitialized);
  if (group && group != s.world) {
    s.global_ranks.erase(group.get());
    return;
  }
  s.global_ranks.clear();
  world = std::move(s.world);
  s.store.reset();
  set_distributed_info({});
}

int64_t get_rank(const std::shared_ptr<ProcessGroup>& group) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  TL_CHECK(s.world != nullptr, kNotInitialized);
  return group ? group->rank() : s.world->rank();
}

int64_t get_world_size(const std::shared_ptr<ProcessGroup>& group) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  TL_CHECK(s.world != nullptr, kNotInitialized);
  if (!group) return s.world->size();
  return group->rank() < 0 ? -1 : group->size();
}

std::shared_ptr<ProcessGroup> default_group() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  TL_CHECK(s.world != nullptr, kNotInitialized);
  return s.world;
}

std::string get_backend(const std::shared_ptr<ProcessGroup>& group) {
  TL_CHECK(is_initialized(), kNotInitialized);
  return group ? group->name() : "gloo";
}

std::shared_ptr<ProcessGroup> new_group(const std::vector<int64_t>& ranks,
                                        std::optional<std::chrono::milliseconds> timeout) {
  State& s = state();
  std::unique_lock<std::mutex> lock(s.mutex);
  TL_CHECK(s.world != nullptr, kNotInitialized);
  const int64_t world_size = s.world->size();
  std::vector<int64_t> members = ranks;
  if (members.empty()) {
    for (int64_t r = 0; r < world_size; ++r) members.push_back(r);
  }
  for (size_t i = 0; i < members.size(); ++i) {
    TL_CHECK(members[i] >= 0 && members[i] < world_size, "new_group: rank ", members[i],
             " is not in the default group of world_size ", world_size);
    TL_CHECK(std::find(members.begin(), members.begin() + static_cast<std::ptrdiff_t>(i), members[i]) ==
                 members.begin() + static_cast<std::ptrdiff_t>(i),
             "new_group: rank ", members[i], " is given twice");
  }
  const int64_t number = s.groups_made++;
  const std::string prefix = s.key_prefix + "group_" + std::to_string(number);
  auto it = std::find(members.begin(), members.end(), s.world->rank());
  std::shared_ptr<ProcessGroup> group;
  if (it == members.end()) {
    group = std::make_shared<ProcessGroup>(ProcessGroup::NonMember{}, static_cast<int64_t>(members.size()));
  } else {
    gloo::rendezvous::PrefixStore prefixed(prefix, *s.store);
    // PyTorch numbers the groups after the default one ("0") in creation order.
    group = std::make_shared<ProcessGroup>(prefixed, s.store_name, it - members.begin(),
                                           static_cast<int64_t>(members.size()), timeout.value_or(s.timeout),
                                           s.hostname, GroupDescription{std::to_string(number + 1), "undefined", members});
  }
  s.global_ranks[group.get()] = std::move(members);
  return group;
}

std::shared_ptr<Work> all_reduce(const Tensor& tensor, ReduceOp op, const std::shared_ptr<ProcessGroup>& group,
                                 bool async_op) {
  ProcessGroup* pg = resolve(group, "all_reduce");
  return pg ? finish(issue("c10d::allreduce_", &tensor, [&] { return pg->allreduce(tensor, op); }), async_op) : nullptr;
}

std::shared_ptr<Work> broadcast(const Tensor& tensor, int64_t src, const std::shared_ptr<ProcessGroup>& group,
                                bool async_op) {
  ProcessGroup* pg = resolve(group, "broadcast");
  if (!pg) return nullptr;
  const int64_t root = group_rank(pg, src, "broadcast");
  return finish(issue("c10d::broadcast_", &tensor, [&] { return pg->broadcast(tensor, root); }), async_op);
}

std::shared_ptr<Work> all_gather(const std::vector<Tensor>& tensor_list, const Tensor& tensor,
                                 const std::shared_ptr<ProcessGroup>& group, bool async_op) {
  ProcessGroup* pg = resolve(group, "all_gather");
  return pg ? finish(issue("c10d::allgather_", &tensor, [&] { return pg->allgather(tensor_list, tensor); }), async_op)
            : nullptr;
}

std::shared_ptr<Work> reduce_scatter(const Tensor& output, const std::vector<Tensor>& input_list, ReduceOp op,
                                     const std::shared_ptr<ProcessGroup>& group, bool async_op) {
  ProcessGroup* pg = resolve(group, "reduce_scatter");
  return pg ? finish(issue("c10d::reduce_scatter_", &output, [&] { return pg->reduce_scatter(output, input_list, op); }),
                     async_op)
            : nullptr;
}

std::shared_ptr<Work> barrier(const std::shared_ptr<ProcessGroup>& group, bool async_op) {
  ProcessGroup* pg = resolve(group, "barrier");
  return pg ? finish(issue("c10d::barrier", nullptr, [&] { return pg->barrier(); }), async_op) : nullptr;
}

std::shared_ptr<Work> isend(const Tensor& tensor, int64_t dst, const std::shared_ptr<ProcessGroup>& group,
                            int64_t tag) {
  ProcessGroup* pg = resolve(group, "isend");
  if (!pg) return nullptr;
  const int64_t peer = group_rank(pg, dst, "isend");
  return issue("c10d::send", &tensor, [&] { return pg->send(tensor, peer, tag); });
}

std::shared_ptr<Work> irecv(const Tensor& tensor, int64_t src, const std::shared_ptr<ProcessGroup>& group,
                            int64_t tag) {
  ProcessGroup* pg = resolve(group, "irecv");
  if (!pg) return nullptr;
  const int64_t peer = group_rank(pg, src, "irecv");
  return issue("c10d::recv_", &tensor, [&] { return pg->recv(tensor, peer, tag); });
}

void send(const Tensor& tensor, int64_t dst, const std::shared_ptr<ProcessGroup>& group, int64_t tag) {
  if (auto work = isend(tensor, dst, group, tag)) work->wait();
}

int64_t recv(const Tensor& tensor, int64_t src, const std::shared_ptr<ProcessGroup>& group, int64_t tag) {
  auto work = irecv(tensor, src, group, tag);
  if (!work) return -1;
  work->wait();
  return src;
}

}  // namespace tl::distributed
