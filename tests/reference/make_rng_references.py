# tests/reference/make_rng_references.py — PyTorch 1.13's CPU random streams for tests/core/test_generator.cpp
# and the seeded ops' tests: `/usr/bin/python3 tests/reference/make_rng_references.py > tests/reference/rng_streams.txt`.
# One stream a line, "<name> <values>": floats as the hex of their bits (bit-exact comparisons), integers in decimal.
import struct
import sys

import torch
import torch.nn.functional as F

SEEDS = [0, 1, 2**31 - 1]
SIZES = [1, 5, 15, 16, 17, 33]
# A size past several engine twists and not a multiple of 16, written as a digest: the values at DIGEST_AT and
# the sum of all values' bit patterns modulo 2^64.
LARGE, DIGEST_AT = 100003, [0, 1, 623, 624, 1247, 50000, 99986, 99987, 100002]
DTYPES = {"f32": torch.float32, "f64": torch.float64}


def bits(t):
    t = t.detach().contiguous().view(-1)
    if t.dtype == torch.float32:
        return " ".join("%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in t.tolist())
    if t.dtype == torch.float64:
        return " ".join("%016x" % struct.unpack("<Q", struct.pack("<d", v))[0] for v in t.tolist())
    return " ".join(str(int(v)) for v in t.tolist())


def emit(name, values):
    print(name, values if isinstance(values, str) else bits(values))


def emit_digest(name, t):
    words = bits(t).split()
    total = sum(int(w, 16) for w in words) % 2**64
    emit(name, " ".join([words[i] for i in DIGEST_AT] + [str(total)]))


def streams(seed):
    p = "s%d." % seed
    for dname, dtype in DTYPES.items():
        for n in SIZES:
            torch.manual_seed(seed)
            emit(p + "rand.%s.%d" % (dname, n), torch.rand(n, dtype=dtype))
            torch.manual_seed(seed)
            emit(p + "randn.%s.%d" % (dname, n), torch.randn(n, dtype=dtype))
        for n in [1, 5, 17, 33]:
            torch.manual_seed(seed)
            emit(p + "uniform_.%s.%d" % (dname, n), torch.empty(n, dtype=dtype).uniform_(-2.0, 3.0))
            torch.manual_seed(seed)
            emit(p + "normal_.%s.%d" % (dname, n), torch.empty(n, dtype=dtype).normal_(0.1, 0.3))
            torch.manual_seed(seed)
            mean = torch.arange(n, dtype=dtype) * 0.5
            std = torch.arange(n, dtype=dtype) * 0.05 + 0.1
            emit(p + "normal.%s.%d" % (dname, n), torch.normal(mean, std))
        torch.manual_seed(seed)
        emit_digest(p + "digest.rand.%s.%d" % (dname, LARGE), torch.rand(LARGE, dtype=dtype))
        torch.manual_seed(seed)
        emit_digest(p + "digest.randn.%s.%d" % (dname, LARGE), torch.randn(LARGE, dtype=dtype))
        torch.manual_seed(seed)
        emit_digest(p + "digest.uniform_.%s.%d" % (dname, LARGE), torch.empty(LARGE, dtype=dtype).uniform_(-2.0, 3.0))
        torch.manual_seed(seed)
        emit_digest(p + "digest.normal_.%s.%d" % (dname, LARGE), torch.empty(LARGE, dtype=dtype).normal_(0.1, 0.3))
        torch.manual_seed(seed)  # past the 256-value blocks the bernoulli draws are taken in
        emit_digest(p + "digest.dropout.%s.%d" % (dname, LARGE), F.dropout(torch.ones(LARGE, dtype=dtype), 0.3, training=True))
        torch.manual_seed(seed)
        emit_digest(p + "digest.bernoulli_.%s.%d" % (dname, LARGE), torch.empty(LARGE, dtype=dtype).bernoulli_(0.3))
        torch.manual_seed(seed)
        probs = torch.arange(LARGE, dtype=dtype) / LARGE
        emit_digest(p + "digest.bernoulli.%s.%d" % (dname, LARGE), torch.bernoulli(probs))
        torch.manual_seed(seed)  # a transposed view is filled in memory order
        emit(p + "uniform_.transposed.%s" % dname, torch.zeros(3, 6, dtype=dtype).t().uniform_())
        torch.manual_seed(seed)
        emit(p + "normal_.transposed.%s" % dname, torch.zeros(3, 6, dtype=dtype).t().normal_())
        torch.manual_seed(seed)
        emit(p + "bernoulli_.transposed.%s" % dname, torch.zeros(3, 6, dtype=dtype).t().bernoulli_(0.3))
        for n in [5, 17]:
            torch.manual_seed(seed)
            x = torch.arange(1, n + 1, dtype=dtype) * 0.7
            emit(p + "dropout.%s.%d" % (dname, n), F.dropout(x, 0.3, training=True))
            torch.manual_seed(seed)
            emit(p + "bernoulli_.%s.%d" % (dname, n), torch.empty(n, dtype=dtype).bernoulli_(0.3))
            torch.manual_seed(seed)
            probs = torch.arange(n, dtype=dtype) / n
            emit(p + "bernoulli.%s.%d" % (dname, n), torch.bernoulli(probs))
        # randn continuing after an odd number of cached normals, then rand: one stream
        torch.manual_seed(seed)
        a = torch.randn(3, dtype=dtype)
        b = torch.randn(5, dtype=dtype)
        c = torch.rand(2, dtype=dtype)
        emit(p + "sequence.%s" % dname, torch.cat([a, b, c]))
    for n in [1, 5, 17, 33]:
        torch.manual_seed(seed)
        emit(p + "randint.%d" % n, torch.randint(-3, 10, (n,)))
        torch.manual_seed(seed)
        emit(p + "randint_big.%d" % n, torch.randint(0, 2**40, (n,)))
        torch.manual_seed(seed)
        emit(p + "randperm.%d" % n, torch.randperm(n))
    for n in [5, 17]:
        torch.manual_seed(seed)
        w = torch.tensor([0.1, 0.0, 2.0, 1.0, 0.5], dtype=torch.float32)
        emit(p + "multinomial.replacement.%d" % n, torch.multinomial(w, n, replacement=True))
    torch.manual_seed(seed)
    w = torch.tensor([0.1, 0.0, 2.0, 1.0, 0.5, 3.0, 0.25], dtype=torch.float32)
    emit(p + "multinomial.noreplacement.4", torch.multinomial(w, 4, replacement=False))
    torch.manual_seed(seed)
    w2 = torch.tensor([[1.0, 2.0, 3.0], [0.0, 5.0, 1.0]], dtype=torch.float64)
    emit(p + "multinomial.rows.6", torch.multinomial(w2, 6, replacement=True))
    # nn.init on a (6, 4, 3) weight and a (5, 7) one
    for name, fill in [
        ("init.uniform_", lambda t: torch.nn.init.uniform_(t, -0.5, 2.0)),
        ("init.normal_", lambda t: torch.nn.init.normal_(t, 0.5, 2.0)),
        ("init.kaiming_uniform_", lambda t: torch.nn.init.kaiming_uniform_(t, a=5**0.5)),
        ("init.kaiming_normal_", lambda t: torch.nn.init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu")),
        ("init.xavier_uniform_", lambda t: torch.nn.init.xavier_uniform_(t)),
        ("init.xavier_normal_", lambda t: torch.nn.init.xavier_normal_(t)),
        ("init.trunc_normal_", lambda t: torch.nn.init.trunc_normal_(t, 0.5, 2.0, -1.0, 4.0)),
    ]:
        for shape in [(6, 4, 3), (5, 7), (2, 3)]:
            for dname, dtype in DTYPES.items():
                torch.manual_seed(seed)
                emit(p + "%s.%s.%s" % (name, dname, "x".join(map(str, shape))), fill(torch.empty(shape, dtype=dtype)))
    for shape in [(6, 4), (5, 7)]:
        for dname, dtype in DTYPES.items():
            torch.manual_seed(seed)
            t = torch.nn.init.sparse_(torch.empty(shape, dtype=dtype), 0.5, 0.1)
            emit(p + "init.sparse_.%s.%s" % (dname, "x".join(map(str, shape))), t)
    torch.manual_seed(seed)
    lin = torch.nn.Linear(5, 3)
    emit(p + "linear.weight", lin.weight)
    emit(p + "linear.bias", lin.bias)
    for n in [10, 33]:
        parts = torch.utils.data.random_split(range(n), [0.7, 0.3], generator=torch.Generator().manual_seed(seed))
        emit(p + "random_split.%d" % n, " ".join(str(i) for part in parts for i in part.indices))
    g = torch.Generator().manual_seed(seed)
    emit(p + "generator.rand.f32.5", torch.rand(5, generator=g))
    emit(p + "generator.randn.f64.5", torch.randn(5, generator=g, dtype=torch.float64))
    generator_streams(seed)
    torch.manual_seed(seed)
    emit(p + "rng_state.seeded", torch.get_rng_state())
    torch.randn(3, dtype=torch.float64)  # leaves a cached double normal
    torch.rand(1)
    emit(p + "rng_state.drawn", torch.get_rng_state())
    emit(p + "rng_state.drawn.then_randn.f64.3", torch.randn(3, dtype=torch.float64))


def generator_streams(seed):
    """Every op that takes generator=, each from a fresh torch.Generator().manual_seed(seed) (tests/ops/
    test_random_generator.cpp): "gen.<op>..." streams. The default generator, seeded seed + 1 first, is drawn
    from after them all ("gen.default_after"): the generators leave its stream where it was."""
    p = "s%d.gen." % seed
    torch.manual_seed(seed + 1)

    def fresh():
        return torch.Generator().manual_seed(seed)

    for dname, dtype in DTYPES.items():
        for n in [5, 17]:
            size = "%s.%d" % (dname, n)
            emit(p + "rand." + size, torch.rand(n, generator=fresh(), dtype=dtype))
            emit(p + "randn." + size, torch.randn(n, generator=fresh(), dtype=dtype))
            emit(p + "uniform_." + size, torch.empty(n, dtype=dtype).uniform_(-2.0, 3.0, generator=fresh()))
            emit(p + "normal_." + size, torch.empty(n, dtype=dtype).normal_(0.1, 0.3, generator=fresh()))
            mean = torch.arange(n, dtype=dtype) * 0.5
            std = torch.arange(n, dtype=dtype) * 0.05 + 0.1
            emit(p + "normal." + size, torch.normal(mean, std, generator=fresh()))
            emit(p + "bernoulli." + size, torch.bernoulli(torch.arange(n, dtype=dtype) / n, generator=fresh()))
            emit(p + "bernoulli_." + size, torch.empty(n, dtype=dtype).bernoulli_(0.3, generator=fresh()))
        g = fresh()  # one generator through several calls: randn's cached normal stays with g
        a = torch.randn(3, generator=g, dtype=dtype)
        b = torch.randn(5, generator=g, dtype=dtype)
        c = torch.rand(2, generator=g, dtype=dtype)
        emit(p + "sequence." + dname, torch.cat([a, b, c]))
    for n in [5, 17]:
        emit(p + "randint.%d" % n, torch.randint(-3, 10, (n,), generator=fresh()))
        emit(p + "randint_high.%d" % n, torch.randint(10, (n,), generator=fresh()))
        emit(p + "randint_big.%d" % n, torch.randint(0, 2**40, (n,), generator=fresh()))
        emit(p + "randperm.%d" % n, torch.randperm(n, generator=fresh()))
        w = torch.tensor([0.1, 0.0, 2.0, 1.0, 0.5], dtype=torch.float32)
        emit(p + "multinomial.replacement.%d" % n, torch.multinomial(w, n, replacement=True, generator=fresh()))
    w = torch.tensor([0.1, 0.0, 2.0, 1.0, 0.5, 3.0, 0.25], dtype=torch.float32)
    emit(p + "multinomial.noreplacement.4", torch.multinomial(w, 4, replacement=False, generator=fresh()))
    emit(p + "randperm.f64.9", torch.randperm(9, generator=fresh(), dtype=torch.float64))
    g = fresh()  # Generator.get_state / set_state: another generator resumes g's stream, cached normal included
    torch.randn(3, generator=g, dtype=torch.float64)
    state = g.get_state()
    emit(p + "get_state.drawn", state)
    resumed = torch.Generator()
    resumed.set_state(state)
    emit(p + "set_state.then_randn.f64.3", torch.randn(3, generator=resumed, dtype=torch.float64))
    emit(p + "default_after", torch.rand(5))


def recorded_inputs(name, call):
    """The Input Shapes PyTorch's profiler records for the first `name` event of call(), without spaces."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        call()
    return str(next(e.input_shapes for e in prof.events() if e.name == name)).replace(" ", "")


def profiled_overloads():
    """The profiler's arguments of the seeded ops with and without generator= (ATen's .generator overloads put
    it before dtype): "profile.<op>[.generator] <shapes>"."""
    g = torch.Generator().manual_seed(0)
    x, probs = torch.zeros(4, 10), torch.full((4, 10), 0.5)
    calls = {
        "rand": ("aten::rand", lambda **k: torch.rand(4, 10, **k)),
        "randn": ("aten::randn", lambda **k: torch.randn(4, 10, **k)),
        "randint": ("aten::randint", lambda **k: torch.randint(-3, 10, (4, 10), **k)),
        "randperm": ("aten::randperm", lambda **k: torch.randperm(7, **k)),
        "normal": ("aten::normal", lambda **k: torch.normal(x, probs, **k)),
        "bernoulli": ("aten::bernoulli", lambda **k: torch.bernoulli(probs, **k)),
        "bernoulli_": ("aten::bernoulli_", lambda **k: x.clone().bernoulli_(0.3, **k)),
        "multinomial": ("aten::multinomial", lambda **k: torch.multinomial(probs, 3, **k)),
        "uniform_": ("aten::uniform_", lambda **k: x.clone().uniform_(-1.0, 2.0, **k)),
        "normal_": ("aten::normal_", lambda **k: x.clone().normal_(0.5, 2.0, **k)),
    }
    for op, (name, call) in calls.items():
        emit("profile." + op, recorded_inputs(name, call))
        emit("profile.%s.generator" % op, recorded_inputs(name, lambda: call(generator=g)))


for s in SEEDS:
    streams(s)
profiled_overloads()
