// nn/safetensors.cpp — safetensors reader and writer. The header is parsed and every entry checked
// against the file size before any tensor is allocated, so a hostile file costs at most its own
// (decompressed) size in memory.
#include "nn/safetensors.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <span>

#include "core/file_writer.h"
#include "core/gzip.h"
#include "nn/quantized_entries.h"

namespace tl::nn {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian and is copied byte for byte");

// Ordered, so a header is written in the order of its entries.
using Json = nlohmann::ordered_json;
// A header is read into a map-backed value (ordered_json finds a key by linear search, which made a
// header of a million entries take minutes); parse_header_json keeps the order of its entries.
using ReadJson = nlohmann::json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // the reference implementation's limit
constexpr int64_t kLengthBytes = 8;
constexpr const char* kMetadataKey = "__metadata__";
// Nesting the header may have (the reference implementation's JSON parser stops at 128 too): a valid
// header nests 3 deep, and error messages print JSON values recursively.
constexpr int kMaxJsonDepth = 128;

struct DTypeCode {
  const char* code;
  DType dtype;
};
// In descending alignment: the reference writer orders entries this way, then by name.
constexpr DTypeCode kDTypeCodes[] = {{"I64", DType::Int64},     {"F64", DType::Float64}, {"F32", DType::Float32},
                                     {"I32", DType::Int32},     {"BF16", DType::BFloat16}, {"I8", DType::Int8},
                                     {"U8", DType::UInt8},      {"BOOL", DType::Bool}};

// TL_CHECK with the file named first; like TL_CHECK, the message is built only on failure.
#define TL_FILE_CHECK(cond, path, ...) TL_CHECK(cond, "safetensors: ", path, ": ", __VA_ARGS__)

int64_t rank_of(DType dtype) {
  for (int64_t i = 0; i < std::ssize(kDTypeCodes); ++i) {
    if (kDTypeCodes[i].dtype == dtype) return i;
  }
  TL_INTERNAL_ASSERT(false, "safetensors: no code for ", dtype);
  return 0;
}

const char* code_of(DType dtype) { return kDTypeCodes[rank_of(dtype)].code; }

// A JSON value for an error message, cut short so a huge header never floods it.
std::string brief(const ReadJson& value) {
  std::string text = value.dump();
  constexpr size_t kMax = 60;
  return text.size() <= kMax ? text : text.substr(0, kMax) + "...";
}

std::string errno_text() { return std::strerror(errno); }

void check_regular_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  TL_FILE_CHECK(std::filesystem::exists(status), path, "file not found");
  TL_FILE_CHECK(std::filesystem::is_regular_file(status), path, "not a regular file");
}

// The bytes of a safetensors file, read piecewise: from disk or from a caller's buffer. `name` (the
// path, or what the caller calls the buffer) starts every error message.
class Input {
 public:
  explicit Input(std::string name) : name_(std::move(name)) {}
  virtual ~Input() = default;
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  const std::string& name() const { return name_; }
  int64_t size() const { return size_; }
  /// Copies `bytes` bytes at `offset` to `dst`; the range is known to lie within size().
  virtual void read(int64_t offset, void* dst, int64_t bytes) = 0;

 protected:
  std::string name_;
  int64_t size_ = 0;
};

class InputFile : public Input {
 public:
  explicit InputFile(const std::string& path) : Input(path), file_(nullptr, &std::fclose) {
    check_regular_file(path);
    std::error_code ec;
    size_ = static_cast<int64_t>(std::filesystem::file_size(path, ec));
    TL_FILE_CHECK(!ec, path, "cannot read the file size (", ec.message(), ")");
    file_.reset(std::fopen(path.c_str(), "rb"));
    TL_FILE_CHECK(file_ != nullptr, path, "cannot open (", errno_text(), ")");
  }

  void read(int64_t offset, void* dst, int64_t bytes) override {
    if (bytes == 0) return;
    const bool ok = fseeko(file_.get(), offset, SEEK_SET) == 0 &&
                    std::fread(dst, 1, static_cast<size_t>(bytes), file_.get()) == static_cast<size_t>(bytes);
    TL_FILE_CHECK(ok, name_, "reading ", bytes, " bytes at offset ", offset, " failed (",
                  std::ferror(file_.get()) ? errno_text() : std::string("unexpected end of file"), ")");
  }

 private:
  std::unique_ptr<std::FILE, decltype(&std::fclose)> file_;
};

