#!/usr/bin/env python3
"""Regenerates fuzz/corpus/<target>/: valid seeds written by torchless itself (the make_seeds program)
and the PyTorch trace fixtures of tests/, then one broken variant per way a file can be wrong.

Names say what the replay test (fuzz/replay.cpp) expects: ok-* must parse, bad-* must be rejected
with tl::Error; other names need only keep the contract (parse or tl::Error).
usage: make_corpus.py BUILD_DIR   (first: ninja -C BUILD_DIR fuzz/make_seeds)"""
import gzip, io, json, pathlib, shutil, struct, subprocess, sys, tempfile, zlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"


def split_safetensors(blob):
    """(header as an ordered dict, data bytes) of a safetensors file."""
    (length,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8:8 + length]), blob[8 + length:]


def safetensors(header, data, length=None):
    """A safetensors file from a header (dict or raw text) and data; `length` overrides the length field."""
    text = header if isinstance(header, (str, bytes)) else json.dumps(header, separators=(",", ":"))
    text = text.encode() if isinstance(text, str) else text
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text) if length is None else length) + text + data


def with_entry(header, name, **fields):
    h = json.loads(json.dumps(header))
    h[name].update(fields)
    return h


def safetensors_variants(seed):
    header, data = split_safetensors(seed)
    f32 = header["f32"]["data_offsets"]
    yield "bad-empty", b""
    yield "bad-short", seed[:5]
    yield "bad-truncated_header", seed[:40]
    yield "bad-truncated_data", seed[:-3]
    yield "bad-header_length_huge", safetensors(header, data, length=2**64 - 1)
    yield "bad-header_length_over_limit", safetensors(header, data, length=100_000_001)
    yield "bad-header_length_past_end", safetensors(header, b"", length=len(seed))
    text = json.dumps(header)
    yield "bad-json_syntax", safetensors(text[:-1], data)
    yield "bad-json_array", safetensors("[]", data)
    yield "bad-json_trailing", safetensors(text + "x", data)
    yield "bad-json_deep", safetensors('{"a":' + "[" * 200 + "]" * 200 + "}", data)
    yield "bad-json_invalid_utf8", safetensors(b'{"\xff\xfe":{}}', data)
    yield "bad-dtype_unknown", safetensors(with_entry(header, "f32", dtype="F16"), data)
    yield "bad-dtype_number", safetensors(with_entry(header, "f32", dtype=5), data)
    yield "bad-shape_negative", safetensors(with_entry(header, "f32", shape=[-2, -3]), data)
    yield "bad-shape_huge", safetensors(with_entry(header, "f32", shape=[2**62, 2**62]), data)
    yield "bad-shape_float", safetensors(with_entry(header, "f32", shape=[6.0]), data)
    yield "bad-shape_unsigned_overflow", safetensors(with_entry(header, "f32", shape=[2**64 - 1]), data)
    def offsets(*values):
        return safetensors(with_entry(header, "f32", data_offsets=list(values)), data)
    i64 = header["i64"]["data_offsets"]
    yield "bad-offsets_out_of_range", offsets(len(data), len(data) + 24)
    yield "bad-offsets_reversed", offsets(f32[1], f32[0])
    yield "bad-offsets_size_mismatch", offsets(f32[0], f32[1] - 4)
    yield "bad-offsets_overlap", offsets(i64[0], i64[0] + 24)
    yield "bad-offsets_not_pair", offsets(f32[0])
    yield "bad-entry_missing_field", safetensors({"x": {"dtype": "F32", "shape": [1]}}, b"\0" * 4)
    yield "bad-duplicate_name", safetensors('{"x":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},'
                                            '"x":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', b"\0" * 8)
    bools = header["bool"]["data_offsets"]
    yield "bad-bool_byte", safetensors(header, data[:bools[0]] + b"\x02" + data[bools[0] + 1:])
    yield "bad-metadata_not_string", safetensors({"__metadata__": {"format": 1}}, b"")
    yield "ok-empty_header", safetensors("{}", b"")
    yield "ok-zero_size_large_dims", safetensors({"z": {"dtype": "F64", "shape": [0, 2**31, 2**31],
                                                        "data_offsets": [0, 0]}}, b"")
    yield "bad-zero_size_huge_dims", safetensors({"z": {"dtype": "F64", "shape": [0, 2**62, 2**62],
                                                        "data_offsets": [0, 0]}}, b"")
    yield "bad-zero_size_overflow_before_zero", safetensors({"z": {"dtype": "F64", "shape": [2**62, 4, 0],
                                                                   "data_offsets": [0, 0]}}, b"")
    yield "ok-gap", safetensors({"a": {"dtype": "I32", "shape": [1], "data_offsets": [4, 8]}}, b"\0" * 12)


