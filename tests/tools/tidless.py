#!/usr/bin/env python3
"""tidless.py OUT - a capture whose samples carry tid -1, of two processes
(tests/diff/json.sh). The kernel writes tid -1 for a task past its exit
(perf sched record shows it in sched_switch and sched_stat_runtime
samples); perf finds threads by tid, so the first such sample makes the
thread, with its pid, and later ones of other processes get that pid in
perf data convert --to-json. No COMM or FORK names these threads.
"""
import os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import (IP, MISC_USER, PERIOD, TID, TIME, attr, capture, comm,  # noqa: E402
                     perf_string, rec)


def sample(pid, tid, ip, t):
    return rec(9, struct.pack('<QIIQQ', ip, pid, tid, t, 1), MISC_USER)


def main():
    minus1 = 0xffffffff
    data = comm(100, b'sh') + sample(100, 100, 0x1000, 1)
    data += sample(200, minus1, 0x2000, 2) + sample(300, minus1, 0x3000, 3)
    data += sample(200, minus1, 0x2000, 4) + sample(300, 300, 0x3000, 5)
    # the header perf data convert prints (it crashes without one)
    features = [(3, perf_string(b'host')), (4, perf_string(b'6.1.0')),
                (5, perf_string(b'6.1.187')), (6, perf_string(b'x86_64')),
                (7, struct.pack('<II', 2, 2)), (8, perf_string(b'cpu')),
                (9, perf_string(b'GenuineIntel,6,85,4')), (10, struct.pack('<Q', 1 << 20)),
                (11, struct.pack('<I', 1) + perf_string(b'perf'))]
    capture(sys.argv[1], [attr(sample_type=IP | TID | TIME | PERIOD)], data, features)


if __name__ == '__main__':
    main()