// A gzip'd file (a ".gz" path, as save_safetensors writes one), decompressed as it is read. The
// decompressed size is counted by a first pass, so a header is checked against it as against a
// file's size; reads then come in ascending order of offset (read_tensors reads in file order).
class InputGzipFile : public Input {
 public:
  explicit InputGzipFile(const std::string& path) : Input(path) {
    check_regular_file(path);
    open();
    std::vector<char> scratch(kChunk);
    while (const size_t n = reader_->read(scratch.data(), scratch.size())) size_ += static_cast<int64_t>(n);
    open();
  }

  void read(int64_t offset, void* dst, int64_t bytes) override {
    if (bytes == 0) return;
    TL_INTERNAL_ASSERT(offset >= position_, "safetensors: a gzip'd file is read forward, but offset ", offset,
                       " comes after ", position_);
    std::vector<char> skipped(static_cast<size_t>(std::min<int64_t>(offset - position_, kChunk)));
    while (position_ < offset) next(skipped.data(), std::min<int64_t>(offset - position_, kChunk));
    next(static_cast<char*>(dst), bytes);
  }

 private:
  static constexpr int64_t kChunk = int64_t{1} << 16;

  // Starts decompressing from the first byte; errors name the file as every safetensors error does.
  void open() {
    reader_.reset();
    file_ = std::make_unique<std::filebuf>();
    TL_FILE_CHECK(file_->open(name_, std::ios::in | std::ios::binary), name_, "cannot open (", errno_text(), ")");
    reader_ = std::make_unique<GzipReader>(*file_, "safetensors: " + name_);
    position_ = 0;
  }
  // Reads exactly `bytes` decompressed bytes into `out`.
  void next(char* out, int64_t bytes) {
    for (int64_t done = 0; done < bytes;) {
      const size_t n = reader_->read(out + done, static_cast<size_t>(bytes - done));
      TL_FILE_CHECK(n > 0, name_, "the gzip data ended after ", position_ + done,
                    " bytes, before the size its first reading counted (the file changed?)");
      done += static_cast<int64_t>(n);
    }
    position_ += bytes;
  }

  std::unique_ptr<std::filebuf> file_;
  std::unique_ptr<GzipReader> reader_;
  int64_t position_ = 0;  ///< decompressed bytes read so far
};

class InputBytes : public Input {
 public:
  InputBytes(std::span<const std::byte> data, const std::string& name) : Input(name), data_(data) {
    size_ = static_cast<int64_t>(data.size());
  }

  void read(int64_t offset, void* dst, int64_t bytes) override {
    TL_INTERNAL_ASSERT(0 <= offset && 0 <= bytes && bytes <= size_ - offset, "safetensors: reading ", bytes,
                       " bytes at offset ", offset, " of a ", size_, "-byte buffer");
    if (bytes > 0) std::memcpy(dst, data_.data() + offset, static_cast<size_t>(bytes));
  }

 private:
  std::span<const std::byte> data_;
};

struct Entry {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  int64_t begin = 0;  ///< byte range [begin, end) within the data section
  int64_t end = 0;
};

struct Header {
  std::vector<Entry> entries;      ///< in the header's order
  std::vector<size_t> file_order;  ///< entry indices by ascending begin
  SafetensorsMetadata metadata;
  int64_t data_start = 0;  ///< file offset of the data section
};

struct HeaderJson {
  ReadJson json;
  std::vector<std::string> keys;  ///< the top-level keys in the order of the text
};

