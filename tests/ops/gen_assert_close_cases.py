#!/usr/bin/python3
# Prints the messages tests/ops/test_assert_close.cpp expects, as torch.testing.assert_close of
# Debian's PyTorch 1.13 raises them: /usr/bin/python3 tests/ops/gen_assert_close_cases.py
import torch
from torch.testing import assert_close


def case(name, actual, expected, **kwargs):
    try:
        assert_close(actual, expected, **kwargs)
        print(f"{name}: passes")
    except (AssertionError, ValueError) as e:
        print(f"{name}: {str(e)!r}")


a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
b = a.clone()
b[0, 1] += 0.5
b[1, 2] -= 1e-3
b[2, 3] += 2
case("float32 defaults", b, a)
case("explicit tolerances", b, a, rtol=0.0, atol=1e-2)
case("equality", torch.zeros(3), torch.ones(3), rtol=0.0, atol=0.0)
case("ties take the first index", torch.zeros(2, 2), torch.ones(2, 2))
case("float64 defaults", torch.zeros(3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64) + 1e-6)
case("nan", torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]))
case("nan equal_nan", torch.tensor([1.0, float("nan")]), torch.tensor([1.0, float("nan")]), equal_nan=True)
case("inf vs inf", torch.tensor([float("inf")]), torch.tensor([float("inf")]))
case("inf vs -inf", torch.tensor([float("inf")]), torch.tensor([float("-inf")]))
case("compared in float64", torch.tensor([1.0, 0.0]), torch.tensor([1.0, 1e-3]))
case("within float32 defaults", torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 3e-6]))
case("int64", torch.tensor([1, 2, 3]), torch.tensor([1, 2, 4]))
case("bool", torch.tensor([True]), torch.tensor([False]))
case("bfloat16", torch.tensor([1.0, 2.0], dtype=torch.bfloat16), torch.tensor([1.0, 2.5], dtype=torch.bfloat16))
case("scalar", torch.tensor(1.5), torch.tensor(1.0))
case("scalar zero expected", torch.tensor(1.5), torch.tensor(0.0))
case("shape", torch.zeros(3), torch.zeros(3, 1))
case("dtype", torch.zeros(3, dtype=torch.int32), torch.zeros(3))
case("dtype unchecked", torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1.0, 2.5]), check_dtype=False)
case("stride unchecked", torch.zeros(2, 3).t(), torch.zeros(3, 2))
case("stride", torch.zeros(2, 3).t(), torch.zeros(3, 2), check_stride=True)
case("rtol alone", torch.zeros(3), torch.ones(3), rtol=0.1)
case("int64 beyond 2^53", torch.tensor([9007199254740993]), torch.tensor([9007199254740992]))
case("int64 beyond 2^53 scalar", torch.tensor(9007199254740993), torch.tensor(9007199254740992))
case("int64 relative difference in float32", torch.tensor([0, 1]), torch.tensor([0, 3]))
case("int64 relative difference scalar", torch.tensor(1), torch.tensor(3))
case("int64 extremes scalar", torch.tensor(2**63 - 1), torch.tensor(-2**63))
case("int32 and int64 unchecked", torch.tensor([2**31 - 1], dtype=torch.int32), torch.tensor([2**31]),
     check_dtype=False)
case("bool and int64 unchecked", torch.tensor([True, False]), torch.tensor([1, 2]), check_dtype=False)
case("int64 with atol", torch.tensor([100, 5]), torch.tensor([103, 7]), rtol=0.0, atol=2.0)
case("empty float32", torch.zeros(0, 3), torch.zeros(0, 3))
case("empty int64", torch.zeros(0, dtype=torch.int64), torch.zeros(0, dtype=torch.int64))
case("empty, shape differs", torch.zeros(0, 3), torch.zeros(3, 0))
case("None None", None, None)
case("None tensor", None, torch.zeros(1))
case("tensor None", torch.zeros(1), None)
for rtol, atol in [(-1.0, 0.0), (0.0, -1.0), (float("nan"), 0.0)]:
    # assert_close wraps torch.isclose's refusal in a RuntimeError; the cause is isclose's text.
    try:
        torch.isclose(torch.zeros(1), torch.zeros(1), rtol=rtol, atol=atol)
    except RuntimeError as e:
        print(f"rtol={rtol}, atol={atol}: {str(e)!r}")