def state_dict_variants(seed):
    header, data = split_safetensors(seed)
    missing = {k: v for k, v in header.items() if k != "bn1.running_var"}
    yield "bad-missing_key", safetensors(missing, data)
    extra = dict(header)
    extra["extra.weight"] = {"dtype": "F32", "shape": [1], "data_offsets": [len(data), len(data) + 4]}
    yield "bad-unexpected_key", safetensors(extra, data + b"\0" * 4)
    bigger = with_entry(header, "bn1.num_batches_tracked", shape=[2], data_offsets=[len(data), len(data) + 16])
    yield "bad-shape_mismatch", safetensors(bigger, data + b"\0" * 16)
    # Counters stored as float32 NaN, +inf and 1e30, which an int64 cannot hold.
    for name, value in [("nan", float("nan")), ("inf", float("inf")), ("huge", 1e30)]:
        h = with_entry(header, "bn1.num_batches_tracked", dtype="F32", data_offsets=[len(data), len(data) + 4])
        yield f"counter_{name}", safetensors(h, data + struct.pack("<f", value))
    yield "bad-not_safetensors", b'{"conv1.weight": [1.0]}'


def gzip_member(payload, flags=0, extra=b"", name=b"", comment=b"", level=9, strategy=zlib.Z_DEFAULT_STRATEGY):
    """One gzip member written field by field, so every optional header field can be present."""
    header = b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\xff"
    if flags & 0x04:
        header += struct.pack("<H", len(extra)) + extra
    if flags & 0x08:
        header += name + b"\0"
    if flags & 0x10:
        header += comment + b"\0"
    if flags & 0x02:
        header += struct.pack("<H", zlib.crc32(header) & 0xFFFF)
    deflate = zlib.compressobj(level, zlib.DEFLATED, -15, 9, strategy)
    body = deflate.compress(payload) + deflate.flush()
    return header + body + struct.pack("<II", zlib.crc32(payload), len(payload) & 0xFFFFFFFF)


def bits_to_bytes(bits):
    """DEFLATE packs bits least significant first; `bits` is a list of (value, count) fields."""
    out, acc, n = bytearray(), 0, 0
    for value, count in bits:
        acc |= value << n
        n += count
    while n > 0:
        out.append(acc & 0xFF)
        acc >>= 8
        n -= 8
    return bytes(out)


def reversed_code(code, length):
    return int(format(code, f"0{length}b")[::-1], 2)