// One pass over the header text before it becomes a JSON value: bounds its nesting, keeps the order
// of the top-level names and finds a name, or a field of one entry, given twice (a JSON value would
// keep one silently).
// nlohmann's parse callback cannot do this: it scans a parent object each time a child ends,
// quadratic in the entries (10^5 entries took minutes).
class HeaderScan : public nlohmann::json_sax<ReadJson> {
 public:
  explicit HeaderScan(const std::string& path) : path_(path) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (depth_ == 1) fields_.clear();  // an entry (or __metadata__) begins
    return open();
  }
  bool start_array(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& name) override {
    if (depth_ == 1) {
      if (!names_.insert(name).second && duplicate_.empty()) duplicate_ = name;
      keys_.push_back(name);
    } else if (depth_ == 2 && !keys_.empty() && !fields_.insert(name).second && duplicate_field_.second.empty()) {
      // (no top-level key yet: the header is an array, refused once parsed)
      duplicate_field_ = {keys_.back(), name};
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error_ = e.what();
    return false;
  }

  const std::string& error() const { return error_; }
  const std::string& duplicate() const { return duplicate_; }
  /// (entry name, field) of the first field given twice inside one entry; empty strings when none.
  const std::pair<std::string, std::string>& duplicate_field() const { return duplicate_field_; }
  std::vector<std::string> take_keys() { return std::move(keys_); }

 private:
  bool open() {
    TL_FILE_CHECK(depth_ < kMaxJsonDepth, path_, "the JSON header nests deeper than ", kMaxJsonDepth, " levels");
    ++depth_;
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  const std::string& path_;
  int depth_ = 0;
  std::set<std::string> names_;
  std::vector<std::string> keys_;
  std::string duplicate_;
  std::set<std::string> fields_;  ///< of the current entry
  std::pair<std::string, std::string> duplicate_field_;
  std::string error_;
};

HeaderJson parse_header_json(const std::string& text, const std::string& path) {
  HeaderScan scan(path);
  ReadJson::sax_parse(text, &scan);
  TL_FILE_CHECK(scan.error().empty(), path, "invalid JSON header (", scan.error(), ")");
  // The scan accepted the text, so parsing it again cannot fail.
  HeaderJson header{ReadJson::parse(text), scan.take_keys()};
  TL_FILE_CHECK(header.json.is_object(), path, "the JSON header is ", header.json.type_name(),
                ", expected an object");
  TL_FILE_CHECK(scan.duplicate().empty(), path, "the name '", scan.duplicate(),
                "' appears more than once in the header");
  const auto& [entry, field] = scan.duplicate_field();
  if (entry == kMetadataKey)
    TL_FILE_CHECK(field.empty(), path, kMetadataKey, " has the key '", field, "' more than once");
  else
    TL_FILE_CHECK(field.empty(), path, "tensor '", entry, "' has the field '", field, "' more than once");
  return header;
}

SafetensorsMetadata parse_metadata(const ReadJson& value, const std::string& path) {
  TL_FILE_CHECK(value.is_object(), path, kMetadataKey, " is ", value.type_name(),
                ", expected an object of strings");
  SafetensorsMetadata metadata;
  for (const auto& [key, item] : value.items()) {
    TL_FILE_CHECK(item.is_string(), path, kMetadataKey, " value for '", key, "' is ", brief(item),
                  ", expected a string");
    metadata[key] = item.get<std::string>();
  }
  return metadata;
}

int64_t json_int(const ReadJson& value, const std::string& path, const std::string& name, const char* field) {
  TL_FILE_CHECK(value.is_number_integer(), path, "tensor '", name, "': ", field, " holds ", brief(value),
                ", expected an integer");
  TL_FILE_CHECK(!value.is_number_unsigned() || value.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX),
                path, "tensor '", name, "': ", field, " value ", brief(value), " is too large");
  return value.get<int64_t>();
}

DType dtype_from_code(const ReadJson& value, const std::string& path, const std::string& name) {
  TL_FILE_CHECK(value.is_string(), path, "tensor '", name, "': dtype is ", brief(value),
                ", expected a string");
  const std::string code = value.get<std::string>();
  for (const DTypeCode& c : kDTypeCodes) {
    if (code == c.code) return c.dtype;
  }
  TL_FILE_CHECK(false, path, "tensor '", name, "': unsupported dtype '", code,
                "' (supported: F32, F64, I64, I32, BOOL, BF16)");
  return DType::Float32;
}

// Bytes the entry's shape and dtype need; throws for negative sizes and int64 overflow (of the bytes,
// or of the nonzero sizes of a shape with a 0).
int64_t required_bytes(const Entry& e, const std::string& path) {
  for (int64_t d : e.shape)
    TL_FILE_CHECK(d >= 0, path, "tensor '", e.name, "': negative dimension ", d, " in shape ", e.shape);
  if (std::find(e.shape.begin(), e.shape.end(), 0) != e.shape.end()) {
    // No bytes, but the other sizes must still multiply within int64 (tl::check_sizes' rule).
    TL_FILE_CHECK(sizes_fit_int64(e.shape), path, "tensor '", e.name, "': shape ", e.shape,
                  " is too large: its nonzero dimensions multiply past int64");
    return 0;
  }
  int64_t bytes = element_size(e.dtype);
  for (int64_t d : e.shape) {
    TL_FILE_CHECK(!__builtin_mul_overflow(bytes, d, &bytes), path, "tensor '", e.name, "': shape ", e.shape,
                  " of ", code_of(e.dtype), " needs more bytes than int64 can count");
  }
  return bytes;
}

