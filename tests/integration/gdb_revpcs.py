# gdb helper for the oracle tests (loaded with `source`; gdb's own Python).
#
# Defines the command `reverse-pcs FILE`.  Run it when stopped at the end
# of a `record full` log: it reverse-steps one instruction at a time
# through the whole log and writes the pc of every recorded instruction,
# oldest first, one lowercase hex number per line, to FILE.  This is the
# independent reference the tests compare ptdbg's instruction history with.
#
# gdb's record full logs every iteration of a rep-prefixed string
# instruction as an instruction of its own, while a branch trace sees one
# instruction; so consecutive repeats of a pc whose instruction has a rep
# prefix are written once.  Nothing else is collapsed.
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
        pcs = []
        for _ in range(count):
            gdb.execute("reverse-stepi", to_string=True)
            pcs.append(int(gdb.parse_and_eval("$pc")))
        # One more step must not move: the log has been used up.
        gdb.execute("reverse-stepi", to_string=True)
        if int(gdb.parse_and_eval("$pc")) != pcs[-1]:
            raise gdb.GdbError("reverse-pcs: history longer than the log says")
        pcs.reverse()
        rep = {}
        out = []
        for pc in pcs:
            if out and out[-1] == pc:
                if pc not in rep:
                    asm = arch.disassemble(pc)[0]["asm"]
                    rep[pc] = asm.lstrip().startswith("rep")
                if rep[pc]:
                    continue
            out.append(pc)
        with open(path, "w") as f:
            for pc in out:
                f.write("%x\n" % pc)


ReversePcs()
