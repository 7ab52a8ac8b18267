// nn/archive.cpp — archives as safetensors: tensors as the file's tensors, every key's type and the other
// values as a JSON list in __metadata__. Loading checks the whole file before the archive changes.
#include "nn/archive.h"

#include <charconv>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/py_repr.h"
#include "nn/safetensors.h"

namespace tl::serialize {
namespace {

using Json = nlohmann::json;
constexpr const char* kEntry = "torchless.archive";
constexpr int kVersion = 1;
constexpr const char* kTypes[] = {"tensor", "int", "float", "bool", "str", "bytes"};  // in Value's order
constexpr char kHexDigits[] = "0123456789abcdef";

// The text an entry stores for a non-tensor value.
std::string text_of(const Value& value) {
  if (const auto* i = std::get_if<int64_t>(&value)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&value)) return py_float(*d);
  if (const auto* b = std::get_if<bool>(&value)) return py_bool(*b);
  if (const auto* bytes = std::get_if<std::vector<uint8_t>>(&value)) {
    std::string hex;
    hex.reserve(2 * bytes->size());
    for (const uint8_t byte : *bytes) {
      hex += kHexDigits[byte >> 4];
      hex += kHexDigits[byte & 15];
    }
    return hex;
  }
  return std::get<std::string>(value);
}

// The bytes of `hex` (text_of's lower-case pairs; upper case is taken too); throws naming the key.
std::vector<uint8_t> parse_hex(const std::string& hex, const std::string& key, const std::string& path) {
  TL_CHECK(hex.size() % 2 == 0, "InputArchive: ", path, ": bytes entry '", key, "' holds ", hex.size(),
           " hex digits, an odd number");
  std::vector<uint8_t> bytes(hex.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto [end, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, bytes[i], 16);
    TL_CHECK(ec == std::errc() && end == hex.data() + 2 * i + 2, "InputArchive: ", path, ": bytes entry '", key,
             "' holds '", hex.substr(2 * i, 2), "' at byte ", i, ", not two hex digits");
  }
  return bytes;
}

// The value `text` stores for type index `type` (not a tensor); throws naming the key otherwise.
Value parse_value(size_t type, const std::string& text, const std::string& key, const std::string& path) {
  const char* first = text.data();
  const char* last = first + text.size();
  if (type == 1) {
    int64_t i = 0;
    const auto [end, ec] = std::from_chars(first, last, i);
    TL_CHECK(ec == std::errc() && end == last, "InputArchive: ", path, ": int entry '", key, "' holds '", text, "'");
    return i;
  }
  if (type == 2) {
    double d = 0.0;
    const auto [end, ec] = std::from_chars(first, last, d);
    TL_CHECK(ec == std::errc() && end == last, "InputArchive: ", path, ": float entry '", key, "' holds '", text, "'");
    return d;
  }
  if (type == 3) {
    TL_CHECK(text == "True" || text == "False", "InputArchive: ", path, ": bool entry '", key, "' holds '", text, "'");
    return text == "True";
  }
  if (type == 5) return parse_hex(text, key, path);
  return text;
}

}  // namespace

void OutputArchive::check_key(const std::string& key) const {
  TL_CHECK(!key.empty(), "OutputArchive: expected a non-empty key");
  TL_CHECK(key != "__metadata__", "OutputArchive: the key \"__metadata__\" is reserved by safetensors");
  for (const auto& [k, v] : entries_) TL_CHECK(k != key, "OutputArchive: key '", key, "' was already written");
}

void OutputArchive::check_int64(const std::string& key, uint64_t value) const {
  TL_CHECK(value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), "OutputArchive: integer ", value,
           " for key '", key, "' is beyond int64");
}

void OutputArchive::add(const std::string& key, Value value) {
  check_key(key);
  entries_.emplace_back(key, std::move(value));
}

void OutputArchive::write(const std::string& key, const Tensor& value) {
  TL_CHECK(value.defined(), "OutputArchive: expected a defined tensor for key '", key, "'");
  add(key, value);
}

void OutputArchive::write(const std::string& key, double value) { add(key, value); }
void OutputArchive::write(const std::string& key, bool value) { add(key, value); }
void OutputArchive::write(const std::string& key, std::string value) { add(key, std::move(value)); }
void OutputArchive::write(const std::string& key, std::vector<uint8_t> value) { add(key, std::move(value)); }

void OutputArchive::write(const std::string& prefix, const nn::StateDict& dict) {
  std::vector<std::pair<std::string, Value>> added;
  for (const auto& [name, tensor] : dict) {
    const std::string key = prefix + "." + name;
    check_key(key);
    for (const auto& [k, v] : added) TL_CHECK(k != key, "OutputArchive: key '", key, "' was already written");
    TL_CHECK(tensor.defined(), "OutputArchive: expected a defined tensor for key '", key, "'");
    added.emplace_back(key, tensor);
  }
  entries_.insert(entries_.end(), added.begin(), added.end());
}

