# Rewrites a perf.data (as ptdbg's record save --perf-data writes it: one
# AUXTRACE record per thread) so that each thread's trace comes in two
# AUXTRACE chunks, cut halfway between its second and third PSB:
#   contiguous  the second chunk continues where the first ends
#   hole        64 bytes of AUX data are missing between them
#   truncated   contiguous, but a PERF_RECORD_AUX with the TRUNCATED flag
#               says the hardware stopped at the cut
# Usage: python3 perf_split.py IN OUT MODE.  For tests/integration/perf-data-bad.sh.
import struct, sys
src, dst, mode = sys.argv[1], sys.argv[2], sys.argv[3]
d = bytearray(open(src, 'rb').read())
doff, dsz = struct.unpack_from('<QQ', d, 40)
p = doff
out = bytearray()
psb = bytes([0x02, 0x82] * 8)
while p < doff + dsz:
    t, misc, sz = struct.unpack_from('<IHH', d, p)
    if t != 71:
        out += d[p:p + sz]
        p += sz
        continue
    n, off, ref, idx, tid, cpu, res = struct.unpack_from('<QQQIIII', d, p + 8)
    data = bytes(d[p + sz:p + sz + n])
    p += sz + n
    psbs = [i for i in range(len(data)) if data.startswith(psb, i)]
    assert len(psbs) >= 3, psbs
    cut = (psbs[1] + psbs[2]) // 2
    hole = 64 if mode == 'hole' else 0
    if mode == 'truncated':
        # PERF_RECORD_AUX: offset 0, size cut, TRUNCATED; sample id TID + IDENTIFIER
        out += struct.pack('<IHHQQQIIQ', 11, 0, 48, 0, cut, 1, 1, tid, 1000)
    out += struct.pack('<IHHQQQIIII', 71, 0, 48, cut, off, ref, idx, tid, cpu, res) + data[:cut]
    out += struct.pack('<IHHQQQIIII', 71, 0, 48, len(data) - cut, off + cut + hole, ref, idx, tid, cpu, res) + data[cut:]
feat = d[doff + dsz:]
newsz = len(out)
delta = newsz - dsz
hdr = bytearray(d[:doff])
struct.pack_into('<Q', hdr, 48, newsz)
# feature table offsets move by delta
res = hdr + out + feat
ft = doff + newsz
bits = int.from_bytes(d[72:104], 'little')
k = 0
for b in range(256):
    if bits >> b & 1:
        o, s = struct.unpack_from('<QQ', res, ft + 16 * k)
        struct.pack_into('<QQ', res, ft + 16 * k, o + delta, s)
        k += 1
open(dst, 'wb').write(res)
