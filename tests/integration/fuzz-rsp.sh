#!/usr/bin/env bash
# libFuzzer over the gdb remote-protocol framing and the stub's packet
# dispatcher on a session with no program (tests/fuzz/fuzz-rsp.c):
# seeds are packets gdb 13 sends when it connects, continues, reads memory
# and writes binary memory, plus acks, the interrupt byte, a bad checksum and
# run-length encoded replies.  A fixed -seed and -runs keep the run the same
# every time; any crash, leak, abort (a packet that does not frame back to
# itself) or sanitizer report fails.
source "$(dirname "$0")/lib.bash"
fuzz_build
work=$TMPDIR/fuzz-rsp
mkdir -p "$work/corpus"
pkt() { # the framed form of $1
	printf '$%s#%02x' "$1" "$(printf '%s' "$1" | od -An -tu1 -v | tr -s ' ' '\n' | awk '{s+=$1} END {print s%256}')"
}
i=0
for p in 'qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vfork-events+;exec-events+;vContSupported+;QThreadEvents+;no-resumed+;memory-tagging+' \
	'QStartNoAckMode' '?' 'g' 'm401126,40' 'Z0,401126,1' 'vCont;c' 'vCont;s:p1.1' 'qXfer:features:read:target.xml:0,ffb' \
	'qXfer:btrace:read:all:0,ffb' 'Qbtrace:pt' 'Qbtrace-conf:pt:size=0x1000' 'bs' 'bc' 'Hgp0.0' 'qfThreadInfo' \
	'X401000,4:}]}\}' 'p10' 'P10=0000000000000000' 'vKill;1' 'D' 'Qbtrace:bts' 'Qbtrace:off' \
	'qXfer:btrace-conf:read::0,ffb' 'qXfer:auxv:read::0,ffb' 'qXfer:exec-file:read:1:0,ffb' 'vCont;t' \
	'vFile:setfs:0' 'vFile:open:2f6574632f686f73746e616d65,0,1c0' 'vFile:pread:7,3fff,0' \
	'vFile:fstat:7' 'vFile:close:7' 'vFile:readlink:2f70726f632f73656c662f657865' \
	'Tp1.1' 'qC' 'qAttached:1' 'M401000,2:9090' 'z0,401126,1' 'C05' 'S0b;401000' \
	'qSupported:multiprocess+;exec-events+' 'QPassSignals:e;14;17;' 'qShlibInfoAddr' \
	'qXfer:siginfo:read::0,80' 'vCont;c:p2.-1' 'k'; do
	{ printf '+'; pkt "$p"; } >"$work/corpus/seed-$i"
	i=$((i + 1))
done
printf '\x03' >"$work/corpus/interrupt"
printf '$g#00-+' >"$work/corpus/badsum"
printf '$0*"#%02x' $((0x30 + 0x2a + 0x22 & 255)) >"$work/corpus/rle"
cd "$work" || exit 1
fuzz_run fuzz-rsp corpus "${FUZZ_RUNS:-100000}" -max_len=4096
echo "fuzz-rsp: ok"