def trace_variants(seed):
    member = gzip_member(seed)
    yield "ok-toy_model.json.gz", gzip.compress(seed, mtime=0)
    yield "ok-stored.json.gz", gzip_member(seed, level=0)
    yield "ok-fixed_huffman.json.gz", gzip_member(seed, strategy=zlib.Z_FIXED)
    yield "ok-header_fields.json.gz", gzip_member(seed, flags=0x1E, extra=b"XY\x02\x00ab", name=b"t.json", comment=b"c")
    half = len(seed) // 2
    yield "ok-two_members.json.gz", gzip_member(seed[:half]) + gzip_member(seed[half:])
    yield "bad-gzip_crc", member[:-8] + bytes([member[-8] ^ 1]) + member[-7:]
    yield "bad-gzip_isize", member[:-4] + struct.pack("<I", len(seed) + 1)
    yield "bad-gzip_truncated", member[: len(member) // 2]
    yield "bad-gzip_trailing_garbage", member + b"garbage"
    yield "bad-gzip_reserved_flags", member[:3] + b"\x20" + member[4:]
    yield "bad-gzip_method", member[:2] + b"\x07" + member[3:]
    with_crc = gzip_member(seed, flags=0x02)
    yield "bad-gzip_header_crc", with_crc[:10] + bytes([with_crc[10] ^ 1]) + with_crc[11:]
    header = b"\x1f\x8b\x08\0\0\0\0\0\0\xff"
    yield "bad-gzip_block_type3", header + bits_to_bytes([(1, 1), (3, 2)]) + b"\0" * 8
    # A fixed-Huffman block whose first code copies 3 bytes from distance 1: nothing precedes it.
    yield "bad-gzip_distance_before_start", header + bits_to_bytes(
        [(1, 1), (1, 2), (reversed_code(1, 7), 7), (0, 5), (0, 7)]) + b"\0" * 8
    yield "bad-gzip_stored_length", header + bits_to_bytes([(1, 1), (0, 2)]) + b"\x05\x00\x00\x00" + b"\0" * 8
    yield "bad-gzip_empty", b"\x1f\x8b"
    events = json.loads(seed)["traceEvents"]
    def trace(evs, **top):
        return json.dumps({"traceEvents": evs, **top}).encode()
    first = next(e for e in events if e["ph"] == "X")
    yield "bad-json_truncated", seed[: len(seed) // 2]
    yield "bad-json_number", b"42"
    yield "bad-no_trace_events", b'{"schemaVersion": 1}'
    yield "bad-trace_events_object", b'{"traceEvents": {}}'
    yield "bad-event_not_object", trace([first, 7])
    yield "bad-negative_dur", trace([{**first, "dur": -1}])
    yield "bad-missing_ph", trace([{k: v for k, v in first.items() if k != "ph"}])
    yield "bad-missing_dur", trace([{k: v for k, v in first.items() if k != "dur"}])
    yield "bad-ts_out_of_range", trace([{**first, "ts": 1e300}])
    yield "bad-dur_string", trace([{**first, "dur": "5"}])
    yield "bad-pid_boolean", trace([{**first, "pid": True}])
    yield "bad-rank_string", trace([first], distributedInfo={"rank": "0"})
    yield "bad-memory_bytes_float", trace([{"ph": "i", "name": "[memory]", "ts": 1, "pid": 1, "tid": 1,
                                            "args": {"Bytes": 1.5}}])
    # Times at the edge of what nanoseconds in int64 can hold: ends, spans and sums must not overflow.
    edge = 9_000_000_000_000_000 - 1
    yield "bad-end_out_of_range", trace([{**first, "ts": edge, "dur": edge}])
    yield "extreme_times.json", trace([{**first, "ts": 0, "dur": edge}, {**first, "ts": 1, "dur": edge - 1},
                                          {**first, "name": "ProfilerStep#1", "ts": -edge, "dur": edge},
                                          {**first, "ts": -edge, "dur": 0}])


# Graph-edit programs (fuzz/graph_edit.cpp decodes them): one byte picks a step, the next ones its nodes
# and arguments. The toy model's traced nodes are x, conv1, bn1, conv2, nested_0, nested_1, wrapped_mod,
# output (indices 0-7); argument kinds: 0 a node of this graph, 3 a node of another graph.
GRAPH_EDIT_SEEDS = {
    "ok-run_copy_passes_print": [9, 15, 14, 11, 12, 13, 0, 13, 1],
    "ok-bypass_bn_then_dce": [4, 2, 1, 10, 9, 14, 15],
    "bad-use_of_later_node": [5, 1, 1, 0, 2, 9, 14],
    "bad-use_of_itself": [5, 1, 1, 0, 1, 9],
    "bad-node_of_other_graph": [5, 1, 1, 3, 0, 15],
    "bad-replacement_after_user": [4, 1, 3, 9],
    "bad-erase_used_node": [3, 1, 9],
    "bad-erase_output": [3, 7, 15],
    "bad-unknown_module": [2, 7, 0, 1, 0, 8, 9, 14],
}


def main():
    build = pathlib.Path(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([str(build / "fuzz" / "make_seeds"), tmp], check=True)
        seeds = pathlib.Path(tmp)
        if CORPUS.exists():
            shutil.rmtree(CORPUS)
        for target in ["safetensors", "state_dict", "trace"]:
            shutil.copytree(seeds / target, CORPUS / target)
        data = ROOT / "tests" / "profiler" / "trace" / "data"
        for fixture in ["legacy_profiler_steps.json", "kineto_rank1.json"]:
            shutil.copy(data / fixture, CORPUS / "trace" / ("ok-" + fixture))
        derived = [("safetensors", safetensors_variants, "ok-all_dtypes.safetensors", ".safetensors"),
                   ("state_dict", state_dict_variants, "ok-toy_model.safetensors", ".safetensors"),
                   ("trace", trace_variants, "ok-toy_model.json", ".json")]
        for target, variants, seed, suffix in derived:
            for name, blob in variants((CORPUS / target / seed).read_bytes()):
                file = name if "." in name else name + (".json.gz" if "gzip" in name else suffix)
                (CORPUS / target / file).write_bytes(blob)
    (CORPUS / "graph_edit").mkdir()
    for name, program in GRAPH_EDIT_SEEDS.items():
        (CORPUS / "graph_edit" / name).write_bytes(bytes(program))
    total = sum(f.stat().st_size for f in CORPUS.rglob("*") if f.is_file())
    print(f"{sum(1 for f in CORPUS.rglob('*') if f.is_file())} files, {total} bytes in {CORPUS}")


if __name__ == "__main__":
    main()