void OutputArchive::save_to(const std::string& path) const {
  nn::StateDict tensors;
  Json list = Json::array();
  for (const auto& [key, value] : entries_) {
    if (const auto* t = std::get_if<Tensor>(&value)) {
      tensors.emplace_back(key, *t);
      list.push_back({key, kTypes[0]});
    } else {
      list.push_back({key, kTypes[value.index()], text_of(value)});
    }
  }
  std::string text;
  try {
    text = Json{{"version", kVersion}, {"entries", std::move(list)}}.dump(-1, ' ', false, Json::error_handler_t::strict);
  } catch (const Json::exception& e) {
    TL_CHECK(false, "OutputArchive: ", path, ": a key or string value is not valid UTF-8 (", e.what(), ")");
  }
  nn::save_safetensors(path, tensors, {{kEntry, text}});
}

void InputArchive::load_from(const std::string& path) {
  const nn::SafetensorsMetadata metadata = nn::load_safetensors_metadata(path);
  nn::StateDict tensors = nn::load_safetensors(path);
  const auto it = metadata.find(kEntry);
  TL_CHECK(it != metadata.end(), "InputArchive: ", path, ": not a torchless archive (no \"", kEntry,
           "\" entry in __metadata__)");
  const Json json = Json::parse(it->second, nullptr, /*allow_exceptions=*/false);
  // Errors name a bad value's JSON type, never dump it: a hostile file may nest it arbitrarily deep.
  TL_CHECK(json.is_object() && json.contains("entries") && json["entries"].is_array(), "InputArchive: ", path,
           ": the \"", kEntry, "\" entry is not a JSON object with an \"entries\" list");
  TL_CHECK(json.contains("version") && json["version"] == kVersion, "InputArchive: ", path,
           ": expected archive version ", kVersion);
  std::map<std::string, Tensor> by_name(tensors.begin(), tensors.end());
  std::vector<std::pair<std::string, Value>> entries;
  std::map<std::string, bool> seen;
  for (const Json& entry : json["entries"]) {
    TL_CHECK(entry.is_array() && entry.size() >= 2 && entry.size() <= 3 && entry[0].is_string() &&
                 entry[1].is_string() && (entry.size() == 2 || entry[2].is_string()),
             "InputArchive: ", path, ": an entry is not [key, type] or [key, type, text] of strings");
    const std::string key = entry[0].get<std::string>(), type = entry[1].get<std::string>();
    TL_CHECK(seen.emplace(key, true).second, "InputArchive: ", path, ": key '", key, "' appears twice");
    size_t index = 0;
    while (index < std::size(kTypes) && type != kTypes[index]) ++index;
    TL_CHECK(index < std::size(kTypes), "InputArchive: ", path, ": entry '", key, "' has an unknown type '", type, "'");
    TL_CHECK((index == 0) == (entry.size() == 2), "InputArchive: ", path, ": entry '", key, "' of type ", type,
             (index == 0 ? " has a text" : " has no text"));
    if (index == 0) {
      const auto t = by_name.find(key);
      TL_CHECK(t != by_name.end(), "InputArchive: ", path, ": tensor entry '", key, "' has no tensor in the file");
      entries.emplace_back(key, t->second);
      by_name.erase(t);
    } else {
      entries.emplace_back(key, parse_value(index, entry[2].get<std::string>(), key, path));
    }
  }
  TL_CHECK(by_name.empty(), "InputArchive: ", path, ": tensor '", by_name.empty() ? "" : by_name.begin()->first,
           "' has no entry in the archive");
  path_ = path;
  entries_ = std::move(entries);
}

const Value& InputArchive::find(const std::string& key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return v;
  detail::throw_error(detail::str_cat("InputArchive: no key '", key, "' in ",
                                      path_.empty() ? "an empty archive" : path_));
}

template <typename T>
void InputArchive::read_as(const std::string& key, T& out) const {
  const Value& value = find(key);
  const size_t wanted = Value(std::in_place_type<T>).index();
  TL_CHECK(std::holds_alternative<T>(value), "InputArchive: key '", key, "' holds a ", kTypes[value.index()],
           ", not a ", kTypes[wanted]);
  out = std::get<T>(value);
}

void InputArchive::read(const std::string& key, Tensor& out) const { read_as(key, out); }
void InputArchive::read(const std::string& key, int64_t& out) const { read_as(key, out); }
void InputArchive::read(const std::string& key, double& out) const { read_as(key, out); }
void InputArchive::read(const std::string& key, bool& out) const { read_as(key, out); }
void InputArchive::read(const std::string& key, std::string& out) const { read_as(key, out); }
void InputArchive::read(const std::string& key, std::vector<uint8_t>& out) const { read_as(key, out); }

void InputArchive::read(const std::string& prefix, nn::StateDict& out) const {
  nn::StateDict dict;
  const std::string start = prefix + ".";
  for (const auto& [key, value] : entries_)
    if (key.starts_with(start) && std::holds_alternative<Tensor>(value))
      dict.emplace_back(key.substr(start.size()), std::get<Tensor>(value));
  TL_CHECK(!dict.empty(), "InputArchive: no tensor under '", start, "' in ",
           path_.empty() ? "an empty archive" : path_);
  out = std::move(dict);
}

bool InputArchive::contains(const std::string& key) const {
  for (const auto& [k, v] : entries_)
    if (k == key) return true;
  return false;
}

std::vector<std::string> InputArchive::keys() const {
  std::vector<std::string> keys;
  for (const auto& [k, v] : entries_) keys.push_back(k);
  return keys;
}

}  // namespace tl::serialize