Entry parse_entry(const std::string& name, const ReadJson& value, int64_t data_bytes, const std::string& path) {
  TL_FILE_CHECK(value.is_object(), path, "tensor '", name, "' is ", brief(value),
                ", expected an object with dtype, shape and data_offsets");
  const auto field = [&](const char* key) -> const ReadJson& {
    const auto it = value.find(key);
    TL_FILE_CHECK(it != value.end(), path, "tensor '", name, "' has no '", key, "' field");
    return *it;
  };
  const ReadJson& dtype = field("dtype");
  const ReadJson& shape = field("shape");
  const ReadJson& offsets = field("data_offsets");
  Entry e{name, dtype_from_code(dtype, path, name), {}, 0, 0};
  TL_FILE_CHECK(shape.is_array(), path, "tensor '", name, "': shape is ", brief(shape),
                ", expected an array of integers");
  for (const ReadJson& d : shape) e.shape.push_back(json_int(d, path, name, "shape"));
  const int64_t bytes = required_bytes(e, path);
  TL_FILE_CHECK(offsets.is_array() && offsets.size() == 2, path, "tensor '", name, "': data_offsets is ",
                brief(offsets), ", expected [begin, end]");
  e.begin = json_int(offsets[0], path, name, "data_offsets");
  e.end = json_int(offsets[1], path, name, "data_offsets");
  TL_FILE_CHECK(e.begin <= e.end, path, "tensor '", name, "': data_offsets [", e.begin, ", ", e.end,
                "] end before they begin");
  TL_FILE_CHECK(0 <= e.begin && e.end <= data_bytes, path, "tensor '", name, "': data_offsets [", e.begin,
                ", ", e.end, "] lie outside the data section of ", data_bytes, " bytes");
  TL_FILE_CHECK(e.end - e.begin == bytes, path, "tensor '", name, "': data_offsets [", e.begin, ", ", e.end,
                "] hold ", e.end - e.begin, " bytes but shape ", e.shape, " of ", code_of(e.dtype), " needs ",
                bytes);
  return e;
}

// Orders the entries by position in the file and rejects two that share a byte.
std::vector<size_t> check_no_overlap(const std::vector<Entry>& entries, const std::string& path) {
  std::vector<size_t> order(entries.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(entries[a].begin, entries[a].end) < std::pair(entries[b].begin, entries[b].end);
  });
  const Entry* previous = nullptr;
  for (size_t i : order) {
    const Entry& e = entries[i];
    if (e.begin == e.end) continue;
    if (previous != nullptr) {
      TL_FILE_CHECK(previous->end <= e.begin, path, "tensors '", previous->name, "' [", previous->begin, ", ",
                    previous->end, ") and '", e.name, "' [", e.begin, ", ", e.end, ") overlap");
    }
    previous = &e;
  }
  return order;
}

Header read_header(Input& file) {
  const std::string& path = file.name();
  TL_FILE_CHECK(file.size() >= kLengthBytes, path, "the file is ", file.size(),
                " bytes, shorter than the 8-byte header length");
  unsigned char raw[kLengthBytes];
  file.read(0, raw, kLengthBytes);
  uint64_t length = 0;
  for (int i = kLengthBytes - 1; i >= 0; --i) length = length << 8 | raw[i];
  TL_FILE_CHECK(length <= kMaxHeaderBytes, path, "header length ", length, " exceeds the limit of ",
                kMaxHeaderBytes, " bytes");
  const int64_t header_bytes = static_cast<int64_t>(length);
  TL_FILE_CHECK(header_bytes <= file.size() - kLengthBytes, path, "header length ", header_bytes,
                " runs past the end of the file (", file.size(), " bytes)");
  std::string text(static_cast<size_t>(header_bytes), '\0');
  file.read(kLengthBytes, text.data(), header_bytes);
  const HeaderJson parsed = parse_header_json(text, path);

  Header header;
  header.data_start = kLengthBytes + header_bytes;
  const int64_t data_bytes = file.size() - header.data_start;
  for (const std::string& key : parsed.keys) {
    const ReadJson& value = parsed.json.at(key);
    if (key == kMetadataKey) {
      header.metadata = parse_metadata(value, path);
    } else {
      header.entries.push_back(parse_entry(key, value, data_bytes, path));
    }
  }
  header.file_order = check_no_overlap(header.entries, path);
  return header;
}

// A BOOL byte other than 0 or 1 is not a C++ bool; reading it as one would be undefined.
void check_bools(const Tensor& t, const std::string& name, const std::string& path) {
  const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
  const auto* bad = std::find_if(bytes, bytes + t.numel(), [](unsigned char b) { return b > 1; });
  if (bad == bytes + t.numel()) return;
  TL_FILE_CHECK(false, path, "tensor '", name, "': BOOL element ", bad - bytes, " holds byte ",
                static_cast<int>(*bad), ", expected 0 or 1");
}

