#!/usr/bin/env python3
"""Checks of ptdbg-report's machine formats, for tests/integration/report-*.sh.

  report_check.py schema SCHEMA REPORT.json
      validates the report against the JSON schema (the subset of draft-07
      the schema uses: type, enum, required, properties,
      additionalProperties, items, minimum, pattern, $ref), field by field:
      every field of the report must be declared, every required one there.
  report_check.py perfetto TRACE.json CALLS.txt
      CALLS.txt is the shell's `record function-call-history /ci` of the
      same recording.  Checks: slices nest properly on each track; every
      segment lies in exactly one innermost slice of its function whose
      depth is the segment's level; every slice starts at the first
      instruction of one of its function's segments and ends at the last
      instruction of a segment inside it.
  report_check.py folded STACKS.txt CALLS.txt NINSN
      the counts sum to NINSN; each function's own count is the sum of the
      instructions of its segments (the tail, number NINSN + 1, excluded).
  report_check.py svg FLAME.svg TRACE.json
      the SVG parses as XML; its boxes are the Perfetto slices (same names,
      spans and depths) and lie left to right in time order.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    sys.exit("report_check: " + msg)


# ---- JSON schema -------------------------------------------------------------

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
KNOWN = {"$schema", "$id", "title", "description", "type", "enum", "required", "properties",
         "additionalProperties", "items", "minimum", "pattern", "$ref", "definitions"}


def validate(root, schema, value, path, seen):
    unknown = set(schema) - KNOWN
    if unknown:
        fail("%s: the schema uses %s, which this checker does not know" % (path, sorted(unknown)))
    if "$ref" in schema:
        ref = schema["$ref"]
        if not ref.startswith("#/definitions/"):
            fail("unsupported $ref " + ref)
        return validate(root, root["definitions"][ref[len("#/definitions/"):]], value, path, seen)
    t = schema.get("type")
    if t is not None:
        ts = t if isinstance(t, list) else [t]
        if not any(TYPES[x](value) for x in ts):
            fail("%s: %r is not of type %s" % (path, value, t))
    if "enum" in schema and value not in schema["enum"]:
        fail("%s: %r is not one of %r" % (path, value, schema["enum"]))
    if "minimum" in schema and TYPES["number"](value) and value < schema["minimum"]:
        fail("%s: %r < %r" % (path, value, schema["minimum"]))
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        fail("%s: %r does not match %s" % (path, value, schema["pattern"]))
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for k in schema.get("required", []):
            if k not in value:
                fail("%s: the required field %r is missing" % (path, k))
        addl = schema.get("additionalProperties", True)
        for k, v in value.items():
            seen.add(path.split("[")[0] + "." + k)
            if k in props:
                validate(root, props[k], v, path + "." + k, seen)
            elif addl is False:
                fail("%s: the field %r is not in the schema" % (path, k))
            elif isinstance(addl, dict):
                validate(root, addl, v, path + "." + k, seen)
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            validate(root, schema["items"], v, "%s[%d]" % (path, i), seen)


def cmd_schema(schema_file, report_file):
    schema = json.load(open(schema_file))
    report = json.load(open(report_file))
    seen = set()
    validate(schema, schema, report, "$", seen)
    print("schema ok: %d distinct fields checked" % len(seen))


# ---- the shell's function-call history ----------------------------------------

def read_calls(path):
    """[(index, level, name, first, last)] from `record function-call-history /ci`."""
    segs = []
    for line in open(path):
        m = re.match(r"^(\d+)\t( *)(\S+)\tinst (\d+),(\d+)", line)
        if m:
            segs.append((int(m.group(1)), len(m.group(2)) // 2, m.group(3), int(m.group(4)),
                         int(m.group(5))))
    if not segs:
        fail("no function-call history in " + path)
    return segs


def slices_of(trace_file):
    t = json.load(open(trace_file))
    ev = t["traceEvents"]
    xs = [e for e in ev if e["ph"] == "X"]
    for e in ev:
        if e["ph"] not in ("X", "M"):
            fail("unexpected event phase %r" % e["ph"])
    tracks = {}
    for e in xs:
        for k in ("pid", "tid", "ts", "dur", "name"):
            if k not in e:
                fail("slice without %r: %r" % (k, e))
        tracks.setdefault((e["pid"], e["tid"]), []).append(e)
    names = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
    for key in tracks:
        if not any((m["pid"], m["tid"]) == key for m in names):
            fail("track %r has no thread_name" % (key,))
    return tracks


def nest(slices):
    """Sorts the slices, checks proper nesting, sets e['depth'] and e['parent']."""
    slices.sort(key=lambda e: (e["ts"], -e["dur"]))
    stack = []
    for e in slices:
        s, end = e["ts"], e["ts"] + e["dur"]
        while stack and stack[-1]["ts"] + stack[-1]["dur"] <= s:
            stack.pop()
        if stack and end > stack[-1]["ts"] + stack[-1]["dur"]:
            fail("slices overlap without nesting: %r and %r" % (stack[-1], e))
        e["depth"] = len(stack)
        e["parent"] = stack[-1] if stack else None
        stack.append(e)
    return slices


def cmd_perfetto(trace_file, calls_file):
    tracks = slices_of(trace_file)
    if len(tracks) != 1:
        fail("expected one track, found %d" % len(tracks))
    slices = nest(list(tracks.values())[0])
    calls = [e for e in slices if e.get("cat") != "gap"]
    segs = read_calls(calls_file)
    for idx, level, name, first, last in segs:
        # the innermost slice holding the whole segment
        holders = [e for e in calls if e["ts"] <= first and last < e["ts"] + e["dur"]]
        if not holders:
            fail("segment %d (%s %d,%d) is in no slice" % (idx, name, first, last))
        inner = max(holders, key=lambda e: e["depth"])
        if inner["name"] != name:
            fail("segment %d (%s %d,%d) lies in slice %s [%d,+%d]" %
                 (idx, name, first, last, inner["name"], inner["ts"], inner["dur"]))
        if inner["depth"] != level:
            fail("segment %d (%s) at level %d lies in a slice at depth %d" %
                 (idx, name, level, inner["depth"]))
    for e in calls:
        own = [s for s in segs if s[2] == e["name"] and e["ts"] <= s[3] and s[4] < e["ts"] + e["dur"]]
        if not any(s[3] == e["ts"] for s in own):
            fail("slice %s at %d does not start a segment of its function" % (e["name"], e["ts"]))
        end = e["ts"] + e["dur"] - 1
        if not any(s[4] == end for s in segs if e["ts"] <= s[3] and s[4] <= end):
            fail("slice %s [%d,%d] does not end where a segment inside it ends" % (e["name"], e["ts"], end))
    print("perfetto ok: %d slices, %d segments, depth %d" %
          (len(calls), len(segs), max(e["depth"] for e in calls)))


def cmd_folded(stacks_file, calls_file, ninsn):
    ninsn = int(ninsn)
    total = 0
    self_count = {}
    for line in open(stacks_file):
        m = re.match(r"^(\S(?:.*\S)?) (\d+)$", line.rstrip("\n"))
        if not m:
            fail("not a folded line: %r" % line)
        frames = m.group(1).split(";")
        total += int(m.group(2))
        self_count[frames[-1]] = self_count.get(frames[-1], 0) + int(m.group(2))
    if total != ninsn:
        fail("the folded counts sum to %d, the recording has %d instructions" % (total, ninsn))
    want = {}
    for idx, level, name, first, last in read_calls(calls_file):
        n = min(last, ninsn) - first + 1
        want[name] = want.get(name, 0) + max(n, 0)
    want = {k: v for k, v in want.items() if v}
    if want != self_count:
        fail("own counts differ from the call history:\n folded %r\n history %r" % (self_count, want))
    print("folded ok: %d instructions in %d functions" % (total, len(want)))


def cmd_svg(svg_file, trace_file, only_thread=None):
    """only_thread: compare only ptdbg's thread N (data-thread="N", Perfetto's
    "thread N" track), for reports of two runs whose other threads may
    have taken other paths (a thread waiting in pthread_join)."""
    root = ET.parse(svg_file).getroot()
    if not root.tag.endswith("svg"):
        fail("the root element is %s" % root.tag)
    ns = "{http://www.w3.org/2000/svg}"
    boxes = []
    calls = []
    for band in root.iter(ns + "g"):
        if band.get("class") == "thread":
            calls += [(band.get("data-thread"), g) for g in band.iter(ns + "g") if g.get("class") == "call"]
    if sum(1 for g in root.iter(ns + "g") if g.get("class") == "call") != len(calls):
        fail("boxes outside a thread's band")
    for thread, g in calls:
        title = g.find(ns + "title")
        rect = g.find(ns + "rect")
        if title is None or rect is None:
            fail("a box without <title> or <rect>")
        name = title.text.split(" at ")[0].split(",")[0]
        boxes.append((name, int(g.get("data-first")), int(g.get("data-last")), int(g.get("data-depth")),
                      float(rect.get("x")), float(rect.get("width")), title.text, thread))
    tracks = slices_of(trace_file)
    if only_thread is not None:
        names = {(e["pid"], e["tid"]): e["args"]["name"] for e in json.load(open(trace_file))["traceEvents"]
                 if e["ph"] == "M" and e["name"] == "thread_name"}
        keep = [k for k in tracks if re.match(r"thread %s\b" % re.escape(only_thread), names.get(k, ""))]
        if len(keep) != 1:
            fail("no single Perfetto track for thread %s: %r" % (only_thread, names))
        tracks = {keep[0]: tracks[keep[0]]}
        if not any(b[7] == only_thread for b in boxes):
            fail("no SVG box of thread %s" % only_thread)
        if len({b[7] for b in boxes}) != len(names):
            fail("SVG bands for threads %r, Perfetto tracks %r" % (sorted({b[7] for b in boxes}), names))
        boxes = [b for b in boxes if b[7] == only_thread]
    slices = []
    for t in tracks.values():
        slices += [e for e in nest(t) if e.get("cat") != "gap"]
    want = sorted((e["name"], e["ts"], e["ts"] + e["dur"] - 1, e["depth"]) for e in slices)
    got = sorted(b[:4] for b in boxes)
    if want != got:
        fail("SVG boxes differ from the call history slices:\n svg  %r\n want %r" % (got[:8], want[:8]))
    for b in boxes:
        if not re.search(r"instructions %d-%d" % (b[1], b[2]), b[6]):
            fail("box title without its instructions: %r" % b[6])
    # time order: a later call is never left of an earlier one at one depth
    by_depth = {}
    for b in sorted(boxes, key=lambda b: b[1]):
        prev = by_depth.get((b[7], b[3]))
        if prev and b[4] + 1e-6 < prev[4] + prev[5] - 1e-3:
            fail("box %r is left of the earlier %r" % (b[:4], prev[:4]))
        by_depth[(b[7], b[3])] = b
    print("svg ok: %d boxes" % len(boxes))


if __name__ == "__main__":
    cmds = {"schema": cmd_schema, "perfetto": cmd_perfetto, "folded": cmd_folded, "svg": cmd_svg}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        fail("usage: report_check.py schema|perfetto|folded|svg ARGS...")
    cmds[sys.argv[1]](*sys.argv[2:])
