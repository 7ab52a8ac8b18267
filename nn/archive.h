// nn/archive.h — saving and loading a dictionary of tensors, numbers and strings (torch.save / torch.load
// of a checkpoint dict; LibTorch's torch::serialize::OutputArchive / InputArchive) as one safetensors file.
// tools/load_archive.py reads the same files in Python, as PyTorch tensors.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/tensor.h"
#include "nn/state_dict.h"

namespace tl::serialize {

/// One archive entry's value; bytes hold what a tensor of torch.uint8 would (torch.get_rng_state()'s
/// state, which tl::get_rng_state returns as bytes: torchless has no uint8 dtype).
using Value = std::variant<Tensor, int64_t, double, bool, std::string, std::vector<uint8_t>>;

/// A dictionary to save: keys in the order written, each unique and non-empty.
///
///   tl::serialize::OutputArchive archive;
///   archive.write("epoch", 3);
///   archive.write("model", model->state_dict());  // tensors "model.<name>"
///   archive.save_to("checkpoint.safetensors");
///
/// The file is safetensors: the tensors under their keys, and in __metadata__ one entry
/// "torchless.archive" holding JSON {"version": 1, "entries": [[key, type, text], ...]}: every key in
/// order with its type ("tensor", "int", "float", "bool", "str", "bytes") and, but for tensors, its value
/// as text (an int's decimal digits, a float's Python repr, "True" / "False", the string itself, two
/// lower-case hex digits per byte).
class OutputArchive {
 public:
  /// Each write throws tl::Error for an empty key, a key already written, the safetensors-reserved
  /// "__metadata__", or an undefined tensor; the archive is then unchanged. A tensor is kept by
  /// reference and read when saved.
  void write(const std::string& key, const Tensor& value);
  void write(const std::string& key, double value);
  void write(const std::string& key, bool value);
  void write(const std::string& key, std::string value);
  void write(const std::string& key, const char* value) { write(key, std::string(value)); }
  /// Bytes, such as tl::get_rng_state()'s (tools/load_archive.py reads them as a torch.uint8 tensor,
  /// which torch.set_rng_state takes).
  void write(const std::string& key, std::vector<uint8_t> value);
  /// Integers of any type; throws tl::Error for an unsigned value beyond int64.
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  void write(const std::string& key, T value) {
    if constexpr (std::is_unsigned_v<T> && sizeof(T) >= sizeof(int64_t)) check_int64(key, value);
    add(key, static_cast<int64_t>(value));
  }
  /// Every tensor of `dict` under "<prefix>.<name>", all checked before any is added.
  void write(const std::string& prefix, const nn::StateDict& dict);

  /// Writes the archive to `path` through tl::FileWriter (an existing file is intact after any
  /// failure; a path ending in ".gz" is gzip-compressed, and load_from reads it back). Throws tl::Error as nn::save_safetensors does (a tensor dtype it cannot store, a key
  /// that is not valid UTF-8, an I/O failure), and for a string value that is not valid UTF-8.
  void save_to(const std::string& path) const;

  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }

 private:
  void add(const std::string& key, Value value);
  void check_key(const std::string& key) const;
  void check_int64(const std::string& key, uint64_t value) const;

  std::vector<std::pair<std::string, Value>> entries_;
};

/// A dictionary loaded from a file OutputArchive::save_to wrote.
///
///   tl::serialize::InputArchive archive;
///   archive.load_from("checkpoint.safetensors");
///   int64_t epoch = 0;
///   archive.read("epoch", epoch);
///   nn::StateDict weights;
///   archive.read("model", weights);
///   model->load_state_dict(weights);
class InputArchive {
 public:
  /// Replaces the archive's entries with the file's. Throws tl::Error naming the file for anything
  /// nn::load_safetensors refuses, a file without a valid "torchless.archive" entry (not JSON, no
  /// "entries" list, a malformed entry, an unknown type, a value that does not parse as its type (bytes:
  /// an odd number of hex digits or a character that is not one), a key twice), a tensor entry with no
  /// tensor, or a tensor with no entry; the archive is then unchanged.
  void load_from(const std::string& path);

  /// Each read stores the value at `key` in `out`; throws tl::Error naming the key for a key the
  /// archive does not hold or a value of another type (`out` is then unchanged). Numbers are not
  /// converted: an int entry is read as int64_t, a float entry as double.
  void read(const std::string& key, Tensor& out) const;
  void read(const std::string& key, int64_t& out) const;
  void read(const std::string& key, double& out) const;
  void read(const std::string& key, bool& out) const;
  void read(const std::string& key, std::string& out) const;
  void read(const std::string& key, std::vector<uint8_t>& out) const;
  /// Every tensor under "<prefix>." with the prefix taken off, in the archive's order; throws
  /// tl::Error when there is none.
  void read(const std::string& prefix, nn::StateDict& out) const;

  bool contains(const std::string& key) const;
  /// The keys in the order they were written.
  std::vector<std::string> keys() const;
  const std::vector<std::pair<std::string, Value>>& entries() const { return entries_; }

 private:
  const Value& find(const std::string& key) const;
  template <typename T>
  void read_as(const std::string& key, T& out) const;

  std::string path_;  // for error messages
  std::vector<std::pair<std::string, Value>> entries_;
};

}  // namespace tl::serialize
