# sqlite_tp_fields.py - run by `perf script -s sqlite_tp_fields.py OUT`:
# every tracepoint sample's fields as perf's Python scripting hands them
# over, one JSON line per sample in delivery order: {"event": "sys__name",
# "fields": {...}} (byte arrays as {"hex": ...}). tests/diff/sqlite.sh
# compares them with the tracepoint_* tables of `perfsift sqlite`.
import json
import sys

out = open(sys.argv[1], "w")


def value(v):
    if isinstance(v, (bytes, bytearray)):
        return {"hex": bytes(v).hex()}
    return v


def trace_unhandled(event_name, context, fields):
    out.write(json.dumps({"event": event_name,
                          "fields": {k: value(v) for k, v in fields.items()}}) + "\n")


def trace_end():
    out.close()
