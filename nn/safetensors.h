// nn/safetensors.h — reads and writes the safetensors format: an 8-byte little-endian header length,
// a JSON header {name: {dtype, shape, data_offsets}, "__metadata__": {str: str}}, then raw data.
// A file is fully validated before any tensor is allocated; every problem is a tl::Error.
#pragma once

#include <cstddef>
#include <map>
#include <span>
#include <string>

#include "core/tensor.h"
#include "nn/state_dict.h"

namespace tl::nn {

/// The free-form string map a safetensors file stores under "__metadata__".
using SafetensorsMetadata = std::map<std::string, std::string>;

/// Every tensor of the safetensors file at `path`, in the order of its JSON header, each a fresh
/// contiguous tensor that shares nothing with the file. A path ending in ".gz" is gzip data, as
/// save_safetensors writes it: decompressed as it is read (once more first, to know its size), with
/// every check below made on the decompressed bytes. Supported dtypes: F32, F64, I64, I32, BOOL,
/// BF16, I8, U8; an entry with quantizer entries beside it (nn/quantized_entries.h) is returned as the
/// quantized tensor they describe, and they are not returned themselves. Throws tl::Error naming the file and the problem when the file is missing or unreadable, its
/// gzip data is corrupt or truncated (core/gzip.h's words),
/// shorter than 8 bytes, declares a header beyond the file or over 100 MB, holds invalid JSON, JSON
/// nested deeper than 128 levels or a JSON value other than an object, an entry without a string
/// dtype, an integer shape and two integer data_offsets, an unsupported dtype, a negative or
/// overflowing shape, a byte range whose size is not numel * element size, a range outside the data
/// section, overlapping ranges, a duplicate name, a field given twice in one entry (or a key twice
/// in __metadata__), a BOOL byte other than 0 or 1, or quantizer entries join_quantized refuses (a
/// missing scale, naming it). Gaps between ranges are tolerated.
StateDict load_safetensors(const std::string& path);

/// Every tensor of the safetensors file held in `data` (read into memory, received over a network),
/// validated and returned exactly as load_safetensors(path) does; `name` stands for the file in error
/// messages. The tensors share nothing with `data`.
StateDict load_safetensors(std::span<const std::byte> data, const std::string& name = "<bytes>");

/// The "__metadata__" map of the file at `path` (empty when absent). Reads and validates the header
/// exactly as load_safetensors does, but no tensor data.
SafetensorsMetadata load_safetensors_metadata(const std::string& path);

/// Writes `tensors` (any strides, any supported dtype, 0-size allowed) to `path` the way the
/// reference implementation does: entries sorted by descending dtype alignment then by name,
/// "__metadata__" first when `metadata` is not empty, the header padded with spaces to a multiple of
/// 8 bytes, contiguous little-endian data without gaps. The file is written through tl::FileWriter (a
/// unique temporary beside `path`, renamed into place), so a failed save leaves an existing file
/// untouched and no temporary behind; like every FileWriter target, a path ending in ".gz" is
/// gzip-compressed (and load_safetensors reads it back). Throws tl::Error for an undefined
/// or proxy tensor, a duplicate name, the reserved name "__metadata__", a name or metadata string
/// that is not valid UTF-8, a header longer than the 100 MB load_safetensors (and the reference
/// implementation) read, or an I/O failure. A quantized tensor is written as its integers and quantizer
/// entries (split_quantized, nn/quantized_entries.h: key.q_scale, key.q_per_channel_scales, ...).
void save_safetensors(const std::string& path, const StateDict& tensors,
                      const SafetensorsMetadata& metadata = {});

}  // namespace tl::nn
