# gdb helper for the oracle tests (loaded with `source`; gdb's own Python).
#
# Defines the command `reverse-pcs FILE`.  Run it when stopped at the end
# of a `record full` log: it reverse-steps one instruction at a time
# through the whole log and writes the pc of every recorded instruction,
# oldest first, one lowercase hex number per line, to FILE.  This is the
# independent reference the tests compare ptdbg's instruction history with.
#
# Entries that execute nothing are left out, so that the list is what a
# branch trace (and ptdbg) sees:
#  - gdb's record full logs every iteration of a rep-prefixed string
#    instruction as an instruction of its own: consecutive repeats of one
#    pc are written once (only a jump to itself can really follow itself);
#  - around a signal it logs entries at the interrupted pc (the stop for
#    the signal, the delivery) although that instruction runs only after
#    the handler returns: an entry for an instruction that cannot change
#    the flow (no jump, call, ret, syscall, int...) whose successor in the
#    log is not the next instruction in memory was not executed there.
import re

import gdb


class ReversePcs(gdb.Command):
    """reverse-pcs FILE: write the pcs of the whole record full log to FILE."""

    def __init__(self):
        super().__init__("reverse-pcs", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        path = arg.strip()
        if not path:
            raise gdb.GdbError("usage: reverse-pcs FILE")
        info = gdb.execute("info record", to_string=True)
        m = re.search(r"Log contains (\d+) instructions", info)
        if not m:
            raise gdb.GdbError("reverse-pcs: no record full log:\n" + info)
        count = int(m.group(1))
        arch = gdb.selected_frame().architecture()
        end_pc = int(gdb.parse_and_eval("$pc"))
        pcs = []
        for _ in range(count):
            gdb.execute("reverse-stepi", to_string=True)
            pcs.append(int(gdb.parse_and_eval("$pc")))
        # One more step must not move: the log has been used up.
        gdb.execute("reverse-stepi", to_string=True)
        if int(gdb.parse_and_eval("$pc")) != pcs[-1]:
            raise gdb.GdbError("reverse-pcs: history longer than the log says")
        pcs.reverse()
        insn = {}

        def decode(pc):
            if pc not in insn:
                d = arch.disassemble(pc)[0]
                insn[pc] = (d["asm"].strip(), d["length"])
            return insn[pc]

        def parse(pc):
            asm, length = decode(pc)
            m = re.match(r"(?:bnd |notrack |rep\w* )*(\w+)\s*(\S*)", asm)
            return (m.group(1), m.group(2)) if m else (asm, ""), length

        # Pass 1: consecutive repeats.
        once = []
        for pc in pcs:
            if once and once[-1] == pc:
                (op, target), _ = parse(pc)
                if not (op.startswith("j") and target.startswith("0x")
                        and int(target, 16) == pc):
                    continue
            once.append(pc)
        # Pass 2: entries for instructions not executed where logged.
        out = []
        for i, pc in enumerate(once):
            (op, _), length = parse(pc)
            flow = op.startswith(("j", "call", "ret", "loop", "syscall", "sysenter",
                                  "int", "iret", "ud", "hlt", "sysret", "lret", "xbegin"))
            nxt = once[i + 1] if i + 1 < len(once) else end_pc
            if not flow and nxt != pc + length:
                continue
            out.append(pc)
        with open(path, "w") as f:
            for pc in out:
                f.write("%x\n" % pc)


ReversePcs()