// Entry indices in the reference writer's order, after checking that every tensor can be written.
std::vector<size_t> write_order(const StateDict& tensors, const std::string& path) {
  std::set<std::string> names;
  for (const auto& [name, t] : tensors) {
    TL_FILE_CHECK(name != kMetadataKey, path, "'", kMetadataKey, "' is reserved and cannot name a tensor");
    TL_FILE_CHECK(names.insert(name).second, path, "the name '", name, "' is given to more than one tensor");
    TL_FILE_CHECK(t.defined(), path, "tensor '", name, "' is undefined (None)");
    TL_FILE_CHECK(!t.is_proxy(), path, "tensor '", name, "' is a symbolic proxy and has no data");
  }
  std::vector<size_t> order(tensors.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(rank_of(tensors[a].second.dtype()), tensors[a].first) <
           std::pair(rank_of(tensors[b].second.dtype()), tensors[b].first);
  });
  return order;
}

std::string header_text(const StateDict& tensors, const std::vector<size_t>& order,
                        const SafetensorsMetadata& metadata, const std::string& path) {
  Json header = Json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  int64_t offset = 0;
  for (size_t i : order) {
    const Tensor& t = tensors[i].second;
    Json entry = Json::object();
    entry["dtype"] = code_of(t.dtype());
    entry["shape"] = t.shape().vec();
    entry["data_offsets"] = Json::array({offset, offset + t.nbytes()});
    header[tensors[i].first] = std::move(entry);
    offset += t.nbytes();
  }
  std::string text;
  try {
    text = header.dump(-1, ' ', false, Json::error_handler_t::strict);
  } catch (const Json::exception& e) {
    TL_FILE_CHECK(false, path, "a tensor name or metadata string is not valid UTF-8 (", e.what(), ")");
  }
  text.append((kLengthBytes - text.size() % kLengthBytes) % kLengthBytes, ' ');
  // What one side writes the other must read: a reader (this one, the reference implementation) refuses more.
  TL_FILE_CHECK(text.size() <= kMaxHeaderBytes, path, "the header would be ", text.size(), " bytes, more than the ",
                kMaxHeaderBytes, " bytes a reader takes (long strings in the metadata, or very many tensors)");
  return text;
}

StateDict read_tensors(Input& input) {
  const Header header = read_header(input);
  StateDict out(header.entries.size());
  // Read in file order: one forward pass over the disk.
  for (size_t i : header.file_order) {
    const Entry& e = header.entries[i];
    Tensor t = Tensor::allocate(e.shape, e.dtype);
    input.read(header.data_start + e.begin, t.raw_data(), e.end - e.begin);
    if (e.dtype == DType::Bool) check_bools(t, e.name, input.name());
    out[i] = {e.name, std::move(t)};
  }
  return out;
}

// The file at `path`, decompressed when the path ends in ".gz" as FileWriter compresses it.
std::unique_ptr<Input> open_input(const std::string& path) {
  if (path.ends_with(".gz")) return std::make_unique<InputGzipFile>(path);
  return std::make_unique<InputFile>(path);
}

}  // namespace

StateDict load_safetensors(const std::string& path) {
  return join_quantized(read_tensors(*open_input(path)), "safetensors: " + path + ": ");
}

StateDict load_safetensors(std::span<const std::byte> data, const std::string& name) {
  InputBytes bytes(data, name);
  return join_quantized(read_tensors(bytes), "safetensors: " + name + ": ");
}

SafetensorsMetadata load_safetensors_metadata(const std::string& path) {
  return read_header(*open_input(path)).metadata;
}

void save_safetensors(const std::string& path, const StateDict& dict, const SafetensorsMetadata& metadata) {
  const StateDict tensors = split_quantized(dict);
  const std::vector<size_t> order = write_order(tensors, path);
  const std::string header = header_text(tensors, order, metadata, path);
  unsigned char length[kLengthBytes];
  for (int i = 0; i < kLengthBytes; ++i) length[i] = static_cast<unsigned char>(header.size() >> (8 * i));

  FileWriter out(path, "safetensors");
  out.write(length, kLengthBytes);
  out.write(header.data(), header.size());
  for (size_t i : order) {
    const Tensor& t = tensors[i].second;
    const Tensor data = t.is_contiguous() ? t : t.contiguous();
    out.write(data.raw_data(), static_cast<size_t>(data.nbytes()));
  }
  out.commit();
}

}  // namespace tl::nn
